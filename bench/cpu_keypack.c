/*
 * cpu_keypack.c
 *	  Benchmark of key packing on the CPU face (gpo_keypack_build) for two
 *	  keys where one must be ranked: an int32 region id (4,000 values) and
 *	  an int64 id of full-width random bits drawn from a pool, skewed (index
 *	  = pool * r^3, r uniform), as ClickBench's UserID beside RegionID or
 *	  CounterID.  Pool sizes 1,000 (the small sets), 60,000 and 250,000 (the
 *	  hash sets, keypack_rank_hash.c) and every row distinct (the sort).
 *
 * Usage: cpu_keypack [rows [threads [reps]]] (defaults 1000000, every core,
 * 5).  After a warm-up run the median of reps runs is printed as a markdown
 * table; each run's packed keys are checked to group the rows as the two
 * keys do (a mismatch exits 1).
 */
#include <omp.h>

#include "bench_cpu.h"
#include "gpo.h"
#include "gpo_keypack.h"

static uint64_t rng_state = 88172645463325252ULL;

/* Checks that packed keys are equal exactly where both keys are (1: ok). */
static int
check_packed(int64_t n, const int32_t *a, const int64_t *b, const int64_t *packed)
{
	/* equal keys give equal codes: rows sharing (a, b) with row 0 and not */
	for (int64_t i = 1; i < n; i++)
	{
		bool		same_keys = a[i] == a[0] && b[i] == b[0];

		if (same_keys != (packed[i] == packed[0]))
			return 0;
	}
	return 1;
}

/* Median ms of reps gpo_keypack_build calls over the two keys. */
static double
time_pack(int64_t n, int threads, int reps, const int32_t *a, const int64_t *b,
		  int64_t *packed)
{
	gpo_chunk	ca = {(void *) a, NULL, n},
				cb = {(void *) b, NULL, n},
				co = {packed, NULL, n};
	gpo_vector	keys[2] = {{GPO_INT32, 1, &ca}, {GPO_INT64, 1, &cb}};
	gpo_vector	out = {GPO_INT64, 1, &co};
	double	   *ms = xalloc(sizeof(double) * reps);
	double		med;

	for (int r = -1; r < reps; r++)
	{
		gpo_ctx		ctx;
		gpo_keypack *kp = NULL;
		double		t0;
		gpo_status	st;

		gpo_ctx_init(&ctx);
		ctx.device = GPO_DEVICE_CPU;
		ctx.threads = threads;
		t0 = now_s();
		st = gpo_keypack_build(&ctx, 2, keys, &out, &kp);
		if (r >= 0)
			ms[r] = (now_s() - t0) * 1000.0;
		if (st != GPO_OK || !check_packed(n, a, b, packed))
		{
			fprintf(stderr, "keypack failed or grouped wrongly: %s (%s)\n",
					gpo_status_text(st), ctx.detail);
			exit(1);
		}
		gpo_keypack_free(kp);
	}
	qsort(ms, reps, sizeof(double), cmp_double);
	med = ms[reps / 2];
	free(ms);
	return med;
}

int
main(int argc, char **argv)
{
	int64_t		n = argc > 1 ? atoll(argv[1]) : 1000000;
	int			threads = argc > 2 ? atoi(argv[2]) : omp_get_max_threads();
	int			reps = argc > 3 ? atoi(argv[3]) : 5;
	static const int64_t pools[] = {1000, 60000, 250000, 0};
	int32_t    *a;
	int64_t    *b,
			   *packed;

	if (n < 1 || threads < 1 || reps < 1)
	{
		fprintf(stderr, "usage: cpu_keypack [rows [threads [reps]]]\n");
		return 2;
	}
	a = xalloc(sizeof(int32_t) * n);
	b = xalloc(sizeof(int64_t) * n);
	packed = xalloc(sizeof(int64_t) * n);
	printf("cpu_keypack: %lld rows, %d threads, median of %d runs\n\n",
		   (long long) n, threads, reps);
	printf("| int64 key | distinct | ms |\n| --- | ---: | ---: |\n");
	for (int p = 0; p < 4; p++)
	{
		int64_t		pool = pools[p] > 0 ? pools[p] : n;
		int64_t    *pv = xalloc(sizeof(int64_t) * pool);
		uint8_t    *seen = xalloc(pool);
		int64_t		distinct = 0;

		for (int64_t i = 0; i < pool; i++)
			pv[i] = (int64_t) xorshift64(&rng_state);
		for (int64_t i = 0; i < n; i++)
		{
			double		r = (double) (xorshift64(&rng_state) >> 11) / 9007199254740992.0;
			int64_t		k = pools[p] > 0 ? (int64_t) (pool * r * r * r) % pool : i;

			a[i] = (int32_t) (xorshift64(&rng_state) % 4000);
			b[i] = pv[k];
			distinct += !seen[k];
			seen[k] = 1;
		}
		printf("| %s | %lld | %.2f |\n", pools[p] > 0 ? "pool, skewed" : "every row distinct",
			   (long long) distinct, time_pack(n, threads, reps, a, b, packed));
		free(pv);
		free(seen);
	}
	free(a);
	free(b);
	free(packed);
	return 0;
}
