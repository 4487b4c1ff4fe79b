/*
 * test_rle.c
 *	  Unit tests of gpo_rle and gpo_unique: the seed examples, every type,
 *	  NULL runs, NaN payloads, signed zeros, runs across seams and empty
 *	  chunks, capacity errors, against a sequential reference.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpo_internal.h"
#include "test_util.h"

/* Flat run-length results. */
typedef struct rle_res
{
	int64_t		count;
	uint8_t    *values;			/* count values of the input type */
	uint8_t    *vvalid;
	int64_t    *starts;
	int64_t    *lengths;
} rle_res;

/* The reference's equality of rows a and b. */
static bool
ref_eq(gpo_type type, const uint8_t *vals, const uint8_t *valid, int64_t a,
	   int64_t b)
{
	size_t		w = gpo_type_size(type);

	if (!valid[a] || !valid[b])
		return valid[a] == valid[b];
	if (type == GPO_FLOAT64)
	{
		double		x,
					y;

		memcpy(&x, vals + a * w, w);
		memcpy(&y, vals + b * w, w);
		return (isnan(x) && isnan(y)) || x == y;
	}
	if (type == GPO_FLOAT32)
	{
		float		x,
					y;

		memcpy(&x, vals + a * w, w);
		memcpy(&y, vals + b * w, w);
		return (isnan(x) && isnan(y)) || x == y;
	}
	return memcmp(vals + a * w, vals + b * w, w) == 0;
}

/* Sequential reference run-length encoding. */
static void
ref_rle(gpo_type type, const uint8_t *vals, const uint8_t *valid, int64_t n,
		rle_res *r)
{
	size_t		w = gpo_type_size(type);

	r->count = 0;
	for (int64_t i = 0; i < n; i++)
	{
		if (i > 0 && ref_eq(type, vals, valid, i - 1, i))
		{
			r->lengths[r->count - 1]++;
			continue;
		}
		memcpy(r->values + r->count * w, vals + i * w, w);
		r->vvalid[r->count] = valid[i];
		r->starts[r->count] = i;
		r->lengths[r->count] = 1;
		r->count++;
	}
}

/* Allocates flat results for up to n runs. */
static void
res_alloc(rle_res *r, gpo_type type, int64_t n)
{
	r->count = -1;
	r->values = malloc(gpo_type_size(type) * (n + 1));
	r->vvalid = malloc(n + 1);
	r->starts = malloc(sizeof(int64_t) * (n + 1));
	r->lengths = malloc(sizeof(int64_t) * (n + 1));
}

/* Frees flat results. */
static void
res_free(rle_res *r)
{
	free(r->values);
	free(r->vvalid);
	free(r->starts);
	free(r->lengths);
}

/*
 * Runs one encoding on device and checks it against want.  outs: bit 0
 * values, bit 1 starts, bit 2 lengths; unique uses gpo_unique (values only).
 * short_out names an output (1, 2, 4) given one row too few, or 0.
 */
static void
run_one(tcase *c, gpo_device device, const tvec *in, const rle_res *want,
		int outs, bool unique, int short_out, int threads)
{
	gpo_type	type = in->v.type;
	size_t		w = gpo_type_size(type);
	tvec		o[3];
	gpo_vector *ov[3] = {NULL, NULL, NULL};
	gpo_type	ot[3] = {type, GPO_INT64, GPO_INT64};
	gpo_ctx		ctx;
	int64_t		count = -1;
	size_t		bytes = 0;
	void	   *scratch;
	gpo_status	st;
	gpo_status	want_st = short_out ? GPO_ERR_CAPACITY : GPO_OK;

	for (int k = 0; k < 3; k++)
	{
		int64_t		cap = want->count + (rng_chance(1, 2) ? (int64_t) rng_below(9) : 0);

		if (!(outs & (1 << k)))
			continue;
		if (short_out == (1 << k))
			cap = want->count - 1;
		tvec_make_kind(&o[k], ot[k], random_kind(cap), cap, rng_chance(1, 2));
		tvec_sentinel(&o[k]);
		ov[k] = &o[k].v;
	}
	test_ctx(&ctx, device, threads);
	if (unique)
		st = gpo_unique(&ctx, &in->v, ov[0], &count, NULL, &bytes);
	else
		st = gpo_rle(&ctx, &in->v, ov[0], ov[1], ov[2], &count, NULL, &bytes);
	expect(c, st == GPO_OK && bytes > 0, "scratch query: %s", gpo_status_text(st));
	scratch = malloc(bytes);
	if (unique)
		st = gpo_unique(&ctx, &in->v, ov[0], &count, scratch, &bytes);
	else
		st = gpo_rle(&ctx, &in->v, ov[0], ov[1], ov[2], &count, scratch, &bytes);
	expect(c, st == want_st, "status %s, want %s (%s)", gpo_status_text(st),
		   gpo_status_text(want_st), ctx.detail);
	expect(c, ctx.used == device, "used face %d", (int) ctx.used);
	expect(c, count == want->count, "count %lld, want %lld",
		   (long long) count, (long long) want->count);
	if (st == GPO_OK && count == want->count)
	{
		if (ov[0])
		{
			uint8_t    *vb = malloc(o[0].rows + 1);
			uint8_t    *hb = malloc(o[0].rows + 1);
			uint8_t    *all = malloc(w * (o[0].rows + 1));

			tvec_read(&o[0], all, vb);
			tvec_has_bits(&o[0], hb);
			for (int64_t r = 0; r < count && c->ok; r++)
			{
				/* a row of a chunk without a bitmap reads as valid */
				expect(c, vb[r] == (hb[r] ? want->vvalid[r] : 1),
					   "values[%lld] validity", (long long) r);
				if (want->vvalid[r])
					expect(c, memcmp(all + r * w, want->values + r * w, w) == 0,
						   "values[%lld] bits differ", (long long) r);
			}
			expect(c, tvec_spare_untouched(&o[0], count), "values spare written");
			free(vb);
			free(hb);
			free(all);
		}
		for (int k = 1; k < 3; k++)
		{
			int64_t    *all;
			const int64_t *exp = k == 1 ? want->starts : want->lengths;

			if (!ov[k])
				continue;
			all = malloc(sizeof(int64_t) * (o[k].rows + 1));
			tvec_read(&o[k], all, NULL);
			for (int64_t r = 0; r < count && c->ok; r++)
				expect(c, all[r] == exp[r], "%s[%lld] = %lld, want %lld",
					   k == 1 ? "starts" : "lengths", (long long) r,
					   (long long) all[r], (long long) exp[r]);
			expect(c, tvec_spare_untouched(&o[k], count), "%s spare written",
				   k == 1 ? "starts" : "lengths");
			free(all);
		}
	}
	free(scratch);
	for (int k = 0; k < 3; k++)
		if (ov[k])
			tvec_free(&o[k]);
}

/* Runs a case on the CPU face and, where present, the GPU face. */
static void
check_case(tgroup *g, const char *what, const tvec *in, const rle_res *want,
		   int threads, bool tiny)
{
	tcase		c;
	int			outs = 1 + (int) rng_below(7);
	bool		unique = rng_chance(1, 4);
	int			short_out = 0;

	if (unique)
		outs = 1;
	if (want->count > 0 && rng_chance(1, 6))
	{
		short_out = 1 << rng_below(3);
		outs |= short_out;
		if (unique)
			short_out = 1;
	}
	gpo_rows_per_block = tiny ? 1 : 16384;
	case_begin(&c, "%s outs=%d%s short=%d threads=%d%s", what, outs,
			   unique ? " unique" : "", short_out, threads,
			   tiny ? " tiny-blocks" : "");
	run_one(&c, GPO_DEVICE_CPU, in, want, outs, unique, short_out, threads);
	case_result(g, c.ok, c.msg);
	if (!have_gpu)
		gpu_skip(g);
	else
	{
		case_begin(&c, "GPU agrees: %s outs=%d", what, outs);
		run_one(&c, GPO_DEVICE_GPU, in, want, outs, unique, short_out, threads);
		case_result(g, c.ok, c.msg);
	}
	gpo_rows_per_block = 16384;
}

/* Writes value number v of a small pool of type into row i of vals. */
static void
pool_value(gpo_type type, uint8_t *vals, int64_t i, int v)
{
	static const uint64_t nan64[] = {
		UINT64_C(0x7ff8000000000000), UINT64_C(0xfff8000000000001),
		UINT64_C(0x7ff0000000000001), UINT64_C(0x7fffffffffffffff)
	};
	static const uint32_t nan32[] = {0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x7fffffffu};

	switch (type)
	{
		case GPO_INT32:
			((int32_t *) vals)[i] = (int32_t[]) {0, 1, -1, INT32_MIN, INT32_MAX, 7}[v];
			break;
		case GPO_UINT32:
			((uint32_t *) vals)[i] = (uint32_t[]) {0, 1, 0xffffffffu, 0x80000000u, 42, 7}[v];
			break;
		case GPO_INT64:
			((int64_t *) vals)[i] = (int64_t[]) {0, 1, -1, INT64_MIN, INT64_MAX, 7}[v];
			break;
		case GPO_UINT8:
			vals[i] = (uint8_t[]) {0, 1, 255, 128, 2, 7}[v];
			break;
		case GPO_FLOAT64:
			if (v == 0)			/* zero: either sign */
				((double *) vals)[i] = rng_chance(1, 2) ? -0.0 : 0.0;
			else if (v == 1)	/* NaN: any payload */
				memcpy(vals + i * 8, &nan64[rng_below(4)], 8);
			else
				((double *) vals)[i] = (double[]) {0, 0, INFINITY, -INFINITY, 1.5, -2.25}[v];
			break;
		case GPO_FLOAT32:
			if (v == 0)
				((float *) vals)[i] = rng_chance(1, 2) ? -0.0f : 0.0f;
			else if (v == 1)
				memcpy(vals + i * 4, &nan32[rng_below(4)], 4);
			else
				((float *) vals)[i] = (float[]) {0, 0, INFINITY, -INFINITY, 1.5f, -2.25f}[v];
			break;
	}
}

/* One random case: runs of many lengths over n rows. */
static void
random_case(tgroup *g, gpo_type type, int64_t n, part_kind kind)
{
	size_t		w = gpo_type_size(type);
	uint8_t    *vals = malloc(w * (n + 1));
	uint8_t    *valid = malloc(n + 1);
	int			pool = 1 + (int) rng_below(6);
	bool		nulls = rng_chance(2, 3);
	bool		tiny = n <= 70000 && rng_chance(1, 2);
	int			threads = tiny ? 1 + (int) rng_below(7) : 0;
	int64_t		i = 0;
	rle_res		want;
	tvec		in;
	char		what[160];

	while (i < n)
	{
		int64_t		len = rng_chance(7, 10) ? 1 + (int64_t) rng_below(4) :
			rng_chance(5, 6) ? 5 + (int64_t) rng_below(96) :
			100 + (int64_t) rng_below(5000);
		int			v = (int) rng_below(pool);
		bool		isnull = nulls && rng_chance(1, 6);

		for (int64_t j = 0; j < len && i < n; j++, i++)
		{
			pool_value(type, vals, i, isnull ? (int) rng_below(6) : v);
			valid[i] = !isnull;
		}
	}
	tvec_make_kind(&in, type, kind, n, nulls);
	if (nulls)
		tvec_drop_some_bitmaps(&in, valid);
	tvec_fill(&in, vals, valid);
	res_alloc(&want, type, n);
	ref_rle(type, vals, valid, n, &want);
	snprintf(what, sizeof(what), "%s n=%lld %s pool=%d nulls=%d",
			 gpo_type_name(type), (long long) n, part_name(kind), pool, nulls);
	check_case(g, what, &in, &want, threads, tiny);
	res_free(&want);
	tvec_free(&in);
	free(vals);
	free(valid);
}

/* The seed examples, with their expected outputs written out. */
static void
seed_examples(void)
{
	static const int32_t ex1[] = {2, 2, 2, 5, 5, 9, 9, 9, 9};
	static const int64_t ex1_starts[] = {0, 3, 5};
	static const int64_t ex1_lengths[] = {3, 2, 4};
	static const int32_t ex1_values[] = {2, 5, 9};
	static const int32_t ex2[] = {2, 2, 5, 2};
	static const int64_t ex2_starts[] = {0, 2, 3};
	static const int64_t ex2_lengths[] = {2, 1, 1};
	static const int32_t ex2_values[] = {2, 5, 2};
	uint8_t		ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
	tgroup		g;

	group_begin(&g, "rle seed examples");
	for (int ex = 0; ex < 2; ex++)
		for (int k = 0; k < PART_COUNT; k++)
			for (int rep = 0; rep < 6; rep++)
			{
				rle_res		want;
				tvec		in;
				int64_t		n = ex == 0 ? 9 : 4;

				want.count = 3;
				want.values = (uint8_t *) (ex == 0 ? ex1_values : ex2_values);
				want.vvalid = ones;
				want.starts = (int64_t *) (ex == 0 ? ex1_starts : ex2_starts);
				want.lengths = (int64_t *) (ex == 0 ? ex1_lengths : ex2_lengths);
				tvec_make_kind(&in, GPO_INT32, (part_kind) k, n, false);
				tvec_fill(&in, ex == 0 ? ex1 : ex2, NULL);
				check_case(&g, ex == 0 ? "[2,2,2,5,5,9,9,9,9]" : "[2,2,5,2]",
						   &in, &want, 1 + rep, rep % 2 == 0);
				tvec_free(&in);
			}
	group_end(&g);
}

/* All run-length tests. */
void
test_rle(void)
{
	static const gpo_type types[] = {GPO_INT32, GPO_UINT32, GPO_INT64,
	GPO_FLOAT32, GPO_FLOAT64, GPO_UINT8};
	static const int64_t sizes[] = {0, 1, 2, 3, 31, 1000, 65537, 1000003};
	char		name[64];

	seed_examples();
	for (int t = 0; t < 6; t++)
	{
		tgroup		g;

		snprintf(name, sizeof(name), "rle %s", gpo_type_name(types[t]));
		group_begin(&g, name);
		for (int z = 0; z < 8; z++)
			for (int k = 0; k < PART_COUNT; k++)
			{
				if (k == PART_ONES && sizes[z] > 70000)
					continue;
				for (int rep = 0; rep < (sizes[z] > 70000 ? 1 : 4); rep++)
					random_case(&g, types[t], sizes[z], (part_kind) k);
			}
		if (types[t] != GPO_INT64 && types[t] != GPO_FLOAT64)
			;
		else if (quick)
			g.skipped += 2;
		else
		{
			random_case(&g, types[t], 10000019, PART_ONE);
			random_case(&g, types[t], 10000019, PART_MIXED);
		}
		group_end(&g);
	}
}
