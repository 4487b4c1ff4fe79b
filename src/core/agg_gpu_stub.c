/*
 * agg_gpu_stub.c
 *	  GPU faces of the aggregation primitives for a build without CUDA.
 *
 * These are weak definitions: in a CUDA build the strong ones in
 * kernels/{sort,segreduce,groupagg}.cu replace them at link time, so this
 * file is compiled in every build.
 */
#include "gpo_agg_internal.h"
#include "gpo_agg_run.h"

/* Text every stub face reports. */
static const char no_cuda[] = "built without CUDA";

/* Sort GPU face: unavailable in this build. */
__attribute__((weak)) gpo_status
gpo_sort_pairs_gpu(gpo_ctx *ctx, const gpo_vector *keys, gpo_vector *keys_out,
				   gpo_vector *rows_out)
{
	(void) keys;
	(void) keys_out;
	(void) rows_out;
	if (ctx != NULL)
		gpo_set_detail(ctx, "%s", no_cuda);
	return GPO_ERR_NO_DEVICE;
}

/* Segmented reduction GPU face: unavailable in this build. */
__attribute__((weak)) gpo_status
gpo_segreduce_gpu(gpo_ctx *ctx, const gpo_vector *values,
				  const gpo_vector *offsets, int64_t nsegs, gpo_agg_out *out)
{
	(void) values;
	(void) offsets;
	(void) nsegs;
	(void) out;
	if (ctx != NULL)
		gpo_set_detail(ctx, "%s", no_cuda);
	return GPO_ERR_NO_DEVICE;
}

/* Group aggregation GPU face: unavailable in this build. */
__attribute__((weak)) gpo_status
gpo_groupagg_many_gpu(gpo_ctx *ctx, const gpo_vector *keys, int nreqs,
					  const gpo_agg_req *reqs, int64_t est_groups,
					  gpo_agg_strategy *strategy, gpo_agg_out *outs,
					  int64_t *ngroups)
{
	(void) keys;
	(void) nreqs;
	(void) reqs;
	(void) est_groups;
	(void) strategy;
	(void) outs;
	(void) ngroups;
	if (ctx != NULL)
		gpo_set_detail(ctx, "%s", no_cuda);
	return GPO_ERR_NO_DEVICE;
}

/* Running dense aggregation GPU face: unavailable in this build. */
__attribute__((weak)) gpo_status
gpo_groupagg_run_add_gpu(gpo_ctx *ctx, gpo_agg_run *run,
						 const gpo_vector *keys, const gpo_vector *values,
						 int64_t est_groups, gpo_agg_strategy want,
						 const gpo_agg_out *want_out, bool *added)
{
	(void) run;
	(void) keys;
	(void) values;
	(void) est_groups;
	(void) want;
	(void) want_out;
	*added = false;
	if (ctx != NULL)
		gpo_set_detail(ctx, "%s", no_cuda);
	return GPO_ERR_NO_DEVICE;
}

/* Running dense aggregation GPU face: unavailable in this build. */
__attribute__((weak)) gpo_status
gpo_groupagg_run_finish_gpu(gpo_ctx *ctx, gpo_agg_run *run, gpo_agg_out *out,
							int64_t *ngroups)
{
	(void) run;
	(void) out;
	(void) ngroups;
	if (ctx != NULL)
		gpo_set_detail(ctx, "%s", no_cuda);
	return GPO_ERR_NO_DEVICE;
}

/* Running dense aggregation GPU face: nothing to free in this build. */
__attribute__((weak)) void
gpo_groupagg_run_free_gpu(gpo_agg_run *run)
{
	(void) run;
}
