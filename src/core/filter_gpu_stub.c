/*
 * filter_gpu_stub.c
 *	  The filter's GPU face in a build without CUDA: it answers
 *	  GPO_ERR_NO_DEVICE.  Compiled only when nvcc is absent or CUDA=0.
 */
#include "gpo_filter.h"
#include "gpo_internal.h"

/* Filter GPU face: unavailable in this build. */
gpo_status
gpo_filter_gpu(gpo_ctx *ctx, int ncols, const gpo_vector *columns,
			   const gpo_pred *prog, int nnodes, gpo_vector *mask,
			   int64_t *count)
{
	(void) ncols;
	(void) columns;
	(void) prog;
	(void) nnodes;
	(void) mask;
	(void) count;
	if (ctx != NULL)
		gpo_set_detail(ctx, "built without CUDA");
	return GPO_ERR_NO_DEVICE;
}
