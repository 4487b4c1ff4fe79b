/*
 * service_main.c
 *	  The GPU service's background worker: it starts CUDA in its own process
 *	  (the only CUDA context of the server), page-locks the staging arena once,
 *	  and runs the queued requests of every backend, oldest first.
 *
 * One request runs at a time, on the legacy default stream of the one
 * context and its one device memory pool: device memory is bounded by one
 * request's working set plus the pool's cached bytes, whatever the number
 * of sessions.  A request's columns are read by the device straight from
 * the page-locked arena, and its results written back there.
 *
 * Faults: a SIGTERM (gpuops.service_restart(), or shutdown) ends the
 * service with exit code 1, which the postmaster restarts a second later;
 * the request it was running is answered as lost (its backend raises an
 * error under gpuops.device = gpu and runs the batch on the CPU under auto)
 * and queued ones wait for the new service.  The service never raises an
 * ERROR over a request: the engine returns a status, which goes back to
 * the backend.  A service that crashes (SIGSEGV, SIGKILL) makes the
 * postmaster restart every process, as for any process that shares memory.
 */
#include "service/service_int.h"

#include <signal.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "portability/instr_time.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "utils/memutils.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "utils/guc.h"

PGDLLEXPORT void gpuops_service_main(Datum arg);

static volatile sig_atomic_t got_sigterm = false;

/* SIGTERM: leave at the next wake-up (a running request finishes first). */
static void
gpuops_svc_sigterm(SIGNAL_ARGS)
{
	int			save_errno = errno;

	got_sigterm = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

/*
 * Publishes slot i's answer (written before): DONE, then the owner's latch,
 * or the slot freed when its owner gave it up meanwhile.
 */
static void
gpuops_svc_answer(int i, uint64 ticket)
{
	GpuopsSvcSlot *sl = &gpuops_svc->slots[i];

	pg_write_barrier();
	pg_atomic_write_u32(&sl->state, GPUOPS_SVC_DONE);
	pg_memory_barrier();
	if (pg_atomic_read_u32(&sl->abandoned) != 0)
		gpuops_svc_release(i, ticket, GPUOPS_SVC_DONE);
	else if (sl->owner_latch != NULL)
		SetLatch(sl->owner_latch);
}

/* Answers slot i's request as lost and wakes its owner. */
static void
gpuops_svc_mark_lost(int i, const char *why)
{
	GpuopsSvcSlot *sl = &gpuops_svc->slots[i];
	GpuopsSvcAggReq *req = (GpuopsSvcAggReq *) (gpuops_svc_arena + sl->off);

	req->status = GPO_ERR_DEVICE;
	req->lost = 1;
	strlcpy(req->detail, why, sizeof(req->detail));
	gpuops_svc_answer(i, sl->ticket);
	SpinLockAcquire(&gpuops_svc->lock);
	gpuops_svc->lost++;
	SpinLockRelease(&gpuops_svc->lock);
}

/* Exit callback: no longer serving; the request being run is lost. */
static void
gpuops_svc_exit(int code, Datum arg)
{
	int			i;

	pg_atomic_write_u32(&gpuops_svc->state, GPUOPS_SVC_DOWN);
	SpinLockAcquire(&gpuops_svc->lock);
	gpuops_svc->pid = 0;
	gpuops_svc->latch = NULL;
	SpinLockRelease(&gpuops_svc->lock);
	for (i = 0; i < GPUOPS_SVC_SLOTS; i++)
		if (pg_atomic_read_u32(&gpuops_svc->slots[i].state) == GPUOPS_SVC_RUNNING)
			gpuops_svc_mark_lost(i, "the GPU service stopped while running this request");
	if (gpuops_svc->pinned)
		gpo_host_unregister(gpuops_svc_arena);
	gpuops_svc->pinned = false;
	ConditionVariableBroadcast(&gpuops_svc->room_cv);
}

/*
 * Starts serving: answers what an earlier service left running as lost,
 * finds the device, page-locks the arena and publishes the service.
 */
static void
gpuops_svc_start(void)
{
	GpuopsSvcState state;
	gpo_device_info info;
	int			i;

	for (i = 0; i < GPUOPS_SVC_SLOTS; i++)
		if (pg_atomic_read_u32(&gpuops_svc->slots[i].state) == GPUOPS_SVC_RUNNING)
			gpuops_svc_mark_lost(i, "the GPU service restarted while running this request");
	memset(&info, 0, sizeof(info));
	if (gpo_gpu_available())
	{
		gpo_gpu_info(&info);
		state = GPUOPS_SVC_READY;
		gpuops_svc->pinned = gpo_host_register(gpuops_svc_arena,
											   gpuops_svc->arena_size);
	}
	else
		state = gpuops_debug_gpu_service ? GPUOPS_SVC_READY_CPU :
			GPUOPS_SVC_NO_DEVICE;
	SpinLockAcquire(&gpuops_svc->lock);
	strlcpy(gpuops_svc->device_name,
			state == GPUOPS_SVC_READY ? info.name :
			state == GPUOPS_SVC_READY_CPU ? "CPU (gpuops.debug_gpu_service)" : "",
			sizeof(gpuops_svc->device_name));
	gpuops_svc->pid = MyProcPid;
	gpuops_svc->latch = MyLatch;
	SpinLockRelease(&gpuops_svc->lock);
	pg_atomic_fetch_add_u64(&gpuops_svc->generation, 1);
	pg_write_barrier();
	pg_atomic_write_u32(&gpuops_svc->state, state);
	ConditionVariableBroadcast(&gpuops_svc->room_cv);
	if (state == GPUOPS_SVC_NO_DEVICE)
		ereport(LOG,
				(errmsg("gpuops GPU service found no usable GPU: sessions use the CPU face"),
				 info.error[0] != '\0' ? errdetail("%s", info.error) : 0));
}

/* Publishes the device memory the pool holds now and has held at most. */
static void
gpuops_svc_note_memory(void)
{
	int64		held;
	int64		peak;

	gpo_gpu_memory_use(&held, &peak);
	SpinLockAcquire(&gpuops_svc->lock);
	gpuops_svc->device_held = held;
	gpuops_svc->device_peak = Max(gpuops_svc->device_peak, peak);
	SpinLockRelease(&gpuops_svc->lock);
}

/* The queued slot submitted first, taken (RUNNING); -1 when none is queued. */
static int
gpuops_svc_take(uint64 *ticket)
{
	int			best = -1;
	uint64		best_seq = PG_UINT64_MAX;
	int			i;

	for (;;)
	{
		for (i = 0; i < GPUOPS_SVC_SLOTS; i++)
		{
			GpuopsSvcSlot *sl = &gpuops_svc->slots[i];

			if (pg_atomic_read_u32(&sl->state) == GPUOPS_SVC_QUEUED &&
				sl->seq < best_seq)
			{
				best = i;
				best_seq = sl->seq;
			}
		}
		if (best < 0)
			return -1;
		{
			uint32		queued = GPUOPS_SVC_QUEUED;

			pg_read_barrier();
			*ticket = gpuops_svc->slots[best].ticket;
			if (pg_atomic_compare_exchange_u32(&gpuops_svc->slots[best].state,
											   &queued, GPUOPS_SVC_RUNNING))
				return best;
		}
		/* its owner gave it up meanwhile: look again */
		best = -1;
		best_seq = PG_UINT64_MAX;
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
	gpo_vector *vals = palloc0(sizeof(gpo_vector) * GPO_AGG_MAX_REQS);
	gpo_chunk  *vchunks = palloc0(sizeof(gpo_chunk) * GPO_AGG_MAX_REQS);
	gpo_agg_out *outs = palloc0(sizeof(gpo_agg_out) * GPO_AGG_MAX_REQS);
	gpo_agg_strategy strategy = (gpo_agg_strategy) req->strategy;
	gpo_ctx		ctx;
	instr_time	start;
	instr_time	end;
	int			nouts = Max(req->nvals, 1);
	int			v;
	int			f;

	gpuops_svc_vector(&keys, &kchunk, (gpo_type) req->key_type, base,
					  req->off_keys, req->off_keys_valid, req->nrows);
	for (v = 0; v < nouts; v++)
	{
		if (v < req->nvals)
			gpuops_svc_vector(&vals[v], &vchunks[v], (gpo_type) req->val_type[v],
							  base, req->off_vals[v], req->off_vals_valid[v],
							  req->nrows);
		outs[v].capacity = req->cap;
		for (f = 0; f < GPUOPS_SVC_NOUT; f++)
			if (req->off_out[v][f] != 0)
				*gpuops_svc_out_field(&outs[v], f) = base + req->off_out[v][f];
	}
	gpo_ctx_init(&ctx);
	ctx.device = on_gpu ? GPO_DEVICE_GPU : GPO_DEVICE_CPU;
	ctx.gpu_min_rows = 0;
	ctx.threads = 1;
	INSTR_TIME_SET_CURRENT(start);
	req->status = gpuops_groupagg_many_call(&ctx, &keys, vals, req->nvals,
											req->est_groups, &strategy, outs,
											&req->ngroups);
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_SUBTRACT(end, start);
	req->device_ms = INSTR_TIME_GET_MILLISEC(end);
	req->strategy_used = strategy;
	req->face_used = ctx.used;
	strlcpy(req->detail, ctx.detail, sizeof(req->detail));
	pfree(vals);
	pfree(vchunks);
	pfree(outs);
}

/*
 * gpuops.debug_gpu_service_delay: waits that long before a request (for
 * tests), leaving at once on SIGTERM, which loses the request being run.
 */
static void
gpuops_svc_debug_delay(void)
{
	instr_time	start;
	instr_time	now;

	INSTR_TIME_SET_CURRENT(start);
	for (;;)
	{
		double		left;

		if (got_sigterm)
			proc_exit(1);
		INSTR_TIME_SET_CURRENT(now);
		INSTR_TIME_SUBTRACT(now, start);
		left = gpuops_debug_gpu_service_delay - INSTR_TIME_GET_MILLISEC(now);
		if (left <= 0)
			return;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 Min((long) left + 1, 100L), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

/* Runs slot i's request, answers it and wakes its owner (or frees it). */
static void
gpuops_svc_serve(int i, uint64 ticket, bool on_gpu)
{
	GpuopsSvcSlot *sl = &gpuops_svc->slots[i];
	char	   *base = gpuops_svc_arena + sl->off;

	if (gpuops_debug_gpu_service_delay > 0)
		gpuops_svc_debug_delay();

	gpuops_svc_run_agg((GpuopsSvcAggReq *) base, base, on_gpu);
	SpinLockAcquire(&gpuops_svc->lock);
	gpuops_svc->served++;
	SpinLockRelease(&gpuops_svc->lock);
	gpuops_svc_answer(i, ticket);
}

/*
 * Frees the slots of backends that are gone without giving them up (they
 * do at exit; this covers the rest).
 */
static void
gpuops_svc_reap(void)
{
	int			i;

	for (i = 0; i < GPUOPS_SVC_SLOTS; i++)
	{
		GpuopsSvcSlot *sl = &gpuops_svc->slots[i];
		uint32		st = pg_atomic_read_u32(&sl->state);
		uint64		ticket = sl->ticket;
		int			pid = sl->owner_pid;

		if ((st != GPUOPS_SVC_QUEUED && st != GPUOPS_SVC_DONE) || pid <= 0 ||
			kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		pg_atomic_write_u32(&sl->abandoned, 1);
		gpuops_svc_release(i, ticket, st);
	}
}

/* The service's main function (registered by service_shmem.c). */
void
gpuops_service_main(Datum arg)
{
	MemoryContext cxt;

	pqsignal(SIGTERM, gpuops_svc_sigterm);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();
	if (gpuops_svc == NULL)
		proc_exit(0);
	before_shmem_exit(gpuops_svc_exit, (Datum) 0);
	gpuops_svc_start();
	cxt = AllocSetContextCreate(TopMemoryContext, "gpuops GPU service",
								ALLOCSET_DEFAULT_SIZES);
	for (;;)
	{
		GpuopsSvcState state = pg_atomic_read_u32(&gpuops_svc->state);
		uint64		ticket;
		int			i;

		ResetLatch(MyLatch);
		if (got_sigterm)
			proc_exit(1);
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		gpo_gpu_set_memory_limit((int64) gpuops_gpu_memory_limit * 1024 * 1024);
		while (state != GPUOPS_SVC_NO_DEVICE && !got_sigterm &&
			   (i = gpuops_svc_take(&ticket)) >= 0)
		{
			MemoryContext old = MemoryContextSwitchTo(cxt);

			gpuops_svc_serve(i, ticket, state == GPUOPS_SVC_READY);
			MemoryContextSwitchTo(old);
			MemoryContextReset(cxt);
			gpuops_svc_note_memory();
		}
		gpuops_svc_reap();
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 1000L, PG_WAIT_EXTENSION);
	}
}
