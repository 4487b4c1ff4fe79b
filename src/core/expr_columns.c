/*
 * expr_columns.c
 *	  The CPU face's column-at-a-time run of a program without jumps.
 *
 * The row interpreter (gpo_expr_row) dispatches every node of the program
 * again for every row.  A program without jumps (no CASE, AND, OR or
 * COALESCE: TPC-H Q1's `price * (1 - discount) * (1 + tax)`) runs the
 * same nodes for every row, so here each node runs over a whole tile of
 * rows before the next: one dispatch a node a tile, and loops the
 * compiler can keep tight.  Every row gets the values the row interpreter
 * would give it.
 *
 * Errors.  The row interpreter stops at a row's first erroring node and
 * reports the lowest erroring row.  Here a node runs over every row, also
 * rows where an earlier node erred (whose slots then hold some value);
 * each node's first erroring row among the evaluated ones is noted, and
 * the lowest one wins, an earlier node on a tie.  That is the row
 * interpreter's: rows are independent, so the lowest row that errs at
 * all errs the same way, at the first node in program order that errs on
 * it, and a node can err on an unsound value only at a row where an
 * earlier node erred already.  Masked-out rows are never evaluated.
 */
#include <string.h>

#include "gpo_expr_columns.h"
#include "gpo_internal.h"

/*
 * The stack depth prog needs if it has no jumps (every node runs for
 * every row), else -1.
 */
int
gpo_expr_columns_depth(const gpo_xnode *prog, int nnodes)
{
	int			sp = 0;
	int			depth = 0;

	for (int i = 0; i < nnodes; i++)
	{
		int			pops;
		int			pushes;

		switch (prog[i].op)
		{
			case GPO_X_JUMP:
			case GPO_X_JUMP_IF_NOT_TRUE:
			case GPO_X_JUMP_IF_NOT_NULL:
			case GPO_X_AND_STEP:
			case GPO_X_OR_STEP:
				return -1;
		}
		gpo_xop_effect(prog[i].op, &pops, &pushes);
		sp += pushes - pops;
		if (sp > depth)
			depth = sp;
	}
	return depth;
}

/* Pushes column c's len rows into slot (v, nul), one loop per type. */
static void
columns_load(const gpo_xcol *c, int64_t len, gpo_xval *v, bool *nul)
{
	switch (c->type)
	{
		case GPO_INT64:
			for (int64_t j = 0; j < len; j++)
				v[j].i = ((const int64_t *) c->data)[j];
			break;
		case GPO_INT32:
			for (int64_t j = 0; j < len; j++)
				v[j].i = ((const int32_t *) c->data)[j];
			break;
		case GPO_FLOAT64:
			for (int64_t j = 0; j < len; j++)
				v[j].f = ((const double *) c->data)[j];
			break;
		default:
			for (int64_t j = 0; j < len; j++)
				gpo_x_load(c, j, &v[j], &nul[j]);
			return;
	}
	if (c->valid == NULL)
		memset(nul, 0, len);
	else
		for (int64_t j = 0; j < len; j++)
		{
			nul[j] = c->valid[j] == 0;
			if (nul[j])
				v[j].i = 0;
		}
}

/*
 * One numeric operator's loop (gpo_x_narith's rule: NaN gives NaN, a
 * result from 10^18 on in magnitude is UNREPRESENTABLE), B(j) the right
 * operand of row j, BN(j) its NULL flag.  No branch a row but the rare
 * error's: an int64 result that overflows is 2^63 or more in magnitude,
 * past the limit, as the exact one would be.  Rows that are NULL or not
 * evaluated get some value, never read (2M rows of TPC-H Q1's products
 * on 2 cores: the loop with a branch a case took twice as long).
 */
#define COLUMNS_NARITH(BUILTIN, B, BN) \
	for (int64_t j = 0; j < len; j++) \
	{ \
		int64_t		x = a[j].i; \
		int64_t		y = (B); \
		int64_t		r; \
		bool		ovf = BUILTIN(x, y, &r); \
		bool		nan = (x == GPO_X_NUMERIC_NAN) | (y == GPO_X_NUMERIC_NAN); \
		bool		skip = an[j] | (BN) | !mask[j]; \
		bool		bad = (ovf | (r >= GPO_X_NUMERIC_LIMIT) | \
						   (r <= -GPO_X_NUMERIC_LIMIT)) & !nan & !skip; \
		an[j] = an[j] | (BN); \
		a[j].i = nan ? GPO_X_NUMERIC_NAN : r; \
		if (__builtin_expect(bad, 0) && first == len) \
			first = j; \
	}

/*
 * A numeric +, - or * over slots a (its result) and b (NULL: the constant
 * c, not NULL), as columns_binary.
 */
static int64_t
columns_narith(int op, int64_t len, const uint8_t *mask, gpo_xval *a,
			   bool *an, const gpo_xval *b, const bool *bn, int64_t c,
			   int *code)
{
	int64_t		first = len;

	if (b == NULL && op == GPO_X_NMUL)
		COLUMNS_NARITH(__builtin_mul_overflow, c, false)
	else if (b == NULL && op == GPO_X_NADD)
		COLUMNS_NARITH(__builtin_add_overflow, c, false)
	else if (b == NULL)
		COLUMNS_NARITH(__builtin_sub_overflow, c, false)
	else if (op == GPO_X_NMUL)
		COLUMNS_NARITH(__builtin_mul_overflow, b[j].i, bn[j])
	else if (op == GPO_X_NADD)
		COLUMNS_NARITH(__builtin_add_overflow, b[j].i, bn[j])
	else
		COLUMNS_NARITH(__builtin_sub_overflow, b[j].i, bn[j])
	if (first < len)
		*code = GPO_XERR_UNREPRESENTABLE;
	return first;
}

#undef COLUMNS_NARITH

/* Whether op is a numeric +, - or * (columns_narith). */
static inline bool
columns_narith_op(int op)
{
	return op == GPO_X_NMUL || op == GPO_X_NADD || op == GPO_X_NSUB;
}

/* Whether op is one of the arithmetic nodes COLUMNS_ARITH runs. */
static inline bool
columns_arith_op(int op)
{
	return (op >= GPO_X_IADD && op <= GPO_X_IMOD) ||
		(op >= GPO_X_FADD && op <= GPO_X_FDIV);
}

/*
 * A strict node's loop over the tile: NULLS folds the right operand's
 * NULLs into an[j] (or does nothing for a constant), CALL computes row j
 * into a[j]; the first erroring row goes into first and *code.
 */
#define COLUMNS_LOOP(NULLS, CALL) \
	for (int64_t j = 0; j < len; j++) \
	{ \
		int			e; \
		NULLS; \
		if (an[j] || !mask[j]) \
			continue; \
		e = (CALL); \
		if (e != GPO_XERR_NONE && first == len) \
		{ \
			first = j; \
			*code = e; \
		} \
	}

/*
 * The integer and float arithmetic in loops of their own, the operator a
 * constant in each, so that the per-row switch of gpo_x_binary folds away
 * (2M rows of `k % 100 + 1` and `v * 2 + 1` on 2 cores: the expressions
 * were half of the query's profile); BI and BF are the right operand.
 * Returns first from the function it is in.
 */
#define COLUMNS_ARITH(LOOP, NULLS, BI, BF) \
	do { \
		int			w = p->width; \
		switch (p->op) \
		{ \
			case GPO_X_IADD: LOOP(NULLS, gpo_x_iarith(GPO_X_IADD, w, a[j].i, BI, &a[j].i)); break; \
			case GPO_X_ISUB: LOOP(NULLS, gpo_x_iarith(GPO_X_ISUB, w, a[j].i, BI, &a[j].i)); break; \
			case GPO_X_IMUL: LOOP(NULLS, gpo_x_iarith(GPO_X_IMUL, w, a[j].i, BI, &a[j].i)); break; \
			case GPO_X_IDIV: LOOP(NULLS, gpo_x_iarith(GPO_X_IDIV, w, a[j].i, BI, &a[j].i)); break; \
			case GPO_X_IMOD: LOOP(NULLS, gpo_x_iarith(GPO_X_IMOD, w, a[j].i, BI, &a[j].i)); break; \
			case GPO_X_FADD: LOOP(NULLS, gpo_x_farith(GPO_X_FADD, w, a[j].f, BF, &a[j].f)); break; \
			case GPO_X_FSUB: LOOP(NULLS, gpo_x_farith(GPO_X_FSUB, w, a[j].f, BF, &a[j].f)); break; \
			case GPO_X_FMUL: LOOP(NULLS, gpo_x_farith(GPO_X_FMUL, w, a[j].f, BF, &a[j].f)); break; \
			default: LOOP(NULLS, gpo_x_farith(GPO_X_FDIV, w, a[j].f, BF, &a[j].f)); break; \
		} \
		return first; \
	} while (0)

/*
 * A strict two-operand node over slots a (its result) and b: the numeric
 * operators of TPC-H-style expressions in loops of their own, the others
 * by gpo_x_binary per row.  Returns the first erroring row (len if none)
 * with its code in *code.
 */
static int64_t
columns_binary(const gpo_xnode *p, int64_t len, const uint8_t *mask,
			   gpo_xval *a, bool *an, const gpo_xval *b, const bool *bn,
			   int *code)
{
	int64_t		first = len;

	if (columns_narith_op(p->op))
		return columns_narith(p->op, len, mask, a, an, b, bn, 0, code);

	if (columns_arith_op(p->op))
		COLUMNS_ARITH(COLUMNS_LOOP, an[j] = an[j] || bn[j], b[j].i, b[j].f);
	COLUMNS_LOOP(an[j] = an[j] || bn[j], gpo_x_binary(p, a[j], b[j], &a[j]));
	return first;
}

/*
 * An arithmetic node whose right operand is the constant c (not NULL), as
 * columns_binary without a slot filled with the constant: `k % 100 + 1`
 * and `v * 2 + 1` are two such pairs each.
 */
static int64_t
columns_binary_const(const gpo_xnode *p, int64_t len, const uint8_t *mask,
					 gpo_xval *a, bool *an, gpo_xval c, int *code)
{
	int64_t		first = len;

	if (columns_narith_op(p->op))
		return columns_narith(p->op, len, mask, a, an, NULL, NULL, c.i, code);
	COLUMNS_ARITH(COLUMNS_LOOP, (void) 0, c.i, c.f);
	return first;
}

#undef COLUMNS_ARITH
#undef COLUMNS_LOOP

/* A strict one-operand node over slot (a, an), as columns_binary. */
static int64_t
columns_unary(const gpo_xnode *p, int64_t len, const uint8_t *mask,
			  gpo_xval *a, bool *an, int *code)
{
	int64_t		first = len;

	for (int64_t j = 0; j < len; j++)
	{
		int			e;

		if (an[j] || !mask[j])
			continue;
		e = gpo_x_unary(p, &a[j], &an[j]);
		if (e != GPO_XERR_NONE && first == len)
		{
			first = j;
			*code = e;
		}
	}
	return first;
}

/*
 * A node without jumps that sees the stack (IS NULL, IS TRUE, NULLIF):
 * gpo_x_control per row over a copy of the top two slots.  Returns the
 * stack's new depth.
 */
static int
columns_control(const gpo_xnode *p, int64_t len, gpo_xval *const *sv,
				bool *const *sn, int sp)
{
	int			out = sp;

	for (int64_t j = 0; j < len; j++)
	{
		gpo_xval	v[2];
		bool		n[2];
		int			k = sp >= 2 ? 2 : 1;
		int			s = k;
		int			pc = 0;

		for (int i = 0; i < k; i++)
		{
			v[i] = sv[sp - k + i][j];
			n[i] = sn[sp - k + i][j];
		}
		gpo_x_control(p, v, n, &s, &pc);
		for (int i = 0; i < s; i++)
		{
			sv[sp - k + i][j] = v[i];
			sn[sp - k + i][j] = n[i];
		}
		out = sp - k + s;
	}
	return out;
}

/*
 * Runs prog (gpo_expr_columns_depth >= 0, stack slots sv/sn of TILE rows
 * each) over len rows of cols where mask is set: results into res and
 * res_null (NULL where the mask is clear).  Returns the lowest erroring
 * row (len if none), its gpo_xerr in *code.
 */
int64_t
gpo_expr_columns(const gpo_xnode *prog, int nnodes, const gpo_xcol *cols,
				 const uint8_t *mask, int64_t len, gpo_xval *const *sv,
				 bool *const *sn, gpo_xval *res, bool *res_null, int *code)
{
	int64_t		lowest = len;
	int			sp = 0;

	for (int i = 0; i < nnodes; i++)
	{
		const gpo_xnode *p = &prog[i];
		int64_t		first = len;
		int			e = GPO_XERR_NONE;

		if (p->op == GPO_X_COL)
		{
			columns_load(&cols[p->arg], len, sv[sp], sn[sp]);
			sp++;
		}
		else if (p->op == GPO_X_CONST && !p->is_null && sp > 0 &&
				 i + 1 < nnodes && (columns_arith_op(prog[i + 1].op) ||
									columns_narith_op(prog[i + 1].op)))
		{
			/* a constant right operand, not filled into a slot */
			gpo_xval	c;

			if (p->width == 1)
				c.f = p->fval;
			else
				c.i = p->ival;
			i++;
			first = columns_binary_const(&prog[i], len, mask, sv[sp - 1],
										 sn[sp - 1], c, &e);
		}
		else if (p->op == GPO_X_CONST)
		{
			for (int64_t j = 0; j < len; j++)
			{
				if (p->width == 1)
					sv[sp][j].f = p->is_null ? 0.0 : p->fval;
				else
					sv[sp][j].i = p->is_null ? 0 : p->ival;
			}
			memset(sn[sp], p->is_null, len);
			sp++;
		}
		else if (gpo_xop_binary(p->op))
		{
			sp--;
			first = columns_binary(p, len, mask, sv[sp - 1], sn[sp - 1],
								   sv[sp], sn[sp], &e);
		}
		else if (p->op == GPO_X_ISNULL || p->op == GPO_X_ISTRUE ||
				 p->op == GPO_X_NULLIF)
			sp = columns_control(p, len, sv, sn, sp);
		else
			first = columns_unary(p, len, mask, sv[sp - 1], sn[sp - 1], &e);
		if (first < lowest)
		{
			lowest = first;
			*code = e;
		}
	}
	for (int64_t j = 0; j < len; j++)
	{
		res_null[j] = !mask[j] || sn[0][j];
		res[j].i = res_null[j] ? 0 : sv[0][j].i;
	}
	return lowest;
}
