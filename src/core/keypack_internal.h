/*
 * keypack_internal.h
 *	  The packing's types and the phases' entry points, shared by keypack.c
 *	  (the plan), keypack_pack.c, keypack_rank.c and keypack_decode.c.
 *
 * Plain C11; never includes postgres.h or CUDA headers.
 */
#ifndef KEYPACK_INTERNAL_H
#define KEYPACK_INTERNAL_H

#include "gpo_agg_internal.h"
#include "gpo_keypack.h"

/* Nodes of a packing: the leaves and at most nkeys - 1 pairs. */
#define KP_MAX_NODES	(2 * GPO_KEYPACK_MAX_KEYS - 1)

/* How a node's levels are formed. */
typedef enum kp_kind
{
	KP_OFFSET = 0,				/* key code - base */
	KP_RANK,					/* dense rank of the key code */
	KP_PAIR						/* dense rank of (left level, right level) */
} kp_kind;

/*
 * How a pass over n rows is cut: nb pieces (gpo_pieces) that a team of nt
 * threads takes as they come.
 */
typedef struct kp_split
{
	int			nb;
	int			nt;
} kp_split;

/* One node of a packing: a key column (leaf) or a ranked pair of nodes. */
typedef struct kp_node
{
	kp_kind		kind;
	int			key;			/* leaves: key column */
	int			bits;			/* bits of the node's largest level */
	uint64_t	base;			/* OFFSET: smallest key code */
	uint64_t	null_level;		/* leaves: levels from this one on are NULL */
	uint64_t   *table;			/* RANK: codes by rank; PAIR: left levels, or
								 * the combined codes when table2 is NULL */
	uint64_t   *table2;			/* PAIR: right levels by rank, or NULL */
	int			split;			/* PAIR, combined codes: the right level's bits */
	int			left;			/* PAIR: children */
	int			right;
} kp_node;

struct gpo_keypack
{
	int			nkeys;
	gpo_type	types[GPO_KEYPACK_MAX_KEYS];
	int			nnodes;
	kp_node		nodes[KP_MAX_NODES];
	int			ncomp;			/* components, first key's first */
	int			comp[GPO_KEYPACK_MAX_KEYS];		/* their nodes */
	int			shift[GPO_KEYPACK_MAX_KEYS];	/* their lowest bit */
};

/* One key column's non-NULL code range. */
typedef struct kp_stats
{
	uint64_t	min;
	uint64_t	max;
	int64_t		nvalid;
} kp_stats;

/* Where one component's levels come from while packing. */
typedef struct kp_src
{
	const gpo_vector *vec;		/* an OFFSET leaf's key column, or NULL */
	const int64_t *starts;		/* vec's chunk starts */
	const uint64_t *flat;		/* else: the levels, one per row */
	uint64_t	base;
	uint64_t	null_level;
	int			shift;
} kp_src;

/* Runs FN(type constant, ...) for the key type t, so FN is inlined per type. */
#define KP_BY_TYPE(t, FN, ...) \
	do { \
		switch (t) \
		{ \
			case GPO_INT32: FN(GPO_INT32, __VA_ARGS__); break; \
			case GPO_UINT32: FN(GPO_UINT32, __VA_ARGS__); break; \
			case GPO_INT64: FN(GPO_INT64, __VA_ARGS__); break; \
			case GPO_FLOAT32: FN(GPO_FLOAT32, __VA_ARGS__); break; \
			default: FN(GPO_FLOAT64, __VA_ARGS__); break; \
		} \
	} while (0)

/* Bits needed for levels 0 .. top. */
static inline int
kp_bits(uint64_t top)
{
	return top == 0 ? 0 : 64 - __builtin_clzll(top);
}

/* Key code of value j of data (type t). */
static inline __attribute__((always_inline)) uint64_t
kp_code(gpo_type t, const void *data, int64_t j)
{
	return gpo_code_of_raw(t, gpo_raw_at(t, data, j), 1);
}

/* Each key column's code range over n rows (keypack_pack.c). */
extern gpo_status gpo_kp_gather_stats(kp_split sp, int64_t n, int nkeys,
									  const gpo_vector *keys,
									  int64_t *const *starts, kp_stats *out);

/* Concatenates components' levels into flat_out or out (keypack_pack.c). */
extern void gpo_kp_pack(kp_split sp, int64_t n, const kp_src *src, int nsrc,
						uint64_t *flat_out, const gpo_vector *out,
						const int64_t *out_starts);

/* Turns leaf nd into a RANK leaf, rank[row] its levels (keypack_rank.c). */
extern gpo_status gpo_kp_rank_leaf(gpo_ctx *ctx, kp_split sp,
								   const gpo_vector *vec, int64_t n,
								   int64_t nvalid, uint64_t *rank, kp_node *nd,
								   bool *on_gpu);

/* Turns leaf nd into a RANK leaf through hash sets, or false (keypack_rank_hash.c). */
extern bool gpo_kp_rank_hash(kp_split sp, const gpo_vector *vec, int64_t n,
							 uint64_t *rank, kp_node *nd);

/* Makes nd the PAIR node of levels ua and ub (keypack_rank.c). */
extern gpo_status gpo_kp_rank_pair(gpo_ctx *ctx, kp_split sp, int64_t n,
								   const uint64_t *ua, int ba,
								   const uint64_t *ub, int bb, uint64_t *rank,
								   kp_node *nd, bool *on_gpu);

#endif							/* KEYPACK_INTERNAL_H */
