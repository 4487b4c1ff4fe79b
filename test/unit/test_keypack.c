/*
 * test_keypack.c
 *	  Unit tests of key packing (gpo_keypack.h): 1 to 4 key columns of every
 *	  key type with NULLs, NaN/-0.0/Inf and integer extremes, over every
 *	  partition kind, through the fast path, ranked columns and ranked pairs
 *	  (one-sort and two-sort), against a reference that sorts rows by their
 *	  key tuples; and multi-key grouping through gpo_groupagg.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpo_agg.h"
#include "gpo_internal.h"
#include "gpo_keypack.h"
#include "test_util.h"

/* How a key column is drawn. */
typedef enum kkind
{
	KK_SMALL = 0,				/* a few distinct values */
	KK_RANGE,					/* about n / 4 values in a range */
	KK_DISTINCT,				/* random bits of the full width */
	KK_EXTREME,					/* type min/max, 0, -1, NaNs, +-0, +-Inf */
	KK_ONE,						/* one value */
	KK_POOL,					/* random full-width values from a pool */
	KK_COUNT
} kkind;

/* One flat key column: raw bits (4-byte types in the low half) and valid bytes. */
typedef struct kcol
{
	gpo_type	type;
	uint64_t   *raw;
	uint8_t    *valid;
} kcol;

/* A set of key columns over n rows. */
typedef struct kset
{
	int			nkeys;
	int64_t		n;
	kcol		col[GPO_KEYPACK_MAX_KEYS];
} kset;

/* Raw bits of a random full-width value of type t (any bits, NaNs included). */
static uint64_t
wide_raw(gpo_type t)
{
	uint64_t	r = rng_next();

	return t == GPO_INT64 || t == GPO_FLOAT64 ? r : (uint32_t) r;
}

/* Raw bits of an integer-ish value v of type t. */
static uint64_t
small_raw(gpo_type t, int64_t v)
{
	float		f = (float) v / 4.0f;
	double		d = (double) v / 8.0;
	uint32_t	u;
	uint64_t	r;

	if (t == GPO_INT32 || t == GPO_UINT32)
		return (uint32_t) v;
	if (t == GPO_INT64)
		return (uint64_t) v;
	if (t == GPO_FLOAT32)
	{
		memcpy(&u, &f, 4);
		return u;
	}
	memcpy(&r, &d, 8);
	return r;
}

/* Raw bits of one extreme value of type t. */
static uint64_t
extreme_raw(gpo_type t)
{
	int			k = (int) rng_below(9);
	static const uint32_t fb[] = {0x00000000, 0x80000000, 0x7f800000, 0xff800000,
	0x3f800000, 0xbf800000, 0x00000001, 0x7fc00000, 0xffc00001};
	static const uint64_t db[] = {0, UINT64_C(0x8000000000000000),
		UINT64_C(0x7ff0000000000000), UINT64_C(0xfff0000000000000),
		UINT64_C(0x3ff0000000000000), UINT64_C(0xbff0000000000000), 1,
	UINT64_C(0x7ff8000000000000), UINT64_C(0xfff0000000000123)};
	static const int64_t ints[] = {0, -1, 1, 7, 0, -1, 1, 7, 3};

	if (t == GPO_INT32)
		return k == 0 ? (uint32_t) INT32_MIN : k == 1 ? (uint32_t) INT32_MAX : (uint32_t) ints[k];
	if (t == GPO_UINT32)
		return k == 0 ? 0 : k == 1 ? UINT32_MAX : (uint32_t) ints[k];
	if (t == GPO_INT64)
		return k == 0 ? (uint64_t) INT64_MIN : k == 1 ? (uint64_t) INT64_MAX :
			k == 2 ? (uint64_t) (INT64_MIN + 1) : (uint64_t) ints[k];
	if (t == GPO_FLOAT32)
		return fb[k];
	return db[k];
}

/* Fills column k of s with n rows of kind (pool: pool size), null_pct percent NULLs. */
static void
kcol_make(kset *s, int k, gpo_type t, kkind kind, int null_pct, int64_t pool)
{
	int64_t		n = s->n;
	int64_t		span = n / 4 + 1;
	int64_t		base = (int64_t) rng_below(1000) - 500;
	uint64_t   *pv = NULL;
	kcol	   *c = &s->col[k];

	c->type = t;
	c->raw = malloc(sizeof(uint64_t) * (n + 1));
	c->valid = malloc(n + 1);
	if (kind == KK_POOL)
	{
		pv = malloc(sizeof(uint64_t) * pool);
		for (int64_t i = 0; i < pool; i++)
			pv[i] = wide_raw(t);
	}
	for (int64_t i = 0; i < n; i++)
	{
		switch (kind)
		{
			case KK_SMALL:
				c->raw[i] = small_raw(t, base + (int64_t) rng_below(7));
				break;
			case KK_RANGE:
				c->raw[i] = small_raw(t, base + (int64_t) rng_below(span));
				break;
			case KK_DISTINCT:
				c->raw[i] = wide_raw(t);
				break;
			case KK_EXTREME:
				c->raw[i] = extreme_raw(t);
				break;
			case KK_POOL:
				c->raw[i] = pv[rng_below(pool)];
				break;
			default:
				c->raw[i] = small_raw(t, 42);
				break;
		}
		c->valid[i] = !(null_pct > 0 && (int) rng_below(100) < null_pct);
	}
	free(pv);
}

/* Frees the columns of s. */
static void
kset_free(kset *s)
{
	for (int k = 0; k < s->nkeys; k++)
	{
		free(s->col[k].raw);
		free(s->col[k].valid);
	}
}

/* Copies column c into a tvec of partition kind (validity if any NULL, sometimes anyway). */
static void
kcol_to_tvec(const kcol *c, int64_t n, tvec *t, part_kind kind)
{
	size_t		w = gpo_type_size(c->type);
	uint8_t    *buf = malloc(w * (n + 1));
	bool		anynull = false;

	for (int64_t i = 0; i < n; i++)
	{
		uint32_t	u = (uint32_t) c->raw[i];

		if (w == 8)
			memcpy(buf + 8 * i, &c->raw[i], 8);
		else
			memcpy(buf + 4 * i, &u, 4);
		anynull |= !c->valid[i];
	}
	tvec_make_kind(t, c->type, kind, n, anynull || rng_chance(1, 4));
	tvec_fill(t, buf, c->valid);
	free(buf);
}

/* Tuple comparison of rows a and b of s (NULL after every value). */
static int
cmp_tuple(const kset *s, int64_t a, int64_t b)
{
	for (int k = 0; k < s->nkeys; k++)
	{
		const kcol *c = &s->col[k];
		int			d;

		if (c->valid[a] != c->valid[b])
			return c->valid[a] ? -1 : 1;
		if (c->valid[a] && (d = key_cmp_raw(c->type, c->raw[a], c->raw[b], true)) != 0)
			return d;
	}
	return 0;
}

/* qsort context (single-threaded tests). */
static const kset *sort_set;

/* Reference order: by tuple, then by row. */
static int
ref_order(const void *pa, const void *pb)
{
	int64_t		a = *(const int64_t *) pa,
				b = *(const int64_t *) pb;
	int			c = cmp_tuple(sort_set, a, b);

	return c != 0 ? c : a < b ? -1 : a > b;
}

/* Rows of s in reference order (malloc'd). */
static int64_t *
ref_sort(const kset *s)
{
	int64_t    *perm = malloc(sizeof(int64_t) * (s->n + 1));

	for (int64_t i = 0; i < s->n; i++)
		perm[i] = i;
	sort_set = s;
	qsort(perm, s->n, sizeof(int64_t), ref_order);
	return perm;
}

/* Checks decoded keys (some arrays not wanted) of rows with packed keys p against s. */
static void
check_decode(tcase *c, const kset *s, const gpo_keypack *kp, const int64_t *p)
{
	void	   *vals[GPO_KEYPACK_MAX_KEYS];
	uint8_t    *valid[GPO_KEYPACK_MAX_KEYS];
	int64_t		n = s->n;

	for (int k = 0; k < s->nkeys; k++)
	{
		vals[k] = rng_chance(1, 8) ? NULL : malloc(8 * (n + 1));
		valid[k] = rng_chance(1, 8) ? NULL : malloc(n + 1);
	}
	gpo_keypack_decode(kp, n, p, vals, valid);
	for (int k = 0; k < s->nkeys && c->ok; k++)
	{
		const kcol *col = &s->col[k];
		size_t		w = gpo_type_size(col->type);

		for (int64_t i = 0; i < n && c->ok; i++)
		{
			uint64_t	got = 0,
						want = col->valid[i] ? key_canon(col->type, col->raw[i], true) : 0;

			if (vals[k] != NULL)
			{
				memcpy(&got, (char *) vals[k] + w * i, w);
				expect(c, got == want, "decode key %d row %lld: %llx want %llx", k,
					   (long long) i, (unsigned long long) got, (unsigned long long) want);
			}
			if (valid[k] != NULL)
				expect(c, valid[k][i] == col->valid[i], "decode key %d row %lld validity",
					   k, (long long) i);
		}
	}
	for (int k = 0; k < s->nkeys; k++)
	{
		free(vals[k]);
		free(valid[k]);
	}
}

/*
 * Packs s (key partitions kp_key, packed partition pp) under device dev and
 * checks: equal packed <=> equal tuples, packed order = tuple order, packed
 * >= 0, decode, spare capacity untouched.
 */
static void
pack_case(tgroup *tg, const kset *s, const int64_t *perm, part_kind pk,
		  part_kind pp, gpo_device dev, const char *what)
{
	tvec		tk[GPO_KEYPACK_MAX_KEYS],
				tp;
	gpo_vector	kv[GPO_KEYPACK_MAX_KEYS];
	gpo_keypack *kp = (gpo_keypack *) &tp;	/* must become a packing or NULL */
	int64_t		n = s->n;
	int64_t    *p = malloc(sizeof(int64_t) * (n + 3));
	gpo_ctx		ctx;
	tcase		c;
	gpo_status	st;

	for (int k = 0; k < s->nkeys; k++)
	{
		kcol_to_tvec(&s->col[k], n, &tk[k], rng_chance(1, 2) ? pk : random_kind(n));
		kv[k] = tk[k].v;
	}
	tvec_make_kind(&tp, GPO_INT64, pp, n + (int64_t) rng_below(3), false);
	tvec_sentinel(&tp);
	test_ctx(&ctx, dev, dev == GPO_DEVICE_CPU ? (int) rng_below(4) + 1 : 0);
	case_begin(&c, "keypack %s %s nkeys %d n=%lld types %s/%s/%s/%s parts %s/%s",
			   dev == GPO_DEVICE_GPU ? "gpu" : dev == GPO_DEVICE_CPU ? "cpu" : "auto",
			   what, s->nkeys, (long long) n,
			   gpo_type_name(s->col[0].type),
			   s->nkeys > 1 ? gpo_type_name(s->col[1].type) : "-",
			   s->nkeys > 2 ? gpo_type_name(s->col[2].type) : "-",
			   s->nkeys > 3 ? gpo_type_name(s->col[3].type) : "-",
			   part_name(pk), part_name(pp));
	st = gpo_keypack_build(&ctx, s->nkeys, kv, &tp.v, &kp);
	if (st != GPO_OK)
	{
		expect(&c, kp == NULL, "info not NULL after failure");
		kp = NULL;
	}
	expect(&c, st == GPO_OK && kp != NULL, "status %s (%s)", gpo_status_text(st), ctx.detail);
	if (c.ok)
	{
		expect(&c, gpo_keypack_nkeys(kp) == s->nkeys, "nkeys");
		for (int k = 0; k < s->nkeys; k++)
			expect(&c, gpo_keypack_type(kp, k) == s->col[k].type, "type of key %d", k);
		expect(&c, tvec_spare_untouched(&tp, n), "spare capacity written");
		tvec_read(&tp, p, NULL);
		for (int64_t i = 0; i < n && c.ok; i++)
			expect(&c, p[i] >= 0, "row %lld: packed %lld < 0", (long long) i, (long long) p[i]);
		for (int64_t j = 1; j < n && c.ok; j++)
		{
			int64_t		a = perm[j - 1],
						b = perm[j];

			if (cmp_tuple(s, a, b) == 0)
				expect(&c, p[a] == p[b], "rows %lld, %lld: equal tuples, packed %llx != %llx",
					   (long long) a, (long long) b, (unsigned long long) p[a],
					   (unsigned long long) p[b]);
			else
				expect(&c, p[a] < p[b], "rows %lld, %lld: tuple order, packed %llx >= %llx",
					   (long long) a, (long long) b, (unsigned long long) p[a],
					   (unsigned long long) p[b]);
		}
		if (c.ok)
			check_decode(&c, s, kp, p);
	}
	case_result(tg, c.ok, c.msg);
	gpo_keypack_free(kp);
	for (int k = 0; k < s->nkeys; k++)
		tvec_free(&tk[k]);
	tvec_free(&tp);
	free(p);
}

/* Packs rows [lo, hi) of s into packed[lo ..] (CPU face); returns the packing. */
static gpo_keypack *
pack_rows(const kset *s, int64_t lo, int64_t hi, int64_t *packed)
{
	kset		part = *s;
	tvec		tk[GPO_KEYPACK_MAX_KEYS],
				tp;
	gpo_vector	kv[GPO_KEYPACK_MAX_KEYS];
	gpo_keypack *kp = NULL;
	gpo_ctx		ctx;

	part.n = hi - lo;
	for (int k = 0; k < s->nkeys; k++)
	{
		part.col[k].raw += lo;
		part.col[k].valid += lo;
		kcol_to_tvec(&part.col[k], part.n, &tk[k], random_kind(part.n));
		kv[k] = tk[k].v;
	}
	tvec_make_kind(&tp, GPO_INT64, random_kind(part.n), part.n, false);
	test_ctx(&ctx, GPO_DEVICE_CPU, (int) rng_below(4) + 1);
	if (gpo_keypack_build(&ctx, s->nkeys, kv, &tp.v, &kp) == GPO_OK)
		tvec_read(&tp, packed + lo, NULL);
	for (int k = 0; k < s->nkeys; k++)
		tvec_free(&tk[k]);
	tvec_free(&tp);
	return kp;
}

/*
 * gpo_keypack_same on two batches of one key set (rows split at a random
 * point): when it says the packings are the same, the packed keys of both
 * batches together must group and order every tuple as the reference does.
 * A copy of the rows (in another order) packs the same when the packing
 * offsets every key; a shifted copy of a column never does.
 */
static void
same_case(tgroup *tg, kset *s, bool expect_same_copy)
{
	int64_t		n = s->n;
	int64_t		cut = (int64_t) rng_below((uint64_t) n + 1);
	int64_t    *packed = malloc(sizeof(int64_t) * (n + 1));
	int64_t    *perm = ref_sort(s);
	gpo_keypack *a = pack_rows(s, 0, cut, packed);
	gpo_keypack *b = pack_rows(s, cut, n, packed);
	gpo_keypack *whole;
	gpo_keypack *again;
	tcase		c;

	case_begin(&c, "keypack same: nkeys %d n=%lld cut %lld", s->nkeys, (long long) n,
			   (long long) cut);
	expect(&c, a != NULL && b != NULL, "packing failed");
	if (c.ok && gpo_keypack_same(a, b))
	{
		expect(&c, gpo_keypack_same(b, a), "not symmetric");
		for (int64_t j = 1; j < n && c.ok; j++)
		{
			int64_t		x = perm[j - 1],
						y = perm[j];

			if (cmp_tuple(s, x, y) == 0)
				expect(&c, packed[x] == packed[y], "rows %lld, %lld: equal tuples, packed apart",
					   (long long) x, (long long) y);
			else
				expect(&c, packed[x] < packed[y], "rows %lld, %lld: order", (long long) x,
					   (long long) y);
		}
	}
	whole = pack_rows(s, 0, n, packed);
	again = pack_rows(s, 0, n, packed);
	if (c.ok && expect_same_copy)
		expect(&c, gpo_keypack_same(whole, again), "the same rows packed apart");
	expect(&c, !gpo_keypack_same(whole, NULL), "same as NULL");
	/* a shifted first column: another offset */
	if (c.ok && n > 0 && s->col[0].type == GPO_INT32)
	{
		gpo_keypack *shifted;

		for (int64_t i = 0; i < n; i++)
			s->col[0].raw[i] = (uint32_t) ((int32_t) s->col[0].raw[i] + 7);
		shifted = pack_rows(s, 0, n, packed);
		expect(&c, !gpo_keypack_same(whole, shifted) || !expect_same_copy,
			   "a shifted column packs the same");
		gpo_keypack_free(shifted);
	}
	case_result(tg, c.ok, c.msg);
	gpo_keypack_free(a);
	gpo_keypack_free(b);
	gpo_keypack_free(whole);
	gpo_keypack_free(again);
	free(perm);
	free(packed);
}

/* The devices to run: CPU with random threads, AUTO, and GPU when present. */
static int
devices(tgroup *g, gpo_device *list)
{
	list[0] = GPO_DEVICE_CPU;
	list[1] = GPO_DEVICE_AUTO;
	if (have_gpu)
	{
		list[2] = GPO_DEVICE_GPU;
		return 3;
	}
	gpu_skip(g);
	return 2;
}

/* A key set of n rows: column k of types[k], kinds[k] (random where negative). */
static void
kset_make(kset *s, int nkeys, int64_t n, const int *types, const int *kinds,
		  int null_pct, int64_t pool)
{
	s->nkeys = nkeys;
	s->n = n;
	for (int k = 0; k < nkeys; k++)
	{
		gpo_type	t = types && types[k] >= 0 ? (gpo_type) types[k] :
			(gpo_type) rng_below(5);
		kkind		kind = kinds && kinds[k] >= 0 ? (kkind) kinds[k] :
			(kkind) rng_below(KK_COUNT);
		int			np = null_pct >= 0 ? null_pct : (int) rng_below(4) * 10;

		if (null_pct < 0 && rng_chance(1, 20))
			np = 100;
		kcol_make(s, k, t, kind, np, pool > 0 ? pool : 1 + (int64_t) rng_below(n + 1));
	}
}

/* Packs one key set on every device, with the given partitions. */
static void
set_cases(tgroup *g, kset *s, part_kind pk, part_kind pp, const char *what)
{
	int64_t    *perm = ref_sort(s);
	gpo_device	devs[3];
	int			nd = devices(g, devs);

	for (int d = 0; d < nd; d++)
		pack_case(g, s, perm, pk, pp, devs[d], what);
	free(perm);
	kset_free(s);
}

/* GROUP BY the packed key with gpo_groupagg: groups and row counts as the reference's. */
static void
groupagg_case(tgroup *tg, int nkeys, int64_t n)
{
	kset		s;
	int64_t    *perm;
	tvec		tk[GPO_KEYPACK_MAX_KEYS],
				tp;
	gpo_vector	kv[GPO_KEYPACK_MAX_KEYS];
	gpo_keypack *kp = NULL;
	gpo_ctx		ctx;
	tcase		c;
	gpo_status	st;
	gpo_agg_out o;
	gpo_agg_strategy strat = GPO_AGG_AUTO;
	int64_t		ng = 0;
	char		dummy;

	kset_make(&s, nkeys, n, NULL, NULL, -1, 0);
	perm = ref_sort(&s);
	for (int k = 0; k < nkeys; k++)
	{
		kcol_to_tvec(&s.col[k], n, &tk[k], random_kind(n));
		kv[k] = tk[k].v;
	}
	tvec_make_kind(&tp, GPO_INT64, random_kind(n), n, false);
	memset(&o, 0, sizeof(o));
	o.capacity = n;
	o.keys = malloc(8 * (n + 1));
	o.rows = malloc(8 * (n + 1));
	test_ctx(&ctx, GPO_DEVICE_CPU, 0);
	case_begin(&c, "keypack + groupagg nkeys %d n=%lld", nkeys, (long long) n);
	st = gpo_keypack_build(&ctx, nkeys, kv, &tp.v, &kp);
	expect(&c, st == GPO_OK, "keypack status %s (%s)", gpo_status_text(st), ctx.detail);
	if (c.ok)
	{
		st = gpo_groupagg(&ctx, &tp.v, NULL, 0, &strat, &o, &ng, &dummy, NULL);
		expect(&c, st == GPO_OK, "groupagg status %s (%s)", gpo_status_text(st), ctx.detail);
	}
	if (c.ok)
	{
		void	   *vals[GPO_KEYPACK_MAX_KEYS];
		uint8_t    *valid[GPO_KEYPACK_MAX_KEYS];
		int64_t		g = -1;

		for (int k = 0; k < nkeys; k++)
		{
			vals[k] = malloc(8 * (ng + 1));
			valid[k] = malloc(ng + 1);
		}
		gpo_keypack_decode(kp, ng, (const int64_t *) o.keys, vals, valid);
		/* walk the reference groups alongside the output groups */
		for (int64_t j = 0; j < n && c.ok; j++)
		{
			int64_t		r = perm[j];

			if (j == 0 || cmp_tuple(&s, perm[j - 1], r) != 0)
			{
				g++;
				expect(&c, g < ng, "more groups than %lld", (long long) ng);
				for (int k = 0; k < nkeys && c.ok; k++)
				{
					uint64_t	got = 0;
					size_t		w = gpo_type_size(s.col[k].type);

					memcpy(&got, (char *) vals[k] + w * g, w);
					expect(&c, valid[k][g] == s.col[k].valid[r] &&
						   got == (s.col[k].valid[r] ? key_canon(s.col[k].type, s.col[k].raw[r], true) : 0),
						   "group %lld key %d", (long long) g, k);
				}
			}
			if (c.ok && (j + 1 == n || cmp_tuple(&s, perm[j + 1], r) != 0))
			{
				int64_t		first = j;

				while (first > 0 && cmp_tuple(&s, perm[first - 1], r) == 0)
					first--;
				expect(&c, o.rows[g] == j - first + 1, "group %lld rows", (long long) g);
			}
		}
		expect(&c, g + 1 == ng, "groups %lld want %lld", (long long) ng, (long long) g + 1);
		for (int k = 0; k < nkeys; k++)
		{
			free(vals[k]);
			free(valid[k]);
		}
	}
	case_result(tg, c.ok, c.msg);
	gpo_keypack_free(kp);
	free(o.keys);
	free(o.rows);
	for (int k = 0; k < nkeys; k++)
		tvec_free(&tk[k]);
	tvec_free(&tp);
	free(perm);
	kset_free(&s);
}

/* Bad arguments: each gives its status and leaves *info NULL. */
static void
error_cases(tgroup *tg)
{
	tvec		a,
				b,
				p,
				small;
	gpo_vector	kv[GPO_KEYPACK_MAX_KEYS + 1];
	gpo_keypack *kp;
	gpo_ctx		ctx;
	tcase		c;
	gpo_status	st[6];

	tvec_make_kind(&a, GPO_INT32, PART_UNEVEN, 100, false);
	tvec_make_kind(&b, GPO_INT64, PART_UNEVEN, 99, false);
	tvec_make_kind(&p, GPO_INT64, PART_ONE, 100, false);
	tvec_make_kind(&small, GPO_INT64, PART_ONE, 99, false);
	memset(a.v.chunks[0].data, 0, 4 * a.v.chunks[0].n);
	for (int k = 0; k <= GPO_KEYPACK_MAX_KEYS; k++)
		kv[k] = a.v;
	test_ctx(&ctx, GPO_DEVICE_CPU, 0);
	case_begin(&c, "keypack bad arguments");
	kp = (gpo_keypack *) &a;
	st[0] = gpo_keypack_build(&ctx, 0, kv, &p.v, &kp);
	expect(&c, kp == NULL, "info not cleared");
	st[1] = gpo_keypack_build(&ctx, GPO_KEYPACK_MAX_KEYS + 1, kv, &p.v, &kp);
	kv[1] = b.v;
	st[2] = gpo_keypack_build(&ctx, 2, kv, &p.v, &kp);
	kv[1] = a.v;
	st[3] = gpo_keypack_build(&ctx, 2, kv, &a.v, &kp);
	st[4] = gpo_keypack_build(&ctx, 2, kv, &small.v, &kp);
	st[5] = gpo_keypack_build(&ctx, 2, kv, &p.v, NULL);
	for (int i = 0; i < 6; i++)
		expect(&c, st[i] == (i == 4 ? GPO_ERR_CAPACITY : GPO_ERR_INVALID),
			   "call %d gave %s", i, gpo_status_text(st[i]));
	expect(&c, kp == NULL, "info not NULL after failure");
	case_result(tg, c.ok, c.msg);
	tvec_free(&a);
	tvec_free(&b);
	tvec_free(&p);
	tvec_free(&small);
}

/* Runs the key packing tests. */
void
test_keypack(void)
{
	static const int64_t sizes[] = {0, 1, 2, 7, 100, 1000, 5000, 70000};
	tgroup		g;
	kset		s;

	group_begin(&g, "keypack");
	error_cases(&g);

	/* random columns: every size, 1 to GPO_KEYPACK_MAX_KEYS keys */
	for (int nk = 1; nk <= GPO_KEYPACK_MAX_KEYS; nk++)
		for (int si = 0; si < 8; si++)
			for (int rep = 0; rep < (sizes[si] > 5000 ? 2 : 5); rep++)
			{
				bool		tiny = rng_chance(1, 4);

				gpo_rows_per_block = tiny ? 1 + (int64_t) rng_below(3000) : 16384;
				kset_make(&s, nk, sizes[si], NULL, NULL, -1, 0);
				set_cases(&g, &s, random_kind(sizes[si]), random_kind(sizes[si]), "random");
				gpo_rows_per_block = 16384;
			}

	/* gpo_keypack_same: random sets, and small int32 keys (offset packings) */
	for (int rep = 0; rep < 40; rep++)
	{
		kset_make(&s, 1 + (int) rng_below(GPO_KEYPACK_MAX_KEYS), 1 + (int64_t) rng_below(3000),
				  NULL, NULL, -1, 0);
		same_case(&g, &s, false);
		kset_free(&s);
	}
	for (int rep = 0; rep < 10; rep++)
	{
		int			types[4] = {GPO_INT32, GPO_INT32, GPO_INT32, GPO_INT32};
		int			kinds[4] = {KK_SMALL, KK_SMALL, KK_SMALL, KK_SMALL};

		kset_make(&s, 2 + (int) rng_below(3), 2000, types, kinds, 10, 0);
		same_case(&g, &s, true);
		kset_free(&s);
	}

	/* every partition kind, keys and output */
	for (int p = 0; p < PART_COUNT; p++)
	{
		kset_make(&s, 3, 3000, NULL, NULL, -1, 0);
		set_cases(&g, &s, (part_kind) p, (part_kind) ((p + 3) % PART_COUNT), "parts");
	}

	/* extremes and wide columns: the ranked-column path */
	for (int t = 0; t < 5; t++)
	{
		int			types[4] = {t, GPO_INT64, t, GPO_INT32};
		int			ex[4] = {KK_EXTREME, KK_EXTREME, KK_EXTREME, KK_EXTREME};
		int			wide[4] = {KK_DISTINCT, KK_DISTINCT, KK_SMALL, KK_DISTINCT};

		kset_make(&s, 4, 5000, types, ex, 10, 0);
		set_cases(&g, &s, random_kind(5000), random_kind(5000), "extremes");
		kset_make(&s, 2, 5000, types, wide, 0, 0);
		set_cases(&g, &s, random_kind(5000), random_kind(5000), "wide");
		kset_make(&s, 3, 5000, types, wide, 20, 0);
		set_cases(&g, &s, random_kind(5000), random_kind(5000), "wide nulls");
	}

	/* 8 keys of extreme and of all-distinct values: pairs of pairs ranked */
	{
		int			types[8] = {GPO_INT64, GPO_FLOAT64, GPO_INT32, GPO_FLOAT32,
		GPO_UINT32, GPO_INT64, GPO_FLOAT64, GPO_INT32};
		int			ex[8] = {KK_EXTREME, KK_EXTREME, KK_EXTREME, KK_EXTREME,
		KK_EXTREME, KK_EXTREME, KK_EXTREME, KK_EXTREME};
		int			wide[8] = {KK_DISTINCT, KK_DISTINCT, KK_DISTINCT, KK_DISTINCT,
		KK_DISTINCT, KK_DISTINCT, KK_DISTINCT, KK_DISTINCT};

		kset_make(&s, 8, 5000, types, ex, 10, 0);
		set_cases(&g, &s, random_kind(5000), random_kind(5000), "8 extremes");
		kset_make(&s, 8, 5000, types, wide, 5, 0);
		set_cases(&g, &s, random_kind(5000), random_kind(5000), "8 wide");
	}

	/* many distinct values in 4 columns: ranked pairs (one sort, then two) */
	for (int twosort = 0; twosort < 2; twosort++)
	{
		int			types[4] = {GPO_INT64, GPO_FLOAT64, GPO_INT32, GPO_FLOAT32};
		int			pool[4] = {KK_POOL, KK_POOL, KK_POOL, KK_POOL};

		gpo_keypack_pair_bits = twosort ? 8 : 64;
		kset_make(&s, 4, 200000, types, pool, 0, 100000);
		set_cases(&g, &s, PART_UNEVEN, PART_MIXED, twosort ? "pairs two-sort" : "pairs");
		kset_make(&s, 4, 150000, NULL, pool, 5, 70000);
		set_cases(&g, &s, random_kind(150000), random_kind(150000),
				  twosort ? "pairs two-sort nulls" : "pairs nulls");
		kset_make(&s, 4, 3000, NULL, NULL, -1, 0);
		set_cases(&g, &s, random_kind(3000), random_kind(3000),
				  twosort ? "random two-sort" : "random");
		gpo_keypack_pair_bits = 64;
	}

	/*
	 * rank leaves of more distinct values than the small sets take, few
	 * against the rows: the hash sets (keypack_rank_hash.c); and of a third
	 * of the rows distinct, where a thread's set gives up midway and the
	 * sort ranks them
	 */
	{
		static const int64_t pools[] = {1500, 5000, 20000, 20000};

		for (int p = 0; p < 4; p++)
		{
			int			types[3] = {GPO_INT64, p % 2 ? GPO_FLOAT64 : GPO_FLOAT32, GPO_INT32};
			int			kinds[3] = {KK_POOL, KK_POOL, KK_SMALL};

			gpo_rows_per_block = p == 3 ? 1 + (int64_t) rng_below(3000) : 16384;
			kset_make(&s, 3, 60000 + 20000 * p, types, kinds, p * 5, pools[p]);
			set_cases(&g, &s, (part_kind) (p % PART_COUNT), random_kind(60000), "hash ranks");
			kset_make(&s, 2, 60000, types, kinds, 10, 40000);
			set_cases(&g, &s, random_kind(60000), (part_kind) (p % PART_COUNT),
					  "hash ranks give up");
			gpo_rows_per_block = 16384;
		}
	}

	/* ranks and (nested) pairs forced on small inputs, every partition kind */
	for (int rep = 0; rep < 60; rep++)
	{
		int64_t		n = sizes[rng_below(8)];
		part_kind	pk = (part_kind) (rep % PART_COUNT);

		gpo_keypack_fit_bits = (int) rng_below(24);
		gpo_keypack_pair_bits = rng_chance(1, 2) ? 64 : (int) rng_below(40);
		kset_make(&s, 1 + (int) rng_below(GPO_KEYPACK_MAX_KEYS), n, NULL, NULL, -1, 0);
		set_cases(&g, &s, pk, random_kind(n), "forced");
	}
	gpo_keypack_fit_bits = 63;
	gpo_keypack_pair_bits = 64;

	/* multi-key GROUP BY through gpo_groupagg */
	for (int nk = 1; nk <= GPO_KEYPACK_MAX_KEYS; nk++)
		for (int si = 0; si < 8; si++)
			groupagg_case(&g, nk, sizes[si]);

	/* a few million rows: the fast path, and ranked pairs */
	{
		int			types[4] = {GPO_INT32, GPO_INT64, GPO_FLOAT64, GPO_UINT32};
		int			kinds[4] = {KK_RANGE, KK_SMALL, KK_POOL, KK_POOL};

		kset_make(&s, 2, 3000000, types, kinds, 1, 0);
		set_cases(&g, &s, PART_UNEVEN, PART_ONE, "large");
		kset_make(&s, 4, 3000000, types, kinds, 1, 3000000);
		set_cases(&g, &s, PART_ONE, PART_UNEVEN, "large wide");
	}
	if (!quick)
	{
		int			types[2] = {GPO_INT64, GPO_INT32};
		int			kinds[2] = {KK_RANGE, KK_DISTINCT};

		kset_make(&s, 2, 12000000, types, kinds, 1, 0);
		set_cases(&g, &s, PART_UNEVEN, PART_UNEVEN, "huge");
	}
	else
		g.skipped++;
	group_end(&g);
}
