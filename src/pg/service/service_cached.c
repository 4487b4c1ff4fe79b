/*
 * service_cached.c
 *	  A backend's side of the ranges the GPU service keeps on its device:
 *	  which service keeps a table's ranges, which ranges it keeps now (its
 *	  directory, read without a lock), a range's columns handed over to be
 *	  kept (LOAD), and a query's filtered group aggregation over kept ranges
 *	  (CACHED), whose groups come back as a batch's do.
 *
 * The column cache (src/pg/cache) decides what is kept and when it is
 * fresh; the service only keeps what it is given, within
 * gpuops.cache_memory_limit, and checks every CACHED request's ranges
 * against what it holds.
 */
#include "service/service_int.h"

#include "miscadmin.h"
#include "portability/instr_time.h"

int			gpuops_cache_memory_limit = 4096;	/* MB */

/* The service that keeps relid's ranges: one per table, by its OID. */
int
gpuops_service_for_relation(Oid relid)
{
	int			n;
	int			i;

	if (gpuops_svc_set == NULL || (n = gpuops_svc_set->nservices) == 0)
		return -1;
	i = (int) (relid % (Oid) n);
	return gpuops_svc_serving(gpuops_svc_at(i)) ? i : -1;
}

/* Has every serving service drop what it keeps of database dbid's tables. */
void
gpuops_service_forget_database(Oid dbid)
{
	int			i;

	if (gpuops_svc_set == NULL)
		return;
	for (i = 0; i < gpuops_svc_set->nservices; i++)
		if (gpuops_svc_serving(gpuops_svc_at(i)))
			gpuops_service_forget(i, dbid, InvalidOid, 0, InvalidOid);
}

/* Reads directory entry e into *out; false while it is rewritten. */
static bool
gpuops_svc_res_read(GpuopsSvcResEntry *e, GpuopsSvcResEntry *out)
{
	uint32		v1 = pg_atomic_read_u32(&e->version);

	if (v1 & 1)
		return false;
	pg_read_barrier();
	out->used = e->used;
	out->key = e->key;
	out->generation = e->generation;
	out->bytes = e->bytes;
	pg_read_barrier();
	return pg_atomic_read_u32(&e->version) == v1;
}

/* Which ranges of (dbid, relid, serial) service si keeps (see gpuops_service.h). */
int64
gpuops_service_kept_ranges(int si, Oid dbid, Oid relid, uint32 serial,
						   Oid relnode, int64 nranges, GpuopsServiceRangeKey *found,
						   int64 *bytes)
{
	GpuopsSvcShared *svc;
	uint64		gen;
	int64		kept = 0;
	int64		r;
	int			i;

	for (r = 0; r < nranges; r++)
		found[r].entry = -1;
	if (bytes != NULL)
		*bytes = 0;
	if (si < 0 || si >= gpuops_svc_set->nservices)
		return 0;
	svc = gpuops_svc_at(si);
	if (pg_atomic_read_u32(&svc->state) != GPUOPS_SVC_READY &&
		pg_atomic_read_u32(&svc->state) != GPUOPS_SVC_READY_CPU)
		return 0;
	gen = pg_atomic_read_u64(&svc->generation);
	for (i = 0; i < GPUOPS_SVC_RESIDENT_MAX; i++)
	{
		GpuopsSvcResEntry e;

		if (!gpuops_svc_res_read(&svc->resident[i], &e) || !e.used ||
			e.generation != gen || e.key.dbid != dbid ||
			e.key.relid != relid || e.key.serial != serial ||
			e.key.relnode != relnode ||
			e.key.range < 0 || e.key.range >= nranges)
			continue;
		if (found[e.key.range].entry < 0)
			kept++;
		if (bytes != NULL)
			*bytes += e.bytes;
		found[e.key.range] = e.key;
		found[e.key.range].entry = i;
	}
	return kept;
}

/* Whether service si keeps ranges and has room for more (see gpuops_service.h). */
bool
gpuops_service_kept_room(int si)
{
	GpuopsSvcShared *svc;
	uint64		limit;

	if (si < 0 || si >= gpuops_svc_set->nservices)
		return false;
	svc = gpuops_svc_at(si);
	limit = (uint64) pg_atomic_read_u32(&svc->cache_limit_mb) * 1024 * 1024;
	return gpuops_svc_serving(svc) &&
		pg_atomic_read_u64(&svc->resident_bytes) < limit / 2;
}

/* Hands a cached range's columns to service si (see gpuops_service.h). */
GpuopsServiceCall *
gpuops_service_load_submit(int si, const GpuopsServiceRangeKey *key, int ncols,
						   const gpo_vector *cols, gpo_status *why,
						   char *detail, size_t len)
{
	GpuopsSvcAggReq *req;
	GpuopsServiceCall *call;
	Size		at = TYPEALIGN(GPUOPS_SVC_ALIGN, sizeof(GpuopsSvcAggReq));
	char	   *base;
	int			c;

	if (ncols < 1 || ncols > GPO_RESIDENT_MAX_COLS)
	{
		*why = GPO_ERR_INVALID;
		snprintf(detail, len, "%d columns", ncols);
		return NULL;
	}
	req = palloc0(sizeof(GpuopsSvcAggReq));
	req->kind = GPUOPS_SVC_KIND_LOAD;
	req->load_key = *key;
	req->ncols = ncols;
	req->nrows = gpo_vector_rows(&cols[0]);
	for (c = 0; c < ncols; c++)
	{
		req->col_type[c] = cols[c].type;
		at = gpuops_svc_layout_column(&cols[c], req->nrows, at, &req->off_cols[c],
									  &req->off_cols_valid[c]);
	}
	call = gpuops_svc_call_begin(at, si, false, why, detail, len);
	if (call != NULL)
	{
		base = gpuops_svc_call_base(call);
		memcpy(base, req, sizeof(GpuopsSvcAggReq));
		for (c = 0; c < ncols; c++)
			gpuops_svc_flatten(&cols[c], base + req->off_cols[c],
							   req->off_cols_valid[c] != 0 ?
							   (uint8 *) base + req->off_cols_valid[c] : NULL);
		gpuops_svc_call_outputs(call, NULL, 0, 0.0);
		gpuops_svc_call_queue(call);
	}
	pfree(req);
	return call;
}

/* Drops what service si keeps of a table but its current copy (see gpuops_service.h). */
void
gpuops_service_forget(int si, Oid dbid, Oid relid, uint32 keep_serial,
					  Oid keep_relnode)
{
	GpuopsSvcAggReq req;
	GpuopsServiceCall *call;
	gpo_status	why;
	char		detail[256];

	if (si < 0)
		return;
	memset(&req, 0, sizeof(req));
	req.kind = GPUOPS_SVC_KIND_FORGET;
	req.load_key.dbid = dbid;
	req.load_key.relid = relid;
	req.load_key.serial = keep_serial;
	req.load_key.relnode = keep_relnode;
	call = gpuops_svc_call_begin(TYPEALIGN(GPUOPS_SVC_ALIGN, sizeof(req)), si,
								 false, &why, detail, sizeof(detail));
	if (call == NULL)
		return;					/* (a restarted service keeps nothing) */
	memcpy(gpuops_svc_call_base(call), &req, sizeof(req));
	gpuops_svc_call_outputs(call, NULL, 0, 0.0);
	gpuops_svc_call_queue(call);
	(void) gpuops_service_load_wait(call, detail, sizeof(detail));
}

/* Waits for a LOAD request (see gpuops_service.h). */
gpo_status
gpuops_service_load_wait(GpuopsServiceCall *call, char *detail, size_t len)
{
	gpo_ctx		ctx;
	gpo_agg_strategy used;
	gpo_status	st;
	int64		ngroups;
	double		ms;
	double		copy_ms;
	bool		lost;

	gpo_ctx_init(&ctx);
	st = gpuops_service_agg_wait(call, &ctx, &used, &ngroups, &ms, &copy_ms,
								 &lost);
	if (st != GPO_OK)
		strlcpy(detail, ctx.detail, len);
	return st;
}

/*
 * Lays out star's dimensions (into ds), dimension columns (into dcs) and
 * their arrays in req's range from at; returns the end.
 */
static Size
gpuops_svc_layout_star(GpuopsSvcAggReq *req, const GpuopsServiceStar *star,
					   GpuopsSvcDim *ds, GpuopsSvcDimcol *dcs, Size at)
{
	int			d;

	req->ndims = star->ndims;
	req->off_dims = at;
	at += gpuops_svc_span(Max(star->ndims, 1), sizeof(GpuopsSvcDim));
	req->ndimcols = star->ndimcols;
	req->off_dimcols = at;
	at += gpuops_svc_span(Max(star->ndimcols, 1), sizeof(GpuopsSvcDimcol));
	for (d = 0; d < star->ndims; d++)
	{
		const gpo_resident_dim *rd = &star->dims[d];

		ds[d].key_col = rd->key_col;
		ds[d].kind = rd->kind;
		ds[d].lo = rd->lo;
		ds[d].span = rd->span;
		ds[d].rows = rd->rows;
		ds[d].off_row_of = at;
		at += gpuops_svc_span(Max(rd->span, 1), sizeof(int32));
	}
	for (d = 0; d < star->ndimcols; d++)
	{
		const gpo_resident_dimcol *dc = &star->dimcols[d];
		int64		rows = star->dims[dc->dim].rows;

		dcs[d].dim = dc->dim;
		dcs[d].type = dc->type;
		dcs[d].bounded = dc->bounded;
		dcs[d].lo = dc->lo;
		dcs[d].hi = dc->hi;
		dcs[d].off_data = at;
		at += gpuops_svc_span(Max(rows, 1), gpo_type_size(dc->type));
		dcs[d].off_valid = 0;
		if (dc->valid != NULL)
		{
			dcs[d].off_valid = at;
			at += gpuops_svc_span(Max(rows, 1), 1);
		}
	}
	return at;
}

/* Copies star's dimensions and arrays into a request laid out by gpuops_svc_layout_star. */
static void
gpuops_svc_copy_star(char *base, const GpuopsSvcAggReq *req,
					 const GpuopsServiceStar *star, const GpuopsSvcDim *ds,
					 const GpuopsSvcDimcol *dcs)
{
	int			d;

	memcpy(base + req->off_dims, ds, sizeof(GpuopsSvcDim) * star->ndims);
	memcpy(base + req->off_dimcols, dcs, sizeof(GpuopsSvcDimcol) * star->ndimcols);
	for (d = 0; d < star->ndims; d++)
		if (star->dims[d].span > 0)
			memcpy(base + ds[d].off_row_of, star->dims[d].row_of,
				   sizeof(int32) * star->dims[d].span);
	for (d = 0; d < star->ndimcols; d++)
	{
		int64		rows = star->dims[star->dimcols[d].dim].rows;

		if (rows > 0)
			memcpy(base + dcs[d].off_data, star->dimcols[d].data,
				   gpo_type_size(star->dimcols[d].type) * rows);
		if (dcs[d].off_valid != 0 && rows > 0)
			memcpy(base + dcs[d].off_valid, star->dimcols[d].valid, rows);
	}
}

/* Asks service si for a group aggregation of kept ranges (see gpuops_service.h). */
GpuopsServiceCall *
gpuops_service_cached_submit(int si, int nsets,
							 const GpuopsServiceRangeKey *sets,
							 const gpo_pred *prog, int nnodes, int key_col,
							 gpo_type key_type, int nreqs, const int *val_cols,
							 const gpo_type *val_types, const unsigned *aggs,
							 int nexprs, const gpo_resident_expr *exprs,
							 const GpuopsServiceKeys *keys,
							 const GpuopsServiceStar *star,
							 int64 est_groups, gpo_agg_out *outs, bool wait,
							 gpo_status *why, char *detail, size_t len)
{
	GpuopsSvcExpr xs[GPO_RESIDENT_MAX_EXPRS];
	GpuopsSvcDim ds[GPO_RESIDENT_MAX_DIMS];
	GpuopsSvcDimcol dcs[GPO_RESIDENT_MAX_DIM_COLS];
	GpuopsSvcAggReq *req = palloc0(sizeof(GpuopsSvcAggReq));
	GpuopsServiceCall *call;
	int			nouts = Max(nreqs, 1);
	Size		at = TYPEALIGN(GPUOPS_SVC_ALIGN, sizeof(GpuopsSvcAggReq));
	char	   *base;
	int			v;

	if (nreqs > GPO_AGG_MAX_REQS || nexprs > GPO_RESIDENT_MAX_EXPRS ||
		(keys != NULL && keys->nkeys > GPO_RESIDENT_MAX_KEYS) ||
		(star != NULL && (star->ndims > GPO_RESIDENT_MAX_DIMS ||
						  star->ndimcols > GPO_RESIDENT_MAX_DIM_COLS)))
	{
		*why = GPO_ERR_INVALID;
		snprintf(detail, len, "too many value columns");
		return NULL;
	}
	req->kind = GPUOPS_SVC_KIND_CACHED;
	req->cap = outs[0].capacity;
	req->est_groups = est_groups;
	req->strategy = GPO_AGG_AUTO;
	req->nvals = nreqs;
	req->key_type = key_col >= 0 || (keys != NULL && keys->nkeys > 1) ?
		key_type : GPO_INT32;	/* (several keys: packed, INT64) */
	req->key_col = key_col;
	for (v = 0; v < nreqs; v++)
	{
		req->val_type[v] = val_cols[v] >= 0 ? val_types[v] : GPO_INT32;
		req->val_col[v] = val_cols[v];
		req->aggs[v] = aggs[v];
	}
	if (keys != NULL)
	{
		req->nkeys = keys->nkeys;
		for (v = 0; v < keys->nkeys; v++)
			req->key_cols[v] = keys->cols[v];
	}
	req->nsets = nsets;
	req->off_sets = at;
	at += gpuops_svc_span(Max(nsets, 1), sizeof(GpuopsServiceRangeKey));
	req->nnodes = nnodes;
	req->off_prog = at;
	at += gpuops_svc_span(Max(nnodes, 1), sizeof(gpo_pred));
	req->nexprs = nexprs;
	req->off_exprs = at;
	at += gpuops_svc_span(Max(nexprs, 1), sizeof(GpuopsSvcExpr));
	for (v = 0; v < nexprs; v++)
	{
		xs[v].nnodes = exprs[v].nnodes;
		xs[v].type = exprs[v].type;
		xs[v].out_double = exprs[v].out_double;
		xs[v].off_prog = at;
		at += gpuops_svc_span(exprs[v].nnodes, sizeof(gpo_xnode));
	}
	if (star != NULL)
		at = gpuops_svc_layout_star(req, star, ds, dcs, at);
	at = gpuops_svc_layout_outs(req, outs, nouts, at);
	call = gpuops_svc_call_begin(at, si, wait, why, detail, len);
	if (call == NULL)
	{
		pfree(req);
		return NULL;
	}
	base = gpuops_svc_call_base(call);
	memcpy(base, req, sizeof(GpuopsSvcAggReq));
	if (nsets > 0)
		memcpy(base + req->off_sets, sets, sizeof(GpuopsServiceRangeKey) * nsets);
	if (nnodes > 0)
		memcpy(base + req->off_prog, prog, sizeof(gpo_pred) * nnodes);
	if (nexprs > 0)
		memcpy(base + req->off_exprs, xs, sizeof(GpuopsSvcExpr) * nexprs);
	for (v = 0; v < nexprs; v++)
		memcpy(base + xs[v].off_prog, exprs[v].prog,
			   sizeof(gpo_xnode) * exprs[v].nnodes);
	if (star != NULL)
		gpuops_svc_copy_star(base, req, star, ds, dcs);
	gpuops_svc_call_outputs(call, outs, nouts, 0.0);
	pfree(req);
	gpuops_svc_call_queue(call);
	return call;
}
