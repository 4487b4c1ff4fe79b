/*
 * agg_expr_int.h
 *	  What the expression compiler's files share: agg_expr.c (the compiler)
 *	  and agg_expr_funcs.c (the built-in functions it knows).
 */
#ifndef GPUOPS_AGG_EXPR_INT_H
#define GPUOPS_AGG_EXPR_INT_H

#include "aggnode/gpuops_agg.h"

/* GpuopsXFunc.op of int2/int4 -> numeric: the integer is its scale-0 value. */
#define GPUOPS_XF_INT_TO_NUMERIC (-2)

/* A built-in function the device evaluates. */
typedef struct GpuopsXFunc
{
	int			op;				/* a gpo_xop; -1: its argument itself;
								 * GPUOPS_XF_INT_TO_NUMERIC */
	int			cmp;			/* a gpo_cmp_op for ICMP / FCMP */
	int			nargs;
	bool		date_arg;		/* date_pl_interval / date_mi_interval: the
								 * date becomes a timestamp first */
} GpuopsXFunc;

/*
 * The operator the device evaluates for a call of funcid with nargs
 * arguments; false if there is none.
 */
extern bool gpuops_xfunc_lookup(Oid funcid, int nargs, GpuopsXFunc *f);
/* The field of date/time operator op a constant unit names; false if none. */
extern bool gpuops_x_datetime_unit(int op, Node *units, int *field);
/* The gpo_xfield a date_part / date_trunc unit names; false if none. */
extern bool gpuops_xfunc_field(text *units, bool trunc, int *field);

/* ---- agg_expr_scale.c: the scales of numeric expressions ---- */

/* gpuops_x_scale of a NULL constant: it fits any scale. */
#define GPUOPS_X_ANY_SCALE (-2)

/*
 * A numeric constant's value * 10^(its display scale) into *scaled; returns
 * that scale, or -1 if the value is not below 10^18 that way.
 */
extern int	gpuops_x_numeric_const(Datum d, int64 *scaled);
/* The scale the compiled program holds numeric expression e at, or -1. */
extern int	gpuops_x_scale(Node *e);
/* The one scale of numeric expressions es (NULLs fit any), or -1. */
extern int	gpuops_x_same_scale(List *es);

#endif							/* GPUOPS_AGG_EXPR_INT_H */
