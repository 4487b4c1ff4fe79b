/*
 * agg_safe.c
 *	  Which expressions cannot raise an error on any row.  The node may
 *	  evaluate such an expression on rows where PostgreSQL's own plan would
 *	  not: a dimension's child plan computes it on rows that no fact row
 *	  joins (agg_star_exprs.c), and a WHERE clause over the table's columns
 *	  runs on the device before the other clauses (agg_eligible.c).  Taken:
 *	  operators and functions marked leakproof (which may not raise errors
 *	  that depend on their arguments), numeric's comparisons, integer
 *	  division and modulo by a constant other than 0 and -1, the lengths of
 *	  text and char(n) values, LIKE / ILIKE
 *	  with a constant pattern that cannot fail, CASE, COALESCE, boolean and
 *	  NULL tests over the query's own columns.
 */
#include "aggnode/plan/agg_plan_int.h"

#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

/* What the safety walker carries: how deep it is inside CASE expressions. */
typedef struct GpuopsSafeCtx
{
	int			case_depth;
} GpuopsSafeCtx;

/*
 * True if funcid is LIKE or ILIKE (or their negations) of text or
 * char(n) whose pattern is a constant that cannot make it fail: no
 * backslash (a pattern ending in the escape character raises 22025), and
 * a deterministic collation (the others raise 0A000).
 */
static bool
gpuops_safe_like(Oid funcid, List *args, Oid inputcollid)
{
	Const	   *pat;
	char	   *s;

	if (funcid != F_TEXTLIKE && funcid != F_TEXTNLIKE &&
		funcid != F_BPCHARLIKE && funcid != F_BPCHARNLIKE &&
		funcid != F_TEXTICLIKE && funcid != F_TEXTICNLIKE &&
		funcid != F_BPCHARICLIKE && funcid != F_BPCHARICNLIKE)
		return false;
	if (list_length(args) != 2 || !IsA(lsecond(args), Const))
		return false;
	pat = lsecond_node(Const, args);
	if (pat->constisnull || !OidIsValid(inputcollid) ||
		!get_collation_isdeterministic(inputcollid))
		return false;
	s = TextDatumGetCString(pat->constvalue);
	return strchr(s, '\\') == NULL;
}

/*
 * True if funcid is an integer division or modulo of one type by a
 * constant other than 0 and -1 (id % 5 = 0), which cannot fail: only a
 * zero divisor, and the smallest value divided by -1, raise errors.
 */
static bool
gpuops_safe_int_div(Oid funcid, List *args)
{
	Const	   *c;
	int64		v;

	if (list_length(args) != 2 || !IsA(lsecond(args), Const))
		return false;
	c = lsecond_node(Const, args);
	if (c->constisnull)
		return true;
	switch (funcid)
	{
		case F_INT2DIV:
		case F_INT2MOD:
			v = DatumGetInt16(c->constvalue);
			break;
		case F_INT4DIV:
		case F_INT4MOD:
			v = DatumGetInt32(c->constvalue);
			break;
		case F_INT8DIV:
		case F_INT8MOD:
			v = DatumGetInt64(c->constvalue);
			break;
		default:
			return false;
	}
	return v != 0 && v != -1;
}

/*
 * True if funcid is a length of text or char(n) (length, char_length,
 * character_length, octet_length), which counts the bytes or characters
 * of a stored, valid value and raises no error of its own.
 */
static bool
gpuops_safe_length(Oid funcid)
{
	switch (funcid)
	{
		case F_LENGTH_TEXT:
		case F_CHAR_LENGTH_TEXT:
		case F_CHARACTER_LENGTH_TEXT:
		case F_TEXTLEN:
		case F_OCTET_LENGTH_TEXT:
		case F_LENGTH_BPCHAR:
		case F_CHAR_LENGTH_BPCHAR:
		case F_CHARACTER_LENGTH_BPCHAR:
		case F_OCTET_LENGTH_BPCHAR:
			return true;
	}
	return false;
}

/* True if a call of funcid over args cannot raise an error on any row. */
static bool
gpuops_safe_func(Oid funcid, List *args, Oid inputcollid)
{
	/* numeric's comparisons never fail, though not marked leakproof */
	return get_func_leakproof(funcid) ||
		funcid == F_NUMERIC_EQ || funcid == F_NUMERIC_NE ||
		funcid == F_NUMERIC_LT || funcid == F_NUMERIC_LE ||
		funcid == F_NUMERIC_GT || funcid == F_NUMERIC_GE ||
		gpuops_safe_int_div(funcid, args) || gpuops_safe_length(funcid) ||
		gpuops_safe_like(funcid, args, inputcollid);
}

/*
 * Walker: true if the expression has a node that may raise an error on
 * some rows, or one that can't be moved into a dimension's plan (an
 * aggregate, a parameter, a subplan, an outer query's column, a CASE's
 * test value outside its CASE).
 */
static bool
gpuops_safe_unsafe_walker(Node *node, GpuopsSafeCtx *ctx)
{
	if (node == NULL)
		return false;
	switch (nodeTag(node))
	{
		case T_Var:
			return ((Var *) node)->varlevelsup != 0 ||
				((Var *) node)->varattno <= 0;
		case T_Const:
			return false;
		case T_CaseTestExpr:
			return ctx->case_depth == 0;
		case T_CaseExpr:
			{
				bool		bad;

				ctx->case_depth++;
				bad = expression_tree_walker(node, gpuops_safe_unsafe_walker, ctx);
				ctx->case_depth--;
				return bad;
			}
		case T_RelabelType:
		case T_BoolExpr:
		case T_CaseWhen:
		case T_CoalesceExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_List:
			break;
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			{
				OpExpr	   *op = (OpExpr *) node;

				set_opfuncid(op);
				if (!gpuops_safe_func(op->opfuncid, op->args, op->inputcollid))
					return true;
				break;
			}
		case T_ScalarArrayOpExpr:
			{
				ScalarArrayOpExpr *sa = (ScalarArrayOpExpr *) node;

				set_sa_opfuncid(sa);
				if (!gpuops_safe_func(sa->opfuncid, NIL, InvalidOid) ||
					!IsA(lsecond(sa->args), Const))
					return true;
				break;
			}
		case T_FuncExpr:
			{
				FuncExpr   *f = (FuncExpr *) node;

				if (f->funcretset ||
					!gpuops_safe_func(f->funcid, f->args, f->inputcollid))
					return true;
				break;
			}
		default:
			return true;
	}
	return expression_tree_walker(node, gpuops_safe_unsafe_walker, ctx);
}

/*
 * True if no row can make node raise an error, and node reads only the
 * query's own columns (no outer query's, no system column, no CASE test
 * value outside its CASE).
 */
bool
gpuops_expr_cannot_fail(Node *node)
{
	GpuopsSafeCtx ctx = {0};

	return !gpuops_safe_unsafe_walker(node, &ctx);
}
