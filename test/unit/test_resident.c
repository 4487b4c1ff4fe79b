/*
 * test_resident.c
 *	  Unit tests of the kept column sets (gpo_resident.h): puts, their
 *	  validity helpers and accessors; random filtered group aggregations
 *	  over several sets of uneven sizes (NULLs, NaN, infinities, -0.0 keys,
 *	  integer extremes, empty sets, random AND/OR/NOT/NULLTEST programs, the
 *	  zero key, no request) against a naive reference (a per-row program
 *	  evaluator and a sort of the passing rows); a hand-written case, short
 *	  outputs, concurrent calls over the same sets, and rejected arguments.
 *	  Every case runs on the CPU face, and on the GPU face when there is one.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpo_internal.h"
#include "gpo_resident_internal.h"
#include "test_resident_util.h"
#include "test_util.h"

/* Columns of a random schema at most. */
#define MAX_COLS	6
/* Sets of a random case at most. */
#define MAX_SETS	6
/* Sets of the many-sets cases (one set a thread on the CPU face). */
#define MANY_SETS	40
/* Nodes of a random program at most (depth 4, fan-out 4: at most 85). */
#define MAX_NODES	128
/* Requests of a random query at most. */
#define MAX_REQS	5

/* Reference truth values. */
#define RF	0
#define RT	1
#define RN	2

/* A test column: raw bits a row (4-byte types zero-extended), valid bytes, the vector. */
typedef struct tcol
{
	gpo_type	type;
	uint64_t   *raw;
	uint8_t    *valid;
	tvec		t;
} tcol;

/* A test set: n rows of ncols columns, and its kept copies on each face. */
typedef struct tset
{
	int64_t		n;
	int			ncols;
	tcol		cols[MAX_COLS];
	gpo_resident *kept[2];		/* [0] CPU, [1] GPU (NULL without a GPU) */
} tset;

/* One passing row: its set and row. */
typedef struct prow
{
	const tset *set;
	int64_t		i;
} prow;

/* Reference aggregates of one group for one request. */
typedef struct ragg
{
	int64_t		rows;
	int64_t		count;
	__int128	isum;
	double		fsum;			/* of the finite values */
	double		fabs;			/* of |finite values|, for the tolerance */
	double		mean;			/* of the finite values, and their squared */
	double		m2;				/* deviations from it (Welford) */
	double		fsq;			/* of their squares, for the tolerance */
	int64_t		nfin;			/* finite values */
	uint64_t	mn,
				mx;				/* raw bits, canonical NaN */
	uint8_t		fflags;
} ragg;

/* Reference groups: key order, NULL key last; aggs[g * nreq + r]. */
typedef struct rgroups
{
	int64_t		ng;
	gpo_type	kt;
	bool	   *kvalid;
	uint64_t   *key;			/* canonical raw bits */
	ragg	   *aggs;
	int			nreq;			/* max(nreqs, 1) */
	uint64_t	span;			/* key code span of the keyed groups */
} rgroups;

/* The key column of the reference sort (-1: the zero key). */
static int	sort_key_col;

/* The value of raw bits of an integer type, widened. */
static int64_t
int_of(gpo_type t, uint64_t r)
{
	switch (t)
	{
		case GPO_INT32:
			return (int32_t) (uint32_t) r;
		case GPO_UINT32:
			return (uint32_t) r;
		case GPO_UINT8:
			return (uint8_t) r;
		default:
			return (int64_t) r;
	}
}

/* A NaN with the sign bit and a payload. */
static double
odd_nan(void)
{
	uint64_t	bits = UINT64_C(0xFFF8000000000123);
	double		d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

/* Random raw bits of type t; small values come from spread distinct ones. */
static uint64_t
rand_raw(gpo_type t, int spread)
{
	static const int64_t ints[] = {
		INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX, INT64_MIN + 1, UINT32_MAX,
		0, -1, 255, INT64_C(1) << 40
	};
	static const double dbls[] = {
		0.0, -0.0, INFINITY, -INFINITY, 1e308, -DBL_MAX, 5e-324, 0.1, FLT_MAX
	};
	int64_t		v = (int64_t) rng_below(spread) - spread / 2;

	if (!tres_is_float(t))
	{
		if (rng_chance(1, 8))
			v = ints[rng_below(sizeof(ints) / sizeof(ints[0]))];
		switch (t)
		{
			case GPO_INT32:
				return (uint32_t) (int32_t) v;
			case GPO_UINT32:
				return (uint32_t) v;
			case GPO_UINT8:
				return (uint8_t) v;
			default:
				return (uint64_t) v;
		}
	}
	switch (rng_below(10))
	{
		case 0:
			return tres_raw_of_dbl(t, rng_chance(1, 2) ? NAN : odd_nan());
		case 1:
		case 2:
			return tres_raw_of_dbl(t, dbls[rng_below(sizeof(dbls) / sizeof(dbls[0]))]);
		default:
			return tres_raw_of_dbl(t, (double) v / 2);
	}
}

/* Builds column c of set s: n random rows of type, NULLs at null_pct percent. */
static void
make_col(tcol *c, gpo_type type, int64_t n, int spread, int null_pct)
{
	size_t		w = gpo_type_size(type);
	char	   *flat = malloc(w * (n + 1));
	bool		bits = null_pct > 0 || rng_chance(1, 3);

	c->type = type;
	c->raw = malloc(sizeof(uint64_t) * (n + 1));
	c->valid = malloc(n + 1);
	for (int64_t i = 0; i < n; i++)
	{
		c->raw[i] = rand_raw(type, spread);
		c->valid[i] = (int) rng_below(100) >= null_pct;
		memcpy(flat + i * w, &c->raw[i], w);
	}
	tvec_make_kind(&c->t, type, random_kind(n), n, bits);
	if (bits)
		tvec_drop_some_bitmaps(&c->t, c->valid);
	tvec_fill(&c->t, flat, c->valid);
	free(flat);
}

/* Builds a set of n rows over the types of a schema. */
static void
make_set(tset *s, int ncols, const gpo_type *types, int64_t n, int spread)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->ncols = ncols;
	for (int c = 0; c < ncols; c++)
		make_col(&s->cols[c], types[c], n, spread,
				 rng_chance(1, 3) ? 0 : (int) rng_below(50));
}

/* Frees a set and its kept copies. */
static void
free_set(tset *s)
{
	gpo_resident_free(s->kept[0]);
	gpo_resident_free(s->kept[1]);
	for (int c = 0; c < s->ncols; c++)
	{
		tvec_free(&s->cols[c].t);
		free(s->cols[c].raw);
		free(s->cols[c].valid);
	}
}

/* Keeps s on face f (0 CPU, 1 GPU); expects the put to succeed. */
static bool
keep_set(tcase *c, tset *s, int f)
{
	gpo_vector	v[MAX_COLS];
	gpo_ctx		ctx;
	gpo_status	st;

	for (int k = 0; k < s->ncols; k++)
		v[k] = s->cols[k].t.v;
	test_ctx(&ctx, f ? GPO_DEVICE_GPU : GPO_DEVICE_CPU, 0);
	st = gpo_resident_put(&ctx, s->ncols, v, &s->kept[f]);
	return expect(c, st == GPO_OK && s->kept[f] != NULL &&
				  gpo_resident_face(s->kept[f]) == (f ? GPO_DEVICE_GPU : GPO_DEVICE_CPU) &&
				  ctx.used == gpo_resident_face(s->kept[f]) &&
				  gpo_resident_rows(s->kept[f]) == s->n,
				  "put on face %d: %s (%s)", f, gpo_status_text(st), ctx.detail);
}

/* The reference: program prog's truth value at row i of s. */
static int
ref_eval(const gpo_pred *prog, int nnodes, const tset *s, int64_t i)
{
	int			stk[MAX_NODES];
	int			sp = 0;

	for (int k = 0; k < nnodes; k++)
	{
		const gpo_pred *p = &prog[k];
		const tcol *c = &s->cols[p->column];
		int			v = RN;
		bool		any_f = false,
					any_t = false,
					any_n = false;

		switch (p->kind)
		{
			case GPO_PRED_CMP:
				if (!p->const_null && c->valid[i])
				{
					int			r;

					if (tres_is_float(c->type))
						r = tres_pg_fcmp(tres_dbl_of(c->type, c->raw[i]), p->fval);
					else
					{
						int64_t		x = int_of(c->type, c->raw[i]);

						r = x < p->ival ? -1 : x > p->ival;
					}
					v = (p->op == GPO_CMP_EQ ? r == 0 : p->op == GPO_CMP_NE ? r != 0 :
						 p->op == GPO_CMP_LT ? r < 0 : p->op == GPO_CMP_LE ? r <= 0 :
						 p->op == GPO_CMP_GT ? r > 0 : r >= 0) ? RT : RF;
				}
				stk[sp++] = v;
				break;
			case GPO_PRED_NULLTEST:
				stk[sp++] = (c->valid[i] == 0) != p->is_not ? RT : RF;
				break;
			case GPO_PRED_CONST:
				stk[sp++] = p->const_null ? RN : p->const_bool ? RT : RF;
				break;
			case GPO_PRED_NOT:
				v = stk[sp - 1];
				stk[sp - 1] = v == RN ? RN : v == RT ? RF : RT;
				break;
			case GPO_PRED_AND:
			case GPO_PRED_OR:
				for (int a = sp - p->nargs; a < sp; a++)
				{
					any_f |= stk[a] == RF;
					any_t |= stk[a] == RT;
					any_n |= stk[a] == RN;
				}
				sp -= p->nargs;
				if (p->kind == GPO_PRED_AND)
					stk[sp++] = any_f ? RF : any_n ? RN : RT;
				else
					stk[sp++] = any_t ? RT : any_n ? RN : RF;
				break;
		}
	}
	return stk[0];
}

/* A random leaf over the columns of s0 (values of s0's rows make ties). */
static gpo_pred
rand_leaf(const tset *s0)
{
	gpo_pred	p;
	int			c = (int) rng_below(s0->ncols);
	const tcol *col = &s0->cols[c];
	uint64_t	r = s0->n > 0 && rng_chance(1, 2) ?
		col->raw[rng_below(s0->n)] : rand_raw(col->type, 20);

	memset(&p, 0, sizeof(p));
	p.column = c;
	switch (rng_below(8))
	{
		case 0:
			p.kind = GPO_PRED_NULLTEST;
			p.is_not = rng_chance(1, 2);
			break;
		case 1:
			p.kind = GPO_PRED_CONST;
			p.const_null = rng_chance(1, 3);
			p.const_bool = rng_chance(2, 3);
			break;
		default:
			p.kind = GPO_PRED_CMP;
			p.op = (gpo_cmp_op) rng_below(6);
			p.const_null = rng_chance(1, 30);
			p.ival = tres_is_float(col->type) ? 0 : int_of(col->type, r);
			p.fval = tres_is_float(col->type) ? tres_dbl_of(col->type, r) : 0;
			break;
	}
	return p;
}

/* Appends a random program of at most depth levels to prog. */
static void
rand_prog(const tset *s0, int depth, gpo_pred *prog, int *nnodes)
{
	gpo_pred	p;

	memset(&p, 0, sizeof(p));
	if (depth <= 1 || rng_chance(1, 3))
	{
		prog[(*nnodes)++] = rand_leaf(s0);
		return;
	}
	switch (rng_below(3))
	{
		case 0:
			p.kind = GPO_PRED_NOT;
			rand_prog(s0, depth - 1, prog, nnodes);
			break;
		default:
			p.kind = rng_chance(1, 2) ? GPO_PRED_AND : GPO_PRED_OR;
			p.nargs = 2 + (int) rng_below(3);
			for (int k = 0; k < p.nargs; k++)
				rand_prog(s0, depth - 1, prog, nnodes);
			break;
	}
	prog[(*nnodes)++] = p;
}

/* The passing rows of nsets sets in set order (malloc'd), their number in *n. */
static prow *
ref_rows(const tset *sets, int nsets, const gpo_resident_query *q, int64_t *n)
{
	int64_t		all = 0;
	prow	   *rows;

	for (int s = 0; s < nsets; s++)
		all += sets[s].n;
	rows = malloc(sizeof(prow) * (all + 1));
	*n = 0;
	for (int s = 0; s < nsets; s++)
		for (int64_t i = 0; i < sets[s].n; i++)
			if (q->nnodes == 0 || ref_eval(q->prog, q->nnodes, &sets[s], i) == RT)
			{
				rows[*n].set = &sets[s];
				rows[(*n)++].i = i;
			}
	return rows;
}

/* Orders passing rows by key (PostgreSQL order, NULL last). */
static int
prow_cmp(const void *pa, const void *pb)
{
	const prow *a = pa;
	const prow *b = pb;
	const tcol *ka,
			   *kb;

	if (sort_key_col < 0)
		return 0;
	ka = &a->set->cols[sort_key_col];
	kb = &b->set->cols[sort_key_col];
	if (ka->valid[a->i] != kb->valid[b->i])
		return ka->valid[a->i] ? -1 : 1;
	if (!ka->valid[a->i])
		return 0;
	return key_cmp_raw(ka->type, ka->raw[a->i], kb->raw[b->i], true);
}

/* Adds value row i of column c (NULL: no values) to a. */
static void
ragg_add(ragg *a, const tcol *c, int64_t i)
{
	uint64_t	v;

	a->rows++;
	if (c == NULL || !c->valid[i])
		return;
	v = key_canon(c->type, c->raw[i], false);
	if (!tres_is_float(c->type))
		a->isum += int_of(c->type, v);
	else
	{
		double		d = tres_dbl_of(c->type, v);

		if (isfinite(d))
		{
			double		delta = d - a->mean;

			a->fsum += d;
			a->fabs += fabs(d);
			a->fsq += d * d;
			a->nfin++;
			a->mean += delta / (double) a->nfin;
			a->m2 += delta * (d - a->mean);
		}
		else
			a->fflags |= isnan(d) ? GPO_FF_NAN : d > 0 ? GPO_FF_PINF : GPO_FF_NINF;
	}
	if (a->count == 0 || key_cmp_raw(c->type, v, a->mn, false) < 0)
		a->mn = v;
	if (a->count == 0 || key_cmp_raw(c->type, v, a->mx, false) > 0)
		a->mx = v;
	a->count++;
}

/* The reference groups of q over nsets sets of set 0's schema. */
static void
ref_groups(const tset *sets, int nsets, const gpo_resident_query *q,
		   rgroups *rg)
{
	int64_t		n;
	prow	   *rows = ref_rows(sets, nsets, q, &n);
	int			kc = q->key_col;

	memset(rg, 0, sizeof(*rg));
	rg->nreq = q->nreqs > 0 ? q->nreqs : 1;
	rg->kt = kc >= 0 && nsets > 0 ? sets[0].cols[kc].type : GPO_INT32;
	rg->kvalid = calloc(n + 1, sizeof(bool));
	rg->key = calloc(n + 1, sizeof(uint64_t));
	rg->aggs = calloc((n + 1) * rg->nreq, sizeof(ragg));
	sort_key_col = kc;
	qsort(rows, n, sizeof(prow), prow_cmp);
	for (int64_t j = 0; j < n; j++)
	{
		const tcol *k = kc >= 0 ? &rows[j].set->cols[kc] : NULL;
		bool		kv = k == NULL || k->valid[rows[j].i];

		if (j == 0 || prow_cmp(&rows[j - 1], &rows[j]) != 0)
		{
			rg->kvalid[rg->ng] = kv;
			rg->key[rg->ng] = k != NULL && kv ? key_canon(k->type, k->raw[rows[j].i], true) : 0;
			rg->ng++;
		}
		for (int r = 0; r < rg->nreq; r++)
		{
			int			vc = q->nreqs > 0 ? q->val_cols[r] : -1;

			ragg_add(&rg->aggs[(rg->ng - 1) * rg->nreq + r],
					 vc >= 0 ? &rows[j].set->cols[vc] : NULL, rows[j].i);
		}
	}
	for (int64_t g = 1; g < rg->ng && rg->kvalid[g]; g++)
		rg->span = (uint64_t) int_of(rg->kt, rg->key[g]) - (uint64_t) int_of(rg->kt, rg->key[0]);
	free(rows);
}

/* Frees reference groups. */
static void
free_groups(rgroups *rg)
{
	free(rg->kvalid);
	free(rg->key);
	free(rg->aggs);
}

/* Output arrays of cap groups (keys, min and max 8 bytes an entry); some left NULL. */
static void
make_out(gpo_agg_out *o, int64_t cap, bool all)
{
	memset(o, 0, sizeof(*o));
	o->capacity = cap;
	o->keys = calloc(cap + 1, 8);
	o->key_valid = calloc(cap + 1, 1);
	o->rows = calloc(cap + 1, 8);
	o->count = calloc(cap + 1, 8);
	o->isum = calloc(cap + 1, sizeof(gpo_int128));
	o->fsum = calloc(cap + 1, 8);
	o->min = calloc(cap + 1, 8);
	o->max = calloc(cap + 1, 8);
	o->fflags = calloc(cap + 1, 1);
	o->m2 = calloc(cap + 1, 8);
	if (!all && rng_chance(1, 3))
	{
		free(o->keys);
		free(o->key_valid);
		o->keys = NULL;
		o->key_valid = NULL;
	}
}

/* Frees output arrays. */
static void
free_out(gpo_agg_out *o)
{
	free(o->keys);
	free(o->key_valid);
	free(o->rows);
	free(o->count);
	free(o->isum);
	free(o->fsum);
	free(o->min);
	free(o->max);
	free(o->fflags);
	free(o->m2);
}

/* Float sums agree within rounding (beyond 1e300 the order decides overflow). */
static bool
fsum_close(double got, double want, double mag)
{
	if (!(mag < 1e300))
		return true;
	return fabs(got - want) <= 1e-9 * mag + 1e-300;
}

/*
 * The m2 output of a group (a: its reference; wanted: the request asked for
 * m2 over values of type vt) is right: 0 where it is not kept or there are
 * no float values, NaN where one is not finite, else the reference's
 * within rounding.
 */
static bool
m2_ok(double got, const ragg *a, bool wanted, int vt)
{
	if (!wanted || vt < 0 || !tres_is_float((gpo_type) vt) || a->count == 0)
		return got == 0.0;
	if (a->fflags)
		return isnan(got);
	if (!(a->fsq < 1e300))
		return true;
	return fabs(got - a->m2) <= 1e-9 * a->fsq + 1e-300;
}

/* Checks output r (values of type vt, < 0: none) against the reference. */
static void
check_out(tcase *c, const gpo_agg_out *o, const rgroups *rg, int r, int vt,
		  bool m2)
{
	size_t		kw = gpo_type_size(rg->kt);
	size_t		vw = vt >= 0 ? gpo_type_size((gpo_type) vt) : 8;
	bool		vint = vt >= 0 && !tres_is_float((gpo_type) vt);

	for (int64_t g = 0; g < rg->ng && c->ok; g++)
	{
		const ragg *a = &rg->aggs[g * rg->nreq + r];
		bool		any = vt >= 0 && a->count > 0;
		__int128	isum = (__int128) (((unsigned __int128) (uint64_t) o->isum[g].hi << 64) |
									   o->isum[g].lo);

		if (o->keys != NULL)
		{
			expect(c, o->key_valid[g] == rg->kvalid[g], "out %d group %lld key validity",
				   r, (long long) g);
			expect(c, tres_raw_at(o->keys, kw, g) == rg->key[g], "out %d group %lld key %llx, want %llx",
				   r, (long long) g, (unsigned long long) tres_raw_at(o->keys, kw, g),
				   (unsigned long long) rg->key[g]);
		}
		expect(c, o->rows[g] == a->rows, "out %d group %lld rows %lld, want %lld", r,
			   (long long) g, (long long) o->rows[g], (long long) a->rows);
		expect(c, o->count[g] == (vt >= 0 ? a->count : 0), "out %d group %lld count", r,
			   (long long) g);
		expect(c, isum == (any && vint ? a->isum : 0), "out %d group %lld isum", r, (long long) g);
		if (vint)
			expect(c, o->fsum[g] == (any ? (double) a->isum : 0.0), "out %d group %lld fsum of ints",
				   r, (long long) g);
		else
			expect(c, fsum_close(o->fsum[g], any ? a->fsum : 0.0, a->fabs),
				   "out %d group %lld fsum %.17g, want %.17g", r, (long long) g, o->fsum[g], a->fsum);
		expect(c, o->fflags[g] == (any && !vint ? a->fflags : 0), "out %d group %lld fflags", r,
			   (long long) g);
		expect(c, tres_raw_at(o->min, vw, g) == (any ? a->mn : 0), "out %d group %lld min %llx, want %llx",
			   r, (long long) g, (unsigned long long) tres_raw_at(o->min, vw, g),
			   (unsigned long long) a->mn);
		expect(c, tres_raw_at(o->max, vw, g) == (any ? a->mx : 0), "out %d group %lld max", r,
			   (long long) g);
		expect(c, m2_ok(o->m2[g], a, m2, vt), "out %d group %lld m2 %.17g, want %.17g",
			   r, (long long) g, o->m2[g], a->m2);
	}
}

/*
 * Runs q over the sets' copies on face f with strategy want and checks the
 * answer against rg; short: one output too small by one group.
 */
static void
run_check(tcase *c, int f, tset *sets, int nsets, const gpo_resident_query *q,
		  gpo_agg_strategy want, const rgroups *rg, bool short_out, int threads)
{
	gpo_resident *kept[MANY_SETS];
	gpo_agg_out outs[MAX_REQS];
	gpo_ctx		ctx;
	gpo_agg_strategy strat = want;
	int64_t		ng = -1;
	gpo_status	st;
	int			bad = short_out ? (int) rng_below(rg->nreq) : -1;

	for (int s = 0; s < nsets; s++)
		kept[s] = sets[s].kept[f];
	for (int r = 0; r < rg->nreq; r++)
		make_out(&outs[r], r == bad ? rg->ng - 1 : rg->ng + (int64_t) rng_below(3), r == bad);
	/* the sets' face decides, whatever the context asks */
	test_ctx(&ctx, (gpo_device) rng_below(3), threads);
	st = gpo_resident_groupagg(&ctx, nsets, kept, q, &strat, outs, &ng);
	expect(c, ng == rg->ng, "face %d: %lld groups, want %lld (%s: %s)", f, (long long) ng,
		   (long long) rg->ng, gpo_status_text(st), ctx.detail);
	if (short_out)
		expect(c, st == GPO_ERR_CAPACITY, "face %d short output: %s", f, gpo_status_text(st));
	else
	{
		expect(c, st == GPO_OK, "face %d: %s (%s)", f, gpo_status_text(st), ctx.detail);
		expect(c, ctx.used == (f && nsets > 0 ? GPO_DEVICE_GPU : GPO_DEVICE_CPU),
			   "face %d: used %d", f, (int) ctx.used);
		expect(c, strat != GPO_AGG_AUTO && (want == GPO_AGG_AUTO || strat == want),
			   "face %d: strategy %s for %s", f, gpo_agg_strategy_name(strat),
			   gpo_agg_strategy_name(want));
		for (int r = 0; r < rg->nreq && st == GPO_OK; r++)
		{
			int			vc = q->nreqs > 0 ? q->val_cols[r] : -1;
			int			vt = vc < 0 ? -1 : vc >= GPO_RESIDENT_MAX_COLS ?
				(int) q->exprs[vc - GPO_RESIDENT_MAX_COLS].type :
				(int) sets[0].cols[vc].type;

			check_out(c, &outs[r], rg, r, vt, (q->aggs[r] & GPO_AGG_WANT_M2) != 0);
		}
	}
	for (int r = 0; r < rg->nreq; r++)
		free_out(&outs[r]);
}

/* A random column of set 0's schema whose type passes ok, or -1 (also when none does). */
static int
pick_col(const tset *s0, bool (*ok) (gpo_type))
{
	int			c = (int) rng_below(s0->ncols);

	for (int k = 0; k < s0->ncols; k++, c = (c + 1) % s0->ncols)
		if (ok(s0->cols[c].type))
			return c;
	return -1;
}

/* True for a group key type. */
static bool
key_ok(gpo_type t)
{
	return t != GPO_UINT8;
}

/* True for a value type. */
static bool
val_ok(gpo_type t)
{
	return t == GPO_INT32 || t == GPO_INT64 || tres_is_float(t);
}

/* A random query over set 0's schema into q (prog: room for MAX_NODES, cols, aggs: MAX_REQS). */
static void
rand_query(const tset *s0, gpo_resident_query *q, gpo_pred *prog, int *cols,
		   unsigned *aggs)
{
	int			nnodes = 0;

	memset(q, 0, sizeof(*q));
	if (!rng_chance(1, 4))
		rand_prog(s0, 1 + (int) rng_below(4), prog, &nnodes);
	q->prog = prog;
	q->nnodes = nnodes;
	q->key_col = rng_chance(1, 6) ? -1 : pick_col(s0, key_ok);
	q->nreqs = (int) rng_below(MAX_REQS + 1);
	for (int r = 0; r < q->nreqs; r++)
	{
		cols[r] = rng_chance(1, 6) ? -1 : pick_col(s0, val_ok);
		aggs[r] = (unsigned) rng_below(32);
	}
	q->val_cols = cols;
	q->aggs = aggs;
	q->est_groups = rng_chance(1, 2) ? 0 : (int64_t) rng_below(100000);
}

/* Whether a computed column can be of type t (gpo_resident_expr). */
static bool
computable(gpo_type t)
{
	return t == GPO_INT32 || t == GPO_INT64 || tres_is_float(t);
}

/*
 * A program that gives column c's values (of type t) unchanged, from c or
 * from computed column from (>= 0), by an operator that keeps them (x * 1,
 * x + 0, x alone), into prog (room for 3); its nodes.
 */
static int
same_prog(gpo_type t, int c, int from, gpo_xnode *prog)
{
	int			w = t == GPO_INT32 || t == GPO_FLOAT32 ? 4 : 8;
	int			n = 0;

	memset(prog, 0, sizeof(gpo_xnode) * 3);
	prog[n].op = GPO_X_COL;
	prog[n++].arg = from >= 0 ? GPO_RESIDENT_EXPR_COL(from) : c;
	if (rng_chance(1, 4))
		return n;
	prog[n].op = GPO_X_CONST;
	if (tres_is_float(t))
	{
		prog[n].width = 1;
		prog[n++].fval = 1.0;
		prog[n].op = GPO_X_FMUL;
	}
	else
	{
		prog[n++].ival = rng_chance(1, 2) ? 1 : 0;
		prog[n].op = prog[n - 1].ival == 1 ? GPO_X_IMUL : GPO_X_IADD;
	}
	prog[n++].width = (int16_t) w;
	return n;
}

/*
 * q with its key and value columns read through computed columns that
 * give the same values (some through another computed one), into *x (exprs,
 * progs: room for GPO_RESIDENT_MAX_EXPRS, 3 nodes each; cols: MAX_REQS);
 * false when none of its columns can be computed.  Its answer is q's.
 */
static bool
computed_query(const tset *s0, const gpo_resident_query *q,
			   gpo_resident_query *x, gpo_resident_expr *exprs,
			   gpo_xnode *progs, int *cols, gpo_expr_error *xerr)
{
	int			ne = 0;

	*x = *q;
	x->exprs = exprs;
	x->xerr = xerr;
	for (int r = -1; r < q->nreqs; r++)
	{
		int			c = r < 0 ? q->key_col : q->val_cols[r];
		gpo_type	t;
		int			from = -1;

		if (r >= 0)
			cols[r] = c;
		if (c < 0 || !computable(s0->cols[c].type) || rng_chance(1, 4))
			continue;
		t = s0->cols[c].type;
		/* sometimes a column computed from another computed column */
		if (ne + 2 <= GPO_RESIDENT_MAX_EXPRS && rng_chance(1, 3))
		{
			exprs[ne].nnodes = same_prog(t, c, -1, progs + 3 * ne);
			exprs[ne].prog = progs + 3 * ne;
			exprs[ne].type = t;
			exprs[ne].out_double = tres_is_float(t);
			from = ne++;
		}
		exprs[ne].nnodes = same_prog(t, c, from, progs + 3 * ne);
		exprs[ne].prog = progs + 3 * ne;
		exprs[ne].type = t;
		exprs[ne].out_double = tres_is_float(t);
		if (r < 0)
			x->key_col = GPO_RESIDENT_EXPR_COL(ne);
		else
			cols[r] = GPO_RESIDENT_EXPR_COL(ne);
		ne++;
	}
	x->val_cols = cols;
	x->nexprs = ne;
	return ne > 0;
}

/* One random case: nsets sets of uneven sizes up to most rows, several queries. */
static void
random_case(tgroup *g, int nsets, int64_t most)
{
	tset		sets[MANY_SETS];
	gpo_type	types[MAX_COLS];
	int			ncols = 1 + (int) rng_below(MAX_COLS);
	int			spread = (int) (rng_chance(1, 2) ? 2 + rng_below(10) : 2 + rng_below(5000));
	bool		tiny = rng_chance(1, 2);
	int			threads = tiny ? 1 + (int) rng_below(5) : 0;
	tcase		c;

	for (int k = 0; k < ncols; k++)
		types[k] = (gpo_type) rng_below(6);
	case_begin(&c, "put %d sets of %d columns", nsets, ncols);
	for (int s = 0; s < nsets; s++)
	{
		int64_t		n = rng_chance(1, 5) ? 0 : (int64_t) rng_below(most + 1);

		make_set(&sets[s], ncols, types, n, spread);
		keep_set(&c, &sets[s], 0);
		if (have_gpu)
			keep_set(&c, &sets[s], 1);
	}
	case_result(g, c.ok, c.msg);
	gpo_rows_per_block = tiny ? 1 + (int64_t) rng_below(2000) : 16384;
	for (int rep = 0; rep < 4 && c.ok; rep++)
	{
		gpo_pred	prog[MAX_NODES];
		int			cols[MAX_REQS];
		unsigned	aggs[MAX_REQS];
		gpo_resident_query q;
		rgroups		rg;
		gpo_agg_strategy want;
		tset		none;
		gpo_resident_query xq;
		gpo_resident_expr exprs[GPO_RESIDENT_MAX_EXPRS];
		gpo_xnode	progs[3 * GPO_RESIDENT_MAX_EXPRS];
		int			xcols[MAX_REQS];
		gpo_expr_error xerr;

		if (nsets == 0)
		{
			make_set(&none, ncols, types, 3, spread);
			rand_query(&none, &q, prog, cols, aggs);
			free_set(&none);
		}
		else
			rand_query(&sets[0], &q, prog, cols, aggs);
		ref_groups(sets, nsets, &q, &rg);
		want = tres_rand_strategy(rg.kt, rg.span);
		for (int f = 0; f < 2; f++)
		{
			tcase		r;

			if (f == 1 && !have_gpu)
			{
				gpu_skip(g);
				continue;
			}
			case_begin(&r, "%d sets, %d cols, %d nodes, key %d, %d reqs, %s, %lld groups, threads %d",
					   nsets, ncols, q.nnodes, q.key_col, q.nreqs,
					   gpo_agg_strategy_name(want), (long long) rg.ng, threads);
			run_check(&r, f, sets, nsets, &q, want, &rg, false, threads);
			if (rg.ng > 0 && rng_chance(1, 3))
				run_check(&r, f, sets, nsets, &q, want, &rg, true, threads);
			case_result(g, r.ok, r.msg);
			if (nsets > 0 && computed_query(&sets[0], &q, &xq, exprs, progs,
											xcols, &xerr))
			{
				case_begin(&r, "the same through %d computed columns (key %d), face %d",
						   xq.nexprs, xq.key_col, f);
				run_check(&r, f, sets, nsets, &xq, want, &rg, false, threads);
				expect(&r, xerr.code == GPO_XERR_NONE, "error %d", (int) xerr.code);
				case_result(g, r.ok, r.msg);
			}
		}
		free_groups(&rg);
	}
	gpo_rows_per_block = 16384;
	for (int s = 0; s < nsets; s++)
		free_set(&sets[s]);
}

/* Sets of flat rows for the hand-written case and the checks of puts. */
static void
flat_set(tset *s, int ncols, const gpo_type *types, int64_t n,
		 const uint64_t *const *raw, const uint8_t *const *valid)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->ncols = ncols;
	for (int k = 0; k < ncols; k++)
	{
		tcol	   *c = &s->cols[k];
		size_t		w = gpo_type_size(types[k]);
		char	   *flat = malloc(w * (n + 1));

		c->type = types[k];
		c->raw = malloc(sizeof(uint64_t) * (n + 1));
		c->valid = malloc(n + 1);
		for (int64_t i = 0; i < n; i++)
		{
			c->raw[i] = raw[k][i];
			c->valid[i] = valid[k] != NULL ? valid[k][i] : 1;
			memcpy(flat + i * w, &c->raw[i], w);
		}
		/* a bitmap even where every row is valid: the set keeps none */
		tvec_make_kind(&c->t, types[k], random_kind(n), n, true);
		tvec_fill(&c->t, flat, c->valid);
		free(flat);
	}
}

/* Bytes face f keeps for n rows of a column of type with or without a NULL. */
static size_t
col_bytes(int f, gpo_type type, int64_t n, bool nulls)
{
	size_t		vb = !nulls ? 0 : f ? (size_t) n : (size_t) (n + 7) / 8;

	return gpo_type_size(type) * (size_t) n + vb;
}

/* Puts on face f: accessors, the bytes kept (no validity without a NULL), 0 rows. */
static void
put_face(tgroup *g, int f)
{
	static const gpo_type types[] = {GPO_INT32, GPO_FLOAT64, GPO_UINT8, GPO_INT64};
	tset		s;
	tcase		c;
	size_t		want = 0;

	case_begin(&c, "put on face %d: accessors and bytes", f);
	make_set(&s, 4, types, 1000, 50);
	/* column 0 has bitmaps but no NULL; column 3 has a NULL */
	for (int64_t i = 0; i < 1000; i++)
		s.cols[0].valid[i] = 1;
	s.cols[3].valid[500] = 0;
	tvec_free(&s.cols[0].t);
	tvec_make_kind(&s.cols[0].t, GPO_INT32, PART_UNEVEN, 1000, true);
	{
		int32_t		flat[1000];

		for (int i = 0; i < 1000; i++)
			flat[i] = (int32_t) s.cols[0].raw[i];
		tvec_fill(&s.cols[0].t, flat, s.cols[0].valid);
	}
	tvec_free(&s.cols[3].t);
	tvec_make_kind(&s.cols[3].t, GPO_INT64, PART_MIXED, 1000, true);
	tvec_fill(&s.cols[3].t, s.cols[3].raw, s.cols[3].valid);
	if (keep_set(&c, &s, f))
	{
		for (int k = 0; k < 4; k++)
		{
			bool		nulls = false;

			for (int64_t i = 0; i < 1000; i++)
				nulls |= s.cols[k].valid[i] == 0;
			want += col_bytes(f, types[k], 1000, nulls);
			expect(&c, gpo_resident_type(s.kept[f], k) == types[k], "type of %d", k);
		}
		expect(&c, gpo_resident_bytes(s.kept[f]) == want, "bytes %zu, want %zu",
			   gpo_resident_bytes(s.kept[f]), want);
		expect(&c, gpo_resident_ncols(s.kept[f]) == 4, "ncols");
		expect(&c, (int) gpo_resident_type(s.kept[f], 4) == -1 &&
			   (int) gpo_resident_type(s.kept[f], -1) == -1, "type of no column");
	}
	case_result(g, c.ok, c.msg);
	free_set(&s);

	case_begin(&c, "put of 0 rows on face %d", f);
	make_set(&s, 2, types, 0, 5);
	if (keep_set(&c, &s, f))
		expect(&c, gpo_resident_bytes(s.kept[f]) == 0 && gpo_resident_rows(s.kept[f]) == 0,
			   "bytes %zu", gpo_resident_bytes(s.kept[f]));
	case_result(g, c.ok, c.msg);
	free_set(&s);
}

/* Expects a put of these arguments to fail with want, keeping nothing. */
static void
put_reject(tgroup *g, const char *name, gpo_device dev, int ncols,
		   const gpo_vector *cols, bool with_out, gpo_status want)
{
	gpo_resident *set = (gpo_resident *) &set;
	gpo_ctx		ctx;
	gpo_status	st;
	tcase		c;

	case_begin(&c, "put rejects %s", name);
	test_ctx(&ctx, dev, 0);
	st = gpo_resident_put(&ctx, ncols, cols, with_out ? &set : NULL);
	expect(&c, st == want && ctx.detail[0], "%s (%s)", gpo_status_text(st), ctx.detail);
	expect(&c, !with_out || set == NULL, "a set came back");
	case_result(g, c.ok, c.msg);
}

/* The validity helpers a put uses: NULL detection and validity bytes of row windows. */
static void
validity_cases(tgroup *g)
{
	for (int rep = 0; rep < 20; rep++)
	{
		int64_t		n = (int64_t) rng_below(3000);
		tcol		col;
		uint8_t    *got = malloc(n + 1);
		bool		nulls = false;
		tcase		c;

		make_col(&col, GPO_INT32, n, 10, rng_chance(1, 2) ? 0 : (int) rng_below(5));
		for (int64_t i = 0; i < n; i++)
			nulls |= col.valid[i] == 0;
		case_begin(&c, "validity of %lld rows", (long long) n);
		expect(&c, gpo_resident_has_null(&col.t.v) == nulls, "has_null");
		for (int w = 0; w < 5 && n > 0; w++)
		{
			int64_t		from = (int64_t) rng_below(n);
			int64_t		len = (int64_t) rng_below(n - from + 1);

			memset(got, 7, n + 1);
			gpo_resident_valid_bytes(&col.t.v, from, len, got);
			for (int64_t i = 0; i < len && c.ok; i++)
				expect(&c, got[i] == col.valid[from + i], "row %lld", (long long) (from + i));
			expect(&c, got[len] == 7, "wrote past the window");
		}
		case_result(g, c.ok, c.msg);
		tvec_free(&col.t);
		free(col.raw);
		free(col.valid);
		free(got);
	}
}

/* Puts on both faces, AUTO's choice, and rejected puts. */
static void
put_cases(tgroup *g)
{
	static const gpo_type types[] = {GPO_INT32, GPO_FLOAT32};
	gpo_vector	many[GPO_RESIDENT_MAX_COLS + 1];
	gpo_vector	two[2];
	tset		s,
				t;
	gpo_resident *set = NULL;
	gpo_ctx		ctx;
	tcase		c;

	validity_cases(g);
	put_face(g, 0);
	if (have_gpu)
		put_face(g, 1);
	else
		gpu_skip(g);

	make_set(&s, 2, types, 10, 5);
	make_set(&t, 1, types, 9, 5);
	for (int k = 0; k <= GPO_RESIDENT_MAX_COLS; k++)
		many[k] = s.cols[k % 2].t.v;
	case_begin(&c, "put of %d columns, AUTO", GPO_RESIDENT_MAX_COLS);
	test_ctx(&ctx, GPO_DEVICE_AUTO, 0);
	expect(&c, gpo_resident_put(&ctx, GPO_RESIDENT_MAX_COLS, many, &set) == GPO_OK &&
		   gpo_resident_ncols(set) == GPO_RESIDENT_MAX_COLS &&
		   gpo_resident_face(set) == (have_gpu ? GPO_DEVICE_GPU : GPO_DEVICE_CPU),
		   "%s", ctx.detail);
	gpo_resident_free(set);
	gpo_resident_free(NULL);
	case_result(g, c.ok, c.msg);

	put_reject(g, "0 columns", GPO_DEVICE_CPU, 0, many, true, GPO_ERR_INVALID);
	put_reject(g, "65 columns", GPO_DEVICE_CPU, GPO_RESIDENT_MAX_COLS + 1, many, true,
			   GPO_ERR_INVALID);
	put_reject(g, "NULL columns", GPO_DEVICE_CPU, 1, NULL, true, GPO_ERR_INVALID);
	put_reject(g, "no output", GPO_DEVICE_CPU, 1, many, false, GPO_ERR_INVALID);
	two[0] = s.cols[0].t.v;
	two[1] = t.cols[0].t.v;
	put_reject(g, "unequal rows", GPO_DEVICE_CPU, 2, two, true, GPO_ERR_INVALID);
	two[1] = s.cols[1].t.v;
	two[1].type = (gpo_type) 17;
	put_reject(g, "a bad vector", GPO_DEVICE_CPU, 2, two, true, GPO_ERR_INVALID);
	if (!have_gpu)
		put_reject(g, "the GPU without one", GPO_DEVICE_GPU, 1, many, true,
				   GPO_ERR_NO_DEVICE);
	free_set(&s);
	free_set(&t);
}

/* A CMP node. */
static gpo_pred
p_cmp(int col, gpo_cmp_op op, int64_t ival, double fval)
{
	gpo_pred	p;

	memset(&p, 0, sizeof(p));
	p.kind = GPO_PRED_CMP;
	p.column = col;
	p.op = op;
	p.ival = ival;
	p.fval = fval;
	return p;
}

/* A node of kind over column col with nargs (AND, OR) or is_not (NULLTEST). */
static gpo_pred
p_node(gpo_pred_kind kind, int col, int arg)
{
	gpo_pred	p;

	memset(&p, 0, sizeof(p));
	p.kind = kind;
	p.column = col;
	p.nargs = arg;
	p.is_not = arg != 0;
	p.const_bool = arg != 0;
	return p;
}

/* The hand-written sets: float keys with -0.0 and NaNs, int64 extremes, an empty set. */
static void
hand_sets(tset *sets)
{
	static const gpo_type types[] = {GPO_FLOAT64, GPO_INT64, GPO_INT32};
	uint64_t	ka[5],
				kc[4];
	static const uint64_t va[] = {INT64_MAX, INT64_MAX, 1, 2, 0};
	static const uint64_t vc[] = {(uint64_t) -5, INT64_MAX, 7, 0};
	static const uint64_t fa[] = {1, 2, 3, 4, 5};
	static const uint64_t fc[] = {6, 7, 8, 9};
	static const uint8_t kva[] = {1, 1, 1, 0, 1};
	static const uint8_t vva[] = {1, 1, 1, 1, 0};
	static const uint8_t kvc[] = {1, 1, 1, 0};
	static const uint8_t vvc[] = {1, 1, 1, 0};
	const uint64_t *ra[] = {ka, va, fa};
	const uint64_t *rc[] = {kc, vc, fc};
	const uint8_t *la[] = {kva, vva, NULL};
	const uint8_t *lc[] = {kvc, vvc, NULL};

	ka[0] = tres_raw_of_dbl(GPO_FLOAT64, -0.0);
	ka[1] = tres_raw_of_dbl(GPO_FLOAT64, 0.0);
	ka[2] = tres_raw_of_dbl(GPO_FLOAT64, NAN);
	ka[3] = 0;
	ka[4] = tres_raw_of_dbl(GPO_FLOAT64, -INFINITY);
	kc[0] = tres_raw_of_dbl(GPO_FLOAT64, odd_nan());
	kc[1] = tres_raw_of_dbl(GPO_FLOAT64, 0.0);
	kc[2] = tres_raw_of_dbl(GPO_FLOAT64, -INFINITY);
	kc[3] = 0;
	flat_set(&sets[0], 3, types, 5, ra, la);
	flat_set(&sets[1], 3, types, 0, ra, la);
	flat_set(&sets[2], 3, types, 4, rc, lc);
}

/*
 * Computed columns on face f over the hand-written sets: v * 2 overflows
 * int8 at v = INT64_MAX (rows of f = 1, 2 and 7), so a WHERE that keeps
 * one of them raises the error, one that keeps none sums the others, and
 * v * 2 - v (a computed column over a computed one) gives v back.
 */
static void
expr_error_face(tgroup *g, tset *sets, int f)
{
	gpo_resident *kept[3] = {sets[0].kept[f], sets[1].kept[f], sets[2].kept[f]};
	gpo_xnode	dbl[3];
	gpo_xnode	back[3];
	gpo_resident_expr ex[2];
	struct
	{
		const char *name;
		int64_t		fmin;		/* WHERE f >= fmin */
		int			val;		/* the computed column summed */
		bool		err;
		int64_t		sum;
		int64_t		count;
	}			cs[] = {
		{"f >= 8: no overflow", 8, 0, false, 14, 1},
		{"f >= 7: overflow", 7, 0, true, 0, 0},
		{"f >= 1: overflow at the first rows", 1, 1, true, 0, 0},
		{"f >= 3: v * 2 - v", 3, 1, true, 0, 0},
		{"f >= 8: v * 2 - v", 8, 1, false, 7, 1}
	};

	memset(dbl, 0, sizeof(dbl));
	dbl[0].op = GPO_X_COL;
	dbl[0].arg = 1;
	dbl[1].op = GPO_X_CONST;
	dbl[1].ival = 2;
	dbl[2].op = GPO_X_IMUL;
	dbl[2].width = 8;
	memcpy(back, dbl, sizeof(back));
	back[0].arg = GPO_RESIDENT_EXPR_COL(0);
	back[1].op = GPO_X_COL;
	back[1].arg = 1;
	back[2].op = GPO_X_ISUB;
	ex[0] = (gpo_resident_expr) {dbl, 3, GPO_INT64, false};
	ex[1] = (gpo_resident_expr) {back, 3, GPO_INT64, false};
	for (int k = 0; k < (int) (sizeof(cs) / sizeof(cs[0])); k++)
	{
		gpo_pred	p = p_cmp(2, GPO_CMP_GE, cs[k].fmin, 0);
		int			vcol = GPO_RESIDENT_EXPR_COL(cs[k].val);
		unsigned	agg = GPO_AGG_WANT_SUM | GPO_AGG_WANT_COUNT;
		gpo_resident_query q = {&p, 1, -1, 1, &vcol, &agg, 0};
		gpo_agg_strategy strat = GPO_AGG_AUTO;
		gpo_expr_error xerr = {GPO_XERR_DIV_ZERO, -1};
		gpo_agg_out o;
		gpo_ctx		ctx;
		int64_t		ng = -1;
		gpo_status	st;
		tcase		c;

		q.nexprs = cs[k].val + 1;
		q.exprs = ex;
		q.xerr = &xerr;
		case_begin(&c, "computed columns, %s, face %d", cs[k].name, f);
		make_out(&o, 1, true);
		test_ctx(&ctx, GPO_DEVICE_AUTO, 0);
		st = gpo_resident_groupagg(&ctx, 3, kept, &q, &strat, &o, &ng);
		expect(&c, st == GPO_OK, "%s (%s)", gpo_status_text(st), ctx.detail);
		expect(&c, xerr.code == (cs[k].err ? GPO_XERR_INT8_RANGE : GPO_XERR_NONE),
			   "error %d", (int) xerr.code);
		if (!cs[k].err && st == GPO_OK)
		{
			expect(&c, ng == 1, "%lld groups", (long long) ng);
			expect(&c, o.isum[0].lo == (uint64_t) cs[k].sum && o.isum[0].hi == 0,
				   "sum %lld", (long long) o.isum[0].lo);
			expect(&c, o.count[0] == cs[k].count, "count %lld", (long long) o.count[0]);
		}
		free_out(&o);
		case_result(g, c.ok, c.msg);
	}
	/* rejected: a computed column read before it is made, a wrong type, no xerr */
	for (int k = 0; k < 3; k++)
	{
		int			vcol = GPO_RESIDENT_EXPR_COL(0);
		unsigned	agg = GPO_AGG_WANT_SUM;
		gpo_resident_query q = {NULL, 0, -1, 1, &vcol, &agg, 0};
		gpo_resident_expr bad[1] = {{back, 3, GPO_INT64, false}};
		gpo_agg_strategy strat = GPO_AGG_AUTO;
		gpo_expr_error xerr;
		gpo_agg_out o;
		gpo_ctx		ctx;
		int64_t		ng = -1;
		gpo_status	st;
		tcase		c;

		if (k == 1)
			bad[0] = (gpo_resident_expr) {dbl, 3, GPO_FLOAT64, false};
		q.nexprs = 1;
		q.exprs = k == 2 ? ex : bad;
		q.xerr = k == 2 ? NULL : &xerr;
		case_begin(&c, "computed column rejected (%d), face %d", k, f);
		make_out(&o, 1, true);
		test_ctx(&ctx, GPO_DEVICE_AUTO, 0);
		st = gpo_resident_groupagg(&ctx, 3, kept, &q, &strat, &o, &ng);
		expect(&c, st == GPO_ERR_INVALID, "%s", gpo_status_text(st));
		free_out(&o);
		case_result(g, c.ok, c.msg);
	}
}

/* The hand-written case on face f: known groups, and the reference agreeing. */
static void
hand_face(tgroup *g, tset *sets, int f)
{
	static const uint64_t keys[] = {UINT64_C(0xfff0000000000000), 0, UINT64_C(0x7ff8000000000000), 0};
	static const int64_t rows[] = {1, 3, 2, 2};
	static const int64_t count[] = {1, 3, 2, 1};
	static const int64_t isum_lo[] = {7, INT64_MAX - 2, -4, 2};
	gpo_resident *kept[3] = {sets[0].kept[f], sets[1].kept[f], sets[2].kept[f]};
	gpo_pred	p = p_cmp(2, GPO_CMP_NE, 5, 0);
	int			vcol = 1;
	unsigned	agg = GPO_AGG_WANT_SUM | GPO_AGG_WANT_MIN;
	gpo_resident_query q = {&p, 1, 0, 1, &vcol, &agg, 0};
	gpo_agg_strategy strat = GPO_AGG_AUTO;
	gpo_agg_out o;
	gpo_ctx		ctx;
	int64_t		ng = -1;
	gpo_status	st;
	rgroups		rg;
	tcase		c;

	case_begin(&c, "hand-written groups on face %d", f);
	make_out(&o, 4, true);
	test_ctx(&ctx, GPO_DEVICE_AUTO, 0);
	st = gpo_resident_groupagg(&ctx, 3, kept, &q, &strat, &o, &ng);
	expect(&c, st == GPO_OK && ng == 4, "%s, %lld groups (%s)", gpo_status_text(st),
		   (long long) ng, ctx.detail);
	for (int k = 0; k < 4 && c.ok; k++)
	{
		expect(&c, ((uint64_t *) o.keys)[k] == keys[k] && o.key_valid[k] == (k < 3),
			   "group %d key %llx", k, (unsigned long long) ((uint64_t *) o.keys)[k]);
		expect(&c, o.rows[k] == rows[k] && o.count[k] == count[k], "group %d rows %lld count %lld",
			   k, (long long) o.rows[k], (long long) o.count[k]);
		/* 3 * INT64_MAX = 2^64 + (2^63 - 3): hi 1 */
		expect(&c, o.isum[k].lo == (uint64_t) isum_lo[k] &&
			   o.isum[k].hi == (k == 1 ? 1 : isum_lo[k] < 0 ? -1 : 0),
			   "group %d isum %llx:%llx", k, (long long) o.isum[k].hi,
			   (unsigned long long) o.isum[k].lo);
	}
	expect(&c, ((int64_t *) o.min)[2] == -5 && ((int64_t *) o.max)[1] == INT64_MAX,
		   "min/max");
	ref_groups(sets, 3, &q, &rg);
	expect(&c, rg.ng == 4, "reference: %lld groups", (long long) rg.ng);
	check_out(&c, &o, &rg, 0, GPO_INT64, false);
	free_groups(&rg);
	free_out(&o);
	case_result(g, c.ok, c.msg);
}

/* Hand-written programs, the zero key, no request, nsets 0 and no passing row. */
static void
hand_cases(tgroup *g)
{
	tset		sets[3];
	gpo_pred	prog[8];
	int			cols[2] = {1, -1};
	unsigned	aggs[2] = {GPO_AGG_WANT_COUNT, 0};
	gpo_resident_query q;
	tcase		c;

	hand_sets(sets);
	case_begin(&c, "hand-written sets");
	for (int s = 0; s < 3; s++)
	{
		keep_set(&c, &sets[s], 0);
		if (have_gpu)
			keep_set(&c, &sets[s], 1);
	}
	case_result(g, c.ok, c.msg);
	for (int f = 0; f < 2; f++)
	{
		/* key IS NULL OR NOT (v < 0 AND f >= 7) */
		gpo_pred	p[] = {p_node(GPO_PRED_NULLTEST, 0, 0), p_cmp(1, GPO_CMP_LT, 0, 0),
		p_cmp(2, GPO_CMP_GE, 7, 0), p_node(GPO_PRED_AND, 0, 2), p_node(GPO_PRED_NOT, 0, 0),
		p_node(GPO_PRED_OR, 0, 2)};
		struct
		{
			const char *name;
			int			nnodes;
			int			key;
			int			nreqs;
		}			qs[] = {
			{"NULLTEST/AND/NOT/OR", 6, 0, 2}, {"zero key", 6, -1, 2},
			{"zero key, no request", 0, -1, 0}, {"no request", 1, 0, 0},
			{"no passing row", 1, 1, 1}, {"no set", 0, 0, 1}
		};

		if (f == 1 && !have_gpu)
		{
			gpu_skip(g);
			continue;
		}
		hand_face(g, sets, f);
		expr_error_face(g, sets, f);
		memcpy(prog, p, sizeof(p));
		for (int k = 0; k < (int) (sizeof(qs) / sizeof(qs[0])); k++)
		{
			rgroups		rg;
			int			nsets = k == 5 ? 0 : 3;

			memset(&q, 0, sizeof(q));
			q.prog = prog;
			q.nnodes = qs[k].nnodes;
			q.key_col = qs[k].key;
			q.nreqs = qs[k].nreqs;
			q.val_cols = cols;
			q.aggs = aggs;
			if (k == 4)
				prog[0] = p_node(GPO_PRED_CONST, 0, 0);
			ref_groups(sets, nsets, &q, &rg);
			case_begin(&c, "%s on face %d", qs[k].name, f);
			run_check(&c, f, sets, nsets, &q, k == 4 ? GPO_AGG_HASH : GPO_AGG_AUTO, &rg,
					  false, 0);
			expect(&c, rg.ng == (k == 4 || k == 5 ? 0 : k == 1 || k == 2 ? 1 : rg.ng),
				   "reference groups %lld", (long long) rg.ng);
			case_result(g, c.ok, c.msg);
			free_groups(&rg);
		}
	}
	for (int s = 0; s < 3; s++)
		free_set(&sets[s]);
}

/* A row of the several-keys reference: its keys (NULL as valid 0), value, filter. */
typedef struct mrow
{
	int64_t		a;
	int64_t		b;
	uint8_t		av;
	uint8_t		bv;
	int64_t		v;
} mrow;

/* Orders reference rows by (a, b), NULL after every value (PostgreSQL's order). */
static int
mrow_cmp(const void *pa, const void *pb)
{
	const mrow *x = pa;
	const mrow *y = pb;

	if (x->av != y->av)
		return x->av ? -1 : 1;
	if (x->av && x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->bv != y->bv)
		return x->bv ? -1 : 1;
	if (x->bv && x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return 0;
}

/*
 * Two keys packed into one (gpo_resident_query.nkeys) on face f, over
 * sets of uneven sizes (one empty): an INT32 key a with NULLs and an INT64
 * key b of large values with NULLs, under a random WHERE on f >= t; the
 * groups, decoded with key_lo and key_width, against a sort of the
 * passing rows.  Also a set whose key column is all NULL.
 */
static void
multikey_case(tgroup *g, int f)
{
	static const gpo_type types[] = {GPO_INT32, GPO_INT64, GPO_INT64, GPO_INT32};
	int64_t		sizes[3] = {0, 1 + (int64_t) rng_below(3000), 1 + (int64_t) rng_below(40000)};
	bool		a_null_set = rng_chance(1, 2);
	tset		sets[3];
	gpo_resident *kept[3];
	mrow	   *rows = malloc(sizeof(mrow) * 50000);
	int64_t		nrows = 0;
	int			t = (int) rng_below(10);
	tcase		c;

	case_begin(&c, "two packed keys on face %d (where f >= %d)", f, t);
	for (int s = 0; s < 3; s++)
	{
		int64_t		n = sizes[s];
		uint64_t   *raw[4];
		uint8_t    *valid[4];

		for (int k = 0; k < 4; k++)
		{
			raw[k] = malloc(sizeof(uint64_t) * (n + 1));
			valid[k] = malloc(n + 1);
		}
		for (int64_t i = 0; i < n; i++)
		{
			int32_t		a = (int32_t) rng_below(7) - 3;
			int64_t		b = INT64_C(1000000000000) + (int64_t) rng_below(6);

			raw[0][i] = (uint32_t) a;
			valid[0][i] = !(a_null_set && s == 1) && !rng_chance(1, 10);
			raw[1][i] = (uint64_t) b;
			valid[1][i] = !rng_chance(1, 10);
			raw[2][i] = (uint64_t) (int64_t) rng_below(1000);
			valid[2][i] = 1;
			raw[3][i] = (uint32_t) rng_below(10);
			valid[3][i] = 1;
			if ((int) raw[3][i] >= t)
			{
				rows[nrows].a = a;
				rows[nrows].av = valid[0][i];
				rows[nrows].b = b;
				rows[nrows].bv = valid[1][i];
				rows[nrows++].v = (int64_t) raw[2][i];
			}
		}
		flat_set(&sets[s], 4, types, n, (const uint64_t *const *) raw,
				 (const uint8_t *const *) valid);
		for (int k = 0; k < 4; k++)
		{
			free(raw[k]);
			free(valid[k]);
		}
		keep_set(&c, &sets[s], f);
		kept[s] = sets[s].kept[f];
	}
	qsort(rows, nrows, sizeof(mrow), mrow_cmp);
	if (c.ok)
	{
		gpo_pred	p = p_cmp(3, GPO_CMP_GE, t, 0);
		int			keys[2] = {0, 1};
		int			vcol = 2;
		unsigned	agg = GPO_AGG_WANT_SUM | GPO_AGG_WANT_COUNT;
		int64_t		lo[2] = {-1, -1};
		int64_t		width[2] = {-1, -1};
		gpo_expr_error xerr;
		gpo_resident_query q = {&p, 1, -1, 1, &vcol, &agg, 0};
		gpo_agg_strategy strat = GPO_AGG_AUTO;
		gpo_agg_out o;
		gpo_ctx		ctx;
		int64_t		ng = -1;
		int64_t		g = 0;
		gpo_status	st;

		q.nkeys = 2;
		q.key_cols = keys;
		q.key_lo = lo;
		q.key_width = width;
		q.xerr = &xerr;
		make_out(&o, nrows + 1, true);
		test_ctx(&ctx, GPO_DEVICE_AUTO, 0);
		st = gpo_resident_groupagg(&ctx, 3, kept, &q, &strat, &o, &ng);
		expect(&c, st == GPO_OK && xerr.code == GPO_XERR_NONE, "%s (%s)",
			   gpo_status_text(st), ctx.detail);
		expect(&c, lo[0] == -3 || (a_null_set && lo[0] >= -3), "key_lo[0] %lld", (long long) lo[0]);
		expect(&c, lo[1] == INT64_C(1000000000000), "key_lo[1] %lld", (long long) lo[1]);
		expect(&c, width[1] == 7 && width[0] >= 2 && width[0] <= 8, "widths %lld %lld",
			   (long long) width[0], (long long) width[1]);
		for (int64_t i = 0; i < nrows && c.ok && st == GPO_OK; g++)
		{
			int64_t		j = i;
			int64_t		sum = 0;
			int64_t		packed = ((const int64_t *) o.keys)[g];
			int64_t		ca = packed / width[1];
			int64_t		cb = packed % width[1];

			while (j < nrows && mrow_cmp(&rows[i], &rows[j]) == 0)
				sum += rows[j++].v;
			expect(&c, g < ng, "%lld groups, more expected", (long long) ng);
			if (g >= ng)
				break;
			expect(&c, (ca == width[0] - 1) == !rows[i].av &&
				   (!rows[i].av || lo[0] + ca == rows[i].a) &&
				   (cb == width[1] - 1) == !rows[i].bv &&
				   (!rows[i].bv || lo[1] + cb == rows[i].b) && o.key_valid[g],
				   "group %lld: packed %lld, want (%lld %d, %lld %d)", (long long) g,
				   (long long) packed, (long long) rows[i].a, rows[i].av,
				   (long long) rows[i].b, rows[i].bv);
			expect(&c, o.count[g] == j - i && o.isum[g].lo == (uint64_t) sum &&
				   o.isum[g].hi == 0, "group %lld: count %lld sum %lld, want %lld %lld",
				   (long long) g, (long long) o.count[g], (long long) o.isum[g].lo,
				   (long long) (j - i), (long long) sum);
			i = j;
		}
		expect(&c, st != GPO_OK || ng == g, "%lld groups, want %lld", (long long) ng, (long long) g);
		free_out(&o);
	}
	case_result(g, c.ok, c.msg);
	for (int s = 0; s < 3; s++)
		free_set(&sets[s]);
	free(rows);
}

/* Threads of the concurrent case. */
#define NTHREADS	4

/* Several threads aggregate the same sets at once on face f, each its own answer. */
static void
concurrent_case(tgroup *g, int f)
{
	static const gpo_type types[] = {GPO_INT64, GPO_FLOAT64, GPO_INT32};
	tset		sets[3];
	gpo_resident *kept[3];
	gpo_pred	p = p_cmp(2, GPO_CMP_GE, 0, 0);
	int			cols[2] = {1, 2};
	unsigned	aggs[2] = {GPO_AGG_WANT_SUM, GPO_AGG_WANT_MAX};
	gpo_resident_query q = {&p, 1, 0, 2, cols, aggs, 0};
	gpo_agg_out outs[NTHREADS][2];
	gpo_status	st[NTHREADS];
	int64_t		ng[NTHREADS];
	rgroups		rg;
	tcase		c;

	case_begin(&c, "%d threads over the same sets on face %d", NTHREADS, f);
	for (int s = 0; s < 3; s++)
	{
		make_set(&sets[s], 3, types, 20000 + 7919 * s, 300);
		keep_set(&c, &sets[s], f);
		kept[s] = sets[s].kept[f];
	}
	ref_groups(sets, 3, &q, &rg);
	for (int t = 0; t < NTHREADS; t++)
	{
		make_out(&outs[t][0], rg.ng, true);
		make_out(&outs[t][1], rg.ng, true);
	}
#pragma omp parallel for num_threads(NTHREADS) schedule(static, 1)
	for (int t = 0; t < NTHREADS; t++)
	{
		gpo_ctx		ctx;
		gpo_agg_strategy strat = (gpo_agg_strategy) (t % 4);

		if (strat == GPO_AGG_DENSE)
			strat = GPO_AGG_AUTO;
		test_ctx(&ctx, GPO_DEVICE_AUTO, 1);
		st[t] = gpo_resident_groupagg(&ctx, 3, kept, &q, &strat, outs[t], &ng[t]);
	}
	for (int t = 0; t < NTHREADS; t++)
	{
		expect(&c, st[t] == GPO_OK && ng[t] == rg.ng, "thread %d: %s, %lld groups", t,
			   gpo_status_text(st[t]), (long long) ng[t]);
		if (st[t] == GPO_OK)
		{
			check_out(&c, &outs[t][0], &rg, 0, GPO_FLOAT64, false);
			check_out(&c, &outs[t][1], &rg, 1, GPO_INT32, false);
		}
		free_out(&outs[t][0]);
		free_out(&outs[t][1]);
	}
	case_result(g, c.ok, c.msg);
	free_groups(&rg);
	for (int s = 0; s < 3; s++)
		free_set(&sets[s]);
}

/*
 * A view (gpo_resident_view) over the 3 columns of set s's CPU copy into
 * *view; with bounds, told its column 0's bounds (gpo_int_bounds); the status.
 */
static gpo_status
view_of_kept(const tset *s, bool bounds, gpo_resident **view)
{
	const gpo_resident *k = s->kept[0];
	gpo_vector	v[3];
	gpo_chunk	ch[3];
	gpo_ctx		ctx;
	int64_t		lo = 1,
				hi = 0;			/* none valid */
	gpo_status	st;

	for (int j = 0; j < 3; j++)
	{
		ch[j].data = k->cols[j].data;
		ch[j].validity = k->cols[j].valid;
		ch[j].n = k->rows;
		v[j].type = k->cols[j].type;
		v[j].nchunks = 1;
		v[j].chunks = &ch[j];
	}
	test_ctx(&ctx, GPO_DEVICE_CPU, 0);
	st = gpo_resident_view(&ctx, 3, v, view);
	if (st == GPO_OK && bounds)
	{
		gpo_int_bounds(&v[0], &lo, &hi);
		st = gpo_resident_set_bounds(*view, 0, lo, hi);
	}
	return st;
}

/*
 * Views (gpo_resident_view) over the CPU copies of sets give the reference
 * groups, and freeing them leaves the copies alone.
 */
static void
view_case(tgroup *g)
{
	static const gpo_type types[] = {GPO_INT32, GPO_FLOAT64, GPO_INT64};
	tset		sets[3];
	gpo_resident *views[3];
	gpo_pred	p = p_cmp(2, GPO_CMP_GE, 0, 0);
	int			cols[2] = {1, 2};
	unsigned	aggs[2] = {GPO_AGG_WANT_SUM | GPO_AGG_WANT_COUNT, GPO_AGG_WANT_MIN};
	gpo_resident_query q = {&p, 1, 0, 2, cols, aggs, 0};
	gpo_agg_out outs[2];
	gpo_agg_strategy strat = GPO_AGG_AUTO;
	gpo_status	st = GPO_OK;
	gpo_ctx		ctx;
	int64_t		ng = 0;
	rgroups		rg;
	tcase		c;

	case_begin(&c, "views over kept sets' columns");
	for (int s = 0; s < 3; s++)
	{
		make_set(&sets[s], 3, types, s == 1 ? 0 : 5000 + 977 * s, 40);
		keep_set(&c, &sets[s], 0);
		views[s] = NULL;
		if (st == GPO_OK)
			st = view_of_kept(&sets[s], false, &views[s]);
	}
	expect(&c, st == GPO_OK, "view: %s", gpo_status_text(st));
	ref_groups(sets, 3, &q, &rg);
	make_out(&outs[0], rg.ng, true);
	make_out(&outs[1], rg.ng, true);
	if (st == GPO_OK)
	{
		test_ctx(&ctx, GPO_DEVICE_GPU, 0);	/* (a view's face decides) */
		st = gpo_resident_groupagg(&ctx, 3, views, &q, &strat, outs, &ng);
		expect(&c, st == GPO_OK && ng == rg.ng && ctx.used == GPO_DEVICE_CPU,
			   "%s, %lld groups of %lld", gpo_status_text(st), (long long) ng,
			   (long long) rg.ng);
		if (st == GPO_OK)
		{
			check_out(&c, &outs[0], &rg, 0, GPO_FLOAT64, false);
			check_out(&c, &outs[1], &rg, 1, GPO_INT64, false);
		}
	}
	for (int s = 0; s < 3; s++)
		gpo_resident_free(views[s]);
	free_out(&outs[0]);
	free_out(&outs[1]);
	case_result(g, c.ok, c.msg);
	free_groups(&rg);
	for (int s = 0; s < 3; s++)
		free_set(&sets[s]);
}

/*
 * gpo_int_bounds over random INT32 and INT64 columns (random chunking,
 * NULLs, extreme values, all NULL, empty) against a reference, and other
 * types refused.
 */
static void
int_bounds_cases(tgroup *g)
{
	for (int rep = 0; rep < 40; rep++)
	{
		gpo_type	t = rng_chance(1, 2) ? GPO_INT32 : GPO_INT64;
		int64_t		n = rng_chance(1, 8) ? 0 : (int64_t) rng_below(3000);
		int			nulls = rng_chance(1, 8) ? 100 : (int) rng_below(60);
		tcol		col;
		int64_t		lo = 7,
					hi = 7,
					rlo = INT64_MAX,
					rhi = INT64_MIN;
		bool		any = false,
					got;
		tcase		c;

		make_col(&col, t, n, 2 + (int) rng_below(5000), nulls);
		for (int64_t i = 0; i < n; i++)
			if (col.valid[i])
			{
				int64_t		v = int_of(t, col.raw[i]);

				any = true;
				rlo = v < rlo ? v : rlo;
				rhi = v > rhi ? v : rhi;
			}
		case_begin(&c, "int bounds: %s, %lld rows, %d%% NULL", t == GPO_INT32 ? "int32" : "int64",
				   (long long) n, nulls);
		got = gpo_int_bounds(&col.t.v, &lo, &hi);
		expect(&c, got == any, "found %d, want %d", (int) got, (int) any);
		if (any)
			expect(&c, lo == rlo && hi == rhi, "[%lld, %lld], want [%lld, %lld]",
				   (long long) lo, (long long) hi, (long long) rlo, (long long) rhi);
		tvec_free(&col.t);
		free(col.raw);
		free(col.valid);
		case_result(g, c.ok, c.msg);
	}
	{
		tcol		col;
		int64_t		lo,
					hi;
		tcase		c;

		case_begin(&c, "int bounds: float and unsigned columns refused");
		make_col(&col, GPO_FLOAT64, 10, 5, 0);
		expect(&c, !gpo_int_bounds(&col.t.v, &lo, &hi), "float64 taken");
		tvec_free(&col.t);
		free(col.raw);
		free(col.valid);
		make_col(&col, GPO_UINT32, 10, 5, 0);
		expect(&c, !gpo_int_bounds(&col.t.v, &lo, &hi), "uint32 taken");
		tvec_free(&col.t);
		free(col.raw);
		free(col.valid);
		case_result(g, c.ok, c.msg);
	}
}

/*
 * Rewrites column c's values (INT64 or INT32) to lie in [0, span), but row
 * 0's, which becomes top (valid); the vector is filled again.
 */
static void
narrow_col(tcol *c, int64_t n, int64_t span, int64_t top)
{
	size_t		w = gpo_type_size(c->type);
	char	   *flat = malloc(w * (n + 1));

	for (int64_t i = 0; i < n; i++)
	{
		int64_t		v = i == 0 ? top : (int64_t) (c->raw[i] % (uint64_t) span);

		c->raw[i] = c->type == GPO_INT32 ? (uint32_t) (int32_t) v : (uint64_t) v;
		c->valid[i] |= i == 0;
		memcpy(flat + i * w, &c->raw[i], w);
	}
	tvec_fill(&c->t, flat, c->valid);
	free(flat);
}

/*
 * Views told their key column's bounds give the reference groups; a view
 * told bounds its keys fall outside makes the call fail (GPO_ERR_INVALID),
 * not answer wrong; set_bounds refuses a float column.
 */
static void
bounds_view_case(tgroup *g)
{
	static const gpo_type types[] = {GPO_INT64, GPO_FLOAT64, GPO_INT32};
	tset		sets[4];
	gpo_resident *views[4];
	gpo_pred	p = p_cmp(2, GPO_CMP_LT, 10, 0);
	int			cols[2] = {1, -1};
	unsigned	aggs[2] = {GPO_AGG_WANT_SUM | GPO_AGG_WANT_COUNT | GPO_AGG_WANT_MAX, 0};
	gpo_resident_query q = {&p, 1, 0, 2, cols, aggs, 0};
	gpo_agg_out outs[2];
	gpo_agg_strategy strat = GPO_AGG_AUTO;
	gpo_status	st = GPO_OK;
	gpo_ctx		ctx;
	int64_t		ng = 0;
	rgroups		rg;
	tcase		c;

	case_begin(&c, "views told their key bounds");
	for (int s = 0; s < 4; s++)
	{
		make_set(&sets[s], 3, types, s == 2 ? 0 : 3000 + 1111 * s, 30);
		if (sets[s].n > 0)
		{
			/* keys in [0, 50), but set 3's row 0: 50, and it passes */
			narrow_col(&sets[s].cols[0], sets[s].n, 50, s == 3 ? 50 : 0);
			narrow_col(&sets[s].cols[2], sets[s].n, 20, 0);
		}
		keep_set(&c, &sets[s], 0);
		views[s] = NULL;
		if (st == GPO_OK)
			st = view_of_kept(&sets[s], true, &views[s]);
	}
	expect(&c, st == GPO_OK, "view: %s", gpo_status_text(st));
	if (st == GPO_OK)
		expect(&c, gpo_resident_set_bounds(views[0], 1, 0, 1) == GPO_ERR_INVALID,
			   "bounds of a float column taken");
	ref_groups(sets, 4, &q, &rg);
	make_out(&outs[0], rg.ng, true);
	make_out(&outs[1], rg.ng, true);
	if (st == GPO_OK)
	{
		test_ctx(&ctx, GPO_DEVICE_CPU, 0);
		st = gpo_resident_groupagg(&ctx, 4, views, &q, &strat, outs, &ng);
		expect(&c, st == GPO_OK && ng == rg.ng && strat == GPO_AGG_DENSE,
			   "%s, %lld groups of %lld, %s (%s)", gpo_status_text(st),
			   (long long) ng, (long long) rg.ng, gpo_agg_strategy_name(strat),
			   ctx.detail);
		if (st == GPO_OK)
		{
			check_out(&c, &outs[0], &rg, 0, GPO_FLOAT64, false);
			check_out(&c, &outs[1], &rg, 1, -1, false);
		}
		/* set 3's keys said to end below its largest, 50: refused, not wrong */
		gpo_resident_set_bounds(views[3], 0, 0, 49);
		strat = GPO_AGG_AUTO;
		st = gpo_resident_groupagg(&ctx, 4, views, &q, &strat, outs, &ng);
		expect(&c, st == GPO_ERR_INVALID, "wrong bounds: %s", gpo_status_text(st));
	}
	for (int s = 0; s < 4; s++)
		gpo_resident_free(views[s]);
	free_out(&outs[0]);
	free_out(&outs[1]);
	case_result(g, c.ok, c.msg);
	free_groups(&rg);
	for (int s = 0; s < 4; s++)
		free_set(&sets[s]);
}

/* Expects gpo_resident_groupagg to reject its arguments with GPO_ERR_INVALID. */
static void
reject(tgroup *g, const char *name, int nsets, gpo_resident *const *sets,
	   const gpo_resident_query *q, gpo_agg_strategy strat, int64_t cap)
{
	gpo_agg_out outs[GPO_AGG_MAX_REQS + 1];
	gpo_ctx		ctx;
	int64_t		ng = 0;
	gpo_status	st;
	tcase		c;

	memset(outs, 0, sizeof(outs));
	for (int r = 0; r <= GPO_AGG_MAX_REQS; r++)
		outs[r].capacity = cap;
	case_begin(&c, "rejects %s", name);
	test_ctx(&ctx, GPO_DEVICE_CPU, 0);
	st = gpo_resident_groupagg(&ctx, nsets, sets, q, &strat, outs, &ng);
	expect(&c, st == GPO_ERR_INVALID && ctx.detail[0], "%s", gpo_status_text(st));
	case_result(g, c.ok, c.msg);
}

/* Rejected aggregations over sets of face f (when kept there). */
static void
invalid_face(tgroup *g, tset *a, tset *b, tset *u, int f)
{
	gpo_resident *ab[2] = {a->kept[f], b->kept[f]};
	gpo_resident *aa[2] = {a->kept[f], a->kept[f]};
	gpo_resident *au[2] = {a->kept[f], u->kept[f]};
	gpo_resident *an[2] = {a->kept[f], NULL};
	gpo_pred	p[2] = {p_cmp(0, GPO_CMP_EQ, 1, 0), p_node(GPO_PRED_AND, 0, 1)};
	int			cols[GPO_AGG_MAX_REQS + 1];
	unsigned	aggs[GPO_AGG_MAX_REQS + 1];
	gpo_resident_query ok = {p, 1, 0, 1, cols, aggs, 0};
	gpo_resident_query q;
	gpo_agg_strategy strat = GPO_AGG_AUTO;
	int64_t		ng;
	gpo_ctx		ctx;
	tcase		c;

	memset(cols, 0, sizeof(cols));
	memset(aggs, 0, sizeof(aggs));
	cols[0] = 1;
	reject(g, "sets of different column types", 2, ab, &ok, GPO_AGG_AUTO, 10);
	reject(g, "sets of different columns", 2, au, &ok, GPO_AGG_AUTO, 10);
	reject(g, "a NULL set", 2, an, &ok, GPO_AGG_AUTO, 10);
	reject(g, "nsets -1", -1, aa, &ok, GPO_AGG_AUTO, 10);
	reject(g, "NULL sets", 1, NULL, &ok, GPO_AGG_AUTO, 10);
	reject(g, "no query", 2, aa, NULL, GPO_AGG_AUTO, 10);
	reject(g, "an unknown strategy", 2, aa, &ok, (gpo_agg_strategy) 7, 10);
	reject(g, "a negative capacity", 2, aa, &ok, GPO_AGG_AUTO, -1);
	q = ok;
	q.nnodes = 2;
	reject(g, "AND of one", 2, aa, &q, GPO_AGG_AUTO, 10);
	q.nnodes = -1;
	reject(g, "nnodes -1", 2, aa, &q, GPO_AGG_AUTO, 10);
	q = ok;
	q.prog = NULL;
	reject(g, "a NULL program", 2, aa, &q, GPO_AGG_AUTO, 10);
	p[1] = p_cmp(3, GPO_CMP_EQ, 1, 0);
	q = ok;
	q.prog = &p[1];
	reject(g, "a program column out of range", 2, aa, &q, GPO_AGG_AUTO, 10);
	q = ok;
	q.key_col = 3;
	reject(g, "a key column out of range", 2, aa, &q, GPO_AGG_AUTO, 10);
	q.key_col = -2;
	reject(g, "key column -2", 2, aa, &q, GPO_AGG_AUTO, 10);
	q.key_col = 2;
	reject(g, "a uint8 key", 2, aa, &q, GPO_AGG_AUTO, 10);
	q = ok;
	cols[0] = 3;
	reject(g, "a value column out of range", 2, aa, &q, GPO_AGG_AUTO, 10);
	cols[0] = 2;
	reject(g, "uint8 values", 2, aa, &q, GPO_AGG_AUTO, 10);
	cols[0] = 1;
	q.nreqs = GPO_AGG_MAX_REQS + 1;
	reject(g, "too many requests", 2, aa, &q, GPO_AGG_AUTO, 10);
	q.nreqs = -1;
	reject(g, "nreqs -1", 2, aa, &q, GPO_AGG_AUTO, 10);
	q.nreqs = 1;
	q.val_cols = NULL;
	reject(g, "no value columns", 2, aa, &q, GPO_AGG_AUTO, 10);
	q = ok;
	q.key_col = 1;
	p[0] = p_node(GPO_PRED_CONST, 0, 0);
	reject(g, "dense over float keys, no row passing", 2, aa, &q, GPO_AGG_DENSE, 10);

	case_begin(&c, "face %d: no context, no outputs", f);
	expect(&c, gpo_resident_groupagg(NULL, 2, aa, &ok, &strat, NULL, &ng) == GPO_ERR_INVALID,
		   "no context");
	test_ctx(&ctx, GPO_DEVICE_CPU, 0);
	expect(&c, gpo_resident_groupagg(&ctx, 2, aa, &ok, &strat, NULL, &ng) == GPO_ERR_INVALID,
		   "no outputs");
	expect(&c, gpo_resident_groupagg(&ctx, 2, aa, &ok, NULL, NULL, &ng) == GPO_ERR_INVALID,
		   "no strategy");
	case_result(g, c.ok, c.msg);
}

/* Rejected aggregations: mismatched sets, bad programs, columns and requests. */
static void
invalid_cases(tgroup *g)
{
	static const gpo_type ta[] = {GPO_INT32, GPO_FLOAT64, GPO_UINT8};
	static const gpo_type tb[] = {GPO_INT64, GPO_FLOAT64, GPO_UINT8};
	tset		a,
				b,
				u;
	tcase		c;

	make_set(&a, 3, ta, 50, 5);
	make_set(&b, 3, tb, 40, 5);
	make_set(&u, 2, ta, 30, 5);
	case_begin(&c, "sets to reject");
	for (int f = 0; f < (have_gpu ? 2 : 1); f++)
	{
		keep_set(&c, &a, f);
		keep_set(&c, &b, f);
		keep_set(&c, &u, f);
	}
	case_result(g, c.ok, c.msg);
	invalid_face(g, &a, &b, &u, 0);
	if (have_gpu)
	{
		gpo_resident *mixed[2] = {a.kept[0], a.kept[1]};
		int			col = 1;
		unsigned	agg = 0;
		gpo_resident_query q = {NULL, 0, 0, 1, &col, &agg, 0};

		invalid_face(g, &a, &b, &u, 1);
		reject(g, "sets of two faces", 2, mixed, &q, GPO_AGG_AUTO, 10);
	}
	else
		gpu_skip(g);
	free_set(&a);
	free_set(&b);
	free_set(&u);
}

/* The star join's tests (test_resident_dims.c). */
extern void test_resident_dims(tgroup *g);

/* All tests of the kept column sets. */
void
test_resident(void)
{
	static const int64_t most[] = {1, 5, 100, 3000, 70000};
	tgroup		g;

	group_begin(&g, "resident");
	put_cases(&g);
	hand_cases(&g);
	invalid_cases(&g);
	view_case(&g);
	int_bounds_cases(&g);
	bounds_view_case(&g);
	for (int f = 0; f < 2; f++)
		if (f == 0 || have_gpu)
			concurrent_case(&g, f);
		else
			gpu_skip(&g);
	for (int rep = 0; rep < 6; rep++)
		for (int f = 0; f < 2; f++)
			if (f == 0 || have_gpu)
				multikey_case(&g, f);
			else
				gpu_skip(&g);
	for (int z = 0; z < 5; z++)
		for (int rep = 0; rep < 12; rep++)
			random_case(&g, (int) rng_below(MAX_SETS + 1), most[z]);
	/* many sets: the CPU face filters them one a thread */
	for (int rep = 0; rep < 6; rep++)
		random_case(&g, MANY_SETS - (int) rng_below(MANY_SETS / 2), 3000);
	for (int rep = 0; rep < 2; rep++)
		random_case(&g, 1 + (int) rng_below(3), 400000);
	/* last: it seeds the generator itself */
	test_resident_dims(&g);
	group_end(&g);
}
