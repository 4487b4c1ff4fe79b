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
 * It runs gpuops.gpu_service_streams requests at once, each on a thread of
 * its own (a lane) and so on a CUDA stream of its own (the kernels are
 * built with per-thread default streams): while one request's batch or
 * groups cross the bus, another's kernels run.  The lanes take the queued
 * requests oldest first, so no session's requests wait behind a later
 * one's.  They share the one context and its one device memory pool
 * (within gpuops.gpu_memory_limit): device memory is bounded by the working
 * sets of the requests running at once plus the pool's cached bytes,
 * whatever the number of sessions.  A request that runs out of device
 * memory beside others runs again alone, once the others are done (the
 * lanes hold exec_alone shared while they run; the rerun holds it
 * exclusively), so a request fails for memory only where it would fail by
 * itself.  A request's columns are read by the device straight from the
 * page-locked arena, and its results written back there.

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
#include <pthread.h>
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

/* One lane: a thread that runs requests, with its request arrays. */
typedef struct GpuopsSvcLane
{
	pthread_t	thread;
	bool		on_gpu;
	/* allocated once (malloc: no memory context here) */
	gpo_vector *vals;
	gpo_chunk  *vchunks;
	gpo_agg_out *outs;
} GpuopsSvcLane;

static GpuopsSvcLane exec_lanes[GPUOPS_SVC_MAX_STREAMS];

/* Held shared by a running request, exclusively by one rerun alone. */
static pthread_rwlock_t exec_alone;

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

/* Runs request req (in the arena at base) on lane; fills its results. */
static void
gpuops_svc_run_agg(GpuopsSvcLane *lane, GpuopsSvcAggReq *req, char *base)
{
	gpo_vector *exec_vals = lane->vals;
	gpo_chunk  *exec_vchunks = lane->vchunks;
	gpo_agg_out *exec_outs = lane->outs;
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
	ctx.device = lane->on_gpu ? GPO_DEVICE_GPU : GPO_DEVICE_CPU;
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

/* Raises *peak to at least v (the lanes write it at once). */
static void
gpuops_svc_raise(pg_atomic_uint64 *peak, uint64 v)
{
	uint64		old = pg_atomic_read_u64(peak);

	while (v > old && !pg_atomic_compare_exchange_u64(peak, &old, v))
		;
}

/* Publishes the device memory the pool holds now and has held at most. */
static void
gpuops_svc_note_memory(void)
{
	int64		held;
	int64		peak;

	gpo_gpu_memory_use(&held, &peak);
	pg_atomic_write_u64(&svc->device_held, (uint64) held);
	gpuops_svc_raise(&svc->device_peak, (uint64) peak);
}

/*
 * Runs req on lane, counted as running, holding exec_alone shared or (alone)
 * exclusively, after waiting delay ms (gpuops.debug_gpu_service_delay).
 */
static void
gpuops_svc_run_counted(GpuopsSvcLane *lane, GpuopsSvcAggReq *req, char *base,
					   bool alone, uint32 delay)
{
	uint64		now;

	if (alone)
		pthread_rwlock_wrlock(&exec_alone);
	else
		pthread_rwlock_rdlock(&exec_alone);
	now = pg_atomic_add_fetch_u64(&svc->running, 1);
	gpuops_svc_raise(&svc->running_peak, now);
	if (delay > 0)
		gpuops_svc_exec_delay(delay);
	if (req->kind == GPUOPS_SVC_KIND_LOAD)
		gpuops_svc_run_load(svc, req, base, lane->on_gpu);
	else if (req->kind == GPUOPS_SVC_KIND_CACHED)
		gpuops_svc_run_cached(svc, req, base);
	else if (req->kind == GPUOPS_SVC_KIND_FORGET)
		gpuops_svc_run_forget(svc, req);
	else
		gpuops_svc_run_agg(lane, req, base);
	pg_atomic_sub_fetch_u64(&svc->running, 1);
	pthread_rwlock_unlock(&exec_alone);
}

/* Runs slot i's request on lane and answers it. */
static void
gpuops_svc_serve(GpuopsSvcLane *lane, int i)
{
	GpuopsSvcSlot *sl = &svc->slots[i];
	char	   *base = gpuops_svc_arena(svc) + sl->off;
	GpuopsSvcAggReq *req = (GpuopsSvcAggReq *) base;

	gpuops_svc_run_counted(lane, req, base, false,
						   pg_atomic_read_u32(&svc->delay_ms));
	/* out of device memory beside other requests: once more, alone */
	if (req->status == GPO_ERR_DEVICE_NOMEM && svc->streams > 1)
		gpuops_svc_run_counted(lane, req, base, true, 0);
	pg_atomic_fetch_add_u64(&svc->served, 1);
	gpuops_svc_note_memory();
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

/* Bounds the device memory pool by the supervisor's gpuops.gpu_memory_limit. */
static void
gpuops_svc_publish_limit(void)
{
	gpo_gpu_set_memory_limit((int64) pg_atomic_read_u32(&svc->memory_limit_mb) *
							 1024 * 1024);
}

/* A lane's body: runs queued requests until SIGTERM. */
static void *
gpuops_svc_lane_main(void *arg)
{
	GpuopsSvcLane *lane = (GpuopsSvcLane *) arg;

	while (!exec_sigterm)
	{
		int			i;

		while (!exec_sigterm && (i = gpuops_svc_take()) >= 0)
			gpuops_svc_serve(lane, i);
		gpuops_svc_exec_wait();
	}
	return NULL;
}

/*
 * Starts svc->streams lanes (at least one, or the executor leaves), with
 * every signal blocked in them, so that the executor's main thread takes
 * SIGTERM; returns how many run.
 */
static int
gpuops_svc_lanes_start(bool on_gpu)
{
	pthread_rwlockattr_t attr;
	sigset_t	all;
	sigset_t	old;
	int			want = Min(Max(svc->streams, 1), GPUOPS_SVC_MAX_STREAMS);
	int			n;

	pthread_rwlockattr_init(&attr);
#ifdef __GLIBC__
	/* a rerun alone must not wait for a gap in a steady stream of requests */
	pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
#endif
	if (pthread_rwlock_init(&exec_alone, &attr) != 0)
		_exit(1);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (n = 0; n < want; n++)
	{
		GpuopsSvcLane *lane = &exec_lanes[n];

		lane->on_gpu = on_gpu;
		lane->vals = calloc(GPO_AGG_MAX_REQS, sizeof(gpo_vector));
		lane->vchunks = calloc(GPO_AGG_MAX_REQS, sizeof(gpo_chunk));
		lane->outs = calloc(GPO_AGG_MAX_REQS, sizeof(gpo_agg_out));
		if (lane->vals == NULL || lane->vchunks == NULL || lane->outs == NULL ||
			pthread_create(&lane->thread, NULL, gpuops_svc_lane_main, lane) != 0)
			break;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (n == 0)
		_exit(1);
	return n;
}

/* The executor's body for service me (see service_int.h). */
void
gpuops_svc_exec_main(GpuopsSvcShared *me, pid_t supervisor)
{
	struct sigaction sa;
	GpuopsSvcState state;
	sigset_t	none;
	int			nlanes;
	int			i;

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

	/* service i runs on GPU i, chosen before CUDA's first call */
	(void) gpo_gpu_use_device(svc->index);
	/* a new executor keeps no range: the directory says so before it serves */
	gpuops_svc_res_reset(svc);
	state = gpuops_svc_exec_start(gpuops_debug_gpu_service);
	if (svc->latch != NULL)
		SetLatch(svc->latch);
	gpuops_svc_publish_limit();
	nlanes = state == GPUOPS_SVC_NO_DEVICE ? 0 :
		gpuops_svc_lanes_start(state == GPUOPS_SVC_READY);
	/* the lanes run the requests; this thread follows the limit, waits for SIGTERM */
	while (!exec_sigterm)
	{
		pg_usleep(100000L);
		gpuops_svc_publish_limit();
	}
	for (i = 0; i < nlanes; i++)
		pthread_join(exec_lanes[i].thread, NULL);
	if (svc->pinned)
		gpo_host_unregister(gpuops_svc_arena(svc));
	_exit(0);
}
