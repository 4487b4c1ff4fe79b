/*
 * agg_batch.c
 *	  The engine work of one GpuOpsAgg batch: the device clauses as a mask and
 *	  a compaction (gpo_filter, gpo_compact, gpo_gather; or the failing rows'
 *	  keys made NULL when that is cheaper), FILTER clauses as
 *	  validity masks, one key per row (the column itself, or gpo_keypack for
 *	  several keys), the aggregates of every value column (gpo_groupagg, or
 *	  one gpo_segreduce without GROUP BY), and the merge of the batch's groups
 *	  into the running groups (agg_state.c).
 *
 * Every engine call runs on the face gpuops.device selects and is counted by
 * face for EXPLAIN ANALYZE.  Everything here is palloc'd in the batch's
 * memory context, reset after the batch.
 */
#include "aggnode/exec/gpuops_agg_exec.h"

#include "port/pg_bswap.h"

#include "gpo_join.h"
#include "gpo_keypack.h"

/* Counts an engine call's face and checks its status (see gpuops_agg_exec.h). */
void
gpuops_agg_checked(GpuopsAggScanState *s, gpo_status st, gpo_ctx *ctx,
				   const char *op)
{
	gpuops_check_status(st, ctx, op, InvalidOid);
	if (ctx->used == GPO_DEVICE_GPU)
		s->gpu_calls++;
	else
		s->cpu_calls++;
}

/*
 * A validity bitmap of n rows from a gpo_filter mask (one byte a row, 0 or
 * 1): eight mask bytes make one bitmap byte, row 8j at bit 0.
 */
static uint8 *
gpuops_agg_mask_bits(const uint8 *mask, int64 n)
{
	uint8	   *bits = palloc_extended((n + 7) / 8 + 1,
									   MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	int64		full = n / 8;
	int64		j;
	int64		r;

	for (j = 0; j < full; j++)
	{
		uint64		x;

		memcpy(&x, mask + 8 * j, 8);
#ifdef WORDS_BIGENDIAN
		x = pg_bswap64(x);
#endif
		bits[j] = (uint8) ((x * UINT64CONST(0x0102040810204080)) >> 56);
	}
	for (r = 8 * full; r < n; r++)
		bits[r >> 3] |= (uint8) ((mask[r] != 0) << (r & 7));
	return bits;
}

/*
 * Runs the device program over the batch of *n rows; returns the rows that
 * pass.  When at least half pass and the one grouping key has no NULL in the
 * batch, the failing rows' keys become NULL (the key column's validity is
 * the mask) and *null_key_out is set: those rows then form the NULL group,
 * which the caller drops, and no column is copied.  Otherwise the passing
 * rows of every column are compacted into new buffers (chunks updated) and
 * *n becomes their number.
 */
int64
gpuops_agg_filter(GpuopsAggScanState *s, GpuopsAggTableExec *te,
				  gpo_vector *vecs, gpo_chunk *chunks, int64 *np,
				  bool *null_key_out)
{
	int64		n = *np;
	gpo_ctx		ctx;
	gpo_vector	maskv;
	gpo_chunk	maskc;
	gpo_vector	idxv;
	gpo_chunk	idxc;
	size_t		bytes = 0;
	int64		count = 0;
	gpo_status	st;
	int			i;

	gpuops_one_chunk_vector(&maskv, &maskc, GPO_UINT8, palloc_extended(Max(n, 1), MCXT_ALLOC_HUGE), NULL, n);
	gpuops_agg_ctx_init(s, &ctx);
	st = gpo_filter(&ctx, te->ncols, vecs, te->prog, te->nprog, &maskv, &count,
					NULL, &bytes);
	if (st == GPO_OK)
		st = gpo_filter(&ctx, te->ncols, vecs, te->prog, te->nprog, &maskv,
						&count, gpuops_alloc_scratch(bytes), NULL);
	gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg filter");
	*null_key_out = false;
	if (count == n || count == 0)
		return count;
	if (s->spec.nkeys == 1 && count * 2 >= n &&
		chunks[te->key_col[0]].validity == NULL)
	{
		chunks[te->key_col[0]].validity =
			gpuops_agg_mask_bits((const uint8 *) maskc.data, n);
		*null_key_out = true;
		return count;
	}

	gpuops_one_chunk_vector(&idxv, &idxc, GPO_INT64,
							palloc_extended(sizeof(int64) * count, MCXT_ALLOC_HUGE),
							NULL, count);
	gpuops_agg_ctx_init(s, &ctx);
	bytes = 0;
	st = gpo_compact(&ctx, &maskv, 0, &idxv, &count, NULL, &bytes);
	if (st == GPO_OK)
		st = gpo_compact(&ctx, &maskv, 0, &idxv, &count,
						 gpuops_alloc_scratch(bytes), NULL);
	gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg compaction");
	*np = count;

	for (i = 0; i < te->ncols; i++)
	{
		gpo_vector	outv;
		gpo_chunk	outc;
		size_t		w = gpo_type_size(vecs[i].type);
		uint8	   *valid = NULL;

		if (chunks[i].validity != NULL)
			valid = palloc_extended((count + 7) / 8, MCXT_ALLOC_HUGE);
		gpuops_one_chunk_vector(&outv, &outc, vecs[i].type,
								palloc_extended(w * Max(count, 1), MCXT_ALLOC_HUGE),
								valid, count);
		gpuops_agg_ctx_init(s, &ctx);
		bytes = 0;
		st = gpo_gather(&ctx, &vecs[i], &idxv, &outv, NULL, &bytes);
		if (st == GPO_OK)
			st = gpo_gather(&ctx, &vecs[i], &idxv, &outv,
							gpuops_alloc_scratch(bytes), NULL);
		gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg gather");
		chunks[i] = outc;
		vecs[i].chunks = &chunks[i];
	}
	return count;
}

/* Result arrays with room for capacity groups. */
void
gpuops_agg_out_alloc(gpo_agg_out *out, int64 capacity, gpo_type ktype,
					 gpo_type vtype, bool with_keys)
{
	Size		n = (Size) Max(capacity, 1);

	memset(out, 0, sizeof(*out));
	out->capacity = capacity;
	if (with_keys)
	{
		out->keys = palloc_extended(gpo_type_size(ktype) * n, MCXT_ALLOC_HUGE);
		out->key_valid = palloc_extended(n, MCXT_ALLOC_HUGE);
		out->rows = palloc_extended(sizeof(int64) * n, MCXT_ALLOC_HUGE);
	}
	out->count = palloc_extended(sizeof(int64) * n, MCXT_ALLOC_HUGE);
	out->isum = palloc_extended(sizeof(gpo_int128) * n, MCXT_ALLOC_HUGE);
	out->fsum = palloc_extended(sizeof(double) * n, MCXT_ALLOC_HUGE);
	out->min = palloc_extended(gpo_type_size(vtype) * n, MCXT_ALLOC_HUGE);
	out->max = palloc_extended(gpo_type_size(vtype) * n, MCXT_ALLOC_HUGE);
}

/*
 * Groups keys with the aggregates of values (NULL: rows only) into out,
 * growing out when the groups don't fit; returns the group count.  The
 * first call of a batch counts the strategy used for EXPLAIN.
 */
static int64
gpuops_agg_group(GpuopsAggScanState *s, const gpo_vector *keys,
				 const gpo_vector *values, gpo_agg_out *out, bool first)
{
	gpo_ctx		ctx;
	gpo_agg_strategy strategy;
	int64		ngroups = 0;
	gpo_status	st;

	for (;;)
	{
		gpuops_agg_ctx_init(s, &ctx);
		strategy = (gpo_agg_strategy) gpuops_agg_strategy;
		st = gpuops_agg_group_call(&ctx, keys, values,
								   (int64) s->spec.est_groups, &strategy, out,
								   &ngroups);
		if (st != GPO_ERR_CAPACITY)
			break;
		gpuops_agg_out_alloc(out, ngroups, keys->type,
							 values ? values->type : GPO_INT32,
							 out->keys != NULL);
	}
	gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg group aggregation");
	if (first && (int) strategy >= 0 && (int) strategy < 4)
		s->strategy_batches[strategy]++;
	return ngroups;
}

/*
 * The value columns of a batch of n rows: each aggregate argument's column,
 * or a column of zeros for count(*) FILTER, with its validity cleared where
 * the aggregate's FILTER clause does not hold (the engine then skips those
 * rows as it skips NULLs).  Each FILTER runs once per batch.
 */
static gpo_vector *
gpuops_agg_value_vectors(GpuopsAggScanState *s, GpuopsAggTableExec *te,
						 gpo_vector *vecs, int64 n)
{
	GpuopsAggSpec *spec = &s->spec;
	gpo_vector *vals = palloc0(sizeof(gpo_vector) * Max(spec->nvals, 1));
	gpo_chunk  *chunks = palloc0(sizeof(gpo_chunk) * Max(spec->nvals, 1));
	uint8	  **fbits = palloc0(sizeof(uint8 *) * Max(spec->nfilters, 1));
	int			v;

	for (v = 0; v < spec->nvals; v++)
	{
		int			f = spec->val_filters[v];
		uint8	   *valid;
		int64		i;

		if (te->val_col[v] >= 0)
		{
			vals[v] = vecs[te->val_col[v]];
			chunks[v] = vals[v].chunks[0];
		}
		else
			gpuops_one_chunk_vector(&vals[v], &chunks[v], GPO_INT32,
									palloc_extended(sizeof(int32) * Max(n, 1),
													MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO),
									NULL, n);
		vals[v].chunks = &chunks[v];
		if (f < 0)
			continue;
		if (fbits[f] == NULL)
		{
			gpo_vector	maskv;
			gpo_chunk	maskc;
			uint8	   *mask = palloc_extended(Max(n, 1), MCXT_ALLOC_HUGE);
			gpo_ctx		ctx;
			gpo_status	st;
			size_t		bytes = 0;
			int64		count = 0;

			gpuops_one_chunk_vector(&maskv, &maskc, GPO_UINT8, mask, NULL, n);
			gpuops_agg_ctx_init(s, &ctx);
			st = gpo_filter(&ctx, te->ncols, vecs, te->fprog[f], te->fnprog[f],
							&maskv, &count, NULL, &bytes);
			if (st == GPO_OK)
				st = gpo_filter(&ctx, te->ncols, vecs, te->fprog[f],
								te->fnprog[f], &maskv, &count,
								gpuops_alloc_scratch(bytes), NULL);
			gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg FILTER");
			fbits[f] = gpuops_agg_mask_bits(mask, n);
		}
		valid = palloc_extended((n + 7) / 8 + 1, MCXT_ALLOC_HUGE);
		for (i = 0; i < (n + 7) / 8; i++)
			valid[i] = fbits[f][i] &
				(chunks[v].validity ? chunks[v].validity[i] : 0xFF);
		chunks[v].validity = valid;
	}
	return vals;
}

/*
 * Without GROUP BY the batch is one group: a row-parallel segmented
 * reduction over the single segment [0, n) of every value column (or of no
 * column, for count(*) alone) is cheaper than grouping by a constant key.
 */
static void
gpuops_agg_batch_one_group(GpuopsAggScanState *s, GpuopsAggTableExec *te,
						   gpo_vector *vecs, int64 n)
{
	GpuopsAggSpec *spec = &s->spec;
	gpo_agg_out *vals = palloc0(sizeof(gpo_agg_out) * Max(spec->nvals, 1));
	int64		offsets[2] = {0, n};
	int64		rows = n;
	gpo_vector *valvecs;
	gpo_vector	offv;
	gpo_chunk	offc;
	int			v;

	gpuops_one_chunk_vector(&offv, &offc, GPO_INT64, offsets, NULL, 2);
	valvecs = gpuops_agg_value_vectors(s, te, vecs, n);
	for (v = 0; v < spec->nvals; v++)
	{
		gpo_vector *values = &valvecs[v];
		gpo_ctx		ctx;
		gpo_status	st;
		size_t		bytes = 0;

		gpuops_agg_out_alloc(&vals[v], 1, GPO_INT32, values->type, true);
		gpuops_agg_ctx_init(s, &ctx);
		st = gpo_segreduce(&ctx, values, &offv, 1, &vals[v], NULL, &bytes);
		if (st == GPO_OK)
			st = gpo_segreduce(&ctx, values, &offv, 1, &vals[v],
							   gpuops_alloc_scratch(bytes), NULL);
		gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg reduction");
	}
	gpuops_aggstate_merge(&s->groups, 1, NULL, NULL, &rows, vals);
}

/* Memory-context reset callback: frees the engine's key packing. */
static void
gpuops_agg_free_pack(void *arg)
{
	gpo_keypack_free((gpo_keypack *) arg);
}

/*
 * Ties the engine's (malloc'd) key packing to the current memory context,
 * the batch's: it is freed when the batch ends, and also when an error or a
 * cancel unwinds the query before that.
 */
static void
gpuops_agg_free_with_batch(gpo_keypack *pack)
{
	MemoryContextCallback *cb = palloc(sizeof(MemoryContextCallback));

	cb->func = gpuops_agg_free_pack;
	cb->arg = pack;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, cb);
}

/*
 * Whether a batch of n rows goes to a helper thread: gpuops.overlap is on,
 * or auto and the GPU face will take its group aggregation.
 */
bool
gpuops_agg_overlaps(int64 n)
{
	if (gpuops_overlap == GPUOPS_OVERLAP_ON)
		return true;
	if (gpuops_overlap == GPUOPS_OVERLAP_OFF ||
		(gpuops_device == GPO_DEVICE_AUTO && n < gpuops_gpu_min_rows))
		return false;
	return gpuops_agg_gpu_possible();
}

/*
 * Aggregates one batch of n rows (vecs: one per reader column, in the
 * batch's memory context) and merges it; under gpuops.overlap the group
 * aggregation runs on a helper thread and the merge waits for
 * gpuops_agg_batch_finish.
 */
void
gpuops_agg_batch(GpuopsAggScanState *s, GpuopsAggTableExec *te,
				 gpo_vector *vecs, int64 n, bool null_key_out)
{
	GpuopsAggSpec *spec = &s->spec;
	GpuopsAggPending *p;
	gpo_agg_out *outs;
	gpo_ctx		ctx;
	int64		cap;
	int			k;
	int			v;

	Assert(s->pending == NULL);
	/* one key per row */
	if (spec->nkeys == 0)
	{
		gpuops_agg_batch_one_group(s, te, vecs, n);
		return;
	}
	p = palloc0(sizeof(GpuopsAggPending));
	p->null_key_out = null_key_out;
	if (spec->nkeys == 1)
		p->keyv = vecs[te->key_col[0]];
	else
	{
		gpo_vector	kv[GPUOPS_AGG_MAX_KEYS];
		gpo_chunk  *keyc = palloc(sizeof(gpo_chunk));
		gpo_status	st;

		for (k = 0; k < spec->nkeys; k++)
			kv[k] = vecs[te->key_col[k]];
		gpuops_one_chunk_vector(&p->keyv, keyc, GPO_INT64,
								palloc_extended(sizeof(int64) * n, MCXT_ALLOC_HUGE),
								NULL, n);
		gpuops_agg_ctx_init(s, &ctx);
		st = gpo_keypack_build(&ctx, spec->nkeys, kv, &p->keyv, &p->pack);
		gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg key packing");
	}
	p->valvecs = gpuops_agg_value_vectors(s, te, vecs, n);

	/*
	 * The running groups take it, or its groups are formed and merged.  A
	 * packing goes with the batch, unless it starts the runs, which then
	 * keep it (and free it, on an error too).
	 */
	if (!null_key_out && !s->runs_off)
	{
		bool		may_keep = s->runs == NULL || s->runs[0] == NULL;
		bool		pack_kept = false;
		bool		taken;

		if (p->pack != NULL && !may_keep)
			gpuops_agg_free_with_batch(p->pack);
		taken = gpuops_agg_runs_take(s, &p->keyv, p->pack, p->valvecs,
									 &pack_kept);
		if (p->pack != NULL && may_keep && !pack_kept)
			gpuops_agg_free_with_batch(p->pack);
		if (taken)
			return;
	}
	else if (p->pack != NULL)
		gpuops_agg_free_with_batch(p->pack);

	/* the groups, with every value column's aggregates */
	cap = Min(n, Max((int64) 1024, (int64) (2 * spec->est_groups)));
	outs = palloc0(sizeof(gpo_agg_out) * Max(spec->nvals, 1));
	for (v = 0; v < Max(spec->nvals, 1); v++)
		gpuops_agg_out_alloc(&outs[v], cap, p->keyv.type,
							 spec->nvals > 0 ? p->valvecs[v].type : GPO_INT32,
							 v == 0);
	gpuops_agg_ctx_init(s, &ctx);
	p->job = gpuops_agg_job_create(&p->keyv, p->valvecs, spec->nvals,
								   (int64) spec->est_groups,
								   (gpo_agg_strategy) gpuops_agg_strategy,
								   &ctx, outs);
	s->pending = p;
	if (s->overlap && gpuops_agg_overlaps(n))
		gpuops_agg_job_start(p->job);
	else
	{
		gpuops_agg_job_run(p->job);
		gpuops_agg_batch_finish(s);
	}
}

/*
 * The groups of the pending batch's job, in its outputs: the job's own
 * when every call fit, else formed again here with outputs that grow.
 */
static int64
gpuops_agg_pending_groups(GpuopsAggScanState *s, GpuopsAggPending *p)
{
	GpuopsAggJob *job = p->job;
	int			nvals = s->spec.nvals;
	int64		ngroups;
	int			v;

	if (job->st == GPO_ERR_CAPACITY)
	{
		/* more groups than cap: again, with outputs sized by the engine */
		ngroups = gpuops_agg_group(s, &p->keyv,
								   nvals > 0 ? &p->valvecs[0] : NULL,
								   &job->outs[0], true);
		for (v = 1; v < nvals; v++)
		{
			gpuops_agg_out_alloc(&job->outs[v], ngroups, p->keyv.type,
								 p->valvecs[v].type, false);
			if (gpuops_agg_group(s, &p->keyv, &p->valvecs[v], &job->outs[v],
								 false) != ngroups)
				elog(ERROR, "GpuOpsAgg: value columns disagree on the groups");
		}
		return ngroups;
	}
	for (v = 0; v < job->calls; v++)
		gpuops_agg_checked(s, v == job->calls - 1 ? job->st : GPO_OK,
						   &job->ctx[v], "GpuOpsAgg group aggregation");
	if ((int) job->used[0] >= 0 && (int) job->used[0] < 4)
		s->strategy_batches[job->used[0]]++;
	ngroups = job->ngroups[0];
	for (v = 1; v < nvals; v++)
		if (job->ngroups[v] != ngroups)
			elog(ERROR, "GpuOpsAgg: value columns disagree on the groups");
	return ngroups;
}

/* Waits for the pending batch's groups, if any, and merges them. */
void
gpuops_agg_batch_finish(GpuopsAggScanState *s)
{
	GpuopsAggPending *p = s->pending;
	int64		ngroups;

	if (p == NULL)
		return;
	s->pending = NULL;
	gpuops_agg_job_wait(p->job);
	ngroups = gpuops_agg_pending_groups(s, p);

	gpuops_agg_merge_outs(s, ngroups, p->keyv.type, p->pack, p->job->outs,
						  p->null_key_out);
}

/* Converts groups into key codes and merges them (see gpuops_agg_exec.h). */
void
gpuops_agg_merge_outs(GpuopsAggScanState *s, int64 ngroups, gpo_type ktype,
					  const gpo_keypack *pack, gpo_agg_out *outs,
					  bool null_key_out)
{
	GpuopsAggSpec *spec = &s->spec;
	gpo_agg_out *first = &outs[0];
	uint64	   *codes[GPUOPS_AGG_MAX_KEYS];
	uint8	   *valid[GPUOPS_AGG_MAX_KEYS];
	int64		g;
	int			k;
	instr_time	start;
	instr_time	end;

	INSTR_TIME_SET_CURRENT(start);
	/* the rows the WHERE removed: the NULL group, which comes last */
	if (null_key_out && ngroups > 0 && !first->key_valid[ngroups - 1])
		ngroups--;

	/* the groups' keys as key codes, in the running state's form */
	for (k = 0; k < spec->nkeys; k++)
	{
		codes[k] = palloc_extended(sizeof(uint64) * Max(ngroups, 1), MCXT_ALLOC_HUGE);
		valid[k] = palloc_extended(Max(ngroups, 1), MCXT_ALLOC_HUGE);
	}
	if (spec->nkeys == 1)
	{
		size_t		w = gpo_type_size(ktype);

		for (g = 0; g < ngroups; g++)
		{
			valid[0][g] = first->key_valid[g];
			codes[0][g] = first->key_valid[g] ?
				gpo_key_code(ktype, (const char *) first->keys + w * g) : 0;
		}
	}
	else
	{
		void	   *values[GPUOPS_AGG_MAX_KEYS];

		for (k = 0; k < spec->nkeys; k++)
			values[k] = palloc_extended(8 * Max(ngroups, 1), MCXT_ALLOC_HUGE);
		gpo_keypack_decode(pack, ngroups, (const int64_t *) first->keys,
						   values, valid);
		for (k = 0; k < spec->nkeys; k++)
		{
			gpo_type	t = s->groups.key_types[k];
			size_t		w = gpo_type_size(t);

			for (g = 0; g < ngroups; g++)
				codes[k][g] = valid[k][g] ?
					gpo_key_code(t, (const char *) values[k] + w * g) : 0;
		}
	}
	gpuops_aggstate_merge(&s->groups, ngroups, codes, valid, first->rows,
						  outs);
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_SUBTRACT(end, start);
	s->merge_ms += INSTR_TIME_GET_MILLISEC(end);
}
