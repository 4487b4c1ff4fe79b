/*
 * cpu_multiagg.c
 *	  Benchmark of several aggregates over one GROUP BY on the CPU face:
 *	  one gpo_groupagg call per value column (how a batch was aggregated
 *	  before gpo_groupagg_many) against one gpo_groupagg_many call with a
 *	  request per column (the keys counted, grouped and read once).
 *
 * Usage: cpu_multiagg [rows [threads [reps]]] (defaults 4000000, every
 * core, 3).  int32 keys drawn uniformly from 4, 1e3 or 1e6 distinct values,
 * float64 value columns (10% NULL), each request asking for count, sum,
 * min and max; 1, 3 and 6 columns; strategies dense, hash and sort.  After
 * one warm-up run the median of reps runs is printed as a markdown table,
 * and the two ways' results are compared (a mismatch exits 1).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_cpu.h"
#include "gpo.h"
#include "gpo_agg.h"

#define MAX_COLS	6

static uint64_t rng_state = 88172645463325252ULL;

/* The benchmark's generator (bench_cpu.h's xorshift64). */
static uint64_t
rng(void)
{
	return xorshift64(&rng_state);
}

/* Output arrays for cap groups (keys and rows only in the first). */
static void
out_make(gpo_agg_out *o, int64_t cap, bool keys)
{
	memset(o, 0, sizeof(*o));
	o->capacity = cap;
	if (keys)
	{
		o->keys = malloc(4 * cap);
		o->key_valid = malloc(cap);
		o->rows = malloc(8 * cap);
	}
	o->count = malloc(8 * cap);
	o->fsum = malloc(8 * cap);
	o->fflags = malloc(cap);
	o->min = malloc(8 * cap);
	o->max = malloc(8 * cap);
}

/* Frees out_make's arrays. */
static void
out_free(gpo_agg_out *o)
{
	free(o->keys);
	free(o->key_valid);
	free(o->rows);
	free(o->count);
	free(o->fsum);
	free(o->fflags);
	free(o->min);
	free(o->max);
}

int
main(int argc, char **argv)
{
	int64_t		n = argc > 1 ? atoll(argv[1]) : 4000000;
	int			threads = argc > 2 ? atoi(argv[2]) : 0;
	int			reps = argc > 3 ? atoi(argv[3]) : 3;
	static const int64_t distinct[] = {4, 1000, 1000000};
	static const int ncols_list[] = {1, 3, 6};
	static const gpo_agg_strategy strategies[] = {GPO_AGG_DENSE, GPO_AGG_HASH, GPO_AGG_SORT};
	int32_t    *keys = malloc(4 * n);
	double	   *vals[MAX_COLS];
	uint8_t    *valid[MAX_COLS];
	gpo_chunk	kc,
				vc[MAX_COLS];
	gpo_vector	kv,
				vv[MAX_COLS];
	gpo_ctx		ctx;

	if (threads <= 0)
		threads = omp_get_max_threads();
	printf("rows %lld, threads %d, median of %d\n\n", (long long) n, threads, reps);
	printf("| groups | strategy | aggregates | one call per column (ms) | one call (ms) | speed-up |\n");
	printf("| ---: | --- | ---: | ---: | ---: | ---: |\n");
	for (int c = 0; c < MAX_COLS; c++)
	{
		vals[c] = malloc(8 * n);
		valid[c] = malloc((n + 7) / 8);
		for (int64_t i = 0; i < n; i++)
			vals[c][i] = (double) (rng() % 1000000) / 64.0;
		for (int64_t i = 0; i < (n + 7) / 8; i++)
			valid[c][i] = 0xFF;
		for (int64_t i = 0; i < n; i++)
			if (rng() % 10 == 0)
				valid[c][i >> 3] &= (uint8_t) ~(1u << (i & 7));
		memset(&vc[c], 0, sizeof(vc[c]));
		vc[c].data = vals[c];
		vc[c].validity = valid[c];
		vc[c].n = n;
		memset(&vv[c], 0, sizeof(vv[c]));
		vv[c].type = GPO_FLOAT64;
		vv[c].nchunks = 1;
		vv[c].chunks = &vc[c];
	}
	for (int d = 0; d < 3; d++)
	{
		int64_t		cap = distinct[d];

		for (int64_t i = 0; i < n; i++)
			keys[i] = (int32_t) (rng() % (uint64_t) distinct[d]);
		memset(&kc, 0, sizeof(kc));
		kc.data = keys;
		kc.n = n;
		memset(&kv, 0, sizeof(kv));
		kv.type = GPO_INT32;
		kv.nchunks = 1;
		kv.chunks = &kc;
		for (int s = 0; s < 3; s++)
			for (int nc = 0; nc < 3; nc++)
			{
				int			ncols = ncols_list[nc];
				gpo_agg_out sep[MAX_COLS],
							one[MAX_COLS];
				gpo_agg_req reqs[MAX_COLS];
				double		t_sep[16],
							t_one[16];
				char		dummy;
				int64_t		ng_sep = 0,
							ng = 0;

				for (int c = 0; c < ncols; c++)
				{
					out_make(&sep[c], cap, true);
					out_make(&one[c], cap, c == 0);
					reqs[c] = gpo_agg_req_of_out(&vv[c], &one[c]);
				}
				for (int r = -1; r < reps && r < 16; r++)
				{
					double		t0;
					gpo_agg_strategy st;

					gpo_ctx_init(&ctx);
					ctx.device = GPO_DEVICE_CPU;
					ctx.threads = threads;
					t0 = now_s() * 1e3;
					for (int c = 0; c < ncols; c++)
					{
						st = strategies[s];
						if (gpo_groupagg(&ctx, &kv, &vv[c], cap, &st, &sep[c], &ng_sep,
										 &dummy, NULL) != GPO_OK)
						{
							printf("CHECK FAILED: gpo_groupagg: %s\n", ctx.detail);
							return 1;
						}
					}
					if (r >= 0)
						t_sep[r] = now_s() * 1e3 - t0;
					st = strategies[s];
					t0 = now_s() * 1e3;
					if (gpo_groupagg_many(&ctx, &kv, ncols, reqs, cap, &st, one, &ng,
										  &dummy, NULL) != GPO_OK)
					{
						printf("CHECK FAILED: gpo_groupagg_many: %s\n", ctx.detail);
						return 1;
					}
					if (r >= 0)
						t_one[r] = now_s() * 1e3 - t0;
				}
				/* (only the groups found: the arrays past them are not written) */
				if (ng_sep != ng)
				{
					printf("CHECK FAILED: %lld groups against %lld\n",
						   (long long) ng_sep, (long long) ng);
					return 1;
				}
				for (int c = 0; c < ncols; c++)
				{
					if (memcmp(sep[c].count, one[c].count, 8 * ng) != 0 ||
						memcmp(sep[c].min, one[c].min, 8 * ng) != 0 ||
						memcmp(sep[c].max, one[c].max, 8 * ng) != 0 ||
						memcmp(sep[c].rows, one[0].rows, 8 * ng) != 0)
					{
						for (int64_t g = 0; g < ng; g++)
							if (sep[c].count[g] != one[c].count[g] ||
								((double *) sep[c].min)[g] != ((double *) one[c].min)[g] || ((double *) sep[c].max)[g] != ((double *) one[c].max)[g])
							{
								printf("group %lld: count %lld / %lld, min %g / %g, max %g / %g\n",
									   (long long) g, (long long) sep[c].count[g],
									   (long long) one[c].count[g], ((double *) sep[c].min)[g],
									   ((double *) one[c].min)[g], ((double *) sep[c].max)[g], ((double *) one[c].max)[g]);
								break;
							}
						printf("CHECK FAILED: column %d differs\n", c);
						return 1;
					}
				}
				/* (after every check: each column's rows are one[0]'s) */
				for (int c = 0; c < ncols; c++)
				{
					out_free(&sep[c]);
					out_free(&one[c]);
				}
				qsort(t_sep, reps, sizeof(double), cmp_double);
				qsort(t_one, reps, sizeof(double), cmp_double);
				printf("| %lld | %s | %d | %.1f | %.1f | %.2fx |\n", (long long) distinct[d],
					   gpo_agg_strategy_name(strategies[s]), ncols, t_sep[reps / 2],
					   t_one[reps / 2], t_sep[reps / 2] / t_one[reps / 2]);
				fflush(stdout);
			}
	}
	return 0;
}
