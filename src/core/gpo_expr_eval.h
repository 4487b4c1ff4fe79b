/*
 * gpo_expr_eval.h
 *	  The per-row interpreter of the expression machine (gpo_expr.h), one
 *	  definition for both faces: the CPU face (expr.c) runs it over tiles of
 *	  gathered rows, the GPU face (kernels/expr.cu) once per thread and row,
 *	  so the faces cannot disagree on a value, a NULL or an error.
 *
 * Integer operators work on exact 64-bit values with overflow checks, then
 * check the result width's range, which is what PostgreSQL's int2, int4
 * and int8 functions give for their operands.  A float4 operator rounds
 * the double result of its float operands to float: + - * / are exact that
 * way (a double holds the exact result well enough to round once), and the
 * overflow and underflow checks look at that float, as float4pl and the
 * others do.  The calendar is gpo_expr_time.h.
 *
 * Also the internal entry points shared by expr.c, expr_check.c and the
 * GPU face.
 */
#ifndef GPO_EXPR_EVAL_H
#define GPO_EXPR_EVAL_H

#include <math.h>

#include "gpo_expr.h"
#include "gpo_expr_time.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* Checks all of gpo_expr_eval's arguments (shared by both faces). */
extern gpo_status gpo_expr_check_args(gpo_ctx *ctx, int ncols,
									  const gpo_vector *columns,
									  const gpo_xnode *prog, int nnodes,
									  bool out_double, const gpo_vector *mask,
									  const gpo_vector *out,
									  const gpo_expr_error *err);
/* Rows gpo_expr_eval evaluates for these (checked) arguments. */
extern int64_t gpo_expr_rows(int ncols, const gpo_vector *columns,
							 const gpo_vector *mask, const gpo_vector *out);
/* need[c] = 1 where the program reads column c, else 0. */
extern void gpo_expr_needs(const gpo_xnode *prog, int nnodes, int ncols,
						   uint8_t *need);

#ifdef __cplusplus
}
#endif

/* A slot's value: an int64 or a double, as the compiler typed the node. */
typedef union gpo_xval
{
	int64_t		i;
	double		f;
} gpo_xval;

/* One input column as the interpreter reads it: row r at data[r]. */
typedef struct gpo_xcol
{
	const void *data;			/* values of the column's type */
	const uint8_t *valid;		/* 1 = not NULL, one byte a row; NULL: all */
	int32_t		type;			/* a gpo_type */
} gpo_xcol;

/* Values popped and pushed by op on the path that falls through. */
GPO_HD void
gpo_xop_effect(int op, int *pops, int *pushes)
{
	*pops = 1;
	*pushes = 1;
	switch (op)
	{
		case GPO_X_COL:
		case GPO_X_CONST:
			*pops = 0;
			break;
		case GPO_X_IADD:
		case GPO_X_ISUB:
		case GPO_X_IMUL:
		case GPO_X_IDIV:
		case GPO_X_IMOD:
		case GPO_X_FADD:
		case GPO_X_FSUB:
		case GPO_X_FMUL:
		case GPO_X_FDIV:
		case GPO_X_ICMP:
		case GPO_X_FCMP:
		case GPO_X_AND_STEP:
		case GPO_X_OR_STEP:
		case GPO_X_NULLIF:
		case GPO_X_DATE_PLI:
		case GPO_X_DATE_MII:
		case GPO_X_DATE_MI:
		case GPO_X_NADD:
		case GPO_X_NSUB:
		case GPO_X_NMUL:
		case GPO_X_NCMP:
			*pops = 2;
			break;
		case GPO_X_JUMP:
			*pops = 0;
			*pushes = 0;
			break;
		case GPO_X_JUMP_IF_NOT_TRUE:
		case GPO_X_JUMP_IF_NOT_NULL:
			*pushes = 0;
			break;
	}
}

/* True for the strict two-operand operators (gpo_x_binary). */
GPO_HD bool
gpo_xop_binary(int op)
{
	return (op >= GPO_X_IADD && op <= GPO_X_IMOD) ||
		(op >= GPO_X_FADD && op <= GPO_X_FDIV) ||
		op == GPO_X_ICMP || op == GPO_X_FCMP ||
		(op >= GPO_X_DATE_PLI && op <= GPO_X_DATE_MI) ||
		(op >= GPO_X_NADD && op <= GPO_X_NMUL) || op == GPO_X_NCMP;
}

/* The range error of integer width w. */
GPO_HD int
gpo_x_range_err(int w)
{
	return w == 2 ? GPO_XERR_INT2_RANGE :
		w == 4 ? GPO_XERR_INT4_RANGE : GPO_XERR_INT8_RANGE;
}

/* True if x fits an integer of w bytes. */
GPO_HD bool
gpo_x_fits(int64_t x, int w)
{
	if (w == 2)
		return x >= INT16_MIN && x <= INT16_MAX;
	if (w == 4)
		return x >= INT32_MIN && x <= INT32_MAX;
	return true;
}

/* a op b for the integer operators at width w; a gpo_xerr. */
GPO_HD int
gpo_x_iarith(int op, int w, int64_t a, int64_t b, int64_t *r)
{
	int64_t		x = 0;
	bool		ovf = false;

	switch (op)
	{
		case GPO_X_IADD:
			ovf = gpo_x_add64(a, b, &x);
			break;
		case GPO_X_ISUB:
			ovf = gpo_x_sub64(a, b, &x);
			break;
		case GPO_X_IMUL:
			ovf = gpo_x_mul64(a, b, &x);
			break;
		case GPO_X_IDIV:
			if (b == 0)
				return GPO_XERR_DIV_ZERO;
			if (b == -1)
			{
				ovf = a == INT64_MIN;
				x = ovf ? 0 : -a;
			}
			else
				x = a / b;
			break;
		case GPO_X_IMOD:
			if (b == 0)
				return GPO_XERR_DIV_ZERO;
			x = b == -1 ? 0 : a % b;
			break;
	}
	if (ovf || !gpo_x_fits(x, w))
		return gpo_x_range_err(w);
	*r = x;
	return GPO_XERR_NONE;
}

/* A double slot rounded to width w (4: the float it rounds to). */
GPO_HD double
gpo_x_round(double x, int w)
{
	return w == 4 ? (double) (float) x : x;
}

/* a op b for the float operators at width w, with PostgreSQL's checks. */
GPO_HD int
gpo_x_farith(int op, int w, double a, double b, double *r)
{
	double		x;

	if (op == GPO_X_FDIV && b == 0.0 && !isnan(a))
		return GPO_XERR_DIV_ZERO;
	switch (op)
	{
		case GPO_X_FADD:
			x = a + b;
			break;
		case GPO_X_FSUB:
			x = a - b;
			break;
		case GPO_X_FMUL:
			x = a * b;
			break;
		default:
			x = a / b;
			break;
	}
	x = gpo_x_round(x, w);
	if (isinf(x) && !isinf(a) && (op == GPO_X_FDIV || !isinf(b)))
		return GPO_XERR_FLOAT_OVERFLOW;
	if (x == 0.0 && a != 0.0 &&
		((op == GPO_X_FMUL && b != 0.0) || (op == GPO_X_FDIV && !isinf(b))))
		return GPO_XERR_FLOAT_UNDERFLOW;
	*r = x;
	return GPO_XERR_NONE;
}

/* PostgreSQL's float order (float8_cmp_internal): NaN = NaN, above all. */
GPO_HD int
gpo_x_fcmp3(double a, double b)
{
	if (isnan(a))
		return isnan(b) ? 0 : 1;
	if (isnan(b))
		return -1;
	return (a > b) - (a < b);
}

/* True if three-way result c satisfies gpo_cmp_op op. */
GPO_HD bool
gpo_x_holds(int c, int op)
{
	switch (op)
	{
		case GPO_CMP_EQ:
			return c == 0;
		case GPO_CMP_NE:
			return c != 0;
		case GPO_CMP_LT:
			return c < 0;
		case GPO_CMP_LE:
			return c <= 0;
		case GPO_CMP_GT:
			return c > 0;
		default:
			return c >= 0;
	}
}

/* date +- int4 (date_pli, date_mii) and date - date (date_mi). */
GPO_HD int
gpo_x_date_arith(int op, int64_t a, int64_t b, int64_t *r)
{
	int64_t		x;

	if (op == GPO_X_DATE_MI)
	{
		if (gpo_x_date_inf(a) || gpo_x_date_inf(b))
			return GPO_XERR_DATE_INFINITE_SUB;
		*r = gpo_x_w32(a - b);
		return GPO_XERR_NONE;
	}
	if (gpo_x_date_inf(a))
	{
		*r = a;
		return GPO_XERR_NONE;
	}
	x = op == GPO_X_DATE_PLI ? a + b : a - b;
	if (x < -GPO_X_EPOCH_JDATE || x >= GPO_X_DATE_END_JULIAN - GPO_X_EPOCH_JDATE)
		return GPO_XERR_DATE_RANGE;
	*r = x;
	return GPO_XERR_NONE;
}

/*
 * A numeric result x (exact) as a slot value: UNREPRESENTABLE from 10^18
 * on in magnitude.
 */
GPO_HD int
gpo_x_numeric_result(__int128 x, int64_t *r)
{
	if (x >= (__int128) GPO_X_NUMERIC_LIMIT ||
		x <= -(__int128) GPO_X_NUMERIC_LIMIT)
		return GPO_XERR_UNREPRESENTABLE;
	*r = (int64_t) x;
	return GPO_XERR_NONE;
}

/* a op b for the numeric operators on scaled values (NaN gives NaN). */
GPO_HD int
gpo_x_narith(int op, int64_t a, int64_t b, int64_t *r)
{
	if (a == GPO_X_NUMERIC_NAN || b == GPO_X_NUMERIC_NAN)
	{
		*r = GPO_X_NUMERIC_NAN;
		return GPO_XERR_NONE;
	}
	switch (op)
	{
		case GPO_X_NADD:
			return gpo_x_numeric_result((__int128) a + b, r);
		case GPO_X_NSUB:
			return gpo_x_numeric_result((__int128) a - b, r);
		default:
			return gpo_x_numeric_result((__int128) a * b, r);
	}
}

/* The numeric one-operand operators on a scaled value (NaN stays NaN). */
GPO_HD int
gpo_x_nunary(const gpo_xnode *p, int64_t *v)
{
	__int128	x = *v;
	int			e;

	if (*v == GPO_X_NUMERIC_NAN)
		return GPO_XERR_NONE;
	switch (p->op)
	{
		case GPO_X_NNEG:
			x = -x;
			break;
		case GPO_X_NABS:
			x = x < 0 ? -x : x;
			break;
		default:
			for (e = 0; e < p->arg; e++)
			{
				x *= 10;
				if (x >= (__int128) GPO_X_NUMERIC_LIMIT ||
					x <= -(__int128) GPO_X_NUMERIC_LIMIT)
					return GPO_XERR_UNREPRESENTABLE;
			}
			break;
	}
	return gpo_x_numeric_result(x, v);
}

/*
 * Numerics a and b whose scales differ by shift (b's minus a's) compared
 * exactly: the one of the smaller scale times 10^|shift| in 128 bits (below
 * 10^36); NaN equals NaN and orders above every number.  A gpo_x_holds.
 */
GPO_HD int64_t
gpo_x_ncmp(int64_t a, int64_t b, int64_t shift, int cmp)
{
	__int128	x = a;
	__int128	y = b;
	int			c;

	if (a == GPO_X_NUMERIC_NAN || b == GPO_X_NUMERIC_NAN)
		c = (a == GPO_X_NUMERIC_NAN) - (b == GPO_X_NUMERIC_NAN);
	else
	{
		for (; shift > 0; shift--)
			x *= 10;
		for (; shift < 0; shift++)
			y *= 10;
		c = (x > y) - (x < y);
	}
	return gpo_x_holds(c, cmp);
}

/* A strict two-operand operator on non-NULL a and b into *r. */
GPO_HD int
gpo_x_binary(const gpo_xnode *p, gpo_xval a, gpo_xval b, gpo_xval *r)
{
	switch (p->op)
	{
		case GPO_X_NADD:
		case GPO_X_NSUB:
		case GPO_X_NMUL:
			return gpo_x_narith(p->op, a.i, b.i, &r->i);
		case GPO_X_NCMP:
			r->i = gpo_x_ncmp(a.i, b.i, p->ival, p->arg);
			return GPO_XERR_NONE;
		case GPO_X_ICMP:
			r->i = gpo_x_holds((a.i > b.i) - (a.i < b.i), p->arg);
			return GPO_XERR_NONE;
		case GPO_X_FCMP:
			r->i = gpo_x_holds(gpo_x_fcmp3(a.f, b.f), p->arg);
			return GPO_XERR_NONE;
		case GPO_X_DATE_PLI:
		case GPO_X_DATE_MII:
		case GPO_X_DATE_MI:
			return gpo_x_date_arith(p->op, a.i, b.i, &r->i);
	}
	if (p->op >= GPO_X_FADD)
		return gpo_x_farith(p->op, p->width, a.f, b.f, &r->f);
	return gpo_x_iarith(p->op, p->width, a.i, b.i, &r->i);
}

/* float to integer width w (dtoi2/dtoi4/dtoi8, ftoi*): rint, then range. */
GPO_HD int
gpo_x_f2i(double a, int w, int64_t *r)
{
	double		x = rint(a);
	double		lim = w == 2 ? 32768.0 : w == 4 ? 2147483648.0 :
		9223372036854775808.0;

	if (isnan(x) || !(x >= -lim && x < lim))
		return gpo_x_range_err(w);
	*r = (int64_t) x;
	return GPO_XERR_NONE;
}

/* float8 to float4 (dtof) at w 4; float4 to float8 (ftod) at w 8. */
GPO_HD int
gpo_x_f2f(double a, int w, double *r)
{
	float		f = (float) a;

	if (w != 4)
	{
		*r = a;
		return GPO_XERR_NONE;
	}
	if (isinf(f) && !isinf(a))
		return GPO_XERR_FLOAT_OVERFLOW;
	if (f == 0.0f && a != 0.0)
		return GPO_XERR_FLOAT_UNDERFLOW;
	*r = f;
	return GPO_XERR_NONE;
}

/* The date/time one-operand operators on non-NULL v (may give NULL). */
GPO_HD int
gpo_x_time_op(const gpo_xnode *p, gpo_xval *v, bool *isnull)
{
	int64_t		a = v->i;

	switch (p->op)
	{
		case GPO_X_DATE2TS:
			if (gpo_x_date_inf(a))
				v->i = a < 0 ? INT64_MIN : INT64_MAX;
			else if (a >= GPO_X_TS_END_JULIAN - GPO_X_EPOCH_JDATE)
				return GPO_XERR_DATE_TS_RANGE;
			else
				v->i = (int64_t) ((uint64_t) a * (uint64_t) GPO_X_USECS_DAY);
			return GPO_XERR_NONE;
		case GPO_X_TS2DATE:
			{
				gpo_xtm		tm;
				int32_t		jd;

				if (gpo_x_ts_inf(a))
					v->i = a < 0 ? INT32_MIN : INT32_MAX;
				else if (!gpo_x_ts2tm(a, &tm, &jd))
					return GPO_XERR_TS_RANGE;
				else
					v->i = (int64_t) gpo_x_date2j(tm.year, tm.mon, tm.mday) -
						GPO_X_EPOCH_JDATE;
				return GPO_XERR_NONE;
			}
		case GPO_X_TS_PL_INTERVAL:
			return gpo_x_ts_pl_interval(a, p->months, p->days, p->ival, &v->i);
		case GPO_X_TS_MI_INTERVAL:
			return gpo_x_ts_pl_interval(a, gpo_x_w32(-(int64_t) p->months),
										gpo_x_w32(-(int64_t) p->days),
										(int64_t) (0 - (uint64_t) p->ival),
										&v->i);
		case GPO_X_TS_PART:
			return gpo_x_ts_part(p->arg, a, &v->f, isnull);
		case GPO_X_TS_EXTRACT:
			return gpo_x_ts_extract(p->arg, a, &v->i, isnull);
		case GPO_X_DATE_EXTRACT:
			return gpo_x_date_extract(p->arg, a, &v->i, isnull);
		default:
			return gpo_x_ts_trunc(p->arg, a, &v->i);
	}
}

/* A strict one-operand operator on non-NULL *v, in place. */
GPO_HD int
gpo_x_unary(const gpo_xnode *p, gpo_xval *v, bool *isnull)
{
	int			w = p->width;

	switch (p->op)
	{
		case GPO_X_INEG:
		case GPO_X_IABS:
			if (v->i == INT64_MIN)
				return gpo_x_range_err(w);
			if (p->op == GPO_X_INEG || v->i < 0)
				v->i = -v->i;
			return gpo_x_fits(v->i, w) ? GPO_XERR_NONE : gpo_x_range_err(w);
		case GPO_X_FNEG:
			v->f = -v->f;
			return GPO_XERR_NONE;
		case GPO_X_FABS:
			v->f = fabs(v->f);
			return GPO_XERR_NONE;
		case GPO_X_I2I:
			return gpo_x_fits(v->i, w) ? GPO_XERR_NONE : gpo_x_range_err(w);
		case GPO_X_I2F:
			v->f = w == 4 ? (double) (float) v->i : (double) v->i;
			return GPO_XERR_NONE;
		case GPO_X_F2I:
			return gpo_x_f2i(v->f, w, &v->i);
		case GPO_X_F2F:
			return gpo_x_f2f(v->f, w, &v->f);
		case GPO_X_BOOL2I:
			return GPO_XERR_NONE;
		case GPO_X_NOT:
			v->i = v->i == 0;
			return GPO_XERR_NONE;
		case GPO_X_NNEG:
		case GPO_X_NABS:
		case GPO_X_NSCALE:
			return gpo_x_nunary(p, &v->i);
	}
	return gpo_x_time_op(p, v, isnull);
}

/* Pushes row's value of column c. */
GPO_HD void
gpo_x_load(const gpo_xcol *c, int64_t row, gpo_xval *v, bool *isnull)
{
	*isnull = c->valid != NULL && c->valid[row] == 0;
	v->i = 0;
	if (*isnull)
		return;
	switch (c->type)
	{
		case GPO_INT32:
			v->i = ((const int32_t *) c->data)[row];
			break;
		case GPO_UINT32:
			v->i = ((const uint32_t *) c->data)[row];
			break;
		case GPO_INT64:
			v->i = ((const int64_t *) c->data)[row];
			break;
		case GPO_FLOAT32:
			v->f = (double) ((const float *) c->data)[row];
			break;
		case GPO_FLOAT64:
			v->f = ((const double *) c->data)[row];
			break;
		default:
			v->i = ((const uint8_t *) c->data)[row];
			break;
	}
}

/*
 * The operators that are not strict, or move the program counter: they
 * see the stack (v, nul, *sp) and may set *pc; false if op is another.
 */
GPO_HD bool
gpo_x_control(const gpo_xnode *p, gpo_xval *v, bool *nul, int *sp, int *pc)
{
	int			t = *sp - 1;
	bool		x;

	switch (p->op)
	{
		case GPO_X_ISNULL:
			v[t].i = nul[t] != (p->ival != 0);
			nul[t] = false;
			return true;
		case GPO_X_ISTRUE:
			x = !nul[t] && ((p->ival & 1) ? v[t].i == 0 : v[t].i != 0);
			v[t].i = (p->ival & 2) ? !x : x;
			nul[t] = false;
			return true;
		case GPO_X_AND_STEP:
		case GPO_X_OR_STEP:
			{
				/* the value that decides: FALSE for AND, TRUE for OR */
				bool		dom = p->op == GPO_X_OR_STEP;

				*sp = t;
				if (!nul[t] && (v[t].i != 0) == dom)
				{
					v[t - 1].i = dom;
					nul[t - 1] = false;
					*pc = p->arg;
					return true;
				}
				nul[t - 1] = nul[t - 1] || nul[t];
				v[t - 1].i = !dom;
				return true;
			}
		case GPO_X_JUMP:
			*pc = p->arg;
			return true;
		case GPO_X_JUMP_IF_NOT_TRUE:
			*sp = t;
			if (nul[t] || v[t].i == 0)
				*pc = p->arg;
			return true;
		case GPO_X_JUMP_IF_NOT_NULL:
			if (!nul[t])
				*pc = p->arg;
			else
				*sp = t;
			return true;
		case GPO_X_NULLIF:
			*sp = t;
			if (!nul[t] && !nul[t - 1] &&
				(p->width == 1 ? gpo_x_fcmp3(v[t - 1].f, v[t].f) == 0 :
				 v[t - 1].i == v[t].i))
				nul[t - 1] = true;
			return true;
	}
	return false;
}

/*
 * Runs prog (checked by gpo_expr_check) for row of cols: the result into
 * *res and *isnull, or the gpo_xerr of the operator that raised one.
 */
GPO_HD int
gpo_expr_row(const gpo_xnode *prog, int nnodes, const gpo_xcol *cols,
			 int64_t row, gpo_xval *res, bool *isnull)
{
	gpo_xval	v[GPO_EXPR_MAX_DEPTH];
	bool		nul[GPO_EXPR_MAX_DEPTH];
	int			sp = 0;
	int			pc = 0;
	int			e = GPO_XERR_NONE;

	while (pc < nnodes)
	{
		const gpo_xnode *p = &prog[pc++];

		if (p->op == GPO_X_COL)
			gpo_x_load(&cols[p->arg], row, &v[sp], &nul[sp]);
		else if (p->op == GPO_X_CONST)
		{
			nul[sp] = p->is_null;
			if (p->width == 1)
				v[sp].f = p->is_null ? 0.0 : p->fval;
			else
				v[sp].i = p->is_null ? 0 : p->ival;
		}
		else if (gpo_x_control(p, v, nul, &sp, &pc))
			continue;
		else if (gpo_xop_binary(p->op))
		{
			sp--;
			nul[sp - 1] = nul[sp - 1] || nul[sp];
			if (!nul[sp - 1])
				e = gpo_x_binary(p, v[sp - 1], v[sp], &v[sp - 1]);
			if (e != GPO_XERR_NONE)
				return e;
			continue;
		}
		else
		{
			if (!nul[sp - 1])
				e = gpo_x_unary(p, &v[sp - 1], &nul[sp - 1]);
			if (e != GPO_XERR_NONE)
				return e;
			continue;
		}
		sp++;
	}
	*res = v[0];
	*isnull = nul[0];
	return GPO_XERR_NONE;
}

/*
 * Stores a result into element j of an output of type (INT32: the low 32
 * bits; FLOAT32: the float; NaN as the canonical quiet NaN; NULL as 0).
 */
GPO_HD void
gpo_x_store(int type, void *data, int64_t j, gpo_xval v, bool isnull)
{
	switch (type)
	{
		case GPO_INT32:
			((int32_t *) data)[j] = isnull ? 0 : (int32_t) (uint32_t) (uint64_t) v.i;
			break;
		case GPO_INT64:
			((int64_t *) data)[j] = isnull ? 0 : v.i;
			break;
		case GPO_FLOAT32:
			((float *) data)[j] = isnull ? 0.0f : isnan(v.f) ?
				gpo_x_float_of(UINT32_C(0x7fc00000)) : (float) v.f;
			break;
		default:
			((double *) data)[j] = isnull ? 0.0 : isnan(v.f) ?
				gpo_x_double_of(UINT64_C(0x7ff8000000000000)) : v.f;
			break;
	}
}

#endif							/* GPO_EXPR_EVAL_H */
