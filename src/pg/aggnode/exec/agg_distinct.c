/*
 * agg_distinct.c
 *	  count(DISTINCT x), min(x) and max(x) of text as more grouping keys:
 *	  the engine groups the rows by the query's keys and each such x
 *	  (count(DISTINCT x)'s first, gpuops_agg_fold_args), and the groups
 *	  come out in key order, so those of one group of the query's keys are
 *	  adjacent, and within them those of one value of the first x.  Here
 *	  they fold back into it: every other aggregate combines as batches do
 *	  (counts and sums add, min/max, m2 by Chan), and count(DISTINCT x)
 *	  counts the values of x, not NULL, that the folded groups change to
 *	  (with a FILTER, among the groups where some row passed it).  min(x)
 *	  and max(x) of a text x keep the least and the greatest of those x by
 *	  the aggregate's collation, as text_smaller and text_larger compare.
 *	  Spilled groups fold as they are read back.
 */
#include "aggnode/exec/gpuops_agg_exec.h"

#include <math.h>

#include "utils/varlena.h"

/* The folding of the engine's groups into the query's. */
typedef struct GpuopsAggFold
{
	GpuopsAggState st;			/* one group of the query's keys */
	int64	   *distinct;		/* [naggs]: count(DISTINCT) so far */
	uint64	   *last;			/* [naggs]: count(DISTINCT): the x code
								 * counted last */
	int64	   *best;			/* [naggs]: min or max of text so far, the
								 * x key's decoded value */
	bool	   *has_best;		/* [naggs]: best or last is set */
	int32	  **rank;			/* [naggs]: each code's place among the x
								 * dictionary's strings by the aggregate's
								 * collation, or NULL */
	const GpuopsAggState *next; /* the engine group read ahead, or NULL */
	int64		next_g;
	bool		started;		/* some engine group was asked for */
	bool		done;			/* the engine's groups are all out */
} GpuopsAggFold;

/* What gpuops_agg_rank_cmp sorts by: a dictionary and a collation. */
typedef struct GpuopsRankSort
{
	const GpuopsTextDict *dict;
	Oid			collation;
} GpuopsRankSort;

/* qsort_arg comparator: two codes by their strings under the collation. */
static int
gpuops_agg_rank_cmp(const void *a, const void *b, void *arg)
{
	GpuopsRankSort *rs = (GpuopsRankSort *) arg;
	gpo_str		x = gpuops_dict_string(rs->dict, *(const int32 *) a);
	gpo_str		y = gpuops_dict_string(rs->dict, *(const int32 *) b);

	return varstr_cmp(x.data, x.len, y.data, y.len, rs->collation);
}

/*
 * Each code's place among the strings of the x key's dictionary by
 * aggregate a's collation, where sorting the dictionary costs fewer string
 * comparisons than one for each group the engine is expected to fold; else
 * NULL (the fold compares strings).  A collation other than C compares
 * with strcoll, which can cost a microsecond: a few thousand titles sorted
 * once beat a million comparisons in the fold.  Deterministic collations
 * only, so no two codes tie.
 */
static int32 *
gpuops_agg_fold_rank(GpuopsAggScanState *s, int a)
{
	const GpuopsTextDict *d = s->spec.key_dicts[s->spec.aggs[a].xkey];
	int64		n;
	double		groups;
	int32	   *order;
	int32	   *rank;
	GpuopsRankSort rs;
	int64		i;

	if (d == NULL)
		return NULL;
	n = gpuops_dict_count(d);
	groups = Max(s->spec.est_groups, (double) s->groups.ngroups);
	if (n <= 1 || n >= PG_INT32_MAX ||
		(double) n * log2((double) n) >= groups)
		return NULL;
	order = palloc(sizeof(int32) * n);
	for (i = 0; i < n; i++)
		order[i] = (int32) i;
	rs.dict = d;
	rs.collation = s->spec.aggs[a].collation;
	qsort_arg(order, n, sizeof(int32), gpuops_agg_rank_cmp, &rs);
	rank = palloc(sizeof(int32) * n);
	for (i = 0; i < n; i++)
		rank[order[i]] = (int32) i;
	pfree(order);
	return rank;
}

/* The folding state, made in the query's memory at the first group. */
static GpuopsAggFold *
gpuops_agg_fold_get(GpuopsAggScanState *s)
{
	MemoryContext old;
	GpuopsAggFold *f;
	int			a;

	if (s->fold != NULL)
		return s->fold;
	old = MemoryContextSwitchTo(s->css.ss.ps.state->es_query_cxt);
	f = palloc0(sizeof(GpuopsAggFold));
	gpuops_aggstate_init(&f->st, s->spec.nkeys_out, s->groups.key_types,
						 s->groups.nvals, s->groups.val_types);
	gpuops_aggstate_reserve(&f->st, 1);
	f->distinct = palloc0(sizeof(int64) * Max(s->spec.naggs, 1));
	f->last = palloc0(sizeof(uint64) * Max(s->spec.naggs, 1));
	f->best = palloc0(sizeof(int64) * Max(s->spec.naggs, 1));
	f->has_best = palloc0(sizeof(bool) * Max(s->spec.naggs, 1));
	f->rank = palloc0(sizeof(int32 *) * Max(s->spec.naggs, 1));
	/* the scan is over, so the x key's dictionary is whole */
	for (a = 0; a < s->spec.naggs; a++)
	{
		int			b;

		if (s->spec.aggs[a].kind != GPUOPS_AGG_MIN_KEY &&
			s->spec.aggs[a].kind != GPUOPS_AGG_MAX_KEY)
			continue;
		/* min(x) and max(x) of one x and collation share the ranks */
		for (b = 0; b < a; b++)
			if (f->rank[b] != NULL &&
				s->spec.aggs[b].xkey == s->spec.aggs[a].xkey &&
				s->spec.aggs[b].collation == s->spec.aggs[a].collation)
				f->rank[a] = f->rank[b];
		if (f->rank[a] == NULL)
			f->rank[a] = gpuops_agg_fold_rank(s, a);
	}
	MemoryContextSwitchTo(old);
	s->fold = f;
	return f;
}

/* Reads the engine's next group ahead into f; false when none is left. */
static bool
gpuops_agg_fold_read(GpuopsAggScanState *s, GpuopsAggFold *f)
{
	f->started = true;
	if (!f->done && !gpuops_agg_next_engine_group(s, &f->next, &f->next_g))
	{
		f->next = NULL;
		f->done = true;
	}
	return !f->done;
}

/*
 * Extra key k's string for its decoded value buf: from its dictionary, or
 * (a short text key) as a new Datum left in *tofree.
 */
static gpo_str
gpuops_agg_fold_string(GpuopsAggScanState *s, int k, const int64 *buf,
					   Datum *tofree)
{
	gpo_str		str;
	Datum		d;

	*tofree = (Datum) 0;
	if (s->spec.key_dicts[k] != NULL)
		return gpuops_dict_string(s->spec.key_dicts[k], *(const int32 *) buf);
	d = gpuops_aggstate_key_value(&s->spec, k, s->groups.key_types[k], buf);
	*tofree = d;
	str.data = VARDATA_ANY(DatumGetPointer(d));
	str.len = VARSIZE_ANY_EXHDR(DatumGetPointer(d));
	return str;
}

/* Keeps x (decoded value buf) as min or max aggregate a if it is beyond. */
static void
gpuops_agg_fold_minmax(GpuopsAggScanState *s, GpuopsAggFold *f, int a,
					   const int64 *buf)
{
	const GpuopsAggCol *agg = &s->spec.aggs[a];
	Datum		free1;
	Datum		free2;
	gpo_str		x;
	gpo_str		cur;
	int			c;

	if (!f->has_best[a])
	{
		f->best[a] = *buf;
		f->has_best[a] = true;
		return;
	}
	if (f->rank[a] != NULL)
	{
		int32		rx = f->rank[a][*(const int32 *) buf];
		int32		rb = f->rank[a][*(const int32 *) &f->best[a]];

		if (agg->kind == GPUOPS_AGG_MIN_KEY ? rx < rb : rx > rb)
			f->best[a] = *buf;
		return;
	}
	x = gpuops_agg_fold_string(s, agg->xkey, buf, &free1);
	cur = gpuops_agg_fold_string(s, agg->xkey, &f->best[a], &free2);
	c = varstr_cmp(x.data, x.len, cur.data, cur.len, agg->collation);
	if (agg->kind == GPUOPS_AGG_MIN_KEY ? c < 0 : c > 0)
		f->best[a] = *buf;
	if (free1 != (Datum) 0)
		pfree(DatumGetPointer(free1));
	if (free2 != (Datum) 0)
		pfree(DatumGetPointer(free2));
}

/* Folds engine group g of src into f's group, counting its x. */
static void
gpuops_agg_fold_add(GpuopsAggScanState *s, GpuopsAggFold *f,
					const GpuopsAggState *src, int64 g)
{
	int			a;

	gpuops_aggstate_put(&f->st, src, g);
	for (a = 0; a < s->spec.naggs; a++)
	{
		const GpuopsAggCol *agg = &s->spec.aggs[a];
		int			k = agg->xkey;
		uint64		code;
		int64		buf = 0;

		if (!GPUOPS_AGG_IS_FOLDED(agg->kind) || !src->key_valid[k][g] ||
			(agg->valcol >= 0 && src->vals[agg->valcol].count[g] == 0))
			continue;			/* another aggregate, x NULL, or no row passed
								 * FILTER */
		code = src->key_codes[k][g];
		if (agg->kind == GPUOPS_AGG_COUNT_DISTINCT)
		{
			/* x is the first extra key: its groups are adjacent */
			if (!f->has_best[a] || f->last[a] != code)
				f->distinct[a]++;
			f->last[a] = code;
			f->has_best[a] = true;
			continue;
		}
		gpo_code_decode(src->key_types[k], code, &buf);
		gpuops_agg_fold_minmax(s, f, a, &buf);
	}
}

/* The next group of the query's keys into slot's values; false at the end. */
bool
gpuops_agg_next_folded(GpuopsAggScanState *s, TupleTableSlot *slot)
{
	GpuopsAggFold *f = gpuops_agg_fold_get(s);
	bool		first = !f->started;
	int			a;

	if (f->next == NULL && !gpuops_agg_fold_read(s, f))
	{
		/* without GROUP BY, no rows still make one row */
		if (first && s->spec.nkeys_out == 0)
		{
			gpuops_agg_empty_row(s, slot);
			return true;
		}
		return false;
	}
	f->st.ngroups = 0;
	memset(f->distinct, 0, sizeof(int64) * Max(s->spec.naggs, 1));
	memset(f->has_best, 0, sizeof(bool) * Max(s->spec.naggs, 1));
	do
	{
		if (f->st.ngroups > 0 &&
			gpuops_aggstate_cmp_groups(&f->st, 0, f->next, f->next_g) != 0)
			break;				/* the next group of the query's keys */
		gpuops_agg_fold_add(s, f, f->next, f->next_g);
		f->next = NULL;
	} while (gpuops_agg_fold_read(s, f));

	gpuops_aggstate_tuple(&f->st, &s->spec, 0, slot->tts_values,
						  slot->tts_isnull);
	for (a = 0; a < s->spec.naggs; a++)
	{
		int			out = s->spec.nkeys_out + a;

		if (s->spec.aggs[a].kind == GPUOPS_AGG_COUNT_DISTINCT)
		{
			slot->tts_values[out] = Int64GetDatum(f->distinct[a]);
			slot->tts_isnull[out] = false;
		}
		else if (GPUOPS_AGG_IS_FOLDED(s->spec.aggs[a].kind) && f->has_best[a])
		{
			int			k = s->spec.aggs[a].xkey;

			slot->tts_values[out] = gpuops_aggstate_key_value(&s->spec, k,
															  s->groups.key_types[k],
															  &f->best[a]);
			slot->tts_isnull[out] = false;
		}
	}
	return true;
}
