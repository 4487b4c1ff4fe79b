/*
 * service_resident.c
 *	  The executor's kept ranges: the column cache's block ranges that
 *	  backends handed over (LOAD) kept by the engine's face (gpo_resident:
 *	  device memory on the GPU), within gpuops.cache_memory_limit, the least
 *	  recently used dropped first; and the queries over them (CACHED), which
 *	  send no column, only their WHERE program, and get their groups back.
 *
 * The executor's lanes run requests at once, so the kept ranges are under
 * one mutex (never held across an engine call: a query holds a reference
 * to each of its ranges instead, and a range replaced or dropped meanwhile
 * is freed by its last reference).  The directory in shared memory
 * (service_int.h) mirrors them for backends; it is written here alone.
 */
#include "service/service_int.h"

#include <pthread.h>

#include "portability/instr_time.h"

/*
 * A kept set and the queries running over it: a set dropped or replaced
 * while one runs is freed by the last of them.
 */
typedef struct GpuopsSvcHeld
{
	gpo_resident *set;
	int			refs;			/* queries running over it */
	bool		dropped;		/* out of the directory: freed at refs 0 */
} GpuopsSvcHeld;

/* One directory entry's range. */
typedef struct GpuopsSvcKept
{
	GpuopsSvcHeld *held;		/* NULL: the entry is free */
	GpuopsServiceRangeKey key;
	uint64		last_used;
} GpuopsSvcKept;

static GpuopsSvcKept kept[GPUOPS_SVC_RESIDENT_MAX];
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64 kept_clock = 0;

/* Rewrites directory entry i from kept[i] (kept_lock held). */
static void
gpuops_svc_res_publish(GpuopsSvcShared *svc, int i)
{
	GpuopsSvcResEntry *e = &svc->resident[i];
	GpuopsSvcKept *k = &kept[i];

	pg_atomic_fetch_add_u32(&e->version, 1);
	pg_write_barrier();
	e->used = k->held != NULL;
	e->key = k->key;
	e->generation = pg_atomic_read_u64(&svc->generation);
	e->bytes = k->held ? (int64) gpo_resident_bytes(k->held->set) : 0;
	pg_write_barrier();
	pg_atomic_fetch_add_u32(&e->version, 1);
}

/* Forgets every kept range (see service_int.h). */
void
gpuops_svc_res_reset(GpuopsSvcShared *svc)
{
	int			i;

	for (i = 0; i < GPUOPS_SVC_RESIDENT_MAX; i++)
	{
		memset(&kept[i], 0, sizeof(kept[i]));
		gpuops_svc_res_publish(svc, i);
	}
	pg_atomic_write_u64(&svc->resident_bytes, 0);
	pg_atomic_write_u64(&svc->resident_sets, 0);
}

/* Whether two keys name the same range (the change count aside). */
static bool
gpuops_svc_same_range(const GpuopsServiceRangeKey *a,
					  const GpuopsServiceRangeKey *b)
{
	return a->dbid == b->dbid && a->relid == b->relid &&
		a->serial == b->serial && a->relnode == b->relnode &&
		a->range == b->range;
}

/*
 * Takes entry i's set out of the directory (kept_lock held): freed now, or
 * by the last query running over it.
 */
static void
gpuops_svc_res_drop(GpuopsSvcShared *svc, int i)
{
	GpuopsSvcHeld *h = kept[i].held;

	pg_atomic_fetch_sub_u64(&svc->resident_bytes, gpo_resident_bytes(h->set));
	pg_atomic_fetch_sub_u64(&svc->resident_sets, 1);
	if (h->refs == 0)
	{
		gpo_resident_free(h->set);
		free(h);
	}
	else
		h->dropped = true;
	memset(&kept[i], 0, sizeof(kept[i]));
	gpuops_svc_res_publish(svc, i);
}

/*
 * Makes room for bytes more within limit, dropping the least recently used
 * ranges that no query runs over (kept_lock held); false if it can't.
 */
static bool
gpuops_svc_res_room(GpuopsSvcShared *svc, uint64 bytes, uint64 limit)
{
	while (pg_atomic_read_u64(&svc->resident_bytes) + bytes > limit)
	{
		int			victim = -1;
		int			i;

		for (i = 0; i < GPUOPS_SVC_RESIDENT_MAX; i++)
			if (kept[i].held != NULL && kept[i].held->refs == 0 &&
				(victim < 0 || kept[i].last_used < kept[victim].last_used))
				victim = i;
		if (victim < 0)
			return false;
		gpuops_svc_res_drop(svc, victim);
		pg_atomic_fetch_add_u64(&svc->resident_evictions, 1);
	}
	return true;
}

/* The entry for key: its own, else a free one; -1 when none is free. */
static int
gpuops_svc_res_slot(const GpuopsServiceRangeKey *key)
{
	int			free_i = -1;
	int			i;

	for (i = 0; i < GPUOPS_SVC_RESIDENT_MAX; i++)
	{
		if (kept[i].held != NULL && gpuops_svc_same_range(&kept[i].key, key))
			return i;
		if (kept[i].held == NULL && free_i < 0)
			free_i = i;
	}
	return free_i;
}

/* Installs set as key's range (kept_lock held); false when it can't. */
static bool
gpuops_svc_res_install(GpuopsSvcShared *svc, const GpuopsServiceRangeKey *key,
					   gpo_resident *set, uint64 limit, char *detail,
					   size_t len)
{
	int			i = gpuops_svc_res_slot(key);
	GpuopsSvcHeld *h;

	if (i >= 0 && kept[i].held != NULL)
		gpuops_svc_res_drop(svc, i);	/* the range's older data */
	if (!gpuops_svc_res_room(svc, gpo_resident_bytes(set), limit))
	{
		snprintf(detail, len, "gpuops.cache_memory_limit is spent by ranges in use");
		return false;
	}
	if (i < 0 && (i = gpuops_svc_res_slot(key)) < 0)
	{
		snprintf(detail, len, "the GPU service keeps %d ranges at most",
				 GPUOPS_SVC_RESIDENT_MAX);
		return false;
	}
	if ((h = calloc(1, sizeof(GpuopsSvcHeld))) == NULL)
	{
		snprintf(detail, len, "out of host memory");
		return false;
	}
	h->set = set;
	kept[i].held = h;
	kept[i].key = *key;
	kept[i].key.entry = i;
	kept[i].last_used = ++kept_clock;
	pg_atomic_fetch_add_u64(&svc->resident_bytes, gpo_resident_bytes(set));
	pg_atomic_fetch_add_u64(&svc->resident_sets, 1);
	gpuops_svc_res_publish(svc, i);
	return true;
}

/* Runs a LOAD request (see service_int.h). */
void
gpuops_svc_run_load(GpuopsSvcShared *svc, GpuopsSvcAggReq *req, char *base,
					bool on_gpu)
{
	gpo_vector	cols[GPO_RESIDENT_MAX_COLS];
	gpo_chunk	chunks[GPO_RESIDENT_MAX_COLS];
	uint64		limit = (uint64) pg_atomic_read_u32(&svc->cache_limit_mb) *
		1024 * 1024;
	gpo_resident *set = NULL;
	gpo_ctx		ctx;
	int			c;

	req->face_used = on_gpu ? GPO_DEVICE_GPU : GPO_DEVICE_CPU;
	if (req->ncols < 1 || req->ncols > GPO_RESIDENT_MAX_COLS)
	{
		req->status = GPO_ERR_INVALID;
		return;
	}
	for (c = 0; c < req->ncols; c++)
	{
		chunks[c].data = base + req->off_cols[c];
		chunks[c].validity = req->off_cols_valid[c] != 0 ?
			(uint8_t *) (base + req->off_cols_valid[c]) : NULL;
		chunks[c].n = req->nrows;
		cols[c].type = (gpo_type) req->col_type[c];
		cols[c].nchunks = 1;
		cols[c].chunks = &chunks[c];
	}
	gpo_ctx_init(&ctx);
	ctx.device = on_gpu ? GPO_DEVICE_GPU : GPO_DEVICE_CPU;
	ctx.threads = 1;
	req->status = limit == 0 ? GPO_ERR_DEVICE_NOMEM :
		gpo_resident_put(&ctx, req->ncols, cols, &set);
	if (limit == 0)
		snprintf(req->detail, sizeof(req->detail), "gpuops.cache_memory_limit is 0");
	else
		strlcpy(req->detail, ctx.detail, sizeof(req->detail));
	if (req->status != GPO_OK)
		return;
	pthread_mutex_lock(&kept_lock);
	if (!gpuops_svc_res_install(svc, &req->load_key, set, limit, req->detail,
								sizeof(req->detail)))
	{
		gpo_resident_free(set);
		req->status = GPO_ERR_DEVICE_NOMEM;
	}
	pthread_mutex_unlock(&kept_lock);
}

/* Runs a FORGET request (see service_int.h). */
void
gpuops_svc_run_forget(GpuopsSvcShared *svc, GpuopsSvcAggReq *req)
{
	const GpuopsServiceRangeKey *k = &req->load_key;
	int			i;

	pthread_mutex_lock(&kept_lock);
	for (i = 0; i < GPUOPS_SVC_RESIDENT_MAX; i++)
		if (kept[i].held != NULL && kept[i].key.dbid == k->dbid &&
			(k->relid == InvalidOid || kept[i].key.relid == k->relid) &&
			(kept[i].key.serial != k->serial || kept[i].key.relnode != k->relnode))
			gpuops_svc_res_drop(svc, i);
	pthread_mutex_unlock(&kept_lock);
	req->status = GPO_OK;
}

/*
 * Takes a reference to each of the request's n ranges into held[]; false
 * (none taken) when one is not kept as the request names it.
 */
static bool
gpuops_svc_res_acquire(const GpuopsServiceRangeKey *keys, int n,
					   GpuopsSvcHeld **held)
{
	int			i;

	pthread_mutex_lock(&kept_lock);
	for (i = 0; i < n; i++)
	{
		int			e = keys[i].entry;

		if (e < 0 || e >= GPUOPS_SVC_RESIDENT_MAX || kept[e].held == NULL ||
			!gpuops_svc_same_range(&kept[e].key, &keys[i]) ||
			kept[e].key.filled_gen != keys[i].filled_gen)
			break;
		held[i] = kept[e].held;
	}
	if (i == n)
		for (i = 0; i < n; i++)
		{
			held[i]->refs++;
			kept[keys[i].entry].last_used = ++kept_clock;
		}
	pthread_mutex_unlock(&kept_lock);
	return i == n;
}

/* Gives back the references of gpuops_svc_res_acquire; frees dropped sets. */
static void
gpuops_svc_res_release(GpuopsSvcHeld **held, int n)
{
	int			i;

	pthread_mutex_lock(&kept_lock);
	for (i = 0; i < n; i++)
		if (--held[i]->refs == 0 && held[i]->dropped)
		{
			gpo_resident_free(held[i]->set);
			free(held[i]);
		}
	pthread_mutex_unlock(&kept_lock);
}

/* q's star join from req's (counts checked), its arrays read where they lie in base. */
static void
gpuops_svc_star_of(const GpuopsSvcAggReq *req, char *base, gpo_resident_query *q,
				   gpo_resident_dim *dims, gpo_resident_dimcol *dimcols)
{
	int			d;

	for (d = 0; d < req->ndims; d++)
	{
		const GpuopsSvcDim *sd = (const GpuopsSvcDim *) (base + req->off_dims) + d;

		dims[d].key_col = sd->key_col;
		dims[d].kind = (gpo_resident_join) sd->kind;
		dims[d].lo = sd->lo;
		dims[d].span = sd->span;
		dims[d].rows = sd->rows;
		dims[d].row_of = (const int32_t *) (base + sd->off_row_of);
	}
	for (d = 0; d < req->ndimcols; d++)
	{
		const GpuopsSvcDimcol *sc = (const GpuopsSvcDimcol *) (base + req->off_dimcols) + d;

		dimcols[d].dim = sc->dim;
		dimcols[d].type = (gpo_type) sc->type;
		dimcols[d].bounded = sc->bounded != 0;
		dimcols[d].lo = sc->lo;
		dimcols[d].hi = sc->hi;
		dimcols[d].data = base + sc->off_data;
		dimcols[d].valid = sc->off_valid != 0 ? (const uint8_t *) (base + sc->off_valid) : NULL;
	}
	q->ndims = req->ndims;
	q->dims = dims;
	q->ndimcols = req->ndimcols;
	q->dimcols = dimcols;
}

/* Runs a CACHED request (see service_int.h). */
void
gpuops_svc_run_cached(GpuopsSvcShared *svc, GpuopsSvcAggReq *req, char *base)
{
	const GpuopsServiceRangeKey *keys =
		(const GpuopsServiceRangeKey *) (base + req->off_sets);
	int			n = Max(req->nsets, 1);
	GpuopsSvcHeld **held = malloc(sizeof(GpuopsSvcHeld *) * n);
	gpo_resident **sets = malloc(sizeof(gpo_resident *) * n);
	gpo_agg_out outs[GPO_AGG_MAX_REQS];
	gpo_resident_query q;
	gpo_resident_expr exprs[GPO_RESIDENT_MAX_EXPRS];
	gpo_resident_dim dims[GPO_RESIDENT_MAX_DIMS];
	gpo_resident_dimcol dimcols[GPO_RESIDENT_MAX_DIM_COLS];
	gpo_expr_error xerr = {GPO_XERR_NONE, 0};
	gpo_agg_strategy strategy = GPO_AGG_AUTO;
	gpo_ctx		ctx;
	instr_time	start;
	int			nouts = Max(req->nvals, 1);
	int			i;
	int			f;

	if (held == NULL || sets == NULL || req->nsets < 0 ||
		req->nvals < 0 || req->nvals > GPO_AGG_MAX_REQS ||
		req->nexprs < 0 || req->nexprs > GPO_RESIDENT_MAX_EXPRS ||
		req->nkeys < 0 || req->nkeys > GPO_RESIDENT_MAX_KEYS ||
		req->ndims < 0 || req->ndims > GPO_RESIDENT_MAX_DIMS ||
		req->ndimcols < 0 || req->ndimcols > GPO_RESIDENT_MAX_DIM_COLS)
		req->status = held == NULL || sets == NULL ? GPO_ERR_NOMEM : GPO_ERR_INVALID;
	else if (!gpuops_svc_res_acquire(keys, req->nsets, held))
	{
		req->status = GPO_ERR_INVALID;
		snprintf(req->detail, sizeof(req->detail),
				 "a cached range is no longer kept by the GPU service");
	}
	else
	{
		for (i = 0; i < req->nsets; i++)
			sets[i] = held[i]->set;
		memset(outs, 0, sizeof(outs));
		for (i = 0; i < nouts; i++)
		{
			outs[i].capacity = req->cap;
			for (f = 0; f < GPUOPS_SVC_NOUT; f++)
				if (req->off_out[i][f] != 0)
					*gpuops_svc_out_field(&outs[i], f) = base + req->off_out[i][f];
		}
		memset(&q, 0, sizeof(q));
		q.prog = (const gpo_pred *) (base + req->off_prog);
		q.nnodes = req->nnodes;
		q.key_col = req->key_col;
		q.nreqs = req->nvals;
		q.val_cols = req->val_col;
		q.aggs = req->aggs;
		q.est_groups = req->est_groups;
		q.nexprs = req->nexprs;
		q.exprs = exprs;
		q.xerr = &xerr;
		q.nkeys = req->nkeys;
		q.key_cols = req->key_cols;
		q.key_lo = req->key_lo;
		q.key_width = req->key_width;
		for (i = 0; i < req->nexprs; i++)
		{
			const GpuopsSvcExpr *x = (const GpuopsSvcExpr *) (base + req->off_exprs) + i;

			exprs[i].prog = (const gpo_xnode *) (base + x->off_prog);
			exprs[i].nnodes = x->nnodes;
			exprs[i].type = (gpo_type) x->type;
			exprs[i].out_double = x->out_double != 0;
		}
		gpuops_svc_star_of(req, base, &q, dims, dimcols);
		gpo_ctx_init(&ctx);
		ctx.threads = 1;
		INSTR_TIME_SET_CURRENT(start);
		req->status = gpo_resident_groupagg(&ctx, req->nsets, sets, &q,
											&strategy, outs, &req->ngroups);
		req->xerr = xerr.code;
		req->device_ms = gpuops_svc_since(start);
		req->strategy_used = strategy;
		req->face_used = ctx.used;
		strlcpy(req->detail, ctx.detail, sizeof(req->detail));
		gpuops_svc_res_release(held, req->nsets);
		pg_atomic_fetch_add_u64(&svc->resident_served, 1);
	}
	free(held);
	free(sets);
}
