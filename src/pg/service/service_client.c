/*
 * service_client.c
 *	  A backend's side of the GPU service: a batch's group aggregation laid
 *	  out in the staging arena, queued, waited for and copied back.
 *
 * A request is placed at once or not at all under gpuops.device = auto (no
 * room, or no service running: the caller runs the batch on the CPU), and
 * waits for room or for a restarting service under gpu.  The wait sleeps
 * on the backend's latch, which the service sets when the results are in;
 * a cancel or statement_timeout ends it.  The request belongs to the
 * memory context it was submitted in: a reset callback gives it up (an
 * ERROR or a cancel), and so does an exit callback (pg_terminate_backend),
 * so neither its slot nor its arena range outlives the backend's interest.
 *
 * With several services (one per GPU), each request goes to the least
 * loaded one that serves (gpuops_svc_pick), or, when that one has no room,
 * to the next least loaded, and so on; a request that finds room nowhere
 * waits (gpu) or is not placed (auto).  A call remembers its service: its
 * wait, its release and its giving up (reset and exit callbacks) all go to
 * that service.
 */
#include "service/service_int.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "portability/instr_time.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/memutils.h"

/* Most requests one backend has in flight at once. */
#define GPUOPS_SVC_MAX_CALLS		8

struct GpuopsServiceCall
{
	GpuopsSvcShared *svc;		/* the service that has it */
	int			slot;
	uint64		ticket;
	bool		wait;			/* under gpu: wait out a restart */
	bool		settled;		/* answered or given up */
	gpo_agg_out *outs;			/* where the results go */
	int			nouts;
	double		copy_ms;		/* copying the batch in and the groups out */
	MemoryContextCallback cb;
};

/* This backend's requests in flight, for its exit callback. */
static GpuopsServiceCall *calls[GPUOPS_SVC_MAX_CALLS];
static bool exit_callback_set = false;

/* Marks call answered or given up: the exit callback no longer sees it. */
static void
gpuops_svc_settle(GpuopsServiceCall *call)
{
	int			i;

	call->settled = true;
	for (i = 0; i < GPUOPS_SVC_MAX_CALLS; i++)
		if (calls[i] == call)
			calls[i] = NULL;
}

/* Gives call up: frees its slot, or leaves that to the service if it runs it. */
static void
gpuops_svc_abandon(GpuopsServiceCall *call)
{
	GpuopsSvcSlot *sl;

	if (call->settled)
		return;
	gpuops_svc_settle(call);
	sl = &call->svc->slots[call->slot];
	pg_atomic_write_u32(&sl->abandoned, 1);
	pg_memory_barrier();
	for (;;)
	{
		uint32		st = pg_atomic_read_u32(&sl->state);

		if (st == GPUOPS_SVC_RUNNING || st == GPUOPS_SVC_FREE ||
			sl->ticket != call->ticket)
			return;				/* the service frees it when it is done */
		if (gpuops_svc_release(call->svc, call->slot, call->ticket, st))
			return;
	}
}

/* Memory context callback: the request's memory goes, so does the request. */
static void
gpuops_svc_call_reset(void *arg)
{
	gpuops_svc_abandon((GpuopsServiceCall *) arg);
}

/* Exit callback: gives up every request still in flight. */
static void
gpuops_svc_client_exit(int code, Datum arg)
{
	int			i;

	for (i = 0; i < GPUOPS_SVC_MAX_CALLS; i++)
		if (calls[i] != NULL)
			gpuops_svc_abandon(calls[i]);
}

/* Bytes of n values of size sz, rounded up to the arena's alignment. */
Size
gpuops_svc_span(int64 n, size_t sz)
{
	return TYPEALIGN(GPUOPS_SVC_ALIGN, (Size) n * sz);
}

/* Whether any chunk of v has a validity bitmap. */
static bool
gpuops_svc_has_nulls(const gpo_vector *v)
{
	int			c;

	for (c = 0; c < v->nchunks; c++)
		if (v->chunks[c].validity != NULL)
			return true;
	return false;
}

/*
 * Lays out req (already holding its inputs' shape) over the arena range:
 * the header, the columns, then each wanted output array; returns the bytes.
 */
static Size
gpuops_svc_layout(GpuopsSvcAggReq *req, const gpo_vector *keys,
				  const gpo_vector *values, gpo_agg_out *outs, int nouts)
{
	Size		at = TYPEALIGN(GPUOPS_SVC_ALIGN, sizeof(GpuopsSvcAggReq));
	int			v;

	at = gpuops_svc_layout_column(keys, req->nrows, at, &req->off_keys,
								  &req->off_keys_valid);
	for (v = 0; v < req->nvals; v++)
		at = gpuops_svc_layout_column(&values[v], req->nrows, at,
									  &req->off_vals[v], &req->off_vals_valid[v]);
	return gpuops_svc_layout_outs(req, outs, nouts, at);
}

/* Places column v of nrows rows at at (see service_int.h). */
Size
gpuops_svc_layout_column(const gpo_vector *v, int64 nrows, Size at,
						 uint64 *off, uint64 *off_valid)
{
	*off = at;
	at += gpuops_svc_span(nrows, gpo_type_size(v->type));
	*off_valid = 0;
	if (gpuops_svc_has_nulls(v))
	{
		*off_valid = at;
		at += gpuops_svc_span((nrows + 7) / 8, 1);
	}
	return at;
}

/* Lays out the output arrays of req's nouts outputs from at (see service_int.h). */
Size
gpuops_svc_layout_outs(GpuopsSvcAggReq *req, gpo_agg_out *outs, int nouts,
					   Size at)
{
	int			v;
	int			f;

	for (v = 0; v < nouts; v++)
		for (f = 0; f < GPUOPS_SVC_NOUT; f++)
			if (*gpuops_svc_out_field(&outs[v], f) != NULL)
			{
				req->off_out[v][f] = at;
				at += gpuops_svc_span(req->cap, gpuops_svc_req_elem(req, v, f));
			}
	return at;
}

/* Copies vector v into one column at data (and its NULLs into valid, if any). */
void
gpuops_svc_flatten(const gpo_vector *v, char *data, uint8 *valid)
{
	size_t		sz = gpo_type_size(v->type);
	int64		row = 0;
	int			c;

	for (c = 0; c < v->nchunks; c++)
	{
		const gpo_chunk *ch = &v->chunks[c];
		int64		i;

		if (ch->n > 0)
			memcpy(data + row * sz, ch->data, ch->n * sz);
		if (valid != NULL && (row & 7) == 0 && ch->validity != NULL)
			memcpy(valid + row / 8, ch->validity, (ch->n + 7) / 8);
		else if (valid != NULL)
			for (i = 0; i < ch->n; i++)
			{
				int64		r = row + i;

				if (gpo_valid(ch, i))
					valid[r >> 3] |= (uint8) (1 << (r & 7));
				else
					valid[r >> 3] &= (uint8) ~(1 << (r & 7));
			}
		row += ch->n;
	}
}

/* Sleeps on the latch for at most ms milliseconds; a cancel ends the wait. */
static void
gpuops_svc_sleep(long ms)
{
	(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
					 ms, PG_WAIT_EXTENSION);
	ResetLatch(MyLatch);
	CHECK_FOR_INTERRUPTS();
}

/* Remembers call for the exit callback (and sets that callback once). */
static void
gpuops_svc_track(GpuopsServiceCall *call)
{
	int			i;

	if (!exit_callback_set)
	{
		before_shmem_exit(gpuops_svc_client_exit, (Datum) 0);
		exit_callback_set = true;
	}
	for (i = 0; i < GPUOPS_SVC_MAX_CALLS; i++)
		if (calls[i] == NULL)
		{
			calls[i] = call;
			return;
		}
	elog(ERROR, "gpuops: too many GPU service requests in flight");
}

/* Claims room for a request and ties it to this context (see service_int.h). */
GpuopsServiceCall *
gpuops_svc_call_begin(Size bytes, int only, bool wait, gpo_status *why,
					  char *detail, size_t len)
{
	GpuopsServiceCall *call;

	call = MemoryContextAllocZero(CurrentMemoryContext, sizeof(GpuopsServiceCall));
	call->slot = gpuops_svc_place(bytes, only, wait, &call->svc, why, detail,
								  len);
	if (call->slot < 0)
	{
		pfree(call);
		return NULL;
	}
	call->ticket = call->svc->slots[call->slot].ticket;
	call->wait = wait;
	call->cb.func = gpuops_svc_call_reset;
	call->cb.arg = call;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &call->cb);
	gpuops_svc_track(call);
	return call;
}

/* The arena range of call. */
char *
gpuops_svc_call_base(GpuopsServiceCall *call)
{
	return gpuops_svc_arena(call->svc) + call->svc->slots[call->slot].off;
}

/* The service that has call. */
GpuopsSvcShared *
gpuops_svc_call_service(GpuopsServiceCall *call)
{
	return call->svc;
}

/* Sets where call's results go. */
void
gpuops_svc_call_outputs(GpuopsServiceCall *call, gpo_agg_out *outs, int nouts,
						double copy_ms)
{
	call->outs = outs;
	call->nouts = nouts;
	call->copy_ms = copy_ms;
}

/* Queues call's filled request and wakes the executor. */
void
gpuops_svc_call_queue(GpuopsServiceCall *call)
{
	GpuopsSvcShared *svc = call->svc;
	GpuopsSvcSlot *sl = &svc->slots[call->slot];

	sl->owner_pid = MyProcPid;
	sl->owner_latch = MyLatch;
	SpinLockAcquire(&svc->lock);
	sl->seq = svc->next_seq++;
	SpinLockRelease(&svc->lock);
	pg_write_barrier();
	pg_atomic_write_u32(&sl->state, GPUOPS_SVC_QUEUED);
	pg_memory_barrier();
	/* the executor waits on the semaphore */
	(void) sem_post(&svc->work);
}

/* Hands a group aggregation to the service (see gpuops_service.h). */
GpuopsServiceCall *
gpuops_service_agg_submit(const gpo_vector *keys, const gpo_vector *values,
						  int nvals, int64 est_groups,
						  gpo_agg_strategy strategy, gpo_agg_out *outs,
						  bool wait, gpo_status *why, char *why_detail,
						  size_t why_len)
{
	GpuopsSvcAggReq *req = palloc0(sizeof(GpuopsSvcAggReq));
	GpuopsServiceCall *call;
	int			nouts = Max(nvals, 1);
	char	   *base;
	Size		bytes;
	instr_time	copy_start;
	int			v;

	if (nvals > GPO_AGG_MAX_REQS)
	{
		*why = GPO_ERR_INVALID;
		snprintf(why_detail, why_len, "too many value columns");
		return NULL;
	}
	req->kind = GPUOPS_SVC_KIND_AGG;
	req->nrows = gpo_vector_rows(keys);
	req->cap = outs[0].capacity;
	req->est_groups = est_groups;
	req->strategy = strategy;
	req->nvals = nvals;
	req->key_type = keys->type;
	for (v = 0; v < nvals; v++)
		req->val_type[v] = values[v].type;
	bytes = gpuops_svc_layout(req, keys, values, outs, nouts);
	call = gpuops_svc_call_begin(bytes, -1, wait, why, why_detail, why_len);
	if (call == NULL)
	{
		pfree(req);
		return NULL;
	}

	INSTR_TIME_SET_CURRENT(copy_start);
	base = gpuops_svc_call_base(call);
	memcpy(base, req, sizeof(GpuopsSvcAggReq));
	gpuops_svc_flatten(keys, base + req->off_keys,
					   req->off_keys_valid ? (uint8 *) base + req->off_keys_valid : NULL);
	for (v = 0; v < nvals; v++)
		gpuops_svc_flatten(&values[v], base + req->off_vals[v],
						   req->off_vals_valid[v] ?
						   (uint8 *) base + req->off_vals_valid[v] : NULL);
	gpuops_svc_call_outputs(call, outs, nouts, gpuops_svc_since(copy_start));
	pfree(req);
	gpuops_svc_call_queue(call);
	return call;
}

/* Copies the groups of a DONE request into call's outputs. */
static void
gpuops_svc_copy_out(GpuopsServiceCall *call, const GpuopsSvcAggReq *req,
					const char *base)
{
	int			v;
	int			f;

	for (v = 0; v < call->nouts; v++)
		for (f = 0; f < GPUOPS_SVC_NOUT; f++)
		{
			void	   *dst = *gpuops_svc_out_field(&call->outs[v], f);

			if (dst != NULL && req->off_out[v][f] != 0)
				memcpy(dst, base + req->off_out[v][f],
					   (size_t) req->ngroups * gpuops_svc_req_elem(req, v, f));
		}
}

/* Waits for call's answer and copies it back (see gpuops_service.h). */
gpo_status
gpuops_service_agg_wait(GpuopsServiceCall *call, gpo_ctx *ctx,
						gpo_agg_strategy *used, int64 *ngroups,
						double *device_ms, double *copy_ms, bool *lost)
{
	int			xerr;

	return gpuops_service_cached_wait(call, ctx, used, ngroups, device_ms,
									  copy_ms, lost, &xerr, NULL);
}

/* gpuops_service_agg_wait, and a computed column's error (see gpuops_service.h). */
gpo_status
gpuops_service_cached_wait(GpuopsServiceCall *call, gpo_ctx *ctx,
						   gpo_agg_strategy *used, int64 *ngroups,
						   double *device_ms, double *copy_ms, bool *lost,
						   int *xerr, GpuopsServiceKeys *keys)
{
	GpuopsSvcShared *svc = call->svc;
	GpuopsSvcSlot *sl = &svc->slots[call->slot];
	const GpuopsSvcAggReq *req;
	const char *base;
	gpo_status	st;
	bool		down = false;
	instr_time	down_since;

	*lost = false;
	*xerr = 0;
	*copy_ms = call->copy_ms;
	while (pg_atomic_read_u32(&sl->state) != GPUOPS_SVC_DONE)
	{
		bool		now_down = pg_atomic_read_u32(&svc->state) == GPUOPS_SVC_DOWN;

		if (now_down && !down)
			INSTR_TIME_SET_CURRENT(down_since);
		down = now_down;
		if (down && (!call->wait ||
					 gpuops_svc_since(down_since) > GPUOPS_SVC_DOWN_WAIT_MS))
		{
			gpuops_svc_abandon(call);
			*lost = true;
			ctx->used = GPO_DEVICE_GPU;
			snprintf(ctx->detail, sizeof(ctx->detail),
					 "the GPU service is not running");
			return GPO_ERR_DEVICE;
		}
		gpuops_svc_sleep(down ? 100L : 1000L);
	}
	pg_read_barrier();
	base = gpuops_svc_arena(svc) + sl->off;
	req = (const GpuopsSvcAggReq *) base;
	st = (gpo_status) req->status;
	*ngroups = req->ngroups;
	*used = (gpo_agg_strategy) req->strategy_used;
	*device_ms = req->device_ms;
	*lost = req->lost != 0;
	*xerr = req->xerr;
	if (keys != NULL)
	{
		memcpy(keys->lo, req->key_lo, sizeof(keys->lo));
		memcpy(keys->width, req->key_width, sizeof(keys->width));
	}
	ctx->used = req->lost ? GPO_DEVICE_GPU : (gpo_device) req->face_used;
	strlcpy(ctx->detail, req->detail, sizeof(ctx->detail));
	if (st == GPO_OK && *xerr == 0)
	{
		instr_time	copy_start;

		INSTR_TIME_SET_CURRENT(copy_start);
		gpuops_svc_copy_out(call, req, base);
		call->copy_ms += gpuops_svc_since(copy_start);
	}
	*copy_ms = call->copy_ms;
	/* answered: the slot is ours alone to free */
	gpuops_svc_settle(call);
	gpuops_svc_release(svc, call->slot, call->ticket, GPUOPS_SVC_DONE);
	return st;
}
