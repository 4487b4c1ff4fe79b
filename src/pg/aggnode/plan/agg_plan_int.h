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
	List	   *checks;			/* derived keys each row evaluates
								 * (agg_derived.c), over the top relation */
} GpuopsAggInput;

/* A star join under the GROUP BY (agg_star.c). */
typedef struct GpuopsAggStar
{
	RelOptInfo *fact;			/* the table read in batches */
	int			ndims;
	RelOptInfo *dims[GPUOPS_AGG_MAX_DIMS];	/* read by child plans: a base
											 * relation, or a join */
	Relids		dim_relids[GPUOPS_AGG_MAX_DIMS];	/* their relations */
	double		key_tuples[GPUOPS_AGG_MAX_DIMS];	/* rows of the relation of
													 * each one's join column */
	Var		   *dim_keys[GPUOPS_AGG_MAX_DIMS];	/* each one's join column */
	AttrNumber	fk_attnos[GPUOPS_AGG_MAX_DIMS]; /* the fact's, equal to it */
	Var		   *dim_keys2[GPUOPS_AGG_MAX_DIMS]; /* a second one (a composite
												 * key), or NULL */
	AttrNumber	fk_attnos2[GPUOPS_AGG_MAX_DIMS];	/* the fact's, equal to it */
	JoinType	kinds[GPUOPS_AGG_MAX_DIMS]; /* each one's join: inner, semi,
											 * anti or left */
	List	   *specials;		/* the query's outer, semi and anti joins */
	int			fact_natts;		/* virtual columns are numbered after */
	List	   *gathered;		/* the dimensions' Vars, and expressions
								 * their plans compute (agg_star_exprs.c),
								 * by virtual column */
	List	   *gathered_dims;	/* the dimension of each (IntList) */
	List	   *group_exprs;	/* the GROUP BY expressions, as the query
								 * writes them */
	int			in_agg;			/* (while mapping: inside an Aggref) */
	Path	   *paths[GPUOPS_AGG_MAX_DIMS]; /* the child paths, once made */
	bool		bad;			/* a Var the node can't gather was met */
} GpuopsAggStar;

/* ---- agg_star.c ---- */

/* True (with *star) if joinrel is a star join the node takes. */
extern bool gpuops_agg_star_find(PlannerInfo *root, RelOptInfo *joinrel,
								 GpuopsAggStar *star);
/* A copy of node with the dimensions' Vars as virtual fact columns. */
extern Node *gpuops_agg_star_to_fact(GpuopsAggStar *star, Node *node);
/* A copy of node with the virtual fact columns as the dimensions' Vars. */
extern Node *gpuops_agg_star_from_fact(GpuopsAggStar *star, Node *node);
/* The attribute numbers of the fact table itself among attnos (star may be NULL). */
extern Bitmapset *gpuops_agg_star_real_attnos(GpuopsAggStar *star,
											  Bitmapset *attnos);
/* Adds the dimensions' plans and the probes to path's cost. */
extern void gpuops_agg_star_cost(PlannerInfo *root, GpuopsAggStar *star,
								 double fact_rows,
								 int workers, Path *path);

/* ---- agg_star_plan.c ---- */

/* The path's PRIV_JOIN entry. */
extern List *gpuops_agg_star_private(GpuopsAggStar *star, List *scan_keys,
									 List *scan_aggrefs);
/* The child paths: each dimension's cheapest, with its expressions. */
extern List *gpuops_agg_star_paths(PlannerInfo *root, GpuopsAggStar *star);
/* The plan's PRIV_JOIN, with the child plans' output positions. */
extern List *gpuops_agg_star_plan(List *join, List *custom_plans);

/* ---- agg_star_keys.c ---- */

/* True if typid is a join key type (int2/int4/int8 or date). */
extern bool gpuops_star_key_type(Oid typid);
/* True if a and b are join key types the engine compares alike. */
extern bool gpuops_star_key_types_match(Oid a, Oid b);
/* The index of the dimension relation rti is part of, or -1. */
extern int	gpuops_star_dim_index(GpuopsAggStar *star, Index rti);
/* The plain key-type column an operand of a join clause is, or NULL. */
extern Var *gpuops_star_operand_var(Node *e);

/* ---- agg_sum_split.c ---- */

/* A copy of node with sums of numeric CASEs of several scales split by scale. */
extern Node *gpuops_agg_split_sums(Node *node, List **splits);
/* The plan's PRIV_SPLITS: each split sum's parts' positions among aggrefs. */
extern List *gpuops_agg_split_positions(List *splits, List *aggrefs);

/* ---- agg_derived.c ---- */

/* Takes the keys other keys determine out of *keys and returns them. */
extern List *gpuops_agg_derive_keys(List **keys);
/* Of the derived keys, those some row can make fail. */
extern List *gpuops_agg_derived_checks(List *derived);
/* The plan's PRIV_DERIVED: each derived key over the scan tuple's keys. */
extern List *gpuops_agg_derived_plan(List *derived, List *keys);

/* ---- agg_bound.c ---- */

/* The path's PRIV_BOUND: a top-N by a count the node may bound its groups to, or NIL. */
extern List *gpuops_agg_bound(PlannerInfo *root, List *keys, List *aggrefs,
							  Node *having, List *derived, bool star);

/* ---- agg_mapped.c ---- */

/* The column a mapped key reads (a function of one text column), or NULL. */
extern Var *gpuops_mapped_source(Node *e, Index relid);
/* The mapped keys among keys, and the keys the table entries group by. */
extern void gpuops_agg_map_keys(List *keys, Index relid, List **mapped,
								List **table_keys);
/* The plan's PRIV_MAPPED: each mapped key over its column's value. */
extern List *gpuops_agg_mapped_plan(List *mapped);

/* ---- agg_safe.c ---- */

/* True if no row can make node raise an error (and it reads only the query's columns). */
extern bool gpuops_expr_cannot_fail(Node *node);

/* ---- agg_star_exprs.c ---- */

/* The dimension whose plan computes expression node, or -1. */
extern int	gpuops_star_dim_expr(GpuopsAggStar *star, Node *node);
/* Dimension d's child path, computing its expressions of star->gathered. */
extern Path *gpuops_star_dim_path(PlannerInfo *root, GpuopsAggStar *star,
								  int d, Path *base);

/* ---- agg_star_outer.c ---- */

/* The query's special joins into star; false if the node can't take one. */
extern bool gpuops_star_specials(PlannerInfo *root, Relids relids,
								 GpuopsAggStar *star);
/* True if relation rti is on the inner side of a special join. */
extern bool gpuops_star_inner_side(GpuopsAggStar *star, Index rti);
/* Each dimension's join kind; false if a special join doesn't fit. */
extern bool gpuops_star_classify(GpuopsAggStar *star);
/* The left and anti joins' keys; false for any other fact join clause. */
extern bool gpuops_star_outer_keys(Relids relids, GpuopsAggStar *star);

/* ---- agg_eligible.c ---- */

/* Walker: true if the tree holds a subplan, an executor Param or a PHV. */
extern bool gpuops_needs_executor_walker(Node *node, void *context);
/* The query's keys and aggregates; false if the node can't compute them. */
extern bool gpuops_agg_collect(PlannerInfo *root, Index relid,
							   List *target, Node *having, List *tlist,
							   List **keys, List **aggrefs);
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
							double cached, int workers, double page_factor,
							Path *path);
/*
 * How many times a page read of rel costs the node (with workers worker
 * processes) what it costs a native plan.
 */
extern double gpuops_agg_page_factor(PlannerInfo *root, RelOptInfo *rel,
									 int workers);
/* The extra cost of decoding a row's columns attnos of relid (cpu_row_cost units). */
extern double gpuops_agg_decode_weight(Oid relid, Bitmapset *attnos);
/*
 * What coding the distinct strings of the text columns among attnos into
 * dictionaries costs the node's processes (workers of them).
 */
extern Cost gpuops_agg_text_cost(PlannerInfo *root, RelOptInfo *rel,
								 Bitmapset *attnos, int workers);
/* The cost of reading a row of relid for the worker count (agg_cost.c). */
extern double gpuops_agg_read_weight(Oid relid, Bitmapset *attnos,
									 double decode_weight);
/* The strategy the engine is expected to choose; -1 without GROUP BY. */
extern int	gpuops_agg_predict_strategy(PlannerInfo *root, List *keys,
										double rows, double groups);
/* Worker processes the node may read with (0: none). */
extern int	gpuops_agg_workers(PlannerInfo *root, Index relid, List *tables,
							   bool inh, double groups, double read_weight,
							   double strings);

/* ---- agg_plan_create.c ---- */

/* PlanCustomPath: the CustomScan whose scan tuple is keys then aggregates. */
extern Plan *gpuops_agg_plan_path(PlannerInfo *root, RelOptInfo *rel,
								  CustomPath *best_path, List *tlist,
								  List *clauses, List *custom_plans);

#endif							/* GPUOPS_AGG_PLAN_INT_H */
