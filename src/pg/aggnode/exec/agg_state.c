/*
 * agg_state.c
 *	  The groups of a GpuOpsAgg scan, merged chunk by chunk (agg_state_result.c
 *	  turns them into scan tuples with PostgreSQL's result types).
 *
 * Every chunk's groups arrive sorted by key (the engine's order: key codes,
 * NULL after every value of a key, keys compared left to right), so the
 * running groups are one sorted run and a chunk merges into it in one pass,
 * combining equal keys: rows, counts and exact 128-bit sums add, float sums
 * (of the finite values) add in float64, the flags of non-finite values OR
 * together, m2 combines by Chan's formula (as float8_combine does), min and
 * max keep the extreme in PostgreSQL's order.
 * Past gpuops.max_group_memory the groups go to disk as sorted runs
 * (agg_spill.c), merged back in key order as the groups come out.
 */
#include "aggnode/gpuops_agg.h"

/* Empty running state for nkeys keys and nvals value columns. */
void
gpuops_aggstate_init(GpuopsAggState *st, int nkeys, const gpo_type *key_types,
					 int nvals, const gpo_type *val_types)
{
	memset(st, 0, sizeof(*st));
	st->cxt = CurrentMemoryContext;
	st->nkeys = nkeys;
	memcpy(st->key_types, key_types, sizeof(gpo_type) * nkeys);
	st->nvals = nvals;
	st->val_types = palloc(sizeof(gpo_type) * Max(nvals, 1));
	memcpy(st->val_types, val_types, sizeof(gpo_type) * nvals);
	st->vals = palloc0(sizeof(gpo_agg_out) * Max(nvals, 1));
	/* groups by key spill past gpuops.max_group_memory (agg_spill.c) */
	if (nkeys > 0)
		st->limit_bytes = (Size) gpuops_max_group_memory * 1024;
}

/* Frees one set of group arrays of st's shape and leaves their pointers NULL. */
static void
gpuops_aggstate_free_set(const GpuopsAggState *st, uint64 **codes,
						 uint8 **valid, int64 **rows, gpo_agg_out *vals)
{
	int			k;
	int			v;

	for (k = 0; k < st->nkeys; k++)
	{
		if (codes[k])
			pfree(codes[k]);
		if (valid[k])
			pfree(valid[k]);
		codes[k] = NULL;
		valid[k] = NULL;
	}
	if (*rows)
		pfree(*rows);
	*rows = NULL;
	for (v = 0; vals != NULL && v < st->nvals; v++)
	{
		if (vals[v].count)
		{
			pfree(vals[v].count);
			pfree(vals[v].isum);
			pfree(vals[v].fsum);
			pfree(vals[v].min);
			pfree(vals[v].max);
			pfree(vals[v].fflags);
			pfree(vals[v].m2);
		}
		memset(&vals[v], 0, sizeof(gpo_agg_out));
	}
}

/* Frees the arrays the merges keep for the next one (see gpuops_agg.h). */
void
gpuops_aggstate_drop_spare(GpuopsAggState *st)
{
	gpuops_aggstate_free_set(st, st->spare_codes, st->spare_valid,
							 &st->spare_rows, st->spare_vals);
	st->spare_capacity = 0;
}

/* Frees the state's group arrays (and spare ones) and leaves their pointers NULL. */
static void
gpuops_aggstate_free_arrays(GpuopsAggState *st)
{
	gpuops_aggstate_free_set(st, st->key_codes, st->key_valid, &st->rows,
							 st->vals);
	gpuops_aggstate_drop_spare(st);
}

/* Compare running group a with chunk group b: <0, 0, >0 in the engine's key order. */
static int
gpuops_aggstate_cmp(const GpuopsAggState *st, int64 a,
					uint64 *const *codes, uint8 *const *valid, int64 b)
{
	int			k;

	for (k = 0; k < st->nkeys; k++)
	{
		bool		va = st->key_valid[k][a] != 0;
		bool		vb = valid[k][b] != 0;

		if (va != vb)
			return va ? -1 : 1;
		if (va)
		{
			uint64		ca = st->key_codes[k][a];
			uint64		cb = codes[k][b];

			if (ca != cb)
				return ca < cb ? -1 : 1;
		}
	}
	return 0;
}

/* Arrays for capacity groups of the running state's shape. */
static void
gpuops_aggstate_alloc(const GpuopsAggState *st, int64 capacity,
					  uint64 **codes, uint8 **valid, int64 **rows,
					  gpo_agg_out *vals)
{
	int			k;
	int			v;
	Size		n = (Size) Max(capacity, 1);
	MemoryContext old = MemoryContextSwitchTo(st->cxt);

	for (k = 0; k < st->nkeys; k++)
	{
		codes[k] = palloc_extended(sizeof(uint64) * n, MCXT_ALLOC_HUGE);
		valid[k] = palloc_extended(n, MCXT_ALLOC_HUGE);
	}
	*rows = palloc_extended(sizeof(int64) * n, MCXT_ALLOC_HUGE);
	for (v = 0; v < st->nvals; v++)
	{
		size_t		w = gpo_type_size(st->val_types[v]);

		memset(&vals[v], 0, sizeof(gpo_agg_out));
		vals[v].capacity = capacity;
		vals[v].count = palloc_extended(sizeof(int64) * n, MCXT_ALLOC_HUGE);
		vals[v].isum = palloc_extended(sizeof(gpo_int128) * n, MCXT_ALLOC_HUGE);
		vals[v].fsum = palloc_extended(sizeof(double) * n, MCXT_ALLOC_HUGE);
		vals[v].min = palloc_extended(w * n, MCXT_ALLOC_HUGE);
		vals[v].max = palloc_extended(w * n, MCXT_ALLOC_HUGE);
		vals[v].fflags = palloc_extended(n, MCXT_ALLOC_HUGE);
		vals[v].m2 = palloc_extended(sizeof(double) * n, MCXT_ALLOC_HUGE);
	}
	MemoryContextSwitchTo(old);
}

/* Copies value aggregates of entry i of src to entry j of dst. */
static inline void
gpuops_aggstate_copy_val(gpo_type type, gpo_agg_out *dst, int64 j,
						 const gpo_agg_out *src, int64 i)
{
	size_t		w = gpo_type_size(type);

	dst->count[j] = src->count[i];
	dst->isum[j] = src->isum[i];
	dst->fsum[j] = src->fsum[i];
	dst->fflags[j] = src->fflags ? src->fflags[i] : 0;
	dst->m2[j] = src->m2 ? src->m2[i] : 0.0;
	memcpy((char *) dst->min + w * j, (const char *) src->min + w * i, w);
	memcpy((char *) dst->max + w * j, (const char *) src->max + w * i, w);
}

/* Adds entry i of src into entry j of dst (same key). */
static inline void
gpuops_aggstate_combine_val(gpo_type type, gpo_agg_out *dst, int64 j,
							const gpo_agg_out *src, int64 i)
{
	size_t		w = gpo_type_size(type);
	char	   *dmin = (char *) dst->min + w * j;
	char	   *dmax = (char *) dst->max + w * j;
	const char *smin = (const char *) src->min + w * i;
	const char *smax = (const char *) src->max + w * i;
	uint64		lo;

	if (src->count[i] == 0)
		return;
	if (dst->count[j] == 0)
	{
		gpuops_aggstate_copy_val(type, dst, j, src, i);
		return;
	}
	/* m2 by Chan's formula, before the counts and sums move */
	dst->m2[j] = gpo_m2_merged(dst->m2[j], dst->fsum[j], dst->count[j],
							   src->m2 ? src->m2[i] : 0.0, src->fsum[i],
							   src->count[i]);
	dst->count[j] += src->count[i];
	lo = dst->isum[j].lo + src->isum[i].lo;
	dst->isum[j].hi += src->isum[i].hi + (lo < dst->isum[j].lo ? 1 : 0);
	dst->isum[j].lo = lo;
	dst->fsum[j] += src->fsum[i];
	dst->fflags[j] |= src->fflags ? src->fflags[i] : 0;
	if (gpo_value_code(type, smin) < gpo_value_code(type, dmin))
		memcpy(dmin, smin, w);
	if (gpo_value_code(type, smax) > gpo_value_code(type, dmax))
		memcpy(dmax, smax, w);
}

/* Arrays (value columns' structs copied from vals) become the state's own. */
static void
gpuops_aggstate_set_arrays(GpuopsAggState *st, uint64 *const *codes,
						   uint8 *const *valid, int64 *rows,
						   const gpo_agg_out *vals)
{
	int			k;
	int			v;

	for (k = 0; k < st->nkeys; k++)
	{
		st->key_codes[k] = codes[k];
		st->key_valid[k] = valid[k];
	}
	st->rows = rows;
	for (v = 0; v < st->nvals; v++)
		st->vals[v] = vals[v];
}

/* The state's old arrays go; new ones (nvals pfree'd) become its own. */
static void
gpuops_aggstate_adopt(GpuopsAggState *st, uint64 **codes, uint8 **valid,
					  int64 *nrows, gpo_agg_out *nvals)
{
	gpuops_aggstate_free_arrays(st);
	gpuops_aggstate_set_arrays(st, codes, valid, nrows, nvals);
	pfree(nvals);
}

/*
 * A merge's destination arrays for need groups (their room into *cap): the
 * spare ones the last merge left where they have the room, else new ones
 * with half as much room again (pages not written take no memory).  A
 * merge into new arrays every batch faulted in a state's worth of pages
 * every time.  Returns the value columns' array (the state's spare_vals
 * when it is the spare).
 */
static gpo_agg_out *
gpuops_aggstate_destination(GpuopsAggState *st, int64 need, uint64 **codes,
							uint8 **valid, int64 **rows, int64 *cap)
{
	int			k;

	if (st->spare_rows != NULL && st->spare_capacity >= need)
	{
		for (k = 0; k < st->nkeys; k++)
		{
			codes[k] = st->spare_codes[k];
			valid[k] = st->spare_valid[k];
			st->spare_codes[k] = NULL;
			st->spare_valid[k] = NULL;
		}
		*rows = st->spare_rows;
		st->spare_rows = NULL;
		*cap = st->spare_capacity;
		st->spare_capacity = 0;
		return st->spare_vals;
	}
	gpuops_aggstate_drop_spare(st);
	if (st->spare_vals == NULL)
		st->spare_vals = MemoryContextAllocZero(st->cxt,
												sizeof(gpo_agg_out) * Max(st->nvals, 1));
	*cap = st->ngroups == 0 ? need : need + need / 2;
	gpuops_aggstate_alloc(st, *cap, codes, valid, rows, st->spare_vals);
	return st->spare_vals;
}

/*
 * The merged arrays become the state's, and the state's old ones (of room
 * st->capacity) the spare; nvals is the spare_vals array, whose entries
 * trade places with the state's.
 */
static void
gpuops_aggstate_swap(GpuopsAggState *st, uint64 **codes, uint8 **valid,
					 int64 *nrows, gpo_agg_out *nvals)
{
	int			k;
	int			v;

	Assert(nvals == st->spare_vals && st->spare_rows == NULL);
	for (k = 0; k < st->nkeys; k++)
	{
		st->spare_codes[k] = st->key_codes[k];
		st->spare_valid[k] = st->key_valid[k];
		st->key_codes[k] = codes[k];
		st->key_valid[k] = valid[k];
	}
	st->spare_rows = st->rows;
	st->rows = nrows;
	st->spare_capacity = st->spare_rows != NULL ? st->capacity : 0;
	for (v = 0; v < st->nvals; v++)
	{
		gpo_agg_out t = st->vals[v];

		st->vals[v] = nvals[v];
		nvals[v] = t;
	}
}

/*
 * Merge one chunk's groups (sorted by key; n entries): key codes and
 * validity per key, rows, and per value column the engine's results, in
 * memory (agg_spill.c's gpuops_aggspill_merge heeds the limit).
 */
void
gpuops_aggstate_merge(GpuopsAggState *st, int64 n, uint64 *const *key_codes,
					  uint8 *const *key_valid, const int64 *rows,
					  const gpo_agg_out *vals)
{
	uint64	   *codes[GPUOPS_AGG_MAX_KEYS];
	uint8	   *valid[GPUOPS_AGG_MAX_KEYS];
	int64	   *nrows;
	gpo_agg_out *nvals;
	int64		cap;
	int64		a = 0;
	int64		b = 0;
	int64		out = 0;
	int			k;
	int			v;

	if (n == 0)
		return;
	nvals = gpuops_aggstate_destination(st, st->ngroups + n, codes, valid,
										&nrows, &cap);
	if (st->ngroups == 0)
	{
		/* into no groups: a copy */
		for (k = 0; k < st->nkeys; k++)
		{
			memcpy(codes[k], key_codes[k], sizeof(uint64) * n);
			memcpy(valid[k], key_valid[k], n);
		}
		memcpy(nrows, rows, sizeof(int64) * n);
		for (v = 0; v < st->nvals; v++)
		{
			size_t		w = gpo_type_size(st->val_types[v]);

			memcpy(nvals[v].count, vals[v].count, sizeof(int64) * n);
			memcpy(nvals[v].isum, vals[v].isum, sizeof(gpo_int128) * n);
			memcpy(nvals[v].fsum, vals[v].fsum, sizeof(double) * n);
			memcpy(nvals[v].min, vals[v].min, w * n);
			memcpy(nvals[v].max, vals[v].max, w * n);
			if (vals[v].fflags)
				memcpy(nvals[v].fflags, vals[v].fflags, n);
			else
				memset(nvals[v].fflags, 0, n);
			if (vals[v].m2)
				memcpy(nvals[v].m2, vals[v].m2, sizeof(double) * n);
			else
				memset(nvals[v].m2, 0, sizeof(double) * n);
		}
		a = 0;
		b = n;
		out = n;
	}
	while (a < st->ngroups || b < n)
	{
		int			c;

		if (a == st->ngroups)
			c = 1;
		else if (b == n)
			c = -1;
		else
			c = gpuops_aggstate_cmp(st, a, key_codes, key_valid, b);

		if (c <= 0)
		{
			for (k = 0; k < st->nkeys; k++)
			{
				codes[k][out] = st->key_codes[k][a];
				valid[k][out] = st->key_valid[k][a];
			}
			nrows[out] = st->rows[a];
			for (v = 0; v < st->nvals; v++)
				gpuops_aggstate_copy_val(st->val_types[v], &nvals[v], out,
										 &st->vals[v], a);
			if (c == 0)
			{
				nrows[out] += rows[b];
				for (v = 0; v < st->nvals; v++)
					gpuops_aggstate_combine_val(st->val_types[v], &nvals[v],
												out, &vals[v], b);
				b++;
			}
			a++;
		}
		else
		{
			for (k = 0; k < st->nkeys; k++)
			{
				codes[k][out] = key_codes[k][b];
				valid[k][out] = key_valid[k][b];
			}
			nrows[out] = rows[b];
			for (v = 0; v < st->nvals; v++)
				gpuops_aggstate_copy_val(st->val_types[v], &nvals[v], out,
										 &vals[v], b);
			b++;
		}
		out++;
	}

	gpuops_aggstate_swap(st, codes, valid, nrows, nvals);
	st->ngroups = out;
	st->capacity = cap;
}

/*
 * Combines the neighbours with equal keys of p's first n groups (sorted by
 * key) into the first of each, moving the others up (gpuops_aggstate_put
 * into p itself); returns the groups left.
 */
int64
gpuops_aggstate_fold_equal(GpuopsAggState *p, int64 n)
{
	int64		g;

	p->ngroups = 0;
	for (g = 0; g < n; g++)
		gpuops_aggstate_put(p, p, g);
	return p->ngroups;
}

/* Bytes one group takes in the running state's arrays. */
Size
gpuops_aggstate_group_bytes(const GpuopsAggState *st)
{
	Size		bytes = (sizeof(uint64) + 1) * st->nkeys + sizeof(int64);
	int			v;

	for (v = 0; v < st->nvals; v++)
		bytes += sizeof(int64) + sizeof(gpo_int128) + 2 * sizeof(double) + 1 +
			2 * gpo_type_size(st->val_types[v]);
	return bytes;
}

/* Arrays for capacity groups in an empty state (a buffer of groups). */
void
gpuops_aggstate_reserve(GpuopsAggState *st, int64 capacity)
{
	Assert(st->ngroups == 0 && st->rows == NULL);
	gpuops_aggstate_alloc(st, capacity, st->key_codes, st->key_valid,
						  &st->rows, st->vals);
	st->capacity = capacity;
}

/* Takes a chunk's arrays as an empty state's own (see gpuops_agg.h). */
bool
gpuops_aggstate_take(GpuopsAggState *st, int64 n, uint64 *const *key_codes,
					 uint8 *const *key_valid, int64 *rows,
					 const gpo_agg_out *vals)
{
	int			v;

	if (st->ngroups != 0 || st->rows != NULL || n <= 0)
		return false;
	for (v = 0; v < st->nvals; v++)
		if (vals[v].fflags == NULL || vals[v].capacity < n)
			return false;
	gpuops_aggstate_set_arrays(st, key_codes, key_valid, rows, vals);
	for (v = 0; v < st->nvals; v++)
	{
		/* the state keeps an m2 for every value column (zero unasked) */
		if (st->vals[v].m2 == NULL)
			st->vals[v].m2 =
				MemoryContextAllocExtended(st->cxt, sizeof(double) * n,
										   MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	}
	st->ngroups = n;
	st->capacity = n;
	return true;
}

/* Frees the state's arrays: no groups, no capacity. */
void
gpuops_aggstate_clear(GpuopsAggState *st)
{
	gpuops_aggstate_free_arrays(st);
	st->ngroups = 0;
	st->capacity = 0;
}

/* Copies n value aggregates of src from entry i to dst's from entry j. */
static void
gpuops_aggstate_copy_vals(gpo_type type, gpo_agg_out *dst, int64 j,
						  const gpo_agg_out *src, int64 i, int64 n)
{
	size_t		w = gpo_type_size(type);

	memcpy(dst->count + j, src->count + i, sizeof(int64) * n);
	memcpy(dst->isum + j, src->isum + i, sizeof(gpo_int128) * n);
	memcpy(dst->fsum + j, src->fsum + i, sizeof(double) * n);
	memcpy((char *) dst->min + w * j, (const char *) src->min + w * i, w * n);
	memcpy((char *) dst->max + w * j, (const char *) src->max + w * i, w * n);
	if (src->fflags)
		memcpy(dst->fflags + j, src->fflags + i, n);
	else
		memset(dst->fflags + j, 0, n);
	if (src->m2)
		memcpy(dst->m2 + j, src->m2 + i, sizeof(double) * n);
	else
		memset(dst->m2 + j, 0, sizeof(double) * n);
}

/*
 * Appends n groups (key codes and validity per key, rows, the engine's
 * results) after st's, its arrays doubled as they fill; st's groups are
 * then in no order (agg_parallel.c sorts and combines the workers'
 * pieces it gathers so before it merges them).
 */
void
gpuops_aggstate_append(GpuopsAggState *st, int64 n, uint64 *const *key_codes,
					   uint8 *const *key_valid, const int64 *rows,
					   const gpo_agg_out *vals)
{
	int64		at = st->ngroups;
	int			k;
	int			v;

	if (n <= 0)
		return;
	if (at + n > st->capacity)
	{
		uint64	   *codes[GPUOPS_AGG_MAX_KEYS];
		uint8	   *valid[GPUOPS_AGG_MAX_KEYS];
		int64	   *nrows;
		gpo_agg_out *nvals = palloc0(sizeof(gpo_agg_out) * Max(st->nvals, 1));
		int64		cap = Max(at + n, 2 * st->capacity);

		gpuops_aggstate_alloc(st, cap, codes, valid, &nrows, nvals);
		for (k = 0; k < st->nkeys; k++)
		{
			memcpy(codes[k], st->key_codes[k], sizeof(uint64) * at);
			memcpy(valid[k], st->key_valid[k], at);
		}
		if (at > 0)
			memcpy(nrows, st->rows, sizeof(int64) * at);
		for (v = 0; v < st->nvals && at > 0; v++)
			gpuops_aggstate_copy_vals(st->val_types[v], &nvals[v], 0,
									  &st->vals[v], 0, at);
		gpuops_aggstate_adopt(st, codes, valid, nrows, nvals);
		st->capacity = cap;
	}
	for (k = 0; k < st->nkeys; k++)
	{
		memcpy(st->key_codes[k] + at, key_codes[k], sizeof(uint64) * n);
		memcpy(st->key_valid[k] + at, key_valid[k], n);
	}
	memcpy(st->rows + at, rows, sizeof(int64) * n);
	for (v = 0; v < st->nvals; v++)
		gpuops_aggstate_copy_vals(st->val_types[v], &st->vals[v], at,
								  &vals[v], 0, n);
	st->ngroups = at + n;
}

/* Compares group i of a with group j of b in the engine's key order. */
int
gpuops_aggstate_cmp_groups(const GpuopsAggState *a, int64 i,
						   const GpuopsAggState *b, int64 j)
{
	return gpuops_aggstate_cmp(a, i, b->key_codes, b->key_valid, j);
}

/*
 * Adds group i of src to dst, whose groups precede it in key order: into
 * dst's last group when the keys are equal, else as a new last group
 * (dst has the room; dst may be src, with its groups up to i).
 */
void
gpuops_aggstate_put(GpuopsAggState *dst, const GpuopsAggState *src, int64 i)
{
	int64		j = dst->ngroups - 1;
	int			k;
	int			v;

	if (j >= 0 && gpuops_aggstate_cmp(dst, j, src->key_codes, src->key_valid,
									  i) == 0)
	{
		dst->rows[j] += src->rows[i];
		for (v = 0; v < dst->nvals; v++)
			gpuops_aggstate_combine_val(dst->val_types[v], &dst->vals[v], j,
										&src->vals[v], i);
		return;
	}
	j = dst->ngroups++;
	Assert(j < dst->capacity);
	if (dst == src && j == i)
		return;					/* (gpuops_aggstate_fold_equal) in place */
	for (k = 0; k < dst->nkeys; k++)
	{
		dst->key_codes[k][j] = src->key_codes[k][i];
		dst->key_valid[k][j] = src->key_valid[k][i];
	}
	dst->rows[j] = src->rows[i];
	for (v = 0; v < dst->nvals; v++)
		gpuops_aggstate_copy_val(dst->val_types[v], &dst->vals[v], j,
								 &src->vals[v], i);
}
