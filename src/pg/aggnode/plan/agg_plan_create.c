/*
 * agg_plan_create.c
 *	  The plan a GpuOpsAgg path turns into: its PlanCustomPath callback.
 *
 * The plan is a CustomScan on the table's range-table entry (a star join's
 * fact table, whose dimensions are its child plans; none for partitions)
 * whose scan tuple (custom_scan_tlist) is the grouping keys followed by the
 * aggregates; the target list and the HAVING quals refer to it, so
 * PostgreSQL projects and filters the groups as an Agg node would.  Its
 * custom_private is the path's (the PRIV_* positions of gpuops_agg.h) with the worker processes
 * and each aggregate's class added, for agg_spec.c to decode.
 */
#include "aggnode/plan/agg_plan_int.h"

#include "nodes/makefuncs.h"

/* The path's worker processes (gpuops_agg_workers), asking for parallel mode when any. */
static int
gpuops_agg_plan_workers(PlannerInfo *root, List *priv)
{
	int			workers = intVal(list_nth(priv, PRIV_WORKERS));

	if (workers > 0)
		root->glob->parallelModeNeeded = true;
	return workers;
}

/*
 * Each aggregate's class as the planner decided it (PRIV_AGG_CLASSES): an
 * integer list (kind, argument attno, argument type) per Aggref, so that the
 * executor never classifies an aggregate again.
 */
static List *
gpuops_agg_classes(List *aggrefs, Index relid)
{
	List	   *classes = NIL;
	ListCell   *lc;

	foreach(lc, aggrefs)
	{
		GpuopsAggKind kind;
		AttrNumber	attno;
		Oid			argtype;

		if (!gpuops_agg_supported(lfirst_node(Aggref, lc), relid, &kind,
								  &attno, &argtype))
			elog(ERROR, "GpuOpsAgg path holds an unsupported aggregate");
		classes = lappend(classes, list_make3_int((int) kind, (int) attno,
												  (int) argtype));
	}
	return classes;
}

/*
 * The scan tuple: a target entry per key, then one per aggregate, then one
 * per sum split by scale (the node adds its parts up), then one per
 * derived key (the node computes it per group).
 */
static List *
gpuops_agg_scan_tlist(List *keys, List *aggrefs, List *splits, List *derived)
{
	List	   *scan_tlist = NIL;
	ListCell   *lc;

	foreach(lc, keys)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) copyObject(lfirst(lc)),
											 list_length(scan_tlist) + 1,
											 NULL, false));
	foreach(lc, aggrefs)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) copyObject(lfirst(lc)),
											 list_length(scan_tlist) + 1,
											 NULL, false));
	foreach(lc, splits)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) copyObject(linitial((List *) lfirst(lc))),
											 list_length(scan_tlist) + 1,
											 NULL, false));
	foreach(lc, derived)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) copyObject(lfirst(lc)),
											 list_length(scan_tlist) + 1,
											 NULL, false));
	return scan_tlist;
}

/*
 * The plan's custom_private, a copy: the path's entries (PRIV_HAVING left
 * empty, the HAVING quals being the plan's qual), then PRIV_AGG_CLASSES
 * and PRIV_JOIN (with the child plans' output positions).
 */
static List *
gpuops_agg_plan_private(PlannerInfo *root, List *priv, List *aggrefs,
						List *custom_plans)
{
	List	   *join = (List *) list_nth(priv, PRIV_JOIN);

	List	   *plan_priv;

	plan_priv = list_make5(list_nth(priv, PRIV_KEYS),
						   list_nth(priv, PRIV_AGGREFS),
						   list_nth(priv, PRIV_TABLES),
						   list_nth(priv, PRIV_INH),
						   NIL);
	plan_priv = lappend(plan_priv, list_nth(priv, PRIV_EST_GROUPS));
	plan_priv = lappend(plan_priv, list_nth(priv, PRIV_DEVICE));
	plan_priv = lappend(plan_priv, list_nth(priv, PRIV_RELID));
	plan_priv = lappend(plan_priv, list_nth(priv, PRIV_STRATEGY));
	plan_priv = lappend(plan_priv,
						makeInteger(gpuops_agg_plan_workers(root, priv)));
	plan_priv = lappend(plan_priv,
						gpuops_agg_classes(aggrefs,
										   intVal(list_nth(priv, PRIV_RELID))));
	plan_priv = lappend(plan_priv, join != NIL ?
						gpuops_agg_star_plan(join, custom_plans) : NIL);
	plan_priv = lappend(plan_priv,
						gpuops_agg_split_positions((List *) list_nth(priv, PRIV_SPLITS),
												   join != NIL ?
												   (List *) list_nth(join, JOIN_SCAN_AGGREFS) :
												   aggrefs));
	plan_priv = lappend(plan_priv,
						gpuops_agg_derived_plan((List *) list_nth(priv, PRIV_DERIVED),
												(List *) list_nth(priv, PRIV_KEYS)));
	plan_priv = lappend(plan_priv,
						gpuops_agg_mapped_plan((List *) list_nth(priv, PRIV_MAPPED)));
	plan_priv = lappend(plan_priv, list_nth(priv, PRIV_BOUND));
	return copyObject(plan_priv);
}

/* PlanCustomPath: the CustomScan whose scan tuple is keys then aggregates. */
Plan *
gpuops_agg_plan_path(PlannerInfo *root, RelOptInfo *rel,
					 CustomPath *best_path, List *tlist, List *clauses,
					 List *custom_plans)
{
	List	   *priv = best_path->custom_private;
	List	   *keys = (List *) list_nth(priv, PRIV_KEYS);
	List	   *aggrefs = (List *) list_nth(priv, PRIV_AGGREFS);
	Node	   *having = (Node *) list_nth(priv, PRIV_HAVING);
	List	   *join = (List *) list_nth(priv, PRIV_JOIN);
	CustomScan *cscan = makeNode(CustomScan);
	List	   *scan_tlist;

	/* a star join's scan tuple holds the dimensions' columns as such */
	if (join != NIL)
		scan_tlist = gpuops_agg_scan_tlist((List *) list_nth(join, JOIN_SCAN_KEYS),
										   (List *) list_nth(join, JOIN_SCAN_AGGREFS),
										   (List *) list_nth(priv, PRIV_SPLITS),
										   NIL);
	else
		scan_tlist = gpuops_agg_scan_tlist(keys, aggrefs,
										   (List *) list_nth(priv, PRIV_SPLITS),
										   (List *) list_nth(priv, PRIV_DERIVED));
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = (List *) copyObject(having);
	/*
	 * An inheritance tree is read table by table: no one scan relation.  A
	 * star join's is its fact table.
	 */
	cscan->scan.scanrelid = intVal(list_nth(priv, PRIV_INH)) ? 0 :
		intVal(list_nth(priv, PRIV_RELID));
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_exprs = NIL;
	cscan->custom_scan_tlist = scan_tlist;
	cscan->custom_private = gpuops_agg_plan_private(root, priv, aggrefs,
													custom_plans);
	cscan->methods = &gpuops_agg_scan_methods;
	return &cscan->scan.plan;
}
