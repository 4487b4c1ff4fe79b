/*
 * gpo_expr_loops.h
 *	  The column-at-a-time run's branch-free loops (expr_loops.c): integer
 *	  and float +, - and *, column loads, results and their stores, for
 *	  expr_columns.c and expr.c.
 */
#ifndef GPO_EXPR_LOOPS_H
#define GPO_EXPR_LOOPS_H

#include "gpo_expr_eval.h"

/* Whether op is an integer, float or numeric +, - or *. */
extern bool gpo_expr_arith_op(int op);

/*
 * Runs node p (gpo_expr_arith_op) over len rows where mask is set: slots a
 * (the left operand, then the result) and an, the right operand from
 * slots b and bn, or the constant c (not NULL) where b is NULL, as
 * gpo_x_iarith, gpo_x_farith and gpo_x_narith compute them; rev (b NULL):
 * c is the left operand, the slots a the right one (`1 - x`).  Returns the
 * first erroring row (len if none), its gpo_xerr in *code.
 */
extern int64_t gpo_expr_arith_columns(const gpo_xnode *p, int64_t len,
									  const uint8_t *mask, gpo_xval *a,
									  bool *an, const gpo_xval *b,
									  const bool *bn, gpo_xval c, bool rev,
									  int *code);

/*
 * Loads column c's len rows into slots v and NULL flags nul, as gpo_x_load
 * would row by row; false (nothing done) for a type it leaves to it.
 */
extern bool gpo_expr_loops_load(const gpo_xcol *c, int64_t len, gpo_xval *v,
								bool *nul);

/*
 * The results of len rows from the bottom slot (v0, n0): NULL (value 0)
 * where the mask is clear or the slot is NULL.
 */
extern void gpo_expr_loops_result(const uint8_t *mask, const gpo_xval *v0,
								  const bool *n0, int64_t len, gpo_xval *res,
								  bool *res_null);

/*
 * Stores n results into out as gpo_x_store would (an INT64 or FLOAT64
 * output); false (nothing done) for another type.
 */
extern bool gpo_expr_loops_store(int type, void *out, const gpo_xval *res,
								 const bool *nul, int64_t n);

#endif							/* GPO_EXPR_LOOPS_H */
