/*
 * cpu_strdict.c
 *	  Standalone benchmark of the string dictionary (gpo_strdict_encode),
 *	  as the page batches of a text key call it.
 *
 * Usage: cpu_strdict [pool [rows [threads [reps]]]]
 * (defaults 400000, 3300000, every core, 3).  rows strings are drawn from a
 * pool of pool distinct strings of 60-120 bytes (a URL-like prefix, then
 * letters), half of the rows from the pool's first tenth, and coded into a
 * new dictionary in calls of 27,000 rows (a page batch of a 105-column
 * table).  Each run makes a new dictionary; the best and the median of reps
 * runs are printed, with the distinct strings met.  Every run's codes are
 * checked: equal strings got equal codes, and every code gives its string
 * back (outside the timed region); a failed check prints CHECK FAILED and
 * exits 1.  The build machine's and the H100 machine's figures are in
 * bench/RESULTS.md.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_cpu.h"
#include "gpo.h"
#include "gpo_strdict.h"

/* Rows of one call: a page batch of a 105-column table. */
#define BATCH_ROWS	27000
/* Bytes a pool string takes at most. */
#define POOL_WIDTH	128

/* Checks one run's codes: equal pool strings, equal codes; codes give the strings back. */
static void
check_codes(const gpo_strdict *d, const gpo_str *rows, const int64_t *pick,
			int64_t nrows, int64_t npool, const int32_t *codes)
{
	int32_t    *of = xalloc(sizeof(int32_t) * npool);
	int64_t		i;

	for (i = 0; i < npool; i++)
		of[i] = -1;
	for (i = 0; i < nrows; i++)
	{
		gpo_str		s = gpo_strdict_get(d, codes[i]);

		if ((of[pick[i]] >= 0 && of[pick[i]] != codes[i]) || s.data == NULL ||
			s.len != rows[i].len || memcmp(s.data, rows[i].data, s.len) != 0)
		{
			printf("CHECK FAILED: row %lld (pool string %lld) got code %d\n",
				   (long long) i, (long long) pick[i], codes[i]);
			exit(1);
		}
		of[pick[i]] = codes[i];
	}
	free(of);
}

/* Runs the benchmark (see the header). */
int
main(int argc, char **argv)
{
	int64_t		npool = argc > 1 ? atoll(argv[1]) : 400000;
	int64_t		nrows = argc > 2 ? atoll(argv[2]) : 3300000;
	int			threads = argc > 3 ? atoi(argv[3]) : 0;
	int			reps = argc > 4 ? atoi(argv[4]) : 3;
	char	   *pool = xalloc((size_t) npool * POOL_WIDTH);
	int32_t    *plen = xalloc(sizeof(int32_t) * npool);
	gpo_str    *rows = xalloc(sizeof(gpo_str) * nrows);
	int64_t    *pick = xalloc(sizeof(int64_t) * nrows);
	int32_t    *codes = xalloc(sizeof(int32_t) * nrows);
	double	   *ms = xalloc(sizeof(double) * (reps > 0 ? reps : 1));
	uint64_t	seed = 88172645463325252ull;
	int64_t		distinct = 0;
	gpo_ctx		ctx;
	int64_t		i;

	if (npool < 10 || nrows < 1 || reps < 1)
	{
		fprintf(stderr, "usage: cpu_strdict [pool >= 10 [rows >= 1 [threads [reps >= 1]]]]\n");
		return 2;
	}
	if (threads <= 0)
		threads = omp_get_max_threads();
	for (i = 0; i < npool; i++)
	{
		char	   *p = pool + (size_t) i * POOL_WIDTH;
		int			len = 60 + (int) (xorshift64(&seed) % 61);
		int			k = snprintf(p, POOL_WIDTH, "https://example.com/%lld/",
								 (long long) i);

		for (; k < len; k++)
			p[k] = (char) ('a' + xorshift64(&seed) % 26);
		plen[i] = len;
	}
	for (i = 0; i < nrows; i++)
	{
		uint64_t	r = xorshift64(&seed);

		pick[i] = (int64_t) ((r >> 1) % (uint64_t) ((r & 1) ? npool : npool / 10));
		rows[i].data = pool + (size_t) pick[i] * POOL_WIDTH;
		rows[i].len = plen[pick[i]];
	}
	gpo_ctx_init(&ctx);
	ctx.device = GPO_DEVICE_CPU;
	ctx.threads = threads;
	for (int rep = 0; rep < reps; rep++)
	{
		gpo_strdict *d = gpo_strdict_create();
		double		t0;

		if (d == NULL)
		{
			fprintf(stderr, "out of memory\n");
			return 1;
		}
		t0 = now_s();
		for (i = 0; i < nrows; i += BATCH_ROWS)
		{
			int64_t		n = nrows - i < BATCH_ROWS ? nrows - i : BATCH_ROWS;

			if (gpo_strdict_encode(&ctx, d, n, rows + i, codes + i) != GPO_OK)
			{
				printf("CHECK FAILED: gpo_strdict_encode at row %lld\n", (long long) i);
				return 1;
			}
		}
		ms[rep] = (now_s() - t0) * 1e3;
		check_codes(d, rows, pick, nrows, npool, codes);
		distinct = gpo_strdict_count(d);
		gpo_strdict_free(d);
	}
	qsort(ms, reps, sizeof(double), cmp_double);
	printf("| pool | rows | threads | distinct met | best ms | median ms |\n");
	printf("| ---: | ---: | ---: | ---: | ---: | ---: |\n");
	printf("| %lld | %lld | %d | %lld | %.1f | %.1f |\n", (long long) npool,
		   (long long) nrows, threads, (long long) distinct, ms[0], ms[reps / 2]);
	free(pool);
	free(plen);
	free(rows);
	free(pick);
	free(codes);
	free(ms);
	return 0;
}
