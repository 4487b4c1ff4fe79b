/*
 * gpo_resident_internal.h
 *	  The layout of a kept column set, the pieces of gpo_resident.h that both
 *	  faces share (resident.c, resident_query.c), and the GPU face's entry
 *	  points (kernels/resident.cu; src/core/resident_gpu_stub.c without
 *	  CUDA).
 *
 * Plain C11 (also compiles as C++ under nvcc); never includes postgres.h.
 */
#ifndef GPO_RESIDENT_INTERNAL_H
#define GPO_RESIDENT_INTERNAL_H

#include "gpo_resident.h"

#ifdef __cplusplus
extern "C"
{
#endif

/*
 * One kept column: its rows' values, contiguous (NULL for 0 rows), and,
 * only when some row is NULL, their validity: a bitmap (bit r = row r) on
 * the CPU face, one byte a row (1 = valid) on the GPU face.
 */
typedef struct gpo_resident_col
{
	gpo_type	type;
	void	   *data;
	uint8_t    *valid;
	bool		bounded;		/* lo and hi known (INT32 and INT64 only) */
	int64_t		lo;				/* every valid value within [lo, hi]; */
	int64_t		hi;				/* lo > hi: none valid */
} gpo_resident_col;

/* A kept column set (gpo_resident.h). */
struct gpo_resident
{
	gpo_device	face;			/* GPO_DEVICE_CPU or GPO_DEVICE_GPU */
	bool		borrowed;		/* a view: its columns are the caller's */
	int			ncols;
	int64_t		rows;
	size_t		bytes;			/* values and validity held */
	gpo_resident_col cols[GPO_RESIDENT_MAX_COLS];
};

/*
 * The distinct set columns an aggregation reads: need[0 .. nneed), the
 * key column first when it is one.  Its inputs are those columns over the
 * passing rows, then the dimension columns (input nneed + d is
 * q->dimcols[d]), then the computed columns: input nneed + ndimcols + e is
 * q->exprs[e].
 * key and req[r] index the inputs (-1: the INT32 zero key, or no values).
 */
typedef struct gpo_resident_plan
{
	int			nneed;
	int			ndimcols;		/* q->ndimcols: inputs nneed .. + ndimcols */
	int			need[GPO_RESIDENT_MAX_COLS];
	int			key;
	int			req[GPO_AGG_MAX_REQS];
} gpo_resident_plan;

/* Most inputs of a plan: its set columns and computed columns. */
#define GPO_RESIDENT_MAX_INPUTS	\
	(GPO_RESIDENT_MAX_COLS + GPO_RESIDENT_MAX_DIM_COLS + GPO_RESIDENT_MAX_EXPRS)

/*
 * Keeps in *lowest the error of the lower row of *lowest and one (the
 * earlier one on a tie): the error a call over several computed columns
 * reports, the lowest erring row's, as the row interpreter would.
 */
static inline void
gpo_resident_lower_error(gpo_expr_error *lowest, const gpo_expr_error *one)
{
	if (one->code != GPO_XERR_NONE &&
		(lowest->code == GPO_XERR_NONE || one->row < lowest->row))
		*lowest = *one;
}

/*
 * Computed column x's program with its columns read as ncols set columns,
 * then ndimcols dimension columns (GPO_RESIDENT_DIM_COL(d) as ncols + d),
 * then the computed ones (GPO_RESIDENT_EXPR_COL(e) as ncols + ndimcols +
 * e), into out (room for x->nnodes); a set or dimension column past its
 * count reads column -1, which gpo_expr_check rejects.
 */
extern void gpo_resident_tile_prog(const gpo_resident_expr *x, int ncols,
								   int ndimcols, gpo_xnode *out);
/* Whether query column c is a dimension column (GPO_RESIDENT_DIM_COL). */
static inline bool
gpo_resident_is_dim_col(int c)
{
	return c >= GPO_RESIDENT_DIM_COL(0);
}
/*
 * The dimension row that set row value key (valid: not NULL) of dimension
 * dim matches, -1 for none (row_of read on the host: the CPU face).
 */
static inline int64_t
gpo_resident_dim_row(const gpo_resident_dim *dim, bool valid, int64_t key)
{
	uint64_t	off = (uint64_t) key - (uint64_t) dim->lo;

	if (!valid || off >= (uint64_t) dim->span)
		return -1;
	return dim->row_of[off];
}

/* Finds and keeps the bounds of CPU-face column c of set (resident_bounds.c). */
extern void gpo_resident_find_bounds(gpo_resident *set, int c);
/* Keeps the bounds of set's integer columns, found from cols, its rows. */
extern void gpo_resident_bounds_of(gpo_resident *set, const gpo_vector *cols);
/*
 * q with its keys packed (nkeys >= 2: see gpo_resident.h) into *packed: a
 * copy whose key is one more computed column (its exprs in xbuf, room for
 * GPO_RESIDENT_MAX_EXPRS; its program in nodes, room for 8 a key), and
 * q->key_lo and key_width filled (resident_keys.c).
 */
extern gpo_status gpo_resident_pack_keys(gpo_ctx *ctx, int nsets,
										 gpo_resident *const *sets,
										 const gpo_resident_query *q,
										 gpo_resident_query *packed,
										 gpo_resident_expr *xbuf,
										 gpo_xnode *nodes);
/* The plan of a (checked) query. */
extern void gpo_resident_plan_of(const gpo_resident_query *q,
								 gpo_resident_plan *plan);
/* The key type of a (checked) query over sets of set's columns. */
extern gpo_type gpo_resident_key_type(const gpo_resident *set,
									  const gpo_resident_query *q);
/* The type of a plan's input k (a set column or a computed one). */
extern gpo_type gpo_resident_input_type(const gpo_resident *set,
										const gpo_resident_query *q,
										const gpo_resident_plan *plan, int k);
/*
 * q->exprs[e]'s program with its columns read as the plan's inputs, into
 * out (room for its nodes).
 */
extern void gpo_resident_expr_prog(const gpo_resident_query *q,
								   const gpo_resident_plan *plan, int e,
								   gpo_xnode *out);
/* True if some row of v is NULL. */
extern bool gpo_resident_has_null(const gpo_vector *v);
/* dst[i] = 1 if row from + i of v is valid, else 0, for i < len. */
extern void gpo_resident_valid_bytes(const gpo_vector *v, int64_t from,
									 int64_t len, uint8_t *dst);
/*
 * The answer of an aggregation that no row passes: 0 groups, and the
 * strategy gpo_agg_choose picks for no key when *strategy is AUTO.
 */
extern void gpo_resident_no_rows(gpo_type key_type,
								 gpo_agg_strategy *strategy,
								 int64_t *ngroups);

/*
 * The CPU face of gpo_resident_groupagg (resident_cpu.c): arguments
 * checked, nsets > 0, every set on the CPU face.
 */
extern gpo_status gpo_resident_groupagg_cpu(gpo_ctx *ctx, int nsets,
											 gpo_resident *const *sets,
											 const gpo_resident_query *q,
											 gpo_agg_strategy *strategy,
											 gpo_agg_out *outs,
											 int64_t *ngroups);

/* Chunk of rows [lo, lo + n) of CPU-face column rc (lo a multiple of 8). */
extern gpo_chunk gpo_resident_chunk(const gpo_resident_col *rc, int64_t lo,
									int64_t n);
/*
 * Runs q's program over rows [lo, lo + n) of CPU-face set (lo a multiple
 * of 8, n > 0) with ctx's threads: mask[i] = 1 where row lo + i passes;
 * *kept gets how many do (resident_cpu.c).
 */
extern gpo_status gpo_resident_filter_cpu(gpo_ctx *ctx,
										  const gpo_resident *set,
										  int64_t lo, int64_t n,
										  const gpo_resident_query *q,
										  uint8_t *mask, int64_t *kept);

/*
 * Clears mask[i] (rows lo + i of CPU-face set, i < n) where a dimension's
 * join of q drops the row, with ctx's threads; returns how many stay set
 * (resident_dims.c).
 */
extern int64_t gpo_resident_dims_mask(gpo_ctx *ctx, const gpo_resident *set,
									  const gpo_resident_query *q, int64_t lo,
									  int64_t n, uint8_t *mask);
/*
 * The dimension rows of dim that CPU-face set's rows map[0 .. kept) (map
 * NULL: rows 0 .. kept) match into rows[j] (-1: none) (resident_dims.c).
 */
extern void gpo_resident_dims_rows(gpo_ctx *ctx, const gpo_resident *set,
								   const gpo_resident_dim *dim,
								   const int64_t *map, int64_t kept,
								   int32_t *rows);
/*
 * Dimension column dc at dimension rows rows[0 .. kept) (-1: none): out[j]
 * its value (0 where NULL), bit j of bits its validity (resident_dims.c).
 */
extern void gpo_resident_dims_gather(gpo_ctx *ctx,
									 const gpo_resident_dimcol *dc,
									 const int32_t *rows, int64_t kept,
									 void *out, uint8_t *bits);

/*
 * The CPU face's one-pass dense aggregation (resident_dense.c), with
 * gpo_resident_groupagg_cpu's arguments: *taken false (and nothing done)
 * where the sets' keys do not suit it.
 */
extern gpo_status gpo_resident_dense_cpu(gpo_ctx *ctx, int nsets,
										  gpo_resident *const *sets,
										  const gpo_resident_query *q,
										  gpo_agg_strategy *strategy,
										  gpo_agg_out *outs,
										  int64_t *ngroups, bool *taken);

/*
 * A tile of the computed columns of a query, for one thread of the CPU
 * face's dense aggregation (resident_xtile.c).
 */
typedef struct gpo_resident_xtile gpo_resident_xtile;

/* A tile of q's computed columns over sets of set0's columns, cap rows (NULL: no memory). */
extern gpo_resident_xtile *gpo_resident_xtile_new(const gpo_resident_query *q,
												  const gpo_resident *set0,
												  int64_t cap);
/* Frees a tile (NULL is fine). */
extern void gpo_resident_xtile_free(gpo_resident_xtile *x);
/*
 * Evaluates the computed columns, by one thread, over rows [lo, lo + n)
 * of set (lo a multiple of 8, n <= the tile's cap): only the take rows
 * sel[] where sel is given (mask: those rows' bytes set), else every row.
 * *err gets the lowest erring row's error (tile rows; code GPO_XERR_NONE
 * when none), and the tile's values are then undefined.
 */
extern gpo_status gpo_resident_xtile_eval(gpo_ctx *ctx, gpo_resident_xtile *x,
										  const gpo_resident *set, int64_t lo,
										  int64_t n, const uint8_t *mask,
										  const int32_t *sel, int64_t take,
										  gpo_expr_error *err);
/* The tile's computed column e, as a chunk of n rows (those evaluated are set). */
extern gpo_chunk gpo_resident_xtile_chunk(const gpo_resident_xtile *x, int e,
										  int64_t n);

/* ---- the GPU face ---- */

/*
 * Copies the set->rows rows of cols into set's columns on the device
 * (set->face, ncols, rows and the column types are filled in; bytes is 0).
 * On failure nothing stays allocated.
 */
extern gpo_status gpo_resident_put_gpu(gpo_ctx *ctx, const gpo_vector *cols,
									   gpo_resident *set);
/* Frees the device memory of a GPU set's columns (not the set itself). */
extern void gpo_resident_free_gpu(gpo_resident *set);
/* gpo_resident_groupagg over GPU sets (arguments checked, nsets > 0). */
extern gpo_status gpo_resident_groupagg_gpu(gpo_ctx *ctx, int nsets,
											gpo_resident *const *sets,
											const gpo_resident_query *q,
											gpo_agg_strategy *strategy,
											gpo_agg_out *outs,
											int64_t *ngroups);

/* A GPU aggregation's working memory (kernels/gpo_agg_kernels.cuh). */
struct gpo_dmem;

/*
 * *dq: q with its dimensions' row maps and dimension columns (host memory)
 * copied to the device from mem, described in dims and dimcols (room for
 * q's) (kernels/resident_dims.cu).
 */
extern gpo_status gpo_resident_dims_device(gpo_ctx *ctx,
										   const gpo_resident_query *q,
										   struct gpo_dmem *mem,
										   gpo_resident_query *dq,
										   gpo_resident_dim *dims,
										   gpo_resident_dimcol *dimcols);
/*
 * Clears the bytes of d_masks (all rows of GPU sets laid end to end, set s
 * from d_offsets[s] on the device; fresh: not yet written, every byte set
 * first) where a dimension's join of q drops the row; *kept gets how many
 * stay set.  Tables from mem (kernels/resident_dims.cu).
 */
extern gpo_status gpo_resident_dims_mask_gpu(gpo_ctx *ctx, int nsets,
											 gpo_resident *const *sets,
											 const gpo_resident_query *q,
											 const int64_t *d_offsets,
											 int64_t all, bool fresh,
											 uint8_t *d_masks,
											 struct gpo_dmem *mem,
											 int64_t *kept);
/*
 * q's dimension columns over rows d_map[0 .. total) (NULL: rows 0 .. total)
 * of GPU sets laid end to end, into new device columns from mem: d_out[c]
 * its values (0 where NULL), d_vout[c] one validity byte a row (NULL: no
 * row is NULL) (kernels/resident_dims.cu).
 */
extern gpo_status gpo_resident_dims_gather_gpu(gpo_ctx *ctx, int nsets,
											   gpo_resident *const *sets,
											   const gpo_resident_query *q,
											   const int64_t *d_offsets,
											   const int64_t *d_map,
											   int64_t total,
											   struct gpo_dmem *mem,
											   const void **d_out,
											   const uint8_t **d_vout);

#ifdef __cplusplus
}
#endif

#endif							/* GPO_RESIDENT_INTERNAL_H */
