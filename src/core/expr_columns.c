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

#include "gpo_expr_loops.h"
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

/*
 * Pushes column c's len rows into slot (v, nul): int8, int4 and float8 by
 * expr_loops.c's loops, the other types row by row.
 */
static void
columns_load(const gpo_xcol *c, int64_t len, gpo_xval *v, bool *nul)
{
	if (gpo_expr_loops_load(c, len, v, nul))
		return;
	for (int64_t j = 0; j < len; j++)
		gpo_x_load(c, j, &v[j], &nul[j]);
}

/* The value of constant node p (not NULL) in a slot. */
static inline gpo_xval
columns_const(const gpo_xnode *p)
{
	gpo_xval	c;

	if (p->width == 1)
		c.f = p->fval;
	else
		c.i = p->ival;
	return c;
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
 * Integer and float division and modulo in loops of their own, the
 * operator a constant in each, so that the per-row switch of gpo_x_binary
 * folds away (+, - and * take expr_loops.c's branch-free loops); BI and BF
 * are the right operand.  Returns first from the function it is in.
 */
#define COLUMNS_ARITH(LOOP, NULLS, BI, BF) \
	do { \
		int			w = p->width; \
		switch (p->op) \
		{ \
			case GPO_X_IDIV: LOOP(NULLS, gpo_x_iarith(GPO_X_IDIV, w, a[j].i, BI, &a[j].i)); break; \
			case GPO_X_IMOD: LOOP(NULLS, gpo_x_iarith(GPO_X_IMOD, w, a[j].i, BI, &a[j].i)); break; \
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

	if (gpo_expr_arith_op(p->op))
	{
		gpo_xval	none = {0};

		return gpo_expr_arith_columns(p, len, mask, a, an, b, bn, none, false,
									  code);
	}
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

	if (gpo_expr_arith_op(p->op))
		return gpo_expr_arith_columns(p, len, mask, a, an, NULL, NULL, c, false,
									  code);
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
									gpo_expr_arith_op(prog[i + 1].op)))
		{
			/* a constant right operand, not filled into a slot */
			i++;
			first = columns_binary_const(&prog[i], len, mask, sv[sp - 1],
										 sn[sp - 1], columns_const(p), &e);
		}
		else if (p->op == GPO_X_CONST && !p->is_null && i + 2 < nnodes &&
				 prog[i + 1].op == GPO_X_COL && gpo_expr_arith_op(prog[i + 2].op))
		{
			/* a constant left operand of a column (`1 - x`): c op the column */
			columns_load(&cols[prog[i + 1].arg], len, sv[sp], sn[sp]);
			i += 2;
			first = gpo_expr_arith_columns(&prog[i], len, mask, sv[sp], sn[sp],
										   NULL, NULL, columns_const(p), true, &e);
			sp++;
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
	gpo_expr_loops_result(mask, sv[0], sn[0], len, res, res_null);
	return lowest;
}
