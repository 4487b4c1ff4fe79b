/*
 * gpo_join.h
 *	  Equi-join of two key columns (build a hash table on one side, probe it
 *	  with the other, emit every matching row pair) and gather by index map.
 *
 * Plain C11 (the inline key functions also compile as CUDA device code);
 * never includes postgres.h.  Same conventions as gpo.h: gpo_X picks the
 * face and answers the two-phase scratch query (scratch == NULL: store the
 * host scratch bytes in *scratch_bytes and return GPO_OK); both faces give
 * identical results, in the same order.
 */
#ifndef GPO_JOIN_H
#define GPO_JOIN_H

#include <string.h>

#include "gpo.h"

#ifdef __cplusplus
extern "C"
{
#endif

#ifndef GPO_HD
#ifdef __CUDACC__
#define GPO_HD __host__ __device__
#else
#define GPO_HD
#endif
#endif

/* The hash table's empty-slot marker; the key with these bits has its own slot. */
#define GPO_JOIN_EMPTY UINT64_MAX

/*
 * The 64-bit join key of a value: equal keys <=> PostgreSQL's = is true.
 * INT32 and FLOAT32 values are zero-extended 32-bit images (never
 * GPO_JOIN_EMPTY); floats are canonical first: -0.0 -> 0.0 and every NaN ->
 * one NaN (PostgreSQL's float = has NaN = NaN and -0.0 = 0.0).
 */
static inline GPO_HD uint64_t
gpo_join_key(gpo_type type, const void *p)
{
	switch (type)
	{
		case GPO_INT32:
		case GPO_UINT32:
			return (uint64_t) *(const uint32_t *) p;
		case GPO_INT64:
			return (uint64_t) *(const int64_t *) p;
		case GPO_FLOAT32:
			{
				float		f = *(const float *) p;
				uint32_t	u;

				if (f != f)
					return 0x7fc00000u;
				if (f == 0.0f)
					return 0;
				memcpy(&u, &f, sizeof(u));
				return u;
			}
		case GPO_FLOAT64:
			{
				double		d = *(const double *) p;
				uint64_t	u;

				if (d != d)
					return UINT64_C(0x7ff8000000000000);
				if (d == 0.0)
					return 0;
				memcpy(&u, &d, sizeof(u));
				return u;
			}
		default:
			return 0;
	}
}

/* Hash of a join key (a full-avalanche 64-bit mix). */
static inline GPO_HD uint64_t
gpo_join_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= UINT64_C(0xff51afd7ed558ccd);
	k ^= k >> 33;
	k *= UINT64_C(0xc4ceb9fe1a85ec53);
	k ^= k >> 33;
	return k;
}

/* Slots of the open-addressing table for m build rows (a power of two >= 2m, >= 16). */
static inline GPO_HD int64_t
gpo_join_capacity(int64_t m)
{
	int64_t		cap = 16;

	while (cap < 2 * m)
		cap <<= 1;
	return cap;
}

/* ---- hash join (hashjoin.c, kernels/hashjoin.cu) ----
 *
 * Equi-join: every pair (b, p) with build_keys[b] = probe_keys[p] under
 * gpo_join_key's equality; NULL keys never match.  Key types: INT32,
 * INT64, FLOAT32 or FLOAT64, the same on both sides (an INT32 key column
 * joined with an INT64 one is widened by the caller).  Duplicates on both
 * sides give every combination.
 *
 * Outputs, INT64 0-based logical row numbers, ordered by probe row, then by
 * build row:
 *	 build_rows[k], probe_rows[k] for k < *count.
 * Either output may be NULL (count only, or one side only).  An output
 * chunk with a validity bitmap gets its written rows marked valid.  If a
 * non-NULL output holds fewer than the pair count, *count is still set to
 * the total, nothing is written, and GPO_ERR_CAPACITY is returned: size the
 * outputs and call again.  Empty inputs give *count = 0.
 */
extern gpo_status gpo_hash_join(gpo_ctx *ctx, const gpo_vector *build_keys,
								const gpo_vector *probe_keys,
								gpo_vector *build_rows,
								gpo_vector *probe_rows, int64_t *count,
								void *scratch, size_t *scratch_bytes);

/*
 * Which rows a hash join emits.  Each kind emits in the same order (probe
 * row, then build row), with the same outputs and capacity rule:
 *	 INNER: every matching pair (gpo_hash_join);
 *	 SEMI: each probe row with a match, once, with its first (lowest)
 *		   matching build row;
 *	 ANTI: each probe row without a match (a NULL key included), with a
 *		   NULL build row;
 *	 LEFT: every matching pair, and each probe row without a match with a
 *		   NULL build row.
 * A NULL build row is written as 0 and marked NULL: for ANTI and LEFT,
 * build_rows (when given) must have a validity bitmap on every non-empty
 * chunk.  An empty build side gives ANTI and LEFT every probe row.
 */
typedef enum gpo_join_kind
{
	GPO_JOIN_INNER = 0,
	GPO_JOIN_SEMI,
	GPO_JOIN_ANTI,
	GPO_JOIN_LEFT
} gpo_join_kind;

/* Rows a probe row with the given number of matches emits in a join of kind. */
static inline GPO_HD int64_t
gpo_join_emits(gpo_join_kind kind, int64_t matches)
{
	switch (kind)
	{
		case GPO_JOIN_SEMI:
			return matches > 0;
		case GPO_JOIN_ANTI:
			return matches == 0;
		case GPO_JOIN_LEFT:
			return matches > 0 ? matches : 1;
		default:
			return matches;
	}
}

/* A hash join of the given kind (as gpo_hash_join otherwise). */
extern gpo_status gpo_hash_join_kind(gpo_ctx *ctx, gpo_join_kind kind,
									 const gpo_vector *build_keys,
									 const gpo_vector *probe_keys,
									 gpo_vector *build_rows,
									 gpo_vector *probe_rows, int64_t *count,
									 void *scratch, size_t *scratch_bytes);
extern gpo_status gpo_hash_join_cpu(gpo_ctx *ctx, gpo_join_kind kind,
									const gpo_vector *build_keys,
									const gpo_vector *probe_keys,
									gpo_vector *build_rows,
									gpo_vector *probe_rows, int64_t *count,
									void *scratch);
extern gpo_status gpo_hash_join_gpu(gpo_ctx *ctx, gpo_join_kind kind,
									const gpo_vector *build_keys,
									const gpo_vector *probe_keys,
									gpo_vector *build_rows,
									gpo_vector *probe_rows, int64_t *count);

/* Checks a hash join's arguments (shared by both faces). */
extern gpo_status gpo_hash_join_check(gpo_ctx *ctx, gpo_join_kind kind,
									  const gpo_vector *build_keys,
									  const gpo_vector *probe_keys,
									  const gpo_vector *build_rows,
									  const gpo_vector *probe_rows,
									  const int64_t *count);

/*
 * Each of n probe rows with a NULL build row (an ANTI or LEFT join with an
 * empty build side), into outputs already checked to hold n rows.
 */
extern void gpo_join_all_unmatched(gpo_vector *build_rows,
								   gpo_vector *probe_rows, int64_t n);

/* ---- join tables (jointable.c) ----
 *
 * A hash join's build side built once and probed many times, as a star
 * join probes each batch of a large table.  The table lives in memory the
 * caller gives (gpo_join_table_bytes of it), host memory, so it is probed
 * on the CPU.  Integer keys (INT32, INT64) whose range is at most 4 x rows
 * + 131,072 values make a dense table, direct-indexed by key - base; so do
 * keys whose range is at most GPO_JOIN_DENSE_PROBED values and at most a
 * quarter of probe_rows, the rows the caller expects to probe it with in
 * all (0: unknown); other keys make a hashed one.  A probe emits exactly
 * what gpo_hash_join_kind of the same keys emits, in the same order.
 */
#define GPO_JOIN_DENSE_PROBED	(1 << 20)

typedef struct gpo_join_table
{
	gpo_type	type;			/* the build keys' type */
	int64_t		rows;			/* build rows */
	bool		dense;			/* slot of key v: v - base */
	int64_t		base;			/* dense: the smallest key */
	int64_t		cap;			/* slots (hashed: a power of two, and one more
								 * for the key with GPO_JOIN_EMPTY's bits) */
	uint64_t   *slots;			/* hashed: cap keys, GPO_JOIN_EMPTY if free */
	int64_t    *off;			/* cap + 2: slot s's rows are
								 * runs[s ? off[s - 1] : 0 .. off[s]) */
	int64_t    *runs;			/* build rows by slot, ascending within one */
} gpo_join_table;

/*
 * Bytes of memory a table of build_keys to be probed with probe_rows rows
 * takes (one pass over the keys).
 */
extern size_t gpo_join_table_bytes(const gpo_vector *build_keys,
								   int64_t probe_rows);
/*
 * Builds the table of build_keys (INT32, INT64, FLOAT32 or FLOAT64; NULL
 * keys left out) to be probed with probe_rows rows into *t, its arrays in
 * mem (at least gpo_join_table_bytes of the same arguments, else
 * GPO_ERR_INVALID).  t is valid while mem is.
 */
extern gpo_status gpo_join_table_build(gpo_ctx *ctx,
									   const gpo_vector *build_keys,
									   int64_t probe_rows,
									   void *mem, size_t bytes,
									   gpo_join_table *t);
/*
 * Probes t with probe_keys (t's type): outputs, count, capacity rule and
 * two-phase scratch as gpo_hash_join_kind's.
 */
extern gpo_status gpo_join_table_probe(gpo_ctx *ctx, gpo_join_kind kind,
									   const gpo_join_table *t,
									   const gpo_vector *probe_keys,
									   gpo_vector *build_rows,
									   gpo_vector *probe_rows,
									   int64_t *count, void *scratch,
									   size_t *scratch_bytes);

/* ---- gather (gather.c, kernels/gather.cu) ----
 *
 * out[i] = in[index[i]] for every row i of index (INT64, 0-based logical
 * rows of in); in may be any type, out has in's type and at least index's
 * rows of capacity (else GPO_ERR_CAPACITY); capacity past them is left
 * untouched.  Values are copied as raw bits.  Validity: where out's chunk
 * has a bitmap, row i is valid iff index[i] is valid and in[index[i]] is
 * valid; a NULL index row writes a zero value.  A valid index outside
 * [0, rows of in) gives GPO_ERR_INVALID (out's contents are then
 * unspecified).  in, index and out may be partitioned independently.
 */
extern gpo_status gpo_gather(gpo_ctx *ctx, const gpo_vector *in,
							 const gpo_vector *index, gpo_vector *out,
							 void *scratch, size_t *scratch_bytes);
extern gpo_status gpo_gather_cpu(gpo_ctx *ctx, const gpo_vector *in,
								 const gpo_vector *index, gpo_vector *out,
								 void *scratch);
extern gpo_status gpo_gather_gpu(gpo_ctx *ctx, const gpo_vector *in,
								 const gpo_vector *index, gpo_vector *out);

/* Checks a gather's arguments (shared by both faces). */
extern gpo_status gpo_gather_check(gpo_ctx *ctx, const gpo_vector *in,
								   const gpo_vector *index,
								   const gpo_vector *out);

#ifdef __cplusplus
}
#endif

#endif							/* GPO_JOIN_H */
