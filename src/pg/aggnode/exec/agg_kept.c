/*
 * agg_kept.c
 *	  GpuOpsAgg over a cached table's ranges where they lie.  On the GPU
 *	  face, the ranges the GPU service keeps on its device: one request
 *	  carries the node's WHERE program, its key and its value columns (no
 *	  column data), and the service filters and groups the kept ranges
 *	  there.  On the CPU face, the host cache's fresh ranges: the engine
 *	  filters and groups them in the cache's shared memory (views, no copy),
 *	  under the table's cache lock.  Either way the groups merge into the
 *	  node's running groups as a batch's do, and the reader (and its worker
 *	  processes, to which agg_parallel.c hands the blocks) passes over those
 *	  ranges' blocks and reads the rest (stale ranges, new blocks) as before.
 *
 * Taken for the shapes the engine runs over cached columns: one key, a
 * plain column or an expression, or up to 8 keys of integer columns (the
 * engine packs them into one from the ranges' bounds); values that are
 * plain columns or expressions over them (the engine computes those over
 * the passing rows, and a row's error is raised here); WHERE clauses all
 * in the device program; no FILTER, star join or text column.
 * Anything that goes wrong with the request (a range dropped meanwhile, no
 * room) leaves the table to the reader, as if nothing was kept.  When the
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

/*
 * Whether batch column c of te is one the kept ranges hold, the engine
 * computes or a star join's dimension gives.
 */
static bool
gpuops_agg_kept_col_ok(GpuopsAggScanState *s, GpuopsAggTableExec *te, int c)
{
	return (c >= 0 && c < te->nread) ||
		(c >= te->ncols && c < te->ncols + te->ncomputed) ||
		gpuops_agg_kept_star_col(s, te, c) >= 0;
}

/* Whether te's computed columns can be computed over the kept ranges. */
static bool
gpuops_agg_kept_computed_ok(GpuopsAggScanState *s, GpuopsAggTableExec *te)
{
	int			k;
	int			i;

	if (te->ncomputed > GPO_RESIDENT_MAX_EXPRS)
		return false;
	for (k = 0; k < te->ncomputed; k++)
	{
		GpuopsExprProgram *p = &te->computed[k].prog;

		if (te->computed[k].filter >= 0 || !gpuops_agg_kept_type(p->out_type))
			return false;
		for (i = 0; i < p->n; i++)
			if (p->nodes[i].op == GPO_X_COL &&
				!gpuops_agg_kept_col_ok(s, te, p->nodes[i].arg))
				return false;
	}
	return true;
}

/* Whether the node's batches of te have a shape the service runs over kept ranges. */
static bool
gpuops_agg_kept_shape(GpuopsAggScanState *s, GpuopsAggTableExec *te)
{
	GpuopsAggSpec *spec = &s->spec;
	int			i;

	if (te->cache_src == NULL ||
		spec->nkeys > GPO_RESIDENT_MAX_KEYS ||
		spec->nfilters > 0 || te->nwexpr > 0 || te->cpu_qual != NULL ||
		te->nlen > 0 ||
		(s->join != NULL ? !gpuops_agg_kept_star_shape(s, te) : te->ncols != te->nread) ||
		spec->nvals > GPO_AGG_MAX_REQS || !gpuops_agg_kept_computed_ok(s, te))
		return false;
	if (spec->nkeys == 1 && !gpuops_agg_kept_col_ok(s, te, te->key_col[0]))
		return false;
	/* several keys: integer columns the ranges hold or joined, packed by the engine */
	for (i = 0; spec->nkeys > 1 && i < spec->nkeys; i++)
	{
		int			c = te->key_col[i];

		if (c < 0 || c >= te->ncols ||
			(te->cols[c].type != GPO_INT32 && te->cols[c].type != GPO_INT64))
			return false;
	}
	for (i = 0; i < spec->nvals; i++)
		if (!gpuops_agg_kept_col_ok(s, te, te->val_col[i]))
			return false;
	for (i = 0; i < te->nread; i++)
		if (te->cols[i].presence || te->cols[i].encode != NULL)
			return false;
	/* keys and values the engine groups and sums (not bool's UINT8) */
	if (spec->nkeys == 1 &&
		!gpuops_agg_kept_type(gpuops_agg_col_type(te, te->key_col[0])))
		return false;
	for (i = 0; i < spec->nvals; i++)
		if (!gpuops_agg_kept_type(gpuops_agg_col_type(te, te->val_col[i])))
			return false;
	return true;
}

/* The column of the kept ranges (or the computed or joined one) of batch column c. */
static int
gpuops_agg_kept_col(GpuopsAggScanState *s, GpuopsAggTableExec *te,
					const GpuopsCacheKept *kept, int c)
{
	if (c >= te->ncols)
		return GPO_RESIDENT_EXPR_COL(c - te->ncols);
	if (c >= te->nread)
		return GPO_RESIDENT_DIM_COL(gpuops_agg_kept_star_col(s, te, c));
	return kept->cidx[c];
}

/* te's computed columns over the kept columns, into exprs (in the current context). */
static void
gpuops_agg_kept_exprs(GpuopsAggScanState *s, GpuopsAggTableExec *te,
					  const GpuopsCacheKept *kept,
					  gpo_resident_expr *exprs)
{
	int			k;
	int			i;

	for (k = 0; k < te->ncomputed; k++)
	{
		GpuopsExprProgram *p = &te->computed[k].prog;
		gpo_xnode  *nodes = palloc(sizeof(gpo_xnode) * p->n);

		for (i = 0; i < p->n; i++)
		{
			nodes[i] = p->nodes[i];
			if (nodes[i].op == GPO_X_COL)
				nodes[i].arg = gpuops_agg_kept_col(s, te, kept, nodes[i].arg);
		}
		exprs[k].prog = nodes;
		exprs[k].nnodes = p->n;
		exprs[k].type = p->out_type;
		exprs[k].out_double = p->out_double;
	}
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
							 spec->nvals > 0 ? gpuops_agg_col_type(te, te->val_col[v]) : GPO_INT32,
							 v == 0, gpuops_agg_val_m2(spec, v));
	return outs;
}

/* The requests of the node's value columns over the kept columns. */
static void
gpuops_agg_kept_reqs(GpuopsAggScanState *s, GpuopsAggTableExec *te,
					 const GpuopsCacheKept *kept, int *val_cols,
					 gpo_type *val_types, unsigned *aggs)
{
	GpuopsAggSpec *spec = &s->spec;
	int			v;

	for (v = 0; v < spec->nvals; v++)
	{
		val_cols[v] = gpuops_agg_kept_col(s, te, kept, te->val_col[v]);
		val_types[v] = gpuops_agg_col_type(te, te->val_col[v]);
		aggs[v] = GPO_AGG_WANT_COUNT | GPO_AGG_WANT_SUM | GPO_AGG_WANT_MIN |
			GPO_AGG_WANT_MAX | (gpuops_agg_val_m2(spec, v) ? GPO_AGG_WANT_M2 : 0);
	}
}

/*
 * The groups of kept's ranges that pass prog (and join star's dimensions,
 * when not NULL) into outs: in place, from the host cache's views
 * (direct), or by the GPU service from its device copies; the status, with
 * *ngroups, a computed column's error in *xerr (outs unfilled then), and
 * in keys how several keys were packed.
 */
static gpo_status
gpuops_agg_kept_call(GpuopsAggScanState *s, GpuopsAggTableExec *te,
					 const GpuopsCacheKept *kept, GpuopsCacheDirect *direct,
					 const gpo_pred *prog, const GpuopsServiceStar *star,
					 gpo_type ktype, gpo_agg_out *outs, int64 *ngroups,
					 int *xerr, GpuopsServiceKeys *keys)
{
	GpuopsAggSpec *spec = &s->spec;
	int			val_cols[GPO_AGG_MAX_REQS];
	gpo_type	val_types[GPO_AGG_MAX_REQS];
	unsigned	aggs[GPO_AGG_MAX_REQS];
	gpo_resident_expr exprs[GPO_RESIDENT_MAX_EXPRS];
	int			key_col = spec->nkeys == 1 ?
		gpuops_agg_kept_col(s, te, kept, te->key_col[0]) : -1;
	int			k;
	GpuopsServiceCall *call;
	gpo_agg_strategy used = GPO_AGG_AUTO;
	gpo_status	st = GPO_OK;
	gpo_ctx		ctx;
	double		copy_ms;
	bool		lost;

	*xerr = 0;
	gpuops_agg_kept_reqs(s, te, kept, val_cols, val_types, aggs);
	gpuops_agg_kept_exprs(s, te, kept, exprs);
	keys->nkeys = spec->nkeys > 1 ? spec->nkeys : 0;
	for (k = 0; k < keys->nkeys; k++)
		keys->cols[k] = gpuops_agg_kept_col(s, te, kept, te->key_col[k]);
	if (direct != NULL)
	{
		gpo_expr_error err = {GPO_XERR_NONE, 0};
		gpo_resident_query q = {prog, te->nprog, key_col, spec->nvals,
			val_cols, aggs, (int64) spec->est_groups, te->ncomputed, exprs,
		&err, keys->nkeys, keys->cols, keys->lo, keys->width};

		if (star != NULL)
		{
			q.ndims = star->ndims;
			q.dims = star->dims;
			q.ndimcols = star->ndimcols;
			q.dimcols = star->dimcols;
		}
		gpuops_agg_ctx_init(s, &ctx);
		ctx.device = GPO_DEVICE_CPU;
		st = gpo_resident_groupagg(&ctx, kept->nsets, direct->views, &q, &used,
								   outs, ngroups);
		if (st != GPO_OK && st != GPO_ERR_CAPACITY)
			strlcpy(s->kept_why, ctx.detail, sizeof(s->kept_why));
		*xerr = st == GPO_OK ? err.code : 0;
		return st;
	}
	gpo_ctx_init(&ctx);
	call = gpuops_service_cached_submit(kept->service, kept->nsets, kept->sets,
										prog, te->nprog, key_col, ktype,
										spec->nvals, val_cols, val_types, aggs,
										te->ncomputed, exprs, keys, star,
										(int64) spec->est_groups, outs,
										gpuops_device_now() == GPO_DEVICE_GPU,
										&st, ctx.detail, sizeof(ctx.detail));
	if (call == NULL)
	{
		strlcpy(s->kept_why, ctx.detail, sizeof(s->kept_why));
		return st;
	}
	st = gpuops_service_cached_wait(call, &ctx, &used, ngroups,
									&s->kept_device_ms, &copy_ms, &lost, xerr,
									keys);
	if (st != GPO_OK)
		strlcpy(s->kept_why, lost ? "the GPU service stopped" : ctx.detail,
				sizeof(s->kept_why));
	return st;
}

/* The node's WHERE program over the kept columns, in the current context. */
static gpo_pred *
gpuops_agg_kept_prog(GpuopsAggTableExec *te, const GpuopsCacheKept *kept)
{
	gpo_pred   *prog = palloc(sizeof(gpo_pred) * Max(te->nprog, 1));
	int			i;

	for (i = 0; i < te->nprog; i++)
	{
		prog[i] = te->prog[i];
		if (prog[i].kind == GPO_PRED_CMP || prog[i].kind == GPO_PRED_NULLTEST)
			prog[i].column = kept->cidx[prog[i].column];
	}
	return prog;
}

/*
 * Merges groups of several keys, packed as keys says (gpo_resident.h), into
 * the node's: each key's code again, in the running state's form.
 */
static void
gpuops_agg_kept_merge_keys(GpuopsAggScanState *s, const GpuopsServiceKeys *keys,
						   gpo_agg_out *outs, int64 ngroups)
{
	uint64	   *codes[GPUOPS_AGG_MAX_KEYS];
	uint8	   *valid[GPUOPS_AGG_MAX_KEYS];
	const int64 *packed = (const int64 *) outs[0].keys;
	int64		g;
	int			k;

	for (k = 0; k < keys->nkeys; k++)
	{
		codes[k] = palloc_extended(sizeof(uint64) * Max(ngroups, 1), MCXT_ALLOC_HUGE);
		valid[k] = palloc_extended(Max(ngroups, 1), MCXT_ALLOC_HUGE);
	}
	for (g = 0; g < ngroups; g++)
	{
		int64		rest = packed[g];

		for (k = keys->nkeys - 1; k >= 0; k--)
		{
			int64		code = rest % keys->width[k];
			int64		v = keys->lo[k] + code;
			int32		v32 = (int32) v;
			gpo_type	t = s->groups.key_types[k];

			rest /= keys->width[k];
			valid[k][g] = code != keys->width[k] - 1;
			codes[k][g] = !valid[k][g] ? 0 :
				gpo_key_code(t, t == GPO_INT32 ? (const void *) &v32 : (const void *) &v);
		}
	}
	gpuops_aggspill_merge(&s->groups, ngroups, codes, valid, outs[0].rows, outs);
}

/* Merges the groups of a kept-ranges call into the node's. */
static void
gpuops_agg_kept_merge(GpuopsAggScanState *s, gpo_type ktype,
					  const GpuopsServiceKeys *keys, gpo_agg_out *outs,
					  int64 ngroups)
{
	int64		g;

	if (keys->nkeys > 1)
		gpuops_agg_kept_merge_keys(s, keys, outs, ngroups);
	else if (s->spec.nkeys == 1)
		gpuops_agg_merge_outs(s, ngroups, ktype, NULL, outs, false);
	else if (ngroups > 0)
		gpuops_aggspill_merge(&s->groups, ngroups, NULL, NULL, outs[0].rows,
							  outs);
	for (g = 0; g < ngroups; g++)
		s->rows_passed += outs[0].rows[g];
}

/*
 * Aggregates te's table's ranges that the GPU service keeps (on the GPU
 * face) or that the host cache holds (on the CPU face) where they lie, and
 * makes the reader pass over them (see the file header); *rest: the blocks
 * left to read (0: none).  False when nothing was done.
 */
bool
gpuops_agg_kept_run(GpuopsAggScanState *s, GpuopsAggTableExec *te,
					int64 *rest)
{
	GpuopsAggSpec *spec = &s->spec;
	GpuopsCacheKept *kept = NULL;
	GpuopsCacheDirect *direct = NULL;
	bool		served = gpuops_agg_served();
	gpo_pred   *prog;
	GpuopsServiceStar *star = NULL;
	int			k;
	gpo_agg_out *outs;
	gpo_type	ktype;
	gpo_status	st;
	int64		ngroups = 0;
	int64		cap;
	int			xerr = 0;
	GpuopsServiceKeys keys;
	instr_time	start;
	instr_time	end;
	MemoryContext old;

	*rest = -1;
	if (te->cache_src != NULL)
		gpuops_cache_skip_kept(te->cache_src, NULL);	/* (a rescan's) */
	if (!gpuops_agg_kept_shape(s, te))
		return false;

	/*
	 * Several keys on the CPU face: the batches' key packing and fused
	 * accumulation beat the packed key's program and a pass a request
	 * (TPC-H Q1, 6M cached rows on 2 cores: 173-182 ms from batches,
	 * 200-214 ms in place).
	 */
	if (!served && spec->nkeys > 1 && s->join == NULL)
		return false;
	if (served && ((kept = gpuops_cache_kept(te->cache_src, te->rel)) == NULL ||
				   (gpuops_device_now() != GPO_DEVICE_GPU &&
					kept->rows < gpuops_gpu_min_rows)))
		return false;
	INSTR_TIME_SET_CURRENT(start);
	old = MemoryContextSwitchTo(s->batch_cxt);
	if (!served)
	{
		/* the host cache's ranges, under the slot's lock until the groups are in */
		if ((direct = gpuops_cache_direct_begin(te->cache_src, te->rel)) == NULL)
		{
			MemoryContextSwitchTo(old);
			return false;
		}
		kept = &direct->kept;
	}
	if (s->join != NULL)
	{
		star = palloc(sizeof(GpuopsServiceStar));
		if (!gpuops_agg_kept_star_build(s, te, kept, star))
		{
			if (direct != NULL)
				gpuops_cache_direct_end(direct);
			MemoryContextSwitchTo(old);
			MemoryContextReset(s->batch_cxt);
			return false;
		}
	}
	prog = gpuops_agg_kept_prog(te, kept);
	ktype = spec->nkeys == 1 ? gpuops_agg_col_type(te, te->key_col[0]) :
		spec->nkeys > 1 ? GPO_INT64 : GPO_INT32;	/* (several: packed) */
	cap = spec->nkeys == 0 ? 1 :
		Min(Max(kept->rows, 1), Max((int64) 1024, (int64) (2 * spec->est_groups)));
	outs = gpuops_agg_kept_outs(s, te, ktype, cap);
	st = gpuops_agg_kept_call(s, te, kept, direct, prog, star, ktype, outs,
							  &ngroups, &xerr, &keys);
	if (st == GPO_ERR_CAPACITY)
	{
		/* more groups than guessed: once more with room for them all */
		outs = gpuops_agg_kept_outs(s, te, ktype, ngroups);
		st = gpuops_agg_kept_call(s, te, kept, direct, prog, star, ktype,
								  outs, &ngroups, &xerr, &keys);
	}
	if (direct != NULL)
		gpuops_cache_direct_end(direct);
	/* a passing row's expression raised an error: PostgreSQL's raises it too */
	if (st == GPO_OK && xerr != 0)
	{
		MemoryContextSwitchTo(old);
		gpuops_agg_expr_raise((gpo_xerr) xerr);
	}
	if (st == GPO_OK)
		gpuops_agg_kept_merge(s, ktype, &keys, outs, ngroups);
	for (k = 0; st == GPO_OK && star != NULL && k < star->ndims; k++)
	{
		s->join->dims[k].mapped = true;
		s->join->dims[k].map_keys = star->dims[k].span;
	}
	/* (the reader's blocks to pass over live as long as the reader) */
	MemoryContextSwitchTo(old);
	if (st == GPO_OK)
	{
		gpuops_cache_skip_kept(te->cache_src, kept);
		if (direct != NULL)
		{
			s->direct_ranges += kept->nsets;
			s->cached_rows += kept->rows;
		}
		else
		{
			s->kept_ranges += kept->nsets;
			s->kept_rows += kept->rows;
		}
		s->rows_in += kept->rows;
		*rest = kept->table_blocks - kept->blocks;
	}
	MemoryContextReset(s->batch_cxt);
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_SUBTRACT(end, start);
	s->kept_ms += INSTR_TIME_GET_MILLISEC(end);
	return st == GPO_OK;
}
