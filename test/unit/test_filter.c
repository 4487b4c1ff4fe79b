/*
 * test_filter.c
 *	  Unit tests of gpo_filter: random predicate trees over random columns of
 *	  every type (NULLs, NaN, infinities, -0.0, integer extremes) and every
 *	  partition, against a recursive per-row reference; hand-written cases
 *	  that pin PostgreSQL's float order and three-valued logic; rejected
 *	  programs and arguments.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpo_filter.h"
#include "gpo_internal.h"
#include "test_util.h"

/* Columns of a random case at most. */
#define MAX_COLS	4
/* Nodes of a random tree at most. */
#define MAX_NODES	160
/* Free nodes an operator needs: every open ancestor may still add 3 leaves. */
#define TREE_RESERVE	(4 * 6 + 1)

/* Reference truth values. */
#define RF	0
#define RT	1
#define RN	2

/* A test column: flat values, valid bytes, and the chunked vector. */
typedef struct fcol
{
	void	   *flat;
	uint8_t    *valid;
	tvec		t;
} fcol;

/* A predicate tree node of the reference. */
typedef struct tnode
{
	gpo_pred	p;				/* kind and leaf fields */
	int			nkids;
	struct tnode *kids[4];
} tnode;

/* Node pool of the tree being built. */
static tnode pool[MAX_NODES];
static int	pool_used;

/* PostgreSQL's float8_cmp_internal (float.c). */
static int
pg_float8_cmp(double a, double b)
{
	if (isnan(a))
	{
		if (isnan(b))
			return 0;
		return 1;
	}
	else if (isnan(b))
		return -1;
	if (a > b)
		return 1;
	if (a < b)
		return -1;
	return 0;
}

/* True if three-way result r satisfies op. */
static bool
op_holds(int r, gpo_cmp_op op)
{
	switch (op)
	{
		case GPO_CMP_EQ:
			return r == 0;
		case GPO_CMP_NE:
			return r != 0;
		case GPO_CMP_LT:
			return r < 0;
		case GPO_CMP_LE:
			return r <= 0;
		case GPO_CMP_GT:
			return r > 0;
		case GPO_CMP_GE:
			return r >= 0;
	}
	return false;
}

/* True for the float types. */
static bool
is_float(gpo_type t)
{
	return t == GPO_FLOAT32 || t == GPO_FLOAT64;
}

/* Row i of a flat integer column, widened. */
static int64_t
int_at(gpo_type t, const void *flat, int64_t i)
{
	switch (t)
	{
		case GPO_INT32:
			return ((const int32_t *) flat)[i];
		case GPO_UINT32:
			return ((const uint32_t *) flat)[i];
		case GPO_INT64:
			return ((const int64_t *) flat)[i];
		default:
			return ((const uint8_t *) flat)[i];
	}
}

/* Row i of a flat float column, widened. */
static double
float_at(gpo_type t, const void *flat, int64_t i)
{
	return t == GPO_FLOAT32 ? (double) ((const float *) flat)[i] :
		((const double *) flat)[i];
}

/* A NaN with the sign bit and a payload (PostgreSQL treats every NaN alike). */
static double
odd_nan(void)
{
	uint64_t	bits = UINT64_C(0xFFF8000000000123);
	double		d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

/* A random integer value, often special, for a column or a constant. */
static int64_t
rand_int(gpo_type t)
{
	static const int64_t special[] = {
		0, 1, -1, 2, 7, INT32_MIN, INT32_MAX, (int64_t) INT32_MIN + 1,
		(int64_t) INT32_MAX + 1, UINT32_MAX, INT64_MIN, INT64_MAX,
		INT64_MIN + 1, INT64_MAX - 1, 127, 128, 255, INT64_C(1) << 40
	};
	int64_t		v = rng_chance(1, 3) ?
		special[rng_below(sizeof(special) / sizeof(special[0]))] :
		(int64_t) rng_below(21) - 10;

	switch (t)
	{
		case GPO_INT32:
			return (int32_t) v;
		case GPO_UINT32:
			return (uint32_t) v;
		case GPO_UINT8:
			return (uint8_t) v;
		default:
			return v;
	}
}

/* A random float value, often special, for a column or a constant. */
static double
rand_float(void)
{
	static const double special[] = {
		0.0, -0.0, 1.5, -1.5, 0.1, 1e308, -1e308, DBL_MAX, -DBL_MAX,
		DBL_MIN, 5e-324, FLT_MAX, (double) 0.1f, (double) FLT_MIN
	};

	switch (rng_below(8))
	{
		case 0:
			return rng_chance(1, 2) ? NAN : odd_nan();
		case 1:
			return rng_chance(1, 2) ? INFINITY : -INFINITY;
		case 2:
		case 3:
			return special[rng_below(sizeof(special) / sizeof(special[0]))];
		default:
			return (double) ((int64_t) rng_below(9) - 4) / 2;
	}
}

/* Makes a random column of type over n rows of partition kind. */
static void
make_col(fcol *col, gpo_type type, int64_t n, part_kind kind)
{
	bool		nulls = rng_chance(2, 3);
	int			null_pct = (int) rng_below(60);

	col->flat = malloc(gpo_type_size(type) * (n + 1));
	col->valid = malloc(n + 1);
	for (int64_t i = 0; i < n; i++)
	{
		col->valid[i] = nulls ? rng_below(100) >= (uint64_t) null_pct : 1;
		switch (type)
		{
			case GPO_FLOAT32:
				((float *) col->flat)[i] = (float) rand_float();
				break;
			case GPO_FLOAT64:
				((double *) col->flat)[i] = rand_float();
				break;
			case GPO_INT32:
				((int32_t *) col->flat)[i] = (int32_t) rand_int(type);
				break;
			case GPO_UINT32:
				((uint32_t *) col->flat)[i] = (uint32_t) rand_int(type);
				break;
			case GPO_INT64:
				((int64_t *) col->flat)[i] = rand_int(type);
				break;
			case GPO_UINT8:
				((uint8_t *) col->flat)[i] = (uint8_t) rand_int(type);
				break;
		}
	}
	tvec_make_kind(&col->t, type, kind, n, nulls);
	if (nulls)
		tvec_drop_some_bitmaps(&col->t, col->valid);
	tvec_fill(&col->t, col->flat, col->valid);
}

/* Frees a test column. */
static void
free_col(fcol *col)
{
	tvec_free(&col->t);
	free(col->flat);
	free(col->valid);
}

/* A random leaf over the columns. */
static tnode *
rand_leaf(const fcol *cols, int ncols, int64_t n)
{
	tnode	   *t = &pool[pool_used++];
	int			c = (int) rng_below(ncols);
	gpo_type	type = cols[c].t.v.type;

	memset(t, 0, sizeof(*t));
	t->p.column = c;
	switch (rng_below(10))
	{
		case 0:
			t->p.kind = GPO_PRED_NULLTEST;
			t->p.is_not = rng_chance(1, 2);
			break;
		case 1:
			t->p.kind = GPO_PRED_CONST;
			t->p.const_null = rng_chance(1, 3);
			t->p.const_bool = rng_chance(1, 2);
			t->p.column = 0;
			break;
		default:
			t->p.kind = GPO_PRED_CMP;
			t->p.op = (gpo_cmp_op) rng_below(6);
			t->p.const_null = rng_chance(1, 20);
			if (n > 0 && rng_chance(1, 3))
			{
				/* a value of the column itself, so ties happen */
				int64_t		r = (int64_t) rng_below(n);

				t->p.ival = is_float(type) ? 0 : int_at(type, cols[c].flat, r);
				t->p.fval = is_float(type) ? float_at(type, cols[c].flat, r) : 0;
			}
			else
			{
				t->p.ival = rand_int(GPO_INT64);
				t->p.fval = rand_float();
			}
			break;
	}
	return t;
}

/* A random tree of at most depth levels. */
static tnode *
rand_tree(const fcol *cols, int ncols, int64_t n, int depth)
{
	tnode	   *t;
	int			kind;

	if (depth <= 1 || pool_used + TREE_RESERVE > MAX_NODES || rng_chance(1, 4))
		return rand_leaf(cols, ncols, n);
	t = &pool[pool_used++];
	memset(t, 0, sizeof(*t));
	kind = (int) rng_below(5);
	if (kind == 4)
	{
		t->p.kind = GPO_PRED_NOT;
		t->nkids = 1;
	}
	else
	{
		t->p.kind = kind < 2 ? GPO_PRED_AND : GPO_PRED_OR;
		t->nkids = 2 + (int) rng_below(3);
		t->p.nargs = t->nkids;
	}
	for (int k = 0; k < t->nkids; k++)
		t->kids[k] = rand_tree(cols, ncols, n, depth - 1);
	return t;
}

/* Appends t's postfix program to prog. */
static void
emit(const tnode *t, gpo_pred *prog, int *nnodes)
{
	for (int k = 0; k < t->nkids; k++)
		emit(t->kids[k], prog, nnodes);
	prog[(*nnodes)++] = t->p;
}

/* The reference: t's truth value at row i, by recursion. */
static int
ref_eval(const tnode *t, const fcol *cols, int64_t i)
{
	const gpo_pred *p = &t->p;
	bool		any_f = false;
	bool		any_t = false;
	bool		any_n = false;

	switch (p->kind)
	{
		case GPO_PRED_CMP:
			{
				const fcol *c = &cols[p->column];
				gpo_type	type = c->t.v.type;
				int			r;

				if (p->const_null || !c->valid[i])
					return RN;
				if (is_float(type))
					r = pg_float8_cmp(float_at(type, c->flat, i), p->fval);
				else
				{
					int64_t		x = int_at(type, c->flat, i);

					r = x < p->ival ? -1 : x > p->ival ? 1 : 0;
				}
				return op_holds(r, p->op) ? RT : RF;
			}
		case GPO_PRED_NULLTEST:
			return (cols[p->column].valid[i] == 0) != p->is_not ? RT : RF;
		case GPO_PRED_CONST:
			return p->const_null ? RN : p->const_bool ? RT : RF;
		case GPO_PRED_NOT:
			{
				int			v = ref_eval(t->kids[0], cols, i);

				return v == RN ? RN : v == RT ? RF : RT;
			}
		case GPO_PRED_AND:
		case GPO_PRED_OR:
			for (int k = 0; k < t->nkids; k++)
			{
				int			v = ref_eval(t->kids[k], cols, i);

				any_f |= v == RF;
				any_t |= v == RT;
				any_n |= v == RN;
			}
			if (p->kind == GPO_PRED_AND)
				return any_f ? RF : any_n ? RN : RT;
			return any_t ? RT : any_n ? RN : RF;
	}
	return RN;
}

/*
 * Runs one filter on device and checks status, mask, validity bits, spare
 * capacity and count against want (n bytes) and want_count.
 */
static void
run_check(tcase *c, gpo_device device, int threads, int ncols,
		  const gpo_vector *columns, const gpo_pred *prog, int nnodes,
		  int64_t n, const uint8_t *want, int64_t want_count)
{
	tvec		mask;
	gpo_ctx		ctx;
	int64_t		cap = n + (int64_t) rng_below(9);
	int64_t		count = -1;
	size_t		bytes = 0;
	void	   *scratch;
	gpo_status	st;
	uint8_t    *got = malloc(cap + 1);
	uint8_t    *valid = malloc(cap + 1);
	uint8_t    *hb = malloc(cap + 1);
	bool		two_phase = rng_chance(3, 4);

	if (ncols == 0)
		cap = n;
	tvec_make_kind(&mask, GPO_UINT8, random_kind(cap), cap, rng_chance(1, 3));
	tvec_sentinel(&mask);
	test_ctx(&ctx, device, threads);
	if (two_phase || device == GPO_DEVICE_GPU)
	{
		st = gpo_filter(&ctx, ncols, columns, prog, nnodes, &mask.v, &count,
						NULL, &bytes);
		expect(c, st == GPO_OK && bytes > 0, "scratch query: %s (%s)",
			   gpo_status_text(st), ctx.detail);
		scratch = malloc(bytes);
		st = gpo_filter(&ctx, ncols, columns, prog, nnodes, &mask.v, &count,
						scratch, &bytes);
		expect(c, ctx.used == device, "used face %d", (int) ctx.used);
		free(scratch);
	}
	else
		st = gpo_filter_cpu(&ctx, ncols, columns, prog, nnodes, &mask.v,
							&count, NULL);
	expect(c, st == GPO_OK, "status %s (%s)", gpo_status_text(st), ctx.detail);
	expect(c, count == want_count, "count %lld, want %lld",
		   (long long) count, (long long) want_count);
	if (st == GPO_OK)
	{
		tvec_read(&mask, got, valid);
		tvec_has_bits(&mask, hb);
		for (int64_t i = 0; i < n && c->ok; i++)
		{
			expect(c, got[i] == want[i], "mask[%lld] = %d, want %d",
				   (long long) i, got[i], want[i]);
			expect(c, !hb[i] || valid[i], "mask row %lld not marked valid",
				   (long long) i);
		}
		expect(c, tvec_spare_untouched(&mask, n), "spare capacity written");
	}
	tvec_free(&mask);
	free(got);
	free(valid);
	free(hb);
}

/* One random column set over n rows (column 0 of kind), several programs. */
static void
random_case(tgroup *g, int64_t n, part_kind kind)
{
	fcol		cols[MAX_COLS];
	gpo_vector	vecs[MAX_COLS];
	int			ncols = 1 + (int) rng_below(MAX_COLS);
	bool		tiny = n <= 70000 && rng_chance(1, 2);
	int			threads = tiny ? 1 + (int) rng_below(7) : 0;
	uint8_t    *want = malloc(n + 1);

	for (int k = 0; k < ncols; k++)
	{
		make_col(&cols[k], (gpo_type) rng_below(6), n,
				 k == 0 ? kind : random_kind(n));
		vecs[k] = cols[k].t.v;
	}
	gpo_rows_per_block = tiny ? 1 + (int64_t) rng_below(3000) : 16384;
	for (int rep = 0; rep < 3; rep++)
	{
		gpo_pred	prog[MAX_NODES];
		int			nnodes = 0;
		int64_t		want_count = 0;
		tnode	   *root;
		tcase		c;

		pool_used = 0;
		root = rand_tree(cols, ncols, n, 1 + (int) rng_below(6));
		emit(root, prog, &nnodes);
		for (int64_t i = 0; i < n; i++)
		{
			want[i] = ref_eval(root, cols, i) == RT;
			want_count += want[i];
		}
		case_begin(&c, "n=%lld %s cols=%d nodes=%d threads=%d%s",
				   (long long) n, part_name(kind), ncols, nnodes, threads,
				   tiny ? " tiny-blocks" : "");
		run_check(&c, GPO_DEVICE_CPU, threads, ncols, vecs, prog, nnodes, n,
				  want, want_count);
		case_result(g, c.ok, c.msg);
		if (!have_gpu)
			gpu_skip(g);
		else
		{
			case_begin(&c, "GPU agrees: n=%lld %s cols=%d nodes=%d",
					   (long long) n, part_name(kind), ncols, nnodes);
			run_check(&c, GPO_DEVICE_GPU, threads, ncols, vecs, prog, nnodes,
					  n, want, want_count);
			case_result(g, c.ok, c.msg);
		}
	}
	gpo_rows_per_block = 16384;
	for (int k = 0; k < ncols; k++)
		free_col(&cols[k]);
	free(want);
}

/* A CMP node. */
static gpo_pred
p_cmp(int col, gpo_cmp_op op, int64_t ival, double fval)
{
	gpo_pred	p = {0};

	p.kind = GPO_PRED_CMP;
	p.column = col;
	p.op = op;
	p.ival = ival;
	p.fval = fval;
	return p;
}

/* A node of kind with nargs (AND, OR), or is_not (NULLTEST), or a constant (CONST: RT, RF, RN). */
static gpo_pred
p_node(gpo_pred_kind kind, int col, int arg)
{
	gpo_pred	p = {0};

	p.kind = kind;
	p.column = col;
	p.nargs = arg;
	p.is_not = arg != 0;
	p.const_null = arg == RN;
	p.const_bool = arg == RT;
	return p;
}

/* One hand-written case on both faces: want is a string of '0'/'1'. */
static void
hand(tgroup *g, const char *name, fcol *col, int ncols, int64_t n,
	 const gpo_pred *prog, int nnodes, const char *want)
{
	uint8_t		w[64];
	int64_t		wc = 0;
	tcase		c;

	for (int64_t i = 0; i < n; i++)
		wc += (w[i] = (uint8_t) (want[i] == '1'));
	for (int dev = 0; dev < 2; dev++)
	{
		if (dev == 1 && !have_gpu)
		{
			gpu_skip(g);
			continue;
		}
		case_begin(&c, "%s (%s)", name, dev ? "GPU" : "CPU");
		run_check(&c, dev ? GPO_DEVICE_GPU : GPO_DEVICE_CPU, 0, ncols,
				  ncols ? &col->t.v : NULL, prog, nnodes, n, w, wc);
		case_result(g, c.ok, c.msg);
	}
}

/* Builds a one-column fcol of type from flat values (valid NULL = all valid). */
static void
hand_col(fcol *col, gpo_type type, const void *flat, const uint8_t *valid,
		 int64_t n)
{
	col->flat = NULL;
	col->valid = NULL;
	tvec_make_kind(&col->t, type, random_kind(n), n, valid != NULL);
	tvec_fill(&col->t, flat, valid);
}

/* The hand-written cases: float order, widening, three-valued logic. */
static void
hand_cases(tgroup *g)
{
	static const double x[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, 0, NAN, 1e308};
	static const uint8_t xv[] = {1, 1, 1, 1, 1, 1, 0, 1, 1};
	static const float y[] = {NAN, INFINITY, 0.1f, -0.0f, 0};
	static const uint8_t yv[] = {1, 1, 1, 1, 0};
	static const int32_t i32[] = {INT32_MIN, -1, 0, INT32_MAX};
	static const uint32_t u32[] = {0, UINT32_MAX};
	static const int64_t i64[] = {INT64_MIN, INT64_MAX};
	double		xs[9];
	fcol		col;
	gpo_pred	p[4];

	memcpy(xs, x, sizeof(xs));
	xs[7] = odd_nan();
	hand_col(&col, GPO_FLOAT64, xs, xv, 9);
	p[0] = p_cmp(0, GPO_CMP_GT, 0, 1e308);
	hand(g, "x > 1e308", &col, 1, 9, p, 1, "110000010");
	p[0] = p_cmp(0, GPO_CMP_EQ, 0, NAN);
	hand(g, "x = NaN", &col, 1, 9, p, 1, "100000010");
	p[0] = p_cmp(0, GPO_CMP_NE, 0, NAN);
	hand(g, "x <> NaN", &col, 1, 9, p, 1, "011111001");
	p[0] = p_cmp(0, GPO_CMP_EQ, 0, 0.0);
	hand(g, "x = 0.0", &col, 1, 9, p, 1, "000110000");
	p[0] = p_cmp(0, GPO_CMP_EQ, 0, -0.0);
	hand(g, "x = -0.0", &col, 1, 9, p, 1, "000110000");
	p[0] = p_cmp(0, GPO_CMP_GT, 0, -0.0);
	hand(g, "x > -0.0", &col, 1, 9, p, 1, "110001011");
	p[0] = p_cmp(0, GPO_CMP_LT, 0, NAN);
	hand(g, "x < NaN", &col, 1, 9, p, 1, "011111001");
	p[0] = p_cmp(0, GPO_CMP_GE, 0, NAN);
	hand(g, "x >= NaN", &col, 1, 9, p, 1, "100000010");
	p[0] = p_cmp(0, GPO_CMP_LE, 0, INFINITY);
	hand(g, "x <= Inf", &col, 1, 9, p, 1, "011111001");
	p[0] = p_cmp(0, GPO_CMP_NE, 0, NAN);
	p[1] = p_node(GPO_PRED_NOT, 0, 0);
	hand(g, "NOT (x <> NaN)", &col, 1, 9, p, 2, "100000010");
	p[0] = p_node(GPO_PRED_NULLTEST, 0, 0);
	p[1] = p_cmp(0, GPO_CMP_GT, 0, 0.0);
	p[2] = p_node(GPO_PRED_OR, 0, 2);
	hand(g, "x IS NULL OR x > 0", &col, 1, 9, p, 3, "110001111");
	p[0] = p_cmp(0, GPO_CMP_LE, 0, 0.0);
	p[1] = p_node(GPO_PRED_CONST, 0, RN);
	p[2] = p_node(GPO_PRED_AND, 0, 2);
	p[3] = p_node(GPO_PRED_NOT, 0, 0);
	hand(g, "NOT (x <= 0 AND NULL)", &col, 1, 9, p, 4, "110001011");
	free_col(&col);

	hand_col(&col, GPO_FLOAT32, y, yv, 5);
	p[0] = p_cmp(0, GPO_CMP_EQ, 0, 0.1);
	hand(g, "float4 y = 0.1::float8", &col, 1, 5, p, 1, "00000");
	p[0] = p_cmp(0, GPO_CMP_EQ, 0, (double) 0.1f);
	hand(g, "float4 y = 0.1::float4", &col, 1, 5, p, 1, "00100");
	p[0] = p_cmp(0, GPO_CMP_GT, 0, 0.1);
	hand(g, "float4 y > 0.1::float8", &col, 1, 5, p, 1, "11100");
	p[0] = p_cmp(0, GPO_CMP_EQ, 0, 0.0);
	hand(g, "float4 y = 0", &col, 1, 5, p, 1, "00010");
	p[0] = p_node(GPO_PRED_NULLTEST, 0, 1);
	hand(g, "y IS NOT NULL", &col, 1, 5, p, 1, "11110");
	free_col(&col);

	hand_col(&col, GPO_INT32, i32, NULL, 4);
	p[0] = p_cmp(0, GPO_CMP_LT, INT64_C(1) << 40, 0);
	hand(g, "int4 < 2^40", &col, 1, 4, p, 1, "1111");
	p[0] = p_cmp(0, GPO_CMP_GT, INT32_MAX, 0);
	hand(g, "int4 > INT32_MAX", &col, 1, 4, p, 1, "0000");
	p[0] = p_cmp(0, GPO_CMP_LE, INT32_MIN, 0);
	hand(g, "int4 <= INT32_MIN", &col, 1, 4, p, 1, "1000");
	free_col(&col);
	hand_col(&col, GPO_UINT32, u32, NULL, 2);
	p[0] = p_cmp(0, GPO_CMP_EQ, -1, 0);
	hand(g, "uint32 = -1", &col, 1, 2, p, 1, "00");
	p[0] = p_cmp(0, GPO_CMP_EQ, UINT32_MAX, 0);
	hand(g, "uint32 = 2^32-1", &col, 1, 2, p, 1, "01");
	free_col(&col);
	hand_col(&col, GPO_INT64, i64, NULL, 2);
	p[0] = p_cmp(0, GPO_CMP_LT, INT64_MAX, 0);
	hand(g, "int8 < INT64_MAX", &col, 1, 2, p, 1, "10");
	p[0] = p_cmp(0, GPO_CMP_GE, INT64_MIN, 0);
	hand(g, "int8 >= INT64_MIN", &col, 1, 2, p, 1, "11");
	free_col(&col);

	p[0] = p_node(GPO_PRED_CONST, 0, RT);
	hand(g, "no columns: TRUE", NULL, 0, 5, p, 1, "11111");
	p[0] = p_node(GPO_PRED_CONST, 0, RN);
	p[1] = p_node(GPO_PRED_NOT, 0, 0);
	hand(g, "no columns: NOT NULL", NULL, 0, 5, p, 2, "00000");
}

/* Expects every face to reject the arguments with GPO_ERR_INVALID. */
static void
reject(tgroup *g, const char *name, int ncols, const gpo_vector *cols,
	   const gpo_pred *prog, int nnodes, gpo_vector *mask)
{
	gpo_ctx		ctx;
	int64_t		count;
	size_t		bytes = 0;
	gpo_status	st;
	tcase		c;

	case_begin(&c, "rejects %s", name);
	test_ctx(&ctx, GPO_DEVICE_CPU, 0);
	st = gpo_filter(&ctx, ncols, cols, prog, nnodes, mask, &count, NULL, &bytes);
	expect(&c, st == GPO_ERR_INVALID && ctx.detail[0], "scratch query: %s",
		   gpo_status_text(st));
	st = gpo_filter_cpu(&ctx, ncols, cols, prog, nnodes, mask, &count, NULL);
	expect(&c, st == GPO_ERR_INVALID, "CPU face: %s", gpo_status_text(st));
	if (have_gpu)
	{
		st = gpo_filter_gpu(&ctx, ncols, cols, prog, nnodes, mask, &count);
		expect(&c, st == GPO_ERR_INVALID, "GPU face: %s", gpo_status_text(st));
	}
	case_result(g, c.ok, c.msg);
}

/* Rejected programs and arguments, and the deepest accepted stack. */
static void
invalid_cases(tgroup *g)
{
	fcol		col;
	fcol		other;
	tvec		mask;
	tvec		small;
	tvec		wrong;
	gpo_pred	p[GPO_FILTER_MAX_DEPTH + 2];
	gpo_pred	leaf = p_cmp(0, GPO_CMP_EQ, 1, 1.0);
	gpo_vector	two[2];
	int			depth = 0;
	tcase		c;

	make_col(&col, GPO_INT32, 100, PART_UNEVEN);
	make_col(&other, GPO_FLOAT64, 99, PART_ONE);
	tvec_make_kind(&mask, GPO_UINT8, PART_UNEVEN, 100, false);
	tvec_make_kind(&small, GPO_UINT8, PART_ONE, 99, false);
	tvec_make_kind(&wrong, GPO_INT32, PART_ONE, 100, false);
	two[0] = col.t.v;
	two[1] = other.t.v;

	reject(g, "an empty program", 1, &col.t.v, &leaf, 0, &mask.v);
	reject(g, "a NULL program", 1, &col.t.v, NULL, 1, &mask.v);
	p[0] = leaf;
	p[1] = leaf;
	reject(g, "two results", 1, &col.t.v, p, 2, &mask.v);
	p[1] = p_node(GPO_PRED_AND, 0, 3);
	reject(g, "an underflow", 1, &col.t.v, p, 2, &mask.v);
	p[0] = p_node(GPO_PRED_NOT, 0, 0);
	reject(g, "NOT of nothing", 1, &col.t.v, p, 1, &mask.v);
	p[0] = leaf;
	p[1] = p_node(GPO_PRED_OR, 0, 1);
	reject(g, "OR of one", 1, &col.t.v, p, 2, &mask.v);
	p[0] = p_cmp(1, GPO_CMP_EQ, 0, 0);
	reject(g, "a column out of range", 1, &col.t.v, p, 1, &mask.v);
	p[0] = p_node(GPO_PRED_NULLTEST, -1, 0);
	reject(g, "a negative column", 1, &col.t.v, p, 1, &mask.v);
	p[0] = leaf;
	p[0].op = (gpo_cmp_op) 17;
	reject(g, "an unknown operator", 1, &col.t.v, p, 1, &mask.v);
	p[0].kind = (gpo_pred_kind) 99;
	reject(g, "an unknown kind", 1, &col.t.v, p, 1, &mask.v);
	reject(g, "columns of different rows", 2, two, &leaf, 1, &mask.v);
	reject(g, "a small mask", 1, &col.t.v, &leaf, 1, &small.v);
	reject(g, "an int32 mask", 1, &col.t.v, &leaf, 1, &wrong.v);
	reject(g, "a NULL mask", 1, &col.t.v, &leaf, 1, NULL);
	reject(g, "NULL columns", 1, NULL, &leaf, 1, &mask.v);
	reject(g, "negative ncols", -1, &col.t.v, &leaf, 1, &mask.v);
	for (int k = 0; k < GPO_FILTER_MAX_DEPTH + 1; k++)
		p[k] = leaf;
	p[GPO_FILTER_MAX_DEPTH + 1] = p_node(GPO_PRED_AND, 0, GPO_FILTER_MAX_DEPTH + 1);
	reject(g, "a stack too deep", 1, &col.t.v, p, GPO_FILTER_MAX_DEPTH + 2, &mask.v);

	/* the deepest stack allowed runs, and gives the AND of all leaves */
	p[GPO_FILTER_MAX_DEPTH] = p_node(GPO_PRED_AND, 0, GPO_FILTER_MAX_DEPTH);
	case_begin(&c, "accepts a stack of %d", GPO_FILTER_MAX_DEPTH);
	expect(&c, gpo_filter_check_program(NULL, 1, p, GPO_FILTER_MAX_DEPTH + 1,
										&depth) == GPO_OK &&
		   depth == GPO_FILTER_MAX_DEPTH, "depth %d", depth);
	{
		uint8_t		want[100];
		int64_t		wc = 0;

		for (int i = 0; i < 100; i++)
			wc += want[i] = col.valid[i] && ((int32_t *) col.flat)[i] == 1;
		run_check(&c, GPO_DEVICE_CPU, 0, 1, &col.t.v, p,
				  GPO_FILTER_MAX_DEPTH + 1, 100, want, wc);
		if (have_gpu)
			run_check(&c, GPO_DEVICE_GPU, 0, 1, &col.t.v, p,
					  GPO_FILTER_MAX_DEPTH + 1, 100, want, wc);
	}
	case_result(g, c.ok, c.msg);

	free_col(&col);
	free_col(&other);
	tvec_free(&mask);
	tvec_free(&small);
	tvec_free(&wrong);
}

/* All filter tests. */
void
test_filter(void)
{
	static const int64_t sizes[] = {0, 1, 2, 3, 31, 1000, 1025, 65537, 300007};
	tgroup		g;

	group_begin(&g, "filter");
	hand_cases(&g);
	invalid_cases(&g);
	for (int z = 0; z < 9; z++)
		for (int k = 0; k < PART_COUNT; k++)
		{
			if (k == PART_ONES && sizes[z] > 70000)
				continue;
			for (int rep = 0; rep < 3; rep++)
				random_case(&g, sizes[z], (part_kind) k);
		}
	if (quick)
		g.skipped += 1;
	else
		random_case(&g, 10000019, PART_MIXED);
	group_end(&g);
}
