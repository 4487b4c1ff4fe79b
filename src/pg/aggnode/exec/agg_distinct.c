/*
 * agg_distinct.c
 *	  count(DISTINCT x) as one more grouping key: the engine groups the rows
 *	  by the query's keys and x (x last), and the groups come out in key
 *	  order, so those of one group of the query's keys are adjacent.  Here
 *	  they fold back into it: every other aggregate combines as batches do
 *	  (counts and sums add, min/max, m2 by Chan), and count(DISTINCT x)
 *	  counts the folded groups whose x is not NULL (with a FILTER, those
 *	  where some row passed it).  Spilled groups fold as they are read back.
 */
#include "aggnode/exec/gpuops_agg_exec.h"

/* The folding of the engine's groups into the query's. */
typedef struct GpuopsAggFold
{
	GpuopsAggState st;			/* one group of the query's keys */
	int64	   *distinct;		/* [naggs]: count(DISTINCT) so far */
	const GpuopsAggState *next; /* the engine group read ahead, or NULL */
	int64		next_g;
	bool		started;		/* some engine group was asked for */
	bool		done;			/* the engine's groups are all out */
} GpuopsAggFold;

/* The folding state, made in the query's memory at the first group. */
static GpuopsAggFold *
gpuops_agg_fold_get(GpuopsAggScanState *s)
{
	MemoryContext old;
	GpuopsAggFold *f;

	if (s->fold != NULL)
		return s->fold;
	old = MemoryContextSwitchTo(s->css.ss.ps.state->es_query_cxt);
	f = palloc0(sizeof(GpuopsAggFold));
	gpuops_aggstate_init(&f->st, s->spec.nkeys_out, s->groups.key_types,
						 s->groups.nvals, s->groups.val_types);
	gpuops_aggstate_reserve(&f->st, 1);
	f->distinct = palloc0(sizeof(int64) * Max(s->spec.naggs, 1));
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

/* Folds engine group g of src into f's group, counting its x. */
static void
gpuops_agg_fold_add(GpuopsAggScanState *s, GpuopsAggFold *f,
					const GpuopsAggState *src, int64 g)
{
	int			a;

	gpuops_aggstate_put(&f->st, src, g);
	if (!src->key_valid[s->spec.nkeys_out][g])
		return;					/* x is NULL: not counted */
	for (a = 0; a < s->spec.naggs; a++)
	{
		const GpuopsAggCol *agg = &s->spec.aggs[a];

		if (agg->kind == GPUOPS_AGG_COUNT_DISTINCT &&
			(agg->valcol < 0 || src->vals[agg->valcol].count[g] > 0))
			f->distinct[a]++;
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
		if (s->spec.aggs[a].kind == GPUOPS_AGG_COUNT_DISTINCT)
		{
			slot->tts_values[s->spec.nkeys_out + a] = Int64GetDatum(f->distinct[a]);
			slot->tts_isnull[s->spec.nkeys_out + a] = false;
		}
	return true;
}
