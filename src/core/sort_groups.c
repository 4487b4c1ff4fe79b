/*
 * sort_groups.c
 *	  The order of groups by several keys' codes (gpo_sort_groups): one
 *	  stable radix pass a key, from the last key to the first.
 *
 * Each pass sorts the groups whose key k is valid by its code, in the
 * order the passes before it left them, and puts the groups whose key k is
 * NULL after them, in that order too; so the result is the lexicographic
 * order of the codes with NULL after every value of its key, the order the
 * running groups of a GpuOpsAgg scan keep.
 */
#include <stdlib.h>
#include <string.h>

#include "gpo_agg_internal.h"
#include "gpo_internal.h"

/* Sorts perm's n groups stably by key (codes, valid), NULLs last. */
static void
sort_groups_pass(const uint64_t *codes, const uint8_t *valid, int64_t n,
				 int64_t *perm, uint64_t *c, int64_t *r, uint64_t *tc,
				 int64_t *tr, int64_t *hist, int nt)
{
	int64_t		nv = 0;
	int64_t		nn = 0;

	for (int64_t i = 0; i < n; i++)
	{
		int64_t		g = perm[i];

		if (valid == NULL || valid[g])
		{
			c[nv] = codes[g];
			r[nv++] = g;
		}
		else
			tr[nn++] = g;		/* the NULLs, kept in order */
	}
	memcpy(perm + nv, tr, sizeof(int64_t) * (size_t) nn);
	gpo_radix_sort_varying(c, r, tc, tr, nv, nt, hist);
	memcpy(perm, r, sizeof(int64_t) * (size_t) nv);
}

/*
 * Groups a thread sorts at least: a pass's parallel regions cost more
 * than they save below it (a worker's piece of a few thousand groups,
 * sorted with 16 threads beside 15 busy workers, was 2 ms a piece).
 */
#define SORT_GROUPS_THREAD_ROWS 32768

/* The order of n groups by their keys' codes (see gpo_agg.h). */
gpo_status
gpo_sort_groups(gpo_ctx *ctx, int nkeys, const uint64_t *const *codes,
				const uint8_t *const *valid, int64_t n, int64_t *perm)
{
	int			nt = gpo_threads(ctx);
	uint64_t   *c;
	uint64_t   *tc;
	int64_t    *r;
	int64_t    *tr;
	int64_t    *hist;

	if (n < 0 || nkeys < 0 || (n > 0 && perm == NULL) ||
		(n > 0 && nkeys > 0 && codes == NULL))
		return GPO_ERR_INVALID;
	for (int64_t i = 0; i < n; i++)
		perm[i] = i;
	if (n <= 1 || nkeys == 0)
		return GPO_OK;
	if (n / SORT_GROUPS_THREAD_ROWS < nt)
		nt = n / SORT_GROUPS_THREAD_ROWS > 1 ? (int) (n / SORT_GROUPS_THREAD_ROWS) : 1;
	c = malloc(sizeof(uint64_t) * (size_t) n);
	tc = malloc(sizeof(uint64_t) * (size_t) n);
	r = malloc(sizeof(int64_t) * (size_t) n);
	tr = malloc(sizeof(int64_t) * (size_t) n);
	hist = malloc(sizeof(int64_t) * 256 * (size_t) nt);
	if (c == NULL || tc == NULL || r == NULL || tr == NULL || hist == NULL)
	{
		free(c);
		free(tc);
		free(r);
		free(tr);
		free(hist);
		return GPO_ERR_NOMEM;
	}
	gpo_omp_prepare(nt);
	for (int k = nkeys - 1; k >= 0; k--)
		sort_groups_pass(codes[k], valid ? valid[k] : NULL, n, perm, c, r, tc,
						 tr, hist, nt);
	free(c);
	free(tc);
	free(r);
	free(tr);
	free(hist);
	if (ctx != NULL)
		ctx->used = GPO_DEVICE_CPU;
	return GPO_OK;
}
