/*
 * agg_expr_scale.c
 *	  The scales of numeric expressions as the expression compiler
 *	  (agg_expr.c) holds them: every numeric node's value is an int64, the
 *	  value times 10^scale (numeric_scaled.h), with a scale known at plan
 *	  time.  PostgreSQL gives each row's value the same display scale,
 *	  which is what lets the node rebuild sums and averages exactly.
 */
#include "aggnode/plan/agg_expr_int.h"
#include "common/numeric_scaled.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"

/*
 * A numeric constant's value * 10^(its display scale) into *scaled (NaN's
 * stand-in for NaN); returns that scale, or -1 if it is not below 10^18
 * that way (or an infinity).
 */
int
gpuops_x_numeric_const(Datum d, int64 *scaled)
{
	void	   *p = PG_DETOAST_DATUM_PACKED(d);
	int			scale = gpuops_numeric_dscale(p);

	if (scale < 0 || scale > GPUOPS_NUMERIC_MAX_PRECISION ||
		gpuops_numeric_scaled(p, scale, scaled) == GPUOPS_NUMERIC_UNFIT)
		return -1;
	return scale;
}

/*
 * The scale of numeric expression e as the compiled program holds it: a
 * column's typmod scale, a constant's display scale, the larger one of +
 * and -, the sum of *'s, 0 for an integer cast to numeric, the one scale
 * of every branch of CASE, COALESCE and NULLIF (which PostgreSQL's values
 * show: a sum's display scale is its values' largest, so every row must
 * have the same); GPUOPS_X_ANY_SCALE for a NULL constant, -1 where the
 * device can't hold the values that way.
 */
int
gpuops_x_scale(Node *e)
{
	GpuopsXFunc f;
	List	   *args = NIL;
	Oid			funcid = InvalidOid;
	ListCell   *lc;
	int			s = GPUOPS_X_ANY_SCALE;

	check_stack_depth();
	if (e == NULL)
		return -1;
	switch (nodeTag(e))
	{
		case T_Var:
			return gpuops_numeric_typmod_scale(((Var *) e)->vartypmod);
		case T_Const:
			{
				int64		v;

				if (((Const *) e)->constisnull)
					return GPUOPS_X_ANY_SCALE;
				return gpuops_x_numeric_const(((Const *) e)->constvalue, &v);
			}
		case T_RelabelType:
			return gpuops_x_scale((Node *) ((RelabelType *) e)->arg);
		case T_OpExpr:
			set_opfuncid((OpExpr *) e);
			funcid = ((OpExpr *) e)->opfuncid;
			args = ((OpExpr *) e)->args;
			break;
		case T_FuncExpr:
			funcid = ((FuncExpr *) e)->funcid;
			args = ((FuncExpr *) e)->args;
			break;
		case T_CaseExpr:
			foreach(lc, ((CaseExpr *) e)->args)
				args = lappend(args, lfirst_node(CaseWhen, lc)->result);
			args = lappend(args, ((CaseExpr *) e)->defresult);
			return gpuops_x_same_scale(args);
		case T_CoalesceExpr:
			return gpuops_x_same_scale(((CoalesceExpr *) e)->args);
		case T_NullIfExpr:
			return gpuops_x_same_scale(((NullIfExpr *) e)->args);
		case T_CaseTestExpr:
			return -1;			/* a CASE operand of numeric: left native */
		default:
			return -1;
	}
	if (args == NIL || !gpuops_xfunc_lookup(funcid, list_length(args), &f))
		return -1;
	if (f.op == GPUOPS_XF_INT_TO_NUMERIC)
		return (exprType(linitial(args)) == INT2OID ||
				exprType(linitial(args)) == INT4OID) ? 0 : -1;
	/* extract: its field's scale (seconds to microseconds, ...) */
	if (f.op == GPO_X_TS_EXTRACT || f.op == GPO_X_DATE_EXTRACT)
	{
		int			field;

		if (!gpuops_x_datetime_unit(f.op, (Node *) linitial(args), &field))
			return -1;
		return gpo_expr_extract_scale((gpo_xop) f.op, (gpo_xfield) field);
	}
	if (f.op != GPO_X_NADD && f.op != GPO_X_NSUB && f.op != GPO_X_NMUL &&
		f.op != GPO_X_NNEG && f.op != GPO_X_NABS && f.op != -1)
		return -1;
	foreach(lc, args)
	{
		int			a = gpuops_x_scale((Node *) lfirst(lc));

		if (a == -1)
			return -1;
		if (a == GPUOPS_X_ANY_SCALE)
			continue;
		if (f.op == GPO_X_NMUL && s != GPUOPS_X_ANY_SCALE)
			s += a;
		else
			s = Max(s, a);
	}
	return s > GPUOPS_NUMERIC_MAX_PRECISION ? -1 : s;
}

/* The one scale of numeric expressions es (NULLs fit any), or -1. */
int
gpuops_x_same_scale(List *es)
{
	int			s = GPUOPS_X_ANY_SCALE;
	ListCell   *lc;

	foreach(lc, es)
	{
		int			a = gpuops_x_scale((Node *) lfirst(lc));

		if (a == -1 || (a >= 0 && s >= 0 && a != s))
			return -1;
		if (a >= 0)
			s = a;
	}
	return s;
}
