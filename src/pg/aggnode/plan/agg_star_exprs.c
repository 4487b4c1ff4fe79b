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
 * where no row can make it raise an error (agg_safe.c).  Anything else
 * (division, casts that can overflow, extract) stays where it was: its
 * columns are gathered and the expression runs on the joined rows.
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
	if (!gpuops_expr_cannot_fail(node) || contain_volatile_functions(node))
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
