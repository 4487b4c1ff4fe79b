/*
 * agg_policy_plain.c
 *	  GpuOpsAgg's grouping policy without GROUP BY: every batch is one group,
 *	  and a row-parallel segmented reduction over the single segment [0, n)
 *	  of every value column (or of no column, for count(*) alone) is cheaper
 *	  than grouping by a constant key.  The batch's group merges into the
 *	  node's one group at once: nothing is ever in flight.
 */
#include "aggnode/exec/agg_policy.h"

/* Reduces the batch to one group and merges it. */
static bool
gpuops_agg_plain_add(GpuopsAggPolicy *p, GpuopsAggTableExec *te,
					 gpo_vector *vecs, int64 n, bool null_key_out)
{
	GpuopsAggScanState *s = p->s;
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

		gpuops_agg_out_alloc(&vals[v], 1, GPO_INT32, values->type, true,
							 gpuops_agg_val_m2(spec, v));
		gpuops_agg_ctx_init(s, &ctx);
		st = gpo_segreduce(&ctx, values, &offv, 1, &vals[v], NULL, &bytes);
		if (st == GPO_OK)
			st = gpo_segreduce(&ctx, values, &offv, 1, &vals[v],
							   gpuops_alloc_scratch(bytes), NULL);
		gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg reduction");
	}
	gpuops_aggspill_merge(&s->groups, 1, NULL, NULL, &rows, vals);
	return false;
}

/* Nothing to do: the plain policy holds nothing of its own. */
static void
gpuops_agg_plain_nothing(GpuopsAggPolicy *p)
{
}

/* No properties of its own. */
static void
gpuops_agg_plain_explain(GpuopsAggPolicy *p, ExplainState *es)
{
}

static const GpuopsAggPolicyFuncs gpuops_agg_plain_funcs = {
	.name = "plain",
	.add_batch = gpuops_agg_plain_add,
	.settle = gpuops_agg_plain_nothing,
	.finish = gpuops_agg_plain_nothing,
	.explain = gpuops_agg_plain_explain,
	.reset = gpuops_agg_plain_nothing,
	.destroy = gpuops_agg_plain_nothing,
};

/* The policy of a node without GROUP BY, in the current memory context. */
GpuopsAggPolicy *
gpuops_agg_policy_plain_create(GpuopsAggScanState *s)
{
	GpuopsAggPolicy *p = palloc0(sizeof(GpuopsAggPolicy));

	p->funcs = &gpuops_agg_plain_funcs;
	p->s = s;
	return p;
}
