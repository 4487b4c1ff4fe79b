/*
 * cpu_primitives.c
 *	  Standalone benchmark of the engine's CPU (OpenMP) faces: the CPU
 *	  counterpart of bench/gpu_primitives.cu, gpu_groupby.cu and
 *	  gpu_histjoin.cu.
 *
 * Usage: cpu_primitives [rows [threads [reps]]]
 * (defaults 10000000, every core, 5).  threads 0 or absent: OMP_NUM_THREADS
 * if set, else every core.  Each operation goes through its dispatcher gpo_X
 * with ctx.device = GPO_DEVICE_CPU and ctx.threads = threads; the two-phase
 * scratch query and every allocation the caller owns happen outside the
 * timed region (gpo_groupagg allocates its working memory itself, so that is
 * timed).  Every input is one chunk, generated with a fixed-seed xorshift64.
 * After one warm-up run, each operation is timed reps times with
 * clock_gettime(CLOCK_MONOTONIC) (fewer, at least once, where reps runs
 * would take over 10 s; the row then says so) and the median is printed as
 * a markdown table:
 *   - memcpy of the float64 column, split over the threads (the bandwidth
 *     reference: bytes read + written), and single-threaded (the reference
 *     instead where it is faster, as on a core shared with other work),
 *   - run-length encoding of int32 runs (lengths uniform in 1 .. 31, mean
 *     16; values, starts and lengths),
 *   - compaction of a random uint8 mask (about half kept; int64 index map),
 *   - inclusive scans, int64 (exact, overflow-checked) and float64,
 *   - the stable pair sort of int32 keys (1e3 distinct and all distinct),
 *   - group aggregation, int32 keys and float64 values, count(*), count(v)
 *     and sum(v), per strategy at 10, 1e3, 1e6 and rows distinct keys (dense
 *     only where the key range is at most GPO_AGG_DENSE_MAX_RANGE),
 *   - histograms of float64 values in [0, 1), 100 bins, given [0, 1) and
 *     automatic domain,
 *   - a hash join of 1e6 distinct int32 build keys (rows / 10 when rows is
 *     below 1e7) with rows probe keys that match exactly one build row each,
 *   - a gather of float64 values by a random int64 index map.
 * GB/s is the bytes the operation must move (the last column says which)
 * over the time; "% of memcpy" compares that with the reference memcpy.
 * Every result is checked after its runs (outside the timed region); a
 * failed check or call prints a CHECK FAILED line and exits 1.
 */
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_cpu.h"
#include "gpo.h"
#include "gpo_agg.h"
#include "gpo_hist.h"
#include "gpo_join.h"

/* Build rows of the hash join (at most). */
#define BENCH_BUILD_ROWS	INT64_C(1000000)

/* Timed runs of one row stop short of reps beyond this many ms. */
#define BENCH_ROW_BUDGET_MS	10000.0

/* Histogram bins. */
#define BENCH_BINS	100

/* Everything the timed operations read and write. */
typedef struct bench_state
{
	gpo_ctx		ctx;
	int64_t		n;				/* rows */
	int64_t		m;				/* build rows of the join */
	int			threads;

	/* inputs */
	double	   *f64;			/* uniform in [0, 1) */
	int64_t    *i64;			/* uniform in -1000 .. 1000 */
	int32_t    *runs;			/* int32 runs, mean length 16 */
	uint8_t    *mask;			/* about half set */
	int32_t    *perm;			/* a permutation of 0 .. n - 1 */
	int32_t    *keys;			/* perm % distinct, per configuration */
	int32_t    *build;			/* m distinct join keys */
	int32_t    *probe;			/* n join keys, each in build once */
	int64_t    *index;			/* n random rows of f64 */

	/* outputs */
	double	   *copy;			/* memcpy target, gather output */
	int32_t    *rle_values;
	int64_t    *rle_starts;
	int64_t    *rle_lengths;
	int64_t    *map;			/* compaction's index map */
	void	   *scan_out;		/* n int64 or float64 */
	int32_t    *keys_out;		/* sorted keys */
	int64_t    *rows_out;		/* sorted row ids */
	int64_t    *build_rows;
	int64_t    *probe_rows;
	int64_t		counts[BENCH_BINS + 2];
	gpo_hist_domain domain;
	gpo_agg_out agg;			/* group results, capacity = distinct */

	/* expected results, from generation */
	int64_t		want_runs;
	int64_t		want_kept;
	int64_t		want_isum;		/* sum of i64 */
	int64_t		want_ihalf;		/* sum of i64[0 .. n / 2] */
	double		want_fsum;		/* sum of f64 */
	double		f64_min;
	double		f64_max;

	/* the chunks and vectors */
	gpo_chunk	c_f64, c_i64, c_runs, c_mask, c_keys, c_build, c_probe, c_index;
	gpo_chunk	c_copy, c_rle_values, c_rle_starts, c_rle_lengths, c_map,
				c_scan_out, c_keys_out, c_rows_out, c_build_rows, c_probe_rows;
	gpo_vector	v_f64, v_i64, v_runs, v_mask, v_keys, v_build, v_probe, v_index;
	gpo_vector	v_copy, v_rle_values, v_rle_starts, v_rle_lengths, v_map,
				v_scan_i64, v_scan_f64, v_keys_out, v_rows_out, v_build_rows,
				v_probe_rows;

	/* the current configuration and the last call's results */
	gpo_agg_strategy strategy;
	gpo_hist_spec hist;
	int64_t		count;
	int64_t		ngroups;

	/* timed runs asked for, and those the last row used */
	int			reps;
	int			runs_used;

	/* the caller's scratch, grown to the largest query */
	void	   *scratch;
	size_t		scratch_have;
} bench_state;

static bench_state B;

/* Prints a failed check or call and exits 1. */
static void
fail(const char *fmt,...)
{
	va_list		ap;

	fflush(stdout);
	printf("CHECK FAILED: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

/* Exits through fail() when an engine call did not return GPO_OK. */
static void
check_status(const char *what, gpo_status st)
{
	if (st != GPO_OK)
		fail("%s: %s: %s", what, gpo_status_text(st), B.ctx.detail);
}

/*
 * Runs fn once to warm up, then reps times (fewer when the warm-up shows
 * that reps runs would exceed BENCH_ROW_BUDGET_MS; at least one); the
 * median in ms.  B.runs_used receives the number of timed runs.
 */
static double
time_ms(void (*fn) (void), int reps)
{
	double	   *t = xalloc(sizeof(double) * reps);
	double		t0 = now_s();
	double		warm;
	double		ms;
	int			r;

	fn();
	warm = (now_s() - t0) * 1e3;
	r = reps;
	if (warm * reps > BENCH_ROW_BUDGET_MS)
		r = (int) (BENCH_ROW_BUDGET_MS / warm) > 1 ?
			(int) (BENCH_ROW_BUDGET_MS / warm) : 1;
	for (int k = 0; k < r; k++)
	{
		t0 = now_s();
		fn();
		t[k] = (now_s() - t0) * 1e3;
	}
	qsort(t, r, sizeof(double), cmp_double);
	ms = t[r / 2];
	free(t);
	B.runs_used = r;
	return ms;
}

/* Makes v a one-chunk vector of n values of type at data. */
static void
vec1(gpo_vector *v, gpo_chunk *c, gpo_type type, void *data, int64_t n)
{
	c->data = data;
	c->validity = NULL;
	c->n = n;
	v->type = type;
	v->nchunks = 1;
	v->chunks = c;
}

/* Grows the shared scratch to need bytes (outside the timed region). */
static void
scratch_need(const char *what, gpo_status st, size_t need)
{
	check_status(what, st);
	if (need <= B.scratch_have)
		return;
	free(B.scratch);
	B.scratch = xalloc(need);
	B.scratch_have = need;
}

/*
 * Prints one table row; copy_gbs <= 0 leaves "% of memcpy" empty.  A row
 * timed fewer than reps times says so.
 */
static void
row(const char *what, double ms, double rows, double bytes, double copy_gbs,
	const char *counted)
{
	double		gbs = bytes / (ms * 1e-3) / 1e9;
	char		runs[64] = "";
	char		pct[32] = "-";

	if (B.runs_used < B.reps)
		snprintf(runs, sizeof(runs), " (median of %d run%s)", B.runs_used,
				 B.runs_used == 1 ? "" : "s");
	if (copy_gbs > 0)
		snprintf(pct, sizeof(pct), "%.0f%%", 100.0 * gbs / copy_gbs);
	printf("| %s%s | %.3f | %.1f | %.2f | %s | %s |\n", what, runs, ms,
		   rows / (ms * 1e-3) / 1e6, gbs, pct, counted);
	fflush(stdout);
}

/* Fills every input column and the expected results. */
static void
generate(void)
{
	uint64_t	s = UINT64_C(88172645463325252);
	int64_t		n = B.n;
	int64_t		left = 0;
	int32_t		value = 0;
	int64_t		isum = 0;
	double		fsum = 0;

	B.want_runs = 0;
	B.want_kept = 0;
	B.f64_min = INFINITY;
	B.f64_max = -INFINITY;
	for (int64_t i = 0; i < n; i++)
	{
		uint64_t	x = xorshift64(&s);
		double		d = (double) (x >> 11) * 0x1.0p-53;

		B.f64[i] = d;
		fsum += d;
		if (d < B.f64_min)
			B.f64_min = d;
		if (d > B.f64_max)
			B.f64_max = d;
		B.i64[i] = (int64_t) ((x >> 3) % 2001) - 1000;
		isum += B.i64[i];
		if (i == n / 2)
			B.want_ihalf = isum;
		B.mask[i] = (uint8_t) ((x >> 40) & 1);
		B.want_kept += B.mask[i];
		if (left == 0)
		{
			uint64_t	y = xorshift64(&s);

			left = 1 + (int64_t) (y % 31);
			value = (int32_t) (y >> 32);
		}
		B.runs[i] = value;
		if (i == 0 || B.runs[i] != B.runs[i - 1])
			B.want_runs++;
		left--;
		B.index[i] = (int64_t) (xorshift64(&s) % (uint64_t) n);
	}
	B.want_isum = isum;
	B.want_fsum = fsum;

	/* a random permutation (Fisher-Yates) */
	for (int64_t i = 0; i < n; i++)
		B.perm[i] = (int32_t) i;
	for (int64_t i = n - 1; i > 0; i--)
	{
		int64_t		j = (int64_t) (xorshift64(&s) % (uint64_t) (i + 1));
		int32_t		t = B.perm[i];

		B.perm[i] = B.perm[j];
		B.perm[j] = t;
	}

	/* distinct build keys (an odd multiplier is a bijection mod 2^32) */
	for (int64_t j = 0; j < B.m; j++)
		B.build[j] = (int32_t) (uint32_t) ((uint64_t) j * UINT64_C(2654435761));
	for (int64_t i = 0; i < n; i++)
		B.probe[i] = B.build[xorshift64(&s) % (uint64_t) B.m];
}

/* Sets keys[i] = from + perm[i] % distinct: every key from .. from + distinct - 1 occurs. */
static void
set_keys(int64_t distinct, int64_t from)
{
	for (int64_t i = 0; i < B.n; i++)
		B.keys[i] = (int32_t) (from + B.perm[i] % distinct);
}

/* The threaded memcpy reference: each thread copies its slice. */
static void
op_memcpy(void)
{
	int64_t		n = B.n;
	int			t = B.threads;

#pragma omp parallel for num_threads(t) schedule(static, 1)
	for (int k = 0; k < t; k++)
	{
		int64_t		lo = n * k / t;
		int64_t		hi = n * (k + 1) / t;

		memcpy(B.copy + lo, B.f64 + lo, sizeof(double) * (size_t) (hi - lo));
	}
}

/* A single-threaded memcpy, for context. */
static void
op_memcpy1(void)
{
	memcpy(B.copy, B.f64, sizeof(double) * (size_t) B.n);
}

/* Run-length encoding of the int32 runs. */
static void
op_rle(void)
{
	check_status("gpo_rle",
				 gpo_rle(&B.ctx, &B.v_runs, &B.v_rle_values, &B.v_rle_starts,
						 &B.v_rle_lengths, &B.count, B.scratch,
						 &B.scratch_have));
}

/* Compaction of the mask into an index map. */
static void
op_compact(void)
{
	check_status("gpo_compact",
				 gpo_compact(&B.ctx, &B.v_mask, 0, &B.v_map, &B.count,
							 B.scratch, &B.scratch_have));
}

/* Inclusive scan of the int64 column. */
static void
op_scan_i64(void)
{
	check_status("gpo_scan int64",
				 gpo_scan(&B.ctx, &B.v_i64, NULL, true, &B.v_scan_i64,
						  B.scratch, &B.scratch_have));
}

/* Inclusive scan of the float64 column. */
static void
op_scan_f64(void)
{
	check_status("gpo_scan float64",
				 gpo_scan(&B.ctx, &B.v_f64, NULL, true, &B.v_scan_f64,
						  B.scratch, &B.scratch_have));
}

/* Pair sort of the current keys. */
static void
op_sort(void)
{
	check_status("gpo_sort_pairs",
				 gpo_sort_pairs(&B.ctx, &B.v_keys, &B.v_keys_out,
								&B.v_rows_out, B.scratch, &B.scratch_have));
}

/* Group aggregation of the current keys with the current strategy. */
static void
op_groupagg(void)
{
	gpo_agg_strategy s = B.strategy;

	check_status("gpo_groupagg",
				 gpo_groupagg(&B.ctx, &B.v_keys, &B.v_f64, 0, &s, &B.agg,
							  &B.ngroups, B.scratch, &B.scratch_have));
	if (s != B.strategy)
		fail("gpo_groupagg used strategy %s, not %s",
			 gpo_agg_strategy_name(s), gpo_agg_strategy_name(B.strategy));
}

/* Histogram of the float64 column under the current spec. */
static void
op_hist(void)
{
	check_status("gpo_histogram",
				 gpo_histogram(&B.ctx, &B.v_f64, NULL, &B.hist, B.counts,
							   &B.domain, B.scratch, &B.scratch_have));
}

/* Hash join, build and probe. */
static void
op_join(void)
{
	check_status("gpo_hash_join",
				 gpo_hash_join(&B.ctx, &B.v_build, &B.v_probe, &B.v_build_rows,
							   &B.v_probe_rows, &B.count, B.scratch,
							   &B.scratch_have));
}

/* Gather of the float64 column by the random index. */
static void
op_gather(void)
{
	check_status("gpo_gather",
				 gpo_gather(&B.ctx, &B.v_f64, &B.v_index, &B.v_copy,
							B.scratch, &B.scratch_have));
}

/* Checks the RLE outputs against the generated runs. */
static void
check_rle(void)
{
	int64_t		total = 0;

	if (B.count != B.want_runs)
		fail("RLE: %lld runs, want %lld", (long long) B.count,
			 (long long) B.want_runs);
	for (int64_t k = 0; k < B.count; k++)
	{
		if (B.rle_starts[k] != total ||
			B.rle_values[k] != B.runs[B.rle_starts[k]])
			fail("RLE: run %lld is wrong", (long long) k);
		total += B.rle_lengths[k];
	}
	if (total != B.n)
		fail("RLE: run lengths add up to %lld, want %lld", (long long) total,
			 (long long) B.n);
}

/* Checks the compaction's count and index map. */
static void
check_compact(void)
{
	if (B.count != B.want_kept)
		fail("compaction: %lld kept, want %lld", (long long) B.count,
			 (long long) B.want_kept);
	for (int64_t k = 0; k < B.count; k++)
		if (B.map[k] < 0 || B.map[k] >= B.n || B.mask[B.map[k]] == 0 ||
			(k > 0 && B.map[k] <= B.map[k - 1]))
			fail("compaction: index map entry %lld is wrong", (long long) k);
}

/* Checks the int64 scan at the middle and last rows. */
static void
check_scan_i64(void)
{
	const int64_t *out = B.scan_out;

	if (out[B.n / 2] != B.want_ihalf || out[B.n - 1] != B.want_isum)
		fail("scan int64: prefix %lld / total %lld, want %lld / %lld",
			 (long long) out[B.n / 2], (long long) out[B.n - 1],
			 (long long) B.want_ihalf, (long long) B.want_isum);
}

/* Checks the float64 scan's last row (to rounding). */
static void
check_scan_f64(void)
{
	const double *out = B.scan_out;

	if (!(fabs(out[B.n - 1] - B.want_fsum) <= 1e-9 * fabs(B.want_fsum) + 1e-9))
		fail("scan float64: total %.17g, want %.17g", out[B.n - 1],
			 B.want_fsum);
}

/* Checks that the pair sort is ordered, stable and a permutation image. */
static void
check_sort(void)
{
	for (int64_t i = 0; i < B.n; i++)
	{
		int64_t		r = B.rows_out[i];

		if (r < 0 || r >= B.n || B.keys[r] != B.keys_out[i])
			fail("pair sort: row %lld does not match its key", (long long) i);
		if (i > 0 && (B.keys_out[i] < B.keys_out[i - 1] ||
					  (B.keys_out[i] == B.keys_out[i - 1] &&
					   r <= B.rows_out[i - 1])))
			fail("pair sort: out of order (or unstable) at %lld", (long long) i);
	}
}

/* Checks the groups: keys 0 .. distinct - 1, all rows, the total sum. */
static void
check_groupagg(int64_t distinct)
{
	const int32_t *keys = B.agg.keys;
	int64_t		rows = 0;
	double		fsum = 0;

	if (B.ngroups != distinct)
		fail("group by %s, %lld distinct: %lld groups",
			 gpo_agg_strategy_name(B.strategy), (long long) distinct,
			 (long long) B.ngroups);
	for (int64_t g = 0; g < B.ngroups; g++)
	{
		if (keys[g] != (int32_t) g || B.agg.rows[g] != B.agg.count[g])
			fail("group by %s: group %lld is wrong",
				 gpo_agg_strategy_name(B.strategy), (long long) g);
		rows += B.agg.rows[g];
		fsum += B.agg.fsum[g];
	}
	if (rows != B.n ||
		!(fabs(fsum - B.want_fsum) <= 1e-9 * fabs(B.want_fsum) + 1e-9))
		fail("group by %s: %lld rows, sum %.17g; want %lld, %.17g",
			 gpo_agg_strategy_name(B.strategy), (long long) rows, fsum,
			 (long long) B.n, B.want_fsum);
}

/* Checks the histogram: every row in 1 .. bins, and the domain. */
static void
check_hist(void)
{
	int64_t		total = 0;

	for (int b = 0; b < BENCH_BINS + 2; b++)
		total += B.counts[b];
	if (total != B.n || B.counts[0] != 0 || B.counts[BENCH_BINS + 1] != 0)
		fail("histogram: %lld rows counted (%lld below, %lld above), want %lld",
			 (long long) total, (long long) B.counts[0],
			 (long long) B.counts[BENCH_BINS + 1], (long long) B.n);
	if (B.hist.auto_domain &&
		(!B.domain.valid || B.domain.lo != B.f64_min || B.domain.hi != B.f64_max))
		fail("histogram: automatic domain [%.17g, %.17g], want [%.17g, %.17g]",
			 B.domain.lo, B.domain.hi, B.f64_min, B.f64_max);
}

/* Checks the join: one pair per probe row, in probe order, equal keys. */
static void
check_join(void)
{
	if (B.count != B.n)
		fail("hash join: %lld pairs, want %lld", (long long) B.count,
			 (long long) B.n);
	for (int64_t k = 0; k < B.count; k++)
		if (B.probe_rows[k] != k || B.build_rows[k] < 0 ||
			B.build_rows[k] >= B.m || B.build[B.build_rows[k]] != B.probe[k])
			fail("hash join: pair %lld is wrong", (long long) k);
}

/* Checks the gather on every 61st row and the last. */
static void
check_gather(void)
{
	for (int64_t i = 0; i < B.n; i += 61)
		if (B.copy[i] != B.f64[B.index[i]])
			fail("gather: row %lld is wrong", (long long) i);
	if (B.copy[B.n - 1] != B.f64[B.index[B.n - 1]])
		fail("gather: the last row is wrong");
}

/* The benchmark. */
int
main(int argc, char **argv)
{
	int64_t		n = argc > 1 ? atoll(argv[1]) : 10000000;
	int			threads = argc > 2 ? atoi(argv[2]) : 0;
	int			reps = argc > 3 ? atoi(argv[3]) : 5;
	int64_t		distincts[4];
	const gpo_agg_strategy strategies[3] = {GPO_AGG_DENSE, GPO_AGG_HASH, GPO_AGG_SORT};
	size_t		need;
	double		ms;
	double		copy_gbs;
	double		nb;
	double		mb;
	double		load[3] = {0, 0, 0};
	char		what[160];
	char		counted[160];

	if (n <= 0 || n > INT32_MAX || threads < 0 || reps < 1 || argc > 4)
	{
		fprintf(stderr, "usage: %s [rows (1 .. 2^31 - 1) [threads [reps]]]\n",
				argv[0]);
		return 2;
	}
	if (threads == 0 && getenv("OMP_NUM_THREADS") != NULL)
		threads = atoi(getenv("OMP_NUM_THREADS"));
	if (threads <= 0)
		threads = omp_get_num_procs();

	memset(&B, 0, sizeof(B));
	gpo_ctx_init(&B.ctx);
	B.ctx.device = GPO_DEVICE_CPU;
	B.ctx.threads = threads;
	B.threads = threads;
	B.reps = reps;
	B.n = n;
	B.m = n >= 10 * BENCH_BUILD_ROWS ? BENCH_BUILD_ROWS : (n + 9) / 10;
	nb = (double) n;
	mb = (double) B.m;

	/* inputs */
	B.f64 = xalloc(sizeof(double) * n);
	B.i64 = xalloc(sizeof(int64_t) * n);
	B.runs = xalloc(sizeof(int32_t) * n);
	B.mask = xalloc(n);
	B.perm = xalloc(sizeof(int32_t) * n);
	B.keys = xalloc(sizeof(int32_t) * n);
	B.build = xalloc(sizeof(int32_t) * B.m);
	B.probe = xalloc(sizeof(int32_t) * n);
	B.index = xalloc(sizeof(int64_t) * n);
	generate();

	/* outputs */
	B.copy = xalloc(sizeof(double) * n);
	B.rle_values = xalloc(sizeof(int32_t) * B.want_runs);
	B.rle_starts = xalloc(sizeof(int64_t) * B.want_runs);
	B.rle_lengths = xalloc(sizeof(int64_t) * B.want_runs);
	B.map = xalloc(sizeof(int64_t) * n);
	B.scan_out = xalloc(sizeof(int64_t) * n);
	B.keys_out = xalloc(sizeof(int32_t) * n);
	B.rows_out = xalloc(sizeof(int64_t) * n);
	B.build_rows = xalloc(sizeof(int64_t) * n);
	B.probe_rows = xalloc(sizeof(int64_t) * n);

	vec1(&B.v_f64, &B.c_f64, GPO_FLOAT64, B.f64, n);
	vec1(&B.v_i64, &B.c_i64, GPO_INT64, B.i64, n);
	vec1(&B.v_runs, &B.c_runs, GPO_INT32, B.runs, n);
	vec1(&B.v_mask, &B.c_mask, GPO_UINT8, B.mask, n);
	vec1(&B.v_keys, &B.c_keys, GPO_INT32, B.keys, n);
	vec1(&B.v_build, &B.c_build, GPO_INT32, B.build, B.m);
	vec1(&B.v_probe, &B.c_probe, GPO_INT32, B.probe, n);
	vec1(&B.v_index, &B.c_index, GPO_INT64, B.index, n);
	vec1(&B.v_copy, &B.c_copy, GPO_FLOAT64, B.copy, n);
	vec1(&B.v_rle_values, &B.c_rle_values, GPO_INT32, B.rle_values, B.want_runs);
	vec1(&B.v_rle_starts, &B.c_rle_starts, GPO_INT64, B.rle_starts, B.want_runs);
	vec1(&B.v_rle_lengths, &B.c_rle_lengths, GPO_INT64, B.rle_lengths, B.want_runs);
	vec1(&B.v_map, &B.c_map, GPO_INT64, B.map, n);
	vec1(&B.v_scan_i64, &B.c_scan_out, GPO_INT64, B.scan_out, n);
	B.v_scan_f64 = B.v_scan_i64;
	B.v_scan_f64.type = GPO_FLOAT64;
	vec1(&B.v_keys_out, &B.c_keys_out, GPO_INT32, B.keys_out, n);
	vec1(&B.v_rows_out, &B.c_rows_out, GPO_INT64, B.rows_out, n);
	vec1(&B.v_build_rows, &B.c_build_rows, GPO_INT64, B.build_rows, n);
	vec1(&B.v_probe_rows, &B.c_probe_rows, GPO_INT64, B.probe_rows, n);

	/* the scratch queries (keys hold all-distinct keys for the sort's) */
	set_keys(n, 0);
	scratch_need("gpo_rle (scratch query)",
				 gpo_rle(&B.ctx, &B.v_runs, &B.v_rle_values, &B.v_rle_starts,
						 &B.v_rle_lengths, &B.count, NULL, &need), need);
	scratch_need("gpo_compact (scratch query)",
				 gpo_compact(&B.ctx, &B.v_mask, 0, &B.v_map, &B.count, NULL,
							 &need), need);
	scratch_need("gpo_scan int64 (scratch query)",
				 gpo_scan(&B.ctx, &B.v_i64, NULL, true, &B.v_scan_i64, NULL,
						  &need), need);
	scratch_need("gpo_scan float64 (scratch query)",
				 gpo_scan(&B.ctx, &B.v_f64, NULL, true, &B.v_scan_f64, NULL,
						  &need), need);
	scratch_need("gpo_sort_pairs (scratch query)",
				 gpo_sort_pairs(&B.ctx, &B.v_keys, &B.v_keys_out,
								&B.v_rows_out, NULL, &need), need);
	B.hist.bins = BENCH_BINS;
	B.hist.auto_domain = false;
	B.hist.lo = 0.0;
	B.hist.hi = 1.0;
	scratch_need("gpo_histogram (scratch query)",
				 gpo_histogram(&B.ctx, &B.v_f64, NULL, &B.hist, B.counts,
							   &B.domain, NULL, &need), need);
	B.hist.auto_domain = true;
	scratch_need("gpo_histogram auto (scratch query)",
				 gpo_histogram(&B.ctx, &B.v_f64, NULL, &B.hist, B.counts,
							   &B.domain, NULL, &need), need);
	scratch_need("gpo_hash_join (scratch query)",
				 gpo_hash_join(&B.ctx, &B.v_build, &B.v_probe, &B.v_build_rows,
							   &B.v_probe_rows, &B.count, NULL, &need), need);
	scratch_need("gpo_gather (scratch query)",
				 gpo_gather(&B.ctx, &B.v_f64, &B.v_index, &B.v_copy, NULL,
							&need), need);

	getloadavg(load, 3);
	printf("cpu_primitives: %lld rows, threads %d of omp_get_num_procs() %d, "
		   "median of %d runs after a warm-up run (fewer where they would pass "
		   "%.0f s); load average %.2f %.2f %.2f\n",
		   (long long) n, threads, omp_get_num_procs(), reps,
		   BENCH_ROW_BUDGET_MS / 1e3, load[0], load[1], load[2]);
	printf("inputs: one chunk each, no NULLs, fixed-seed xorshift64; "
		   "CPU faces through the gpo_X dispatchers; scratch %.1f MiB, "
		   "allocated and queried outside the timed runs\n\n",
		   B.scratch_have / 1048576.0);
	printf("| operation | ms | M rows/s | GB/s | %% of memcpy | bytes counted |\n");
	printf("| --- | ---: | ---: | ---: | ---: | --- |\n");

	/*
	 * The bandwidth reference: the threaded memcpy, or the single-threaded
	 * one where that is faster (a core shared with other work).
	 */
	ms = time_ms(op_memcpy, reps);
	copy_gbs = 16.0 * nb / (ms * 1e-3) / 1e9;
	snprintf(what, sizeof(what), "memcpy float64, %d thread%s", threads,
			 threads == 1 ? "" : "s (a slice each)");
	row(what, ms, nb, 16.0 * nb, copy_gbs, "8 read + 8 written a row");
	if (threads > 1)
	{
		double		gbs1;

		ms = time_ms(op_memcpy1, reps);
		gbs1 = 16.0 * nb / (ms * 1e-3) / 1e9;
		row("memcpy float64, 1 thread", ms, nb, 16.0 * nb, copy_gbs,
			"8 read + 8 written a row");
		if (gbs1 > copy_gbs)
		{
			printf("| (reference: the 1-thread memcpy, faster here) | | | | | |\n");
			copy_gbs = gbs1;
		}
	}
	for (int64_t i = 0; i < n; i += 97)
		if (B.copy[i] != B.f64[i])
			fail("memcpy: row %lld differs", (long long) i);

	/* run-length encoding */
	ms = time_ms(op_rle, reps);
	check_rle();
	snprintf(what, sizeof(what), "RLE int32, mean run 16 (%lld runs)",
			 (long long) B.count);
	row(what, ms, nb, 4.0 * nb + 20.0 * B.count, copy_gbs,
		"4 read a row + 20 written a run (value, start, length)");

	/* compaction */
	ms = time_ms(op_compact, reps);
	check_compact();
	snprintf(what, sizeof(what), "compaction, uint8 mask (%lld kept)",
			 (long long) B.count);
	row(what, ms, nb, nb + 8.0 * B.count, copy_gbs,
		"1 read a row + 8 written a kept row (int64 index map)");

	/* scans */
	ms = time_ms(op_scan_i64, reps);
	check_scan_i64();
	row("inclusive scan int64, exact", ms, nb, 16.0 * nb, copy_gbs,
		"8 read + 8 written a row");
	ms = time_ms(op_scan_f64, reps);
	check_scan_f64();
	row("inclusive scan float64", ms, nb, 16.0 * nb, copy_gbs,
		"8 read + 8 written a row");

	/* pair sorts (the third with keys on both sides of 0) */
	for (int k = 0; k < 3; k++)
	{
		int64_t		distinct = k != 1 ? (n < 1000 ? n : 1000) : n;
		int64_t		from = k == 2 ? -distinct / 2 : 0;

		set_keys(distinct, from);
		ms = time_ms(op_sort, reps);
		check_sort();
		snprintf(what, sizeof(what), "pair sort int32 + int64 row id, %lld distinct from %lld",
				 (long long) distinct, (long long) from);
		row(what, ms, nb, 16.0 * nb, copy_gbs,
			"4 key read + 4 key and 8 row id written a row");
	}

	/* group aggregation */
	distincts[0] = 10;
	distincts[1] = 1000;
	distincts[2] = 1000000;
	distincts[3] = n;
	for (int di = 0; di < 4; di++)
	{
		int64_t		distinct = distincts[di] < n ? distincts[di] : n;

		if (di > 0 && distinct <= (distincts[di - 1] < n ? distincts[di - 1] : n))
			continue;			/* rows too few for a new distinct count */
		set_keys(distinct, 0);
		B.agg.capacity = distinct;
		B.agg.keys = xalloc(sizeof(int32_t) * distinct);
		B.agg.rows = xalloc(sizeof(int64_t) * distinct);
		B.agg.count = xalloc(sizeof(int64_t) * distinct);
		B.agg.fsum = xalloc(sizeof(double) * distinct);
		for (int si = 0; si < 3; si++)
		{
			B.strategy = strategies[si];
			/* keys are 0 .. distinct - 1: dense only for a small enough range */
			if (B.strategy == GPO_AGG_DENSE && distinct > GPO_AGG_DENSE_MAX_RANGE)
				continue;
			ms = time_ms(op_groupagg, reps);
			check_groupagg(distinct);
			snprintf(what, sizeof(what),
					 "group by int32, count + sum(float8), %lld distinct, %s",
					 (long long) distinct, gpo_agg_strategy_name(B.strategy));
			row(what, ms, nb, 12.0 * nb, copy_gbs,
				"4 key + 8 value read a row");
		}
		free(B.agg.keys);
		free(B.agg.rows);
		free(B.agg.count);
		free(B.agg.fsum);
	}

	/* histograms */
	B.hist.auto_domain = false;
	ms = time_ms(op_hist, reps);
	check_hist();
	row("histogram float64, 100 bins, given [0,1)", ms, nb, 8.0 * nb, copy_gbs,
		"8 read a row");
	B.hist.auto_domain = true;
	ms = time_ms(op_hist, reps);
	check_hist();
	row("histogram float64, 100 bins, automatic domain", ms, nb, 8.0 * nb,
		copy_gbs, "8 a row (the data is read twice)");

	/* hash join */
	ms = time_ms(op_join, reps);
	check_join();
	snprintf(what, sizeof(what),
			 "hash join int32, %lld build x %lld probe rows (build + probe)",
			 (long long) B.m, (long long) n);
	snprintf(counted, sizeof(counted),
			 "4 a build row + 4 key read and 16 pair written a probe row; "
			 "M rows/s per probe row");
	row(what, ms, nb, 4.0 * mb + 20.0 * nb, copy_gbs, counted);

	/* gather */
	ms = time_ms(op_gather, reps);
	check_gather();
	row("gather float64, random int64 index", ms, nb, 24.0 * nb, copy_gbs,
		"8 index + 8 random value read + 8 written a row");

	getloadavg(load, 3);
	printf("\nload average at the end: %.2f %.2f %.2f\n", load[0], load[1],
		   load[2]);
	return 0;
}
