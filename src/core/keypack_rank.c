/*
 * keypack_rank.c
 *	  Key packing's ranks: dense ranks of a key column's codes (RANK leaves)
 *	  and of two components' level pairs (PAIR nodes), by gpo_sort_pairs
 *	  (a leaf of few distinct codes on the CPU face: keypack_rank_hash.c).
 */
#include <stdlib.h>

#include "keypack_internal.h"

/* Rows a thread takes at a time in the element-wise loops. */
#define KP_LOOP_CHUNK 16384
/* XOR with this turns a level into INT64 bits whose key code is the level. */
#define KP_SIGN			UINT64_C(0x8000000000000000)

/* Key codes of values [lo, hi) of a flat array of type t into codes. */
static inline __attribute__((always_inline)) void
kp_code_range(gpo_type t, const void *data, int64_t lo, int64_t hi,
			  uint64_t *codes)
{
	for (int64_t j = lo; j < hi; j++)
		codes[j] = kp_code(t, data, j);
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
gpo_status
gpo_kp_rank_leaf(gpo_ctx *ctx, kp_split sp, const gpo_vector *vec, int64_t n,
				 int64_t nvalid, uint64_t *rank, kp_node *nd, bool *on_gpu)
{
	int			nb = sp.nb;
	gpo_type	t = vec->type;
	void	   *sorted = NULL;
	int64_t    *perm = NULL;
	uint64_t   *codes = NULL;
	int64_t		ndist = 0;
	gpo_status	st = GPO_ERR_NOMEM;
	gpo_device	face;

	/* on the CPU face, distinct codes few against the rows go through sets */
	if (gpo_pick_face(ctx, n, &face) == GPO_OK && face == GPO_DEVICE_CPU &&
		gpo_kp_rank_hash(sp, vec, n, rank, nd))
		goto leveled;
	sorted = malloc(gpo_type_size(t) * n);
	perm = malloc(sizeof(int64_t) * n);
	codes = malloc(sizeof(uint64_t) * n);
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
leveled:
	ndist = (int64_t) nd->null_level;
	nd->bits = kp_bits(ndist == 0 ? 0 : (uint64_t) ndist - (nvalid == n));
	st = GPO_OK;
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
gpo_status
gpo_kp_rank_pair(gpo_ctx *ctx, kp_split sp, int64_t n, const uint64_t *ua,
				 int ba, const uint64_t *ub, int bb, uint64_t *rank,
				 kp_node *nd, bool *on_gpu)
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
