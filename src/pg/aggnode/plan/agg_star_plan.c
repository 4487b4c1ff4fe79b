/*
 * agg_star_plan.c
 *	  What a star join puts in the plan (agg_star.c finds and costs it):
 *	  the path's PRIV_JOIN entry, the dimensions' child paths, and the
 *	  plan's PRIV_JOIN with each key's and virtual column's position in its
 *	  child plan's output.
 */
#include "aggnode/plan/agg_plan_int.h"

#include "nodes/nodeFuncs.h"

/*
 * The path's PRIV_JOIN entry (JOIN_* positions): the original keys and
 * aggregates, the fact table's attribute count, per dimension (rti, the
 * fact's join column, the dimension's, the join's kind, and rti, the
 * fact's and the dimension's column of a second key or 0, 0, 0), per virtual
 * column (dimension, attribute number, type, typmod, collation, rti), and
 * the Vars and expressions the child plans output for them.
 */
List *
gpuops_agg_star_private(GpuopsAggStar *star, List *scan_keys,
						List *scan_aggrefs)
{
	List	   *dims = NIL;
	List	   *gathers = NIL;
	ListCell   *lc;
	int			d;

	for (d = 0; d < star->ndims; d++)
	{
		Var		   *k2 = star->dim_keys2[d];
		List	   *dim = list_make4_int((int) star->dim_keys[d]->varno,
										 (int) star->fk_attnos[d],
										 (int) star->dim_keys[d]->varattno,
										 (int) star->kinds[d]);

		dim = lappend_int(dim, k2 ? (int) k2->varno : 0);
		dim = lappend_int(dim, k2 ? (int) star->fk_attnos2[d] : 0);
		dims = lappend(dims, lappend_int(dim, k2 ? (int) k2->varattno : 0));
	}
	foreach(lc, star->gathered)
	{
		Node	   *e = (Node *) lfirst(lc);
		Var		   *v = IsA(e, Var) ? (Var *) e : NULL;
		List	   *g;

		g = list_make3_int(list_nth_int(star->gathered_dims,
										foreach_current_index(lc)),
						   v ? (int) v->varattno : 0, (int) exprType(e));
		g = lappend_int(g, (int) exprTypmod(e));
		g = lappend_int(g, (int) exprCollation(e));
		g = lappend_int(g, v ? (int) v->varno : 0);
		gathers = lappend(gathers, g);
	}
	return lappend(list_make5(scan_keys, scan_aggrefs,
							  makeInteger(star->fact_natts), dims, gathers),
				   star->gathered);
}

/* The child paths: each dimension's (costed), with its expressions. */
List *
gpuops_agg_star_paths(PlannerInfo *root, GpuopsAggStar *star)
{
	List	   *paths = NIL;
	int			d;

	for (d = 0; d < star->ndims; d++)
	{
		if (star->paths[d] == NULL)
			star->paths[d] = gpuops_star_dim_path(root, star, d,
												  star->dims[d]->cheapest_total_path);
		paths = lappend(paths, star->paths[d]);
	}
	return paths;
}

/*
 * The position (resno) of rti's column attno in a child plan's target
 * list, or with attno 0, of the expression expr the plan computes.
 */
static int
gpuops_star_resno(Plan *plan, int rti, int attno, Node *expr)
{
	ListCell   *lc;

	foreach(lc, plan->targetlist)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);
		Expr	   *e = te->expr;

		if (attno == 0)
		{
			if (equal(e, expr))
				return te->resno;
			continue;
		}
		while (IsA(e, RelabelType))
			e = ((RelabelType *) e)->arg;
		if (IsA(e, Var) && ((Var *) e)->varno == rti &&
			((Var *) e)->varattno == attno && ((Var *) e)->varlevelsup == 0)
			return te->resno;
	}
	elog(ERROR, "GpuOpsAgg: column %d of relation %d is not in its plan's output",
		 attno, rti);
	return 0;
}

/*
 * The plan's PRIV_JOIN: the path's, with each dimension's keys (the
 * second 0 where there is none) and each virtual column's position in its
 * child plan's output appended.
 */
List *
gpuops_agg_star_plan(List *join, List *custom_plans)
{
	List	   *dims = NIL;
	List	   *gathers = NIL;
	List	   *path_dims = (List *) list_nth(join, JOIN_DIMS);
	List	   *path_gathers = (List *) list_nth(join, JOIN_GATHER);
	ListCell   *lc;

	foreach(lc, path_dims)
	{
		List	   *dim = list_copy((List *) lfirst(lc));
		Plan	   *child = list_nth(custom_plans, foreach_current_index(lc));

		dim = lappend_int(dim, gpuops_star_resno(child, linitial_int(dim),
												 lthird_int(dim), NULL));
		dims = lappend(dims, lappend_int(dim, list_nth_int(dim, 4) == 0 ? 0 :
										 gpuops_star_resno(child, list_nth_int(dim, 4),
														   list_nth_int(dim, 6), NULL)));
	}
	foreach(lc, path_gathers)
	{
		List	   *g = list_copy((List *) lfirst(lc));
		Plan	   *child = list_nth(custom_plans, linitial_int(g));
		Node	   *e = list_nth(list_nth(join, JOIN_GATHER_EXPRS),
								 foreach_current_index(lc));

		gathers = lappend(gathers, lappend_int(g,
											   gpuops_star_resno(child, list_nth_int(g, 5),
																 lsecond_int(g), e)));
	}
	return list_make5(list_nth(join, JOIN_SCAN_KEYS),
					  list_nth(join, JOIN_SCAN_AGGREFS),
					  list_nth(join, JOIN_FACT_NATTS), dims, gathers);
}
