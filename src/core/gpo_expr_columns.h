/*
 * gpo_expr_columns.h
 *	  The CPU face's column-at-a-time run of an expression program without
 *	  jumps (expr_columns.c), for expr.c.
 */
#ifndef GPO_EXPR_COLUMNS_H
#define GPO_EXPR_COLUMNS_H

#include "gpo_expr_eval.h"

/* The stack depth prog needs if it has no jumps, else -1. */
extern int	gpo_expr_columns_depth(const gpo_xnode *prog, int nnodes);

/*
 * Runs a program without jumps over len rows (stack slots sv/sn), as
 * gpo_expr_row would row by row; the lowest erroring row, or len.
 */
extern int64_t gpo_expr_columns(const gpo_xnode *prog, int nnodes,
								const gpo_xcol *cols, const uint8_t *mask,
								int64_t len, gpo_xval *const *sv,
								bool *const *sn, gpo_xval *res,
								bool *res_null, int *code);

#endif							/* GPO_EXPR_COLUMNS_H */
