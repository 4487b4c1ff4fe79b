/*
 * agg_expr_int.h
 *	  What the expression compiler's files share: agg_expr.c (the compiler),
 *	  agg_expr_leaf.c (its leaves), agg_expr_funcs.c (the built-in functions
 *	  it knows) and agg_expr_scale.c (numeric scales).
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

/* ---- agg_expr_leaf.c: the compiler's leaves ---- */

/* The value classes of the machine's slots, by SQL type. */
typedef enum XClass
{
	XC_NONE = 0,
	XC_INT,						/* int2, int4, int8 (width 2, 4, 8) */
	XC_FLOAT,					/* float4, float8 (width 4, 8) */
	XC_BOOL,
	XC_DATE,
	XC_TS,
	XC_NUM						/* numeric: value * 10^scale, the scale
								 * known for every node (gpuops_x_scale) */
} XClass;

/* A program under construction. */
typedef struct XBuild
{
	gpo_xnode  *nodes;
	int			n;
	int			cap;
	int			depth;			/* slots on the stack after the last node */
	Index		relid;
	const int  *attno_col;		/* NULL: a column's index is its attno */
	int			max_attno;
	Node	   *case_arg;		/* the innermost CASE operand, if any */
	const GpuopsExprShared *shared; /* expressions read as columns */
	int			nshared;
} XBuild;

/* The class and width of SQL type typid. */
extern XClass gpuops_x_class(Oid typid, int *width);
/* The class of an expression's result. */
extern XClass gpuops_x_class_of(Node *e);
/* Appends a node of op changing the stack depth by delta; NULL when full. */
extern gpo_xnode *gpuops_x_push(XBuild *b, int op, int delta);
/* A plain column of the scanned table of a class the machine holds. */
extern bool gpuops_x_var(XBuild *b, Var *var);
/* A length call over a text column, read as a column (planning only). */
extern bool gpuops_x_text_length(XBuild *b, Node *e);
/* A constant of a class the machine holds. */
extern bool gpuops_x_const(XBuild *b, Const *c);
/* The arguments' classes a function's operator takes, and its result's. */
extern bool gpuops_x_func_types(const GpuopsXFunc *f, List *args, Oid restype);
/* A read of the column where an earlier program computed e (b->shared), if any. */
extern bool gpuops_x_shared(XBuild *b, Node *e);

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
