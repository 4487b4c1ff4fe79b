/*
 * resident_gpu_stub.c
 *	  The kept sets' GPU face in a build without CUDA: it answers
 *	  GPO_ERR_NO_DEVICE.  Compiled only when nvcc is absent or CUDA=0.
 */
#include "gpo_internal.h"
#include "gpo_resident_internal.h"

/* Text every stub face reports. */
static const char no_cuda[] = "built without CUDA";

/* Put GPU face: unavailable in this build. */
gpo_status
gpo_resident_put_gpu(gpo_ctx *ctx, const gpo_vector *cols, gpo_resident *set)
{
	(void) cols;
	(void) set;
	if (ctx != NULL)
		gpo_set_detail(ctx, "%s", no_cuda);
	return GPO_ERR_NO_DEVICE;
}

/* No GPU set exists in this build: nothing to free. */
void
gpo_resident_free_gpu(gpo_resident *set)
{
	(void) set;
}

/* Aggregation GPU face: unavailable in this build. */
gpo_status
gpo_resident_groupagg_gpu(gpo_ctx *ctx, int nsets, gpo_resident *const *sets,
						  const gpo_resident_query *q,
						  gpo_agg_strategy *strategy, gpo_agg_out *outs,
						  int64_t *ngroups)
{
	(void) nsets;
	(void) sets;
	(void) q;
	(void) strategy;
	(void) outs;
	(void) ngroups;
	if (ctx != NULL)
		gpo_set_detail(ctx, "%s", no_cuda);
	return GPO_ERR_NO_DEVICE;
}
