/*
 * agg_star_exprs.c
 *	  Expressions over one dimension's columns alone, computed by that
 *	  dimension's child plan as one more output column, which agg_star.c
 *	  then gathers as a virtual column like any of the dimension's columns:
 *	  TPC-H Q14's `p_type LIKE 'PROMO%'`, Q12's CASE over o_orderpriority.
 *	  The engine need not know the functions: PostgreSQL evaluates them.
 *
 * The child plan evaluates such an expression on every row of the
 * dimension, also on rows that no fact row joins, where PostgreSQL's own
 * plan evaluates it after the join only.  So an expression is taken only
 * where no row can make it raise an error: operators and functions marked
 * leakproof (which may not raise errors that depend on their arguments),
 * and LIKE / ILIKE with a constant pattern that cannot fail.  Anything
 * else (division, casts that can overflow, extract) stays where it was:
 * its columns are gathered and the expression runs on the joined rows.
 */
#include "aggnode/plan/agg_plan_int.h"
#include "heapscan/gpuops_scan.h"

#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/tlist.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

/* What the safety walker carries: how deep it is inside CASE expressions. */
typedef struct GpuopsStarSafe
{
	int			case_depth;
} GpuopsStarSafe;

/*
 * True if funcid is LIKE or ILIKE (or their negations) of text or
 * char(n) whose pattern is a constant that cannot make it fail: no
 * backslash (a pattern ending in the escape character raises 22025), and
 * a deterministic collation (the others raise 0A000).
 */
static bool
gpuops_star_like_safe(Oid funcid, List *args, Oid inputcollid)
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

/* True if a call of funcid over args cannot raise an error on any row. */
static bool
gpuops_star_func_safe(Oid funcid, List *args, Oid inputcollid)
{
	return get_func_leakproof(funcid) ||
		gpuops_star_like_safe(funcid, args, inputcollid);
}

/*
 * Walker: true if the expression has a node that may raise an error on
 * some rows, or one that can't be moved into a dimension's plan (an
 * aggregate, a parameter, a subplan, an outer query's column, a CASE's
 * test value outside its CASE).
 */
static bool
gpuops_star_unsafe_walker(Node *node, GpuopsStarSafe *ctx)
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
				bad = expression_tree_walker(node, gpuops_star_unsafe_walker, ctx);
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
				if (!gpuops_star_func_safe(op->opfuncid, op->args, op->inputcollid))
					return true;
				break;
			}
		case T_ScalarArrayOpExpr:
			{
				ScalarArrayOpExpr *sa = (ScalarArrayOpExpr *) node;

				set_sa_opfuncid(sa);
				if (!get_func_leakproof(sa->opfuncid) ||
					!IsA(lsecond(sa->args), Const))
					return true;
				break;
			}
		case T_FuncExpr:
			{
				FuncExpr   *f = (FuncExpr *) node;

				if (f->funcretset ||
					!gpuops_star_func_safe(f->funcid, f->args, f->inputcollid))
					return true;
				break;
			}
		default:
			return true;
	}
	return expression_tree_walker(node, gpuops_star_unsafe_walker, ctx);
}

/*
 * The dimension (its index in star) whose child plan computes node for the
 * node's batches, or -1 where node stays as it is (its parts are looked at
 * next).  Taken: an operator, function, CASE, COALESCE, NULLIF, boolean or
 * NULL test over the columns of one inner-joined dimension alone (a left
 * join's unmatched rows would get NULL where the expression may give
 * something else), stable or immutable, that cannot raise an error on any
 * row, and of a type the node gathers.
 */
int
gpuops_star_dim_expr(GpuopsAggStar *star, Node *node)
{
	GpuopsStarSafe ctx = {0};
	List	   *vars;
	ListCell   *lc;
	int			d = -1;
	gpo_type	phys;

	if (node == NULL ||
		!(IsA(node, OpExpr) || IsA(node, FuncExpr) || IsA(node, BoolExpr) ||
		  IsA(node, CaseExpr) || IsA(node, CoalesceExpr) ||
		  IsA(node, NullIfExpr) || IsA(node, DistinctExpr) ||
		  IsA(node, ScalarArrayOpExpr) || IsA(node, NullTest) ||
		  IsA(node, BooleanTest)))
		return -1;
	if (gpuops_star_unsafe_walker(node, &ctx) ||
		contain_volatile_functions(node))
		return -1;
	vars = pull_var_clause(node, 0);
	foreach(lc, vars)
	{
		int			vd = gpuops_star_dim_index(star, lfirst_node(Var, lc)->varno);

		if (vd < 0 || (d >= 0 && vd != d))
			return -1;
		d = vd;
	}
	if (d < 0 || star->kinds[d] != JOIN_INNER)
		return -1;
	if (!gpuops_scan_col_type_mod(exprType(node), exprTypmod(node), &phys) &&
		!gpuops_agg_text_key(exprType(node), exprCollation(node)))
		return -1;
	return d;
}

/*
 * Dimension d's child path: base (one of its paths), projected to compute
 * the expressions of star->gathered that are d's (not plain columns)
 * beside the columns the query needs.
 */
Path *
gpuops_star_dim_path(PlannerInfo *root, GpuopsAggStar *star, int d,
					 Path *base)
{
	RelOptInfo *dim = star->dims[d];
	PathTarget *target = NULL;
	ListCell   *lc;

	foreach(lc, star->gathered)
	{
		Node	   *e = (Node *) lfirst(lc);

		if (IsA(e, Var) ||
			list_nth_int(star->gathered_dims, foreach_current_index(lc)) != d)
			continue;
		if (target == NULL)
			target = copy_pathtarget(dim->reltarget);
		add_column_to_pathtarget(target, (Expr *) e, 0);
	}
	if (target == NULL)
		return base;
	set_pathtarget_cost_width(root, target);
	return (Path *) create_projection_path(root, dim, base, target);
}
