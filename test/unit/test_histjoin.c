/*
 * test_histjoin.c
 *	  Unit tests of gpo_histogram, gpo_hash_join and gpo_gather: random and
 *	  adversarial inputs over every partition, against naive references, on
 *	  the CPU face and (where a GPU is usable) the GPU face.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpo_hist.h"
#include "gpo_internal.h"
#include "gpo_join.h"
#include "test_util.h"

/* Allocates or exits. */
static void *
xmalloc(size_t bytes)
{
	void	   *p = malloc(bytes ? bytes : 1);

	if (p == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

/*
 * Builds t over vals (type, n rows, kind's partition); valid NULL = no
 * bitmaps.  With drop, some chunks lose their bitmap (their rows become
 * valid in valid).
 */
static void
make_input(tvec *t, gpo_type type, part_kind kind, int64_t n,
		   const void *vals, uint8_t *valid, bool drop)
{
	tvec_make_kind(t, type, kind, n, valid != NULL);
	if (valid != NULL && drop)
		tvec_drop_some_bitmaps(t, valid);
	tvec_fill(t, vals, valid);
}

/* Row i of vals of type as float8 (the SQL cast v::float8). */
static double
as_float8(gpo_type type, const void *vals, int64_t i)
{
	switch (type)
	{
		case GPO_INT32:
			return (double) ((const int32_t *) vals)[i];
		case GPO_INT64:
			return (double) ((const int64_t *) vals)[i];
		case GPO_FLOAT32:
			return (double) ((const float *) vals)[i];
		default:
			return ((const double *) vals)[i];
	}
}

/* Stores double d as row i of vals of type (integers saturate). */
static void
put_value(gpo_type type, void *vals, int64_t i, double d)
{
	switch (type)
	{
		case GPO_INT32:
			((int32_t *) vals)[i] = isnan(d) ? 0 : d <= INT32_MIN ? INT32_MIN :
				d >= INT32_MAX ? INT32_MAX : (int32_t) d;
			break;
		case GPO_INT64:
			((int64_t *) vals)[i] = isnan(d) ? 0 : d <= -9.2e18 ? INT64_MIN :
				d >= 9.2e18 ? INT64_MAX : (int64_t) d;
			break;
		case GPO_FLOAT32:
			((float *) vals)[i] = (float) d;
			break;
		default:
			((double *) vals)[i] = d;
			break;
	}
}

/* ==================== histogram ==================== */

/*
 * PostgreSQL 15's width_bucket_float8 (ascending bounds), literally; for
 * domains where its arithmetic overflows (undefined in PostgreSQL), the
 * documented halving rule.
 */
static int32_t
ref_width_bucket(double operand, double bound1, double bound2, int32_t count)
{
	int32_t		result;

	if (operand < bound1)
		result = 0;
	else if (operand >= bound2)
		result = count + 1;
	else if (isfinite((double) count * (bound2 - bound1)))
		result = ((double) count * (operand - bound1) / (bound2 - bound1)) + 1;
	else
	{
		result = count * ((operand / 2 - bound1 / 2) / (bound2 / 2 - bound1 / 2));
		if (result >= count)
			result = count - 1;
		result++;
	}
	return result;
}

/* One histogram case's inputs. */
typedef struct hist_in
{
	gpo_type	type;
	int64_t		n;
	void	   *vals;
	uint8_t    *valid;			/* NULL: no validity bitmaps */
	uint8_t    *mask;			/* NULL: no mask */
	uint8_t    *mask_valid;		/* NULL: mask without bitmaps */
	gpo_hist_spec spec;
} hist_in;

/* Naive reference histogram. */
static void
ref_histogram(const hist_in *h, int64_t *counts, gpo_hist_domain *dom)
{
	int32_t		bins = h->spec.bins;
	double		lo = h->spec.lo;
	double		hi = h->spec.hi;
	bool		any = false;

	memset(counts, 0, sizeof(int64_t) * (bins + 2));
	if (h->spec.auto_domain)
	{
		for (int64_t i = 0; i < h->n; i++)
		{
			double		v = as_float8(h->type, h->vals, i);

			if ((h->valid && !h->valid[i]) || !isfinite(v))
				continue;
			/* -0.0 below +0.0 */
			if (!any || v < lo || (v == lo && signbit(v)))
				lo = v;
			if (!any || v > hi || (v == hi && !signbit(v)))
				hi = v;
			any = true;
		}
		dom->valid = any;
		dom->lo = any ? lo : 0.0;
		dom->hi = any ? hi : 0.0;
		if (!any)
			return;
	}
	else
	{
		dom->valid = true;
		dom->lo = lo;
		dom->hi = hi;
	}
	for (int64_t i = 0; i < h->n; i++)
	{
		double		v = as_float8(h->type, h->vals, i);
		int32_t		b;

		if ((h->valid && !h->valid[i]) || isnan(v))
			continue;
		if (h->mask && (!h->mask[i] || (h->mask_valid && !h->mask_valid[i])))
			continue;
		if (!h->spec.auto_domain)
			b = ref_width_bucket(v, lo, hi, bins);
		else if (v == -INFINITY)
			b = 0;
		else if (v == INFINITY)
			b = bins + 1;
		else if (lo == hi)
			b = 1;
		else if (v == hi)
			b = bins;
		else
		{
			b = ref_width_bucket(v, lo, hi, bins);
			if (b > bins)
				b = bins;
		}
		counts[b]++;
	}
}

/* Fails c unless two histograms (and domains) are identical. */
static void
hist_compare(tcase *c, const char *face, int32_t bins, const int64_t *got,
			 const gpo_hist_domain *gdom, const int64_t *want,
			 const gpo_hist_domain *wdom)
{
	for (int64_t k = 0; k < bins + 2 && c->ok; k++)
		expect(c, got[k] == want[k], "%s bucket %lld: %lld, want %lld", face,
			   (long long) k, (long long) got[k], (long long) want[k]);
	expect(c, gdom->valid == wdom->valid, "%s domain valid %d, want %d", face,
		   gdom->valid, wdom->valid);
	if (wdom->valid)
		expect(c, memcmp(&gdom->lo, &wdom->lo, sizeof(double)) == 0 &&
			   memcmp(&gdom->hi, &wdom->hi, sizeof(double)) == 0,
			   "%s domain [%.17g, %.17g], want [%.17g, %.17g]", face,
			   gdom->lo, gdom->hi, wdom->lo, wdom->hi);
}

/* Runs one histogram case on both faces; partitions vary per case. */
static void
hist_run(tgroup *g, hist_in *h, part_kind kind, int threads, bool tiny)
{
	tvec		tv, tm;
	tcase		c;
	gpo_ctx		ctx;
	int32_t		bins = h->spec.bins;
	int64_t    *want = xmalloc(sizeof(int64_t) * (bins + 2));
	int64_t    *got = xmalloc(sizeof(int64_t) * (bins + 2));
	gpo_hist_domain wdom, gdom;
	part_kind	mkind = random_kind(h->n);
	size_t		bytes = 0;
	void	   *scratch;
	gpo_status	st;

	make_input(&tv, h->type, kind, h->n, h->vals, h->valid, true);
	if (h->mask)
		make_input(&tm, GPO_UINT8, mkind, h->n, h->mask, h->mask_valid, true);
	ref_histogram(h, want, &wdom);
	case_begin(&c, "%s n=%lld %s bins=%d %s mask=%s%s threads=%d%s",
			   gpo_type_name(h->type), (long long) h->n, part_name(kind),
			   bins, h->spec.auto_domain ? "auto" : "given",
			   h->mask ? part_name(mkind) : "none",
			   h->valid ? " nulls" : "", threads, tiny ? " tiny-blocks" : "");
	gpo_rows_per_block = tiny ? 1 : 16384;
	test_ctx(&ctx, GPO_DEVICE_CPU, threads);
	st = gpo_histogram(&ctx, &tv.v, h->mask ? &tm.v : NULL, &h->spec, got,
					   &gdom, NULL, &bytes);
	expect(&c, st == GPO_OK, "scratch query: %s", gpo_status_text(st));
	scratch = xmalloc(bytes);
	memset(got, 0xA5, sizeof(int64_t) * (bins + 2));
	st = gpo_histogram(&ctx, &tv.v, h->mask ? &tm.v : NULL, &h->spec, got,
					   &gdom, scratch, &bytes);
	expect(&c, st == GPO_OK, "status %s (%s)", gpo_status_text(st), ctx.detail);
	expect(&c, ctx.used == GPO_DEVICE_CPU, "used face %d", (int) ctx.used);
	if (st == GPO_OK)
		hist_compare(&c, "CPU", bins, got, &gdom, want, &wdom);
	case_result(g, c.ok, c.msg);

	if (!have_gpu)
		gpu_skip(g);
	else
	{
		case_begin(&c, "GPU: %s", c.msg);
		test_ctx(&ctx, GPO_DEVICE_GPU, threads);
		memset(got, 0xA5, sizeof(int64_t) * (bins + 2));
		st = gpo_histogram(&ctx, &tv.v, h->mask ? &tm.v : NULL, &h->spec, got,
						   &gdom, scratch, &bytes);
		expect(&c, st == GPO_OK, "status %s (%s)", gpo_status_text(st),
			   ctx.detail);
		expect(&c, ctx.used == GPO_DEVICE_GPU, "used face %d", (int) ctx.used);
		if (st == GPO_OK)
			hist_compare(&c, "GPU", bins, got, &gdom, want, &wdom);
		case_result(g, c.ok, c.msg);
	}
	gpo_rows_per_block = 16384;
	free(scratch);
	free(want);
	free(got);
	tvec_free(&tv);
	if (h->mask)
		tvec_free(&tm);
}

/* A value for generator gen of a histogram over spec (bins, domain). */
static double
hist_gen_value(int gen, const gpo_hist_spec *s, double lo, double hi)
{
	static const double specials[] = {
		NAN, INFINITY, -INFINITY, -0.0, 0.0, DBL_MAX, -DBL_MAX, DBL_MIN,
		-DBL_MIN, 4.9e-324, 1.0, -1.0, 1e308, -1e308
	};
	double		w = hi - lo;
	int64_t		k = (int64_t) rng_below((uint64_t) s->bins + 1);

	switch (gen)
	{
		case 0:					/* uniform around the domain */
			if (!isfinite(w))
				return lo / 2 + hi / 2 + (rng_next() >> 11) * 0x1p-53 * (hi / 2) *
					(rng_chance(1, 2) ? 1 : -1);
			return lo - 0.2 * w + (rng_next() >> 11) * 0x1p-53 * 1.4 * w;
		case 1:					/* bin edges, two ways, and their neighbours */
			{
				double		e = rng_chance(1, 2) ? lo + k * (w / s->bins) :
					lo + (w * k) / s->bins;

				switch (rng_below(4))
				{
					case 0:
						return nextafter(e, -INFINITY);
					case 1:
						return nextafter(e, INFINITY);
					default:
						return e;
				}
			}
		case 2:					/* specials, the bounds and their neighbours */
			switch (rng_below(4))
			{
				case 0:
					return specials[rng_below(sizeof(specials) / sizeof(specials[0]))];
				case 1:
					return rng_chance(1, 2) ? lo : hi;
				case 2:
					return nextafter(rng_chance(1, 2) ? lo : hi,
									 rng_chance(1, 2) ? INFINITY : -INFINITY);
				default:
					return lo + (rng_next() >> 11) * 0x1p-53 * w;
			}
		default:				/* integer extremes and small integers */
			switch (rng_below(5))
			{
				case 0:
					return (double) INT64_MIN;
				case 1:
					return 9.3e18;	/* saturates to INT64_MAX */
				case 2:
					return (double) (rng_chance(1, 2) ? INT32_MIN : INT32_MAX);
				default:
					return (double) ((int64_t) rng_below(41) - 20);
			}
	}
}

/* Builds and runs one random histogram case. */
static void
hist_random(tgroup *g, gpo_type type, int64_t n, part_kind kind)
{
	static const int32_t bins_opts[] = {1, 2, 3, 10, 100, 1000, 5000, 70000};
	static const double domains[][2] = {
		{0.0, 1.0}, {-3.5, 17.25}, {-20.0, 20.0}, {-DBL_MAX, DBL_MAX},
		{-1e308, 1e308}, {1.0, 1.0000000000000002}, {-2147483648.0, 2147483647.0},
		{-9.2233720368547758e18, 9.2233720368547758e18}, {0.1, 0.7}
	};
	static const int threads_opts[] = {0, 1, 2, 3, 5, 8};
	hist_in		h;
	int			gen = (int) rng_below(type == GPO_INT32 || type == GPO_INT64 ? 4 : 3);
	int			dsel = (int) rng_below(sizeof(domains) / sizeof(domains[0]));
	bool		allsame = rng_chance(1, 8);
	bool		nulls = rng_chance(1, 2);
	int			maskmode = (int) rng_below(3);
	bool		tiny = n <= 70000 && rng_chance(1, 2);
	int			threads = tiny ? threads_opts[rng_below(6)] : 0;
	double		same;

	h.type = type;
	h.n = n;
	h.spec.bins = bins_opts[rng_below(n > 1000000 ? 6 : 8)];
	h.spec.auto_domain = rng_chance(1, 2);
	h.spec.lo = domains[dsel][0];
	h.spec.hi = domains[dsel][1];
	same = hist_gen_value(2, &h.spec, h.spec.lo, h.spec.hi);
	h.vals = xmalloc(8 * (n + 1));
	h.valid = nulls ? xmalloc(n + 1) : NULL;
	h.mask = maskmode ? xmalloc(n + 1) : NULL;
	h.mask_valid = maskmode == 2 ? xmalloc(n + 1) : NULL;
	for (int64_t i = 0; i < n; i++)
	{
		put_value(type, h.vals, i, allsame ? same :
				  hist_gen_value(gen, &h.spec, h.spec.lo, h.spec.hi));
		if (h.valid)
			h.valid[i] = rng_chance(7, 8);
		if (h.mask)
			h.mask[i] = rng_chance(2, 3) ? (uint8_t) (1 + rng_below(255)) : 0;
		if (h.mask_valid)
			h.mask_valid[i] = rng_chance(9, 10);
	}
	hist_run(g, &h, kind, threads, tiny);
	free(h.vals);
	free(h.valid);
	free(h.mask);
	free(h.mask_valid);
}

/*
 * width_bucket results of PostgreSQL 15.20 itself (SELECT width_bucket(v, lo,
 * hi, count) over these float8s): bin edges computed three ways and their
 * neighbours, bounds, infinities, huge and tiny domains.
 */
static void
hist_pg_table(void)
{
	/* operand, lo, hi, count, PostgreSQL's width_bucket */
	static const struct
	{
		double		v, lo, hi;
		int32_t		count;
		int32_t		want;
	}			t[] = {
		{0x0.0p+0, 0x0.0p+0, 0x1.0000000000000p+0, 10, 1},
		{0x0.0000000000001p-1022, 0x0.0p+0, 0x1.0000000000000p+0, 10, 1},
		{-0x0.0000000000001p-1022, 0x0.0p+0, 0x1.0000000000000p+0, 10, 0},
		{0x1.999999999999ap-4, 0x0.0p+0, 0x1.0000000000000p+0, 10, 2},
		{0x1.999999999999bp-4, 0x0.0p+0, 0x1.0000000000000p+0, 10, 2},
		{0x1.9999999999999p-4, 0x0.0p+0, 0x1.0000000000000p+0, 10, 2},
		{0x1.999999999999ap-3, 0x0.0p+0, 0x1.0000000000000p+0, 10, 3},
		{0x1.999999999999bp-3, 0x0.0p+0, 0x1.0000000000000p+0, 10, 3},
		{0x1.9999999999999p-3, 0x0.0p+0, 0x1.0000000000000p+0, 10, 3},
		{0x1.3333333333334p-2, 0x0.0p+0, 0x1.0000000000000p+0, 10, 4},
		{0x1.3333333333335p-2, 0x0.0p+0, 0x1.0000000000000p+0, 10, 4},
		{0x1.3333333333333p-2, 0x0.0p+0, 0x1.0000000000000p+0, 10, 4},
		{0x1.3333333333332p-2, 0x0.0p+0, 0x1.0000000000000p+0, 10, 3},
		{0x1.999999999999ap-2, 0x0.0p+0, 0x1.0000000000000p+0, 10, 5},
		{0x1.999999999999bp-2, 0x0.0p+0, 0x1.0000000000000p+0, 10, 5},
		{0x1.9999999999999p-2, 0x0.0p+0, 0x1.0000000000000p+0, 10, 5},
		{0x1.0000000000000p-1, 0x0.0p+0, 0x1.0000000000000p+0, 10, 6},
		{0x1.0000000000001p-1, 0x0.0p+0, 0x1.0000000000000p+0, 10, 6},
		{0x1.fffffffffffffp-2, 0x0.0p+0, 0x1.0000000000000p+0, 10, 5},
		{0x1.3333333333334p-1, 0x0.0p+0, 0x1.0000000000000p+0, 10, 7},
		{0x1.3333333333335p-1, 0x0.0p+0, 0x1.0000000000000p+0, 10, 7},
		{0x1.3333333333333p-1, 0x0.0p+0, 0x1.0000000000000p+0, 10, 7},
		{0x1.3333333333332p-1, 0x0.0p+0, 0x1.0000000000000p+0, 10, 6},
		{0x1.6666666666667p-1, 0x0.0p+0, 0x1.0000000000000p+0, 10, 8},
		{0x1.6666666666668p-1, 0x0.0p+0, 0x1.0000000000000p+0, 10, 8},
		{0x1.6666666666666p-1, 0x0.0p+0, 0x1.0000000000000p+0, 10, 8},
		{0x1.6666666666665p-1, 0x0.0p+0, 0x1.0000000000000p+0, 10, 7},
		{0x1.999999999999ap-1, 0x0.0p+0, 0x1.0000000000000p+0, 10, 9},
		{0x1.999999999999bp-1, 0x0.0p+0, 0x1.0000000000000p+0, 10, 9},
		{0x1.9999999999999p-1, 0x0.0p+0, 0x1.0000000000000p+0, 10, 9},
		{0x1.ccccccccccccdp-1, 0x0.0p+0, 0x1.0000000000000p+0, 10, 10},
		{0x1.ccccccccccccep-1, 0x0.0p+0, 0x1.0000000000000p+0, 10, 10},
		{0x1.cccccccccccccp-1, 0x0.0p+0, 0x1.0000000000000p+0, 10, 10},
		{0x1.0000000000000p+0, 0x0.0p+0, 0x1.0000000000000p+0, 10, 11},
		{0x1.0000000000001p+0, 0x0.0p+0, 0x1.0000000000000p+0, 10, 11},
		{0x1.fffffffffffffp-1, 0x0.0p+0, 0x1.0000000000000p+0, 10, 10},
		{INFINITY, 0x0.0p+0, 0x1.0000000000000p+0, 10, 11},
		{-INFINITY, 0x0.0p+0, 0x1.0000000000000p+0, 10, 0},
		{-0x0.0p+0, 0x0.0p+0, 0x1.0000000000000p+0, 10, 1},
		{0x1.fffffffffffffp+1023, 0x0.0p+0, 0x1.0000000000000p+0, 10, 11},
		{-0x1.fffffffffffffp+1023, 0x0.0p+0, 0x1.0000000000000p+0, 10, 0},
		{0x1.4b9ad0f953a6ep-2, 0x0.0p+0, 0x1.0000000000000p+0, 10, 4},
		{0x1.34f0696513270p-3, 0x0.0p+0, 0x1.0000000000000p+0, 10, 2},
		{0x1.4d474883171ffp-1, 0x0.0p+0, 0x1.0000000000000p+0, 10, 7},
		{0x1.28b2f3a47e100p-4, 0x0.0p+0, 0x1.0000000000000p+0, 10, 1},
		{0x1.125f2046063a0p-1, 0x0.0p+0, 0x1.0000000000000p+0, 10, 6},
		{0x1.767727ca98cc2p-2, 0x0.0p+0, 0x1.0000000000000p+0, 10, 4},
		{0x0.0p+0, 0x0.0p+0, 0x1.0000000000000p+0, 3, 1},
		{0x0.0000000000001p-1022, 0x0.0p+0, 0x1.0000000000000p+0, 3, 1},
		{-0x0.0000000000001p-1022, 0x0.0p+0, 0x1.0000000000000p+0, 3, 0},
		{0x1.5555555555555p-2, 0x0.0p+0, 0x1.0000000000000p+0, 3, 2},
		{0x1.5555555555556p-2, 0x0.0p+0, 0x1.0000000000000p+0, 3, 2},
		{0x1.5555555555554p-2, 0x0.0p+0, 0x1.0000000000000p+0, 3, 1},
		{0x1.5555555555555p-1, 0x0.0p+0, 0x1.0000000000000p+0, 3, 3},
		{0x1.5555555555556p-1, 0x0.0p+0, 0x1.0000000000000p+0, 3, 3},
		{0x1.5555555555554p-1, 0x0.0p+0, 0x1.0000000000000p+0, 3, 2},
		{0x1.0000000000000p+0, 0x0.0p+0, 0x1.0000000000000p+0, 3, 4},
		{0x1.0000000000001p+0, 0x0.0p+0, 0x1.0000000000000p+0, 3, 4},
		{0x1.fffffffffffffp-1, 0x0.0p+0, 0x1.0000000000000p+0, 3, 3},
		{INFINITY, 0x0.0p+0, 0x1.0000000000000p+0, 3, 4},
		{-INFINITY, 0x0.0p+0, 0x1.0000000000000p+0, 3, 0},
		{-0x0.0p+0, 0x0.0p+0, 0x1.0000000000000p+0, 3, 1},
		{0x1.fffffffffffffp+1023, 0x0.0p+0, 0x1.0000000000000p+0, 3, 4},
		{-0x1.fffffffffffffp+1023, 0x0.0p+0, 0x1.0000000000000p+0, 3, 0},
		{0x1.db208fa389760p-5, 0x0.0p+0, 0x1.0000000000000p+0, 3, 1},
		{0x1.03ce9dcdbd9d7p-1, 0x0.0p+0, 0x1.0000000000000p+0, 3, 2},
		{0x1.332a1858028d0p-5, 0x0.0p+0, 0x1.0000000000000p+0, 3, 1},
		{0x1.bc0d9d3586aa4p-2, 0x0.0p+0, 0x1.0000000000000p+0, 3, 2},
		{0x1.1e20b87b382e0p-4, 0x0.0p+0, 0x1.0000000000000p+0, 3, 1},
		{0x1.738f7d1a22dd8p-4, 0x0.0p+0, 0x1.0000000000000p+0, 3, 1},
		{-0x1.c000000000000p+1, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 1},
		{-0x1.bffffffffffffp+1, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 1},
		{-0x1.c000000000001p+1, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 0},
		{-0x1.1249249249248p-1, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 2},
		{-0x1.1249249249247p-1, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 2},
		{-0x1.1249249249249p-1, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 2},
		{-0x1.124924924924cp-1, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 1},
		{-0x1.124924924924bp-1, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 1},
		{-0x1.124924924924dp-1, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 1},
		{0x1.36db6db6db6dcp+1, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 3},
		{0x1.36db6db6db6ddp+1, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 3},
		{0x1.36db6db6db6dbp+1, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 3},
		{0x1.36db6db6db6dap+1, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 2},
		{0x1.36db6db6db6d9p+1, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 2},
		{0x1.5924924924924p+2, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 4},
		{0x1.5924924924925p+2, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 4},
		{0x1.5924924924923p+2, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 4},
		{0x1.0b6db6db6db6ep+3, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 5},
		{0x1.0b6db6db6db6fp+3, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 5},
		{0x1.0b6db6db6db6dp+3, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 4},
		{0x1.0b6db6db6db6cp+3, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 4},
		{0x1.6a4924924924ap+3, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 6},
		{0x1.6a4924924924bp+3, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 6},
		{0x1.6a49249249249p+3, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 6},
		{0x1.6a49249249248p+3, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 5},
		{0x1.c924924924924p+3, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 7},
		{0x1.c924924924925p+3, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 7},
		{0x1.c924924924923p+3, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 7},
		{0x1.1400000000000p+4, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 8},
		{0x1.1400000000001p+4, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 8},
		{0x1.13fffffffffffp+4, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 7},
		{INFINITY, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 8},
		{-INFINITY, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 0},
		{0x0.0p+0, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 2},
		{-0x0.0p+0, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 2},
		{0x1.fffffffffffffp+1023, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 8},
		{-0x1.fffffffffffffp+1023, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 0},
		{0x0.0000000000001p-1022, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 2},
		{0x1.53c2f08fcff5ap+2, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 3},
		{0x1.b507a1adeec2ap+3, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 6},
		{-0x1.dcba5be5c96bcp-1, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 1},
		{0x1.21d86ad2bc504p+0, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 2},
		{0x1.309d9bdf63849p+3, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 5},
		{0x1.02a3adae1138ep+4, -0x1.c000000000000p+1, 0x1.1400000000000p+4, 7, 7},
		{0x1.999999999999ap-4, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 1},
		{0x1.999999999999bp-4, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 1},
		{0x1.9999999999999p-4, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 0},
		{0x1.999999999999ap-3, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 2},
		{0x1.999999999999bp-3, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 2},
		{0x1.9999999999999p-3, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 1},
		{0x1.3333333333333p-2, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 3},
		{0x1.3333333333334p-2, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 3},
		{0x1.3333333333332p-2, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 2},
		{0x1.999999999999ap-2, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 4},
		{0x1.999999999999bp-2, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 4},
		{0x1.9999999999999p-2, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 3},
		{0x1.0000000000000p-1, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 5},
		{0x1.0000000000001p-1, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 5},
		{0x1.fffffffffffffp-2, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 4},
		{0x1.3333333333333p-1, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 6},
		{0x1.3333333333334p-1, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 6},
		{0x1.3333333333332p-1, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 5},
		{0x1.6666666666666p-1, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 7},
		{0x1.6666666666667p-1, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 7},
		{0x1.6666666666665p-1, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 6},
		{INFINITY, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 7},
		{-INFINITY, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 0},
		{0x0.0p+0, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 0},
		{-0x0.0p+0, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 0},
		{0x1.fffffffffffffp+1023, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 7},
		{-0x1.fffffffffffffp+1023, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 0},
		{0x0.0000000000001p-1022, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 0},
		{0x1.c8f8d8602b69ap-2, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 4},
		{0x1.5a1ed803cef72p-2, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 3},
		{0x1.5f1b06887d52ap-1, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 6},
		{0x1.060a71bbe75aap-3, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 1},
		{0x1.3aebe81eb6c2fp-1, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 6},
		{0x1.1856008697024p-2, 0x1.999999999999ap-4, 0x1.6666666666666p-1, 6, 2},
		{0x1.999999999999ap-4, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 1},
		{0x1.999999999999bp-4, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 1},
		{0x1.9999999999999p-4, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 0},
		{0x1.5555555555556p-3, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 2},
		{0x1.5555555555557p-3, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 2},
		{0x1.5555555555555p-3, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 2},
		{0x1.5555555555554p-3, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 1},
		{0x1.ddddddddddddep-3, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 3},
		{0x1.ddddddddddddfp-3, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 3},
		{0x1.dddddddddddddp-3, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 3},
		{0x1.ddddddddddddcp-3, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 2},
		{0x1.3333333333334p-2, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 4},
		{0x1.3333333333335p-2, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 4},
		{0x1.3333333333333p-2, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 4},
		{0x1.3333333333332p-2, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 3},
		{INFINITY, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 4},
		{-INFINITY, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 0},
		{0x0.0p+0, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 0},
		{-0x0.0p+0, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 0},
		{0x1.fffffffffffffp+1023, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 4},
		{-0x1.fffffffffffffp+1023, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 0},
		{0x0.0000000000001p-1022, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 0},
		{0x1.07e30ab5487a6p-3, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 1},
		{0x1.fa186c3a7628fp-4, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 1},
		{0x1.4b2776b649011p-3, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 1},
		{0x1.0d8aecf7dbf90p-2, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 3},
		{0x1.16d3559ee05f2p-3, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 1},
		{0x1.bb05ff5072170p-3, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 3, 2},
		{0x0.0p+0, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{0x0.0000000000001p-1022, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{-0x0.0000000000001p-1022, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{-0x1.1ccf385ebc8a0p+1023, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, 1},
		{-0x1.1ccf385ebc89fp+1023, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, 1},
		{-0x1.1ccf385ebc8a1p+1023, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, 0},
		{-0x1.c7b1f3cac7434p+1022, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{-0x1.c7b1f3cac7433p+1022, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{-0x1.c7b1f3cac7435p+1022, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{-0x1.55c576d815726p+1022, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{-0x1.55c576d815725p+1022, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{-0x1.55c576d815727p+1022, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{-0x1.c7b1f3cac7434p+1021, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{-0x1.c7b1f3cac7433p+1021, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{-0x1.c7b1f3cac7435p+1021, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{-0x1.c7b1f3cac7432p+1020, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{-0x1.c7b1f3cac7431p+1020, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{-0x1.c7b1f3cac7433p+1020, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{0x1.c7b1f3cac7430p+1020, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{0x1.c7b1f3cac7431p+1020, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{0x1.c7b1f3cac742fp+1020, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{0x1.c7b1f3cac7434p+1021, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{0x1.c7b1f3cac7435p+1021, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{0x1.c7b1f3cac7433p+1021, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{0x1.55c576d815726p+1022, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{0x1.55c576d815727p+1022, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{0x1.55c576d815725p+1022, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{0x1.c7b1f3cac7434p+1022, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{0x1.c7b1f3cac7435p+1022, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{0x1.c7b1f3cac7433p+1022, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{0x1.1ccf385ebc8a0p+1023, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, 11},
		{0x1.1ccf385ebc8a1p+1023, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, 11},
		{0x1.1ccf385ebc89fp+1023, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{INFINITY, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, 11},
		{-INFINITY, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, 0},
		{-0x0.0p+0, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, -2147483648},
		{0x1.fffffffffffffp+1023, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, 11},
		{-0x1.fffffffffffffp+1023, -0x1.1ccf385ebc8a0p+1023, 0x1.1ccf385ebc8a0p+1023, 10, 0},
		{0x0.0p+0, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 4, -2147483648},
		{0x0.0000000000001p-1022, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 4, -2147483648},
		{-0x0.0000000000001p-1022, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 4, -2147483648},
		{-0x1.fffffffffffffp+1023, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 4, 1},
		{-0x1.ffffffffffffep+1023, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 4, 1},
		{-INFINITY, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 4, 0},
		{-0x1.ffffffffffffep+1022, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 4, -2147483648},
		{-0x1.ffffffffffffdp+1022, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 4, -2147483648},
		{-0x1.fffffffffffffp+1022, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 4, -2147483648},
		{0x1.ffffffffffffep+1022, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 4, -2147483648},
		{0x1.fffffffffffffp+1022, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 4, -2147483648},
		{0x1.ffffffffffffdp+1022, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 4, -2147483648},
		{0x1.fffffffffffffp+1023, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 4, 5},
		{INFINITY, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 4, 5},
		{0x1.ffffffffffffep+1023, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 4, -2147483648},
		{-0x0.0p+0, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 4, -2147483648},
		{0x0.0p+0, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{0x0.0000000000001p-1022, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{-0x0.0000000000001p-1022, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{-0x1.fffffffffffffp+1023, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, 1},
		{-0x1.ffffffffffffep+1023, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, 1},
		{-INFINITY, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, 0},
		{-0x1.fef9db22d0e55p+1023, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{-0x1.fef9db22d0e54p+1023, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{-0x1.fef9db22d0e56p+1023, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{-0x1.fdf3b645a1cabp+1023, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{-0x1.fdf3b645a1caap+1023, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{-0x1.fdf3b645a1cacp+1023, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{-0x1.5604189374bc9p+1022, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{-0x1.5604189374bc8p+1022, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{-0x1.5604189374bcap+1022, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{-0x1.0000000000000p+971, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{-0x1.fffffffffffffp+970, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{-0x1.0000000000001p+971, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{0x1.fef9db22d0e53p+1023, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{0x1.fef9db22d0e54p+1023, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{0x1.fef9db22d0e52p+1023, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{0x1.ffffffffffffdp+1023, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{0x1.ffffffffffffep+1023, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{0x1.ffffffffffffcp+1023, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{INFINITY, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, 1001},
		{0x1.fffffffffffffp+1023, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, 1001},
		{-0x0.0p+0, -0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023, 1000, -2147483648},
		{0x1.0000000000000p+0, 0x1.0000000000000p+0, 0x1.0000000000001p+0, 1, 1},
		{0x1.0000000000001p+0, 0x1.0000000000000p+0, 0x1.0000000000001p+0, 1, 2},
		{0x1.fffffffffffffp-1, 0x1.0000000000000p+0, 0x1.0000000000001p+0, 1, 0},
		{0x1.0000000000002p+0, 0x1.0000000000000p+0, 0x1.0000000000001p+0, 1, 2},
		{INFINITY, 0x1.0000000000000p+0, 0x1.0000000000001p+0, 1, 2},
		{-INFINITY, 0x1.0000000000000p+0, 0x1.0000000000001p+0, 1, 0},
		{0x0.0p+0, 0x1.0000000000000p+0, 0x1.0000000000001p+0, 1, 0},
		{-0x0.0p+0, 0x1.0000000000000p+0, 0x1.0000000000001p+0, 1, 0},
		{0x1.fffffffffffffp+1023, 0x1.0000000000000p+0, 0x1.0000000000001p+0, 1, 2},
		{-0x1.fffffffffffffp+1023, 0x1.0000000000000p+0, 0x1.0000000000001p+0, 1, 0},
		{0x0.0000000000001p-1022, 0x1.0000000000000p+0, 0x1.0000000000001p+0, 1, 0},
		{0x1.0000000000000p+0, 0x1.0000000000000p+0, 0x1.0000000000002p+0, 2, 1},
		{0x1.0000000000001p+0, 0x1.0000000000000p+0, 0x1.0000000000002p+0, 2, 2},
		{0x1.fffffffffffffp-1, 0x1.0000000000000p+0, 0x1.0000000000002p+0, 2, 0},
		{0x1.0000000000002p+0, 0x1.0000000000000p+0, 0x1.0000000000002p+0, 2, 3},
		{0x1.0000000000003p+0, 0x1.0000000000000p+0, 0x1.0000000000002p+0, 2, 3},
		{INFINITY, 0x1.0000000000000p+0, 0x1.0000000000002p+0, 2, 3},
		{-INFINITY, 0x1.0000000000000p+0, 0x1.0000000000002p+0, 2, 0},
		{0x0.0p+0, 0x1.0000000000000p+0, 0x1.0000000000002p+0, 2, 0},
		{-0x0.0p+0, 0x1.0000000000000p+0, 0x1.0000000000002p+0, 2, 0},
		{0x1.fffffffffffffp+1023, 0x1.0000000000000p+0, 0x1.0000000000002p+0, 2, 3},
		{-0x1.fffffffffffffp+1023, 0x1.0000000000000p+0, 0x1.0000000000002p+0, 2, 0},
		{0x0.0000000000001p-1022, 0x1.0000000000000p+0, 0x1.0000000000002p+0, 2, 0},
		{-0x1.0000000000000p+31, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 1},
		{-0x1.fffffffffffffp+30, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 1},
		{-0x1.0000000000001p+31, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 0},
		{-0x1.f5c28f5c33333p+30, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 2},
		{-0x1.f5c28f5c33332p+30, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 2},
		{-0x1.f5c28f5c33334p+30, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 1},
		{-0x1.eb851eb866666p+30, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 3},
		{-0x1.eb851eb866665p+30, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 3},
		{-0x1.eb851eb866667p+30, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 2},
		{-0x1.5c28f5c533332p+29, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 34},
		{-0x1.5c28f5c533331p+29, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 34},
		{-0x1.5c28f5c533333p+29, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 34},
		{-0x1.5c28f5c533334p+29, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 34},
		{-0x1.5c28f5c533335p+29, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 34},
		{-0x1.fffff00000000p-2, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 51},
		{-0x1.ffffeffffffffp-2, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 51},
		{-0x1.fffff00000001p-2, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 51},
		{-0x1.0000000000000p-1, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 51},
		{-0x1.fffffffffffffp-2, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 51},
		{-0x1.0000000000001p-1, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 51},
		{0x1.f5c28f5833334p+30, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 100},
		{0x1.f5c28f5833335p+30, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 100},
		{0x1.f5c28f5833333p+30, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 100},
		{0x1.fffffffc00002p+30, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 101},
		{0x1.fffffffc00003p+30, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 101},
		{0x1.fffffffc00001p+30, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 101},
		{0x1.fffffffc00000p+30, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 101},
		{0x1.fffffffbfffffp+30, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 101},
		{INFINITY, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 101},
		{-INFINITY, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 0},
		{0x0.0p+0, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 51},
		{-0x0.0p+0, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 51},
		{0x1.fffffffffffffp+1023, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 101},
		{-0x1.fffffffffffffp+1023, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 0},
		{0x0.0000000000001p-1022, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 51},
		{0x1.2d71d093d526ep+30, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 80},
		{0x1.978a64c20b5f8p+29, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 70},
		{-0x1.060b90767fbafp+30, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 25},
		{0x1.30d6ea9089698p+28, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 58},
		{0x1.9cd1cbd462be0p+26, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 53},
		{0x1.80240b2876deep+30, -0x1.0000000000000p+31, 0x1.fffffffc00000p+30, 100, 88},
		{-0x1.0000000000000p+63, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 1},
		{-0x1.fffffffffffffp+62, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 1},
		{-0x1.0000000000001p+63, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 0},
		{-0x1.6db6db6db6db7p+62, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 2},
		{-0x1.6db6db6db6db6p+62, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 2},
		{-0x1.6db6db6db6db8p+62, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 1},
		{-0x1.b6db6db6db6dcp+61, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 3},
		{-0x1.b6db6db6db6dbp+61, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 3},
		{-0x1.b6db6db6db6ddp+61, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 3},
		{-0x1.2492492492494p+60, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 4},
		{-0x1.2492492492493p+60, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 4},
		{-0x1.2492492492495p+60, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 4},
		{0x1.2492492492490p+60, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 5},
		{0x1.2492492492491p+60, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 5},
		{0x1.249249249248fp+60, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 5},
		{0x1.b6db6db6db6d8p+61, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 5},
		{0x1.b6db6db6db6d9p+61, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 5},
		{0x1.b6db6db6db6d7p+61, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 5},
		{0x1.b6db6db6db6dcp+61, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 6},
		{0x1.b6db6db6db6ddp+61, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 6},
		{0x1.b6db6db6db6dbp+61, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 6},
		{0x1.6db6db6db6db6p+62, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 7},
		{0x1.6db6db6db6db7p+62, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 7},
		{0x1.6db6db6db6db5p+62, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 6},
		{0x1.0000000000000p+63, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 8},
		{0x1.0000000000001p+63, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 8},
		{0x1.fffffffffffffp+62, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 8},
		{INFINITY, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 8},
		{-INFINITY, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 0},
		{0x0.0p+0, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 4},
		{-0x0.0p+0, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 4},
		{0x1.fffffffffffffp+1023, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 8},
		{-0x1.fffffffffffffp+1023, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 0},
		{0x0.0000000000001p-1022, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 4},
		{0x1.d5e76972e6cc0p+61, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 6},
		{-0x1.b24daf641b434p+61, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 3},
		{0x1.ebb2f4895ea56p+62, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 7},
		{-0x1.8719c3be78fc4p+62, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 1},
		{-0x1.4f5e71ab8a168p+60, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 3},
		{0x1.074ff3abc87c0p+62, -0x1.0000000000000p+63, 0x1.0000000000000p+63, 7, 6},
		{0x1.56e1fc2f8f359p-997, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 1},
		{0x1.56e1fc2f8f35ap-997, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 1},
		{0x1.56e1fc2f8f358p-997, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 0},
		{0x1.1dbc5227a2020p-996, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 2},
		{0x1.1dbc5227a2021p-996, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 2},
		{0x1.1dbc5227a201fp-996, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 1},
		{0x1.9007a6377c693p-996, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 3},
		{0x1.9007a6377c694p-996, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 3},
		{0x1.9007a6377c692p-996, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 2},
		{0x1.01297d23ab683p-995, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 4},
		{0x1.01297d23ab684p-995, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 4},
		{0x1.01297d23ab682p-995, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 3},
		{0x1.01297d23ab685p-995, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 4},
		{INFINITY, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 4},
		{-INFINITY, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 0},
		{0x0.0p+0, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 0},
		{-0x0.0p+0, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 0},
		{0x1.fffffffffffffp+1023, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 4},
		{-0x1.fffffffffffffp+1023, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 0},
		{0x0.0000000000001p-1022, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 0},
		{0x1.bf1bc70cc593ap-997, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 1},
		{0x1.531930345811cp-996, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 2},
		{0x1.71c50d9b470e3p-997, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 1},
		{0x1.908fa2510daaap-996, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 3},
		{0x1.b1997b8f2918cp-996, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 3},
		{0x1.6fec0e145ee45p-996, 0x1.56e1fc2f8f359p-997, 0x1.01297d23ab683p-995, 3, 2},
		{-0x1.4000000000000p+2, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 1},
		{-0x1.3ffffffffffffp+2, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 1},
		{-0x1.4000000000001p+2, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 0},
		{-0x1.3ffffffb00000p+2, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 1},
		{-0x1.3ffffffafffffp+2, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 2},
		{-0x1.3ffffffb00001p+2, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 1},
		{-0x1.3ffffff600000p+2, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 2},
		{-0x1.3ffffff5fffffp+2, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 3},
		{-0x1.3ffffff600001p+2, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 2},
		{-0x1.aaaaaaaaaaaaap+0, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 715827883},
		{-0x1.aaaaaaaaaaaa9p+0, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 715827883},
		{-0x1.aaaaaaaaaaaabp+0, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 715827882},
		{-0x1.aaaaaaaaaaaacp+0, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 715827882},
		{-0x1.aaaaaaaaaaaadp+0, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 715827882},
		{0x0.0p+0, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 1073741824},
		{0x0.0000000000001p-1022, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 1073741824},
		{-0x0.0000000000001p-1022, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 1073741824},
		{0x1.3ffffffb00000p+2, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 2147483646},
		{0x1.3ffffffb00001p+2, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 2147483646},
		{0x1.3ffffffafffffp+2, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 2147483646},
		{0x1.4000000000000p+2, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 2147483647},
		{0x1.4000000000001p+2, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 2147483647},
		{0x1.3ffffffffffffp+2, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 2147483647},
		{INFINITY, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 2147483647},
		{-INFINITY, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 0},
		{-0x0.0p+0, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 1073741824},
		{0x1.fffffffffffffp+1023, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 2147483647},
		{-0x1.fffffffffffffp+1023, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 0},
		{0x1.e09c91c2efc0cp+1, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 1880074284},
		{-0x1.dcce6e13292d4p+0, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 673767653},
		{0x1.f3f4c5700e9ccp+0, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 1493135429},
		{0x1.e32c7c3ddf328p-1, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 1276399591},
		{0x1.99103dfe02c80p-1, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 1245315468},
		{-0x1.c07518a7fbc20p-2, -0x1.4000000000000p+2, 0x1.4000000000000p+2, 2147483646, 979693489},
		{0x0.0p+0, 0x0.0p+0, 0x1.9000000000000p+6, 100, 1},
		{0x0.0000000000001p-1022, 0x0.0p+0, 0x1.9000000000000p+6, 100, 1},
		{-0x0.0000000000001p-1022, 0x0.0p+0, 0x1.9000000000000p+6, 100, 0},
		{0x1.0000000000000p+0, 0x0.0p+0, 0x1.9000000000000p+6, 100, 2},
		{0x1.0000000000001p+0, 0x0.0p+0, 0x1.9000000000000p+6, 100, 2},
		{0x1.fffffffffffffp-1, 0x0.0p+0, 0x1.9000000000000p+6, 100, 2},
		{0x1.0000000000000p+1, 0x0.0p+0, 0x1.9000000000000p+6, 100, 3},
		{0x1.0000000000001p+1, 0x0.0p+0, 0x1.9000000000000p+6, 100, 3},
		{0x1.fffffffffffffp+0, 0x0.0p+0, 0x1.9000000000000p+6, 100, 3},
		{0x1.0800000000000p+5, 0x0.0p+0, 0x1.9000000000000p+6, 100, 34},
		{0x1.0800000000001p+5, 0x0.0p+0, 0x1.9000000000000p+6, 100, 34},
		{0x1.07fffffffffffp+5, 0x0.0p+0, 0x1.9000000000000p+6, 100, 33},
		{0x1.9000000000000p+5, 0x0.0p+0, 0x1.9000000000000p+6, 100, 51},
		{0x1.9000000000001p+5, 0x0.0p+0, 0x1.9000000000000p+6, 100, 51},
		{0x1.8ffffffffffffp+5, 0x0.0p+0, 0x1.9000000000000p+6, 100, 50},
		{0x1.8c00000000000p+6, 0x0.0p+0, 0x1.9000000000000p+6, 100, 100},
		{0x1.8c00000000001p+6, 0x0.0p+0, 0x1.9000000000000p+6, 100, 100},
		{0x1.8bfffffffffffp+6, 0x0.0p+0, 0x1.9000000000000p+6, 100, 99},
		{0x1.9000000000000p+6, 0x0.0p+0, 0x1.9000000000000p+6, 100, 101},
		{0x1.9000000000001p+6, 0x0.0p+0, 0x1.9000000000000p+6, 100, 101},
		{0x1.8ffffffffffffp+6, 0x0.0p+0, 0x1.9000000000000p+6, 100, 100},
		{INFINITY, 0x0.0p+0, 0x1.9000000000000p+6, 100, 101},
		{-INFINITY, 0x0.0p+0, 0x1.9000000000000p+6, 100, 0},
		{-0x0.0p+0, 0x0.0p+0, 0x1.9000000000000p+6, 100, 1},
		{0x1.fffffffffffffp+1023, 0x0.0p+0, 0x1.9000000000000p+6, 100, 101},
		{-0x1.fffffffffffffp+1023, 0x0.0p+0, 0x1.9000000000000p+6, 100, 0},
		{0x1.4ffcb362ae075p+6, 0x0.0p+0, 0x1.9000000000000p+6, 100, 84},
		{0x1.79df58197f390p+6, 0x0.0p+0, 0x1.9000000000000p+6, 100, 95},
		{0x1.7b4756e9b446ep+5, 0x0.0p+0, 0x1.9000000000000p+6, 100, 48},
		{0x1.09a92f933fffep+6, 0x0.0p+0, 0x1.9000000000000p+6, 100, 67},
		{0x1.8448ca48ed6e4p+2, 0x0.0p+0, 0x1.9000000000000p+6, 100, 7},
		{0x1.1898c8717af97p+6, 0x0.0p+0, 0x1.9000000000000p+6, 100, 71},
		{-0x1.0000000000000p+0, -0x1.0000000000000p+0, 0x0.0p+0, 3, 1},
		{-0x1.fffffffffffffp-1, -0x1.0000000000000p+0, 0x0.0p+0, 3, 1},
		{-0x1.0000000000001p+0, -0x1.0000000000000p+0, 0x0.0p+0, 3, 0},
		{-0x1.5555555555556p-1, -0x1.0000000000000p+0, 0x0.0p+0, 3, 1},
		{-0x1.5555555555555p-1, -0x1.0000000000000p+0, 0x0.0p+0, 3, 2},
		{-0x1.5555555555557p-1, -0x1.0000000000000p+0, 0x0.0p+0, 3, 1},
		{-0x1.5555555555556p-2, -0x1.0000000000000p+0, 0x0.0p+0, 3, 3},
		{-0x1.5555555555555p-2, -0x1.0000000000000p+0, 0x0.0p+0, 3, 3},
		{-0x1.5555555555557p-2, -0x1.0000000000000p+0, 0x0.0p+0, 3, 2},
		{0x0.0p+0, -0x1.0000000000000p+0, 0x0.0p+0, 3, 4},
		{0x0.0000000000001p-1022, -0x1.0000000000000p+0, 0x0.0p+0, 3, 4},
		{-0x0.0000000000001p-1022, -0x1.0000000000000p+0, 0x0.0p+0, 3, 4},
		{INFINITY, -0x1.0000000000000p+0, 0x0.0p+0, 3, 4},
		{-INFINITY, -0x1.0000000000000p+0, 0x0.0p+0, 3, 0},
		{-0x0.0p+0, -0x1.0000000000000p+0, 0x0.0p+0, 3, 4},
		{0x1.fffffffffffffp+1023, -0x1.0000000000000p+0, 0x0.0p+0, 3, 4},
		{-0x1.fffffffffffffp+1023, -0x1.0000000000000p+0, 0x0.0p+0, 3, 0},
		{-0x1.69570db605dbcp-2, -0x1.0000000000000p+0, 0x0.0p+0, 3, 2},
		{-0x1.c476ea334e200p-8, -0x1.0000000000000p+0, 0x0.0p+0, 3, 3},
		{-0x1.6cb2b28dea7ccp-3, -0x1.0000000000000p+0, 0x0.0p+0, 3, 3},
		{-0x1.6e497e9222c53p-1, -0x1.0000000000000p+0, 0x0.0p+0, 3, 1},
		{-0x1.3a798b473abb6p-1, -0x1.0000000000000p+0, 0x0.0p+0, 3, 2},
		{-0x1.534cb3d395550p-2, -0x1.0000000000000p+0, 0x0.0p+0, 3, 3},
	};
	tgroup		g;

	group_begin(&g, "histogram width_bucket vs PostgreSQL 15");
	for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++)
	{
		tcase		c;

		int32_t		got = gpo_width_bucket(t[k].v, t[k].lo, t[k].hi, t[k].count);
		bool		inside = t[k].v >= t[k].lo && t[k].v < t[k].hi;

		case_begin(&c, "width_bucket(%.17g, %.17g, %.17g, %d)", t[k].v,
				   t[k].lo, t[k].hi, t[k].count);
		if (!isfinite((double) t[k].count * (t[k].hi - t[k].lo)) && inside)
		{
			/* PostgreSQL's arithmetic overflows: its answer is undefined */
			expect(&c, got >= 1 && got <= t[k].count, "got %d", got);
			expect(&c, got == ref_width_bucket(t[k].v, t[k].lo, t[k].hi, t[k].count),
				   "got %d, reference %d", got,
				   ref_width_bucket(t[k].v, t[k].lo, t[k].hi, t[k].count));
		}
		else
		{
			expect(&c, got == t[k].want, "got %d, PostgreSQL %d", got, t[k].want);
			expect(&c, ref_width_bucket(t[k].v, t[k].lo, t[k].hi, t[k].count) == t[k].want,
				   "reference got %d",
				   ref_width_bucket(t[k].v, t[k].lo, t[k].hi, t[k].count));
		}
		case_result(&g, c.ok, c.msg);
	}
	group_end(&g);
}

/* Argument errors: bins, bounds, types, mask length. */
static void
hist_invalid(void)
{
	static const double bad[][2] = {
		{1.0, 1.0}, {2.0, 1.0}, {NAN, 1.0}, {0.0, NAN}, {-INFINITY, 1.0},
		{0.0, INFINITY}
	};
	tgroup		g;
	tvec		tv;
	double		vals[3] = {0.5, 1.5, 2.5};
	int64_t		counts[8];
	gpo_hist_domain dom;
	gpo_ctx		ctx;
	gpo_hist_spec spec = {3, false, 0.0, 3.0};
	size_t		bytes = 1 << 20;
	void	   *scratch = xmalloc(bytes);

	group_begin(&g, "histogram invalid arguments");
	make_input(&tv, GPO_FLOAT64, PART_ONE, 3, vals, NULL, true);
	for (int dev = 0; dev < 2; dev++)
	{
		if (dev == 1 && !have_gpu)
		{
			gpu_skip(&g);
			continue;
		}
		test_ctx(&ctx, dev ? GPO_DEVICE_GPU : GPO_DEVICE_CPU, 0);
		for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		{
			gpo_hist_spec s = {3, false, bad[k][0], bad[k][1]};

			case_result(&g, gpo_histogram(&ctx, &tv.v, NULL, &s, counts, &dom,
										  scratch, &bytes) == GPO_ERR_INVALID,
						"bad bounds accepted");
		}
		spec.bins = 0;
		case_result(&g, gpo_histogram(&ctx, &tv.v, NULL, &spec, counts, &dom,
									  scratch, &bytes) == GPO_ERR_INVALID,
					"bins 0 accepted");
		spec.bins = -5;
		case_result(&g, gpo_histogram(&ctx, &tv.v, NULL, &spec, counts, &dom,
									  scratch, &bytes) == GPO_ERR_INVALID,
					"bins -5 accepted");
		spec.bins = 3;
		tv.v.type = GPO_UINT8;
		case_result(&g, gpo_histogram(&ctx, &tv.v, NULL, &spec, counts, &dom,
									  scratch, &bytes) == GPO_ERR_INVALID,
					"uint8 values accepted");
		tv.v.type = GPO_FLOAT64;
		case_result(&g, gpo_histogram(&ctx, &tv.v, &tv.v, &spec, counts, &dom,
									  scratch, &bytes) == GPO_ERR_INVALID,
					"float64 mask accepted");
		/* a valid call on the same context succeeds: [0.5, 1.5, 2.5] -> 1,2,3 */
		case_result(&g, gpo_histogram(&ctx, &tv.v, NULL, &spec, counts, &dom,
									  scratch, &bytes) == GPO_OK &&
					counts[0] == 0 && counts[1] == 1 && counts[2] == 1 &&
					counts[3] == 1 && counts[4] == 0, "small histogram wrong");
	}
	tvec_free(&tv);
	free(scratch);
	group_end(&g);
}

/* All histogram tests. */
static void
test_histogram(void)
{
	static const gpo_type types[] = {GPO_INT32, GPO_INT64, GPO_FLOAT32, GPO_FLOAT64};
	static const int64_t sizes[] = {0, 1, 2, 7, 1000, 65537, 1000003};
	char		name[64];

	hist_pg_table();
	hist_invalid();
	for (int t = 0; t < 4; t++)
	{
		tgroup		g;

		snprintf(name, sizeof(name), "histogram %s", gpo_type_name(types[t]));
		group_begin(&g, name);
		for (int z = 0; z < 7; z++)
			for (int k = 0; k < PART_COUNT; k++)
			{
				if (k == PART_ONES && sizes[z] > 70000)
					continue;
				for (int rep = 0; rep < (sizes[z] > 100000 ? 1 : 6); rep++)
					hist_random(&g, types[t], sizes[z], (part_kind) k);
			}
		if (quick)
			g.skipped++;
		else
			hist_random(&g, types[t], 10000019, PART_MIXED);
		group_end(&g);
	}
}

/* ==================== hash join ==================== */

/* The test's own canonical key: NaN -> one value, -0.0 -> 0.0. */
static uint64_t
ref_canon(gpo_type type, const void *vals, int64_t i)
{
	switch (type)
	{
		case GPO_INT32:
			return (uint64_t) (int64_t) ((const int32_t *) vals)[i];
		case GPO_INT64:
			return (uint64_t) ((const int64_t *) vals)[i];
		case GPO_FLOAT32:
			{
				float		f = ((const float *) vals)[i];
				uint32_t	u;

				if (isnan(f))
					return 1;
				if (f == 0.0f)
					f = 0.0f;
				memcpy(&u, &f, 4);
				return (uint64_t) u << 1;
			}
		default:
			{
				double		d = ((const double *) vals)[i];
				uint64_t	u;

				if (isnan(d))
					return 1;
				if (d == 0.0)
					d = 0.0;
				memcpy(&u, &d, 8);
				return u & ~(uint64_t) 1;	/* never 1 for a non-NaN: even bits */
			}
	}
}

/* A (key, row) pair of the reference's sorted build side. */
typedef struct ref_entry
{
	uint64_t	key;
	int64_t		row;
} ref_entry;

/* Orders reference entries by key, then row. */
static int
ref_entry_cmp(const void *a, const void *b)
{
	const ref_entry *x = a;
	const ref_entry *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->row > y->row) - (x->row < y->row);
}

/* One join case's inputs. */
typedef struct join_in
{
	gpo_type	type;
	int64_t		m;				/* build rows */
	int64_t		n;				/* probe rows */
	void	   *bvals;
	uint8_t    *bvalid;
	void	   *pvals;
	uint8_t    *pvalid;
	bool		all_null;		/* every key NULL (keep every bitmap) */
} join_in;

/*
 * Reference join of kind: the build side sorted by (key, row), a binary
 * search per probe row.  Returns the pair count; fills ob/op when given
 * (capacity cap), a NULL build row as -1.
 */
static int64_t
ref_join(const join_in *j, gpo_join_kind kind, int64_t *ob, int64_t *op,
		 int64_t cap)
{
	ref_entry  *e = xmalloc(sizeof(ref_entry) * (j->m + 1));
	int64_t		ne = 0;
	int64_t		total = 0;

	for (int64_t r = 0; r < j->m; r++)
	{
		if (j->bvalid && !j->bvalid[r])
			continue;
		e[ne].key = ref_canon(j->type, j->bvals, r);
		e[ne].row = r;
		ne++;
	}
	qsort(e, ne, sizeof(ref_entry), ref_entry_cmp);
	for (int64_t p = 0; p < j->n; p++)
	{
		uint64_t	k;
		int64_t		lo = 0;
		int64_t		hi = ne;
		int64_t		matches = 0;

		if (!j->pvalid || j->pvalid[p])
		{
			k = ref_canon(j->type, j->pvals, p);
			while (lo < hi)
			{
				int64_t		mid = lo + (hi - lo) / 2;

				if (e[mid].key < k)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (; lo < ne && e[lo].key == k; lo++)
			{
				if (kind == GPO_JOIN_ANTI || (kind == GPO_JOIN_SEMI && matches > 0))
				{
					matches++;
					continue;
				}
				if (ob && total < cap)
				{
					ob[total] = e[lo].row;
					op[total] = p;
				}
				total++;
				matches++;
			}
		}
		if (matches == 0 && (kind == GPO_JOIN_ANTI || kind == GPO_JOIN_LEFT))
		{
			if (ob && total < cap)
			{
				ob[total] = -1;
				op[total] = p;
			}
			total++;
		}
	}
	free(e);
	return total;
}

/* Nested-loop count of matches (small cases: checks the reference itself). */
static int64_t
nested_join_count(const join_in *j)
{
	int64_t		total = 0;

	for (int64_t p = 0; p < j->n; p++)
		for (int64_t b = 0; b < j->m; b++)
		{
			double		x, y;

			if ((j->pvalid && !j->pvalid[p]) || (j->bvalid && !j->bvalid[b]))
				continue;
			if (j->type == GPO_INT32)
				total += ((int32_t *) j->pvals)[p] == ((int32_t *) j->bvals)[b];
			else if (j->type == GPO_INT64)
				total += ((int64_t *) j->pvals)[p] == ((int64_t *) j->bvals)[b];
			else
			{
				x = as_float8(j->type, j->pvals, p);
				y = as_float8(j->type, j->bvals, b);
				total += (isnan(x) && isnan(y)) || x == y;
			}
		}
	return total;
}

/* The kinds' names, for case descriptions. */
static const char *const join_kind_names[] = {"inner", "semi", "anti", "left"};

/* gpo_hash_join(_kind) with its scratch query and a scratch of that size. */
static gpo_status
join_call(gpo_ctx *ctx, gpo_join_kind kind, tvec *tb, tvec *tp, tvec *ob,
		  tvec *op, int64_t *cnt)
{
	size_t		bytes = 0;
	void	   *scratch;
	gpo_status	st;

	st = kind == GPO_JOIN_INNER ?
		gpo_hash_join(ctx, &tb->v, &tp->v, ob ? &ob->v : NULL,
					  op ? &op->v : NULL, cnt, NULL, &bytes) :
		gpo_hash_join_kind(ctx, kind, &tb->v, &tp->v, ob ? &ob->v : NULL,
						   op ? &op->v : NULL, cnt, NULL, &bytes);
	if (st != GPO_OK)
		return st;
	scratch = xmalloc(bytes);
	st = gpo_hash_join_kind(ctx, kind, &tb->v, &tp->v, ob ? &ob->v : NULL,
							op ? &op->v : NULL, cnt, scratch, &bytes);
	free(scratch);
	return st;
}

/* Runs one join on a face and checks it against the reference pairs. */
static void
join_check_face(tgroup *g, gpo_join_kind kind, tvec *tb, tvec *tp,
				gpo_device dev, int threads, const int64_t *wb,
				const int64_t *wp, int64_t want, const char *desc)
{
	tcase		c;
	gpo_ctx		ctx;
	tvec		ob, op;
	int64_t		spare = rng_chance(1, 2) ? (int64_t) rng_below(9) : 0;
	bool		nullable = kind == GPO_JOIN_ANTI || kind == GPO_JOIN_LEFT;
	bool		outval = nullable || rng_chance(1, 2);
	int64_t		cnt = -1;
	gpo_status	st;
	int64_t    *gb = xmalloc(sizeof(int64_t) * (want + spare + 1));
	int64_t    *gp = xmalloc(sizeof(int64_t) * (want + spare + 1));

	case_begin(&c, "%s: %s %s", dev == GPO_DEVICE_GPU ? "GPU" : "CPU",
			   join_kind_names[kind], desc);
	test_ctx(&ctx, dev, threads);

	/* count only */
	st = join_call(&ctx, kind, tb, tp, NULL, NULL, &cnt);
	expect(&c, st == GPO_OK && cnt == want, "count-only: %s, %lld pairs, want %lld (%s)",
		   gpo_status_text(st), (long long) cnt, (long long) want, ctx.detail);
	expect(&c, ctx.used == dev, "used face %d", (int) ctx.used);

	/* too small: capacity error, count set, nothing written */
	if (want > 0)
	{
		tvec_make_kind(&ob, GPO_INT64, random_kind(want - 1), want - 1, outval);
		tvec_sentinel(&ob);
		cnt = -1;
		st = join_call(&ctx, kind, tb, tp, &ob, NULL, &cnt);
		expect(&c, st == GPO_ERR_CAPACITY && cnt == want,
			   "short output: %s, count %lld", gpo_status_text(st),
			   (long long) cnt);
		expect(&c, tvec_spare_untouched(&ob, 0), "short output was written");
		tvec_free(&ob);
	}

	/* full */
	tvec_make_kind(&ob, GPO_INT64, random_kind(want + spare), want + spare, outval);
	tvec_make_kind(&op, GPO_INT64, random_kind(want + spare), want + spare,
				   nullable ? rng_chance(1, 2) : !outval);
	tvec_sentinel(&ob);
	tvec_sentinel(&op);
	cnt = -1;
	st = join_call(&ctx, kind, tb, tp, &ob, &op, &cnt);
	expect(&c, st == GPO_OK && cnt == want, "join: %s, %lld pairs, want %lld (%s)",
		   gpo_status_text(st), (long long) cnt, (long long) want, ctx.detail);
	if (st == GPO_OK && cnt == want)
	{
		uint8_t    *gv = xmalloc(want + spare + 1);

		tvec_read(&ob, gb, gv);
		for (int64_t k = 0; k < want && c.ok; k++)
			expect(&c, wb[k] < 0 ? (gb[k] == 0 && !gv[k]) : (gb[k] == wb[k] && gv[k]),
				   "pair %lld build row %lld (valid %d), want %lld",
				   (long long) k, (long long) gb[k], (int) gv[k], (long long) wb[k]);
		tvec_read(&op, gp, gv);
		for (int64_t k = 0; k < want && c.ok; k++)
			expect(&c, gp[k] == wp[k] && gv[k], "pair %lld probe row %lld, want %lld",
				   (long long) k, (long long) gp[k], (long long) wp[k]);
		expect(&c, tvec_spare_untouched(&ob, want) &&
			   tvec_spare_untouched(&op, want), "spare capacity written");
		free(gv);
	}
	case_result(g, c.ok, c.msg);
	tvec_free(&ob);
	tvec_free(&op);
	free(gb);
	free(gp);
}

/*
 * Builds a join table of tb once (checking that too little memory is
 * refused) and probes it twice with tp for kind, each probe checked
 * against the reference rows.
 */
static void
join_table_check(tgroup *g, gpo_join_kind kind, tvec *tb, tvec *tp,
				 int threads, const int64_t *wb, const int64_t *wp,
				 int64_t want, const char *desc)
{
	tcase		c;
	gpo_ctx		ctx;
	gpo_join_table t;
	/* no hint, or a huge one: keys in a range under 2^20 make a dense table */
	int64_t		probes = rng_chance(1, 2) ? 0 : INT64_C(1) << 40;
	size_t		bytes = gpo_join_table_bytes(&tb->v, probes);
	void	   *mem = xmalloc(bytes + 1);
	int64_t    *gb = xmalloc(sizeof(int64_t) * (want + 1));
	int64_t    *gp = xmalloc(sizeof(int64_t) * (want + 1));
	uint8_t    *gv = xmalloc(want + 1);

	case_begin(&c, "CPU table: %s %s", join_kind_names[kind], desc);
	test_ctx(&ctx, GPO_DEVICE_CPU, threads);
	expect(&c, gpo_join_table_build(&ctx, &tb->v, probes, mem, bytes - 1, &t) ==
		   GPO_ERR_INVALID, "a table built in too little memory");
	expect(&c, gpo_join_table_build(&ctx, &tb->v, probes, mem, bytes, &t) == GPO_OK,
		   "build: %s", ctx.detail);
	for (int round = 0; round < 2 && c.ok; round++)
	{
		tvec		ob, op;
		size_t		sbytes = 0;
		void	   *scratch;
		int64_t		cnt = -1;
		gpo_status	st;

		tvec_make_kind(&ob, GPO_INT64, random_kind(want), want, true);
		tvec_make_kind(&op, GPO_INT64, random_kind(want), want, rng_chance(1, 2));
		st = gpo_join_table_probe(&ctx, kind, &t, &tp->v, &ob.v, &op.v, &cnt, NULL,
								  &sbytes);
		scratch = xmalloc(sbytes + 1);
		if (st == GPO_OK)
			st = gpo_join_table_probe(&ctx, kind, &t, &tp->v, &ob.v, &op.v, &cnt,
									  scratch, &sbytes);
		expect(&c, st == GPO_OK && cnt == want, "probe %d: %s, %lld rows, want %lld (%s)",
			   round, gpo_status_text(st), (long long) cnt, (long long) want, ctx.detail);
		if (st == GPO_OK && cnt == want)
		{
			tvec_read(&ob, gb, gv);
			for (int64_t k = 0; k < want && c.ok; k++)
				expect(&c, wb[k] < 0 ? !gv[k] : (gb[k] == wb[k] && gv[k]),
					   "row %lld build row %lld, want %lld", (long long) k,
					   (long long) gb[k], (long long) wb[k]);
			tvec_read(&op, gp, gv);
			for (int64_t k = 0; k < want && c.ok; k++)
				expect(&c, gp[k] == wp[k] && gv[k], "row %lld probe row %lld, want %lld",
					   (long long) k, (long long) gp[k], (long long) wp[k]);
		}
		free(scratch);
		tvec_free(&ob);
		tvec_free(&op);
	}
	case_result(g, c.ok, c.msg);
	free(mem);
	free(gb);
	free(gp);
	free(gv);
}

/* Runs one join case on both faces. */
static void
join_run(tgroup *g, join_in *j, part_kind bk, part_kind pk, int threads,
		 bool tiny)
{
	tvec		tb, tp;
	char		desc[256];
	int64_t		want;
	int64_t    *wb;
	int64_t    *wp;

	/* first: dropping bitmaps marks rows valid */
	make_input(&tb, j->type, bk, j->m, j->bvals, j->bvalid, !j->all_null);
	make_input(&tp, j->type, pk, j->n, j->pvals, j->pvalid, !j->all_null);
	want = ref_join(j, GPO_JOIN_INNER, NULL, NULL, 0);
	wb = xmalloc(sizeof(int64_t) * (want + 1));
	wp = xmalloc(sizeof(int64_t) * (want + 1));
	ref_join(j, GPO_JOIN_INNER, wb, wp, want);
	snprintf(desc, sizeof(desc), "%s build=%lld (%s) probe=%lld (%s) pairs=%lld threads=%d%s",
			 gpo_type_name(j->type), (long long) j->m, part_name(bk),
			 (long long) j->n, part_name(pk), (long long) want, threads,
			 tiny ? " tiny-blocks" : "");
	if (j->m * j->n <= 4000000)
	{
		tcase		c;
		int64_t		nest = nested_join_count(j);

		case_begin(&c, "nested-loop count: %s", desc);
		expect(&c, nest == want, "nested %lld, reference %lld",
			   (long long) nest, (long long) want);
		case_result(g, c.ok, c.msg);
	}
	gpo_rows_per_block = tiny ? 1 : 16384;
	join_check_face(g, GPO_JOIN_INNER, &tb, &tp, GPO_DEVICE_CPU, threads, wb,
					wp, want, desc);
	if (want <= 2000000)
		join_table_check(g, GPO_JOIN_INNER, &tb, &tp, threads, wb, wp, want, desc);
	if (have_gpu)
		join_check_face(g, GPO_JOIN_INNER, &tb, &tp, GPO_DEVICE_GPU, threads,
						wb, wp, want, desc);
	else
		gpu_skip(g);
	/* the other kinds: all on small cases, one at random on large ones */
	for (int kind = GPO_JOIN_SEMI; kind <= GPO_JOIN_LEFT; kind++)
	{
		int64_t		kwant;

		if (j->m + j->n > 100000 && kind != GPO_JOIN_SEMI + (int) rng_below(3))
			continue;
		free(wb);
		free(wp);
		kwant = ref_join(j, (gpo_join_kind) kind, NULL, NULL, 0);
		wb = xmalloc(sizeof(int64_t) * (kwant + 1));
		wp = xmalloc(sizeof(int64_t) * (kwant + 1));
		ref_join(j, (gpo_join_kind) kind, wb, wp, kwant);
		join_check_face(g, (gpo_join_kind) kind, &tb, &tp, GPO_DEVICE_CPU,
						threads, wb, wp, kwant, desc);
		if (kwant <= 2000000)
			join_table_check(g, (gpo_join_kind) kind, &tb, &tp, threads, wb, wp,
							 kwant, desc);
		if (have_gpu)
			join_check_face(g, (gpo_join_kind) kind, &tb, &tp, GPO_DEVICE_GPU,
							threads, wb, wp, kwant, desc);
		else
			gpu_skip(g);
	}
	gpo_rows_per_block = 16384;
	tvec_free(&tb);
	tvec_free(&tp);
	free(wb);
	free(wp);
}

/* A key for generator gen over a domain of d distinct values. */
static double
join_gen_key(gpo_type type, int gen, uint64_t d, uint64_t den)
{
	static const double fspecial[] = {NAN, -NAN, 0.0, -0.0, INFINITY, -INFINITY, 1.5};

	if (gen == 1 && (type == GPO_FLOAT32 || type == GPO_FLOAT64) && rng_chance(1, den))
		return fspecial[rng_below(7)];
	if (gen == 1 && rng_chance(1, den))
	{
		switch (rng_below(4))
		{
			case 0:
				return type == GPO_INT64 ? -9.3e18 : (double) INT32_MIN;
			case 1:
				return type == GPO_INT64 ? 9.3e18 : (double) INT32_MAX;
			case 2:
				return -1.0;	/* all-ones bits for int64: the empty marker */
			default:
				return 0.0;
		}
	}
	return (double) rng_below(d) - (double) (d / 2);
}

/* Builds and runs one random join case. */
static void
join_random(tgroup *g, gpo_type type, int64_t m, int64_t n, uint64_t d,
			int nullmode, int gen, part_kind bk, part_kind pk)
{
	static const int threads_opts[] = {0, 1, 2, 3, 5, 8};
	join_in		j;
	bool		tiny = m + n <= 70000 && rng_chance(1, 2);
	int			threads = tiny ? threads_opts[rng_below(6)] : 0;
	uint64_t	den = m + n <= 2000 ? 3 : (uint64_t) (m + n) / 50;	/* specials: ~50 */

	j.type = type;
	j.all_null = nullmode == 2;
	j.m = m;
	j.n = n;
	j.bvals = xmalloc(8 * (m + 1));
	j.pvals = xmalloc(8 * (n + 1));
	j.bvalid = nullmode ? xmalloc(m + 1) : NULL;
	j.pvalid = nullmode ? xmalloc(n + 1) : NULL;
	for (int64_t i = 0; i < m; i++)
	{
		put_value(type, j.bvals, i, join_gen_key(type, gen, d, den));
		if (j.bvalid)
			j.bvalid[i] = nullmode == 2 ? 0 : rng_chance(5, 6);
	}
	for (int64_t i = 0; i < n; i++)
	{
		put_value(type, j.pvals, i, gen == 2 ? (double) (d + 1 + rng_below(d + 1)) :
				  join_gen_key(type, gen, d, den));
		if (j.pvalid)
			j.pvalid[i] = nullmode == 2 ? 0 : rng_chance(5, 6);
	}
	join_run(g, &j, bk, pk, threads, tiny);
	free(j.bvals);
	free(j.pvals);
	free(j.bvalid);
	free(j.pvalid);
}

/* The kinds' argument checks: a NULL build row needs a bitmap; no unknown kind. */
static void
join_kind_rejects(tgroup *g)
{
	int32_t		keys[3] = {1, 2, 3};
	tvec		tb, tp, ob, obv;
	tcase		c;
	gpo_ctx		ctx;
	int64_t		cnt;

	case_begin(&c, "join kinds: rejected arguments");
	test_ctx(&ctx, GPO_DEVICE_CPU, 0);
	make_input(&tb, GPO_INT32, PART_ONE, 3, keys, NULL, false);
	make_input(&tp, GPO_INT32, PART_ONE, 3, keys, NULL, false);
	tvec_make_kind(&ob, GPO_INT64, PART_ONE, 3, false);
	tvec_make_kind(&obv, GPO_INT64, PART_ONE, 3, true);
	expect(&c, join_call(&ctx, GPO_JOIN_ANTI, &tb, &tp, &ob, NULL, &cnt) == GPO_ERR_INVALID,
		   "anti join without a build row bitmap accepted");
	expect(&c, join_call(&ctx, GPO_JOIN_LEFT, &tb, &tp, &ob, NULL, &cnt) == GPO_ERR_INVALID,
		   "left join without a build row bitmap accepted");
	expect(&c, join_call(&ctx, (gpo_join_kind) 7, &tb, &tp, &obv, NULL, &cnt) == GPO_ERR_INVALID,
		   "unknown join kind accepted");
	expect(&c, join_call(&ctx, GPO_JOIN_SEMI, &tb, &tp, &ob, NULL, &cnt) == GPO_OK &&
		   cnt == 3, "semi join without a bitmap: %lld rows", (long long) cnt);
	/* a table's kind: dense for keys 1..3, hashed for keys far apart */
	{
		int64_t		far[2] = {0, INT64_C(1000000000000000)};
		tvec		tf;
		gpo_join_table t;
		size_t		bytes = gpo_join_table_bytes(&tb.v, 0);
		void	   *mem = xmalloc(bytes);

		expect(&c, gpo_join_table_build(&ctx, &tb.v, 0, mem, bytes, &t) == GPO_OK &&
			   t.dense && t.base == 1 && t.cap == 3, "keys 1..3: not a dense table");
		free(mem);
		make_input(&tf, GPO_INT64, PART_ONE, 2, far, NULL, false);
		bytes = gpo_join_table_bytes(&tf.v, INT64_C(1) << 40);
		mem = xmalloc(bytes);
		expect(&c, gpo_join_table_build(&ctx, &tf.v, INT64_C(1) << 40, mem, bytes, &t) ==
			   GPO_OK && !t.dense, "keys 0 and 1e15: not a hashed table");
		free(mem);
		tvec_free(&tf);
	}
	/*
	 * keys 0 and 500,000: hashed for few probes, dense for at least 4 a
	 * slot; keys 0 and 2^20 hashed whatever the probes
	 */
	{
		static const struct
		{
			int64_t		hi;
			int64_t		probes;
			bool		dense;
		}			shapes[] = {
			{500000, 0, false}, {500000, 1999999, false}, {500000, 2000004, true},
			{1 << 20, INT64_C(1) << 40, false}, {(1 << 20) - 1, INT64_C(1) << 40, true},
		};

		for (int i = 0; i < (int) (sizeof(shapes) / sizeof(shapes[0])); i++)
		{
			int64_t		two[2] = {0, shapes[i].hi};
			tvec		tw;
			gpo_join_table t;
			size_t		bytes;
			void	   *mem;

			make_input(&tw, GPO_INT64, PART_ONE, 2, two, NULL, false);
			bytes = gpo_join_table_bytes(&tw.v, shapes[i].probes);
			mem = xmalloc(bytes);
			expect(&c, gpo_join_table_build(&ctx, &tw.v, shapes[i].probes, mem, bytes,
											&t) == GPO_OK && t.dense == shapes[i].dense &&
				   (!t.dense || t.cap == shapes[i].hi + 1),
				   "keys 0 and %lld, %lld probes: dense %d", (long long) shapes[i].hi,
				   (long long) shapes[i].probes, (int) t.dense);
			free(mem);
			tvec_free(&tw);
		}
	}
	case_result(g, c.ok, c.msg);
	tvec_free(&tb);
	tvec_free(&tp);
	tvec_free(&ob);
	tvec_free(&obv);
}

/* All hash join tests. */
static void
test_join(void)
{
	static const gpo_type types[] = {GPO_INT32, GPO_INT64, GPO_FLOAT32, GPO_FLOAT64};
	static const int64_t sizes[][2] = {
		{0, 0}, {0, 5}, {5, 0}, {1, 1}, {3, 7}, {100, 1000}, {1000, 100},
		{5000, 70000}, {65537, 65537}, {200003, 1000003}
	};
	char		name[64];

	for (int t = 0; t < 4; t++)
	{
		tgroup		g;

		snprintf(name, sizeof(name), "hash join %s", gpo_type_name(types[t]));
		group_begin(&g, name);
		for (int z = 0; z < 10; z++)
		{
			int64_t		m = sizes[z][0];
			int64_t		n = sizes[z][1];

			for (int k = 0; k < PART_COUNT; k++)
			{
				part_kind	bk = (part_kind) k;
				part_kind	pk = random_kind(n);
				uint64_t	heavy;

				if (bk == PART_ONES && m > 70000)
					continue;
				if (k > 1 && m + n > 1000000)
					continue;		/* big sizes: two partitions */
				/* distinct keys: heavy duplicates, about one match, sparse */
				heavy = 1 + rng_below(7);
				if ((uint64_t) (m * n / 5000000) > heavy)
					heavy = (uint64_t) (m * n / 5000000);	/* pairs stay ~5M */
				join_random(&g, types[t], m, n, heavy, 1, 1, bk, pk);
				join_random(&g, types[t], m, n, (uint64_t) m + 1, 1, 0, bk, pk);
				if (m + n <= 100000 || k == 0)
				{
					join_random(&g, types[t], m, n, 4 * (uint64_t) m + 3, 0, 1, bk, pk);
					join_random(&g, types[t], m, n, (uint64_t) m + 1, 0, 2, bk, pk);	/* no matches */
					join_random(&g, types[t], m, n, 3, 2, 0, bk, pk);	/* all NULL */
				}
			}
		}
		/* one key on both sides: m * n pairs */
		join_random(&g, types[t], 300, 2000, 1, 0, 0, PART_UNEVEN, PART_MIXED);
		if (t == 0)
			join_kind_rejects(&g);
		if (quick)
			g.skipped++;
		else
			join_random(&g, types[t], 1000003, 10000019, 1000003, 1, 0,
						PART_UNEVEN, PART_MIXED);
		group_end(&g);
	}
}

/* ==================== gather ==================== */

/* Runs one gather case (bad: an index row out of range) on both faces. */
static void
gather_random(tgroup *g, gpo_type type, int64_t n_in, int64_t n, bool bad)
{
	size_t		w = gpo_type_size(type);
	uint8_t    *vals = xmalloc(w * (n_in + 1));
	uint8_t    *valid = rng_chance(1, 2) ? xmalloc(n_in + 1) : NULL;
	int64_t    *idx = xmalloc(sizeof(int64_t) * (n + 1));
	uint8_t    *ivalid = rng_chance(1, 2) ? xmalloc(n + 1) : NULL;
	uint8_t    *want = xmalloc(w * (n + 1));
	uint8_t    *wvalid = xmalloc(n + 1);
	int64_t		spare = rng_chance(1, 2) ? (int64_t) rng_below(9) : 0;
	uint8_t    *got = xmalloc(w * (n + spare + 1));
	uint8_t    *gvalid = xmalloc(n + spare + 1);
	bool		outval = rng_chance(2, 3);
	tvec		ti, tx;
	part_kind	ik = random_kind(n_in);
	part_kind	xk = random_kind(n);
	part_kind	ok = random_kind(n + spare);
	bool		tiny = n <= 70000 && rng_chance(1, 2);

	for (int64_t i = 0; i < (int64_t) w * n_in; i++)
		vals[i] = (uint8_t) rng_next();
	if (valid)
		for (int64_t i = 0; i < n_in; i++)
			valid[i] = rng_chance(4, 5);
	for (int64_t i = 0; i < n; i++)
	{
		idx[i] = n_in > 0 ? (int64_t) rng_below(n_in) : 0;
		if (ivalid)
			ivalid[i] = n_in == 0 ? 0 : rng_chance(9, 10);
		if (n_in == 0 && !ivalid)
			idx[i] = -1;		/* can only be an error case */
	}
	if (bad && n > 0)
	{
		int64_t		r = (int64_t) rng_below(n);

		idx[r] = rng_chance(1, 2) ? -1 - (int64_t) rng_below(3) : n_in + (int64_t) rng_below(3);
		if (ivalid)
			ivalid[r] = 1;
	}
	make_input(&ti, type, ik, n_in, vals, valid, true);
	make_input(&tx, GPO_INT64, xk, n, idx, ivalid, true);
	/* the reference, after make_input settled which rows are valid */
	bad = false;
	for (int64_t i = 0; i < n; i++)
	{
		bool		iv = !ivalid || ivalid[i];

		if (!iv || idx[i] < 0 || idx[i] >= n_in)
		{
			memset(want + w * i, 0, w);
			wvalid[i] = 0;
			bad |= iv;
		}
		else
		{
			memcpy(want + w * i, vals + w * idx[i], w);
			wvalid[i] = !valid || valid[idx[i]];
		}
	}
	gpo_rows_per_block = tiny ? 1 : 16384;
	for (int dev = 0; dev < 2; dev++)
	{
		tcase		c;
		gpo_ctx		ctx;
		tvec		to;
		size_t		bytes = 0;
		void	   *scratch;
		gpo_status	st;

		if (dev == 1 && !have_gpu)
		{
			gpu_skip(g);
			continue;
		}
		case_begin(&c, "%s %s in=%lld (%s) index=%lld (%s) out=%s+%lld%s%s",
				   dev ? "GPU" : "CPU", gpo_type_name(type), (long long) n_in,
				   part_name(ik), (long long) n, part_name(xk), part_name(ok),
				   (long long) spare, bad ? " out-of-range" : "",
				   tiny ? " tiny-blocks" : "");
		tvec_make_kind(&to, type, ok, n + spare, outval);
		tvec_sentinel(&to);
		test_ctx(&ctx, dev ? GPO_DEVICE_GPU : GPO_DEVICE_CPU, tiny ? 3 : 0);
		st = gpo_gather(&ctx, &ti.v, &tx.v, &to.v, NULL, &bytes);
		scratch = xmalloc(bytes);
		st = gpo_gather(&ctx, &ti.v, &tx.v, &to.v, scratch, &bytes);
		expect(&c, st == (bad ? GPO_ERR_INVALID : GPO_OK), "status %s (%s)",
			   gpo_status_text(st), ctx.detail);
		if (!bad && st == GPO_OK)
		{
			tvec_read(&to, got, gvalid);
			for (int64_t i = 0; i < n && c.ok; i++)
			{
				expect(&c, memcmp(got + w * i, want + w * i, w) == 0,
					   "row %lld value differs", (long long) i);
				if (outval)
					expect(&c, gvalid[i] == wvalid[i], "row %lld validity %d, want %d",
						   (long long) i, gvalid[i], wvalid[i]);
			}
			expect(&c, tvec_spare_untouched(&to, n), "spare capacity written");
		}
		case_result(g, c.ok, c.msg);
		free(scratch);
		tvec_free(&to);
	}
	gpo_rows_per_block = 16384;
	tvec_free(&ti);
	tvec_free(&tx);
	free(vals);
	free(valid);
	free(idx);
	free(ivalid);
	free(want);
	free(wvalid);
	free(got);
	free(gvalid);
}

/* All gather tests. */
static void
test_gather(void)
{
	static const gpo_type types[] = {GPO_INT32, GPO_UINT32, GPO_INT64,
	GPO_FLOAT32, GPO_FLOAT64, GPO_UINT8};
	static const int64_t sizes[][2] = {
		{0, 0}, {5, 0}, {0, 3}, {1, 1}, {7, 30}, {1000, 999}, {65537, 100000},
		{1000003, 300007}
	};
	tgroup		g;

	group_begin(&g, "gather");
	for (int t = 0; t < 6; t++)
		for (int z = 0; z < 8; z++)
			for (int rep = 0; rep < (sizes[z][1] > 100000 ? 2 : 8); rep++)
				gather_random(&g, types[t], sizes[z][0], sizes[z][1],
							  rep == 1 || (sizes[z][0] == 0 && sizes[z][1] > 0));
	if (quick)
		g.skipped++;
	else
		gather_random(&g, GPO_FLOAT64, 2000003, 10000019, false);
	{
		/* capacity: out shorter than the index */
		tvec		ti, tx, to;
		int64_t		idx[4] = {0, 1, 2, 0};
		int32_t		vals[3] = {7, 8, 9};
		gpo_ctx		ctx;
		size_t		bytes = 1024;
		char		scratch[1024];

		make_input(&ti, GPO_INT32, PART_ONE, 3, vals, NULL, true);
		make_input(&tx, GPO_INT64, PART_UNEVEN, 4, idx, NULL, true);
		tvec_make_kind(&to, GPO_INT32, PART_ONE, 3, false);
		test_ctx(&ctx, GPO_DEVICE_CPU, 0);
		case_result(&g, gpo_gather(&ctx, &ti.v, &tx.v, &to.v, scratch, &bytes) ==
					GPO_ERR_CAPACITY, "short gather output accepted");
		tx.v.type = GPO_INT32;
		case_result(&g, gpo_gather(&ctx, &ti.v, &tx.v, &to.v, scratch, &bytes) ==
					GPO_ERR_INVALID, "int32 index accepted");
		tvec_free(&ti);
		tvec_free(&tx);
		tvec_free(&to);
	}
	group_end(&g);
}


/* Histogram, hash join and gather tests. */
void
test_histjoin(void)
{
	test_histogram();
	test_join();
	test_gather();
}
