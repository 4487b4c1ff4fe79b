/*
 * runtime.c
 *	  What the backend's engine calls need around them: scratch memory for
 *	  an engine call's second phase, and helper threads that PostgreSQL's
 *	  signals never reach.
 */
#include "common/gpuops.h"

#include <signal.h>

#include "utils/memutils.h"

/* Scratch for the second phase of an engine call, GPUOPS_SCRATCH_ALIGN aligned. */
void *
gpuops_alloc_scratch(size_t scratch_bytes)
{
	char	   *raw = palloc_extended(scratch_bytes + GPUOPS_SCRATCH_ALIGN,
									  MCXT_ALLOC_HUGE);

	return (void *) TYPEALIGN(GPUOPS_SCRATCH_ALIGN, raw);
}

/*
 * Starts fn(arg) on a helper thread with every signal blocked: PostgreSQL's
 * handlers must run in the backend's own thread, and the new thread (and
 * the OpenMP threads it may start) inherits this mask.
 */
bool
gpuops_thread_start(pthread_t *thread, void *(*fn) (void *), void *arg)
{
	sigset_t	all;
	sigset_t	old;
	int			rc;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(thread, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc == 0;
}
