/*
 * groupagg_call.c
 *	  A batch's group aggregation as the node and the GPU service both make
 *	  it: the engine's two-phase gpo_groupagg_many call.
 */
#include "common/gpuops.h"

/*
 * One gpo_groupagg_many call (its sizing call, then the run) for every
 * value column of a batch (nvals columns, or rows only when 0) into outs
 * ([max(nvals, 1)]): the keys are grouped once for all; each output's
 * request is what its arrays ask for.  No PostgreSQL call (any thread).
 */
gpo_status
gpuops_groupagg_many_call(gpo_ctx *ctx, const gpo_vector *keys,
						  const gpo_vector *values, int nvals,
						  int64 est_groups, gpo_agg_strategy *strategy,
						  gpo_agg_out *outs, int64 *ngroups)
{
	gpo_agg_req reqs[GPO_AGG_MAX_REQS];
	size_t		bytes = 0;
	char		scratch;
	gpo_agg_strategy want = *strategy;
	gpo_status	st;
	int			v;

	if (nvals > GPO_AGG_MAX_REQS)
		return GPO_ERR_INVALID;
	for (v = 0; v < nvals; v++)
		reqs[v] = gpo_agg_req_of_out(&values[v], &outs[v]);
	st = gpo_groupagg_many(ctx, keys, nvals, reqs, est_groups, strategy, outs,
						   ngroups, NULL, &bytes);
	*strategy = want;
	if (st == GPO_OK)
		st = gpo_groupagg_many(ctx, keys, nvals, reqs, est_groups, strategy,
							   outs, ngroups, &scratch, NULL);
	return st;
}
