/*
 * agg_kept.c
 *	  GpuOpsAgg over the column cache's ranges that the GPU service keeps on
 *	  its device: one request carries the node's WHERE program, its key and
 *	  its value columns (no column data), the service filters and groups
 *	  the kept ranges where they lie, and the groups merge into the node's
 *	  running groups as a batch's do.  The reader then passes over those
 *	  ranges' blocks and reads the rest (stale ranges, new blocks) as
 *	  before, and so do its worker processes (agg_parallel.c hands them
 *	  the blocks to pass over).
 *
 * Taken when the GPU face would take the batches through the service, for
 * the shapes the service runs over kept columns: at most one key, a plain
 * column; values that are plain columns; WHERE clauses all in the device
 * program; no FILTER, star join, expression or text column.  Anything
 * that goes wrong with the request (a range dropped meanwhile, no room)
 * leaves the table to the reader, as if nothing was kept.  When the kept
 * ranges are the whole table, nothing is read and no worker starts.
 */
#include "aggnode/exec/gpuops_agg_exec.h"

#include "cache/gpuops_cache.h"

/* Whether the service groups by and aggregates columns of type t. */
static bool
gpuops_agg_kept_type(gpo_type t)
{
	return t == GPO_INT32 || t == GPO_INT64 || t == GPO_FLOAT32 ||
		t == GPO_FLOAT64;
}

/* Whether the node's batches of te have a shape the service runs over kept ranges. */
static bool
gpuops_agg_kept_shape(GpuopsAggScanState *s, GpuopsAggTableExec *te)
{
	GpuopsAggSpec *spec = &s->spec;
	int			i;

	if (te->cache_src == NULL || s->join != NULL || spec->nkeys > 1 ||
		spec->nfilters > 0 || te->nwexpr > 0 || te->cpu_qual != NULL ||
		te->nlen > 0 || te->ncols != te->nread ||
		spec->nvals > GPO_AGG_MAX_REQS || !gpuops_agg_served())
		return false;
	if (spec->nkeys == 1 && (te->key_col[0] < 0 || te->key_col[0] >= te->nread))
		return false;
	for (i = 0; i < spec->nvals; i++)
		if (te->val_col[i] < 0 || te->val_col[i] >= te->nread)
			return false;
	for (i = 0; i < te->nread; i++)
		if (te->cols[i].presence || te->cols[i].encode != NULL)
			return false;
	/* keys and values the engine groups and sums (not bool's UINT8) */
	if (spec->nkeys == 1 && !gpuops_agg_kept_type(te->cols[te->key_col[0]].type))
		return false;
	for (i = 0; i < spec->nvals; i++)
		if (!gpuops_agg_kept_type(te->cols[te->val_col[i]].type))
			return false;
	return true;
}

/* Output arrays for cap groups of every value column. */
static gpo_agg_out *
gpuops_agg_kept_outs(GpuopsAggScanState *s, GpuopsAggTableExec *te,
					 gpo_type ktype, int64 cap)
{
	GpuopsAggSpec *spec = &s->spec;
	gpo_agg_out *outs = palloc0(sizeof(gpo_agg_out) * Max(spec->nvals, 1));
	int			v;

	for (v = 0; v < Max(spec->nvals, 1); v++)
		gpuops_agg_out_alloc(&outs[v], cap, ktype,
							 spec->nvals > 0 ? te->cols[te->val_col[v]].type : GPO_INT32,
							 v == 0, gpuops_agg_val_m2(spec, v));
	return outs;
}

/*
 * One request over kept's ranges into outs (see gpuops_service.h); its
 * status, with *ngroups.
 */
static gpo_status
gpuops_agg_kept_call(GpuopsAggScanState *s, GpuopsAggTableExec *te,
					 const GpuopsCacheKept *kept, const gpo_pred *prog,
					 gpo_type ktype, gpo_agg_out *outs, int64 *ngroups)
{
	GpuopsAggSpec *spec = &s->spec;
	int			val_cols[GPO_AGG_MAX_REQS];
	gpo_type	val_types[GPO_AGG_MAX_REQS];
	unsigned	aggs[GPO_AGG_MAX_REQS];
	GpuopsServiceCall *call;
	gpo_agg_strategy used;
	gpo_status	st = GPO_OK;
	gpo_ctx		ctx;
	double		copy_ms;
	bool		lost;
	int			v;

	for (v = 0; v < spec->nvals; v++)
	{
		val_cols[v] = kept->cidx[te->val_col[v]];
		val_types[v] = te->cols[te->val_col[v]].type;
		aggs[v] = GPO_AGG_WANT_COUNT | GPO_AGG_WANT_SUM | GPO_AGG_WANT_MIN |
			GPO_AGG_WANT_MAX | (gpuops_agg_val_m2(spec, v) ? GPO_AGG_WANT_M2 : 0);
	}
	gpo_ctx_init(&ctx);
	call = gpuops_service_cached_submit(kept->service, kept->nsets, kept->sets,
										prog, te->nprog,
										spec->nkeys == 1 ? kept->cidx[te->key_col[0]] : -1,
										ktype, spec->nvals, val_cols, val_types,
										aggs, (int64) spec->est_groups, outs,
										gpuops_device_now() == GPO_DEVICE_GPU, &st, ctx.detail, sizeof(ctx.detail));
	if (call == NULL)
	{
		strlcpy(s->kept_why, ctx.detail, sizeof(s->kept_why));
		return st;
	}
	st = gpuops_service_agg_wait(call, &ctx, &used, ngroups, &s->kept_device_ms,
								 &copy_ms, &lost);
	if (st != GPO_OK)
		strlcpy(s->kept_why, lost ? "the GPU service stopped" : ctx.detail,
				sizeof(s->kept_why));
	return st;
}

/*
 * Aggregates te's table's kept ranges in the GPU service and makes the
 * reader pass over them (see the file header); *rest: the blocks left to
 * read (0: none).  False when nothing was done.
 */
bool
gpuops_agg_kept_run(GpuopsAggScanState *s, GpuopsAggTableExec *te,
					int64 *rest)
{
	GpuopsAggSpec *spec = &s->spec;
	GpuopsCacheKept *kept;
	gpo_pred   *prog;
	gpo_agg_out *outs;
	gpo_type	ktype;
	gpo_status	st;
	int64		ngroups = 0;
	int64		cap;
	instr_time	start;
	instr_time	end;
	MemoryContext old;
	int			i;

	*rest = -1;
	if (te->cache_src != NULL)
		gpuops_cache_skip_kept(te->cache_src, NULL);	/* (a rescan's) */
	if (!gpuops_agg_kept_shape(s, te) ||
		(kept = gpuops_cache_kept(te->cache_src, te->rel)) == NULL)
		return false;
	if (gpuops_device_now() != GPO_DEVICE_GPU && kept->rows < gpuops_gpu_min_rows)
		return false;
	INSTR_TIME_SET_CURRENT(start);
	old = MemoryContextSwitchTo(s->batch_cxt);
	/* the WHERE program over the kept columns */
	prog = palloc(sizeof(gpo_pred) * Max(te->nprog, 1));
	for (i = 0; i < te->nprog; i++)
	{
		prog[i] = te->prog[i];
		if (prog[i].kind == GPO_PRED_CMP || prog[i].kind == GPO_PRED_NULLTEST)
			prog[i].column = kept->cidx[prog[i].column];
	}
	ktype = spec->nkeys == 1 ? te->cols[te->key_col[0]].type : GPO_INT32;
	cap = spec->nkeys == 0 ? 1 :
		Min(Max(kept->rows, 1), Max((int64) 1024, (int64) (2 * spec->est_groups)));
	outs = gpuops_agg_kept_outs(s, te, ktype, cap);
	st = gpuops_agg_kept_call(s, te, kept, prog, ktype, outs, &ngroups);
	if (st == GPO_ERR_CAPACITY)
	{
		/* more groups than guessed: once more with room for them all */
		outs = gpuops_agg_kept_outs(s, te, ktype, ngroups);
		st = gpuops_agg_kept_call(s, te, kept, prog, ktype, outs, &ngroups);
	}
	if (st != GPO_OK)
	{
		MemoryContextSwitchTo(old);
		MemoryContextReset(s->batch_cxt);
		return false;
	}
	if (spec->nkeys == 1)
		gpuops_agg_merge_outs(s, ngroups, ktype, NULL, outs, false);
	else if (ngroups > 0)
		gpuops_aggspill_merge(&s->groups, ngroups, NULL, NULL, outs[0].rows,
							  outs);
	for (i = 0; i < ngroups; i++)
		s->rows_passed += outs[0].rows[i];
	MemoryContextSwitchTo(old);
	MemoryContextReset(s->batch_cxt);
	gpuops_cache_skip_kept(te->cache_src, kept);
	s->kept_ranges += kept->nsets;
	s->kept_rows += kept->rows;
	s->rows_in += kept->rows;
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_SUBTRACT(end, start);
	s->kept_ms += INSTR_TIME_GET_MILLISEC(end);
	*rest = kept->whole ? 0 : Max(kept->table_blocks - kept->blocks, 1);
	return true;
}
