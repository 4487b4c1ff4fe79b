/*
 * expr_gpu_stub.c
 *	  The expression machine's GPU face in a build without CUDA: it answers
 *	  GPO_ERR_NO_DEVICE.  Compiled only when nvcc is absent or CUDA=0.
 */
#include "gpo_expr.h"
#include "gpo_internal.h"

/* Expression GPU face: unavailable in this build. */
gpo_status
gpo_expr_eval_gpu(gpo_ctx *ctx, int ncols, const gpo_vector *columns,
				  const gpo_xnode *prog, int nnodes, bool out_double,
				  const gpo_vector *mask, gpo_vector *out, gpo_expr_error *err)
{
	(void) ncols;
	(void) columns;
	(void) prog;
	(void) nnodes;
	(void) out_double;
	(void) mask;
	(void) out;
	(void) err;
	if (ctx != NULL)
		gpo_set_detail(ctx, "built without CUDA");
	return GPO_ERR_NO_DEVICE;
}
