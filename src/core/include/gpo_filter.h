/*
 * gpo_filter.h
 *	  WHERE-clause predicates on the device: a small postfix program of
 *	  comparisons with constants, IS [NOT] NULL tests, AND/OR/NOT and
 *	  constants, evaluated over column vectors into a keep mask.
 *
 * Plain C11 (also compiles as C++ and under nvcc); never includes
 * postgres.h.  Same conventions as gpo.h: gpo_filter checks its arguments
 * once for both faces, answers the two-phase scratch query (scratch == NULL:
 * store the host scratch bytes in *scratch_bytes and return GPO_OK), then
 * runs gpo_filter_cpu (OpenMP) or gpo_filter_gpu (CUDA).  Both faces write
 * identical masks and counts.
 *
 * Semantics are PostgreSQL's, with SQL three-valued logic:
 *	- integer columns (INT32, INT64, UINT32, UINT8) compare their value
 *	  widened to int64 with ival, exactly;
 *	- float columns compare their value (FLOAT32 widened to double, as
 *	  PostgreSQL's float48 operators do; a float4 constant is passed widened
 *	  too, which compares exactly as float4 operators do) with fval in
 *	  PostgreSQL's float order: every NaN equals every NaN and is greater
 *	  than every other value, +Inf included; -0.0 equals 0.0;
 *	- a NULL row (validity bit clear) or a NULL constant makes CMP NULL;
 *	  NULLTEST is never NULL;
 *	- AND is FALSE if any argument is FALSE, else NULL if any is NULL, else
 *	  TRUE; OR is TRUE if any is TRUE, else NULL if any is NULL, else FALSE;
 *	  NOT NULL is NULL.
 */
#ifndef GPO_FILTER_H
#define GPO_FILTER_H

#include "gpo.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* Deepest evaluation stack a program may need (the GPU keeps it per thread). */
#define GPO_FILTER_MAX_DEPTH	32

/* A node of a predicate program in postfix order. */
typedef enum gpo_pred_kind
{
	GPO_PRED_CMP = 0,			/* columns[column] op constant */
	GPO_PRED_NULLTEST,			/* columns[column] IS NULL (IS NOT NULL when
								 * is_not) */
	GPO_PRED_AND,				/* pops nargs results (nargs >= 2), pushes
								 * their AND */
	GPO_PRED_OR,				/* pops nargs results (nargs >= 2), pushes
								 * their OR */
	GPO_PRED_NOT,				/* pops one, pushes its NOT */
	GPO_PRED_CONST				/* pushes TRUE, FALSE or NULL (const_null) */
} gpo_pred_kind;

/* Comparison operators of CMP: column op constant. */
typedef enum gpo_cmp_op
{
	GPO_CMP_EQ = 0,
	GPO_CMP_NE,
	GPO_CMP_LT,
	GPO_CMP_LE,
	GPO_CMP_GT,
	GPO_CMP_GE
} gpo_cmp_op;

/* One program node; fields a kind does not use are ignored. */
typedef struct gpo_pred
{
	gpo_pred_kind kind;
	gpo_cmp_op	op;				/* CMP */
	int32_t		column;			/* CMP, NULLTEST: index into columns[] */
	int32_t		nargs;			/* AND, OR */
	bool		is_not;			/* NULLTEST */
	bool		const_null;		/* CMP: the constant is NULL (the result is
								 * NULL); CONST: push NULL */
	bool		const_bool;		/* CONST: the value pushed when not
								 * const_null */
	int64_t		ival;			/* CMP constant of integer columns */
	double		fval;			/* CMP constant of float columns */
} gpo_pred;

/*
 * Evaluates prog[0 .. nnodes-1] for every row of the ncols columns and
 * writes mask (UINT8, caller-owned): 1 where the program yields TRUE, 0
 * where it yields FALSE or NULL.  The columns must have equal row counts,
 * and those rows are the rows evaluated; with ncols == 0 (a program of
 * constants only) the rows are the mask's capacity.  The columns and the
 * mask may be partitioned independently.  The mask's capacity must cover
 * the rows; capacity past them is left untouched, and the mask's validity
 * bitmaps, if any, get every written row marked valid.  *count (count may
 * be NULL) receives the number of 1s.
 *
 * GPO_ERR_INVALID (ctx->detail says why) for: prog NULL or empty, an
 * unknown kind or operator, a stack underflow, AND/OR with nargs < 2, a
 * final stack depth other than 1, a stack deeper than GPO_FILTER_MAX_DEPTH,
 * a column index out of range, a bad column vector, columns of different
 * row counts, a mask that is not UINT8 or is too small.
 */
extern gpo_status gpo_filter(gpo_ctx *ctx, int ncols,
							 const gpo_vector *columns, const gpo_pred *prog,
							 int nnodes, gpo_vector *mask, int64_t *count,
							 void *scratch, size_t *scratch_bytes);
/* The CPU face; scratch may be NULL (then it allocates its own). */
extern gpo_status gpo_filter_cpu(gpo_ctx *ctx, int ncols,
								 const gpo_vector *columns,
								 const gpo_pred *prog, int nnodes,
								 gpo_vector *mask, int64_t *count,
								 void *scratch);
/* The GPU face (GPO_ERR_NO_DEVICE in a build without CUDA). */
extern gpo_status gpo_filter_gpu(gpo_ctx *ctx, int ncols,
								 const gpo_vector *columns,
								 const gpo_pred *prog, int nnodes,
								 gpo_vector *mask, int64_t *count);

/*
 * Checks a program alone against ncols columns (for planning); on success
 * stores the deepest stack it needs in *depth (depth may be NULL).
 */
extern gpo_status gpo_filter_check_program(gpo_ctx *ctx, int ncols,
										   const gpo_pred *prog, int nnodes,
										   int *depth);
/* Checks all of gpo_filter's arguments (shared by both faces). */
extern gpo_status gpo_filter_check(gpo_ctx *ctx, int ncols,
								   const gpo_vector *columns,
								   const gpo_pred *prog, int nnodes,
								   const gpo_vector *mask);
/* Rows gpo_filter evaluates for these (checked) arguments. */
extern int64_t gpo_filter_rows(int ncols, const gpo_vector *columns,
							   const gpo_vector *mask);

#ifdef __cplusplus
}
#endif

#endif							/* GPO_FILTER_H */
