/*
 * gpo_expr.h
 *	  Scalar expressions on the device: a small postfix program with jumps,
 *	  compiled once per query from a plan's expression tree, evaluated row by
 *	  row over a batch's columns into one output column (fused: no column
 *	  per operator).
 *
 * Plain C11 (also compiles as C++ and under nvcc); never includes
 * postgres.h.  Same conventions as gpo.h: gpo_expr_eval checks its
 * arguments once for both faces, then runs gpo_expr_eval_cpu (OpenMP) or
 * gpo_expr_eval_gpu (CUDA).  Both faces write identical values, validity
 * and errors.
 *
 * The machine: every row runs the program from node 0 with its own stack of
 * at most GPO_EXPR_MAX_DEPTH slots.  A slot is a value and a NULL flag; the
 * value is an int64 (integers of every width, bool as 0/1, date as days
 * since 2000-01-01, timestamp as microseconds since 2000-01-01 00:00, a
 * scaled integer) or a double (float4 values are held as the double of a
 * float).  The compiler (the PostgreSQL layer) types every node; the
 * machine trusts those types.  Every operator is strict (a NULL argument
 * gives NULL without evaluation, so no error) unless its comment says
 * otherwise.  Jumps go forward only (target > the jump's index; a target
 * of nnodes is the end), so every program ends.
 *
 * Errors are PostgreSQL's: an operator that would raise an error in
 * PostgreSQL stops that row, and the call reports the error of the lowest
 * row that raised one (gpo_expr_error), whatever the face and the number of
 * threads; rows are not evaluated where the row mask is clear (their
 * output is NULL), as PostgreSQL does not evaluate an aggregate's argument
 * where its FILTER fails.
 */
#ifndef GPO_EXPR_H
#define GPO_EXPR_H

#include "gpo.h"
#include "gpo_filter.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* Deepest stack a program may need (the GPU keeps it per thread). */
#define GPO_EXPR_MAX_DEPTH	16
/* Most nodes a program may have. */
#define GPO_EXPR_MAX_NODES	512

/* Operators.  "w" is gpo_xnode.width: the result type's bytes (2, 4, 8). */
typedef enum gpo_xop
{
	/* ---- leaves ---- */
	GPO_X_COL = 0,				/* push columns[arg] row's value (integers
								 * and UINT8 widened to int64, FLOAT32 to
								 * double); NULL where the row is invalid */
	GPO_X_CONST,				/* push ival (int kinds) or fval (float
								 * kinds), or NULL when is_null; kind in
								 * width: 0 = int64 slot, 1 = double slot */

	/* ---- integers at width w (2, 4 or 8): PostgreSQL's int2/int4/int8 ops */
	GPO_X_IADD,					/* a + b; out of w's range: INT_RANGE */
	GPO_X_ISUB,					/* a - b */
	GPO_X_IMUL,					/* a * b */
	GPO_X_IDIV,					/* a / b truncated; b = 0: DIV_ZERO; MIN/-1:
								 * INT_RANGE */
	GPO_X_IMOD,					/* a % b (sign of a); b = 0: DIV_ZERO; x % -1
								 * = 0 */
	GPO_X_INEG,					/* -a; MIN: INT_RANGE */
	GPO_X_IABS,					/* abs(a); MIN: INT_RANGE */

	/* ---- floats at width w (4 or 8): float4/float8 ops (float48 mixes are
	 * compiled as a float4 -> float8 cast and an 8-byte op) ---- */
	GPO_X_FADD,					/* a + b; Inf from finite: FLOAT_OVERFLOW */
	GPO_X_FSUB,
	GPO_X_FMUL,					/* also 0 from nonzero: FLOAT_UNDERFLOW */
	GPO_X_FDIV,					/* b = 0 and a not NaN: DIV_ZERO; Inf from
								 * finite a: FLOAT_OVERFLOW; 0 from nonzero
								 * a and finite b: FLOAT_UNDERFLOW */
	GPO_X_FNEG,
	GPO_X_FABS,

	/* ---- comparisons: push bool; arg is a gpo_cmp_op ---- */
	GPO_X_ICMP,					/* int64 slots */
	GPO_X_FCMP,					/* double slots, PostgreSQL's float order
								 * (NaN = NaN, NaN above all, -0.0 = 0.0) */

	/* ---- casts (PostgreSQL's cast functions) ---- */
	GPO_X_I2I,					/* integer to width w: out of range:
								 * INT_RANGE (widening never fails) */
	GPO_X_I2F,					/* integer to float of width w: one rounding
								 * from int64 (float4: int64 -> float) */
	GPO_X_F2I,					/* float to integer width w: rint, then NaN
								 * or out of range: INT_RANGE */
	GPO_X_F2F,					/* float to width w: 4 from 8 rounds, Inf
								 * from finite: FLOAT_OVERFLOW, 0 from
								 * nonzero: FLOAT_UNDERFLOW; 8 from 4 exact */
	GPO_X_BOOL2I,				/* bool to int4 (0/1): identity on the slot */

	/* ---- booleans (three-valued) ---- */
	GPO_X_NOT,					/* NOT a */
	GPO_X_ISNULL,				/* not strict: a IS NULL (IS NOT NULL when
								 * ival != 0) */
	GPO_X_ISTRUE,				/* not strict: IS TRUE / IS FALSE / IS NOT
								 * TRUE / IS NOT FALSE: ival = 0, 1, 2, 3
								 * (others are rejected) */
	GPO_X_AND_STEP,				/* not strict: pops x, then the accumulator
								 * acc; x FALSE: push FALSE and jump to arg;
								 * else push NULL if acc or x is NULL, else
								 * TRUE.  AND(a, b, ...) compiles as CONST
								 * TRUE, a, AND_STEP, b, AND_STEP, ... */
	GPO_X_OR_STEP,				/* not strict: the same with TRUE and FALSE
								 * swapped; OR starts with CONST FALSE */

	/* ---- control (never strict) ---- */
	GPO_X_JUMP,					/* go to arg */
	GPO_X_JUMP_IF_NOT_TRUE,		/* pops; FALSE or NULL: go to arg */
	GPO_X_JUMP_IF_NOT_NULL,		/* top not NULL: keep it, go to arg; else pop
								 * it (COALESCE) */
	GPO_X_NULLIF,				/* pops b, a; pushes NULL if both not NULL
								 * and equal (int64 equality when width 0,
								 * float order when width 1), else a */

	/* ---- dates (int32 days) and timestamps (int64 us), w unused ---- */
	GPO_X_DATE_PLI,				/* date + int4 (date_pli); infinite dates
								 * unchanged; out of range: DATE_RANGE */
	GPO_X_DATE_MII,				/* date - int4 (date_mii) */
	GPO_X_DATE_MI,				/* date - date -> int4 (date_mi); an
								 * infinite date: DATE_INFINITE_SUB */
	GPO_X_DATE2TS,				/* date -> timestamp (date2timestamp);
								 * infinities map; out of range:
								 * DATE_TS_RANGE */
	GPO_X_TS2DATE,				/* timestamp -> date (timestamp_date) */
	GPO_X_TS_PL_INTERVAL,		/* timestamp + interval constant (months in
								 * months, days in days, microseconds in
								 * ival), as timestamp_pl_interval:
								 * infinities unchanged; out of range:
								 * TS_RANGE */
	GPO_X_TS_MI_INTERVAL,		/* timestamp - interval constant */
	GPO_X_TS_PART,				/* date_part(field arg, timestamp) ->
								 * double, as timestamp_part; infinite
								 * timestamps: +-Inf or NULL, as PostgreSQL */
	GPO_X_TS_EXTRACT,			/* extract(field arg FROM timestamp) ->
								 * int64 scaled by 10^gpo_expr_extract_scale
								 * (numeric in SQL); an infinite timestamp
								 * where PostgreSQL gives +-Infinity, or an
								 * epoch past int64 (from within 294247):
								 * UNREPRESENTABLE, NULL where it gives NULL;
								 * JULIAN is not supported */
	GPO_X_DATE_EXTRACT,			/* extract(field arg FROM date), as
								 * extract_date; same rules; DAY and the
								 * fields after it but JULIAN (PostgreSQL
								 * rejects the time fields for dates) */
	GPO_X_TS_TRUNC,				/* date_trunc(field arg, timestamp) ->
								 * timestamp, as timestamp_trunc;
								 * infinities unchanged; fields
								 * MICROSECONDS .. MILLENNIUM */

	/*
	 * ---- numerics: an int64 slot holds value * 10^scale of a numeric
	 * whose scale the compiler knows for every node (the operands of
	 * NADD, NSUB and NMUL already brought to one scale, NMUL's result at
	 * the sum of its operands' scales), and GPO_X_NUMERIC_NAN stands for
	 * NaN: an operand NaN gives NaN, as numeric's operators do (no
	 * error).  A result of 10^18 or more in magnitude, which PostgreSQL
	 * holds but the engine's numeric columns do not, is UNREPRESENTABLE.
	 * Comparisons are NCMP (NaN orders above every number and equals NaN,
	 * as in numeric). ----
	 */
	GPO_X_NADD,					/* a + b */
	GPO_X_NSUB,					/* a - b */
	GPO_X_NMUL,					/* a * b (the product of the scaled values) */
	GPO_X_NNEG,					/* -a */
	GPO_X_NABS,					/* abs(a) */
	GPO_X_NSCALE,				/* a * 10^arg (arg 1 .. 18): to a larger
								 * scale */
	GPO_X_NCMP,					/* compares a and b (pops b, a; pushes bool)
								 * of scales that differ by ival (-18 ..
								 * 18: b's scale minus a's), exactly in 128
								 * bits, so never UNREPRESENTABLE; arg is a
								 * gpo_cmp_op */
	GPO_X_OP_COUNT
} gpo_xop;

/* The int64 slot value that stands for a numeric NaN (the NADD ... ops). */
#define GPO_X_NUMERIC_NAN	INT64_MAX
/* Magnitude limit of the numeric ops' results: values below 10^18. */
#define GPO_X_NUMERIC_LIMIT	INT64_C(1000000000000000000)

/* Fields of TS_PART, TS_EXTRACT, DATE_EXTRACT and TS_TRUNC. */
typedef enum gpo_xfield
{
	GPO_XF_MICROSECONDS = 0,
	GPO_XF_MILLISECONDS,
	GPO_XF_SECOND,
	GPO_XF_MINUTE,
	GPO_XF_HOUR,
	GPO_XF_DAY,
	GPO_XF_WEEK,
	GPO_XF_MONTH,
	GPO_XF_QUARTER,
	GPO_XF_YEAR,
	GPO_XF_DECADE,
	GPO_XF_CENTURY,
	GPO_XF_MILLENNIUM,
	GPO_XF_DOW,
	GPO_XF_ISODOW,
	GPO_XF_DOY,
	GPO_XF_EPOCH,
	GPO_XF_ISOYEAR,
	GPO_XF_JULIAN,
	GPO_XF_COUNT
} gpo_xfield;

/* Why a row raised an error (the PostgreSQL layer maps each to its SQLSTATE). */
typedef enum gpo_xerr
{
	GPO_XERR_NONE = 0,
	GPO_XERR_INT2_RANGE,		/* 22003 smallint out of range */
	GPO_XERR_INT4_RANGE,		/* 22003 integer out of range */
	GPO_XERR_INT8_RANGE,		/* 22003 bigint out of range */
	GPO_XERR_DIV_ZERO,			/* 22012 division by zero */
	GPO_XERR_FLOAT_OVERFLOW,	/* 22003 value out of range: overflow */
	GPO_XERR_FLOAT_UNDERFLOW,	/* 22003 value out of range: underflow */
	GPO_XERR_DATE_RANGE,		/* 22008 date out of range */
	GPO_XERR_DATE_INFINITE_SUB, /* 22008 cannot subtract infinite dates */
	GPO_XERR_DATE_TS_RANGE,		/* 22008 date out of range for timestamp */
	GPO_XERR_TS_RANGE,			/* 22008 timestamp out of range */
	GPO_XERR_UNREPRESENTABLE	/* PostgreSQL has a value the engine can't
								 * hold (numeric Infinity) */
} gpo_xerr;

/* One program node; fields an operator does not use are ignored. */
typedef struct gpo_xnode
{
	int16_t		op;				/* a gpo_xop */
	int16_t		width;			/* result bytes (integer and float ops);
								 * CONST and NULLIF: 0 = int64, 1 = double */
	int32_t		arg;			/* COL: column; jumps, AND/OR_STEP: target
								 * node; CMP: gpo_cmp_op; date/time: field */
	int32_t		months;			/* interval constants */
	int32_t		days;
	int64_t		ival;			/* CONST (int slot), interval microseconds,
								 * ISNULL/ISTRUE variant */
	double		fval;			/* CONST (double slot) */
	bool		is_null;		/* CONST: push NULL */
} gpo_xnode;

/* The error of a call: the lowest row that raised one, and which. */
typedef struct gpo_expr_error
{
	gpo_xerr	code;			/* GPO_XERR_NONE: no row raised one */
	int64_t		row;			/* logical row */
} gpo_expr_error;

/*
 * Evaluates prog[0 .. nnodes-1] for every row of the ncols input columns
 * (equal row counts; any partition each) and writes out (caller-owned, any
 * partition, capacity covering the rows): INT32, INT64, FLOAT32 or FLOAT64
 * (an int64 slot is stored truncated to INT32's 4 bytes; a double slot to
 * FLOAT32 as the float it holds), and out's validity bitmaps (required)
 * get NULL rows cleared and every other written row set.  A NULL row's
 * value is written 0, and every NaN as the positive quiet NaN, so both
 * faces write the same bytes; capacity past the rows is left untouched.
 * mask (UINT8, may be NULL = every row) says which rows to evaluate; a row
 * whose mask byte is 0 or invalid is not evaluated and written NULL.  With
 * ncols == 0 (constants only) the rows are the mask's, or without a mask
 * out's capacity.  out_double says the program's final slot kind (true:
 * double; out must then be FLOAT32 or FLOAT64, else INT32 or INT64).
 * *err receives the lowest erroring row (code GPO_XERR_NONE and row 0
 * when none); then GPO_OK is still returned and out's rows are undefined.
 *
 * GPO_ERR_INVALID (ctx->detail says why) for a program gpo_expr_check
 * rejects, bad vectors, unequal row counts, a small out, out without
 * validity, or a mask of another length.
 */
extern gpo_status gpo_expr_eval(gpo_ctx *ctx, int ncols,
								const gpo_vector *columns,
								const gpo_xnode *prog, int nnodes,
								bool out_double, const gpo_vector *mask,
								gpo_vector *out, gpo_expr_error *err);
/* The CPU face. */
extern gpo_status gpo_expr_eval_cpu(gpo_ctx *ctx, int ncols,
									const gpo_vector *columns,
									const gpo_xnode *prog, int nnodes,
									bool out_double, const gpo_vector *mask,
									gpo_vector *out, gpo_expr_error *err);
/* The GPU face (GPO_ERR_NO_DEVICE in a build without CUDA). */
extern gpo_status gpo_expr_eval_gpu(gpo_ctx *ctx, int ncols,
									const gpo_vector *columns,
									const gpo_xnode *prog, int nnodes,
									bool out_double, const gpo_vector *mask,
									gpo_vector *out, gpo_expr_error *err);

/*
 * Checks a program alone against ncols columns (for planning): at most
 * GPO_EXPR_MAX_NODES nodes, known operators, fields, widths and variants,
 * column indexes in range, forward jumps inside the program, no stack
 * underflow, at most GPO_EXPR_MAX_DEPTH deep, one slot left at the end and
 * at every jump target the same depth from every path.  A node no path
 * reaches is checked for its own fields only.  ctx may be NULL.
 */
extern gpo_status gpo_expr_check(gpo_ctx *ctx, int ncols,
								 const gpo_xnode *prog, int nnodes);

/* The decimal scale of TS_EXTRACT / DATE_EXTRACT results for field (0 for other ops). */
extern int	gpo_expr_extract_scale(gpo_xop op, gpo_xfield field);

#ifdef __cplusplus
}
#endif

#endif							/* GPO_EXPR_H */
