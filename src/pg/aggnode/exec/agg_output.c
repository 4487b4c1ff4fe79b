/*
 * agg_output.c
 *	  The engine's groups as they come out of the node, in key order: from
 *	  memory, or read back from a spilled state's runs; and the one row
 *	  that aggregates without GROUP BY give over no rows; sums split by
 *	  scale added up from their parts; keys that other keys determine
 *	  (agg_derived.c) computed from them.  agg_exec.c turns them into scan
 *	  tuples, agg_distinct.c folds them first.
 */
#include "aggnode/exec/gpuops_agg_exec.h"

#include "utils/fmgrprotos.h"

/*
 * The next group of a spilled state, read back in key order, as a group
 * of s->piece at s->piece_next - 1; false when all are out.
 */
static bool
gpuops_agg_next_spilled(GpuopsAggScanState *s)
{
	if (s->piece == NULL || s->piece_next >= s->piece->ngroups)
	{
		if (gpuops_aggstate_next_piece(&s->groups, &s->piece) == 0)
			return false;
		s->piece_next = 0;
	}
	s->piece_next++;
	return true;
}

/*
 * The engine's next group, spilled or not, in key order: group *g of *st;
 * false when all are out.
 */
bool
gpuops_agg_next_engine_group(GpuopsAggScanState *s, const GpuopsAggState **st,
							 int64 *g)
{
	if (gpuops_aggstate_spilled(&s->groups))
	{
		if (!gpuops_agg_next_spilled(s))
			return false;
		*st = s->piece;
		*g = s->piece_next - 1;
		return true;
	}
	/* a top-N's bound (agg_bound.c) passes over groups outside it */
	while (s->next_group < s->groups.ngroups &&
		   !gpuops_agg_bound_keeps(s, &s->groups, s->next_group))
	{
		s->next_group++;
		s->bound_skipped++;
	}
	if (s->next_group >= s->groups.ngroups)
		return false;
	*st = &s->groups;
	*g = s->next_group++;
	return true;
}

/* Aggregates without GROUP BY over no rows: the one row Agg gives. */
void
gpuops_agg_empty_row(GpuopsAggScanState *s, TupleTableSlot *slot)
{
	int			a;

	for (a = 0; a < s->spec.naggs; a++)
	{
		GpuopsAggKind kind = s->spec.aggs[a].kind;
		bool		counts = kind == GPUOPS_AGG_COUNT ||
			kind == GPUOPS_AGG_COUNT_STAR || kind == GPUOPS_AGG_COUNT_DISTINCT;

		slot->tts_values[a] = Int64GetDatum(0);
		slot->tts_isnull[a] = !counts;
		if (kind == GPUOPS_AGG_FLOAT_STATE)
		{
			/* worker_partial_agg over no rows: the initial state */
			slot->tts_values[a] = gpuops_float_state_text(0, 0.0, 0, 0.0);
			slot->tts_isnull[a] = false;
		}
	}
}

/*
 * Each sum split by scale (PRIV_SPLITS, after the aggregates in the scan
 * tuple): NULL where all its parts are, else their numeric_add, which
 * gives the sum's value and its display scale (the largest part's).
 */
void
gpuops_agg_add_splits(GpuopsAggScanState *s, TupleTableSlot *slot)
{
	int			base = s->spec.nkeys_out;
	int			out = base + s->spec.naggs;
	ListCell   *lc;

	foreach(lc, s->splits)
	{
		ListCell   *lp;
		Datum		sum = (Datum) 0;
		bool		isnull = true;

		foreach(lp, (List *) lfirst(lc))
		{
			int			a = base + lfirst_int(lp);

			if (slot->tts_isnull[a])
				continue;
			sum = isnull ? slot->tts_values[a] :
				DirectFunctionCall2(numeric_add, sum, slot->tts_values[a]);
			isnull = false;
		}
		slot->tts_values[out] = sum;
		slot->tts_isnull[out++] = isnull;
	}
}

/*
 * Each derived key (PRIV_DERIVED, after the split sums in the scan tuple)
 * of the group in slot, over its keys.  Every row evaluated it already
 * (TAB_CHECKS) where some row could make it fail, so it fails for no group.
 */
void
gpuops_agg_add_derived(GpuopsAggScanState *s, TupleTableSlot *slot)
{
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	int			out = s->spec.nkeys_out + s->spec.naggs + list_length(s->splits);
	ListCell   *lc;

	econtext->ecxt_scantuple = slot;
	foreach(lc, s->derived)
	{
		slot->tts_values[out] = ExecEvalExpr((ExprState *) lfirst(lc), econtext,
											 &slot->tts_isnull[out]);
		out++;
	}
}
