/*
 * agg_sum_split.c
 *	  sum() of a numeric CASE whose branches have different scales, as
 *	  `sum(CASE WHEN p_type LIKE 'PROMO%' THEN price * (1 - disc) ELSE 0 END)`
 *	  (TPC-H Q8, Q14): one sum per scale, added up after the node.
 *
 * The device holds a numeric expression's values at one scale known at plan
 * time, and a sum's display scale is its rows' largest (numeric.c's
 * accumulator), so a sum over rows of several scales shows a scale that
 * depends on the rows.  Split by the scale of the branch each row takes,
 * every part has one scale, and PostgreSQL's own numeric_add of the parts
 * that are not NULL gives the sum's exact value and display scale: the
 * largest of the parts that had rows, which is the largest of the rows'.
 * (A NaN in a part makes the whole NaN, as in one sum.)
 *
 * The node's aggregates are the parts (agg_plan.c splits the expressions
 * before it classifies them); the plan's scan tuple holds, after them,
 * each split sum as the query writes it, which the node adds up from its
 * parts (agg_exec.c), so that the target list, HAVING, and the sorts above
 * refer to the sum itself.
 */
#include "aggnode/plan/agg_expr_int.h"
#include "aggnode/plan/agg_plan_int.h"

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"

#define GPUOPS_SPLIT_MAX_PARTS 4

/*
 * The distinct scales of the branches of CASE expression c into scales
 * (up to GPUOPS_SPLIT_MAX_PARTS); their count, or 0 if a branch has no
 * scale the device can hold.
 */
static int
gpuops_split_scales(CaseExpr *c, int *scales)
{
	List	   *results = NIL;
	ListCell   *lc;
	int			n = 0;

	foreach(lc, c->args)
		results = lappend(results, lfirst_node(CaseWhen, lc)->result);
	if (c->defresult != NULL)
		results = lappend(results, c->defresult);
	foreach(lc, results)
	{
		int			s = gpuops_x_scale((Node *) lfirst(lc));
		int			i;

		if (s == -1)
			return 0;
		if (s == GPUOPS_X_ANY_SCALE)
			continue;
		for (i = 0; i < n && scales[i] != s; i++)
			;
		if (i == n)
		{
			if (n == GPUOPS_SPLIT_MAX_PARTS)
				return 0;
			scales[n++] = s;
		}
	}
	return n;
}

/* Branch result e if its scale is s, else a NULL numeric. */
static Expr *
gpuops_split_branch(Expr *e, int s)
{
	if (e != NULL && gpuops_x_scale((Node *) e) == s)
		return (Expr *) copyObject(e);
	return (Expr *) makeNullConst(NUMERICOID, -1, InvalidOid);
}

/* Aggregate a (a sum of CASE c) over the branches of scale s alone. */
static Aggref *
gpuops_split_part(Aggref *a, CaseExpr *c, int s)
{
	Aggref	   *part = (Aggref *) copyObject(a);
	CaseExpr   *pc = (CaseExpr *) copyObject(c);
	ListCell   *lc;

	foreach(lc, pc->args)
	{
		CaseWhen   *w = lfirst_node(CaseWhen, lc);

		w->result = gpuops_split_branch(w->result, s);
	}
	pc->defresult = gpuops_split_branch(c->defresult, s);
	linitial_node(TargetEntry, part->args)->expr = (Expr *) pc;
	return part;
}

/*
 * Mutator: a sum(numeric) of a CASE whose branches have 2 to
 * GPUOPS_SPLIT_MAX_PARTS scales becomes the List of its parts (one sum per
 * scale, for the node to compute), recorded in *splits as a list (the sum,
 * its parts) once.
 */
static Node *
gpuops_split_mutator(Node *node, List **splits)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Aggref))
	{
		Aggref	   *a = (Aggref *) node;
		Expr	   *arg;
		List	   *parts = NIL;
		ListCell   *lc;
		int			scales[GPUOPS_SPLIT_MAX_PARTS];
		int			n;
		int			i;

		if (a->aggfnoid != F_SUM_NUMERIC || a->aggdistinct != NIL ||
			a->aggorder != NIL || list_length(a->args) != 1)
			return (Node *) copyObject(a);
		arg = linitial_node(TargetEntry, a->args)->expr;
		if (!IsA(arg, CaseExpr) || gpuops_x_scale((Node *) arg) != -1 ||
			(n = gpuops_split_scales((CaseExpr *) arg, scales)) < 2)
			return (Node *) copyObject(a);
		for (i = 0; i < n; i++)
			parts = lappend(parts, gpuops_split_part(a, (CaseExpr *) arg,
													 scales[i]));
		foreach(lc, *splits)
			if (equal(linitial((List *) lfirst(lc)), a))
				break;
		if (lc == NULL)
			*splits = lappend(*splits, lcons(copyObject(a), list_copy(parts)));
		return (Node *) parts;
	}
	return expression_tree_mutator(node, gpuops_split_mutator, splits);
}

/*
 * A copy of node whose sums of numeric CASE expressions of several scales
 * are split into one sum per scale (a List of the parts in the place of
 * the sum, for gpuops_agg_collect to find), each split sum with its parts
 * appended to *splits.
 */
Node *
gpuops_agg_split_sums(Node *node, List **splits)
{
	return gpuops_split_mutator(node, splits);
}

/*
 * The plan's PRIV_SPLITS: for each split sum of splits (the sum, its
 * parts), the positions of its parts among aggrefs, the aggregates of the
 * scan tuple.
 */
List *
gpuops_agg_split_positions(List *splits, List *aggrefs)
{
	List	   *out = NIL;
	ListCell   *lc;
	ListCell   *lp;

	foreach(lc, splits)
	{
		List	   *pos = NIL;

		for_each_from(lp, (List *) lfirst(lc), 1)
		{
			ListCell   *la;
			int			i = 0;

			foreach(la, aggrefs)
			{
				if (equal(lfirst(la), lfirst(lp)))
					break;
				i++;
			}
			if (la == NULL)
				elog(ERROR, "GpuOpsAgg: a part of a split sum is not among the aggregates");
			pos = lappend_int(pos, i);
		}
		out = lappend(out, pos);
	}
	return out;
}
