/*
 * test_resident_dims.c
 *	  Unit tests of the star join of gpo_resident_groupagg (gpo_resident.h:
 *	  gpo_resident_dim, gpo_resident_dimcol): random joins of fact sets to
 *	  1 .. 3 dimensions (inner, anti and left joins; row maps with holes,
 *	  spans 0 and 1, dimensions of no row; keys NULL and out of range)
 *	  grouped by a dimension column, by packed keys of a set column and a
 *	  dimension column, by a computed column over one, or by nothing,
 *	  against a naive reference (program, then joins, then a sort of the
 *	  joined rows); rejected dimensions and dimension columns; INT64 and
 *	  INT32 keys at their extremes.  Every case runs on the CPU face, and on
 *	  the GPU face when there is one.
 *
 * The seeds are fixed (SEED), so a failure repeats whatever GPO_TEST_SEED
 * says; every case's message names its seed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpo_internal.h"
#include "gpo_resident_internal.h"
#include "test_resident_util.h"
#include "test_util.h"

/* The fact sets' columns: two join keys, a small group column, two values. */
#define NCOLS		5
#define C_KA		0			/* INT32 or INT64 join key */
#define C_KB		1			/* INT32 or INT64 join key */
#define C_G			2			/* INT32 in [-3, 3], NULLs */
#define C_V			3			/* INT64, NULLs */
#define C_F			4			/* FLOAT64 (finite), NULLs */

/* Sets, dimensions, dimension columns and requests of a case at most. */
#define MAX_SETS	5
#define MAX_DIMS	3
#define MAX_DCOLS	4
#define MAX_REQS	5
/* Nodes of a random WHERE program at most (depth 3, fan-out 3: 40). */
#define MAX_NODES	64
/* Keys of a random dimension's range around its base, at most. */
#define KEY_RANGE	60
/* The packed key, as a reference query column. */
#define QC_PACKED	(-2)
/* The fixed seed of these tests. */
#define SEED		UINT64_C(0x5EED0D135)

/* Reference truth values. */
#define RF	0
#define RT	1
#define RN	2

/* A fact column: raw bits a row (INT32 zero-extended), valid bytes, the vector. */
typedef struct fcol
{
	gpo_type	type;
	uint64_t   *raw;
	uint8_t    *valid;
	tvec		t;
} fcol;

/* A fact set: n rows of NCOLS columns, and its kept copies ([0] CPU, [1] GPU). */
typedef struct fset
{
	int64_t		n;
	fcol		cols[NCOLS];
	gpo_resident *kept[2];
} fset;

/* A dimension column on the host: raw bits and valid bytes (NULL: all valid) a row. */
typedef struct hdcol
{
	int			dim;
	gpo_type	type;
	int64_t		rows;
	uint64_t   *raw;
	uint8_t    *valid;
	void	   *flat;			/* the values as the engine reads them */
	bool		bounded;
	int64_t		lo;
	int64_t		hi;
} hdcol;

/*
 * A star: dimensions (row maps on the host) and their columns, and the
 * gpo_resident_dim and gpo_resident_dimcol arrays a query points to (host
 * memory on either face: the GPU face copies them for the call).
 */
typedef struct star
{
	int			ndims;
	int			ndimcols;
	gpo_resident_dim hdims[MAX_DIMS];
	int32_t    *row_of[MAX_DIMS];
	hdcol		dc[MAX_DCOLS];
	gpo_resident_dim dims[MAX_DIMS];
	gpo_resident_dimcol dcols[MAX_DCOLS];
} star;

/* A query and what it points to (never copied once made). */
typedef struct tquery
{
	gpo_resident_query q;
	gpo_pred	prog[MAX_NODES];
	int			cols[MAX_REQS];
	unsigned	aggs[MAX_REQS];
	int			keys[2];
	int64_t		key_lo[2];
	int64_t		key_width[2];
	int64_t		want_lo[2];		/* the packing the reference expects */
	int64_t		want_width[2];
	gpo_resident_expr exprs[2];
	gpo_xnode	xprog[2][3];
	int			xdc;			/* computed column 0 doubles dimension column xdc */
	gpo_type	ktype[2];		/* the sets' join key columns' types */
	gpo_expr_error xerr;
	const char *mode;
} tquery;

/* A joined passing row of the reference: its set, row, and each dimension's row. */
typedef struct jrow
{
	const fset *s;
	int64_t		i;
	int64_t		drow[MAX_DIMS];
} jrow;

/* A joined row's key and request values (canonical raw bits). */
typedef struct rrow
{
	bool		kv;
	uint64_t	key;
	bool		vv[MAX_REQS];
	uint64_t	val[MAX_REQS];
} rrow;

/* Reference aggregates of one group for one request. */
typedef struct ragg
{
	int64_t		rows;
	int64_t		count;
	__int128	isum;
	double		fsum;			/* of the finite values */
	double		fabs;			/* of |finite values|, for the tolerance */
	uint64_t	mn,
				mx;
	uint8_t		fflags;
} ragg;

/* Reference groups: key order, NULL key last; aggs[g * nreq + r]. */
typedef struct rgroups
{
	int64_t		ng;
	int64_t		nrows;			/* joined passing rows */
	gpo_type	kt;
	bool	   *kvalid;
	uint64_t   *key;
	ragg	   *aggs;
	int			nreq;
	int			vt[MAX_REQS];	/* value types, -1: none */
	uint64_t	span;			/* key span of the keyed groups */
} rgroups;

/* The key type of the reference sort. */
static gpo_type sort_kt;

/* The value of raw bits of an integer type, widened. */
static int64_t
ival_of(gpo_type t, uint64_t r)
{
	return t == GPO_INT32 ? (int64_t) (int32_t) (uint32_t) r : (int64_t) r;
}

/* The raw bits (INT32 zero-extended) of an integer value of type t. */
static uint64_t
raw_int(gpo_type t, int64_t v)
{
	return t == GPO_INT32 ? (uint64_t) (uint32_t) (int32_t) v : (uint64_t) v;
}

/* ---- fact sets ---- */

/* Allocates a set of n rows, key columns of types kt (values unset). */
static void
fset_alloc(fset *s, int64_t n, const gpo_type *kt)
{
	static const gpo_type rest[] = {GPO_INT32, GPO_INT64, GPO_FLOAT64};

	memset(s, 0, sizeof(*s));
	s->n = n;
	for (int c = 0; c < NCOLS; c++)
	{
		s->cols[c].type = c < 2 ? kt[c] : rest[c - 2];
		s->cols[c].raw = calloc(n + 1, sizeof(uint64_t));
		s->cols[c].valid = calloc(n + 1, 1);
	}
}

/* Makes the vectors of s from its raw values (random chunking; drop: some bitmaps dropped). */
static void
fset_finish(fset *s, bool drop)
{
	for (int c = 0; c < NCOLS; c++)
	{
		fcol	   *fc = &s->cols[c];
		size_t		w = gpo_type_size(fc->type);
		char	   *flat = malloc(w * (s->n + 1));

		for (int64_t i = 0; i < s->n; i++)
			memcpy(flat + i * w, &fc->raw[i], w);
		tvec_make_kind(&fc->t, fc->type, random_kind(s->n), s->n, true);
		if (drop)
			tvec_drop_some_bitmaps(&fc->t, fc->valid);
		tvec_fill(&fc->t, flat, fc->valid);
		free(flat);
	}
}

/* A random fact key of type t near base: 1 in 16 an extreme of the type. */
static int64_t
rand_key(gpo_type t, int64_t base)
{
	static const int64_t far[] = {INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1,
	INT32_MIN, INT32_MAX, 0, -1};

	if (rng_chance(1, 16))
		return t == GPO_INT32 ? (rng_chance(1, 2) ? INT32_MIN : INT32_MAX) :
			far[rng_below(sizeof(far) / sizeof(far[0]))];
	return base + (int64_t) rng_below(KEY_RANGE + 20) - 10;
}

/*
 * Fills s's rows at random: keys near base (all NULL where dead), NULLs at
 * random; its vectors (drop: some bitmaps dropped, those rows then valid).
 */
static void
fset_random(fset *s, const int64_t *base, bool dead, bool drop)
{
	int			knull = (int) rng_below(30);

	for (int64_t i = 0; i < s->n; i++)
	{
		for (int c = 0; c < 2; c++)
		{
			s->cols[c].raw[i] = raw_int(s->cols[c].type, rand_key(s->cols[c].type, base[c]));
			s->cols[c].valid[i] = !dead && (int) rng_below(100) >= knull;
		}
		s->cols[C_G].raw[i] = raw_int(GPO_INT32, (int64_t) rng_below(7) - 3);
		s->cols[C_G].valid[i] = !rng_chance(1, 10);
		s->cols[C_V].raw[i] = (uint64_t) ((int64_t) rng_below(2000001) - 1000000);
		s->cols[C_V].valid[i] = !rng_chance(1, 8);
		s->cols[C_F].raw[i] = tres_raw_of_dbl(GPO_FLOAT64, ((double) rng_below(2001) - 1000) / 4);
		s->cols[C_F].valid[i] = !rng_chance(1, 8);
	}
	fset_finish(s, drop);
}

/* Keeps s on face f (0 CPU, 1 GPU); expects the put to succeed. */
static bool
fset_keep(tcase *c, fset *s, int f)
{
	gpo_vector	v[NCOLS];
	gpo_ctx		ctx;
	gpo_status	st;

	for (int k = 0; k < NCOLS; k++)
		v[k] = s->cols[k].t.v;
	test_ctx(&ctx, f ? GPO_DEVICE_GPU : GPO_DEVICE_CPU, 0);
	st = gpo_resident_put(&ctx, NCOLS, v, &s->kept[f]);
	return expect(c, st == GPO_OK && s->kept[f] != NULL &&
				  gpo_resident_face(s->kept[f]) == (f ? GPO_DEVICE_GPU : GPO_DEVICE_CPU),
				  "put on face %d: %s (%s)", f, gpo_status_text(st), ctx.detail);
}

/* Keeps s on every face there is. */
static void
fset_keep_all(tcase *c, fset *s)
{
	fset_keep(c, s, 0);
	if (have_gpu)
		fset_keep(c, s, 1);
}

/* Frees a set and its kept copies. */
static void
fset_free(fset *s)
{
	gpo_resident_free(s->kept[0]);
	gpo_resident_free(s->kept[1]);
	for (int c = 0; c < NCOLS; c++)
	{
		tvec_free(&s->cols[c].t);
		free(s->cols[c].raw);
		free(s->cols[c].valid);
	}
}

/* ---- stars ---- */

/* The arrays of st a query points to. */
static void
star_arrays(star *st)
{
	for (int d = 0; d < st->ndims; d++)
		st->dims[d] = st->hdims[d];
	for (int k = 0; k < st->ndimcols; k++)
	{
		const hdcol *h = &st->dc[k];
		gpo_resident_dimcol *o = &st->dcols[k];

		o->dim = h->dim;
		o->type = h->type;
		o->data = h->flat;
		o->valid = h->valid;
		o->bounded = h->bounded;
		o->lo = h->lo;
		o->hi = h->hi;
	}
}

/* Frees what st holds. */
static void
star_free(star *st)
{
	for (int d = 0; d < st->ndims; d++)
		free(st->row_of[d]);
	for (int k = 0; k < st->ndimcols; k++)
	{
		free(st->dc[k].raw);
		free(st->dc[k].valid);
		free(st->dc[k].flat);
	}
}

/* Sets dimension d of st: key column kc, kind, keys [lo, lo + span), rows, its row map (malloc'd). */
static int32_t *
dim_set(star *st, int d, int kc, gpo_resident_join kind, int64_t lo,
		int64_t span, int64_t rows)
{
	gpo_resident_dim *dim = &st->hdims[d];

	dim->key_col = kc;
	dim->kind = kind;
	dim->lo = lo;
	dim->span = span;
	dim->rows = rows;
	st->row_of[d] = malloc(sizeof(int32_t) * (size_t) (span + 1));
	/* span 0: sometimes no row map at all */
	dim->row_of = span > 0 || rng_chance(1, 2) ? st->row_of[d] : NULL;
	return st->row_of[d];
}

/* A random dimension d of st over key columns whose keys lie near base. */
static void
dim_random(star *st, int d, const int64_t *base)
{
	int			kc = (int) rng_below(2);
	int64_t		span = rng_chance(1, 8) ? 0 : rng_chance(1, 7) ? 1 :
		(int64_t) rng_below(KEY_RANGE + 1);
	int64_t		rows = rng_chance(1, 6) ? 0 : (int64_t) rng_below(span + 4);
	int32_t    *perm = malloc(sizeof(int32_t) * (size_t) (rows + 1));
	int32_t    *row_of = dim_set(st, d, kc, (gpo_resident_join) rng_below(3),
								 base[kc] + (int64_t) rng_below(21) - 10, span, rows);
	int64_t		next = 0;

	/* each dimension row at most one key (a dimension's keys are unique) */
	for (int64_t r = 0; r < rows; r++)
		perm[r] = (int32_t) r;
	for (int64_t r = rows - 1; r > 0; r--)
	{
		int64_t		o = (int64_t) rng_below(r + 1);
		int32_t		x = perm[r];

		perm[r] = perm[o];
		perm[o] = x;
	}
	for (int64_t k = 0; k < span; k++)
		row_of[k] = rng_chance(1, 4) || next >= rows ? -1 : perm[next++];
	free(perm);
}

/* Allocates dimension column h of dimension dim: rows of type, values unset. */
static void
dcol_alloc(hdcol *h, int dim, gpo_type type, int64_t rows, bool nulls)
{
	memset(h, 0, sizeof(*h));
	h->dim = dim;
	h->type = type;
	h->rows = rows;
	h->raw = calloc(rows + 1, sizeof(uint64_t));
	h->valid = nulls ? calloc(rows + 1, 1) : NULL;
	h->flat = rows > 0 || rng_chance(1, 2) ? calloc(rows + 1, 8) : NULL;
}

/* Makes h's flat values from its raw ones, and its bounds (widened by up to 2). */
static void
dcol_finish(hdcol *h, bool widen)
{
	size_t		w = gpo_type_size(h->type);

	h->lo = 1;
	h->hi = 0;
	for (int64_t r = 0; r < h->rows; r++)
	{
		memcpy((char *) h->flat + r * w, &h->raw[r], w);
		if (tres_is_float(h->type) || (h->valid != NULL && !h->valid[r]))
			continue;
		if (h->lo > h->hi || ival_of(h->type, h->raw[r]) < h->lo)
			h->lo = ival_of(h->type, h->raw[r]);
		if (h->hi < h->lo || ival_of(h->type, h->raw[r]) > h->hi)
			h->hi = ival_of(h->type, h->raw[r]);
	}
	if (widen && h->lo <= h->hi)
	{
		h->lo -= (int64_t) rng_below(3);
		h->hi += (int64_t) rng_below(3);
	}
	h->bounded = !tres_is_float(h->type) && !rng_chance(1, 8);
}

/* A random value of dimension column type t: small integers around off, halves, -0.0, NaN. */
static uint64_t
dval_random(gpo_type t, int64_t off)
{
	if (!tres_is_float(t))
		return raw_int(t, off + (int64_t) rng_below(11) - 5);
	if (rng_chance(1, 10))
		return tres_raw_of_dbl(t, -0.0);
	if (rng_chance(1, 20))
		return tres_raw_of_dbl(t, NAN);
	return tres_raw_of_dbl(t, ((double) rng_below(21) - 10) / 2);
}

/* A random column k of st over dimension dim. */
static void
dcol_random(star *st, int k, int dim)
{
	static const gpo_type types[] = {GPO_INT32, GPO_INT64, GPO_FLOAT64, GPO_INT64,
	GPO_INT32, GPO_FLOAT64, GPO_FLOAT32};
	static const int64_t offs[] = {0, 1000, INT64_C(1000000000000), -(INT64_C(1) << 50)};
	gpo_type	t = types[rng_below(sizeof(types) / sizeof(types[0]))];
	int64_t		off = t == GPO_INT64 ? offs[rng_below(4)] : offs[rng_below(2)];
	hdcol	   *h = &st->dc[k];

	dcol_alloc(h, dim, t, st->hdims[dim].rows, !rng_chance(1, 3));
	for (int64_t r = 0; r < h->rows; r++)
	{
		h->raw[r] = dval_random(t, off);
		if (h->valid != NULL)
			h->valid[r] = !rng_chance(1, 5);
	}
	dcol_finish(h, rng_chance(1, 2));
}

/* A random star over key columns whose keys lie near base: 1 .. MAX_DIMS dimensions. */
static void
star_random(star *st, const int64_t *base)
{
	int			joined[MAX_DIMS];
	int			nj = 0;

	memset(st, 0, sizeof(*st));
	st->ndims = 1 + (int) rng_below(MAX_DIMS);
	for (int d = 0; d < st->ndims; d++)
	{
		dim_random(st, d, base);
		if (st->hdims[d].kind != GPO_RESIDENT_ANTI)
			joined[nj++] = d;
	}
	/* columns of the inner and left joins only */
	st->ndimcols = nj == 0 || rng_chance(1, 6) ? 0 : 1 + (int) rng_below(MAX_DCOLS);
	for (int k = 0; k < st->ndimcols; k++)
		dcol_random(st, k, joined[rng_below(nj)]);
}

/* ---- the reference ---- */

/* The reference truth value of leaf p (CMP, NULLTEST, CONST) at row i of s. */
static int
ref_leaf(const gpo_pred *p, const fset *s, int64_t i)
{
	const fcol *c = &s->cols[p->column];
	int			r;

	if (p->kind == GPO_PRED_NULLTEST)
		return (c->valid[i] == 0) != p->is_not ? RT : RF;
	if (p->kind == GPO_PRED_CONST)
		return p->const_null ? RN : p->const_bool ? RT : RF;
	if (p->const_null || !c->valid[i])
		return RN;
	if (tres_is_float(c->type))
		r = tres_pg_fcmp(tres_dbl_of(c->type, c->raw[i]), p->fval);
	else
	{
		int64_t		x = ival_of(c->type, c->raw[i]);

		r = x < p->ival ? -1 : x > p->ival;
	}
	return (p->op == GPO_CMP_EQ ? r == 0 : p->op == GPO_CMP_NE ? r != 0 :
			p->op == GPO_CMP_LT ? r < 0 : p->op == GPO_CMP_LE ? r <= 0 :
			p->op == GPO_CMP_GT ? r > 0 : r >= 0) ? RT : RF;
}

/* The reference: program prog's truth value at row i of s. */
static int
ref_eval(const gpo_pred *prog, int nnodes, const fset *s, int64_t i)
{
	int			stk[MAX_NODES];
	int			sp = 0;

	for (int k = 0; k < nnodes; k++)
	{
		const gpo_pred *p = &prog[k];
		bool		any_f = false,
					any_t = false,
					any_n = false;

		if (p->kind == GPO_PRED_NOT)
		{
			stk[sp - 1] = stk[sp - 1] == RN ? RN : stk[sp - 1] == RT ? RF : RT;
			continue;
		}
		if (p->kind != GPO_PRED_AND && p->kind != GPO_PRED_OR)
		{
			stk[sp++] = ref_leaf(p, s, i);
			continue;
		}
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
	}
	return stk[0];
}

/*
 * The dimension row of a key (valid: not NULL) of dimension dim (row map
 * row_of), by wide arithmetic, not the engine's unsigned offset: -1 for none.
 */
static int64_t
ref_dim_row(const gpo_resident_dim *dim, const int32_t *row_of, bool valid,
			int64_t key)
{
	__int128	off = (__int128) key - (__int128) dim->lo;

	if (!valid || off < 0 || off >= (__int128) dim->span)
		return -1;
	return row_of[(int64_t) off];
}

/* The reference's joined passing rows of q over the sets, in set order (malloc'd); *n of them. */
static jrow *
ref_join(const fset *sets, int nsets, const star *st,
		 const gpo_resident_query *q, int64_t *n)
{
	int64_t		all = 0;
	jrow	   *rows;

	for (int s = 0; s < nsets; s++)
		all += sets[s].n;
	rows = malloc(sizeof(jrow) * (size_t) (all + 1));
	*n = 0;
	for (int s = 0; s < nsets; s++)
		for (int64_t i = 0; i < sets[s].n; i++)
		{
			jrow	   *j = &rows[*n];
			bool		keep = q->nnodes == 0 || ref_eval(q->prog, q->nnodes, &sets[s], i) == RT;

			for (int d = 0; d < st->ndims && keep; d++)
			{
				const gpo_resident_dim *dim = &st->hdims[d];
				const fcol *k = &sets[s].cols[dim->key_col];

				j->drow[d] = ref_dim_row(dim, st->row_of[d], k->valid[i],
										 ival_of(k->type, k->raw[i]));
				keep = dim->kind == GPO_RESIDENT_LEFT ||
					(dim->kind == GPO_RESIDENT_ANTI) == (j->drow[d] < 0);
			}
			j->s = &sets[s];
			j->i = i;
			*n += keep;
		}
	return rows;
}

/* The type of query column c of tq (QC_PACKED: the packed key). */
static gpo_type
qcol_type(const star *st, const tquery *tq, int c)
{
	if (c == QC_PACKED)
		return GPO_INT64;
	if (gpo_resident_is_dim_col(c))
		return st->dc[c - GPO_RESIDENT_DIM_COL(0)].type;
	if (c >= GPO_RESIDENT_MAX_COLS)
		return tq->exprs[c - GPO_RESIDENT_MAX_COLS].type;
	return c < 2 ? tq->ktype[c] : c == C_G ? GPO_INT32 : c == C_V ? GPO_INT64 : GPO_FLOAT64;
}

static bool qcol_value(const star *st, const tquery *tq, const jrow *r, int c,
					   uint64_t *raw);

/* Computed column e of tq at joined row r (0: dimension column xdc * 2; 1: that + v). */
static bool
expr_value(const star *st, const tquery *tq, const jrow *r, int e, uint64_t *raw)
{
	gpo_type	t = st->dc[tq->xdc].type;
	uint64_t	v,
				w;

	if (!qcol_value(st, tq, r, GPO_RESIDENT_DIM_COL(tq->xdc), &v))
		return false;
	if (tres_is_float(t))
		*raw = tres_raw_of_dbl(t, tres_dbl_of(t, v) * 2);
	else
		*raw = raw_int(t, ival_of(t, v) * 2);
	if (e == 0)
		return true;
	if (!qcol_value(st, tq, r, C_V, &w))
		return false;
	*raw = (uint64_t) (ival_of(t, *raw) + (int64_t) w);
	return true;
}

/* The packed key of tq at joined row r, by the packing the reference expects. */
static uint64_t
packed_value(const star *st, const tquery *tq, const jrow *r)
{
	int64_t		p = 0;

	for (int k = 0; k < 2; k++)
	{
		uint64_t	v;
		gpo_type	t = qcol_type(st, tq, tq->keys[k]);
		int64_t		code = qcol_value(st, tq, r, tq->keys[k], &v) ?
			ival_of(t, v) - tq->want_lo[k] : tq->want_width[k] - 1;

		p = p * tq->want_width[k] + code;
	}
	return (uint64_t) p;
}

/* Query column c's value at joined row r into *raw; whether it is valid (not NULL). */
static bool
qcol_value(const star *st, const tquery *tq, const jrow *r, int c, uint64_t *raw)
{
	*raw = 0;
	if (c == QC_PACKED)
	{
		*raw = packed_value(st, tq, r);
		return true;
	}
	if (gpo_resident_is_dim_col(c))
	{
		const hdcol *h = &st->dc[c - GPO_RESIDENT_DIM_COL(0)];
		int64_t		row = r->drow[h->dim];

		if (row < 0 || (h->valid != NULL && !h->valid[row]))
			return false;
		*raw = h->raw[row];
		return true;
	}
	if (c >= GPO_RESIDENT_MAX_COLS)
		return expr_value(st, tq, r, c - GPO_RESIDENT_MAX_COLS, raw);
	*raw = r->s->cols[c].raw[r->i];
	return r->s->cols[c].valid[r->i] != 0;
}

/* Orders reference rows by key (PostgreSQL order, NULL last). */
static int
rrow_cmp(const void *pa, const void *pb)
{
	const rrow *a = pa;
	const rrow *b = pb;

	if (a->kv != b->kv)
		return a->kv ? -1 : 1;
	if (!a->kv)
		return 0;
	return key_cmp_raw(sort_kt, a->key, b->key, true);
}

/* Adds a value (vt < 0: none; vv: valid) to a. */
static void
ragg_add(ragg *a, int vt, bool vv, uint64_t v)
{
	a->rows++;
	if (vt < 0 || !vv)
		return;
	if (!tres_is_float((gpo_type) vt))
		a->isum += ival_of((gpo_type) vt, v);
	else
	{
		double		d = tres_dbl_of((gpo_type) vt, v);

		if (isfinite(d))
		{
			a->fsum += d;
			a->fabs += fabs(d);
		}
		else
			a->fflags |= isnan(d) ? GPO_FF_NAN : d > 0 ? GPO_FF_PINF : GPO_FF_NINF;
	}
	if (a->count == 0 || key_cmp_raw((gpo_type) vt, v, a->mn, false) < 0)
		a->mn = v;
	if (a->count == 0 || key_cmp_raw((gpo_type) vt, v, a->mx, false) > 0)
		a->mx = v;
	a->count++;
}

/* The key and request values of joined row j of tq into *o. */
static void
ref_row(const star *st, const tquery *tq, const rgroups *rg, const jrow *j,
		rrow *o)
{
	const gpo_resident_query *q = &tq->q;
	int			kc = q->nkeys > 0 ? QC_PACKED : q->key_col;
	uint64_t	raw = 0;

	o->kv = kc == -1 || qcol_value(st, tq, j, kc, &raw);
	o->key = o->kv ? key_canon(rg->kt, raw, true) : 0;
	for (int r = 0; r < rg->nreq; r++)
	{
		o->vv[r] = rg->vt[r] >= 0 && qcol_value(st, tq, j, q->val_cols[r], &raw);
		o->val[r] = o->vv[r] ? key_canon((gpo_type) rg->vt[r], raw, false) : 0;
	}
}

/* The reference groups of tq over the sets joined to st. */
static void
ref_groups(const fset *sets, int nsets, const star *st, const tquery *tq,
		   rgroups *rg)
{
	const gpo_resident_query *q = &tq->q;
	jrow	   *jr = ref_join(sets, nsets, st, q, &rg->nrows);
	int64_t		n = rg->nrows;
	rrow	   *rows = malloc(sizeof(rrow) * (size_t) (n + 1));

	rg->ng = 0;
	rg->span = 0;
	rg->nreq = q->nreqs > 0 ? q->nreqs : 1;
	rg->kt = q->nkeys > 0 ? GPO_INT64 : q->key_col >= 0 ? qcol_type(st, tq, q->key_col) : GPO_INT32;
	for (int r = 0; r < rg->nreq; r++)
		rg->vt[r] = q->nreqs > 0 && q->val_cols[r] >= 0 ? (int) qcol_type(st, tq, q->val_cols[r]) : -1;
	for (int64_t j = 0; j < n; j++)
		ref_row(st, tq, rg, &jr[j], &rows[j]);
	sort_kt = rg->kt;
	qsort(rows, n, sizeof(rrow), rrow_cmp);
	rg->kvalid = calloc(n + 1, sizeof(bool));
	rg->key = calloc(n + 1, sizeof(uint64_t));
	rg->aggs = calloc((size_t) (n + 1) * rg->nreq, sizeof(ragg));
	for (int64_t j = 0; j < n; j++)
	{
		if (j == 0 || rrow_cmp(&rows[j - 1], &rows[j]) != 0)
		{
			rg->kvalid[rg->ng] = rows[j].kv;
			rg->key[rg->ng++] = rows[j].key;
		}
		for (int r = 0; r < rg->nreq; r++)
			ragg_add(&rg->aggs[(rg->ng - 1) * rg->nreq + r], rg->vt[r], rows[j].vv[r],
					 rows[j].val[r]);
	}
	for (int64_t g = 1; g < rg->ng && rg->kvalid[g] && !tres_is_float(rg->kt); g++)
		rg->span = (uint64_t) ival_of(rg->kt, rg->key[g]) - (uint64_t) ival_of(rg->kt, rg->key[0]);
	free(jr);
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

/* ---- running and checking ---- */

/* Output arrays of cap groups (keys, min and max 8 bytes an entry; no m2); keys sometimes NULL. */
static void
make_out(gpo_agg_out *o, int64_t cap, bool no_keys)
{
	memset(o, 0, sizeof(*o));
	o->capacity = cap;
	o->keys = no_keys ? NULL : calloc(cap + 1, 8);
	o->key_valid = no_keys ? NULL : calloc(cap + 1, 1);
	o->rows = calloc(cap + 1, 8);
	o->count = calloc(cap + 1, 8);
	o->isum = calloc(cap + 1, sizeof(gpo_int128));
	o->fsum = calloc(cap + 1, 8);
	o->min = calloc(cap + 1, 8);
	o->max = calloc(cap + 1, 8);
	o->fflags = calloc(cap + 1, 1);
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
}

/* Float sums agree within rounding. */
static bool
fsum_close(double got, double want, double mag)
{
	return fabs(got - want) <= 1e-9 * mag + 1e-300;
}

/* Checks group g's key in output o against the reference. */
static void
check_key(tcase *c, const gpo_agg_out *o, const rgroups *rg, int r, int64_t g)
{
	size_t		kw = gpo_type_size(rg->kt);

	if (o->keys == NULL)
		return;
	expect(c, o->key_valid[g] == rg->kvalid[g], "out %d group %lld key validity %d",
		   r, (long long) g, (int) o->key_valid[g]);
	expect(c, !rg->kvalid[g] || tres_raw_at(o->keys, kw, g) == rg->key[g],
		   "out %d group %lld key %llx, want %llx", r, (long long) g,
		   (unsigned long long) tres_raw_at(o->keys, kw, g), (unsigned long long) rg->key[g]);
}

/* Checks output r (values of type rg->vt[r]) against the reference. */
static void
check_out(tcase *c, const gpo_agg_out *o, const rgroups *rg, int r)
{
	int			vt = rg->vt[r];
	size_t		vw = vt >= 0 ? gpo_type_size((gpo_type) vt) : 8;
	bool		vint = vt >= 0 && !tres_is_float((gpo_type) vt);

	for (int64_t g = 0; g < rg->ng && c->ok; g++)
	{
		const ragg *a = &rg->aggs[g * rg->nreq + r];
		bool		any = vt >= 0 && a->count > 0;
		__int128	isum = (__int128) (((unsigned __int128) (uint64_t) o->isum[g].hi << 64) |
									   o->isum[g].lo);

		check_key(c, o, rg, r, g);
		expect(c, o->rows[g] == a->rows, "out %d group %lld rows %lld, want %lld", r,
			   (long long) g, (long long) o->rows[g], (long long) a->rows);
		expect(c, o->count[g] == (vt >= 0 ? a->count : 0), "out %d group %lld count %lld, want %lld",
			   r, (long long) g, (long long) o->count[g], (long long) a->count);
		expect(c, isum == (any && vint ? a->isum : 0), "out %d group %lld isum %lld, want %lld",
			   r, (long long) g, (long long) isum, (long long) a->isum);
		if (vint)
			expect(c, o->fsum[g] == (any ? (double) a->isum : 0.0), "out %d group %lld fsum of ints",
				   r, (long long) g);
		else
			expect(c, fsum_close(o->fsum[g], any ? a->fsum : 0.0, a->fabs),
				   "out %d group %lld fsum %.17g, want %.17g", r, (long long) g, o->fsum[g], a->fsum);
		expect(c, o->fflags[g] == (any && !vint ? a->fflags : 0), "out %d group %lld fflags %d",
			   r, (long long) g, (int) o->fflags[g]);
		expect(c, tres_raw_at(o->min, vw, g) == (any ? a->mn : 0), "out %d group %lld min %llx, want %llx",
			   r, (long long) g, (unsigned long long) tres_raw_at(o->min, vw, g),
			   (unsigned long long) a->mn);
		expect(c, tres_raw_at(o->max, vw, g) == (any ? a->mx : 0), "out %d group %lld max %llx, want %llx",
			   r, (long long) g, (unsigned long long) tres_raw_at(o->max, vw, g),
			   (unsigned long long) a->mx);
	}
}

/* Checks a successful answer of tq on face f: face, strategy, packing, error, outputs. */
static void
check_answer(tcase *c, int f, int nsets, const tquery *tq, const rgroups *rg,
			 const gpo_ctx *ctx, gpo_agg_strategy want, gpo_agg_strategy strat,
			 const gpo_agg_out *outs)
{
	expect(c, ctx->used == (f && nsets > 0 ? GPO_DEVICE_GPU : GPO_DEVICE_CPU),
		   "face %d: used %d", f, (int) ctx->used);
	expect(c, strat != GPO_AGG_AUTO && (want == GPO_AGG_AUTO || strat == want),
		   "face %d: strategy %s for %s", f, gpo_agg_strategy_name(strat),
		   gpo_agg_strategy_name(want));
	expect(c, tq->xerr.code == GPO_XERR_NONE, "face %d: expression error %d at %lld", f,
		   (int) tq->xerr.code, (long long) tq->xerr.row);
	for (int k = 0; k < tq->q.nkeys && nsets > 0; k++)
		expect(c, tq->key_lo[k] == tq->want_lo[k] && tq->key_width[k] == tq->want_width[k],
			   "face %d: key %d packed from %lld width %lld, want %lld width %lld", f, k,
			   (long long) tq->key_lo[k], (long long) tq->key_width[k],
			   (long long) tq->want_lo[k], (long long) tq->want_width[k]);
	for (int r = 0; r < rg->nreq; r++)
		check_out(c, &outs[r], rg, r);
}

/*
 * Runs tq over the sets' copies on face f (joined to st's dimensions) with
 * strategy want and checks the answer against rg; short_r >= 0: output
 * short_r one group too small, GPO_ERR_CAPACITY expected.
 */
static void
run_face(tcase *c, int f, fset *sets, int nsets, const star *st, tquery *tq,
		 const rgroups *rg, gpo_agg_strategy want, int threads, int short_r)
{
	gpo_resident *kept[MAX_SETS];
	gpo_agg_out outs[MAX_REQS];
	gpo_agg_strategy strat = want;
	int64_t		ng = -1;
	gpo_status	s;
	gpo_ctx		ctx;

	for (int k = 0; k < nsets; k++)
		kept[k] = sets[k].kept[f];
	tq->q.dims = st->dims;
	tq->q.dimcols = st->dcols;
	tq->key_lo[0] = tq->key_lo[1] = tq->key_width[0] = tq->key_width[1] = -7;
	/* an error the call must clear, where it computes a column */
	tq->xerr.code = tq->q.nexprs > 0 || tq->q.nkeys > 0 ? GPO_XERR_DIV_ZERO : GPO_XERR_NONE;
	for (int r = 0; r < rg->nreq; r++)
		make_out(&outs[r], r == short_r ? rg->ng - 1 : rg->ng + (int64_t) rng_below(3),
				 r != short_r && rng_chance(1, 4));
	/* the sets' face decides, whatever the context asks */
	test_ctx(&ctx, (gpo_device) rng_below(3), threads);
	s = gpo_resident_groupagg(&ctx, nsets, kept, &tq->q, &strat, outs, &ng);
	expect(c, ng == rg->ng, "face %d: %lld groups, want %lld (%s: %s)", f, (long long) ng,
		   (long long) rg->ng, gpo_status_text(s), ctx.detail);
	if (short_r >= 0)
		expect(c, s == GPO_ERR_CAPACITY, "face %d short output: %s", f, gpo_status_text(s));
	else if (expect(c, s == GPO_OK, "face %d: %s (%s)", f, gpo_status_text(s), ctx.detail))
		check_answer(c, f, nsets, tq, rg, &ctx, want, strat, outs);
	for (int r = 0; r < rg->nreq; r++)
		free_out(&outs[r]);
}

/* ---- random queries ---- */

/* A random WHERE leaf over the fact columns (keys near base). */
static gpo_pred
rand_leaf(const int64_t *base)
{
	gpo_pred	p;
	int			c = (int) rng_below(NCOLS);

	memset(&p, 0, sizeof(p));
	p.column = c;
	switch (rng_below(10))
	{
		case 0:
			p.kind = GPO_PRED_NULLTEST;
			p.is_not = rng_chance(1, 2);
			return p;
		case 1:
			p.kind = GPO_PRED_CONST;
			p.const_null = rng_chance(1, 4);
			p.const_bool = rng_chance(1, 2);
			return p;
		default:
			break;
	}
	p.kind = GPO_PRED_CMP;
	p.op = (gpo_cmp_op) rng_below(6);
	p.const_null = rng_chance(1, 40);
	p.ival = c < 2 ? base[c] + (int64_t) rng_below(KEY_RANGE) - 5 :
		c == C_G ? (int64_t) rng_below(9) - 4 : (int64_t) rng_below(2000001) - 1000000;
	p.fval = ((double) rng_below(2001) - 1000) / 4;
	return p;
}

/* Appends a random program of at most depth levels to prog. */
static void
rand_prog(const int64_t *base, int depth, gpo_pred *prog, int *nnodes)
{
	gpo_pred	p;

	memset(&p, 0, sizeof(p));
	if (depth <= 1 || rng_chance(1, 3))
	{
		prog[(*nnodes)++] = rand_leaf(base);
		return;
	}
	if (rng_chance(1, 4))
	{
		p.kind = GPO_PRED_NOT;
		rand_prog(base, depth - 1, prog, nnodes);
	}
	else
	{
		p.kind = rng_chance(1, 2) ? GPO_PRED_AND : GPO_PRED_OR;
		p.nargs = 2 + (int) rng_below(2);
		for (int k = 0; k < p.nargs; k++)
			rand_prog(base, depth - 1, prog, nnodes);
	}
	prog[(*nnodes)++] = p;
}

/* Sets node x of a computed column program. */
static void
xnode(gpo_xnode *x, int op, int width, int arg, int64_t ival, double fval)
{
	memset(x, 0, sizeof(*x));
	x->op = (int16_t) op;
	x->width = (int16_t) width;
	x->arg = arg;
	x->ival = ival;
	x->fval = fval;
}

/*
 * tq's computed columns: 0, dimension column xdc * 2 (of its type); and,
 * for an integer column, sometimes 1: that + v (INT64).
 */
static void
rand_exprs(const star *st, tquery *tq)
{
	gpo_type	t = st->dc[tq->xdc].type;
	int			w = (int) gpo_type_size(t);
	bool		f = tres_is_float(t);

	xnode(&tq->xprog[0][0], GPO_X_COL, 0, GPO_RESIDENT_DIM_COL(tq->xdc), 0, 0);
	xnode(&tq->xprog[0][1], GPO_X_CONST, f ? 1 : 0, 0, 2, 2.0);
	xnode(&tq->xprog[0][2], f ? GPO_X_FMUL : GPO_X_IMUL, w, 0, 0, 0);
	tq->exprs[0] = (gpo_resident_expr) {tq->xprog[0], 3, t, f};
	tq->q.nexprs = 1;
	if (f || rng_chance(1, 2))
		return;
	xnode(&tq->xprog[1][0], GPO_X_COL, 0, GPO_RESIDENT_EXPR_COL(0), 0, 0);
	xnode(&tq->xprog[1][1], GPO_X_COL, 0, C_V, 0, 0);
	xnode(&tq->xprog[1][2], GPO_X_IADD, 8, 0, 0, 0);
	tq->exprs[1] = (gpo_resident_expr) {tq->xprog[1], 3, GPO_INT64, false};
	tq->q.nexprs = 2;
}

/* A bounded integer dimension column of st, or -1. */
static int
packable_dcol(const star *st)
{
	int			k = st->ndimcols > 0 ? (int) rng_below(st->ndimcols) : 0;

	for (int i = 0; i < st->ndimcols; i++, k = (k + 1) % st->ndimcols)
		if (!tres_is_float(st->dc[k].type) && st->dc[k].bounded)
			return k;
	return -1;
}

/* The packing the reference expects of tq's key k over the sets (the sets' or the column's bounds). */
static void
want_packing(const fset *sets, int nsets, const star *st, tquery *tq, int k)
{
	int			c = tq->keys[k];
	int64_t		lo = INT64_MAX,
				hi = INT64_MIN;

	if (gpo_resident_is_dim_col(c))
	{
		lo = st->dc[c - GPO_RESIDENT_DIM_COL(0)].lo;
		hi = st->dc[c - GPO_RESIDENT_DIM_COL(0)].hi;
	}
	else
		for (int s = 0; s < nsets; s++)
			for (int64_t i = 0; i < sets[s].n; i++)
				if (sets[s].cols[c].valid[i])
				{
					int64_t		v = ival_of(sets[s].cols[c].type, sets[s].cols[c].raw[i]);

					lo = v < lo ? v : lo;
					hi = v > hi ? v : hi;
				}
	if (lo > hi)
		lo = hi = 0;
	tq->want_lo[k] = lo;
	tq->want_width[k] = hi - lo + 2;
}

/* Sets tq's packed keys: g and bounded integer dimension column pk, in random order. */
static void
set_packed(const fset *sets, int nsets, const star *st, tquery *tq, int pk)
{
	bool		swap = rng_chance(1, 3);

	tq->keys[swap] = C_G;
	tq->keys[!swap] = GPO_RESIDENT_DIM_COL(pk);
	tq->q.nkeys = 2;
	tq->q.key_cols = tq->keys;
	tq->q.key_lo = tq->key_lo;
	tq->q.key_width = tq->key_width;
	want_packing(sets, nsets, st, tq, 0);
	want_packing(sets, nsets, st, tq, 1);
	tq->mode = swap ? "packed (dimension column, g)" : "packed (g, dimension column)";
}

/*
 * tq's grouping, one of those that apply: by a dimension column, packed
 * keys, a computed column, a set column, or none.
 */
static void
rand_grouping(const fset *sets, int nsets, const star *st, tquery *tq)
{
	int			pk = packable_dcol(st);
	int			modes[5];
	int			n = 0;
	int			mode;

	if (st->ndimcols > 0)
		modes[n++] = 0;
	if (pk >= 0)
		modes[n++] = 1;
	if (tq->q.nexprs > 0)
		modes[n++] = 2;
	modes[n++] = 3;
	modes[n++] = 4;
	mode = modes[rng_below(n)];
	tq->q.key_col = mode == 0 ? GPO_RESIDENT_DIM_COL(rng_below(st->ndimcols)) :
		mode == 2 ? GPO_RESIDENT_EXPR_COL(rng_below(tq->q.nexprs)) :
		mode == 3 ? C_G : -1;
	tq->mode = mode == 0 ? "dimension column key" : mode == 2 ? "computed key" :
		mode == 3 ? "set column key" : "no key";
	if (mode == 1)
		set_packed(sets, nsets, st, tq, pk);
}

/* A random value column of tq: none, a fact value, a dimension or a computed column. */
static int
rand_val_col(const star *st, const tquery *tq)
{
	switch (rng_below(6))
	{
		case 0:
			return -1;
		case 1:
			return C_V;
		case 2:
			return C_F;
		case 3:
			if (tq->q.nexprs > 0)
				return GPO_RESIDENT_EXPR_COL(rng_below(tq->q.nexprs));
			/* FALLTHROUGH */
		default:
			return st->ndimcols > 0 ?
				GPO_RESIDENT_DIM_COL(rng_below(st->ndimcols)) : C_V;
	}
}

/* A random query over the sets joined to st (keys near base) into tq. */
static void
rand_tquery(const fset *sets, int nsets, const star *st, const int64_t *base,
			tquery *tq)
{
	gpo_resident_query *q = &tq->q;
	int			nnodes = 0;

	memset(tq, 0, sizeof(*tq));
	tq->ktype[0] = sets[0].cols[C_KA].type;
	tq->ktype[1] = sets[0].cols[C_KB].type;
	if (rng_chance(2, 3))
		rand_prog(base, 1 + (int) rng_below(3), tq->prog, &nnodes);
	q->prog = tq->prog;
	q->nnodes = nnodes;
	q->ndims = st->ndims;
	q->ndimcols = st->ndimcols;
	q->xerr = &tq->xerr;
	q->exprs = tq->exprs;
	tq->xdc = -1;
	if (st->ndimcols > 0 && rng_chance(1, 2))
	{
		tq->xdc = (int) rng_below(st->ndimcols);
		rand_exprs(st, tq);
	}
	rand_grouping(sets, nsets, st, tq);
	q->nreqs = (int) rng_below(MAX_REQS + 1);
	for (int r = 0; r < q->nreqs; r++)
	{
		tq->cols[r] = rand_val_col(st, tq);
		tq->aggs[r] = 1 + (unsigned) rng_below(15);
	}
	q->val_cols = tq->cols;
	q->aggs = tq->aggs;
	q->est_groups = rng_chance(1, 2) ? 0 : (int64_t) rng_below(1000);
}

/* The kinds of st's dimensions, as text ("M A L": inner, anti, left) into buf. */
static const char *
kinds_text(const star *st, char *buf)
{
	int			n = 0;

	for (int d = 0; d < st->ndims; d++)
		n += sprintf(buf + n, "%s%c%lld/%lld", d ? " " : "",
					 "MAL"[st->hdims[d].kind], (long long) st->hdims[d].span,
					 (long long) st->hdims[d].rows);
	buf[n] = '\0';
	return buf;
}

/* One random query of case seed (rep) on each face. */
static void
query_case(tgroup *g, fset *sets, int nsets, const star *st,
		   const int64_t *base, uint64_t seed, int rep, int threads)
{
	tquery		tq;
	rgroups		rg;
	gpo_agg_strategy want;
	char		kinds[64];

	rand_tquery(sets, nsets, st, base, &tq);
	ref_groups(sets, nsets, st, &tq, &rg);
	want = tres_rand_strategy(rg.kt, rg.span);
	for (int f = 0; f < 2; f++)
	{
		tcase		c;

		if (f == 1 && !have_gpu)
		{
			gpu_skip(g);
			continue;
		}
		case_begin(&c, "star %llx.%d face %d: %d sets, dims %s, %d cols, %d nodes, %s, "
				   "%d exprs, %d reqs, %s, %lld rows, %lld groups",
				   (unsigned long long) seed, rep, f, nsets, kinds_text(st, kinds),
				   st->ndimcols, tq.q.nnodes, tq.mode, tq.q.nexprs, tq.q.nreqs,
				   gpo_agg_strategy_name(want), (long long) rg.nrows, (long long) rg.ng);
		run_face(&c, f, sets, nsets, st, &tq, &rg, want, threads, -1);
		if (rg.ng > 0 && rng_chance(1, 4))
			run_face(&c, f, sets, nsets, st, &tq, &rg, want, threads,
					 (int) rng_below(rg.nreq));
		case_result(g, c.ok, c.msg);
	}
	free_groups(&rg);
}

/* The key type and base of fact key column c of a random case. */
static void
rand_key_col(gpo_type *t, int64_t *base)
{
	static const int64_t bases[] = {0, -30, INT64_C(1) << 40, INT64_MIN + 20,
	INT32_MAX - 40};

	*t = rng_chance(1, 2) ? GPO_INT32 : GPO_INT64;
	*base = bases[rng_below(sizeof(bases) / sizeof(bases[0]))];
	if (*t == GPO_INT32 && (*base > INT32_MAX || *base < INT32_MIN))
		*base = 5;
}

/* One random star case (seed): 1 .. MAX_SETS sets of up to most rows, a star, queries. */
static void
random_case(tgroup *g, uint64_t seed, int64_t most)
{
	fset		sets[MAX_SETS];
	star		st;
	gpo_type	kt[2];
	int64_t		base[2];
	int			nsets;
	int			threads;
	tcase		c;

	rng_seed(seed);
	nsets = 1 + (int) rng_below(MAX_SETS);
	threads = rng_chance(1, 2) ? 0 : 1 + (int) rng_below(4);
	rand_key_col(&kt[0], &base[0]);
	rand_key_col(&kt[1], &base[1]);
	case_begin(&c, "star %llx: %d sets", (unsigned long long) seed, nsets);
	for (int s = 0; s < nsets; s++)
	{
		int64_t		n = rng_chance(1, 5) ? 0 : 1 + (int64_t) rng_below(most);

		fset_alloc(&sets[s], n, kt);
		/* sometimes a set whose keys are all NULL: no inner join keeps a row */
		fset_random(&sets[s], base, rng_chance(1, 8), true);
		fset_keep_all(&c, &sets[s]);
	}
	star_random(&st, base);
	star_arrays(&st);
	case_result(g, c.ok, c.msg);
	gpo_rows_per_block = rng_chance(1, 2) ? 1 + (int64_t) rng_below(700) : 16384;
	for (int rep = 0; rep < 6 && c.ok; rep++)
		query_case(g, sets, nsets, &st, base, seed, rep, threads);
	gpo_rows_per_block = 16384;
	star_free(&st);
	for (int s = 0; s < nsets; s++)
		fset_free(&sets[s]);
}

/* ---- rejected dimensions ---- */

/* The pieces of a checked query (the query points into them). */
typedef struct cquery
{
	gpo_resident_query q;
	gpo_resident_dim dims[GPO_RESIDENT_MAX_DIMS + 1];
	gpo_resident_dimcol dcols[1];
	gpo_resident_expr ex;
	gpo_xnode	x[1];
	gpo_pred	p;
	gpo_expr_error xerr;
	int			keys[2];
	int64_t		kout[4];
	int			vcol;
	unsigned	agg;
} cquery;

/* A check: its name, and whether the engine must take the query. */
typedef struct dcheck
{
	const char *name;
	bool		ok;
} dcheck;

/* The checks, in break_query's order. */
static const dcheck checks[] = {
	{"the valid query", true},
	{"ndims past GPO_RESIDENT_MAX_DIMS", false},
	{"dims NULL with ndims 2", false},
	{"ndims -1", false},
	{"a key column past the sets' columns", false},
	{"key column -1", false},
	{"a FLOAT64 key column", false},
	{"span -1", false},
	{"span past GPO_RESIDENT_DIM_MAX_SPAN", false},
	{"span 32 without a row map", false},
	{"kind 3", false},
	{"kind -1", false},
	{"rows -1", false},
	{"rows past INT32_MAX", false},
	{"a column of an anti join", false},
	{"a UINT8 dimension column", false},
	{"a column of dimension 2 of 2", false},
	{"a column of dimension -1", false},
	{"a column of 10 rows without data", false},
	{"ndimcols past GPO_RESIDENT_MAX_DIM_COLS", false},
	{"dimcols NULL with ndimcols 1", false},
	{"ndimcols -1", false},
	{"key column DIM_COL(1) of 1 dimension column", false},
	{"value column DIM_COL(1) of 1 dimension column", false},
	{"valid packed keys (g, DIM_COL(0))", true},
	{"packed key DIM_COL(1) of 1 dimension column", false},
	{"packed key of an unbounded dimension column", false},
	{"packed key of a FLOAT64 dimension column", false},
	{"a valid computed column reading DIM_COL(0)", true},
	{"a computed column reading DIM_COL(1) of 1 dimension column", false},
	{"a WHERE program reading a dimension column", false}
};

/* The checks' star: inner join on ka in [0, 32) (10 rows), anti join on kb in [5, 9). */
static void
check_star(star *st)
{
	int32_t    *m0,
			   *m1;
	hdcol	   *h = &st->dc[0];

	memset(st, 0, sizeof(*st));
	st->ndims = 2;
	st->ndimcols = 1;
	m0 = dim_set(st, 0, C_KA, GPO_RESIDENT_MATCH, 0, 32, 10);
	m1 = dim_set(st, 1, C_KB, GPO_RESIDENT_ANTI, 5, 4, 4);
	for (int k = 0; k < 32; k++)
		m0[k] = k % 5 == 0 ? -1 : k % 10;
	for (int k = 0; k < 4; k++)
		m1[k] = k;
	dcol_alloc(h, 0, GPO_INT64, 10, false);
	for (int r = 0; r < 10; r++)
		h->raw[r] = (uint64_t) (100 + r);
	dcol_finish(h, false);
	h->bounded = true;
}

/*
 * The checks' valid query into cq over st's dimensions: WHERE g >=
 * 0, joined to both dimensions, grouped by the dimension column, sum of v.
 */
static void
check_query(cquery *cq, const star *st)
{
	gpo_resident_query *q = &cq->q;

	memset(cq, 0, sizeof(*cq));
	for (int i = 0; i <= GPO_RESIDENT_MAX_DIMS; i++)
		cq->dims[i] = st->dims[i % 2];
	cq->dcols[0] = st->dcols[0];
	cq->p.kind = GPO_PRED_CMP;
	cq->p.column = C_G;
	cq->p.op = GPO_CMP_GE;
	xnode(&cq->x[0], GPO_X_COL, 0, GPO_RESIDENT_DIM_COL(0), 0, 0);
	cq->ex = (gpo_resident_expr) {cq->x, 1, GPO_INT64, false};
	cq->vcol = C_V;
	cq->agg = GPO_AGG_WANT_COUNT | GPO_AGG_WANT_SUM;
	q->prog = &cq->p;
	q->nnodes = 1;
	q->key_col = GPO_RESIDENT_DIM_COL(0);
	q->nreqs = 1;
	q->val_cols = &cq->vcol;
	q->aggs = &cq->agg;
	q->xerr = &cq->xerr;
	q->exprs = &cq->ex;
	q->key_cols = cq->keys;
	q->key_lo = cq->kout;
	q->key_width = cq->kout + 2;
	q->ndims = 2;
	q->dims = cq->dims;
	q->ndimcols = 1;
	q->dimcols = cq->dcols;
}

/* Breaks check k's thing (1 .. 13) of cq's dimensions. */
static void
break_dims(int k, cquery *cq)
{
	gpo_resident_dim *dims = cq->dims;

	switch (k)
	{
		case 1:
			cq->q.ndims = GPO_RESIDENT_MAX_DIMS + 1;
			break;
		case 2:
			cq->q.dims = NULL;
			break;
		case 3:
			cq->q.ndims = -1;
			break;
		case 4:
			dims[0].key_col = NCOLS;
			break;
		case 5:
			dims[1].key_col = -1;
			break;
		case 6:
			dims[0].key_col = C_F;
			break;
		case 7:
			dims[0].span = -1;
			break;
		case 8:
			dims[0].span = GPO_RESIDENT_DIM_MAX_SPAN + 1;
			break;
		case 9:
			dims[0].row_of = NULL;
			break;
		case 10:
			dims[0].kind = (gpo_resident_join) 3;
			break;
		case 11:
			dims[1].kind = (gpo_resident_join) -1;
			break;
		case 12:
			dims[0].rows = -1;
			break;
		case 13:
			dims[0].rows = (int64_t) INT32_MAX + 1;
			break;
	}
}

/* Breaks check k's thing (14 .. 23) of cq's dimension columns and what reads them. */
static void
break_cols(int k, cquery *cq)
{
	gpo_resident_dimcol *dc = &cq->dcols[0];

	switch (k)
	{
		case 14:
			dc->dim = 1;
			break;
		case 15:
			dc->type = GPO_UINT8;
			break;
		case 16:
			dc->dim = 2;
			break;
		case 17:
			dc->dim = -1;
			break;
		case 18:
			dc->data = NULL;
			break;
		case 19:
			cq->q.ndimcols = GPO_RESIDENT_MAX_DIM_COLS + 1;
			break;
		case 20:
			cq->q.dimcols = NULL;
			break;
		case 21:
			cq->q.ndimcols = -1;
			break;
		case 22:
			cq->q.key_col = GPO_RESIDENT_DIM_COL(1);
			break;
		case 23:
			cq->q.key_col = C_G;
			cq->vcol = GPO_RESIDENT_DIM_COL(1);
			break;
	}
}

/* Sets or breaks check k's thing (24 .. 30): packed keys, computed columns, the program. */
static void
break_reads(int k, cquery *cq)
{
	if (k <= 27)
	{
		cq->q.key_col = -1;
		cq->q.nkeys = 2;
		cq->keys[0] = C_G;
		cq->keys[1] = GPO_RESIDENT_DIM_COL(k == 25 ? 1 : 0);
		cq->dcols[0].bounded = k != 26;
		if (k == 27)
			cq->dcols[0].type = GPO_FLOAT64;
		return;
	}
	if (k <= 29)
	{
		cq->q.nexprs = 1;
		cq->vcol = GPO_RESIDENT_EXPR_COL(0);
		cq->x[0].arg = GPO_RESIDENT_DIM_COL(k == 28 ? 0 : 1);
		return;
	}
	cq->p.column = GPO_RESIDENT_DIM_COL(0);
}

/* Check k on face f: the valid query with one thing set or broken, its status. */
static void
check_one(tgroup *g, fset *set, const star *st, int f, int k)
{
	cquery		cq;
	gpo_agg_out outs[1];
	gpo_agg_strategy strat = GPO_AGG_AUTO;
	gpo_ctx		ctx;
	int64_t		ng = -1;
	gpo_status	s;
	tcase		c;

	check_query(&cq, st);
	break_dims(k, &cq);
	break_cols(k, &cq);
	if (k >= 24)
		break_reads(k, &cq);
	case_begin(&c, "dims check on face %d: %s", f, checks[k].name);
	make_out(&outs[0], 256, false);
	test_ctx(&ctx, GPO_DEVICE_CPU, 0);
	s = gpo_resident_groupagg(&ctx, 1, &set->kept[f], &cq.q, &strat, outs, &ng);
	if (checks[k].ok)
		expect(&c, s == GPO_OK && ng > 0 && cq.xerr.code == GPO_XERR_NONE,
			   "%s, %lld groups (%s)", gpo_status_text(s), (long long) ng, ctx.detail);
	else
		expect(&c, s == GPO_ERR_INVALID && ctx.detail[0], "%s (%s)", gpo_status_text(s),
			   ctx.detail);
	free_out(&outs[0]);
	case_result(g, c.ok, c.msg);
}

/* Checks of nsets 0: dimensions are checked against GPO_RESIDENT_MAX_COLS columns. */
static void
check_no_sets(tgroup *g, const star *st)
{
	for (int k = 0; k < 2; k++)
	{
		gpo_resident_dim dims[2] = {st->dims[0], st->dims[1]};
		gpo_resident_query q = {NULL, 0, -1, 0, NULL, NULL, 0};
		gpo_agg_strategy strat = GPO_AGG_AUTO;
		gpo_agg_out outs[1];
		gpo_ctx		ctx;
		int64_t		ng = -1;
		gpo_status	s;
		tcase		c;

		/* a column number no set has, but below GPO_RESIDENT_MAX_COLS */
		dims[0].key_col = k == 0 ? GPO_RESIDENT_MAX_COLS - 1 : GPO_RESIDENT_MAX_COLS;
		q.ndims = 2;
		q.dims = dims;
		case_begin(&c, "dims over no set, key column %d", dims[0].key_col);
		make_out(&outs[0], 4, false);
		test_ctx(&ctx, GPO_DEVICE_CPU, 0);
		s = gpo_resident_groupagg(&ctx, 0, NULL, &q, &strat, outs, &ng);
		if (k == 0)
			expect(&c, s == GPO_OK && ng == 0 && ctx.used == GPO_DEVICE_CPU,
				   "%s, %lld groups (%s)", gpo_status_text(s), (long long) ng, ctx.detail);
		else
			expect(&c, s == GPO_ERR_INVALID && ctx.detail[0], "%s", gpo_status_text(s));
		free_out(&outs[0]);
		case_result(g, c.ok, c.msg);
	}
}

/* Rejected dimensions and dimension columns, on each face. */
static void
dims_checks(tgroup *g)
{
	static const gpo_type kt[2] = {GPO_INT32, GPO_INT64};
	static const int64_t base[2] = {10, 5};
	fset		set;
	star		st;
	tcase		c;

	rng_seed(SEED ^ 0xC4EC);
	fset_alloc(&set, 300, kt);
	fset_random(&set, base, false, true);
	case_begin(&c, "dims checks: sets and star");
	fset_keep_all(&c, &set);
	check_star(&st);
	star_arrays(&st);
	case_result(g, c.ok, c.msg);
	for (int f = 0; f < 2 && c.ok; f++)
	{
		if (f == 1 && !have_gpu)
		{
			gpu_skip(g);
			continue;
		}
		for (int k = 0; k < (int) (sizeof(checks) / sizeof(checks[0])); k++)
			check_one(g, &set, &st, f, k);
	}
	check_no_sets(g, &st);
	star_free(&st);
	fset_free(&set);
}

/* ---- extreme keys ---- */

/* The extreme case's INT64 keys (lo1 = INT64_MAX - GPO_RESIDENT_DIM_MAX_SPAN). */
#define LO1			(INT64_MAX - GPO_RESIDENT_DIM_MAX_SPAN)
#define NKA			18
#define NKB			9

/* INT64 keys of ka, a row each (the last, NULL, holds INT64_MIN + 1). */
static const int64_t ext_ka[NKA] = {
	INT64_MIN, INT64_MIN + 1, INT64_MIN + 2, INT64_MIN + 3, INT64_MIN + 4,
	INT64_MAX, INT64_MAX - 1, INT64_MAX - 2, INT64_MAX - 8, INT64_MAX - 9,
	LO1, LO1 + 1, LO1 + 7, LO1 + 8, LO1 - 1, 0, -1, INT64_MIN + 1
};

/* INT32 keys of kb (the last, NULL, holds INT32_MIN). */
static const int64_t ext_kb[NKB] = {
	INT32_MIN, INT32_MIN + 1, INT32_MIN + 2, INT32_MAX, INT32_MAX - 1,
	INT32_MAX - 2, 0, -1, INT32_MIN
};

/* One dimension of the extreme case: its keys, row map and the rows of ka/kb it joins. */
typedef struct ext_dim
{
	const char *name;
	int			key_col;
	int64_t		lo;
	int64_t		span;
	int32_t		row_of[8];
	int64_t		rows;
	int64_t		match;			/* key values (of NKA or NKB) with a dimension row */
} ext_dim;

/* The extreme case's dimensions. */
static const ext_dim ext_dims[] = {
	{"INT64 keys from INT64_MIN", C_KA, INT64_MIN, 4, {0, 1, -1, 2}, 3, 3},
	{"INT64 keys from INT64_MAX - 2^30", C_KA, LO1, 8, {0, 1, 2, -1, 4, 5, 6, 7}, 8, 3},
	{"INT64 keys [INT64_MAX - 8, INT64_MAX)", C_KA, INT64_MAX - 8, 8,
	{0, 1, 2, 3, 4, 5, 6, 7}, 8, 3},
	{"INT64 keys [INT64_MAX - 7, INT64_MAX]", C_KA, INT64_MAX - 7, 8,
	{7, 6, 5, 4, 3, 2, 1, 0}, 8, 3},
	{"INT64 key INT64_MAX alone", C_KA, INT64_MAX, 1, {0}, 1, 1},
	{"INT32 keys from INT64_MIN", C_KB, INT64_MIN, 3, {0, 1, 2}, 3, 0},
	{"INT32 keys from INT32_MIN", C_KB, INT32_MIN, 2, {1, 0}, 2, 2},
	{"INT32 keys from INT32_MAX - 1", C_KB, INT32_MAX - 1, 2, {0, 1}, 2, 2},
	{"INT32 keys past INT32_MAX", C_KB, (int64_t) INT32_MAX + 1, 5, {0, 1, 2, 3, 4}, 5, 0}
};

/* The extreme case's set: ka and kb cycle through their lists, reps times. */
static void
ext_set(fset *s, int reps)
{
	static const gpo_type kt[2] = {GPO_INT64, GPO_INT32};

	fset_alloc(s, (int64_t) NKA * NKB * reps, kt);
	fset_random(s, (const int64_t[2]) {0, 0}, false, false);
	/* again, with the keys of the lists (no bitmap dropped: the NULLs stay) */
	for (int c = 0; c < NCOLS; c++)
		tvec_free(&s->cols[c].t);
	for (int64_t i = 0; i < s->n; i++)
	{
		s->cols[C_KA].raw[i] = (uint64_t) ext_ka[i % NKA];
		s->cols[C_KA].valid[i] = i % NKA != NKA - 1;
		s->cols[C_KB].raw[i] = raw_int(GPO_INT32, ext_kb[(i / NKA) % NKB]);
		s->cols[C_KB].valid[i] = (i / NKA) % NKB != NKB - 1;
	}
	fset_finish(s, false);
}

/* A star of extreme dimension e of kind, with an INT64 column of extreme values. */
static void
ext_star(star *st, const ext_dim *e, gpo_resident_join kind)
{
	static const int64_t vals[] = {INT64_MIN, INT64_MAX, 7, INT64_MAX - 1, -1, 0,
	INT64_MIN + 1, 5};
	int32_t    *m;
	hdcol	   *h = &st->dc[0];

	memset(st, 0, sizeof(*st));
	st->ndims = 1;
	st->ndimcols = kind == GPO_RESIDENT_ANTI ? 0 : 1;
	m = dim_set(st, 0, e->key_col, kind, e->lo, e->span, e->rows);
	memcpy(m, e->row_of, sizeof(int32_t) * (size_t) e->span);
	if (kind == GPO_RESIDENT_ANTI)
		return;
	dcol_alloc(h, 0, GPO_INT64, e->rows, true);
	for (int64_t r = 0; r < e->rows; r++)
	{
		h->raw[r] = (uint64_t) vals[r];
		h->valid[r] = r != 4;
	}
	dcol_finish(h, false);
}

/* The extreme case's query into tq: by the dimension column (or none), counts and sums. */
static void
ext_query(tquery *tq, const star *st)
{
	memset(tq, 0, sizeof(*tq));
	tq->q.key_col = st->ndimcols > 0 ? GPO_RESIDENT_DIM_COL(0) : -1;
	tq->q.ndims = st->ndims;
	tq->q.ndimcols = st->ndimcols;
	tq->q.nreqs = st->ndimcols > 0 ? 3 : 2;
	tq->cols[0] = -1;
	tq->cols[1] = C_V;
	tq->cols[2] = GPO_RESIDENT_DIM_COL(0);
	for (int r = 0; r < 3; r++)
		tq->aggs[r] = GPO_AGG_WANT_COUNT | GPO_AGG_WANT_SUM | GPO_AGG_WANT_MIN | GPO_AGG_WANT_MAX;
	tq->q.val_cols = tq->cols;
	tq->q.aggs = tq->aggs;
	tq->q.xerr = &tq->xerr;
	tq->xdc = -1;
	tq->ktype[0] = GPO_INT64;
	tq->ktype[1] = GPO_INT32;
	tq->mode = "extreme";
}

/* Extreme dimension e of kind over sets on each face: the reference's rows, then the engine. */
static void
ext_case(tgroup *g, fset *sets, const ext_dim *e, gpo_resident_join kind, int reps)
{
	int64_t		all = (int64_t) NKA * NKB * reps;
	int64_t		per = e->key_col == C_KA ? NKB * reps : NKA * reps;
	int64_t		want = kind == GPO_RESIDENT_LEFT ? all :
		kind == GPO_RESIDENT_MATCH ? e->match * per : all - e->match * per;
	tquery		tq;
	rgroups		rg;
	star		st;
	tcase		c;

	case_begin(&c, "extreme keys: %s, kind %c", e->name, "MAL"[kind]);
	ext_star(&st, e, kind);
	star_arrays(&st);
	ext_query(&tq, &st);
	ref_groups(sets, 2, &st, &tq, &rg);
	expect(&c, rg.nrows == want, "the reference joins %lld rows, want %lld",
		   (long long) rg.nrows, (long long) want);
	case_result(g, c.ok, c.msg);
	for (int f = 0; f < 2; f++)
	{
		if (f == 1 && !have_gpu)
		{
			gpu_skip(g);
			continue;
		}
		case_begin(&c, "extreme keys on face %d: %s, kind %c, %lld rows, %lld groups", f,
				   e->name, "MAL"[kind], (long long) rg.nrows, (long long) rg.ng);
		run_face(&c, f, sets, 2, &st, &tq, &rg, GPO_AGG_AUTO, 0, -1);
		case_result(g, c.ok, c.msg);
	}
	free_groups(&rg);
	star_free(&st);
}

/* INT64 and INT32 keys at their extremes, dimensions whose ranges touch them. */
static void
extreme_cases(tgroup *g)
{
	static const gpo_type kt[2] = {GPO_INT64, GPO_INT32};
	fset		sets[2];
	tcase		c;

	rng_seed(SEED ^ 0xE7);
	case_begin(&c, "extreme keys: sets");
	ext_set(&sets[0], 3);
	fset_alloc(&sets[1], 0, kt);
	fset_finish(&sets[1], false);
	fset_keep_all(&c, &sets[0]);
	fset_keep_all(&c, &sets[1]);
	case_result(g, c.ok, c.msg);
	for (int e = 0; e < (int) (sizeof(ext_dims) / sizeof(ext_dims[0])) && c.ok; e++)
		for (int k = 0; k < 3; k++)
			ext_case(g, sets, &ext_dims[e], (gpo_resident_join) k, 3);
	fset_free(&sets[0]);
	fset_free(&sets[1]);
}

/* All tests of the star join (called from test_resident). */
void
test_resident_dims(tgroup *g)
{
	int			ncases = quick ? 80 : 240;

	dims_checks(g);
	extreme_cases(g);
	for (int k = 0; k < ncases; k++)
		random_case(g, SEED + (uint64_t) k, k % 10 == 9 ? 20000 : 2000);
}
