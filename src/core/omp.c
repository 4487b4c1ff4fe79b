/*
 * omp.c
 *	  OpenMP setup for the CPU faces: block counts, and a thread pool whose
 *	  worker threads never receive the host process's signals.
 *
 * libgomp creates its worker threads lazily, at the first parallel region
 * that needs them, and a new thread inherits the signal mask of the thread
 * that creates it.  PostgreSQL delivers SIGINT, SIGTERM, SIGUSR1 and others
 * to the backend process, and a signal handler running on a worker thread
 * would corrupt the backend's state.  So the pool is created (and grown)
 * from inside a window in which every signal is blocked.
 */
#include <omp.h>
#include <pthread.h>
#include <signal.h>

#include "gpo_internal.h"

/* Minimum rows per block of a CPU face. */
int64_t		gpo_rows_per_block = 16384;

/* Largest team the pool was created for with signals blocked. */
static int	pool_threads = 0;

/* Blocks a CPU face splits n rows into under ctx (1 .. gpo_threads). */
int
gpo_blocks(const gpo_ctx *ctx, int64_t n)
{
	int			threads = gpo_threads(ctx);
	int64_t		per = gpo_rows_per_block > 0 ? gpo_rows_per_block : 1;
	int64_t		want = (n + per - 1) / per;

	if (want < 1)
		want = 1;
	return want < threads ? (int) want : threads;
}

/* Pieces a loop over n rows is cut into for a dynamic schedule (see gpo_internal.h). */
int
gpo_pieces(const gpo_ctx *ctx, int64_t n)
{
	int64_t		threads = gpo_threads(ctx);
	int64_t		per = gpo_rows_per_block > 0 ? gpo_rows_per_block : 1;
	int64_t		want = (n + per - 1) / per;
	int64_t		most = threads > 1 ? threads * GPO_PIECES_PER_THREAD : 1;

	if (want < 1)
		want = 1;
	return want < most ? (int) want : (int) most;
}

/* Threads of a team that takes npieces pieces under ctx (1 .. gpo_threads). */
int
gpo_team(const gpo_ctx *ctx, int npieces)
{
	int			threads = gpo_threads(ctx);

	if (npieces < 1)
		return 1;
	return npieces < threads ? npieces : threads;
}

/* Runs fn over n rows, serially or in pieces (see gpo_internal.h). */
void
gpo_run_pieces(const gpo_ctx *ctx, int64_t n, int64_t serial_rows,
			   int64_t piece_rows, gpo_rows_fn fn, void *arg)
{
	int64_t		most;
	int			np;
	int			p;

	if (ctx == NULL || n <= serial_rows)
	{
		fn(arg, 0, n);
		return;
	}
	most = (int64_t) gpo_threads(ctx) * GPO_PIECES_PER_THREAD;
	np = (int) (n / piece_rows < most ? n / piece_rows : most);
	if (np < 1)
		np = 1;
#pragma omp parallel for num_threads(gpo_team(ctx, np)) schedule(dynamic, 1)
	for (p = 0; p < np; p++)
		fn(arg, gpo_block_lo(n, p, np), gpo_block_lo(n, p + 1, np));
}

/* Creates OpenMP's thread pool (at least nthreads) with every signal blocked. */
void
gpo_omp_prepare(int nthreads)
{
	sigset_t	all;
	sigset_t	old;
	int			sink = 0;

	if (nthreads <= pool_threads)
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
#pragma omp parallel num_threads(nthreads) reduction(+:sink)
	{
		sink += 1;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pool_threads = nthreads;
}
