/*
 * expr_cuda.cuh
 *	  The expression machine's device-pointer launcher (expr.cu), for the
 *	  GPU faces that evaluate a gpo_expr program over columns already on
 *	  the device (the kept sets' computed columns, resident.cu).
 */
#ifndef EXPR_CUDA_CUH
#define EXPR_CUDA_CUH

#include <stdint.h>

#include "gpo_agg_kernels.cuh"
#include "gpo_expr_eval.h"

/*
 * Evaluates prog (nnodes nodes, checked on the host) for rows [0, n) of
 * the device columns h_cols[0 .. ncols) (a host table of device pointers,
 * validity bytes or NULL) into d_out (out_type) and d_valid (one byte a
 * row), every row (no mask); its working memory from mem.  *err gets the
 * lowest erroring row (code GPO_XERR_NONE when none); d_out is then
 * undefined.  Waits for the kernel.
 */
extern gpo_status gpo_cuda_expr_columns(gpo_ctx *ctx, const gpo_xcol *h_cols,
										int ncols, const gpo_xnode *prog,
										int nnodes, int64_t n,
										gpo_type out_type, void *d_out,
										uint8_t *d_valid, gpo_dmem *mem,
										gpo_expr_error *err);

#endif							/* EXPR_CUDA_CUH */
