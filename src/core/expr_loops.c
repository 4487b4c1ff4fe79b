/*
 * expr_loops.c
 *	  The column-at-a-time run's loops without a branch a row, which the
 *	  compiler vectorizes: integer, float and numeric +, - and *, column
 *	  loads, the results and their stores (for expr_columns.c and expr.c).
 *
 * Each loop computes every row of a block, also NULL, masked-out and
 * erring ones (whose slots then hold some value that is never read, see
 * expr_columns.c), and notes each row's error in a byte; the block's
 * bytes are searched only where one is set.  Integer overflow is found
 * from the operands' and result's signs in wrapping unsigned arithmetic
 * (a product at width 2 or 4 cannot overflow 64 bits; width 8's takes the
 * builtin, which the vectorizer leaves scalar, unless the magnitudes of
 * the block's operands show that no product can overflow).  numeric's +,
 * - and * (scaled int64, gpo_x_narith's rule: NaN gives NaN, a result
 * from 10^18 on in magnitude is UNREPRESENTABLE) take the same loops.
 * The loops are built for AVX2 and for the baseline, chosen when the
 * library loads (target_clones): the baseline x86-64 has no 64-bit vector
 * compare.
 * On the 2-core machine (AVX2), 2M rows of `v * (100 - k)` and
 * `f * 1.5 + 1`: see bench/RESULTS.md.
 */
#include <string.h>

#include "gpo_expr_loops.h"

/* Rows of one block (their error bytes live on the stack). */
#define ARITH_BLOCK 256

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ARITH_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define ARITH_CLONES
#endif

/*
 * The body of one loop: for each row j, ROW sets r and e (a gpo_xerr or
 * 0) from x and y; Y is the right operand of row j, BN its NULL flag.
 */
#define ARITH_LOOP(T, ROW, Y, BN) ARITH_LOOP2(T, ROW, a[j], Y, BN)

/* The same with the left operand X too (a constant left operand: c - x). */
#define ARITH_LOOP2(T, ROW, X, Y, BN) \
	uint8_t		any = 0; \
	for (int64_t j = 0; j < len; j++) \
	{ \
		T			x = (X); \
		T			y = (Y); \
		T			r; \
		uint8_t		e; \
		uint8_t		skip = an[j] | (BN) | (mask[j] == 0); \
		ROW; \
		e = e & (uint8_t) (skip - 1); \
		flags[j] = e; \
		any |= e; \
		an[j] = an[j] | (BN); \
		a[j] = r; \
	} \
	return any

/* Integer rows: RES the wrapped result, OVF whether 64 bits overflowed. */
#define ARITH_IROW(RES, OVF) \
	do { \
		r = (RES); \
		e = (uint8_t) (((OVF) | (r < lo) | (r > hi)) * rerr); \
	} while (0)

#define ARITH_ADD (int64_t) ((uint64_t) x + (uint64_t) y)
#define ARITH_SUB (int64_t) ((uint64_t) x - (uint64_t) y)
#define ARITH_MUL (int64_t) ((uint64_t) x * (uint64_t) y)
#define ARITH_ADD_OVF ((((x ^ r) & (y ^ r)) < 0))
#define ARITH_SUB_OVF ((((x ^ y) & (x ^ r)) < 0))

/*
 * Float rows: PostgreSQL's checks (float_overflow_error where a finite
 * pair gives Inf, float_underflow_error where a product of non-zeros
 * gives 0), the result rounded to a float4 at width 4.
 */
#define ARITH_FROW(OP, MUL) \
	do { \
		uint8_t		inf; \
		uint8_t		unf; \
		r = x OP y; \
		r = w4 ? (double) (float) r : r; \
		inf = (__builtin_fabs(r) == __builtin_inf()) & \
			(__builtin_fabs(x) != __builtin_inf()) & \
			(__builtin_fabs(y) != __builtin_inf()); \
		unf = (MUL) & (r == 0.0) & (x != 0.0) & (y != 0.0) & !inf; \
		e = (uint8_t) (inf * GPO_XERR_FLOAT_OVERFLOW + unf * GPO_XERR_FLOAT_UNDERFLOW); \
	} while (0)

/* The integer loops' parameters; the float loops'. */
#define ARITH_IARGS int64_t *restrict a, uint8_t *restrict an, \
	const uint8_t *restrict mask, uint8_t *restrict flags, int64_t len, \
	int64_t lo, int64_t hi, int rerr
#define ARITH_FARGS double *restrict a, uint8_t *restrict an, \
	const uint8_t *restrict mask, uint8_t *restrict flags, int64_t len, bool w4

/*
 * One function a loop: NAME_s takes the right operand from slots (b, bn),
 * NAME_c the constant c, NAME_r the constant c as the left operand (the
 * slots a the right one).
 */
#define ARITH_FUNCS(NAME, T, ARGS, ROW) \
ARITH_CLONES static uint8_t \
NAME##_s(ARGS, const T *restrict b, const uint8_t *restrict bn) \
{ \
	ARITH_LOOP(T, ROW, b[j], bn[j]); \
} \
ARITH_CLONES static uint8_t \
NAME##_c(ARGS, T c) \
{ \
	ARITH_LOOP(T, ROW, c, 0); \
} \
ARITH_CLONES __attribute__((unused)) static uint8_t \
NAME##_r(ARGS, T c) \
{ \
	ARITH_LOOP2(T, ROW, c, a[j], 0); \
}

#define ARITH_IFUNCS(NAME, RES, OVF) \
	ARITH_FUNCS(NAME, int64_t, ARITH_IARGS, ARITH_IROW(RES, OVF))
#define ARITH_FFUNCS(NAME, OP, MUL) \
	ARITH_FUNCS(NAME, double, ARITH_FARGS, ARITH_FROW(OP, MUL))

ARITH_IFUNCS(arith_iadd, ARITH_ADD, ARITH_ADD_OVF)
ARITH_IFUNCS(arith_isub, ARITH_SUB, ARITH_SUB_OVF)
ARITH_IFUNCS(arith_imul_narrow, ARITH_MUL, false)
ARITH_FFUNCS(arith_fadd, +, false)
ARITH_FFUNCS(arith_fsub, -, false)
ARITH_FFUNCS(arith_fmul, *, true)

/*
 * Whether no product of n rows overflows 64 bits (b NULL: the constant
 * c): the bits of the largest magnitudes on each side add up to 62 or
 * less.
 */
ARITH_CLONES static bool
arith_products_fit(const int64_t *restrict a, const int64_t *restrict b,
				   int64_t c, int64_t n)
{
	uint64_t	ux = 0;
	uint64_t	uy = 0;

	for (int64_t j = 0; j < n; j++)
	{
		int64_t		y = b != NULL ? b[j] : c;

		/* x ^ (x >> 63) is |x| - 1 for negative x: |x| <= 2^bits */
		ux |= (uint64_t) (a[j] ^ (a[j] >> 63));
		uy |= (uint64_t) (y ^ (y >> 63));
	}
	return (64 - __builtin_clzll(ux | 1)) + (64 - __builtin_clzll(uy | 1)) <= 62;
}

/*
 * numeric rows: RES the wrapped result, OVF whether 64 bits overflowed
 * (an overflowed result is past the limit, as the exact one would be).
 */
#define ARITH_NROW(RES, OVF) \
	do { \
		uint8_t		nan = (x == GPO_X_NUMERIC_NAN) | (y == GPO_X_NUMERIC_NAN); \
		r = (RES); \
		e = (uint8_t) (((OVF) | (r >= GPO_X_NUMERIC_LIMIT) | \
						(r <= -GPO_X_NUMERIC_LIMIT)) & !nan) * \
			(uint8_t) GPO_XERR_UNREPRESENTABLE; \
		r = nan ? GPO_X_NUMERIC_NAN : r; \
	} while (0)

/* The numeric loops' parameters. */
#define ARITH_NARGS int64_t *restrict a, uint8_t *restrict an, \
	const uint8_t *restrict mask, uint8_t *restrict flags, int64_t len

#define ARITH_NFUNCS(NAME, RES, OVF) \
	ARITH_FUNCS(NAME, int64_t, ARITH_NARGS, ARITH_NROW(RES, OVF))

ARITH_NFUNCS(arith_nadd, ARITH_ADD, ARITH_ADD_OVF)
ARITH_NFUNCS(arith_nsub, ARITH_SUB, ARITH_SUB_OVF)
ARITH_NFUNCS(arith_nmul_narrow, ARITH_MUL, false)

/*
 * A product row by row with the builtin's overflow, where the block's
 * magnitudes say one might overflow: an int8's (its overflow the range
 * error rerr) or, where numeric, a numeric's (ARITH_NROW's rule).
 */
static uint8_t
arith_mul_checked(int64_t *a, uint8_t *an, const uint8_t *mask,
				  uint8_t *flags, int64_t len, int rerr, bool numeric,
				  const int64_t *b, const uint8_t *bn, int64_t c)
{
	uint8_t		any = 0;

	for (int64_t j = 0; j < len; j++)
	{
		int64_t		x = a[j];
		int64_t		y = b != NULL ? b[j] : c;
		uint8_t		nb = bn != NULL ? bn[j] : 0;
		uint8_t		skip = an[j] | nb | (mask[j] == 0);
		int64_t		r;
		bool		ovf = __builtin_mul_overflow(x, y, &r);
		uint8_t		e = (uint8_t) (ovf * rerr);

		if (numeric)
			ARITH_NROW(r, ovf);
		e = e & (uint8_t) (skip - 1);
		flags[j] = e;
		any |= e;
		an[j] = an[j] | nb;
		a[j] = r;
	}
	return any;
}

/*
 * A product at width 8: where no product of the block can overflow (an
 * int8 times an int4 column of ordinary values), the narrow loop serves;
 * else arith_mul_checked.
 */
static uint8_t
arith_imul_wide(ARITH_IARGS, const int64_t *b, const uint8_t *bn, int64_t c)
{
	if (arith_products_fit(a, b, c, len))
		return b != NULL ?
			arith_imul_narrow_s(a, an, mask, flags, len, lo, hi, rerr, b, bn) :
			arith_imul_narrow_c(a, an, mask, flags, len, lo, hi, rerr, c);
	return arith_mul_checked(a, an, mask, flags, len, rerr, false, b, bn, c);
}

/* A numeric product: as arith_imul_wide. */
static uint8_t
arith_nmul(ARITH_NARGS, const int64_t *b, const uint8_t *bn, int64_t c)
{
	if (arith_products_fit(a, b, c, len))
		return b != NULL ?
			arith_nmul_narrow_s(a, an, mask, flags, len, b, bn) :
			arith_nmul_narrow_c(a, an, mask, flags, len, c);
	return arith_mul_checked(a, an, mask, flags, len, 0, true, b, bn, c);
}

#undef ARITH_NFUNCS
#undef ARITH_FUNCS
#undef ARITH_NARGS
#undef ARITH_NROW
#undef ARITH_IFUNCS
#undef ARITH_FFUNCS
#undef ARITH_IARGS
#undef ARITH_FARGS
#undef ARITH_FROW
#undef ARITH_IROW
#undef ARITH_LOOP
#undef ARITH_LOOP2

/* Whether op is one of the nodes gpo_expr_arith_columns runs. */
bool
gpo_expr_arith_op(int op)
{
	return op == GPO_X_IADD || op == GPO_X_ISUB || op == GPO_X_IMUL ||
		op == GPO_X_FADD || op == GPO_X_FSUB || op == GPO_X_FMUL ||
		op == GPO_X_NADD || op == GPO_X_NSUB || op == GPO_X_NMUL;
}

/*
 * One block of rows [0, len) of node p (see gpo_expr_arith_columns); rev:
 * the constant c is the left operand (b is NULL).
 */
static uint8_t
arith_block(const gpo_xnode *p, int64_t len, const uint8_t *mask,
			gpo_xval *a, uint8_t *an, const gpo_xval *b, const uint8_t *bn,
			gpo_xval c, bool rev, uint8_t *flags)
{
	int			w = p->width;
	int64_t		lo = w == 2 ? INT16_MIN : w == 4 ? INT32_MIN : INT64_MIN;
	int64_t		hi = w == 2 ? INT16_MAX : w == 4 ? INT32_MAX : INT64_MAX;
	int			rerr = gpo_x_range_err(w);
	int64_t    *ai = (int64_t *) a;
	double	   *af = (double *) a;
	const int64_t *bi = (const int64_t *) b;
	const double *bf = (const double *) b;

#define ARITH_I(NAME) (b != NULL ? \
	NAME##_s(ai, an, mask, flags, len, lo, hi, rerr, bi, bn) : rev ? \
	NAME##_r(ai, an, mask, flags, len, lo, hi, rerr, c.i) : \
	NAME##_c(ai, an, mask, flags, len, lo, hi, rerr, c.i))
#define ARITH_N(NAME) (b != NULL ? \
	NAME##_s(ai, an, mask, flags, len, bi, bn) : rev ? \
	NAME##_r(ai, an, mask, flags, len, c.i) : \
	NAME##_c(ai, an, mask, flags, len, c.i))
#define ARITH_F(NAME) (b != NULL ? \
	NAME##_s(af, an, mask, flags, len, w == 4, bf, bn) : rev ? \
	NAME##_r(af, an, mask, flags, len, w == 4, c.f) : \
	NAME##_c(af, an, mask, flags, len, w == 4, c.f))
	switch (p->op)
	{
		case GPO_X_IADD:
			return ARITH_I(arith_iadd);
		case GPO_X_ISUB:
			return ARITH_I(arith_isub);
		case GPO_X_IMUL:
			if (w == 8)
				return arith_imul_wide(ai, an, mask, flags, len, lo, hi, rerr,
									   bi, bn, c.i);
			return ARITH_I(arith_imul_narrow);
		case GPO_X_FADD:
			return ARITH_F(arith_fadd);
		case GPO_X_FSUB:
			return ARITH_F(arith_fsub);
		case GPO_X_NADD:
			return ARITH_N(arith_nadd);
		case GPO_X_NSUB:
			return ARITH_N(arith_nsub);
		case GPO_X_NMUL:
			return arith_nmul(ai, an, mask, flags, len, bi, bn, c.i);
		default:				/* GPO_X_FMUL */
			return ARITH_F(arith_fmul);
	}
#undef ARITH_I
#undef ARITH_N
#undef ARITH_F
}

/* The branch-free arithmetic (see gpo_expr_loops.h). */
int64_t
gpo_expr_arith_columns(const gpo_xnode *p, int64_t len, const uint8_t *mask,
					   gpo_xval *a, bool *an, const gpo_xval *b,
					   const bool *bn, gpo_xval c, bool rev, int *code)
{
	uint8_t		flags[ARITH_BLOCK];

	for (int64_t j0 = 0; j0 < len; j0 += ARITH_BLOCK)
	{
		int64_t		n = len - j0 < ARITH_BLOCK ? len - j0 : ARITH_BLOCK;

		if (arith_block(p, n, mask + j0, a + j0, (uint8_t *) an + j0,
						b != NULL ? b + j0 : NULL,
						b != NULL ? (const uint8_t *) bn + j0 : NULL, c,
						rev && b == NULL, flags) == 0)
			continue;
		/*
		 * The first erring row ends the node: later rows' slots matter to
		 * no row below it (the tile's results are dropped).
		 */
		for (int64_t j = 0; j < n; j++)
			if (flags[j] != 0)
			{
				*code = flags[j];
				return j0 + j;
			}
	}
	return len;
}

/* Widens n int32 values to slots. */
ARITH_CLONES static void
loops_load_i32(const int32_t *restrict d, int64_t *restrict v, int64_t n)
{
	for (int64_t j = 0; j < n; j++)
		v[j] = d[j];
}

/* NULL flags from validity bytes, the NULL rows' slots zeroed. */
ARITH_CLONES static void
loops_load_nulls(const uint8_t *restrict valid, int64_t *restrict v,
				 uint8_t *restrict nul, int64_t n)
{
	for (int64_t j = 0; j < n; j++)
	{
		uint8_t		isnull = valid[j] == 0;

		nul[j] = isnull;
		v[j] = isnull ? 0 : v[j];
	}
}

/* Loads column c's len rows into slots (see gpo_expr_loops.h). */
bool
gpo_expr_loops_load(const gpo_xcol *c, int64_t len, gpo_xval *v, bool *nul)
{
	switch (c->type)
	{
		case GPO_INT64:
		case GPO_FLOAT64:
			memcpy(v, c->data, sizeof(int64_t) * (size_t) len);
			break;
		case GPO_INT32:
			loops_load_i32((const int32_t *) c->data, (int64_t *) v, len);
			break;
		default:
			return false;
	}
	if (c->valid == NULL)
		memset(nul, 0, (size_t) len);
	else
		loops_load_nulls(c->valid, (int64_t *) v, (uint8_t *) nul, len);
	return true;
}

/* The results of rows where the mask is set, NULL elsewhere. */
ARITH_CLONES static void
loops_result(const uint8_t *restrict mask, const int64_t *restrict v0,
			 const uint8_t *restrict n0, int64_t *restrict res,
			 uint8_t *restrict res_null, int64_t len)
{
	for (int64_t j = 0; j < len; j++)
	{
		uint8_t		isnull = (mask[j] == 0) | n0[j];

		res_null[j] = isnull;
		res[j] = isnull ? 0 : v0[j];
	}
}

/* The program's results from its bottom slot (see gpo_expr_loops.h). */
void
gpo_expr_loops_result(const uint8_t *mask, const gpo_xval *v0, const bool *n0,
					  int64_t len, gpo_xval *res, bool *res_null)
{
	loops_result(mask, (const int64_t *) v0, (const uint8_t *) n0,
				 (int64_t *) res, (uint8_t *) res_null, len);
}

/* float8 results: NaN as the canonical quiet NaN, NULL as 0. */
ARITH_CLONES static void
loops_store_f64(double *restrict out, const double *restrict res,
				const uint8_t *restrict nul, int64_t n)
{
	for (int64_t j = 0; j < n; j++)
	{
		double		x = res[j];

		x = x != x ? __builtin_nan("") : x;
		out[j] = nul[j] ? 0.0 : x;
	}
}

/* int8 results, NULL as 0. */
ARITH_CLONES static void
loops_store_i64(int64_t *restrict out, const int64_t *restrict res,
				const uint8_t *restrict nul, int64_t n)
{
	for (int64_t j = 0; j < n; j++)
		out[j] = nul[j] ? 0 : res[j];
}

/* Stores n results as gpo_x_store would (see gpo_expr_loops.h). */
bool
gpo_expr_loops_store(int type, void *out, const gpo_xval *res, const bool *nul,
					 int64_t n)
{
	if (type == GPO_INT64)
		loops_store_i64((int64_t *) out, (const int64_t *) res,
						(const uint8_t *) nul, n);
	else if (type == GPO_FLOAT64)
		loops_store_f64((double *) out, (const double *) res,
						(const uint8_t *) nul, n);
	else
		return false;
	return true;
}
