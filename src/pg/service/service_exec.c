/*
 * service_exec.c
 *	  The GPU service's executor: the child process of the supervisor
 *	  (service_main.c) that starts CUDA (the only CUDA context on its
 *	  GPU), page-locks the staging arena once, and runs the queued
 *	  requests of every backend, oldest first.
 *
 * There is one executor per service, each with the GPU of its service's
 * number (gpo_gpu_use_device, before its first CUDA call).
 *
 * One request runs at a time, on the legacy default stream of the one
 * context and its one device memory pool (within gpuops.gpu_memory_limit):
 * device memory is bounded by one request's working set plus the pool's
 * cached bytes, whatever the number of sessions.  A request's columns are
 * read by the device straight from the page-locked arena, and its results
 * written back there.
 *
 * The executor is not a child of the postmaster, so that its death (a
 * SIGKILL, a crash in a GPU library) does not make the postmaster restart
 * every process: the supervisor answers the request it was running as lost
 * and forks a new executor.  For that it holds no lock at any time (its
 * counters are atomics; a slot given up while it ran is freed by the
 * supervisor), allocates with malloc, and calls nothing of PostgreSQL that
 * can raise an error: the engine returns a status, which goes back to the
 * backend.  It reads no settings: the supervisor publishes those it needs.
 * It leaves by _exit, never by proc_exit, whose callbacks are the
 * supervisor's.
 */
#include "service/service_int.h"

#include <errno.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/latch.h"

static volatile sig_atomic_t exec_sigterm = false;

/* The service this executor runs (set once, at its start). */
static GpuopsSvcShared *svc = NULL;

/* The request arrays, allocated once (malloc: no memory context here). */
static gpo_vector *exec_vals;
static gpo_chunk *exec_vchunks;
static gpo_agg_out *exec_outs;

/* SIGTERM: leave after the request being run (at once in a debug delay). */
static void
gpuops_svc_exec_sigterm(int signo)
{
	exec_sigterm = true;
}

/* Publishes svc's slot i's answer (see service_int.h). */
void
gpuops_svc_answer(GpuopsSvcShared *svc, int i)
{
	GpuopsSvcSlot *sl = &svc->slots[i];
	Latch	   *wake;

	pg_write_barrier();
	pg_atomic_write_u32(&sl->state, GPUOPS_SVC_DONE);
	pg_memory_barrier();
	wake = pg_atomic_read_u32(&sl->abandoned) != 0 ? svc->latch :
		sl->owner_latch;
	if (wake != NULL)
		SetLatch(wake);
}

/*
 * Finds the device and page-locks the arena, then publishes the state:
 * serving on the GPU, on the CPU (gpuops.debug_gpu_service), or no device.
 */
static GpuopsSvcState
gpuops_svc_exec_start(bool debug)
{
	GpuopsSvcState state;
	gpo_device_info info;

	memset(&info, 0, sizeof(info));
	if (gpo_gpu_available())
	{
		gpo_gpu_info(&info);
		state = GPUOPS_SVC_READY;
		svc->pinned = gpo_host_register(gpuops_svc_arena(svc),
										svc->arena_size);
	}
	else
		state = debug ? GPUOPS_SVC_READY_CPU : GPUOPS_SVC_NO_DEVICE;
	strlcpy(svc->device_name,
			state == GPUOPS_SVC_READY ? info.name :
			state == GPUOPS_SVC_READY_CPU ? "CPU (gpuops.debug_gpu_service)" : "",
			sizeof(svc->device_name));
	pg_write_barrier();
	pg_atomic_write_u32(&svc->state, state);
	return state;
}

/* The queued slot submitted first, taken (RUNNING); -1 when none is queued. */
static int
gpuops_svc_take(void)
{
	for (;;)
	{
		int			best = -1;
		uint64		best_seq = PG_UINT64_MAX;
		uint32		queued = GPUOPS_SVC_QUEUED;
		int			i;

		for (i = 0; i < GPUOPS_SVC_SLOTS; i++)
		{
			GpuopsSvcSlot *sl = &svc->slots[i];

			if (pg_atomic_read_u32(&sl->state) == GPUOPS_SVC_QUEUED &&
				sl->seq < best_seq)
			{
				best = i;
				best_seq = sl->seq;
			}
		}
		if (best < 0)
			return -1;
		pg_read_barrier();
		if (pg_atomic_compare_exchange_u32(&svc->slots[best].state,
										   &queued, GPUOPS_SVC_RUNNING))
			return best;
		/* its owner gave it up meanwhile: look again */
	}
}

/* A one-chunk vector over the arena. */
static void
gpuops_svc_vector(gpo_vector *v, gpo_chunk *c, gpo_type type, char *base,
				  uint64 off, uint64 off_valid, int64 n)
{
	c->data = base + off;
	c->validity = off_valid != 0 ? (uint8_t *) (base + off_valid) : NULL;
	c->n = n;
	v->type = type;
	v->nchunks = 1;
	v->chunks = c;
}

/* Runs request req (in the arena at base) with the engine; fills its results. */
static void
gpuops_svc_run_agg(GpuopsSvcAggReq *req, char *base, bool on_gpu)
{
	gpo_vector	keys;
	gpo_chunk	kchunk;
	gpo_agg_strategy strategy = (gpo_agg_strategy) req->strategy;
	gpo_ctx		ctx;
	instr_time	start;
	instr_time	end;
	int			nouts = Max(req->nvals, 1);
	int			v;
	int			f;

	memset(exec_outs, 0, sizeof(gpo_agg_out) * GPO_AGG_MAX_REQS);
	gpuops_svc_vector(&keys, &kchunk, (gpo_type) req->key_type, base,
					  req->off_keys, req->off_keys_valid, req->nrows);
	for (v = 0; v < nouts; v++)
	{
		if (v < req->nvals)
			gpuops_svc_vector(&exec_vals[v], &exec_vchunks[v],
							  (gpo_type) req->val_type[v], base,
							  req->off_vals[v], req->off_vals_valid[v],
							  req->nrows);
		exec_outs[v].capacity = req->cap;
		for (f = 0; f < GPUOPS_SVC_NOUT; f++)
			if (req->off_out[v][f] != 0)
				*gpuops_svc_out_field(&exec_outs[v], f) = base + req->off_out[v][f];
	}
	gpo_ctx_init(&ctx);
	ctx.device = on_gpu ? GPO_DEVICE_GPU : GPO_DEVICE_CPU;
	ctx.gpu_min_rows = 0;
	ctx.threads = 1;
	INSTR_TIME_SET_CURRENT(start);
	req->status = gpuops_groupagg_many_call(&ctx, &keys, exec_vals, req->nvals,
											req->est_groups, &strategy,
											exec_outs, &req->ngroups);
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_SUBTRACT(end, start);
	req->device_ms = INSTR_TIME_GET_MILLISEC(end);
	req->strategy_used = strategy;
	req->face_used = ctx.used;
	strlcpy(req->detail, ctx.detail, sizeof(req->detail));
}

/*
 * gpuops.debug_gpu_service_delay: waits that long before a request (for
 * tests), leaving at once on SIGTERM, which loses the request being run.
 */
static void
gpuops_svc_exec_delay(uint32 ms)
{
	instr_time	start;
	instr_time	now;

	INSTR_TIME_SET_CURRENT(start);
	for (;;)
	{
		if (exec_sigterm)
			_exit(1);
		INSTR_TIME_SET_CURRENT(now);
		INSTR_TIME_SUBTRACT(now, start);
		if (INSTR_TIME_GET_MILLISEC(now) >= ms)
			return;
		pg_usleep(10000L);
	}
}

/* Publishes the device memory the pool holds now and has held at most. */
static void
gpuops_svc_note_memory(void)
{
	int64		held;
	int64		peak;

	gpo_gpu_memory_use(&held, &peak);
	pg_atomic_write_u64(&svc->device_held, (uint64) held);
	if ((uint64) peak > pg_atomic_read_u64(&svc->device_peak))
		pg_atomic_write_u64(&svc->device_peak, (uint64) peak);
}

/* Runs slot i's request and answers it. */
static void
gpuops_svc_serve(int i, bool on_gpu)
{
	GpuopsSvcSlot *sl = &svc->slots[i];
	char	   *base = gpuops_svc_arena(svc) + sl->off;
	uint32		delay = pg_atomic_read_u32(&svc->delay_ms);

	if (delay > 0)
		gpuops_svc_exec_delay(delay);
	gpuops_svc_run_agg((GpuopsSvcAggReq *) base, base, on_gpu);
	pg_atomic_fetch_add_u64(&svc->served, 1);
	gpuops_svc_answer(svc, i);
}

/* Waits up to 100 ms for the work semaphore (a queued request). */
static void
gpuops_svc_exec_wait(void)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += 100 * 1000 * 1000;
	if (until.tv_nsec >= 1000 * 1000 * 1000)
	{
		until.tv_sec++;
		until.tv_nsec -= 1000 * 1000 * 1000;
	}
	while (sem_timedwait(&svc->work, &until) != 0 && errno == EINTR &&
		   !exec_sigterm)
		;
}

/* The executor's body for service me (see service_int.h). */
void
gpuops_svc_exec_main(GpuopsSvcShared *me, pid_t supervisor)
{
	struct sigaction sa;
	GpuopsSvcState state;
	sigset_t	none;

	MyProcPid = getpid();
	svc = me;
#ifdef __linux__
	/* a supervisor that dies takes the executor along */
	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
	if (getppid() != supervisor)
		_exit(1);
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sa.sa_handler = gpuops_svc_exec_sigterm;
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	exec_vals = calloc(GPO_AGG_MAX_REQS, sizeof(gpo_vector));
	exec_vchunks = calloc(GPO_AGG_MAX_REQS, sizeof(gpo_chunk));
	exec_outs = calloc(GPO_AGG_MAX_REQS, sizeof(gpo_agg_out));
	if (exec_vals == NULL || exec_vchunks == NULL || exec_outs == NULL)
		_exit(1);
	/* service i runs on GPU i, chosen before CUDA's first call */
	(void) gpo_gpu_use_device(svc->index);
	state = gpuops_svc_exec_start(gpuops_debug_gpu_service);
	if (svc->latch != NULL)
		SetLatch(svc->latch);
	while (!exec_sigterm)
	{
		int			i;

		gpo_gpu_set_memory_limit((int64) pg_atomic_read_u32(&svc->memory_limit_mb) *
								 1024 * 1024);
		while (state != GPUOPS_SVC_NO_DEVICE && !exec_sigterm &&
			   (i = gpuops_svc_take()) >= 0)
		{
			gpuops_svc_serve(i, state == GPUOPS_SVC_READY);
			gpuops_svc_note_memory();
		}
		gpuops_svc_exec_wait();
	}
	if (svc->pinned)
		gpo_host_unregister(gpuops_svc_arena(svc));
	_exit(0);
}
