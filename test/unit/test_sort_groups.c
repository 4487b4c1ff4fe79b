/*
 * test_sort_groups.c
 *	  The order of groups by several keys (gpo_sort_groups) against a naive
 *	  reference: an insertion of each group after every earlier group that
 *	  is not greater, so stable.  Keys of narrow and full 64-bit codes (the
 *	  top bit set, where a signed compare would go wrong), many ties, NULLs
 *	  (every key NULL, none, some), 1 to 4 keys, 0 to 70,000 groups, 1 and 4
 *	  threads, and bad arguments.
 */
#include <stdlib.h>
#include <string.h>

#include "gpo_agg.h"
#include "test_util.h"

#define SG_MAX_KEYS 4

/* <0, 0, >0: group a before, tied with, after group b in the wanted order. */
static int
sg_cmp(int nkeys, uint64_t *const *codes, uint8_t *const *valid, int64_t a,
	   int64_t b)
{
	for (int k = 0; k < nkeys; k++)
	{
		bool		va = valid[k] == NULL || valid[k][a];
		bool		vb = valid[k] == NULL || valid[k][b];

		if (va != vb)
			return va ? -1 : 1;
		if (va && codes[k][a] != codes[k][b])
			return codes[k][a] < codes[k][b] ? -1 : 1;
	}
	return 0;
}

/* A random code of kind kind: 0 few values, 1 narrow, 2 the full 64 bits. */
static uint64_t
sg_code(int kind)
{
	if (kind == 0)
		return rng_below(3);
	if (kind == 1)
		return 1000 + rng_below(5000);
	return rng_next();
}

/* One case: n groups of nkeys keys, null_pct% of some keys' values NULL. */
static void
sort_groups_case(tgroup *g, int threads, int nkeys, int64_t n, int null_pct)
{
	tcase		c;
	gpo_ctx		ctx;
	uint64_t   *codes[SG_MAX_KEYS];
	uint8_t    *valid[SG_MAX_KEYS];
	int64_t    *perm = malloc(sizeof(int64_t) * (size_t) (n + 1));
	int64_t    *want = malloc(sizeof(int64_t) * (size_t) (n + 1));
	bool	   *seen = calloc((size_t) (n + 1), 1);
	gpo_status	st;

	case_begin(&c, "sort_groups threads %d keys %d groups %lld null %d%%",
			   threads, nkeys, (long long) n, null_pct);
	test_ctx(&ctx, GPO_DEVICE_CPU, threads);
	for (int k = 0; k < nkeys; k++)
	{
		int			kind = (int) rng_below(3);
		bool		nulls = null_pct > 0 && rng_chance(2, 3);

		codes[k] = malloc(sizeof(uint64_t) * (size_t) (n + 1));
		valid[k] = nulls ? malloc((size_t) (n + 1)) : NULL;
		for (int64_t i = 0; i < n; i++)
		{
			codes[k][i] = sg_code(kind);
			if (valid[k])
				valid[k][i] = !rng_chance((uint64_t) null_pct, 100);
		}
	}
	/* the reference: stable insertion, on small inputs; else checked pairwise */
	st = gpo_sort_groups(&ctx, nkeys, (const uint64_t *const *) codes,
						 (const uint8_t *const *) valid, n, perm);
	expect(&c, st == GPO_OK, "status %d", (int) st);
	for (int64_t i = 0; i < n && c.ok; i++)
	{
		expect(&c, perm[i] >= 0 && perm[i] < n && !seen[perm[i]],
			   "place %lld: group %lld out of range or twice", (long long) i,
			   (long long) perm[i]);
		if (c.ok)
			seen[perm[i]] = true;
	}
	if (c.ok && n <= 5000)
	{
		for (int64_t i = 0; i < n; i++)
		{
			int64_t		j = i;

			while (j > 0 && sg_cmp(nkeys, codes, valid, want[j - 1], i) > 0)
			{
				want[j] = want[j - 1];
				j--;
			}
			want[j] = i;
		}
		for (int64_t i = 0; i < n && c.ok; i++)
			expect(&c, perm[i] == want[i], "place %lld: group %lld, want %lld",
				   (long long) i, (long long) perm[i], (long long) want[i]);
	}
	for (int64_t i = 1; i < n && c.ok; i++)
	{
		int			o = sg_cmp(nkeys, codes, valid, perm[i - 1], perm[i]);

		expect(&c, o < 0 || (o == 0 && perm[i - 1] < perm[i]),
			   "places %lld, %lld out of order or not stable", (long long) (i - 1),
			   (long long) i);
	}
	case_result(g, c.ok, c.msg);
	for (int k = 0; k < nkeys; k++)
	{
		free(codes[k]);
		free(valid[k]);
	}
	free(perm);
	free(want);
	free(seen);
}

/* Bad arguments, no keys, no groups. */
static void
sort_groups_edges(tgroup *g)
{
	tcase		c;
	uint64_t	k0[3] = {5, 1, 5};
	const uint64_t *codes[1] = {k0};
	int64_t		perm[3];

	case_begin(&c, "sort_groups edges");
	expect(&c, gpo_sort_groups(NULL, 1, codes, NULL, -1, perm) == GPO_ERR_INVALID,
		   "negative groups");
	expect(&c, gpo_sort_groups(NULL, 1, codes, NULL, 3, NULL) == GPO_ERR_INVALID,
		   "no perm");
	expect(&c, gpo_sort_groups(NULL, 1, codes, NULL, 0, NULL) == GPO_OK, "no groups");
	expect(&c, gpo_sort_groups(NULL, 0, NULL, NULL, 3, perm) == GPO_OK &&
		   perm[0] == 0 && perm[1] == 1 && perm[2] == 2, "no keys: not the identity");
	expect(&c, gpo_sort_groups(NULL, 1, codes, NULL, 3, perm) == GPO_OK &&
		   perm[0] == 1 && perm[1] == 0 && perm[2] == 2, "ctx NULL: wrong order");
	case_result(g, c.ok, c.msg);
}

/* The group's cases. */
void
test_sort_groups(void)
{
	/* 70000 sorts with 2 threads, 200000 with 4 (SORT_GROUPS_THREAD_ROWS) */
	static const int64_t sizes[] = {0, 1, 2, 3, 17, 300, 4096, 5000, 70000, 200000};
	tgroup		g;

	group_begin(&g, "sort_groups");
	for (int t = 1; t <= 4; t += 3)
		for (int nk = 1; nk <= SG_MAX_KEYS; nk++)
			for (int si = 0; si < 10; si++)
			{
				sort_groups_case(&g, t, nk, sizes[si], 0);
				sort_groups_case(&g, t, nk, sizes[si], 20);
			}
	sort_groups_case(&g, 4, 2, 3000, 100);
	sort_groups_edges(&g);
	group_end(&g);
}
