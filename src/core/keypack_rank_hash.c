/*
 * keypack_rank_hash.c
 *	  Key packing's ranks through hash sets, on the CPU face: a rank leaf
 *	  whose distinct codes are few against its rows is ranked by one set of
 *	  codes a thread, the sets' codes sorted and made distinct (the table by
 *	  rank), and one lookup a row, instead of a radix sort of every row over
 *	  all the bits that vary.  On 2 cores (bench/cpu_keypack), an int32 key
 *	  beside an int64 key of 60,000 distinct full-width values over 1M rows
 *	  packed in 17-20 ms against 144-173 ms by the sort; every row distinct,
 *	  where the sets give up halfway, in the sort's time (140-145 ms against
 *	  138-145).  Below 1,024 distinct codes (date_part('dow', ts) beside
 *	  another key) the sets stay small, where the sort and its ranks were a
 *	  fifth of such a query on 2 cores.
 */
#include <omp.h>
#include <stdlib.h>

#include "gpo_agg_internal.h"
#include "keypack_internal.h"

/* A thread's set holds at most its rows / KP_HASH_SHARE codes ... */
#define KP_HASH_SHARE	2
/* ... but KP_HASH_FEW whatever its rows, and at most KP_HASH_MOST (few MB). */
#define KP_HASH_FEW		1024
#define KP_HASH_MOST	(INT64_C(1) << 18)
/*
 * A set gives up early once KP_HASH_PROBE of its rows came and more than
 * three quarters of them were new codes: nearly every row distinct, which
 * the sort ranks as fast, so little work is thrown away.
 */
#define KP_HASH_PROBE	65536
/* Slots of a new set (a power of two). */
#define KP_HASH_FIRST	4096

/* An open-addressing set of codes (the lookup set: with a value for each). */
typedef struct kp_hset
{
	uint64_t   *code;
	uint64_t   *val;
	uint8_t    *used;
	int64_t		cap;			/* slots, a power of two */
	int64_t		n;				/* codes held; -1: gave up */
	int64_t		most;			/* codes it may hold */
	int64_t		seen;			/* rows added, NULLs aside */
} kp_hset;

/* code's slot in s: where it is, or the empty one it would take. */
static inline int64_t
kp_hset_slot(const kp_hset *s, uint64_t code)
{
	uint64_t	h = code * UINT64_C(0x9e3779b97f4a7c15);
	int64_t		i = (int64_t) (h >> 32) & (s->cap - 1);

	while (s->used[i] && s->code[i] != code)
		i = (i + 1) & (s->cap - 1);
	return i;
}

/* Gives s cap empty slots, with values if vals; false on no memory. */
static bool
kp_hset_alloc(kp_hset *s, int64_t cap, bool vals)
{
	s->code = malloc(sizeof(uint64_t) * cap);
	s->val = vals ? malloc(sizeof(uint64_t) * cap) : NULL;
	s->used = calloc(cap, 1);
	s->cap = cap;
	s->n = 0;
	return s->code != NULL && (!vals || s->val != NULL) && s->used != NULL;
}

/* Frees s's slots. */
static void
kp_hset_free(kp_hset *s)
{
	free(s->code);
	free(s->val);
	free(s->used);
	s->code = s->val = NULL;
	s->used = NULL;
}

/* Doubles s's slots, keeping its codes (no values yet); false on no memory. */
static bool
kp_hset_grow(kp_hset *s)
{
	kp_hset		old = *s;
	bool		ok = kp_hset_alloc(s, old.cap * 2, false);

	if (ok)
		for (int64_t i = 0; i < old.cap; i++)
			if (old.used[i])
			{
				int64_t		j = kp_hset_slot(s, old.code[i]);

				s->used[j] = 1;
				s->code[j] = old.code[i];
				s->n++;
			}
	kp_hset_free(&old);
	return ok;
}

/*
 * Adds code to s; false when s would pass s->most codes, when its first
 * KP_HASH_PROBE rows were nearly all distinct, or on no memory.
 */
static inline bool
kp_hset_add(kp_hset *s, uint64_t code)
{
	int64_t		i = kp_hset_slot(s, code);

	if (++s->seen == KP_HASH_PROBE && s->n * 4 > KP_HASH_PROBE * 3)
		return false;
	if (s->used[i])
		return true;
	if (s->n >= s->most)
		return false;
	if ((s->n + 1) * 2 > s->cap)
	{
		if (!kp_hset_grow(s))
			return false;
		i = kp_hset_slot(s, code);
	}
	s->used[i] = 1;
	s->code[i] = code;
	s->n++;
	return true;
}

/*
 * Rows lo .. hi - 1 of vec (chunk starts) into set s, or, with rank (the
 * set holding each code's rank), their ranks into rank (NULL rows: none).
 * False when s would pass s->most codes or on no memory.
 */
static bool
kp_hash_pass(const gpo_vector *vec, const int64_t *starts, int64_t lo,
			 int64_t hi, kp_hset *s, uint64_t *rank, uint64_t none)
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
				rank[r + j] = s->val[kp_hset_slot(s, c)];
			else if (!kp_hset_add(s, c))
				return false;
		}
		cur.off += take;
		r += take;
	}
	return true;
}

/*
 * The threads' sets of vec's codes (sets[0 .. nt - 1], each thread's
 * pieces into its own): false when some set gave up.
 */
static bool
kp_hash_collect(kp_split sp, const gpo_vector *vec, const int64_t *starts,
				int64_t n, kp_hset *sets)
{
	int			nb = sp.nb;
	int64_t		most = n / sp.nt / KP_HASH_SHARE;
	bool		ok = true;

	if (most < KP_HASH_FEW)
		most = KP_HASH_FEW;
	if (most > KP_HASH_MOST)
		most = KP_HASH_MOST;
	for (int k = 0; k < sp.nt; k++)
	{
		ok = ok && kp_hset_alloc(&sets[k], KP_HASH_FIRST, false);
		sets[k].most = most;
	}
	if (!ok)
		return false;
#pragma omp parallel for num_threads(sp.nt) schedule(dynamic, 1)
	for (int b = 0; b < nb; b++)
	{
		kp_hset    *s = &sets[omp_get_thread_num()];

		if (s->n >= 0 &&
			!kp_hash_pass(vec, starts, gpo_block_lo(n, b, nb),
						  gpo_block_lo(n, b + 1, nb), s, NULL, 0))
			s->n = -1;
	}
	for (int k = 0; k < sp.nt; k++)
		ok = ok && sets[k].n >= 0;
	return ok;
}

/*
 * The distinct codes of the threads' sets in ascending order into a
 * malloc'd *table, their number into *nd; false on no memory.
 */
static bool
kp_hash_table(kp_split sp, kp_hset *sets, uint64_t **table, int64_t *nd)
{
	int64_t		m = 0,
				d = 0;
	uint64_t   *all,
			   *tmp;
	int64_t    *rows,
			   *trows,
			   *hist;
	bool		ok;

	for (int k = 0; k < sp.nt; k++)
		m += sets[k].n;
	all = malloc(sizeof(uint64_t) * (m + 1));
	tmp = malloc(sizeof(uint64_t) * (m + 1));
	rows = malloc(sizeof(int64_t) * (m + 1));
	trows = malloc(sizeof(int64_t) * (m + 1));
	hist = malloc(sizeof(int64_t) * 256 * sp.nt);
	ok = all != NULL && tmp != NULL && rows != NULL && trows != NULL &&
		hist != NULL;
	if (ok)
	{
		m = 0;
		for (int k = 0; k < sp.nt; k++)
			for (int64_t i = 0; i < sets[k].cap; i++)
				if (sets[k].used[i])
				{
					rows[m] = m;
					all[m++] = sets[k].code[i];
				}
		gpo_radix_sort_varying(all, rows, tmp, trows, m, sp.nt, hist);
		for (int64_t i = 0; i < m; i++)
			if (i == 0 || all[i] != all[i - 1])
				all[d++] = all[i];
		*table = all;
		*nd = d;
	}
	else
		free(all);
	free(tmp);
	free(rows);
	free(trows);
	free(hist);
	return ok;
}

/*
 * gpo_kp_rank_leaf through hash sets where every thread's rows hold at
 * most KP_HASH_MOST distinct codes, and at most KP_HASH_FEW or one for
 * KP_HASH_SHARE rows: true when done, false (nothing changed) otherwise
 * or when memory ran out.  The same ranks, table and levels as the sort's.
 */
bool
gpo_kp_rank_hash(kp_split sp, const gpo_vector *vec, int64_t n,
				 uint64_t *rank, kp_node *nd)
{
	int			nb = sp.nb;
	kp_hset    *sets = calloc(sp.nt, sizeof(kp_hset));
	kp_hset		whole = {0};
	int64_t    *starts = malloc(sizeof(int64_t) * (vec->nchunks + 1));
	uint64_t   *table = NULL;
	int64_t		nd_count = 0;
	bool		ok = sets != NULL && starts != NULL;

	if (ok)
	{
		gpo_chunk_starts(vec, starts);
		ok = kp_hash_collect(sp, vec, starts, n, sets) &&
			kp_hash_table(sp, sets, &table, &nd_count);
	}
	if (sets != NULL)
		for (int k = 0; k < sp.nt; k++)
			kp_hset_free(&sets[k]);
	if (ok)
	{
		int64_t		cap = KP_HASH_FIRST;

		while (cap < 2 * (nd_count + 1))
			cap *= 2;
		ok = kp_hset_alloc(&whole, cap, true);
	}
	if (ok)
	{
		for (int64_t i = 0; i < nd_count; i++)
		{
			int64_t		j = kp_hset_slot(&whole, table[i]);

			whole.used[j] = 1;
			whole.code[j] = table[i];
			whole.val[j] = (uint64_t) i;
		}
#pragma omp parallel for num_threads(sp.nt) schedule(dynamic, 1)
		for (int b = 0; b < nb; b++)
			(void) kp_hash_pass(vec, starts, gpo_block_lo(n, b, nb),
								gpo_block_lo(n, b + 1, nb), &whole, rank,
								(uint64_t) nd_count);
		nd->table = table;
		nd->kind = KP_RANK;
		nd->null_level = (uint64_t) nd_count;
		table = NULL;
	}
	kp_hset_free(&whole);
	free(table);
	free(sets);
	free(starts);
	return ok;
}
