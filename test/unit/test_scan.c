/*
 * test_scan.c
 *	  Unit tests of gpo_scan: every type, inclusive and exclusive, with and
 *	  without segment heads, NULLs, exact overflow, over every partition,
 *	  against a sequential reference.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpo_internal.h"
#include "test_util.h"

/* One scan case's inputs. */
typedef struct scan_in
{
	gpo_type	type;
	int64_t		n;
	bool		inclusive;
	void	   *vals;
	uint8_t    *valid;
	uint8_t    *heads;			/* NULL: no heads vector */
} scan_in;

/* The reference's results. */
typedef struct scan_ref
{
	void	   *out;
	double	   *absrun;			/* float64: running sum of |x|, for tolerance */
	bool		overflow;
} scan_ref;

/* Reads row i of integer values of type as a wide integer. */
static __int128
ival(gpo_type type, const void *vals, int64_t i)
{
	switch (type)
	{
		case GPO_INT32:
			return ((const int32_t *) vals)[i];
		case GPO_INT64:
			return ((const int64_t *) vals)[i];
		default:
			return ((const uint32_t *) vals)[i];
	}
}

/* Sequential reference scan: the obviously correct loop. */
static void
ref_scan(const scan_in *s, scan_ref *r)
{
	__int128	run = 0;
	double		drun = 0.0;
	double		arun = 0.0;
	__int128	lo = s->type == GPO_INT32 ? INT32_MIN : INT64_MIN;
	__int128	hi = s->type == GPO_INT32 ? INT32_MAX : INT64_MAX;

	r->overflow = false;
	for (int64_t i = 0; i < s->n; i++)
	{
		bool		head = i == 0 || (s->heads && s->heads[i]);
		double		x = 0.0;
		__int128	before;
		double		dbefore;
		double		abefore;

		if (head)
		{
			run = 0;
			drun = 0.0;
			arun = 0.0;
		}
		before = run;
		dbefore = drun;
		abefore = arun;
		if (s->valid[i])
		{
			if (s->type == GPO_FLOAT64)
			{
				x = ((double *) s->vals)[i];
				drun += x;
				arun += fabs(x);
			}
			else
				run += ival(s->type, s->vals, i);
		}
		if (s->type == GPO_UINT32)
			run = (uint32_t) run;
		if ((s->type == GPO_INT32 || s->type == GPO_INT64) &&
			(run < lo || run > hi))
			r->overflow = true;
		switch (s->type)
		{
			case GPO_INT32:
				((int32_t *) r->out)[i] = (int32_t) (s->inclusive ? run : before);
				break;
			case GPO_INT64:
				((int64_t *) r->out)[i] = (int64_t) (s->inclusive ? run : before);
				break;
			case GPO_UINT32:
				((uint32_t *) r->out)[i] = (uint32_t) (s->inclusive ? run : before);
				break;
			default:
				((double *) r->out)[i] = s->inclusive ? drun : dbefore;
				/* |x| summed over the rows in the written prefix */
				if (s->inclusive)
					abefore = arun;
				r->absrun[i] = isfinite(abefore) ? abefore : 0.0;
				break;
		}
	}
}

/* A random float64 input value; specials with probability 1/special. */
static double
rand_double(uint64_t special)
{
	static const uint64_t nans[] = {
		UINT64_C(0x7ff8000000000000), UINT64_C(0xfff8000000000000),
		UINT64_C(0x7ff0000000000001), UINT64_C(0x7ff80000deadbeef)
	};
	double		d;

	if (special && rng_chance(1, special))
	{
		switch (rng_below(5))
		{
			case 0:
				memcpy(&d, &nans[rng_below(4)], sizeof(d));
				return d;
			case 1:
				return INFINITY;
			case 2:
				return -INFINITY;
			case 3:
				return -0.0;
			default:
				return 0.0;
		}
	}
	if (rng_chance(1, 4))
		return (double) ((int64_t) rng_below(2001) - 1000);
	return ((double) (rng_next() >> 11) / 9007199254740992.0 - 0.5) * 2e6;
}

/*
 * Fills the input values.  gen 0: small values; 1: extreme values whose true
 * prefixes stay in range (hitting both limits); 2: as 1, then one value
 * pushes a prefix out of range.
 */
static void
gen_values(scan_in *s, int gen, uint64_t special)
{
	__int128	lo = s->type == GPO_INT32 ? INT32_MIN : INT64_MIN;
	__int128	hi = s->type == GPO_INT32 ? INT32_MAX : INT64_MAX;
	__int128	run = 0;
	int64_t		bump = s->n > 0 ? (int64_t) rng_below(s->n) : 0;

	for (int64_t i = 0; i < s->n; i++)
	{
		__int128	x;

		if (s->type == GPO_FLOAT64)
		{
			((double *) s->vals)[i] = rand_double(special);
			continue;
		}
		if (s->type == GPO_UINT32)
		{
			((uint32_t *) s->vals)[i] = (uint32_t) rng_next();
			continue;
		}
		if (i == 0 || (s->heads && s->heads[i]))
			run = 0;
		x = (int64_t) rng_below(2001) - 1000;
		if (gen >= 1 && s->valid[i])
		{
			switch (rng_below(6))
			{
				case 0:
					x = hi - run;	/* up to the maximum exactly */
					break;
				case 1:
					x = lo - run;	/* down to the minimum exactly */
					break;
				case 2:
					x = run <= 0 ? hi : lo;
					break;
				case 3:
					x = s->type == GPO_INT32 ? (int32_t) rng_next() :
						(int64_t) rng_next();
					break;
				default:
					break;
			}
			if (x < lo || x > hi || run + x < lo || run + x > hi)
				x = 0;
			if (gen == 2 && i >= bump && run != 0)
			{
				x = run > 0 ? hi - run + 1 : lo - run - 1;
				gen = 1;
			}
		}
		else if (!s->valid[i])
			x = rng_chance(1, 2) ? hi : lo;	/* ignored: NULL */
		if (s->valid[i])
			run += x;
		if (s->type == GPO_INT32)
			((int32_t *) s->vals)[i] = (int32_t) x;
		else
			((int64_t *) s->vals)[i] = (int64_t) x;
	}
}

/* Compares out (read back) with the reference; true if they agree. */
static bool
compare_rows(tcase *c, const scan_in *s, const void *got, const void *want,
			 const double *absrun)
{
	size_t		w = gpo_type_size(s->type);

	for (int64_t i = 0; i < s->n; i++)
	{
		if (s->type == GPO_FLOAT64)
		{
			double		g = ((const double *) got)[i];
			double		e = ((const double *) want)[i];
			bool		ok;

			if (isnan(e))
				ok = isnan(g);
			else if (isinf(e))
				ok = g == e;
			else
				ok = fabs(g - e) <= 1e-9 * (absrun ? absrun[i] : fabs(e)) + 1e-300;
			if (!expect(c, ok, "row %lld: got %.17g, want %.17g",
						(long long) i, g, e))
				return false;
		}
		else if (memcmp((const char *) got + i * w,
						(const char *) want + i * w, w) != 0)
			return expect(c, false, "row %lld: got %lld, want %lld",
						  (long long) i, (long long) ival(s->type, got, i),
						  (long long) ival(s->type, want, i));
	}
	return true;
}

/* Builds the output vector of a case. */
static void
make_out(tvec *out, const scan_in *s, part_kind kind, int64_t spare,
		 bool validity)
{
	tvec_make_kind(out, s->type, kind, s->n + spare, validity);
	tvec_sentinel(out);
}

/*
 * Runs one case on the CPU face (and the GPU face where present) and checks
 * it against the reference.
 */
static void
run_case(tgroup *g, scan_in *s, part_kind in_part, int hmode, int nulls,
		 int gen, uint64_t special, int threads, bool tiny)
{
	tvec		in, heads, out, gout;
	scan_ref	ref;
	tcase		c;
	gpo_ctx		ctx;
	size_t		w = gpo_type_size(s->type);
	int64_t		spare = rng_chance(1, 2) ? (int64_t) rng_below(20) : 0;
	bool		outval = rng_chance(1, 2);
	part_kind	out_part = random_kind(s->n + spare);
	void	   *got = malloc(w * (s->n + spare + 1));
	uint8_t    *gvalid = malloc(s->n + spare + 1);
	size_t		bytes = 0;
	void	   *scratch;
	gpo_status	st;

	tvec_make_kind(&in, s->type, in_part, s->n, nulls > 0);
	if (nulls > 0 && gen >= 0)
		tvec_drop_some_bitmaps(&in, s->valid);
	if (hmode > 0)
	{
		int64_t		row = 0;

		bool		hnulls = gen >= 0 && rng_chance(1, 3);
		uint8_t    *hdata = malloc(s->n + 1);
		uint8_t    *hvalid = malloc(s->n + 1);

		tvec_make_kind(&heads, GPO_UINT8, random_kind(s->n), s->n, hnulls);
		if (hmode == 2)			/* heads at the input's chunk seams */
			for (int32_t k = 0; k < in.v.nchunks; row += in.v.chunks[k++].n)
				if (row < s->n && rng_chance(2, 3))
					s->heads[row] = 1;
		/* a heads row's byte decides, whatever the heads bitmap says */
		for (int64_t i = 0; i < s->n; i++)
		{
			hvalid[i] = !hnulls || rng_chance(7, 8);
			hdata[i] = s->heads[i] ? (uint8_t) (1 + rng_below(255)) : 0;
		}
		tvec_fill(&heads, hdata, hvalid);
		free(hdata);
		free(hvalid);
	}
	if (gen >= 0)
		gen_values(s, gen, special);
	ref.out = malloc(w * (s->n + 1));
	ref.absrun = malloc(sizeof(double) * (s->n + 1));
	ref_scan(s, &ref);
	tvec_fill(&in, s->vals, s->valid);
	make_out(&out, s, out_part, spare, outval);

	case_begin(&c, "%s n=%lld %s %s heads=%d nulls=%d out=%s+%lld threads=%d%s",
			   gpo_type_name(s->type), (long long) s->n,
			   s->inclusive ? "inclusive" : "exclusive", part_name(in_part),
			   hmode, nulls, part_name(out_part), (long long) spare, threads,
			   tiny ? " tiny-blocks" : "");
	gpo_rows_per_block = tiny ? 1 : 16384;
	test_ctx(&ctx, GPO_DEVICE_CPU, threads);
	st = gpo_scan(&ctx, &in.v, hmode ? &heads.v : NULL, s->inclusive, &out.v,
				  NULL, &bytes);
	expect(&c, st == GPO_OK && bytes > 0, "scratch query: %s, %zu bytes",
		   gpo_status_text(st), bytes);
	scratch = malloc(bytes);
	st = gpo_scan(&ctx, &in.v, hmode ? &heads.v : NULL, s->inclusive, &out.v,
				  scratch, &bytes);
	expect(&c, ctx.used == GPO_DEVICE_CPU, "used face %d", (int) ctx.used);
	expect(&c, st == (ref.overflow ? GPO_ERR_OVERFLOW : GPO_OK),
		   "status %s, want %s (%s)", gpo_status_text(st),
		   ref.overflow ? "overflow" : "ok", ctx.detail);
	if (st == GPO_OK && !ref.overflow)
	{
		tvec_read(&out, got, gvalid);
		compare_rows(&c, s, got, ref.out, ref.absrun);
		if (outval)
			for (int64_t i = 0; i < s->n && c.ok; i++)
				expect(&c, gvalid[i] == s->valid[i], "validity of row %lld",
					   (long long) i);
		expect(&c, tvec_spare_untouched(&out, s->n), "spare capacity written");
	}
	case_result(g, c.ok, c.msg);

	if (!have_gpu)
		gpu_skip(g);
	else
	{
		gpo_status	gst;

		case_begin(&c, "GPU agrees: %s", c.msg);
		make_out(&gout, s, out_part, spare, outval);
		test_ctx(&ctx, GPO_DEVICE_GPU, threads);
		/* gout may be partitioned unlike out: ask for its scratch afresh */
		free(scratch);
		scratch = NULL;
		gst = gpo_scan(&ctx, &in.v, hmode ? &heads.v : NULL, s->inclusive,
					   &gout.v, NULL, &bytes);
		expect(&c, gst == GPO_OK, "GPU scratch query: %s", gpo_status_text(gst));
		scratch = malloc(bytes);
		gst = gpo_scan(&ctx, &in.v, hmode ? &heads.v : NULL, s->inclusive,
					   &gout.v, scratch, &bytes);
		expect(&c, gst == st, "GPU status %s, CPU %s (%s)",
			   gpo_status_text(gst), gpo_status_text(st), ctx.detail);
		expect(&c, ctx.used == GPO_DEVICE_GPU, "used face %d", (int) ctx.used);
		if (gst == GPO_OK && st == GPO_OK)
		{
			void	   *cpu = malloc(w * (s->n + spare + 1));

			tvec_read(&out, cpu, NULL);
			tvec_read(&gout, got, NULL);
			compare_rows(&c, s, got, cpu, ref.absrun);
			expect(&c, tvec_spare_untouched(&gout, s->n), "GPU wrote spare capacity");
			free(cpu);
		}
		case_result(g, c.ok, c.msg);
		tvec_free(&gout);
	}
	gpo_rows_per_block = 16384;
	free(scratch);
	free(ref.out);
	free(ref.absrun);
	free(got);
	free(gvalid);
	tvec_free(&in);
	tvec_free(&out);
	if (hmode > 0)
		tvec_free(&heads);
}

/* Builds and runs one random case of type over n rows. */
static void
random_case(tgroup *g, gpo_type type, int64_t n, part_kind kind,
			bool inclusive, int hmode)
{
	scan_in		s;
	int			nulls = (int) rng_below(3);
	int			gen = type == GPO_INT32 || type == GPO_INT64 ?
		(int) rng_below(3) : 0;
	static const int threads_opts[] = {0, 1, 2, 3, 5, 8};
	bool		tiny = n <= 70000 && rng_chance(1, 2);
	int			threads = tiny ? threads_opts[rng_below(6)] : 0;
	uint64_t	special = rng_chance(1, 3) ? 0 : 1 + rng_below(n / 50 + 10);

	s.type = type;
	s.n = n;
	s.inclusive = inclusive;
	s.vals = malloc(gpo_type_size(type) * (n + 1));
	s.valid = malloc(n + 1);
	s.heads = hmode ? calloc(n + 1, 1) : NULL;
	for (int64_t i = 0; i < n; i++)
	{
		s.valid[i] = nulls == 2 ? rng_chance(4, 5) : 1;
		if (hmode == 1 && rng_chance(1, 1 + (i % 3) * 40))
			s.heads[i] = 1;
	}
	run_case(g, &s, kind, hmode, nulls, gen, special, threads, tiny);
	free(s.vals);
	free(s.valid);
	free(s.heads);
}

/* Crafted overflow cases: exact detection both ways. */
static void
overflow_cases(void)
{
	tgroup		g;
	const int64_t MX = INT64_MAX;
	const int64_t MN = INT64_MIN;

	/* rows: value, with 'H' meaning the row starts a segment, 'N' NULL */
	static const struct
	{
		int64_t		v[6];
		const char *flags;
		int			n;
	}			cases[] = {
		{{INT64_MAX, 1, -1}, "...", 3},
		{{-INT64_MAX, INT64_MAX, INT64_MAX}, "...", 3},
		{{INT64_MAX, INT64_MAX, INT64_MIN, INT64_MIN}, "....", 4},
		{{INT64_MIN, -1}, "..", 2},
		{{INT64_MIN}, ".", 1},
		{{1, INT64_MIN, -1}, "...", 3},
		{{INT64_MAX, INT64_MAX}, ".H", 2},
		{{INT64_MAX, 5, 0}, ".N.", 3},
		{{INT64_MAX, 1}, "..", 2},
		{{INT64_MIN, INT64_MAX, INT64_MAX, 1}, "....", 4},
		{{INT64_MIN, INT64_MAX, INT64_MAX, 1, 1}, "...H.", 5},
		{{INT64_MAX, 0, 0, 0, INT64_MIN, INT64_MIN}, ".....H", 6},
	};

	group_begin(&g, "scan overflow, crafted (int32 and int64)");
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
		for (int t32 = 0; t32 < 2; t32++)
			for (int rep = 0; rep < 24; rep++)
			{
				scan_in		s;
				int			n = cases[k].n;

				s.type = t32 ? GPO_INT32 : GPO_INT64;
				s.n = n;
				s.inclusive = rep & 1;
				s.vals = malloc(8 * n);
				s.valid = malloc(n);
				s.heads = calloc(n, 1);
				for (int i = 0; i < n; i++)
				{
					int64_t		v = cases[k].v[i];

					if (t32)	/* scale the extremes to int32 */
						((int32_t *) s.vals)[i] = v == MX ? INT32_MAX :
							v == -MX ? -INT32_MAX : v == MN ? INT32_MIN : (int32_t) v;
					else
						((int64_t *) s.vals)[i] = v;
					s.valid[i] = cases[k].flags[i] != 'N';
					s.heads[i] = cases[k].flags[i] == 'H';
				}
				run_case(&g, &s, (part_kind) (rep / 2 % PART_COUNT), 1,
						 rep % 4 == 0 ? 1 : 2, -1, 0, 1 + rep % 5, true);
				free(s.vals);
				free(s.valid);
				free(s.heads);
			}
	group_end(&g);
}

/* All scan tests. */
void
test_scan(void)
{
	static const gpo_type types[] = {GPO_INT32, GPO_UINT32, GPO_INT64, GPO_FLOAT64};
	static const int64_t sizes[] = {0, 1, 2, 3, 31, 1000, 65537, 1000003};
	char		name[64];

	overflow_cases();
	for (int t = 0; t < 4; t++)
	{
		tgroup		g;

		snprintf(name, sizeof(name), "scan %s", gpo_type_name(types[t]));
		group_begin(&g, name);
		for (int z = 0; z < 8; z++)
			for (int k = 0; k < PART_COUNT; k++)
			{
				if (k == PART_ONES && sizes[z] > 70000)
					continue;
				for (int incl = 0; incl < 2; incl++)
					for (int hmode = 0; hmode < 3; hmode++)
						random_case(&g, types[t], sizes[z], (part_kind) k,
									incl, hmode);
			}
		if (quick)
			g.skipped += 2;
		else
		{
			random_case(&g, types[t], 10000019, PART_ONE, rng_chance(1, 2), 1);
			random_case(&g, types[t], 10000019, PART_MIXED, rng_chance(1, 2), 2);
		}
		group_end(&g);
	}
}
