/*
 * test_agg.c
 *	  Unit tests of the aggregation primitives (gpo_agg.h): radix sort of
 *	  key/row pairs, segment offsets, segmented reduction and group
 *	  aggregation with every strategy, against qsort/loop references, over
 *	  every partition kind, on the CPU face and (when present) the GPU face.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpo_agg.h"
#include "test_util.h"


/* How keys are drawn. */
typedef enum key_kind
{
	KEYS_SMALL = 0,				/* a few distinct values */
	KEYS_RANGE,					/* about n / 4 distinct values in a range */
	KEYS_DISTINCT,				/* (nearly) all distinct, wide */
	KEYS_SKEW,					/* 90% one value, rest spread */
	KEYS_EXTREME,				/* type min/max, 0, -1, NaNs, +-0, +-Inf */
	KEYS_ONE,					/* one value */
	KEYS_COUNT
} key_kind;

static const char *const key_names[] = {
	"small", "range", "distinct", "skew", "extreme", "one"
};

/* One flat test column: raw bits (4-byte types in the low half) and valid bytes. */
typedef struct flat
{
	gpo_type	type;
	int64_t		n;
	uint64_t   *raw;
	uint8_t    *valid;
} flat;

/* A float64 NaN with a random payload and sign. */
static uint64_t
nan64(void)
{
	return UINT64_C(0x7ff0000000000001) | (rng_next() & UINT64_C(0x800fffffffffffff));
}

/* A float32 NaN with a random payload and sign. */
static uint32_t
nan32(void)
{
	return UINT32_C(0x7f800001) | ((uint32_t) rng_next() & UINT32_C(0x807fffff));
}

/* Raw bits of an integer-ish value v of type t. */
static uint64_t
raw_of(gpo_type t, int64_t v)
{
	float		f;
	double		d;
	uint32_t	u;
	uint64_t	r;

	switch (t)
	{
		case GPO_INT32:
		case GPO_UINT32:
			return (uint32_t) v;
		case GPO_INT64:
			return (uint64_t) v;
		case GPO_FLOAT32:
			f = (float) v / 4.0f;
			memcpy(&u, &f, 4);
			return u;
		default:
			d = (double) v / 8.0;
			memcpy(&r, &d, 8);
			return r;
	}
}

/* One extreme value of type t. */
static uint64_t
extreme_of(gpo_type t)
{
	int			k = (int) rng_below(8);
	static const int64_t ints[] = {0, -1, 1, 7};

	if (t == GPO_INT32)
		return k == 0 ? (uint32_t) INT32_MIN : k == 1 ? (uint32_t) INT32_MAX : (uint32_t) ints[k % 4];
	if (t == GPO_UINT32)
		return k == 0 ? 0 : k == 1 ? UINT32_MAX : (uint32_t) ints[k % 4];
	if (t == GPO_INT64)
		return k == 0 ? (uint64_t) INT64_MIN : k == 1 ? (uint64_t) INT64_MAX :
			k == 2 ? (uint64_t) (INT64_MIN + 1) : (uint64_t) ints[k % 4];
	if (t == GPO_FLOAT32)
	{
		static const uint32_t fb[] = {0x00000000, 0x80000000, 0x7f800000, 0xff800000,
		0x3f800000, 0xbf800000, 0x00000001};

		return k == 7 ? nan32() : fb[k];
	}
	{
		static const uint64_t db[] = {0, UINT64_C(0x8000000000000000),
			UINT64_C(0x7ff0000000000000), UINT64_C(0xfff0000000000000),
		UINT64_C(0x3ff0000000000000), UINT64_C(0xbff0000000000000), 1};

		return k == 7 ? nan64() : db[k];
	}
}

/* Fills a flat column of n rows of kind; null_pct percent NULLs. */
static void
flat_make(flat *f, gpo_type t, int64_t n, key_kind kind, int null_pct)
{
	int64_t		span = n / 4 + 1;
	int64_t		base = (int64_t) rng_below(1000) - 500;

	f->type = t;
	f->n = n;
	f->raw = malloc(sizeof(uint64_t) * (n + 1));
	f->valid = malloc(n + 1);
	for (int64_t i = 0; i < n; i++)
	{
		uint64_t	r;

		switch (kind)
		{
			case KEYS_SMALL:
				r = raw_of(t, base + (int64_t) rng_below(7));
				break;
			case KEYS_RANGE:
				r = raw_of(t, base + (int64_t) rng_below(span));
				break;
			case KEYS_DISTINCT:
				r = rng_next();
				if (t == GPO_FLOAT64 && (r & UINT64_C(0x7ff0000000000000)) == UINT64_C(0x7ff0000000000000))
					r ^= UINT64_C(0x4000000000000000);
				if (t == GPO_FLOAT32 && (r & 0x7f800000) == 0x7f800000)
					r ^= 0x40000000;
				if (t != GPO_INT64 && t != GPO_FLOAT64)
					r = (uint32_t) r;
				break;
			case KEYS_SKEW:
				r = rng_chance(9, 10) ? raw_of(t, 3) : raw_of(t, (int64_t) rng_below(100000));
				break;
			case KEYS_EXTREME:
				r = extreme_of(t);
				break;
			default:
				r = raw_of(t, 42);
				break;
		}
		f->raw[i] = r;
		f->valid[i] = !(null_pct > 0 && (int) rng_below(100) < null_pct);
	}
}

/* Frees a flat column. */
static void
flat_free(flat *f)
{
	free(f->raw);
	free(f->valid);
}

/* Copies a flat column into a tvec of partition kind (validity if any NULL). */
static void
flat_to_tvec(const flat *f, tvec *t, part_kind kind)
{
	size_t		w = gpo_type_size(f->type);
	uint8_t    *buf = malloc(w * (f->n + 1));
	bool		anynull = false;

	for (int64_t i = 0; i < f->n; i++)
	{
		if (w == 8)
			memcpy(buf + 8 * i, &f->raw[i], 8);
		else
		{
			uint32_t	u = (uint32_t) f->raw[i];

			memcpy(buf + 4 * i, &u, 4);
		}
		anynull |= !f->valid[i];
	}
	tvec_make_kind(t, f->type, kind, f->n, anynull || rng_chance(1, 4));
	tvec_fill(t, buf, f->valid);
	free(buf);
}

/* qsort context (single-threaded tests). */
static const flat *sort_keys;

/* Stable reference order: valid keys first by key, then row. */
static int
ref_order(const void *pa, const void *pb)
{
	int64_t		a = *(const int64_t *) pa,
				b = *(const int64_t *) pb;
	int			c;

	if (sort_keys->valid[a] != sort_keys->valid[b])
		return sort_keys->valid[a] ? -1 : 1;
	if (sort_keys->valid[a] &&
		(c = key_cmp_raw(sort_keys->type, sort_keys->raw[a], sort_keys->raw[b], true)) != 0)
		return c;
	return a < b ? -1 : a > b;
}

/* Row order of keys under the reference (malloc'd). */
static int64_t *
ref_sort(const flat *keys)
{
	int64_t    *perm = malloc(sizeof(int64_t) * (keys->n + 1));

	for (int64_t i = 0; i < keys->n; i++)
		perm[i] = i;
	sort_keys = keys;
	qsort(perm, keys->n, sizeof(int64_t), ref_order);
	return perm;
}

static int64_t flat_code_range(const flat *keys, int64_t lo, int64_t hi,
							   uint64_t *mn, uint64_t *mx);

/* Reference results of one group. */
typedef struct ref_group
{
	bool		kvalid;
	uint64_t	key;			/* canonical raw bits */
	int64_t		rows;
	int64_t		count;
	__int128	isum;
	double		fsum;			/* of the finite values */
	double		fabs;			/* sum of |v|, for the tolerance */
	uint64_t	mn,
				mx;				/* raw bits (canonical NaN) */
	uint8_t		fflags;			/* GPO_FF_* of the non-finite values */
	long double lsum;			/* finite values' sum, and of their squares */
	long double lsq;
	long double m2;				/* sum of squared deviations (ref_m2_add) */
} ref_group;

/* Value of row r of a float column as a double. */
static double
ref_double(const flat *vals, int64_t r)
{
	uint64_t	v = vals->raw[r];
	double		d;

	if (vals->type == GPO_FLOAT32)
	{
		float		f;
		uint32_t	u = (uint32_t) v;

		memcpy(&f, &u, 4);
		return f;
	}
	memcpy(&d, &v, 8);
	return d;
}

/* Second pass: row r's squared deviation from its group's mean into g->m2. */
static void
ref_m2_add(ref_group *g, const flat *vals, int64_t r)
{
	long double d;

	if (vals == NULL || !vals->valid[r] || vals->type == GPO_INT32 ||
		vals->type == GPO_INT64 || g->fflags != 0)
		return;
	d = (long double) ref_double(vals, r) - g->lsum / g->count;
	g->m2 += d * d;
}

/* Adds row r's value to g. */
static void
ref_add(ref_group *g, const flat *vals, int64_t r)
{
	uint64_t	v;

	g->rows++;
	if (vals == NULL || !vals->valid[r])
		return;
	v = key_canon(vals->type, vals->raw[r], false);
	if (vals->type == GPO_INT32)
		g->isum += (int32_t) v;
	else if (vals->type == GPO_INT64)
		g->isum += (int64_t) v;
	else
	{
		double		d;

		if (vals->type == GPO_FLOAT32)
		{
			float		f;
			uint32_t	u = (uint32_t) v;

			memcpy(&f, &u, 4);
			d = f;
		}
		else
			memcpy(&d, &v, 8);
		if (isfinite(d))
		{
			g->fsum += d;
			g->lsum += d;
			g->lsq += (long double) d * d;
		}
		else
			g->fflags |= isnan(d) ? GPO_FF_NAN : d > 0 ? GPO_FF_PINF : GPO_FF_NINF;
		g->fabs += isfinite(d) ? fabs(d) : 0;
		g->fabs = isinf(g->fabs) ? 1e308 : g->fabs;
	}
	if (g->count == 0 || key_cmp_raw(vals->type, v, g->mn, false) < 0)
		g->mn = v;
	if (g->count == 0 || key_cmp_raw(vals->type, v, g->mx, false) > 0)
		g->mx = v;
	g->count++;
}

/* Reference grouping: groups in key order, NULL key last (malloc'd). */
static ref_group *
ref_groupagg(const flat *keys, const flat *vals, int64_t *ngroups)
{
	int64_t    *perm = ref_sort(keys);
	ref_group  *gs = calloc(keys->n + 1, sizeof(ref_group));
	int64_t		ng = 0;

	for (int64_t i = 0; i < keys->n; i++)
	{
		int64_t		r = perm[i];
		bool		newg = i == 0 || keys->valid[r] != keys->valid[perm[i - 1]] ||
			(keys->valid[r] && key_cmp_raw(keys->type, keys->raw[r], keys->raw[perm[i - 1]], true) != 0);

		if (newg)
		{
			ng++;
			gs[ng - 1].kvalid = keys->valid[r];
			gs[ng - 1].key = keys->valid[r] ? key_canon(keys->type, keys->raw[r], true) : 0;
		}
		ref_add(&gs[ng - 1], vals, r);
	}
	for (int64_t i = 0, g = -1; i < keys->n; i++)
	{
		int64_t		r = perm[i];

		if (i == 0 || keys->valid[r] != keys->valid[perm[i - 1]] ||
			(keys->valid[r] && key_cmp_raw(keys->type, keys->raw[r], keys->raw[perm[i - 1]], true) != 0))
			g++;
		ref_m2_add(&gs[g], vals, r);
	}
	free(perm);
	*ngroups = ng;
	return gs;
}

/* An output buffer set for cap groups. */
typedef struct outbuf
{
	gpo_agg_out o;
	uint64_t   *keys;
	uint64_t   *mn;
	uint64_t   *mx;
} outbuf;

/* Allocates out arrays for cap groups (all wanted). */
static void
outbuf_make(outbuf *b, int64_t cap)
{
	memset(b, 0, sizeof(*b));
	b->o.capacity = cap;
	b->o.keys = b->keys = calloc(cap + 1, 8);
	b->o.key_valid = calloc(cap + 1, 1);
	b->o.rows = calloc(cap + 1, 8);
	b->o.count = calloc(cap + 1, 8);
	b->o.isum = calloc(cap + 1, sizeof(gpo_int128));
	b->o.fsum = calloc(cap + 1, 8);
	b->o.min = b->mn = calloc(cap + 1, 8);
	b->o.max = b->mx = calloc(cap + 1, 8);
	b->o.fflags = calloc(cap + 1, 1);
	/* m2 costs a pass: asked for half the time */
	b->o.m2 = rng_chance(1, 2) ? calloc(cap + 1, 8) : NULL;
}

/* Frees out arrays. */
static void
outbuf_free(outbuf *b)
{
	free(b->o.keys);
	free(b->o.key_valid);
	free(b->o.rows);
	free(b->o.count);
	free(b->o.isum);
	free(b->o.fsum);
	free(b->o.min);
	free(b->o.max);
	free(b->o.fflags);
	free(b->o.m2);
}

/* Value i of an out array of element size w, as raw bits. */
static uint64_t
raw_in(const void *arr, size_t w, int64_t i)
{
	uint64_t	r = 0;

	memcpy(&r, (const char *) arr + i * w, w);
	return r;
}

/* Float sums agree within rounding (NaN/Inf by class). */
static bool
fsum_close(double got, double want, double mag)
{
	if (!(mag < 1e300))
		return true;				/* the order decides overflow */
	if (isnan(want) || isnan(got))
		return isnan(want) && isnan(got);
	if (isinf(want) || isinf(got))
		return got == want;
	return fabs(got - want) <= 1e-9 * mag + 1e-300;
}

/*
 * Compares results of segments/groups 0..ng with the reference; keys too
 * when with_keys.  ktype/vals name the types.
 */
static void
check_groups(tcase *c, const gpo_agg_out *o, const ref_group *gs, int64_t ng,
			 gpo_type ktype, const flat *vals, bool with_keys)
{
	size_t		kw = gpo_type_size(ktype);
	size_t		vw = vals ? gpo_type_size(vals->type) : 8;
	bool		vint = vals && (vals->type == GPO_INT32 || vals->type == GPO_INT64);

	for (int64_t g = 0; g < ng && c->ok; g++)
	{
		const ref_group *r = &gs[g];
		__int128	isum = (__int128) (((unsigned __int128) (uint64_t) o->isum[g].hi << 64) | o->isum[g].lo);
		bool		any = vals && r->count > 0;

		if (with_keys)
		{
			expect(c, o->key_valid[g] == r->kvalid, "group %lld key validity", (long long) g);
			expect(c, raw_in(o->keys, kw, g) == (r->kvalid ? r->key : 0),
				   "group %lld key %llx want %llx", (long long) g,
				   (unsigned long long) raw_in(o->keys, kw, g), (unsigned long long) r->key);
		}
		expect(c, o->rows[g] == r->rows, "group %lld rows %lld want %lld",
			   (long long) g, (long long) o->rows[g], (long long) r->rows);
		expect(c, o->count[g] == r->count, "group %lld count", (long long) g);
		expect(c, isum == (any && vint ? r->isum : 0), "group %lld isum", (long long) g);
		if (vint)
			expect(c, o->fsum[g] == (any ? (double) r->isum : 0.0), "group %lld fsum of ints", (long long) g);
		else
			expect(c, fsum_close(o->fsum[g], any ? r->fsum : 0.0, r->fabs),
				   "group %lld fsum %.17g want %.17g", (long long) g, o->fsum[g], r->fsum);
		expect(c, raw_in(o->min, vw, g) == (any ? r->mn : 0), "group %lld min %llx want %llx",
			   (long long) g, (unsigned long long) raw_in(o->min, vw, g), (unsigned long long) r->mn);
		expect(c, raw_in(o->max, vw, g) == (any ? r->mx : 0), "group %lld max", (long long) g);
		expect(c, o->fflags[g] == (any && !vint ? r->fflags : 0), "group %lld fflags %d want %d",
			   (long long) g, o->fflags[g], r->fflags);
		if (o->m2 != NULL && (!any || vint))
			expect(c, o->m2[g] == 0.0, "group %lld m2 of no floats", (long long) g);
		else if (o->m2 != NULL && r->fflags != 0)
			expect(c, isnan(o->m2[g]), "group %lld m2 %g with non-finite values", (long long) g, o->m2[g]);
		else if (o->m2 != NULL && r->lsq < 1e300L)
			expect(c, fabsl((long double) o->m2[g] - r->m2) <= 1e-7L * r->lsq + 1e-300L,
				   "group %lld m2 %.17g want %.17Lg", (long long) g, o->m2[g], r->m2);
	}
}

/* The faces to run: CPU always, GPU when present (else counted skipped). */
static int
faces(tgroup *g, gpo_device *list)
{
	list[0] = GPO_DEVICE_CPU;
	if (have_gpu)
	{
		list[1] = GPO_DEVICE_GPU;
		return 2;
	}
	gpu_skip(g);
	return 1;
}

/* One group aggregation case: every strategy that applies, every face. */
static void
groupagg_case(tgroup *tg, gpo_type kt, gpo_type vt, bool with_values,
			  int64_t n, key_kind kind, int knull, int vnull, part_kind kp,
			  part_kind vp)
{
	flat		keys,
				vals;
	tvec		tk,
				tv;
	int64_t		ng_ref;
	ref_group  *ref;
	gpo_device	devs[2];
	int			nf = faces(tg, devs);

	flat_make(&keys, kt, n, kind, knull);
	flat_make(&vals, vt, n, (key_kind) rng_below(KEYS_COUNT), vnull);
	flat_to_tvec(&keys, &tk, kp);
	flat_to_tvec(&vals, &tv, vp);
	ref = ref_groupagg(&keys, with_values ? &vals : NULL, &ng_ref);

	for (int f = 0; f < nf; f++)
		for (int s = GPO_AGG_AUTO; s <= GPO_AGG_SORT; s++)
		{
			gpo_ctx		ctx;
			tcase		c;
			outbuf		ob;
			gpo_agg_strategy strat = (gpo_agg_strategy) s;
			int64_t		ng = -1;
			gpo_status	st;
			char		dummy;
			bool		dense_ok;

			dense_ok = kt != GPO_FLOAT32 && kt != GPO_FLOAT64;
			if (dense_ok && ng_ref > 0)
			{
				uint64_t	mn = UINT64_MAX,
							mx = 0;

				for (int64_t i = 0; i < n; i++)
					if (keys.valid[i])
					{
						uint64_t	cd = gpo_key_code(kt, &keys.raw[i]);

						mn = cd < mn ? cd : mn;
						mx = cd > mx ? cd : mx;
					}
				dense_ok = mn == UINT64_MAX || mx - mn < (uint64_t) GPO_AGG_DENSE_MAX_RANGE;
			}
			test_ctx(&ctx, devs[f], f == 0 ? (int) rng_below(4) + 1 : 0);
			case_begin(&c, "groupagg %s keys %s/%s values%s n=%lld %s nulls %d/%d parts %s/%s %s",
					   devs[f] == GPO_DEVICE_GPU ? "gpu" : "cpu",
					   gpo_type_name(kt), key_names[kind],
					   with_values ? gpo_type_name(vt) : "(none)", (long long) n,
					   gpo_agg_strategy_name(strat), knull, vnull,
					   part_name(kp), part_name(vp), "");
			outbuf_make(&ob, ng_ref);
			st = gpo_groupagg(&ctx, &tk.v, with_values ? &tv.v : NULL, 0, &strat,
							  &ob.o, &ng, &dummy, NULL);
			if (s == GPO_AGG_DENSE && !dense_ok)
				expect(&c, st == GPO_ERR_INVALID, "forced dense gave %s", gpo_status_text(st));
			else
			{
				expect(&c, st == GPO_OK, "status %s (%s)", gpo_status_text(st), ctx.detail);
				expect(&c, ng == ng_ref, "ngroups %lld want %lld", (long long) ng, (long long) ng_ref);
				expect(&c, s == GPO_AGG_AUTO || strat == (gpo_agg_strategy) s, "strategy used");
				if (c.ok)
					check_groups(&c, &ob.o, ref, ng, kt, with_values ? &vals : NULL, true);
				/* too little room: the count, and GPO_ERR_CAPACITY */
				if (c.ok && ng_ref > 0 && rng_chance(1, 3))
				{
					ob.o.capacity = ng_ref - 1;
					strat = (gpo_agg_strategy) s;
					ng = -1;
					st = gpo_groupagg(&ctx, &tk.v, with_values ? &tv.v : NULL, 0, &strat,
									  &ob.o, &ng, &dummy, NULL);
					expect(&c, st == GPO_ERR_CAPACITY && ng == ng_ref,
						   "short capacity gave %s, ngroups %lld", gpo_status_text(st), (long long) ng);
				}
			}
			case_result(tg, c.ok, c.msg);
			outbuf_free(&ob);
		}
	free(ref);
	tvec_free(&tk);
	tvec_free(&tv);
	flat_free(&keys);
	flat_free(&vals);
}

/*
 * One case of several aggregate requests over the same keys
 * (gpo_groupagg_many): nreq value columns of random types, NULL rates and
 * partitions (some requests without values, some outputs without key
 * arrays), every strategy that applies, every face; each output must be
 * the reference's groups of its own column.  est: the estimated groups
 * passed (negative: the reference's count, which lets sparse keys take the
 * CPU face's one-pass dense groups).
 */
static void
many_case(tgroup *tg, gpo_type kt, int64_t n, key_kind kind, int knull,
		  int nreq, part_kind kp, int64_t est)
{
	static const gpo_type vtypes[] = {GPO_INT32, GPO_INT64, GPO_FLOAT32, GPO_FLOAT64};
	flat		keys;
	flat		vals[8];
	bool		hasv[8];
	tvec		tk;
	tvec		tv[8];
	ref_group  *ref[8];
	int64_t		ng_ref = 0;
	gpo_device	devs[2];
	int			nf = faces(tg, devs);
	bool		dense_ok = kt != GPO_FLOAT32 && kt != GPO_FLOAT64;

	flat_make(&keys, kt, n, kind, knull);
	flat_to_tvec(&keys, &tk, kp);
	for (int r = 0; r < nreq; r++)
	{
		flat_make(&vals[r], vtypes[rng_below(4)], n, (key_kind) rng_below(KEYS_COUNT),
				  (int) rng_below(4) * 15);
		flat_to_tvec(&vals[r], &tv[r], (part_kind) rng_below(PART_COUNT));
		hasv[r] = !rng_chance(1, 6);
		ref[r] = ref_groupagg(&keys, hasv[r] ? &vals[r] : NULL, &ng_ref);
	}
	if (nreq == 0)
		ref[0] = ref_groupagg(&keys, NULL, &ng_ref);
	if (dense_ok)
	{
		uint64_t	mn,
					mx;

		flat_code_range(&keys, 0, n, &mn, &mx);
		dense_ok = mn == UINT64_MAX || mx - mn < (uint64_t) GPO_AGG_DENSE_MAX_RANGE;
	}
	for (int f = 0; f < nf; f++)
		for (int s = GPO_AGG_AUTO; s <= GPO_AGG_SORT; s++)
		{
			gpo_ctx		ctx;
			tcase		c;
			outbuf		ob[8];
			gpo_agg_out outs[8];
			gpo_agg_req reqs[8];
			gpo_agg_strategy strat = (gpo_agg_strategy) s;
			int64_t		ng = -1;
			gpo_status	st;
			char		dummy;

			if (s == GPO_AGG_DENSE && !dense_ok)
				continue;
			test_ctx(&ctx, devs[f], f == 0 ? (int) rng_below(4) + 1 : 0);
			case_begin(&c, "groupagg many %s keys %s/%s n=%lld %d requests %s parts %s",
					   devs[f] == GPO_DEVICE_GPU ? "gpu" : "cpu", gpo_type_name(kt),
					   key_names[kind], (long long) n, nreq, gpo_agg_strategy_name(strat),
					   part_name(kp));
			for (int r = 0; r < (nreq > 0 ? nreq : 1); r++)
			{
				outbuf_make(&ob[r], ng_ref);
				outs[r] = ob[r].o;
				if (r > 0 && rng_chance(1, 2))
				{
					outs[r].keys = NULL;
					outs[r].key_valid = NULL;
					outs[r].rows = NULL;
				}
				if (r < nreq)
					reqs[r] = gpo_agg_req_of_out(hasv[r] ? &tv[r].v : NULL, &outs[r]);
			}
			st = gpo_groupagg_many(&ctx, &tk.v, nreq, reqs, est < 0 ? ng_ref : est,
								   &strat, outs, &ng, &dummy, NULL);
			expect(&c, st == GPO_OK, "status %s (%s)", gpo_status_text(st), ctx.detail);
			expect(&c, ng == ng_ref, "ngroups %lld want %lld", (long long) ng, (long long) ng_ref);
			expect(&c, s == GPO_AGG_AUTO || strat == (gpo_agg_strategy) s, "strategy used");
			for (int r = 0; r < (nreq > 0 ? nreq : 1) && c.ok; r++)
			{
				gpo_agg_out o = outs[r];
				int64_t    *rows = ob[r].o.rows;

				if (o.rows == NULL)
				{
					/* rows not asked for: check the rest against the reference's */
					o.rows = malloc(sizeof(int64_t) * (ng + 1));
					for (int64_t g = 0; g < ng; g++)
						o.rows[g] = ref[r][g].rows;
				}
				check_groups(&c, &o, ref[r], ng, kt,
							 r < nreq && hasv[r] ? &vals[r] : NULL, o.keys != NULL);
				if (o.rows != rows)
					free(o.rows);
				expect(&c, o.keys != NULL || ob[r].keys[0] == 0, "request %d: keys written", r);
			}
			/* too little room in one output: the count, and GPO_ERR_CAPACITY */
			if (c.ok && ng_ref > 0 && nreq > 1)
			{
				int			r = (int) rng_below((uint64_t) nreq);

				outs[r].capacity = ng_ref - 1;
				strat = (gpo_agg_strategy) s;
				st = gpo_groupagg_many(&ctx, &tk.v, nreq, reqs, est < 0 ? ng_ref : est,
									   &strat, outs, &ng, &dummy, NULL);
				expect(&c, st == GPO_ERR_CAPACITY && ng == ng_ref,
					   "short capacity gave %s, ngroups %lld", gpo_status_text(st), (long long) ng);
			}
			case_result(tg, c.ok, c.msg);
			for (int r = 0; r < (nreq > 0 ? nreq : 1); r++)
				outbuf_free(&ob[r]);
		}
	for (int r = 0; r < nreq; r++)
	{
		free(ref[r]);
		tvec_free(&tv[r]);
		flat_free(&vals[r]);
	}
	if (nreq == 0)
		free(ref[0]);
	tvec_free(&tk);
	flat_free(&keys);
}

/* One sort case on every face. */
static void
sort_case(tgroup *tg, gpo_type kt, int64_t n, key_kind kind, int knull,
		  part_kind kp, part_kind op)
{
	flat		keys;
	tvec		tk,
				tko,
				tro;
	int64_t    *perm;
	gpo_device	devs[2];
	int			nf = faces(tg, devs);
	size_t		w = gpo_type_size(kt);

	flat_make(&keys, kt, n, kind, knull);
	flat_to_tvec(&keys, &tk, kp);
	perm = ref_sort(&keys);
	tvec_make_kind(&tko, kt, op, n + (int64_t) rng_below(3), true);
	tvec_make_kind(&tro, GPO_INT64, op, n + (int64_t) rng_below(3), false);
	for (int f = 0; f < nf; f++)
	{
		gpo_ctx		ctx;
		tcase		c;
		size_t		bytes = 0;
		void	   *scratch;
		gpo_status	st;
		uint8_t    *kout = malloc(w * (tko.rows + 1));
		uint8_t    *kval = malloc(tko.rows + 1);
		int64_t    *rout = malloc(sizeof(int64_t) * (tro.rows + 1));

		test_ctx(&ctx, devs[f], f == 0 ? (int) rng_below(4) + 1 : 0);
		case_begin(&c, "sort %s %s %s n=%lld nulls %d parts %s/%s",
				   devs[f] == GPO_DEVICE_GPU ? "gpu" : "cpu", gpo_type_name(kt),
				   key_names[kind], (long long) n, knull, part_name(kp), part_name(op));
		tvec_sentinel(&tko);
		tvec_sentinel(&tro);
		st = gpo_sort_pairs(&ctx, &tk.v, &tko.v, &tro.v, NULL, &bytes);
		scratch = malloc(bytes + 1);
		if (st == GPO_OK)
			st = gpo_sort_pairs(&ctx, &tk.v, &tko.v, &tro.v, scratch, &bytes);
		expect(&c, st == GPO_OK, "status %s (%s)", gpo_status_text(st), ctx.detail);
		if (c.ok)
		{
			tvec_read(&tko, kout, kval);
			tvec_read(&tro, rout, NULL);
			for (int64_t i = 0; i < n && c.ok; i++)
			{
				int64_t		r = perm[i];
				uint64_t	want = keys.valid[r] ? key_canon(kt, keys.raw[r], true) : 0;

				expect(&c, rout[i] == r, "row %lld: row %lld want %lld", (long long) i,
					   (long long) rout[i], (long long) r);
				expect(&c, raw_in(kout, w, i) == want, "row %lld: key", (long long) i);
				expect(&c, kval[i] == keys.valid[r], "row %lld: key validity", (long long) i);
			}
			expect(&c, tvec_spare_untouched(&tko, n) && tvec_spare_untouched(&tro, n),
				   "spare capacity written");
		}
		case_result(tg, c.ok, c.msg);
		free(scratch);
		free(kout);
		free(kval);
		free(rout);
	}
	free(perm);
	tvec_free(&tk);
	tvec_free(&tko);
	tvec_free(&tro);
	flat_free(&keys);
}

/* One segment offsets + segmented reduction case on every face. */
static void
segreduce_case(tgroup *tg, gpo_type vt, int64_t nsegs, int64_t maxlen,
			   int vnull, part_kind vp)
{
	int64_t    *lens = malloc(sizeof(int64_t) * (nsegs + 1));
	int64_t		n = 0;
	flat		vals;
	tvec		tl,
				to,
				tv;
	ref_group  *ref = calloc(nsegs + 1, sizeof(ref_group));
	gpo_device	devs[2];
	int			nf = faces(tg, devs);

	for (int64_t s = 0; s < nsegs; s++)
	{
		lens[s] = rng_chance(1, 5) ? 0 : (int64_t) rng_below(maxlen + 1);
		n += lens[s];
	}
	flat_make(&vals, vt, n, (key_kind) rng_below(KEYS_COUNT), vnull);
	flat_to_tvec(&vals, &tv, vp);
	tvec_make_kind(&tl, GPO_INT64, (part_kind) rng_below(PART_COUNT), nsegs, false);
	tvec_fill(&tl, lens, NULL);
	tvec_make_kind(&to, GPO_INT64, (part_kind) rng_below(PART_COUNT), nsegs + 1, false);
	for (int64_t s = 0, r = 0; s < nsegs; s++)
		for (int64_t i = 0; i < lens[s]; i++)
			ref_add(&ref[s], &vals, r++);
	for (int64_t s = 0, r = 0; s < nsegs; s++)
		for (int64_t i = 0; i < lens[s]; i++)
			ref_m2_add(&ref[s], &vals, r++);
	for (int f = 0; f < nf; f++)
	{
		gpo_ctx		ctx;
		tcase		c;
		outbuf		ob;
		size_t		bytes = 0;
		void	   *scratch = NULL;
		int64_t		total = -1;
		gpo_status	st;

		test_ctx(&ctx, devs[f], f == 0 ? (int) rng_below(4) + 1 : 0);
		case_begin(&c, "segreduce %s %s segs=%lld maxlen=%lld nulls %d parts %s",
				   devs[f] == GPO_DEVICE_GPU ? "gpu" : "cpu", gpo_type_name(vt),
				   (long long) nsegs, (long long) maxlen, vnull, part_name(vp));
		outbuf_make(&ob, nsegs);
		st = gpo_segment_offsets(&ctx, &tl.v, &to.v, &total, NULL, &bytes);
		scratch = malloc(bytes + 1);
		if (st == GPO_OK)
			st = gpo_segment_offsets(&ctx, &tl.v, &to.v, &total, scratch, &bytes);
		expect(&c, st == GPO_OK && total == n, "offsets: %s, total %lld want %lld",
			   gpo_status_text(st), (long long) total, (long long) n);
		free(scratch);
		scratch = NULL;
		if (c.ok)
		{
			st = gpo_segreduce(&ctx, &tv.v, &to.v, nsegs, &ob.o, NULL, &bytes);
			scratch = malloc(bytes + 1);
			if (st == GPO_OK)
				st = gpo_segreduce(&ctx, &tv.v, &to.v, nsegs, &ob.o, scratch, &bytes);
			expect(&c, st == GPO_OK, "status %s (%s)", gpo_status_text(st), ctx.detail);
			if (c.ok)
				check_groups(&c, &ob.o, ref, nsegs, vt, &vals, false);
		}
		case_result(tg, c.ok, c.msg);
		free(scratch);
		outbuf_free(&ob);
	}
	free(lens);
	free(ref);
	flat_free(&vals);
	tvec_free(&tv);
	tvec_free(&tl);
	tvec_free(&to);
}

/* Sums that overflow int64 but fit 128 bits, on every strategy. */
static void
overflow_case(tgroup *tg)
{
	int64_t		n = 5000;

	for (int sign = 0; sign < 2; sign++)
	{
		flat		keys,
					vals;
		tvec		tk,
					tv;
		ref_group  *ref;
		int64_t		ng_ref;

		flat_make(&keys, GPO_INT32, n, KEYS_SMALL, 5);
		flat_make(&vals, GPO_INT64, n, KEYS_ONE, 3);
		for (int64_t i = 0; i < n; i++)
			vals.raw[i] = sign ? (uint64_t) (INT64_MIN + (int64_t) rng_below(10)) :
				(uint64_t) (INT64_MAX - (int64_t) rng_below(10));
		flat_to_tvec(&keys, &tk, (part_kind) rng_below(PART_COUNT));
		flat_to_tvec(&vals, &tv, (part_kind) rng_below(PART_COUNT));
		ref = ref_groupagg(&keys, &vals, &ng_ref);
		for (int dev = 0; dev < 2; dev++)
			for (int s = GPO_AGG_DENSE; s <= GPO_AGG_SORT; s++)
			{
				gpo_ctx		ctx;
				tcase		c;
				outbuf		ob;
				gpo_agg_strategy strat = (gpo_agg_strategy) s;
				int64_t		ng = 0;
				gpo_status	st;
				char		dummy;

				if (dev == 1 && !have_gpu)
				{
					gpu_skip(tg);
					continue;
				}
				test_ctx(&ctx, dev ? GPO_DEVICE_GPU : GPO_DEVICE_CPU, 0);
				case_begin(&c, "int128 sums %s %s %s", sign ? "negative" : "positive",
						   dev ? "gpu" : "cpu", gpo_agg_strategy_name(strat));
				outbuf_make(&ob, ng_ref);
				st = gpo_groupagg(&ctx, &tk.v, &tv.v, 0, &strat, &ob.o, &ng, &dummy, NULL);
				expect(&c, st == GPO_OK && ng == ng_ref, "status %s", gpo_status_text(st));
				if (c.ok)
				{
					check_groups(&c, &ob.o, ref, ng, GPO_INT32, &vals, true);
					expect(&c, ref[0].count < 3 || (sign ? ob.o.isum[0].hi < -1 : ob.o.isum[0].hi > 0),
						   "sum did not leave int64");
				}
				case_result(tg, c.ok, c.msg);
				outbuf_free(&ob);
			}
		free(ref);
		tvec_free(&tk);
		tvec_free(&tv);
		flat_free(&keys);
		flat_free(&vals);
	}
}

/* Runs the aggregation test groups. */
/* Key code range and non-NULL count of rows [lo, hi) of keys. */
static int64_t
flat_code_range(const flat *keys, int64_t lo, int64_t hi, uint64_t *mn,
				uint64_t *mx)
{
	int64_t		nv = 0;

	*mn = UINT64_MAX;
	*mx = 0;
	for (int64_t i = lo; i < hi; i++)
		if (keys->valid[i])
		{
			uint64_t	cd = gpo_key_code(keys->type, &keys->raw[i]);

			*mn = cd < *mn ? cd : *mn;
			*mx = cd > *mx ? cd : *mx;
			nv++;
		}
	return nv;
}

/*
 * One running dense aggregation case on every face: n rows cut into nb
 * batches (random cuts, empty batches too, each of a random partition
 * kind) added one after the other.  The test predicts which batches go in
 * (the first with a non-NULL key starts the run when dense is the
 * strategy; later ones go in when their keys fall in its range), and the
 * finished groups must be those of the reference over the rows that went
 * in.
 */
static void
run_case(tgroup *tg, gpo_type kt, gpo_type vt, bool with_values, int64_t n,
		 key_kind kind, int knull, int vnull, int nb, gpo_agg_strategy want)
{
	flat		keys,
				vals,
				inkeys,
				invals;
	int64_t    *cut = malloc(sizeof(int64_t) * (nb + 1));
	gpo_device	devs[2];
	int			nf = faces(tg, devs);

	flat_make(&keys, kt, n, kind, knull);
	flat_make(&vals, vt, n, (key_kind) rng_below(KEYS_COUNT), vnull);
	cut[0] = 0;
	cut[nb] = n;
	for (int b = 1; b < nb; b++)
		cut[b] = rng_chance(1, 5) ? cut[b - 1] :
			cut[b - 1] + (int64_t) rng_below((uint64_t) (n - cut[b - 1]) / (nb - b) * 2 + 1);
	for (int b = 1; b < nb; b++)
		if (cut[b] > n)
			cut[b] = n;
	for (int b = 1; b < nb; b++)
		if (cut[b] < cut[b - 1])
			cut[b] = cut[b - 1];
	inkeys = keys;
	invals = vals;
	inkeys.raw = malloc(sizeof(uint64_t) * (n + 1));
	inkeys.valid = malloc(n + 1);
	invals.raw = malloc(sizeof(uint64_t) * (n + 1));
	invals.valid = malloc(n + 1);

	for (int f = 0; f < nf; f++)
	{
		gpo_agg_run *run = NULL;
		bool		started = false;
		uint64_t	rmin = 0,
					rmax = 0;
		tcase		c;
		gpo_ctx		ctx;
		outbuf		ob;
		int64_t		nin = 0;
		int64_t		ng_ref;
		int64_t		ng = -1;
		ref_group  *ref;
		gpo_status	st;

		case_begin(&c, "groupagg run %s keys %s/%s values%s n=%lld batches %d %s nulls %d/%d",
				   devs[f] == GPO_DEVICE_GPU ? "gpu" : "cpu",
				   gpo_type_name(kt), key_names[kind],
				   with_values ? gpo_type_name(vt) : "(none)", (long long) n, nb,
				   gpo_agg_strategy_name(want), knull, vnull);
		outbuf_make(&ob, n + 1);
		for (int b = 0; b < nb && c.ok; b++)
		{
			int64_t		lo = cut[b],
						hi = cut[b + 1];
			flat		bk = keys,
						bv = vals;
			tvec		tk,
						tv;
			uint64_t	mn,
						mx;
			int64_t		nv = flat_code_range(&keys, lo, hi, &mn, &mx);
			bool		expect_in;
			bool		added = !started;

			if (started)
				expect_in = nv == 0 || (mn >= rmin && mx <= rmax);
			else
			{
				gpo_agg_strategy s = want;

				if (nv > 0 && s == GPO_AGG_AUTO)
					s = gpo_agg_choose(kt, nv, mn, mx, 0);
				expect_in = nv > 0 && kt != GPO_FLOAT32 && kt != GPO_FLOAT64 &&
					mx - mn < (uint64_t) GPO_AGG_DENSE_MAX_RANGE && s == GPO_AGG_DENSE;
			}
			bk.n = bv.n = hi - lo;
			bk.raw += lo;
			bk.valid += lo;
			bv.raw += lo;
			bv.valid += lo;
			flat_to_tvec(&bk, &tk, (part_kind) rng_below(PART_COUNT));
			flat_to_tvec(&bv, &tv, (part_kind) rng_below(PART_COUNT));
			test_ctx(&ctx, devs[f], f == 0 ? (int) rng_below(4) + 1 : 0);
			st = gpo_groupagg_run_add(&ctx, &run, &tk.v, with_values ? &tv.v : NULL, 0,
									  want, &ob.o, &added);
			expect(&c, st == GPO_OK, "batch %d: status %s (%s)", b, gpo_status_text(st), ctx.detail);
			expect(&c, added == expect_in, "batch %d [%lld, %lld): added %d, want %d",
				   b, (long long) lo, (long long) hi, added, expect_in);
			expect(&c, (run != NULL) == (started || expect_in), "batch %d: run kept", b);
			if (c.ok && added)
			{
				if (!started)
				{
					started = true;
					rmin = mn;
					rmax = mx;
				}
				memcpy(inkeys.raw + nin, keys.raw + lo, sizeof(uint64_t) * (hi - lo));
				memcpy(inkeys.valid + nin, keys.valid + lo, hi - lo);
				memcpy(invals.raw + nin, vals.raw + lo, sizeof(uint64_t) * (hi - lo));
				memcpy(invals.valid + nin, vals.valid + lo, hi - lo);
				nin += hi - lo;
			}
			tvec_free(&tk);
			tvec_free(&tv);
		}
		inkeys.n = invals.n = nin;
		ref = ref_groupagg(&inkeys, with_values ? &invals : NULL, &ng_ref);
		if (c.ok && run != NULL)
		{
			expect(&c, gpo_groupagg_run_face(run) == devs[f], "face");
			/* too little room: the count, and the run stays */
			if (ng_ref > 0)
			{
				ob.o.capacity = ng_ref - 1;
				st = gpo_groupagg_run_finish(&ctx, run, &ob.o, &ng);
				expect(&c, st == GPO_ERR_CAPACITY && ng == ng_ref,
					   "short capacity gave %s, ngroups %lld", gpo_status_text(st), (long long) ng);
				ob.o.capacity = n + 1;
			}
			ng = -1;
			st = gpo_groupagg_run_finish(&ctx, run, &ob.o, &ng);
			expect(&c, st == GPO_OK, "finish: status %s (%s)", gpo_status_text(st), ctx.detail);
			expect(&c, ng == ng_ref, "ngroups %lld want %lld", (long long) ng, (long long) ng_ref);
			if (c.ok)
				check_groups(&c, &ob.o, ref, ng, kt, with_values ? &invals : NULL, true);
		}
		gpo_groupagg_run_free(run);
		free(ref);
		outbuf_free(&ob);
		case_result(tg, c.ok, c.msg);
	}
	free(inkeys.raw);
	free(inkeys.valid);
	free(invals.raw);
	free(invals.valid);
	free(cut);
	flat_free(&keys);
	flat_free(&vals);
}

/*
 * gpo_groupagg_run_add_many: nv value columns (mixed types, each chunked
 * its own way, one of them rows only when rows_only) over one key column,
 * added batch by batch.  Every run must hold the groups of the reference
 * over the rows that went in, and the same bits as a run fed the same
 * column alone by gpo_groupagg_run_add (on the CPU face float sums and m2
 * included: the one-pass accumulation keeps the threads' blocks and their
 * order).
 */
static void
run_many_case(tgroup *tg, gpo_type kt, int nv, bool rows_only, int64_t n,
			  key_kind kind, int knull, int nb, int threads)
{
	static const gpo_type vtypes[] = {GPO_INT32, GPO_INT64, GPO_FLOAT32, GPO_FLOAT64};
	flat		keys,
				vals[4],
				inkeys,
				invals[4];
	int64_t    *cut = malloc(sizeof(int64_t) * (nb + 1));
	gpo_device	devs[2];
	int			nf = faces(tg, devs);

	flat_make(&keys, kt, n, kind, knull);
	for (int v = 0; v < nv; v++)
		flat_make(&vals[v], vtypes[rng_below(4)], n, (key_kind) rng_below(KEYS_COUNT),
				  (int) rng_below(3) * 20);
	for (int b = 0; b <= nb; b++)
		cut[b] = b == nb ? n : (int64_t) (n * b / nb);
	inkeys = keys;
	inkeys.raw = malloc(sizeof(uint64_t) * (n + 1));
	inkeys.valid = malloc(n + 1);
	for (int v = 0; v < nv; v++)
	{
		invals[v] = vals[v];
		invals[v].raw = malloc(sizeof(uint64_t) * (n + 1));
		invals[v].valid = malloc(n + 1);
	}
	for (int f = 0; f < nf; f++)
	{
		gpo_agg_run *runs[4] = {NULL, NULL, NULL, NULL};
		gpo_agg_run *alone[4] = {NULL, NULL, NULL, NULL};
		outbuf		want[4];
		tcase		c;
		gpo_ctx		ctx;
		int64_t		nin = 0;

		case_begin(&c, "groupagg run many %s keys %s/%s values %d%s n=%lld batches %d threads %d",
				   devs[f] == GPO_DEVICE_GPU ? "gpu" : "cpu", gpo_type_name(kt),
				   key_names[kind], nv, rows_only ? " (one rows only)" : "",
				   (long long) n, nb, threads);
		for (int v = 0; v < nv; v++)
			outbuf_make(&want[v], n + 1);
		for (int b = 0; b < nb && c.ok; b++)
		{
			flat		bk = keys;
			tvec		tk,
						tv[4];
			const gpo_vector *vp[4];
			gpo_agg_out wo[4];
			bool		added = false;
			gpo_status	st;

			bk.n = cut[b + 1] - cut[b];
			bk.raw += cut[b];
			bk.valid += cut[b];
			flat_to_tvec(&bk, &tk, (part_kind) rng_below(PART_COUNT));
			for (int v = 0; v < nv; v++)
			{
				flat		bv = vals[v];

				bv.n = bk.n;
				bv.raw += cut[b];
				bv.valid += cut[b];
				flat_to_tvec(&bv, &tv[v], (part_kind) rng_below(PART_COUNT));
				vp[v] = rows_only && v == 0 ? NULL : &tv[v].v;
				wo[v] = want[v].o;
			}
			test_ctx(&ctx, devs[f], threads);
			st = gpo_groupagg_run_add_many(&ctx, runs, nv, &tk.v, vp, 0, GPO_AGG_DENSE,
										   wo, &added);
			expect(&c, st == GPO_OK, "batch %d: status %s (%s)", b, gpo_status_text(st), ctx.detail);
			for (int v = 0; v < nv && c.ok; v++)
			{
				bool		one = false;

				test_ctx(&ctx, devs[f], threads);
				st = gpo_groupagg_run_add(&ctx, &alone[v], &tk.v, vp[v], 0, GPO_AGG_DENSE,
										  &wo[v], &one);
				expect(&c, st == GPO_OK && one == added, "batch %d value %d: alone %s added %d, many %d",
					   b, v, gpo_status_text(st), one, added);
				expect(&c, (runs[v] != NULL) == (alone[v] != NULL), "batch %d value %d: run kept", b, v);
			}
			if (added)
			{
				/* the rows that went in, for the reference */
				memmove(inkeys.raw + nin, keys.raw + cut[b], sizeof(uint64_t) * bk.n);
				memmove(inkeys.valid + nin, keys.valid + cut[b], bk.n);
				for (int v = 0; v < nv; v++)
				{
					memmove(invals[v].raw + nin, vals[v].raw + cut[b], sizeof(uint64_t) * bk.n);
					memmove(invals[v].valid + nin, vals[v].valid + cut[b], bk.n);
				}
				nin += bk.n;
			}
			tvec_free(&tk);
			for (int v = 0; v < nv; v++)
				tvec_free(&tv[v]);
		}
		inkeys.n = nin;
		for (int v = 0; v < nv; v++)
			invals[v].n = nin;
		for (int v = 0; v < nv && c.ok && runs[0] != NULL; v++)
		{
			outbuf		a;
			int64_t		ng = -1,
						ng1 = -1;
			gpo_status	st;

			outbuf_make(&a, n + 1);
			if (want[v].o.m2 == NULL)
			{
				free(a.o.m2);
				a.o.m2 = NULL;
			}
			else if (a.o.m2 == NULL)
				a.o.m2 = calloc(n + 2, 8);
			test_ctx(&ctx, devs[f], threads);
			st = gpo_groupagg_run_finish(&ctx, runs[v], &want[v].o, &ng);
			expect(&c, st == GPO_OK, "finish %d: %s (%s)", v, gpo_status_text(st), ctx.detail);
			st = gpo_groupagg_run_finish(&ctx, alone[v], &a.o, &ng1);
			expect(&c, st == GPO_OK && ng == ng1, "value %d: %lld groups, alone %lld",
				   v, (long long) ng, (long long) ng1);
			/*
			 * the GPU face's float sums depend on the order its atomics ran
			 * in: those are checked against the reference, within rounding
			 */
			for (int64_t g = 0; g < ng && c.ok; g++)
			{
				size_t		vw = gpo_type_size(vals[v].type);
				bool		gpu = devs[f] == GPO_DEVICE_GPU;

				expect(&c, a.o.rows[g] == want[v].o.rows[g] && a.o.count[g] == want[v].o.count[g] &&
					   memcmp(&a.o.isum[g], &want[v].o.isum[g], sizeof(gpo_int128)) == 0 &&
					   (gpu || memcmp(&a.o.fsum[g], &want[v].o.fsum[g], 8) == 0) &&
					   raw_in(a.o.min, vw, g) == raw_in(want[v].o.min, vw, g) &&
					   raw_in(a.o.max, vw, g) == raw_in(want[v].o.max, vw, g) &&
					   a.o.fflags[g] == want[v].o.fflags[g] &&
					   a.o.key_valid[g] == want[v].o.key_valid[g] &&
					   raw_in(a.o.keys, gpo_type_size(kt), g) == raw_in(want[v].o.keys, gpo_type_size(kt), g) &&
					   (a.o.m2 == NULL || gpu || memcmp(&a.o.m2[g], &want[v].o.m2[g], 8) == 0),
					   "value %d group %lld differs from the run fed alone", v, (long long) g);
			}
			/* and the reference over the rows that went in */
			if (c.ok)
			{
				int64_t		ng_ref;
				ref_group  *ref = ref_groupagg(&inkeys, rows_only && v == 0 ? NULL : &invals[v], &ng_ref);

				expect(&c, ng == ng_ref, "value %d: %lld groups, want %lld", v, (long long) ng,
					   (long long) ng_ref);
				if (c.ok)
					check_groups(&c, &want[v].o, ref, ng, kt,
								 rows_only && v == 0 ? NULL : &invals[v], true);
				free(ref);
			}
			outbuf_free(&a);
		}
		for (int v = 0; v < nv; v++)
		{
			gpo_groupagg_run_free(runs[v]);
			gpo_groupagg_run_free(alone[v]);
			outbuf_free(&want[v]);
		}
		case_result(tg, c.ok, c.msg);
	}
	for (int v = 0; v < nv; v++)
	{
		free(invals[v].raw);
		free(invals[v].valid);
		flat_free(&vals[v]);
	}
	free(inkeys.raw);
	free(inkeys.valid);
	flat_free(&keys);
	free(cut);
}

/*
 * gpo_gpu_set_memory_limit: a GPU group aggregation whose working memory
 * passes the bound fails as out of device memory, under auto it runs on the
 * CPU with the same groups, and without the bound the GPU takes it again.
 */
static void
memory_limit_case(tgroup *tg)
{
	const int64_t n = 1000000;
	tcase		c;
	gpo_ctx		ctx;
	outbuf		ob;
	tvec		k;
	int32_t    *a = malloc(sizeof(int32_t) * n);
	gpo_agg_strategy s;
	int64_t		ng = 0;
	int64_t		held = 0;
	int64_t		peak = 0;
	gpo_status	st;
	char		dummy;

	if (!have_gpu)
	{
		gpu_skip(tg);
		free(a);
		return;
	}
	case_begin(&c, "gpu memory limit");
	for (int64_t i = 0; i < n; i++)
		a[i] = (int32_t) (i % 100003) * 7;
	tvec_make_kind(&k, GPO_INT32, PART_ONE, n, false);
	tvec_fill(&k, a, NULL);
	outbuf_make(&ob, 100003);
	gpo_gpu_set_memory_limit(1024 * 1024);
	test_ctx(&ctx, GPO_DEVICE_GPU, 0);
	s = GPO_AGG_HASH;
	st = gpo_groupagg(&ctx, &k.v, NULL, 0, &s, &ob.o, &ng, &dummy, NULL);
	expect(&c, st == GPO_ERR_DEVICE_NOMEM, "1 MB bound, gpu: %s", gpo_status_text(st));
	test_ctx(&ctx, GPO_DEVICE_AUTO, 0);
	ctx.gpu_min_rows = 0;
	s = GPO_AGG_HASH;
	st = gpo_groupagg(&ctx, &k.v, NULL, 0, &s, &ob.o, &ng, &dummy, NULL);
	expect(&c, st == GPO_OK && ctx.used == GPO_DEVICE_CPU && ng == 100003,
		   "1 MB bound, auto: %s on %s, %lld groups", gpo_status_text(st),
		   ctx.used == GPO_DEVICE_CPU ? "cpu" : "gpu", (long long) ng);
	gpo_gpu_set_memory_limit(0);
	test_ctx(&ctx, GPO_DEVICE_GPU, 0);
	s = GPO_AGG_HASH;
	st = gpo_groupagg(&ctx, &k.v, NULL, 0, &s, &ob.o, &ng, &dummy, NULL);
	expect(&c, st == GPO_OK && ctx.used == GPO_DEVICE_GPU && ng == 100003 &&
		   ob.o.rows[1] == 10 && ob.o.keys != NULL,
		   "no bound, gpu: %s, %lld groups", gpo_status_text(st), (long long) ng);
	gpo_gpu_memory_use(&held, &peak);
	expect(&c, peak > 1024 * 1024 && held <= peak,
		   "pool held %lld, peak %lld", (long long) held, (long long) peak);
	tvec_free(&k);
	outbuf_free(&ob);
	free(a);
	case_result(tg, c.ok, c.msg);
}

/*
 * The CPU face's strategy under AUTO where the caller's estimate of the
 * groups is far too high (as the planner's is for an expression key): a
 * batch whose sample saw each of its few keys at least twice is hashed, one
 * with many keys sorted; the groups are right either way.
 */
static void
sample_strategy_case(tgroup *tg)
{
	const int64_t n = 200000;
	tcase		c;
	gpo_ctx		ctx;
	outbuf		ob;
	tvec		k;
	int64_t    *a = malloc(sizeof(int64_t) * n);
	gpo_agg_strategy s;
	int64_t		ng = 0;
	gpo_status	st;
	char		dummy;

	case_begin(&c, "groupagg: strategy from a sample under a high estimate");
	/* 20 keys a day apart in microseconds: a span too wide for dense */
	for (int64_t i = 0; i < n; i++)
		a[i] = (int64_t) ((i * 7919) % 20) * INT64_C(86400000000) - INT64_C(1000000000000);
	tvec_make_kind(&k, GPO_INT64, PART_UNEVEN, n, false);
	tvec_fill(&k, a, NULL);
	outbuf_make(&ob, n);
	test_ctx(&ctx, GPO_DEVICE_CPU, 2);
	s = GPO_AGG_AUTO;
	st = gpo_groupagg(&ctx, &k.v, NULL, 1000000, &s, &ob.o, &ng, &dummy, NULL);
	expect(&c, st == GPO_OK && s == GPO_AGG_HASH && ng == 20,
		   "20 keys: %s, strategy %s, %lld groups", gpo_status_text(st),
		   gpo_agg_strategy_name(s), (long long) ng);
	for (int64_t g = 0; st == GPO_OK && g < ng && g < 20; g++)
		expect(&c, ob.o.rows[g] == n / 20 &&
			   ((const int64_t *) ob.o.keys)[g] ==
			   g * INT64_C(86400000000) - INT64_C(1000000000000),
			   "group %lld: %lld rows", (long long) g, (long long) ob.o.rows[g]);
	tvec_free(&k);
	/* every row its own key: the sample sees them once, and sort stays */
	for (int64_t i = 0; i < n; i++)
		a[i] = (i * 7919) % n * INT64_C(86400000000);
	tvec_make_kind(&k, GPO_INT64, PART_ONE, n, false);
	tvec_fill(&k, a, NULL);
	s = GPO_AGG_AUTO;
	st = gpo_groupagg(&ctx, &k.v, NULL, 1000000, &s, &ob.o, &ng, &dummy, NULL);
	expect(&c, st == GPO_OK && s == GPO_AGG_SORT && ng == n,
		   "distinct keys: %s, strategy %s, %lld groups", gpo_status_text(st),
		   gpo_agg_strategy_name(s), (long long) ng);
	tvec_free(&k);
	outbuf_free(&ob);
	free(a);
	case_result(tg, c.ok, c.msg);
}

/* A run's argument checks. */
static void
run_errors_case(tgroup *tg)
{
	tcase		c;
	gpo_ctx		ctx;
	outbuf		ob;
	tvec		k32,
				k64;
	int32_t		a[4] = {1, 2, 3, 2};
	int64_t		b[4] = {1, 2, 3, 2};
	gpo_agg_run *run = NULL;
	bool		added = false;
	int64_t		ng = 0;
	gpo_status	st;

	case_begin(&c, "groupagg run: argument checks");
	outbuf_make(&ob, 8);
	tvec_make_kind(&k32, GPO_INT32, PART_ONE, 4, false);
	tvec_fill(&k32, a, NULL);
	tvec_make_kind(&k64, GPO_INT64, PART_ONE, 4, false);
	tvec_fill(&k64, b, NULL);
	test_ctx(&ctx, GPO_DEVICE_CPU, 1);
	st = gpo_groupagg_run_add(&ctx, NULL, &k32.v, NULL, 0, GPO_AGG_DENSE, &ob.o, &added);
	expect(&c, st == GPO_ERR_INVALID, "no run pointer gave %s", gpo_status_text(st));
	st = gpo_groupagg_run_add(&ctx, &run, &k32.v, NULL, 0, GPO_AGG_HASH, &ob.o, &added);
	expect(&c, st == GPO_OK && !added && run == NULL, "hash wanted: no run");
	st = gpo_groupagg_run_add(&ctx, &run, &k32.v, NULL, 0, GPO_AGG_DENSE, &ob.o, &added);
	expect(&c, st == GPO_OK && added && run != NULL, "dense started: %s", gpo_status_text(st));
	st = gpo_groupagg_run_add(&ctx, &run, &k64.v, NULL, 0, GPO_AGG_DENSE, &ob.o, &added);
	expect(&c, st == GPO_ERR_INVALID, "another key type gave %s", gpo_status_text(st));
	st = gpo_groupagg_run_add(&ctx, &run, &k32.v, &k64.v, 0, GPO_AGG_DENSE, &ob.o, &added);
	expect(&c, st == GPO_ERR_INVALID, "values on a run without gave %s", gpo_status_text(st));
	st = gpo_groupagg_run_finish(&ctx, NULL, &ob.o, &ng);
	expect(&c, st == GPO_ERR_INVALID, "finish without a run gave %s", gpo_status_text(st));
	st = gpo_groupagg_run_finish(&ctx, run, &ob.o, &ng);
	expect(&c, st == GPO_OK && ng == 3 && ob.o.rows[1] == 2, "finish: %s, %lld groups",
		   gpo_status_text(st), (long long) ng);
	gpo_groupagg_run_free(run);
	gpo_groupagg_run_free(NULL);
	tvec_free(&k32);
	tvec_free(&k64);
	outbuf_free(&ob);
	case_result(tg, c.ok, c.msg);
}

void
test_agg(void)
{
	static const gpo_type ktypes[] = {GPO_INT32, GPO_UINT32, GPO_INT64, GPO_FLOAT32, GPO_FLOAT64};
	static const gpo_type vtypes[] = {GPO_INT32, GPO_INT64, GPO_FLOAT32, GPO_FLOAT64};
	static const int64_t sizes[] = {0, 1, 2, 7, 100, 1000, 5000, 70000};
	tgroup		g;

	group_begin(&g, "agg sort");
	for (int t = 0; t < 5; t++)
		for (int k = 0; k < KEYS_COUNT; k++)
			for (int si = 0; si < 8; si++)
				sort_case(&g, ktypes[t], sizes[si], (key_kind) k,
						  (int) rng_below(3) * 10, (part_kind) rng_below(PART_COUNT),
						  (part_kind) rng_below(PART_COUNT));
	for (int p = 0; p < PART_COUNT; p++)
		sort_case(&g, GPO_INT32, 3000, KEYS_RANGE, 10, (part_kind) p, (part_kind) p);
	if (!quick)
		sort_case(&g, GPO_INT32, 12000000, KEYS_DISTINCT, 1, PART_UNEVEN, PART_ONE);
	else
		g.skipped++;
	group_end(&g);

	group_begin(&g, "agg segreduce");
	for (int t = 0; t < 4; t++)
		for (int p = 0; p < PART_COUNT; p++)
		{
			segreduce_case(&g, vtypes[t], (int64_t) rng_below(50), 10, 20, (part_kind) p);
			segreduce_case(&g, vtypes[t], 500, 40, 10, (part_kind) p);
			segreduce_case(&g, vtypes[t], 3, 60000, 30, (part_kind) p);
		}
	segreduce_case(&g, GPO_INT64, 0, 10, 0, PART_ONE);
	if (!quick)
		segreduce_case(&g, GPO_FLOAT64, 4, 6000000, 5, PART_UNEVEN);
	else
		g.skipped++;
	group_end(&g);

	group_begin(&g, "agg groupagg");
	for (int t = 0; t < 5; t++)
		for (int k = 0; k < KEYS_COUNT; k++)
			for (int si = 0; si < 8; si++)
			{
				int			vt = (int) rng_below(4);

				groupagg_case(&g, ktypes[t], vtypes[vt], !rng_chance(1, 6),
							  sizes[si], (key_kind) k, (int) rng_below(3) * 5,
							  (int) rng_below(3) * 20,
							  (part_kind) rng_below(PART_COUNT),
							  (part_kind) rng_below(PART_COUNT));
			}
	for (int p = 0; p < PART_COUNT; p++)
	{
		groupagg_case(&g, GPO_INT32, GPO_FLOAT64, true, 2000, KEYS_RANGE, 5, 5,
					  (part_kind) p, (part_kind) ((p + 1) % PART_COUNT));
		groupagg_case(&g, GPO_FLOAT64, GPO_FLOAT32, true, 2000, KEYS_EXTREME, 5, 50,
					  (part_kind) p, (part_kind) p);
	}
	/* all-NULL values, all-NULL keys */
	groupagg_case(&g, GPO_INT64, GPO_INT32, true, 3000, KEYS_SMALL, 0, 100, PART_MIXED, PART_UNEVEN);
	groupagg_case(&g, GPO_INT32, GPO_FLOAT64, true, 3000, KEYS_SMALL, 100, 0, PART_UNEVEN, PART_MIXED);
	overflow_case(&g);
	memory_limit_case(&g);
	sample_strategy_case(&g);
	group_end(&g);

	group_begin(&g, "agg groupagg many");
	for (int t = 0; t < 5; t++)
		for (int k = 0; k < KEYS_COUNT; k++)
			for (int si = 0; si < 8; si += 1 + (int) rng_below(2))
				many_case(&g, ktypes[t], sizes[si], (key_kind) k, (int) rng_below(3) * 5,
						  (int) rng_below(7), (part_kind) rng_below(PART_COUNT), 0);
	for (int p = 0; p < PART_COUNT; p++)
		many_case(&g, GPO_INT32, 5000, KEYS_RANGE, 5, 6, (part_kind) p, 0);
	many_case(&g, GPO_INT64, 3000, KEYS_SMALL, 100, 3, PART_MIXED, 0);
	/* few groups over a wide span, their count known: the one-pass dense groups */
	for (int p = 0; p < PART_COUNT; p++)
		many_case(&g, p % 2 ? GPO_INT64 : GPO_INT32, p % 3 ? 20000 : 70000, KEYS_SKEW,
				  (int) rng_below(3) * 5, 1 + (int) rng_below(6), (part_kind) p, -1);
	group_end(&g);

	group_begin(&g, "agg groupagg run");
	run_errors_case(&g);
	for (int t = 0; t < 5; t++)
		for (int k = 0; k < KEYS_COUNT; k++)
			for (int si = 0; si < 8; si++)
				run_case(&g, ktypes[t], vtypes[rng_below(4)], !rng_chance(1, 6),
						 sizes[si], (key_kind) k, (int) rng_below(3) * 5,
						 (int) rng_below(3) * 20, 1 + (int) rng_below(6),
						 rng_chance(1, 2) ? GPO_AGG_AUTO : GPO_AGG_DENSE);
	/* every batch from one distribution: most go in */
	for (int r = 0; r < 12; r++)
		run_case(&g, GPO_INT32, r % 2 ? GPO_FLOAT64 : GPO_INT64, true, 20000, KEYS_SMALL,
				 (int) rng_below(3) * 5, 10, 2 + (int) rng_below(8), GPO_AGG_DENSE);
	run_case(&g, GPO_INT64, GPO_INT32, true, 3000, KEYS_SMALL, 100, 0, 3, GPO_AGG_DENSE);
	if (!quick)
		run_case(&g, GPO_INT32, GPO_FLOAT64, true, 11000000, KEYS_RANGE, 1, 1, 5,
				 GPO_AGG_DENSE);
	else
		g.skipped++;
	/* several runs at once: one key column, up to 4 value columns */
	for (int r = 0; r < 24; r++)
		run_many_case(&g, r % 3 == 2 ? GPO_INT64 : GPO_INT32, 1 + (int) rng_below(4),
					  rng_chance(1, 4), r < 4 ? (int64_t) rng_below(3) : 1000 + (int64_t) rng_below(60000),
					  r % 2 ? KEYS_SMALL : KEYS_RANGE, (int) rng_below(3) * 5,
					  1 + (int) rng_below(4), 1 + (int) rng_below(4));
	run_many_case(&g, GPO_INT32, 4, false, 200000, KEYS_SMALL, 0, 3, 2);
	/* more groups than a thread's one-pass accumulators hold: one pass a run */
	run_many_case(&g, GPO_INT64, 4, false, 700000, KEYS_RANGE, 5, 1, 1);
	group_end(&g);

	group_begin(&g, "agg groupagg large");
	if (!quick)
	{
		groupagg_case(&g, GPO_INT32, GPO_FLOAT64, true, 11000000, KEYS_RANGE, 1, 1,
					  PART_UNEVEN, PART_ONE);
		groupagg_case(&g, GPO_INT64, GPO_INT64, true, 11000000, KEYS_SKEW, 1, 1,
					  PART_ONE, PART_UNEVEN);
	}
	else
		g.skipped += 2;
	group_end(&g);
}
