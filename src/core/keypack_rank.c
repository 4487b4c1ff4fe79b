/*
 * keypack_rank.c
 *	  Key packing's ranks: dense ranks of a key column's codes (RANK leaves)
 *	  and of two components' level pairs (PAIR nodes), by gpo_sort_pairs.
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
 * A rank leaf of at most KP_FEW distinct codes is ranked through a small
 * hash set instead of a sort of all its rows.  On 2 cores, 2M rows of
 * date_part('dow', ts) beside another key: the sort and its ranks were
 * about a fifth of the query.
 */
#define KP_FEW			1024
#define KP_FEW_SLOTS	4096	/* a power of two, at least 2 KP_FEW */

/* A small open-addressing set of codes, with a value for each. */
typedef struct kp_few
{
	uint64_t	code[KP_FEW_SLOTS];
	uint64_t	val[KP_FEW_SLOTS];
	uint8_t		used[KP_FEW_SLOTS];
	int			n;
} kp_few;

/* code's slot in set s: where it is, or the empty one it would take. */
static inline int
kp_few_slot(const kp_few *s, uint64_t code)
{
	uint64_t	h = code * UINT64_C(0x9e3779b97f4a7c15);
	int			i = (int) (h >> 52) & (KP_FEW_SLOTS - 1);

	while (s->used[i] && s->code[i] != code)
		i = (i + 1) & (KP_FEW_SLOTS - 1);
	return i;
}

/* Adds code to s: its slot, or -1 when s already holds KP_FEW other codes. */
static inline int
kp_few_add(kp_few *s, uint64_t code)
{
	int			i = kp_few_slot(s, code);

	if (s->used[i])
		return i;
	if (s->n >= KP_FEW)
		return -1;
	s->used[i] = 1;
	s->code[i] = code;
	s->n++;
	return i;
}

/*
 * Rows lo .. hi - 1 of vec (chunk starts) into set s, or, with ranks (the
 * set holding each code's rank), their ranks into rank (NULL rows: none).
 * False when s fills up.
 */
static bool
kp_few_pass(const gpo_vector *vec, const int64_t *starts, int64_t lo,
			int64_t hi, kp_few *s, uint64_t *rank, uint64_t none)
{
	gpo_type	t = vec->type;
	gpo_cursor	cur;

	gpo_cursor_seek(&cur, vec, starts, lo);
	for (int64_t r = lo; r < hi;)
	{
		int64_t		avail = gpo_cursor_avail(&cur);
		int64_t		take = avail < hi - r ? avail : hi - r;
		const gpo_chunk *ch = gpo_cursor_chunk(&cur);

		for (int64_t j = 0; j < take; j++)
		{
			int64_t		off = cur.off + j;
			uint64_t	c;

			if (!gpo_valid(ch, off))
			{
				if (rank != NULL)
					rank[r + j] = none;
				continue;
			}
			c = gpo_code_of_raw(t, gpo_raw_at(t, ch->data, off), 1);
			if (rank != NULL)
				rank[r + j] = s->val[kp_few_slot(s, c)];
			else if (kp_few_add(s, c) < 0)
				return false;
		}
		cur.off += take;
		r += take;
	}
	return true;
}

/*
 * gpo_kp_rank_leaf through kp_few sets where the leaf has at most KP_FEW
 * distinct codes: true when done, false (nothing changed) when it has more
 * or memory ran out.  The same ranks, table and levels as the sort's.
 */
static bool
kp_rank_few(kp_split sp, const gpo_vector *vec, int64_t n, uint64_t *rank,
			kp_node *nd)
{
	int			nb = sp.nb;
	kp_few	   *sets = calloc(nb + 1, sizeof(kp_few));
	int64_t    *starts = malloc(sizeof(int64_t) * (vec->nchunks + 1));
	uint64_t   *all = NULL;
	uint64_t   *table = NULL;
	kp_few	   *whole;
	bool		ok = sets != NULL && starts != NULL;
	int64_t		m = 0,
				nd_count = 0;

	if (ok)
	{
		gpo_chunk_starts(vec, starts);
#pragma omp parallel for num_threads(sp.nt) schedule(dynamic, 1)
		for (int b = 0; b < nb; b++)
			if (!kp_few_pass(vec, starts, gpo_block_lo(n, b, nb),
							 gpo_block_lo(n, b + 1, nb), &sets[b], NULL, 0))
				sets[b].n = -1;
		for (int b = 0; b < nb && ok; b++)
			ok = sets[b].n >= 0;
	}
	if (ok)
		ok = (all = malloc(sizeof(uint64_t) * ((int64_t) nb * KP_FEW + 1))) != NULL;
	if (ok)
	{
		/* the blocks' codes, sorted and made distinct: the table by rank */
		for (int b = 0; b < nb; b++)
			for (int i = 0; i < KP_FEW_SLOTS; i++)
				if (sets[b].used[i])
					all[m++] = sets[b].code[i];
		qsort(all, m, sizeof(uint64_t), gpo_code_cmp);
		for (int64_t i = 0; i < m; i++)
			if (i == 0 || all[i] != all[i - 1])
				all[nd_count++] = all[i];
		ok = nd_count <= KP_FEW &&
			(table = malloc(sizeof(uint64_t) * (nd_count + 1))) != NULL;
	}
	if (ok)
	{
		whole = &sets[nb];
		for (int64_t i = 0; i < nd_count; i++)
		{
			table[i] = all[i];
			whole->val[kp_few_add(whole, all[i])] = (uint64_t) i;
		}
#pragma omp parallel for num_threads(sp.nt) schedule(dynamic, 1)
		for (int b = 0; b < nb; b++)
			(void) kp_few_pass(vec, starts, gpo_block_lo(n, b, nb),
							   gpo_block_lo(n, b + 1, nb), whole, rank,
							   (uint64_t) nd_count);
		nd->table = table;
		nd->kind = KP_RANK;
		nd->null_level = (uint64_t) nd_count;
	}
	free(sets);
	free(starts);
	free(all);
	return ok;
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

	/*
	 * on the CPU face, a few distinct codes go through a small set, and
	 * more that are still few against the rows through hash sets
	 */
	if (gpo_pick_face(ctx, n, &face) == GPO_OK && face == GPO_DEVICE_CPU &&
		(kp_rank_few(sp, vec, n, rank, nd) ||
		 gpo_kp_rank_hash(sp, vec, n, rank, nd)))
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
