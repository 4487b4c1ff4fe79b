/*
 * agg_batch.c
 *	  The engine work of one GpuOpsAgg batch: the device clauses as a mask and
 *	  a compaction (gpo_filter, gpo_compact, gpo_gather; or the failing rows'
 *	  keys made NULL when that is cheaper), FILTER clauses as
 *	  validity masks, one key per row (the column itself, or gpo_keypack for
 *	  several keys), the growing group aggregation call, and the merge of a
 *	  batch's groups into the running groups (agg_state.c).  The grouping
 *	  policies (agg_policy.h) call these; nothing here calls a policy.
 *
 * Every engine call runs on the face gpuops.device selects and is counted by
 * face for EXPLAIN ANALYZE.  Everything here is palloc'd in the batch's
 * memory context, reset after the batch.
 */
#include "aggnode/exec/gpuops_agg_exec.h"

#include "port/pg_bswap.h"

#include "gpo_join.h"
#include "gpo_keypack.h"

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
 * Whether a batch whose rows pass the WHERE clause at mask, count of n, keeps
 * its failing rows with NULL keys rather than being compacted: at least half
 * pass, no star join gathers into it, and the failing rows can be told from
 * real NULL keys, because the one key is a column the reader read without a
 * NULL in the batch, or because several keys are packed into one (whose
 * validity is then the mask).  Expression keys and arguments are evaluated
 * under the mask (te->wmask), so never on a failing row.
 */
static bool
gpuops_agg_keeps_failing(GpuopsAggScanState *s, GpuopsAggTableExec *te,
						 const gpo_chunk *chunks, int64 count, int64 n)
{
	if (count * 2 < n || s->join != NULL)
		return false;
	if (s->spec.nkeys > 1)
		return true;
	return s->spec.nkeys == 1 && te->key_col[0] < te->nread &&
		chunks[te->key_col[0]].validity == NULL;
}

/*
 * Runs the device program and the WHERE expressions over the batch of *n
 * rows (the reader's columns); returns the rows that pass.  Where
 * gpuops_agg_keeps_failing says so, the failing rows stay, te->wmask is the
 * mask and *null_key_out is set: gpuops_agg_batch_keys gives those rows
 * NULL keys, they form the NULL group, which the merge drops, and no column
 * is copied.  Otherwise the passing rows of every column are
 * compacted into new buffers (chunks updated) and *n becomes their number.
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
	if (te->nprog > 0)
	{
		gpuops_agg_ctx_init(s, &ctx);
		st = gpo_filter(&ctx, te->nread, vecs, te->prog, te->nprog, &maskv,
						&count, NULL, &bytes);
		if (st == GPO_OK)
			st = gpo_filter(&ctx, te->nread, vecs, te->prog, te->nprog, &maskv,
							&count, gpuops_alloc_scratch(bytes), NULL);
		gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg filter");
	}
	else
		memset(maskc.data, 1, n);
	if (te->nwexpr > 0)
		count = gpuops_agg_where_exprs(s, te, vecs, n, (uint8 *) maskc.data);
	*null_key_out = false;
	if (count == n || count == 0)
		return count;
	if (gpuops_agg_keeps_failing(s, te, chunks, count, n))
	{
		te->wmask = (uint8 *) maskc.data;
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

	for (i = 0; i < te->nread; i++)
	{
		gpo_vector	outv = gpuops_agg_gather(s, &vecs[i], &idxv, count);

		chunks[i] = outv.chunks[0];
		vecs[i].chunks = &chunks[i];
	}
	return count;
}

/*
 * A new one-chunk vector (in the current memory context) of in's values at
 * the n rows of index (gpo_gather), with a validity bitmap where in or
 * index has one (a NULL index row: a NULL value).
 */
gpo_vector
gpuops_agg_gather(GpuopsAggScanState *s, const gpo_vector *in,
				  const gpo_vector *index, int64 n)
{
	gpo_vector	out;
	gpo_chunk  *c = palloc(sizeof(gpo_chunk));
	size_t		bytes = 0;
	gpo_status	st;
	gpo_ctx		ctx;
	bool		nulls = false;
	int			i;

	for (i = 0; i < in->nchunks; i++)
		nulls |= in->chunks[i].validity != NULL;
	for (i = 0; i < index->nchunks; i++)
		nulls |= index->chunks[i].validity != NULL;
	gpuops_one_chunk_vector(&out, c, in->type,
							palloc_extended(gpo_type_size(in->type) * Max(n, 1),
											MCXT_ALLOC_HUGE),
							nulls ? palloc_extended((n + 7) / 8 + 1,
													MCXT_ALLOC_HUGE) : NULL,
							n);
	gpuops_agg_ctx_init(s, &ctx);
	st = gpo_gather(&ctx, in, index, &out, NULL, &bytes);
	if (st == GPO_OK)
		st = gpo_gather(&ctx, in, index, &out, gpuops_alloc_scratch(bytes), NULL);
	gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg gather");
	return out;
}

/* Result arrays with room for capacity groups (m2: the m2 array too). */
void
gpuops_agg_out_alloc(gpo_agg_out *out, int64 capacity, gpo_type ktype,
					 gpo_type vtype, bool with_keys, bool m2)
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
	out->fflags = palloc_extended(n, MCXT_ALLOC_HUGE);
	if (m2)
		out->m2 = palloc_extended(sizeof(double) * n, MCXT_ALLOC_HUGE);
}

/*
 * The value columns of a batch of n rows: each aggregate argument's column,
 * or a column of zeros for count(*) FILTER, with its validity cleared where
 * the aggregate's FILTER clause does not hold (the engine then skips those
 * rows as it skips NULLs).  Each FILTER runs once per batch.
 */
gpo_vector *
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
			fbits[f] = gpuops_agg_mask_bits(gpuops_agg_filter_mask(s, te, vecs,
																   n, f), n);
		valid = palloc_extended((n + 7) / 8 + 1, MCXT_ALLOC_HUGE);
		for (i = 0; i < (n + 7) / 8; i++)
			valid[i] = fbits[f][i] &
				(chunks[v].validity ? chunks[v].validity[i] : 0xFF);
		chunks[v].validity = valid;
	}
	return vals;
}

/* Memory-context reset callback: frees a batch's key packing unless a policy keeps it. */
static void
gpuops_agg_free_pack(void *arg)
{
	GpuopsAggBatchKeys *bk = (GpuopsAggBatchKeys *) arg;

	if (!bk->pack_kept)
		gpo_keypack_free(bk->pack);
	bk->pack = NULL;
}

/*
 * One key per row of a batch of n rows (the key column, or the packing of
 * several keys) and its value columns, in the batch's memory context.  The
 * engine's (malloc'd) packing is freed when the batch's context is reset
 * (an error or a cancel included), unless a policy keeps it (pack_kept).
 */
GpuopsAggBatchKeys *
gpuops_agg_batch_keys(GpuopsAggScanState *s, GpuopsAggTableExec *te,
					  gpo_vector *vecs, int64 n, bool null_key_out)
{
	GpuopsAggSpec *spec = &s->spec;
	GpuopsAggBatchKeys *bk = palloc0(sizeof(GpuopsAggBatchKeys));
	int			k;

	bk->n = n;
	bk->null_key_out = null_key_out;
	bk->free_pack.func = gpuops_agg_free_pack;
	bk->free_pack.arg = bk;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &bk->free_pack);
	if (spec->nkeys == 1)
	{
		/* a copy of the key's one chunk, whose validity may change below */
		gpo_chunk  *keyc = palloc(sizeof(gpo_chunk));

		bk->keyv = vecs[te->key_col[0]];
		*keyc = bk->keyv.chunks[0];
		bk->keyv.chunks = keyc;
	}
	else
	{
		gpo_vector	kv[GPUOPS_AGG_MAX_KEYS];
		gpo_chunk  *keyc = palloc(sizeof(gpo_chunk));
		gpo_ctx		ctx;
		gpo_status	st;

		for (k = 0; k < spec->nkeys; k++)
			kv[k] = vecs[te->key_col[k]];
		gpuops_one_chunk_vector(&bk->keyv, keyc, GPO_INT64,
								palloc_extended(sizeof(int64) * n, MCXT_ALLOC_HUGE),
								NULL, n);
		gpuops_agg_ctx_init(s, &ctx);
		st = gpo_keypack_build(&ctx, spec->nkeys, kv, &bk->keyv, &bk->pack);
		gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg key packing");
	}
	/*
	 * the rows the WHERE removed (null_key_out): NULL keys, the one key
	 * having no NULL of its own and the packing none (gpuops_agg_filter)
	 */
	if (null_key_out)
		bk->keyv.chunks[0].validity =
			gpuops_agg_mask_bits(te->wmask, n);
	bk->valvecs = gpuops_agg_value_vectors(s, te, vecs, n);
	return bk;
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

/* Frees an output's arrays but those a running state took. */
void
gpuops_agg_out_free(gpo_agg_out *o, bool rows_taken, bool vals_taken)
{
	void	   *keys[] = {o->keys, o->key_valid};
	void	   *vals[] = {o->count, o->isum, o->fsum, o->min, o->max,
	o->fflags, o->m2};
	int			i;

	for (i = 0; i < lengthof(keys); i++)
		if (keys[i] != NULL)
			pfree(keys[i]);
	if (o->rows != NULL && !rows_taken)
		pfree(o->rows);
	for (i = 0; i < lengthof(vals) && !vals_taken; i++)
		if (vals[i] != NULL)
			pfree(vals[i]);
}

/* Converts groups into key codes and merges them (see gpuops_agg_exec.h). */
void
gpuops_agg_merge_outs(GpuopsAggScanState *s, int64 ngroups, gpo_type ktype,
					  const gpo_keypack *pack, gpo_agg_out *outs,
					  bool null_key_out)
{
	gpuops_agg_merge_outs_owned(s, ngroups, ktype, pack, outs, null_key_out,
								false);
}

/*
 * gpuops_agg_merge_outs; with owned, outs' arrays are in the running
 * state's context, and where the state holds no groups yet it keeps them
 * (and the key codes made here) instead of copying them: i_region of
 * bench/wide_queries.sql (936,566 groups in one batch) spent a third of
 * its time copying that batch's groups into new arrays, most of it in the
 * page faults of those arrays.  Owned arrays not kept are freed.
 */
void
gpuops_agg_merge_outs_owned(GpuopsAggScanState *s, int64 ngroups,
							gpo_type ktype, const gpo_keypack *pack,
							gpo_agg_out *outs, bool null_key_out, bool owned)
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
		MemoryContext cxt = owned ? s->groups.cxt : CurrentMemoryContext;

		codes[k] = MemoryContextAllocExtended(cxt, sizeof(uint64) * Max(ngroups, 1),
											  MCXT_ALLOC_HUGE);
		valid[k] = MemoryContextAllocExtended(cxt, Max(ngroups, 1), MCXT_ALLOC_HUGE);
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
	if (owned && gpuops_aggspill_take(&s->groups, ngroups, codes, valid,
									  first->rows, outs))
	{
		/* kept: the value columns' arrays and the rows; the rest goes */
		for (k = 0; k < Max(spec->nvals, 1); k++)
			gpuops_agg_out_free(&outs[k], true, k < spec->nvals);
	}
	else
	{
		gpuops_aggspill_merge(&s->groups, ngroups, codes, valid, first->rows,
							  outs);
		for (k = 0; owned && k < spec->nkeys; k++)
		{
			pfree(codes[k]);
			pfree(valid[k]);
		}
		for (k = 0; owned && k < Max(spec->nvals, 1); k++)
			gpuops_agg_out_free(&outs[k], false, false);
	}
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_SUBTRACT(end, start);
	s->merge_ms += INSTR_TIME_GET_MILLISEC(end);
}
