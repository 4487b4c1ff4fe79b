/*
 * gpo_resident.h
 *	  Column sets that a face keeps between calls (the GPU face in device
 *	  memory, the CPU face in host memory), and the filtered group
 *	  aggregation of several of them in one call: for a process that serves
 *	  many queries over the same data (the GPU service's column cache), so
 *	  that a query moves no column at all, only its program and its groups.
 *
 * Plain C11 (also compiles as C++ and under nvcc); never includes
 * postgres.h.  Same conventions as gpo.h.  Both faces give identical
 * results (fsum within rounding, as gpo_groupagg_many).
 */
#ifndef GPO_RESIDENT_H
#define GPO_RESIDENT_H

#include "gpo.h"
#include "gpo_agg.h"
#include "gpo_expr.h"
#include "gpo_filter.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* Most columns one set holds. */
#define GPO_RESIDENT_MAX_COLS	64

/* One kept column set (opaque); freed by gpo_resident_free only. */
typedef struct gpo_resident gpo_resident;

/*
 * Copies ncols columns of equal row counts (any chunking; types INT32,
 * UINT32, INT64, FLOAT32, FLOAT64, UINT8; NULLs as validity bitmaps) into
 * a new set kept by the face ctx->device names: GPU (device memory,
 * allocated outside the engine's pool, so that gpo_gpu_set_memory_limit
 * does not count it) or CPU (malloc'd host memory); AUTO takes the GPU
 * when one is usable, whatever the row count, and the CPU when the GPU
 * face fails with a device error, as the other dispatchers do (ctx->used
 * and gpo_resident_face say which).  A column without NULLs keeps no
 * validity.
 * GPO_ERR_INVALID for bad arguments (ncols outside 1..GPO_RESIDENT_MAX_COLS,
 * a bad vector, unequal rows); GPO_ERR_DEVICE_NOMEM / GPO_ERR_NOMEM when
 * the memory can't be had (nothing is kept then).  0 rows is fine.
 */
extern gpo_status gpo_resident_put(gpo_ctx *ctx, int ncols,
								   const gpo_vector *cols, gpo_resident **out);
/*
 * A CPU-face set that borrows ncols one-chunk columns of equal rows (their
 * values, and their validity bitmaps or NULL) instead of copying them: the
 * caller keeps that memory unchanged until the set is freed.  For a
 * process that holds data in memory of its own (shared memory) and runs
 * gpo_resident_groupagg on it in place.  GPO_ERR_INVALID as put, and for a
 * column of several chunks.
 */
extern gpo_status gpo_resident_view(gpo_ctx *ctx, int ncols,
									const gpo_vector *cols, gpo_resident **out);
/*
 * The smallest and largest valid value of an INT32 or INT64 column (any
 * chunking) into *lo and *hi: true, or false (nothing stored) where it has
 * no valid value or is of another type.
 */
extern bool gpo_int_bounds(const gpo_vector *col, int64_t *lo, int64_t *hi);
/*
 * Tells a set that every valid value of its INT32 or INT64 column c lies in
 * [lo, hi] (lo > hi: no value is valid), as gpo_int_bounds found them over
 * the same rows, so that an aggregation grouped by c need not read c for
 * its range.  A put finds its CPU-face columns' bounds itself; a view is
 * told them by its caller, who keeps them with the data.  Bounds that a
 * valid value falls outside make an aggregation by c fail with
 * GPO_ERR_INVALID, never answer wrong.  GPO_ERR_INVALID for another
 * column type or no such column.
 */
extern gpo_status gpo_resident_set_bounds(gpo_resident *set, int c,
										  int64_t lo, int64_t hi);
/* Frees a set (NULL is fine); never fails. */
extern void gpo_resident_free(gpo_resident *set);
/* Rows of a set. */
extern int64_t gpo_resident_rows(const gpo_resident *set);
/* Bytes a set holds (values and validity). */
extern size_t gpo_resident_bytes(const gpo_resident *set);
/* The face that keeps a set (GPO_DEVICE_GPU or GPO_DEVICE_CPU). */
extern gpo_device gpo_resident_face(const gpo_resident *set);
/* Columns of a set; the type of column c ((gpo_type) -1: no such column). */
extern int	gpo_resident_ncols(const gpo_resident *set);
extern gpo_type gpo_resident_type(const gpo_resident *set, int c);

/* Most columns one gpo_resident_groupagg call computes. */
#define GPO_RESIDENT_MAX_EXPRS	(GPO_AGG_MAX_REQS + 1)
/* Most key columns one gpo_resident_groupagg call packs into one key. */
#define GPO_RESIDENT_MAX_KEYS	8

/*
 * The column number of a call's computed column e (0 <= e <
 * GPO_RESIDENT_MAX_EXPRS): numbered past every set column, so that a
 * caller need not know how many columns its sets have.
 */
#define GPO_RESIDENT_EXPR_COL(e)	(GPO_RESIDENT_MAX_COLS + (e))

/*
 * A column that one gpo_resident_groupagg call computes from the sets'
 * columns over the rows that pass its program: a gpo_expr program whose
 * GPO_X_COL nodes read set columns and the computed columns before it (by
 * GPO_RESIDENT_EXPR_COL), written as type (INT32, INT64, FLOAT32 or
 * FLOAT64; out_double as gpo_expr_eval's).
 */
typedef struct gpo_resident_expr
{
	const gpo_xnode *prog;
	int			nnodes;
	gpo_type	type;
	bool		out_double;
} gpo_resident_expr;

/* Most dimensions one gpo_resident_groupagg call joins. */
#define GPO_RESIDENT_MAX_DIMS	8
/* Most dimension columns one gpo_resident_groupagg call reads. */
#define GPO_RESIDENT_MAX_DIM_COLS	16
/* Most keys a dimension's row map covers. */
#define GPO_RESIDENT_DIM_MAX_SPAN	((int64_t) 1 << 30)

/*
 * The column number of a call's dimension column d (0 <= d <
 * GPO_RESIDENT_MAX_DIM_COLS): numbered past the computed columns.
 */
#define GPO_RESIDENT_DIM_COL(d)	(GPO_RESIDENT_MAX_COLS + GPO_RESIDENT_MAX_EXPRS + (d))

/*
 * Which rows of a set a dimension's join keeps: those with a match (an
 * inner join, or a semi join: EXISTS), those without one (an anti join:
 * NOT EXISTS), or every row (a left join, whose dimension columns are
 * NULL where there is no match).
 */
typedef enum gpo_resident_join
{
	GPO_RESIDENT_MATCH = 0,
	GPO_RESIDENT_ANTI,
	GPO_RESIDENT_LEFT
} gpo_resident_join;

/*
 * A dimension a call joins its sets' rows to (a star join): the set's
 * INT32 or INT64 column key_col holds each row's key, and row_of[k - lo]
 * (k in [lo, lo + span)) the dimension row whose key is k, -1 where none
 * is (a key outside the range, or NULL, has none).  kind says which rows
 * the join keeps (gpo_resident_join).
 * row_of's entries are -1 or below rows; it lies in host memory on either
 * face (the GPU face copies it to the device for the call), and the
 * caller keeps it for the call.  A dimension's keys are unique (a row map holds one row a key);
 * where they are not, an inner join's counts would not multiply, so the
 * caller keeps those joins to itself.
 */
typedef struct gpo_resident_dim
{
	int			key_col;
	gpo_resident_join kind;
	int64_t		lo;
	int64_t		span;			/* 0 .. GPO_RESIDENT_DIM_MAX_SPAN */
	const int32_t *row_of;		/* [span] */
	int64_t		rows;			/* 0 .. INT32_MAX */
} gpo_resident_dim;

/*
 * A dimension column: the values (type INT32, INT64, FLOAT32 or FLOAT64)
 * of dimension dim's rows, data[row], valid where valid is NULL or
 * valid[row] is 1 (one byte a row), in host memory (as row_of).  A
 * joined row reads its dimension row's value, NULL without a match (a
 * left join).  bounded, lo and hi: every valid value of an INT32 or INT64
 * column lies in [lo, hi] (needed to pack it as a key).
 */
typedef struct gpo_resident_dimcol
{
	int			dim;			/* of a GPO_RESIDENT_MATCH or _LEFT dimension */
	gpo_type	type;
	const void *data;
	const uint8_t *valid;
	bool		bounded;
	int64_t		lo;
	int64_t		hi;
} gpo_resident_dimcol;

/*
 * What one gpo_resident_groupagg call computes over the rows of its sets.
 *
 * prog (nnodes nodes; nnodes 0: every row passes) is a gpo_filter program
 * whose column indices are the sets' column numbers.  key_col is the set
 * column grouped by (any gpo_groupagg key type), or -1: every passing row
 * in one group whose key is INT32 0, never NULL (no group when no row
 * passes).
 * Request r aggregates set column val_cols[r] (-1: rows only) for aggs[r]
 * (GPO_AGG_WANT_*), into outs[r] as gpo_groupagg_many writes it; nreqs 0:
 * the rows alone into outs[0].
 * key_col and val_cols may name computed columns (GPO_RESIDENT_EXPR_COL):
 * exprs[e] is evaluated over the passing rows only, as PostgreSQL
 * evaluates an aggregate's argument only on the rows its WHERE keeps.
 * When a passing row raises an error in one, *xerr gets the error of the
 * lowest such row (in set order; code GPO_XERR_NONE when none), the call
 * returns GPO_OK, and outs and *ngroups are undefined.
 * With nkeys >= 2, the rows are grouped by the tuple of key_cols, packed
 * into one INT64 key (the outputs' keys, never NULL) from the sets' bounds
 * of those columns (known for every set a put made, told for views): key
 * k's code is its value - key_lo[k], or key_width[k] - 1 where it is NULL,
 * and the packed key is the sum over k of code k times the product of the
 * key_width of the keys after k, so that packed order is the tuples'
 * order with NULL after every value.  GPO_ERR_INVALID where a set has no
 * bounds of a key column or the widths' product passes 2^62 (the caller
 * groups those rows another way).
 * With ndims > 0, a row passes only where it passes prog and every
 * dimension's join (gpo_resident_dim) keeps it; key_col, val_cols,
 * key_cols and the computed columns' GPO_X_COL nodes may then read
 * dimension columns (GPO_RESIDENT_DIM_COL(d) is dimcols[d]).
 */
typedef struct gpo_resident_query
{
	const gpo_pred *prog;
	int			nnodes;
	int			key_col;
	int			nreqs;
	const int  *val_cols;		/* [nreqs] */
	const unsigned *aggs;		/* [nreqs] */
	int64_t		est_groups;		/* as gpo_groupagg's; <= 0 unknown */
	int			nexprs;			/* computed columns, 0 .. GPO_RESIDENT_MAX_EXPRS */
	const gpo_resident_expr *exprs; /* [nexprs] */
	gpo_expr_error *xerr;		/* with nexprs > 0: an expression's error */
	int			nkeys;			/* 2 .. GPO_RESIDENT_MAX_KEYS: grouped by the
								 * packed key_cols (key_col -1); else 0 */
	const int  *key_cols;		/* [nkeys] INT32 or INT64 set columns */
	int64_t    *key_lo;			/* out [nkeys]: how the keys were packed */
	int64_t    *key_width;		/* out [nkeys] */
	int64_t		key_span;		/* a computed key_col's values all lie in
								 * [0, key_span) and are never NULL; 0:
								 * unknown */
	int			ndims;			/* 0 .. GPO_RESIDENT_MAX_DIMS */
	const gpo_resident_dim *dims;	/* [ndims] */
	int			ndimcols;		/* 0 .. GPO_RESIDENT_MAX_DIM_COLS */
	const gpo_resident_dimcol *dimcols; /* [ndimcols] */
} gpo_resident_query;

/*
 * Groups the rows of sets[0 .. nsets) that pass q->prog and aggregates
 * them as q says, as gpo_groupagg_many over those rows (in set order)
 * would: one entry per distinct key in key order, the NULL-key group last;
 * *strategy in/out and *ngroups as there (GPO_ERR_CAPACITY with *ngroups
 * set when an output is too small).  Every set must be of one face and
 * have the same column types; the call runs on that face (ctx->device is
 * ignored; ctx->threads applies to the CPU face), and ctx->used says it.
 * At most 2^31 - 1 passing rows on the GPU face.  GPO_ERR_INVALID (detail
 * says why) for: nsets < 0, a set of another face or other columns, a bad
 * program (as gpo_filter checks it), a column index out of range, a key or
 * value column of a type gpo_groupagg does not take, nreqs outside
 * 0..GPO_AGG_MAX_REQS, GPO_AGG_DENSE forced over float keys, a computed
 * column that gpo_expr_check rejects, reads a later computed column or has
 * another type, nexprs > 0 without xerr, a dimension or dimension column
 * outside its limits above (a key column that is not an INT32 or INT64 set
 * column, a column of a dimension of another kind).  nsets 0, or
 * no passing row: 0 groups, and AUTO becomes what gpo_agg_choose picks for
 * no rows (GPO_AGG_SORT); with nsets 0 there are no columns, so column
 * indices are checked against GPO_RESIDENT_MAX_COLS, and ctx->used is the
 * CPU.
 * The sets are only read: several calls may run over the same sets at
 * once (the GPU face on their threads' own streams).
 */
extern gpo_status gpo_resident_groupagg(gpo_ctx *ctx, int nsets,
										gpo_resident *const *sets,
										const gpo_resident_query *q,
										gpo_agg_strategy *strategy,
										gpo_agg_out *outs, int64_t *ngroups);

#ifdef __cplusplus
}
#endif

#endif							/* GPO_RESIDENT_H */
