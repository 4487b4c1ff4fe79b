/*
 * keypack.c
 *	  Key packing (gpo_keypack.h): up to four GROUP BY key columns become
 *	  one order-preserving INT64 key.
 *
 * Every key column gets per-row levels that group and order its values as
 * PostgreSQL does, NULL after every value:
 *   offset  level = key code - smallest key code, NULL = span + 1 (the fast
 *           path: one statistics pass and one packing pass, no sort);
 *   rank    level = dense rank of the key code among the column's distinct
 *           codes (gpo_sort_pairs), NULL = the number of distinct codes;
 *           taken, widest first, for columns whose code span needs more
 *           bits than their rows could, while the levels do not fit.
 * The components' levels are concatenated, first key in the most
 * significant bits, into at most 63 bits.  When even the ranks do not fit,
 * two adjacent components are replaced by the dense rank of their level
 * pair (one sort of the combined code, or two stable sorts when the pair is
 * wider than 64 bits), until they fit.  The packing keeps what decoding
 * needs: offsets, the distinct codes of ranked columns and the distinct
 * level pairs of ranked pairs.  The passes over rows are OpenMP blocks of
 * rows, with the type switch outside the row loops.
 */
#include <stdlib.h>
#include <string.h>

#include "gpo_agg_internal.h"
#include "gpo_keypack.h"

/* Rows a block packs at a time (its accumulator lives on the stack). */
#define KP_TILE			1024
/* Rows a block decodes at a time. */
#define KP_DECODE_TILE	256
/* Nodes of a packing: the leaves and at most nkeys - 1 pairs. */
#define KP_MAX_NODES	(2 * GPO_KEYPACK_MAX_KEYS - 1)
/* XOR with this turns a level into INT64 bits whose key code is the level. */
#define KP_SIGN			UINT64_C(0x8000000000000000)

/* The tuning knobs (see gpo_keypack.h). */
int			gpo_keypack_fit_bits = 63;
int			gpo_keypack_pair_bits = 64;

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

/* Rows a thread takes at a time in the element-wise loops. */
#define KP_LOOP_CHUNK 16384

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
static int
kp_bits(uint64_t top)
{
	return top == 0 ? 0 : 64 - __builtin_clzll(top);
}

/* The mask of the low bits bits. */
static inline uint64_t
kp_mask(int bits)
{
	return bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
}

/* Key code of value j of data (type t). */
static inline __attribute__((always_inline)) uint64_t
kp_code(gpo_type t, const void *data, int64_t j)
{
	return gpo_code_of_raw(t, gpo_raw_at(t, data, j), 1);
}

/* Folds rows [off, off + take) of ch into *s (type t). */
static inline __attribute__((always_inline)) void
kp_stats_span(gpo_type t, const gpo_chunk *ch, int64_t off, int64_t take,
			  kp_stats *s)
{
	uint64_t	mn = s->min,
				mx = s->max;
	int64_t		nv = 0;

	if (ch->validity == NULL)
	{
		for (int64_t i = 0; i < take; i++)
		{
			uint64_t	c = kp_code(t, ch->data, off + i);

			mn = c < mn ? c : mn;
			mx = c > mx ? c : mx;
		}
		nv = take;
	}
	else
		for (int64_t i = 0; i < take; i++)
		{
			uint64_t	c = kp_code(t, ch->data, off + i);

			if (!gpo_valid(ch, off + i))
				continue;
			mn = c < mn ? c : mn;
			mx = c > mx ? c : mx;
			nv++;
		}
	s->min = mn;
	s->max = mx;
	s->nvalid += nv;
}

/* ORs the levels of rows [off, off + take) of ch, shifted, into acc (type t). */
static inline __attribute__((always_inline)) void
kp_level_span(gpo_type t, const gpo_chunk *ch, int64_t off, int64_t take,
			  uint64_t base, uint64_t null_level, int shift, uint64_t *acc)
{
	if (ch->validity == NULL)
		for (int64_t i = 0; i < take; i++)
			acc[i] |= (kp_code(t, ch->data, off + i) - base) << shift;
	else
		for (int64_t i = 0; i < take; i++)
		{
			uint64_t	l = kp_code(t, ch->data, off + i) - base;

			acc[i] |= (gpo_valid(ch, off + i) ? l : null_level) << shift;
		}
}

/* Key codes of values [lo, hi) of a flat array of type t into codes. */
static inline __attribute__((always_inline)) void
kp_code_range(gpo_type t, const void *data, int64_t lo, int64_t hi,
			  uint64_t *codes)
{
	for (int64_t j = lo; j < hi; j++)
		codes[j] = kp_code(t, data, j);
}

/* Each key column's code range over n rows, in nb blocks. */
static gpo_status
kp_gather_stats(kp_split sp, int64_t n, int nkeys, const gpo_vector *keys,
				int64_t *const *starts, kp_stats *out)
{
	int			nb = sp.nb;
	kp_stats   *part = malloc(sizeof(kp_stats) * nb * nkeys);

	if (part == NULL)
		return GPO_ERR_NOMEM;
#pragma omp parallel for num_threads(sp.nt) schedule(dynamic, 1)
	for (int b = 0; b < nb; b++)
	{
		int64_t		lo = gpo_block_lo(n, b, nb),
					hi = gpo_block_lo(n, b + 1, nb);

		for (int k = 0; k < nkeys; k++)
		{
			kp_stats	s = {UINT64_MAX, 0, 0};
			gpo_cursor	cur;

			gpo_cursor_seek(&cur, &keys[k], starts[k], lo);
			for (int64_t r = lo; r < hi;)
			{
				int64_t		avail = gpo_cursor_avail(&cur);
				int64_t		take = avail < hi - r ? avail : hi - r;

				KP_BY_TYPE(keys[k].type, kp_stats_span, gpo_cursor_chunk(&cur),
						   cur.off, take, &s);
				cur.off += take;
				r += take;
			}
			part[b * nkeys + k] = s;
		}
	}
	for (int k = 0; k < nkeys; k++)
	{
		kp_stats	s = {UINT64_MAX, 0, 0};

		for (int b = 0; b < nb; b++)
		{
			const kp_stats *p = &part[b * nkeys + k];

			s.min = p->min < s.min ? p->min : s.min;
			s.max = p->max > s.max ? p->max : s.max;
			s.nvalid += p->nvalid;
		}
		out[k] = s;
	}
	free(part);
	return GPO_OK;
}

/*
 * Concatenates the levels of nsrc components for n rows, in nb blocks, into
 * flat_out (n entries) or, if that is NULL, into the INT64 vector out.
 */
static void
kp_pack(kp_split sp, int64_t n, const kp_src *src, int nsrc, uint64_t *flat_out,
		const gpo_vector *out, const int64_t *out_starts)
{
	int			nb = sp.nb;
#pragma omp parallel for num_threads(sp.nt) schedule(dynamic, 1)
	for (int b = 0; b < nb; b++)
	{
		int64_t		lo = gpo_block_lo(n, b, nb),
					hi = gpo_block_lo(n, b + 1, nb);
		gpo_cursor	cur[GPO_KEYPACK_MAX_KEYS];
		gpo_cursor	oc;
		uint64_t	acc[KP_TILE];

		for (int s = 0; s < nsrc; s++)
			if (src[s].vec != NULL)
				gpo_cursor_seek(&cur[s], src[s].vec, src[s].starts, lo);
		if (flat_out == NULL)
			gpo_cursor_seek(&oc, out, out_starts, lo);
		for (int64_t r0 = lo; r0 < hi; r0 += KP_TILE)
		{
			int64_t		cnt = hi - r0 < KP_TILE ? hi - r0 : KP_TILE;

			memset(acc, 0, sizeof(uint64_t) * cnt);
			for (int s = 0; s < nsrc; s++)
			{
				const kp_src *p = &src[s];

				if (p->vec == NULL)
				{
					const uint64_t *f = p->flat + r0;

					for (int64_t i = 0; i < cnt; i++)
						acc[i] |= f[i] << p->shift;
					continue;
				}
				for (int64_t done = 0; done < cnt;)
				{
					int64_t		avail = gpo_cursor_avail(&cur[s]);
					int64_t		take = avail < cnt - done ? avail : cnt - done;

					KP_BY_TYPE(p->vec->type, kp_level_span, gpo_cursor_chunk(&cur[s]),
							   cur[s].off, take, p->base, p->null_level, p->shift,
							   acc + done);
					cur[s].off += take;
					done += take;
				}
			}
			if (flat_out != NULL)
			{
				memcpy(flat_out + r0, acc, sizeof(uint64_t) * cnt);
				continue;
			}
			for (int64_t done = 0; done < cnt;)
			{
				int64_t		avail = gpo_cursor_avail(&oc);
				int64_t		take = avail < cnt - done ? avail : cnt - done;

				memcpy((int64_t *) gpo_cursor_chunk(&oc)->data + oc.off, acc + done,
					   sizeof(uint64_t) * take);
				oc.off += take;
				done += take;
			}
		}
	}
}

/*
 * Dense ranks over a sorted order: position j < nvalid holds row perm[j]
 * whose key is (pa[j], pb[j]) (pb NULL: pa[j] alone), ascending; the rows
 * at positions nvalid .. n are NULL and rank after every key.  Writes
 * rank[row], the distinct keys by rank into *ta (and *tb when pb; both
 * malloc'd) and their number into *ndist.
 */
static gpo_status
kp_dense(kp_split sp, int64_t n, int64_t nvalid, const int64_t *perm,
		 const uint64_t *pa, const uint64_t *pb, uint64_t *rank,
		 uint64_t **ta, uint64_t **tb, int64_t *ndist)
{
	int			nb = sp.nb;
	int64_t    *first = malloc(sizeof(int64_t) * (nb + 1));
	uint64_t   *a_tab,
			   *b_tab = NULL;
	int64_t		nd = 0;

	if (first == NULL)
		return GPO_ERR_NOMEM;
#pragma omp parallel for num_threads(sp.nt) schedule(dynamic, 1)
	for (int b = 0; b < nb; b++)
	{
		int64_t		lo = gpo_block_lo(nvalid, b, nb),
					hi = gpo_block_lo(nvalid, b + 1, nb),
					c = 0;

		for (int64_t j = lo; j < hi; j++)
			c += j == 0 || pa[j] != pa[j - 1] || (pb != NULL && pb[j] != pb[j - 1]);
		first[b] = c;
	}
	for (int b = 0; b < nb; b++)
	{
		int64_t		c = first[b];

		first[b] = nd;
		nd += c;
	}
	a_tab = malloc(sizeof(uint64_t) * (nd + 1));
	if (pb != NULL)
		b_tab = malloc(sizeof(uint64_t) * (nd + 1));
	if (a_tab == NULL || (pb != NULL && b_tab == NULL))
	{
		free(a_tab);
		free(b_tab);
		free(first);
		return GPO_ERR_NOMEM;
	}
#pragma omp parallel for num_threads(sp.nt) schedule(dynamic, 1)
	for (int b = 0; b < nb; b++)
	{
		int64_t		lo = gpo_block_lo(nvalid, b, nb),
					hi = gpo_block_lo(nvalid, b + 1, nb),
					r = first[b] - 1;

		for (int64_t j = lo; j < hi; j++)
		{
			if (j == 0 || pa[j] != pa[j - 1] || (pb != NULL && pb[j] != pb[j - 1]))
			{
				r++;
				a_tab[r] = pa[j];
				if (pb != NULL)
					b_tab[r] = pb[j];
			}
			rank[perm[j]] = (uint64_t) r;
		}
		lo = nvalid + gpo_block_lo(n - nvalid, b, nb);
		hi = nvalid + gpo_block_lo(n - nvalid, b + 1, nb);
		for (int64_t j = lo; j < hi; j++)
			rank[perm[j]] = (uint64_t) nd;
	}
	free(first);
	*ta = a_tab;
	if (tb != NULL)
		*tb = b_tab;
	*ndist = nd;
	return GPO_OK;
}

/*
 * Sorts the n rows of vec with gpo_sort_pairs under ctx: rows_out gets the
 * sorted rows and keys_out (if not NULL) the sorted keys; *on_gpu is set
 * when the GPU face ran.
 */
static gpo_status
kp_sort(gpo_ctx *ctx, const gpo_vector *vec, int64_t n, void *keys_out,
		int64_t *rows_out, bool *on_gpu)
{
	gpo_chunk	kc = {keys_out, NULL, n},
				rc = {rows_out, NULL, n};
	gpo_vector	kv = {vec->type, 1, &kc},
				rv = {GPO_INT64, 1, &rc};
	size_t		bytes = 0;
	void	   *scratch;
	gpo_status	st;

	st = gpo_sort_pairs(ctx, vec, keys_out ? &kv : NULL, &rv, NULL, &bytes);
	if (st != GPO_OK)
		return st;
	if ((scratch = malloc(bytes > 0 ? bytes : 1)) == NULL)
		return GPO_ERR_NOMEM;
	st = gpo_sort_pairs(ctx, vec, keys_out ? &kv : NULL, &rv, scratch, &bytes);
	free(scratch);
	if (st == GPO_OK && ctx->used == GPO_DEVICE_GPU)
		*on_gpu = true;
	return st;
}

/*
 * Turns leaf nd (key column vec, n rows of which nvalid are not NULL) into
 * a RANK leaf: rank[row] gets each row's level.
 */
static gpo_status
kp_rank_leaf(gpo_ctx *ctx, kp_split sp, const gpo_vector *vec, int64_t n,
			 int64_t nvalid, uint64_t *rank, kp_node *nd, bool *on_gpu)
{
	int			nb = sp.nb;
	gpo_type	t = vec->type;
	void	   *sorted = malloc(gpo_type_size(t) * n);
	int64_t    *perm = malloc(sizeof(int64_t) * n);
	uint64_t   *codes = malloc(sizeof(uint64_t) * n);
	int64_t		ndist = 0;
	gpo_status	st = GPO_ERR_NOMEM;

	if (sorted == NULL || perm == NULL || codes == NULL)
		goto done;
	if ((st = kp_sort(ctx, vec, n, sorted, perm, on_gpu)) != GPO_OK)
		goto done;
#pragma omp parallel for num_threads(sp.nt) schedule(dynamic, 1)
	for (int b = 0; b < nb; b++)
		KP_BY_TYPE(t, kp_code_range, sorted, gpo_block_lo(nvalid, b, nb),
				   gpo_block_lo(nvalid, b + 1, nb), codes);
	st = kp_dense(sp, n, nvalid, perm, codes, NULL, rank, &nd->table, NULL,
				  &ndist);
	if (st != GPO_OK)
		goto done;
	nd->kind = KP_RANK;
	nd->null_level = (uint64_t) ndist;
	nd->bits = kp_bits(ndist == 0 ? 0 : (uint64_t) ndist - (nvalid == n));
done:
	free(sorted);
	free(perm);
	free(codes);
	return st;
}

/*
 * Makes nd the PAIR node of the levels ua (ba bits) and ub (bb bits) of n
 * rows: rank[row] gets the dense rank of each row's level pair.
 */
static gpo_status
kp_rank_pair(gpo_ctx *ctx, kp_split sp, int64_t n, const uint64_t *ua, int ba,
			 const uint64_t *ub, int bb, uint64_t *rank, kp_node *nd,
			 bool *on_gpu)
{
	uint64_t   *tmp = malloc(sizeof(uint64_t) * n);
	uint64_t   *sorted = malloc(sizeof(uint64_t) * n);
	int64_t    *perm = malloc(sizeof(int64_t) * n);
	int64_t    *perm1 = NULL;
	gpo_chunk	ch = {tmp, NULL, n};
	gpo_vector	v = {GPO_INT64, 1, &ch};
	bool		one_sort = ba + bb <= gpo_keypack_pair_bits && bb < 64;
	int64_t		ndist = 0;
	gpo_status	st = GPO_ERR_NOMEM;

	if (tmp == NULL || sorted == NULL || perm == NULL)
		goto done;
	if (one_sort)
	{
		/* one sort of the combined code */
#pragma omp parallel for num_threads(sp.nt) schedule(dynamic, KP_LOOP_CHUNK)
		for (int64_t i = 0; i < n; i++)
			tmp[i] = ((ua[i] << bb) | ub[i]) ^ KP_SIGN;
		if ((st = kp_sort(ctx, &v, n, sorted, perm, on_gpu)) != GPO_OK)
			goto done;
#pragma omp parallel for num_threads(sp.nt) schedule(dynamic, KP_LOOP_CHUNK)
		for (int64_t j = 0; j < n; j++)
			sorted[j] ^= KP_SIGN;
		st = kp_dense(sp, n, n, perm, sorted, NULL, rank, &nd->table, NULL,
					  &ndist);
		nd->split = bb;
	}
	else
	{
		/* stable sorts by the right level, then by the left level */
		if ((perm1 = malloc(sizeof(int64_t) * n)) == NULL)
			goto done;
#pragma omp parallel for num_threads(sp.nt) schedule(dynamic, KP_LOOP_CHUNK)
		for (int64_t i = 0; i < n; i++)
			tmp[i] = ub[i] ^ KP_SIGN;
		if ((st = kp_sort(ctx, &v, n, NULL, perm1, on_gpu)) != GPO_OK)
			goto done;
#pragma omp parallel for num_threads(sp.nt) schedule(dynamic, KP_LOOP_CHUNK)
		for (int64_t j = 0; j < n; j++)
			tmp[j] = ua[perm1[j]] ^ KP_SIGN;
		if ((st = kp_sort(ctx, &v, n, sorted, perm, on_gpu)) != GPO_OK)
			goto done;
#pragma omp parallel for num_threads(sp.nt) schedule(dynamic, KP_LOOP_CHUNK)
		for (int64_t j = 0; j < n; j++)
		{
			perm[j] = perm1[perm[j]];
			sorted[j] ^= KP_SIGN;
			tmp[j] = ub[perm[j]];
		}
		st = kp_dense(sp, n, n, perm, sorted, tmp, rank, &nd->table,
					  &nd->table2, &ndist);
	}
	if (st != GPO_OK)
		goto done;
	nd->kind = KP_PAIR;
	nd->bits = kp_bits(ndist == 0 ? 0 : (uint64_t) ndist - 1);
done:
	free(tmp);
	free(sorted);
	free(perm);
	free(perm1);
	return st;
}

/* Bits of an OFFSET leaf of a column with stats s over n rows (65: too wide). */
static int
kp_offset_bits(const kp_stats *s, int64_t n)
{
	uint64_t	span = s->max - s->min;

	if (s->nvalid == 0)
		return 0;
	if (s->nvalid == n)
		return kp_bits(span);
	return span == UINT64_MAX ? 65 : kp_bits(span + 1);
}

/* Total bits of kp's components. */
static int
kp_total_bits(const gpo_keypack *kp)
{
	int			total = 0;

	for (int c = 0; c < kp->ncomp; c++)
		total += kp->nodes[kp->comp[c]].bits;
	return total;
}

/* Checks gpo_keypack_build's arguments. */
static gpo_status
kp_check(gpo_ctx *ctx, int nkeys, const gpo_vector *keys,
		 const gpo_vector *packed, gpo_keypack **info)
{
	gpo_status	st;

	if (nkeys < 1 || nkeys > GPO_KEYPACK_MAX_KEYS || keys == NULL ||
		info == NULL)
	{
		gpo_set_detail(ctx, "keypack needs 1 to %d key vectors and an info pointer",
					   GPO_KEYPACK_MAX_KEYS);
		return GPO_ERR_INVALID;
	}
	for (int k = 0; k < nkeys; k++)
	{
		if ((st = gpo_check_vector(ctx, &keys[k], "key")) != GPO_OK)
			return st;
		if (!gpo_agg_key_type_ok(keys[k].type))
		{
			gpo_set_detail(ctx, "keys of type %s are not supported",
						   gpo_type_name(keys[k].type));
			return GPO_ERR_INVALID;
		}
		if (gpo_vector_rows(&keys[k]) != gpo_vector_rows(&keys[0]))
		{
			gpo_set_detail(ctx, "key %d has %lld rows, key 0 has %lld", k,
						   (long long) gpo_vector_rows(&keys[k]),
						   (long long) gpo_vector_rows(&keys[0]));
			return GPO_ERR_INVALID;
		}
	}
	if ((st = gpo_check_vector(ctx, packed, "packed")) != GPO_OK)
		return st;
	if (packed->type != GPO_INT64)
	{
		gpo_set_detail(ctx, "packed must be INT64, not %s",
					   gpo_type_name(packed->type));
		return GPO_ERR_INVALID;
	}
	if (gpo_vector_rows(packed) < gpo_vector_rows(&keys[0]))
	{
		gpo_set_detail(ctx, "packed holds %lld rows, %lld needed",
					   (long long) gpo_vector_rows(packed),
					   (long long) gpo_vector_rows(&keys[0]));
		return GPO_ERR_CAPACITY;
	}
	return GPO_OK;
}

/* Packs the keys' rows into packed (see gpo_keypack.h). */
gpo_status
gpo_keypack_build(gpo_ctx *ctx, int nkeys, const gpo_vector *keys,
				  gpo_vector *packed, gpo_keypack **info)
{
	gpo_keypack *kp = NULL;
	int64_t    *starts[GPO_KEYPACK_MAX_KEYS + 1] = {NULL};
	uint64_t   *lvl[KP_MAX_NODES] = {NULL};
	kp_stats	stats[GPO_KEYPACK_MAX_KEYS];
	kp_src		src[GPO_KEYPACK_MAX_KEYS];
	bool		on_gpu = false;
	gpo_status	st;
	int64_t		n;
	kp_split	sp;

	if (info != NULL)
		*info = NULL;
	if (ctx == NULL)
		return GPO_ERR_INVALID;
	ctx->detail[0] = '\0';
	ctx->used = GPO_DEVICE_CPU;
	if ((st = kp_check(ctx, nkeys, keys, packed, info)) != GPO_OK)
		return st;
	n = gpo_vector_rows(&keys[0]);
	gpo_omp_prepare(gpo_threads(ctx));
	sp.nb = gpo_pieces(ctx, n);
	sp.nt = gpo_team(ctx, sp.nb);
	st = GPO_ERR_NOMEM;
	if ((kp = calloc(1, sizeof(gpo_keypack))) == NULL)
		goto done;
	for (int k = 0; k <= nkeys; k++)
	{
		const gpo_vector *v = k < nkeys ? &keys[k] : packed;

		if ((starts[k] = malloc(sizeof(int64_t) * (v->nchunks + 1))) == NULL)
			goto done;
		gpo_chunk_starts(v, starts[k]);
	}
	if ((st = kp_gather_stats(sp, n, nkeys, keys, starts, stats)) != GPO_OK)
		goto done;

	/* every key an OFFSET leaf */
	kp->nkeys = kp->nnodes = kp->ncomp = nkeys;
	for (int k = 0; k < nkeys; k++)
	{
		kp_node    *nd = &kp->nodes[k];

		kp->types[k] = keys[k].type;
		nd->kind = KP_OFFSET;
		nd->key = k;
		nd->base = stats[k].nvalid > 0 ? stats[k].min : 0;
		nd->null_level = stats[k].nvalid > 0 ? stats[k].max - stats[k].min + 1 : 0;
		nd->bits = kp_offset_bits(&stats[k], n);
		kp->comp[k] = k;
	}

	/* too wide: rank the widest columns that ranks would narrow */
	while (kp_total_bits(kp) > gpo_keypack_fit_bits)
	{
		int			best = -1;

		for (int k = 0; k < nkeys; k++)
		{
			kp_node    *nd = &kp->nodes[k];
			int			most = kp_bits((uint64_t) stats[k].nvalid - (stats[k].nvalid == n));

			if (nd->kind == KP_OFFSET && nd->bits > most &&
				(best < 0 || nd->bits > kp->nodes[best].bits))
				best = k;
		}
		if (best < 0)
			break;
		if ((lvl[best] = malloc(sizeof(uint64_t) * n)) == NULL)
		{
			st = GPO_ERR_NOMEM;
			goto done;
		}
		st = kp_rank_leaf(ctx, sp, &keys[best], n, stats[best].nvalid,
						  lvl[best], &kp->nodes[best], &on_gpu);
		if (st != GPO_OK)
			goto done;
	}

	/* still too wide: rank adjacent pairs, the widest pair first */
	while (kp_total_bits(kp) > gpo_keypack_fit_bits && kp->ncomp > 1)
	{
		int			i = 0;
		int			a,
					b,
					id = kp->nnodes;

		for (int c = 1; c + 1 < kp->ncomp; c++)
			if (kp->nodes[kp->comp[c]].bits + kp->nodes[kp->comp[c + 1]].bits >
				kp->nodes[kp->comp[i]].bits + kp->nodes[kp->comp[i + 1]].bits)
				i = c;
		a = kp->comp[i];
		b = kp->comp[i + 1];
		for (int side = 0; side < 2; side++)
		{
			int			x = side == 0 ? a : b;
			kp_src		one;

			if (lvl[x] != NULL)
				continue;
			/* an OFFSET leaf (x < nkeys): materialize its levels */
			one.vec = &keys[x];
			one.starts = starts[x];
			one.flat = NULL;
			one.base = kp->nodes[x].base;
			one.null_level = kp->nodes[x].null_level;
			one.shift = 0;
			if ((lvl[x] = malloc(sizeof(uint64_t) * n)) == NULL)
			{
				st = GPO_ERR_NOMEM;
				goto done;
			}
			kp_pack(sp, n, &one, 1, lvl[x], NULL, NULL);
		}
		if ((lvl[id] = malloc(sizeof(uint64_t) * n)) == NULL)
		{
			st = GPO_ERR_NOMEM;
			goto done;
		}
		kp->nnodes++;
		kp->nodes[id].left = a;
		kp->nodes[id].right = b;
		st = kp_rank_pair(ctx, sp, n, lvl[a], kp->nodes[a].bits, lvl[b],
						  kp->nodes[b].bits, lvl[id], &kp->nodes[id], &on_gpu);
		if (st != GPO_OK)
			goto done;
		free(lvl[a]);
		free(lvl[b]);
		lvl[a] = lvl[b] = NULL;
		kp->comp[i] = id;
		for (int c = i + 1; c + 1 < kp->ncomp; c++)
			kp->comp[c] = kp->comp[c + 1];
		kp->ncomp--;
	}

	if (kp_total_bits(kp) > 63)
	{
		gpo_set_detail(ctx, "keypack: packed keys would need %d bits",
					   kp_total_bits(kp));
		st = GPO_ERR_INVALID;	/* cannot happen: one rank fits 63 bits */
		goto done;
	}

	/* concatenate, the first component in the highest bits */
	for (int c = kp->ncomp - 1, shift = 0; c >= 0; c--)
	{
		int			x = kp->comp[c];
		const kp_node *nd = &kp->nodes[x];

		kp->shift[c] = shift;
		src[c].vec = lvl[x] == NULL ? &keys[nd->key] : NULL;
		src[c].starts = lvl[x] == NULL ? starts[nd->key] : NULL;
		src[c].flat = lvl[x];
		src[c].base = nd->base;
		src[c].null_level = nd->null_level;
		src[c].shift = shift;
		shift += nd->bits;
	}
	kp_pack(sp, n, src, kp->ncomp, NULL, packed, starts[nkeys]);
	st = GPO_OK;

done:
	for (int k = 0; k <= GPO_KEYPACK_MAX_KEYS; k++)
		free(starts[k]);
	for (int x = 0; x < KP_MAX_NODES; x++)
		free(lvl[x]);
	if (on_gpu)
		ctx->used = GPO_DEVICE_GPU;
	else if (st == GPO_OK)
		ctx->used = GPO_DEVICE_CPU;
	if (st != GPO_OK)
	{
		gpo_keypack_free(kp);
		return st;
	}
	*info = kp;
	return GPO_OK;
}

/* Writes the values (type t) of leaf nd at cnt levels lv into dst. */
static inline __attribute__((always_inline)) void
kp_decode_values(gpo_type t, const kp_node *nd, const uint64_t *lv,
				 int64_t cnt, char *dst)
{
	for (int64_t i = 0; i < cnt; i++)
	{
		bool		isnull = lv[i] >= nd->null_level;
		uint64_t	code = nd->kind == KP_RANK ? nd->table[isnull ? 0 : lv[i]] :
			nd->base + lv[i];
		uint64_t	raw = isnull ? 0 : gpo_raw_of_code(t, code);

		if (t == GPO_INT64 || t == GPO_FLOAT64)
			((uint64_t *) dst)[i] = raw;
		else
			((uint32_t *) dst)[i] = (uint32_t) raw;
	}
}

/*
 * Writes the keys under node x of rows [i0, i0 + cnt) from their levels lv;
 * spare holds two level arrays for each pair level below.
 */
static void
kp_decode_tile(const gpo_keypack *kp, int x, const uint64_t *lv, int64_t i0,
			   int64_t cnt, void **values, uint8_t **valid,
			   uint64_t (*spare)[KP_DECODE_TILE])
{
	const kp_node *nd = &kp->nodes[x];
	int			k = nd->key;

	if (nd->kind == KP_PAIR)
	{
		uint64_t   *l = spare[0],
				   *r = spare[1];

		if (nd->table2 != NULL)
			for (int64_t i = 0; i < cnt; i++)
			{
				l[i] = nd->table[lv[i]];
				r[i] = nd->table2[lv[i]];
			}
		else
			for (int64_t i = 0; i < cnt; i++)
			{
				uint64_t	c = nd->table[lv[i]];

				l[i] = c >> nd->split;
				r[i] = c & kp_mask(nd->split);
			}
		kp_decode_tile(kp, nd->left, l, i0, cnt, values, valid, spare + 2);
		kp_decode_tile(kp, nd->right, r, i0, cnt, values, valid, spare + 2);
		return;
	}
	if (valid != NULL && valid[k] != NULL)
		for (int64_t i = 0; i < cnt; i++)
			valid[k][i0 + i] = lv[i] < nd->null_level;
	if (values != NULL && values[k] != NULL)
		KP_BY_TYPE(kp->types[k], kp_decode_values, nd, lv, cnt,
				   (char *) values[k] + i0 * gpo_type_size(kp->types[k]));
}

/* Decodes n packed keys (see gpo_keypack.h). */
void
gpo_keypack_decode(const gpo_keypack *info, int64_t n, const int64_t *packed,
				   void **values, uint8_t **valid)
{
	gpo_ctx		ctx;
	int			nb;

	if (info == NULL || n <= 0)
		return;
	gpo_ctx_init(&ctx);
	gpo_omp_prepare(gpo_threads(&ctx));
	nb = gpo_pieces(&ctx, n);
#pragma omp parallel for num_threads(gpo_team(&ctx, nb)) schedule(dynamic, 1)
	for (int b = 0; b < nb; b++)
	{
		int64_t		lo = gpo_block_lo(n, b, nb),
					hi = gpo_block_lo(n, b + 1, nb);
		uint64_t	lv[KP_MAX_NODES][KP_DECODE_TILE];

		for (int64_t i0 = lo; i0 < hi; i0 += KP_DECODE_TILE)
		{
			int64_t		cnt = hi - i0 < KP_DECODE_TILE ? hi - i0 : KP_DECODE_TILE;

			for (int c = 0; c < info->ncomp; c++)
			{
				int			x = info->comp[c];
				int			sh = info->shift[c];
				uint64_t	m = kp_mask(info->nodes[x].bits);

				for (int64_t i = 0; i < cnt; i++)
					lv[0][i] = ((uint64_t) packed[i0 + i] >> sh) & m;
				kp_decode_tile(info, x, lv[0], i0, cnt, values, valid, lv + 1);
			}
		}
	}
}

/* Number of keys of a packing. */
int
gpo_keypack_nkeys(const gpo_keypack *info)
{
	return info->nkeys;
}

/* Type of key k of a packing. */
gpo_type
gpo_keypack_type(const gpo_keypack *info, int k)
{
	return info->types[k];
}

/* Frees a packing. */
void
gpo_keypack_free(gpo_keypack *info)
{
	if (info == NULL)
		return;
	for (int x = 0; x < info->nnodes; x++)
	{
		free(info->nodes[x].table);
		free(info->nodes[x].table2);
	}
	free(info);
}

/* Whether a and b pack every key tuple to the same key (see gpo_keypack.h). */
bool
gpo_keypack_same(const gpo_keypack *a, const gpo_keypack *b)
{
	if (a == NULL || b == NULL || a->nkeys != b->nkeys ||
		a->nnodes != b->nnodes || a->ncomp != b->ncomp)
		return false;
	for (int k = 0; k < a->nkeys; k++)
		if (a->types[k] != b->types[k])
			return false;
	for (int c = 0; c < a->ncomp; c++)
		if (a->comp[c] != b->comp[c] || a->shift[c] != b->shift[c])
			return false;
	for (int i = 0; i < a->nnodes; i++)
	{
		const kp_node *x = &a->nodes[i];
		const kp_node *y = &b->nodes[i];

		if (x->kind != KP_OFFSET || y->kind != KP_OFFSET ||
			x->key != y->key || x->bits != y->bits || x->base != y->base ||
			x->null_level != y->null_level)
			return false;
	}
	return true;
}
