/*
 * agg_bound.c
 *	  Top-N bounds (plan/agg_bound.c): once every group is in, the node
 *	  finds the N-th largest (or smallest) count among its groups and emits
 *	  only the groups whose count reaches it, ties included; the Sort and
 *	  Limit above keep the first N of those.  Only groups held in memory
 *	  are bounded: spilled groups, and groups that count(DISTINCT) folds,
 *	  all come out as before.
 */
#include "aggnode/exec/gpuops_agg_exec.h"

/* The count that orders the groups, of group g of st. */
static int64
gpuops_bound_count(const GpuopsAggScanState *s, const GpuopsAggState *st,
				   int64 g)
{
	const GpuopsAggCol *agg = &s->spec.aggs[s->bound_agg];

	if (agg->kind == GPUOPS_AGG_COUNT_STAR)
		return st->rows[g];
	return st->vals[agg->valcol].count[g];
}

/* Sifts heap[i] down in a heap of n counts, the worst kept first. */
static void
gpuops_bound_sift(int64 *heap, int n, int i, bool desc)
{
	for (;;)
	{
		int			l = 2 * i + 1;
		int			worst = i;
		int64		t;

		if (l < n && (desc ? heap[l] < heap[worst] : heap[l] > heap[worst]))
			worst = l;
		if (l + 1 < n && (desc ? heap[l + 1] < heap[worst] : heap[l + 1] > heap[worst]))
			worst = l + 1;
		if (worst == i)
			return;
		t = heap[i];
		heap[i] = heap[worst];
		heap[worst] = t;
		i = worst;
	}
}

/*
 * Sets up the bound of s's plan, if it has one and its groups are in
 * memory: the N-th best count of the groups (a heap of the N best).
 */
void
gpuops_agg_bound_set(GpuopsAggScanState *s, CustomScan *cscan)
{
	List	   *bound = (List *) list_nth(cscan->custom_private, PRIV_BOUND);
	GpuopsAggState *st = &s->groups;
	int64	   *heap;
	int			n;
	int64		g;

	s->bounded = false;
	if (bound == NIL || gpuops_aggstate_spilled(st) ||
		s->spec.nkeys_out < s->spec.nkeys)
		return;
	n = linitial_int(bound);
	s->bound_agg = lsecond_int(bound);
	s->bound_desc = lthird_int(bound) != 0;
	if (n <= 0 || st->ngroups <= n || s->bound_agg < 0 ||
		s->bound_agg >= s->spec.naggs)
		return;
	heap = palloc(sizeof(int64) * n);
	for (g = 0; g < n; g++)
		heap[g] = gpuops_bound_count(s, st, g);
	for (g = n / 2 - 1; g >= 0; g--)
		gpuops_bound_sift(heap, n, (int) g, s->bound_desc);
	for (g = n; g < st->ngroups; g++)
	{
		int64		c = gpuops_bound_count(s, st, g);

		if (s->bound_desc ? c > heap[0] : c < heap[0])
		{
			heap[0] = c;
			gpuops_bound_sift(heap, n, 0, s->bound_desc);
		}
	}
	s->bound_count = heap[0];
	s->bounded = true;
	pfree(heap);
}

/* True if group g of st may be among the first N (see the file header). */
bool
gpuops_agg_bound_keeps(const GpuopsAggScanState *s, const GpuopsAggState *st,
					   int64 g)
{
	int64		c;

	if (!s->bounded)
		return true;
	c = gpuops_bound_count(s, st, g);
	return s->bound_desc ? c >= s->bound_count : c <= s->bound_count;
}
