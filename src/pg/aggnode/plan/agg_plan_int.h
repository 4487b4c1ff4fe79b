/*
 * agg_plan_int.h
 *	  What the files that plan the GpuOpsAgg custom scan share: agg_plan.c
 *	  (the hook and the path), agg_eligible.c (what the node can compute),
 *	  agg_cost.c (cost, workers, expected strategy) and agg_plan_create.c
 *	  (the plan).  The executor needs none of it.
 */
#ifndef GPUOPS_AGG_PLAN_INT_H
#define GPUOPS_AGG_PLAN_INT_H

#include "aggnode/gpuops_agg.h"

/* What the planner found out about the tables it would read. */
typedef struct GpuopsAggInput
{
	List	   *tables;			/* table entries */
	double		pages;
	double		tuples;
	int			ndevice_quals;	/* of the first table */
	List	   *cpu_quals;		/* all tables' CPU clauses (for costing) */
} GpuopsAggInput;

/* ---- agg_eligible.c ---- */

/* Walker: true if the tree holds a subplan, an executor Param or a PHV. */
extern bool gpuops_needs_executor_walker(Node *node, void *context);
/* The query's keys and aggregates; false if the node can't compute them. */
extern bool gpuops_agg_collect(PlannerInfo *root, RelOptInfo *input_rel,
							   RelOptInfo *output_rel,
							   GroupPathExtraData *gextra,
							   List **keys, List **aggrefs);
/* The argument of the aggregates' count(DISTINCT x), or NULL if none. */
extern Node *gpuops_agg_distinct_arg(List *aggrefs);
/* Adds the tables under rel to input; false if the node can't read one. */
extern bool gpuops_agg_add_tables(PlannerInfo *root, RelOptInfo *top,
								  RelOptInfo *rel, List *keys, List *aggrefs,
								  GpuopsAggInput *input);

/* ---- agg_cost.c ---- */

/*
 * Sets path's startup and total cost for reading input into groups groups
 * (ncols columns, decode_weight from gpuops_agg_decode_weight).
 */
extern void gpuops_agg_cost(PlannerInfo *root, GpuopsAggInput *input,
							double groups, int ncols, double decode_weight,
							int workers, Path *path);
/* The extra cost of decoding a row's columns attnos of relid (cpu_row_cost units). */
extern double gpuops_agg_decode_weight(Oid relid, Bitmapset *attnos);
/* The strategy the engine is expected to choose; -1 without GROUP BY. */
extern int	gpuops_agg_predict_strategy(PlannerInfo *root, List *keys,
										double rows, double groups);
/* Worker processes the node may read with (0: none). */
extern int	gpuops_agg_workers(PlannerInfo *root, Index relid, List *tables,
							   bool inh, List *keys, double groups);

/* ---- agg_plan_create.c ---- */

/* PlanCustomPath: the CustomScan whose scan tuple is keys then aggregates. */
extern Plan *gpuops_agg_plan_path(PlannerInfo *root, RelOptInfo *rel,
								  CustomPath *best_path, List *tlist,
								  List *clauses, List *custom_plans);

#endif							/* GPUOPS_AGG_PLAN_INT_H */
