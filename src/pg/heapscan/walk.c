/*
 * walk.c
 *	  The decoder's walk program: the steps that take a tuple without NULLs
 *	  from its first attribute to its last needed one.
 *
 * Walking attribute by attribute (as slot_deform_heap_tuple does) costs a
 * few nanoseconds each, and a wide table's needed columns may lie behind
 * dozens of attributes.  Here each run of fixed-width attributes that no
 * column needs becomes one step: where the run starts only decides its
 * alignment padding, and the tuple's data begin on a MAXALIGN boundary, so
 * the bytes the run spans are known in advance for each start offset
 * modulo 8.  Variable-width attributes and needed ones stay steps of their
 * own.  On the 2-core machine the walk was half of the profile of a
 * text-key query over bench/wide_queries.sql's 105-column table.
 */
#include "heapscan/gpuops_scan.h"

#include "access/tupmacs.h"

/* Bytes a run of fixed-width attributes atts lo .. hi - 1 spans from off. */
static int32
gpuops_walk_run_span(const GpuopsDecodePlan *plan, int lo, int hi, int32 off)
{
	int32		start = off;
	int			a;

	for (a = lo; a < hi; a++)
	{
		off = att_align_nominal(off, plan->attalign[a]);
		off += plan->attlen[a];
	}
	return off - start;
}

/* Fill plan's walk steps (plan->cols, attlen and attalign already set). */
void
gpuops_walk_init(GpuopsDecodePlan *plan)
{
	GpuopsWalkStep *steps = palloc0(sizeof(GpuopsWalkStep) * Max(plan->natts, 1));
	int			nsteps = 0;
	int			k = 0;
	int			att = 0;

	while (att < plan->natts)
	{
		GpuopsWalkStep *s = &steps[nsteps++];
		int			end = att;
		int			r;

		s->col = k;
		while (k < plan->ncols && plan->cols[k].attidx == att)
			k++;
		s->ncol = k - s->col;
		if (s->ncol > 0 || plan->attlen[att] <= 0)
		{
			s->len = plan->attlen[att];
			s->align = plan->attalign[att];
			att++;
			continue;
		}
		/* a run: fixed-width attributes up to the next needed or varlena one */
		while (end < plan->natts && plan->attlen[end] > 0 &&
			   (k >= plan->ncols || plan->cols[k].attidx != end))
			end++;
		s->len = 0;
		for (r = 0; r < 8; r++)
			s->span[r] = gpuops_walk_run_span(plan, att, end, r);
		att = end;
	}
	plan->steps = steps;
	plan->nsteps = nsteps;
}
