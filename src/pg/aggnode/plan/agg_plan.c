/*
 * agg_plan.c
 *	  Planning of the GpuOpsAgg custom scan: a create_upper_paths_hook that
 *	  offers `Custom Scan (GpuOpsAgg)` for GROUP BY (or plain aggregates) over
 *	  one table or its partitions.  What the node can compute is decided in
 *	  agg_eligible.c, the path's cost, workers and expected strategy in
 *	  agg_cost.c, and the plan the path turns into is made in
 *	  agg_plan_create.c.
 *
 * The path is offered only when every piece is something the node computes
 * exactly as PostgreSQL does: the input is one table or materialized view,
 * or the tables of an inheritance or partition tree left after pruning (no
 * TABLESAMPLE), the grouping keys are up to four plain columns of supported
 * types, every aggregate is count(*), count(x), sum, avg, min or max of a
 * plain column (no DISTINCT or ORDER BY; a FILTER only when it runs as a
 * device mask), and no qual needs a subplan or an executor parameter.
 * WHERE clauses that are comparisons of a column with a constant
 * (agg_quals.c) run as a device mask; the others run in PostgreSQL, row by
 * row, before rows reach the engine.  With row-level security every clause
 * runs in PostgreSQL, in the order the planner gave them.  The path is not
 * offered either when the groups' estimated size passes
 * gpuops.max_group_memory (gpuops_agg_groups_fit).
 */
#include "aggnode/plan/agg_plan_int.h"
#include "cache/gpuops_cache.h"
#include "heapscan/gpuops_scan.h"

#include "catalog/pg_am.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"

static create_upper_paths_hook_type prev_upper_paths_hook = NULL;

static CustomPathMethods gpuops_agg_path_methods = {
	.CustomName = "GpuOpsAgg",
	.PlanCustomPath = gpuops_agg_plan_path,
};

/*
 * The order the node's groups come out in, as pathkeys, or NIL.  The groups
 * are sorted by key code, key after key, with a key's NULL after its values
 * (agg_state.c keeps them so through every merge): that is ORDER BY k1, k2,
 * ... ASC NULLS LAST in the default btree order of every type the engine
 * codes, but not for text keys, whose codes are first-seen numbers.  So when
 * the query's group pathkeys are exactly the keys, ascending with NULLs last,
 * the planner may skip a Sort above the node.
 */
static List *
gpuops_agg_pathkeys(PlannerInfo *root, List *keys)
{
	ListCell   *lk;
	ListCell   *lp;

	if (keys == NIL || root->group_pathkeys == NIL ||
		list_length(root->group_pathkeys) != list_length(keys))
		return NIL;
	forboth(lk, keys, lp, root->group_pathkeys)
	{
		Node	   *key = (Node *) lfirst(lk);
		Oid			keytype = exprType(key);
		PathKey    *pk = (PathKey *) lfirst(lp);
		EquivalenceClass *ec = pk->pk_eclass;
		ListCell   *lm;
		bool		found = false;
		gpo_type	phys;

		if (!gpuops_scan_col_type_mod(keytype, exprTypmod(key), &phys) ||
			pk->pk_strategy != BTLessStrategyNumber || pk->pk_nulls_first ||
			pk->pk_opfamily != get_opclass_family(GetDefaultOpClass(keytype,
																	 BTREE_AM_OID)))
			return NIL;
		foreach(lm, ec->ec_members)
		{
			EquivalenceMember *em = (EquivalenceMember *) lfirst(lm);

			if (equal(em->em_expr, key))
				found = true;
		}
		if (!found)
			return NIL;
	}
	return root->group_pathkeys;
}

/*
 * True if the query may get the path at this stage: grouped aggregation
 * (no grouping sets, row marks or partitionwise aggregation), in a database
 * with the extension, over one plain table without TABLESAMPLE or a join
 * (agg_star.c decides), and no target or HAVING expression that needs the
 * executor.
 */
static bool
gpuops_agg_query_ok(PlannerInfo *root, UpperRelationKind stage,
					RelOptInfo *input_rel, RelOptInfo *output_rel,
					GroupPathExtraData *gextra)
{
	Query	   *parse = root->parse;
	RangeTblEntry *rte;

	if (stage != UPPERREL_GROUP_AGG || !gpuops_enabled || gextra == NULL)
		return false;
	if (parse->groupingSets != NIL || parse->rowMarks != NIL ||
		gextra->patype != PARTITIONWISE_AGGREGATE_NONE)
		return false;
	if (!parse->hasAggs && parse->groupClause == NIL)
		return false;
	/* only in databases that have the extension (a preloaded library is everywhere) */
	if (!OidIsValid(get_extension_oid("gpuops", true)))
		return false;
	if (IS_DUMMY_REL(input_rel))
		return false;
	if (input_rel->reloptkind == RELOPT_JOINREL)
		return true;			/* a star join, if agg_star.c says so */
	if (input_rel->reloptkind != RELOPT_BASEREL ||
		input_rel->rtekind != RTE_RELATION)
		return false;
	rte = planner_rt_fetch(input_rel->relid, root);
	if (rte->tablesample != NULL)
		return false;
	if (gpuops_needs_executor_walker((Node *) output_rel->reltarget->exprs,
									 NULL) ||
		gpuops_needs_executor_walker(gextra->havingQual, NULL))
		return false;
	return true;
}

/*
 * False when the groups' estimated size, twice over for a merge, passes
 * gpuops.max_group_memory: the node would spill them (agg_spill.c), and
 * HashAggregate is as good at that, so the native plan is kept.
 */
static bool
gpuops_agg_groups_fit(List *keys, List *aggrefs, double groups)
{
	int			nvals = 0;
	ListCell   *lc;

	foreach(lc, aggrefs)
		if (!((Aggref *) lfirst(lc))->aggstar ||
			((Aggref *) lfirst(lc))->aggfilter != NULL)
			nvals++;
	if (groups * 2.0 * (9.0 * list_length(keys) + 8.0 + 48.0 * nvals) >
		(double) gpuops_max_group_memory * 1024.0)
		return false;
	return true;
}

/*
 * The distinct columns the keys and the aggregates' arguments read, and
 * the expressions among them.
 */
static int
gpuops_agg_ncols(List *keys, List *aggrefs, Index relid)
{
	Bitmapset  *cols = NULL;
	ListCell   *lc;
	int			exprs = 0;

	foreach(lc, keys)
	{
		pull_varattnos((Node *) lfirst(lc), relid, &cols);
		exprs += !IsA(lfirst(lc), Var);
	}
	foreach(lc, aggrefs)
	{
		Aggref	   *a = (Aggref *) lfirst(lc);

		if (!a->aggstar)
		{
			Node	   *arg = (Node *) llast_node(TargetEntry, a->args)->expr;

			pull_varattnos(arg, relid, &cols);
			exprs += !IsA(arg, Var);
		}
	}
	/* a computed column costs about as much as a read one */
	return bms_num_members(cols) + exprs;
}

/*
 * The columns of relid the node reads for keys, aggregates and the first
 * table's clauses (as attnos offset by FirstLowInvalidHeapAttributeNumber),
 * a star join's virtual columns left out.
 */
static Bitmapset *
gpuops_agg_read_attnos(List *keys, List *aggrefs, Index relid, List *tables,
					   GpuopsAggStar *star)
{
	Bitmapset  *cols = NULL;
	ListCell   *lc;

	pull_varattnos((Node *) keys, relid, &cols);
	foreach(lc, aggrefs)
		pull_varattnos((Node *) lfirst(lc), relid, &cols);	/* FILTER too */
	if (tables != NIL)
	{
		List	   *entry = (List *) linitial(tables);

		pull_varattnos((Node *) list_nth(entry, TAB_DEVICE_QUALS), relid, &cols);
		pull_varattnos((Node *) list_nth(entry, TAB_CPU_QUALS), relid, &cols);
	}
	return gpuops_agg_star_real_attnos(star, cols);
}

/* True if a Var of node is a text column whose strings a worker sends. */
static bool
gpuops_agg_text_vars(Node *node)
{
	List	   *vars = pull_var_clause(node,
									   PVC_RECURSE_AGGREGATES |
									   PVC_RECURSE_WINDOWFUNCS |
									   PVC_RECURSE_PLACEHOLDERS);
	ListCell   *lc;

	foreach(lc, vars)
	{
		Var		   *var = (Var *) lfirst(lc);

		if (IsA(var, Var) && gpuops_agg_text_key(var->vartype, var->varcollid) &&
			!gpuops_agg_short_text_key(var->vartype, var->vartypmod,
									   var->varcollid))
			return true;
	}
	return false;
}

/*
 * The most distinct strings a worker process sends (0: none): a worker
 * sends each string of its text columns once (a short one, char(1) or
 * varchar(7), travels as an integer code).  A text key has at most the
 * query's groups of them; a text column an aggregate reads (min, max,
 * count(DISTINCT)) is coded as one more key, so at most the engine's
 * groups.
 */
static double
gpuops_agg_strings_sent(List *keys, List *aggrefs, double groups,
						double engine_groups)
{
	if (gpuops_agg_text_vars((Node *) aggrefs))
		return Max(engine_groups, 1.0);
	if (gpuops_agg_text_vars((Node *) keys))
		return Max(groups, 1.0);
	return 0.0;
}

/*
 * The GpuOpsAgg path of output_rel over input (read from scan_rel, under
 * star's join if not NULL): its rows, pathkeys and cost, and in
 * custom_private (PRIV_*) what gpuops_agg_plan_path needs.  keys and
 * aggrefs are over scan_rel's columns; scan_keys and scan_aggrefs as the
 * query writes them.
 */
static CustomPath *
gpuops_agg_make_path(PlannerInfo *root, RelOptInfo *scan_rel,
					 RelOptInfo *output_rel, GroupPathExtraData *gextra,
					 List *keys, List *aggrefs, List *scan_keys,
					 List *scan_aggrefs, GpuopsAggStar *star,
					 GpuopsAggInput *input, double rows, double groups,
					 double engine_groups)
{
	RangeTblEntry *rte = planner_rt_fetch(scan_rel->relid, root);
	CustomPath *cp = makeNode(CustomPath);
	List	   *scan_engine_keys = scan_keys;
	Bitmapset  *read_attnos;
	double		decode_weight;
	int			workers;

	/* count(DISTINCT x), min(x), max(x) of text: the engine groups by the keys and x */
	scan_engine_keys = list_concat_copy(scan_keys,
										gpuops_agg_fold_args(scan_aggrefs));

	cp->path.pathtype = T_CustomScan;
	cp->path.parent = output_rel;
	cp->path.pathtarget = output_rel->reltarget;
	cp->path.param_info = NULL;
	cp->path.parallel_aware = false;
	cp->path.parallel_safe = false;
	cp->path.parallel_workers = 0;
	cp->path.rows = groups;
	cp->path.pathkeys = star ? NIL : gpuops_agg_pathkeys(root, keys);
	read_attnos = gpuops_agg_read_attnos(keys, aggrefs, scan_rel->relid,
										 input->tables, star);
	decode_weight = gpuops_agg_decode_weight(rte->relid, read_attnos);
	workers = gpuops_agg_workers(root, scan_rel->relid, input->tables, rte->inh,
								 engine_groups,
								 gpuops_agg_read_weight(rte->relid, read_attnos,
														decode_weight),
								 gpuops_agg_strings_sent(keys, aggrefs, groups,
														 engine_groups));
	gpuops_agg_cost(root, input, groups,
					gpuops_agg_ncols(keys, aggrefs, scan_rel->relid) + input->ndevice_quals,
					decode_weight,
					rte->inh || list_length(input->tables) != 1 ? 0.0 :
					gpuops_cache_fresh_share(rte->relid, input->pages, read_attnos),
					workers,
					rte->inh ? 1.0 : gpuops_agg_page_factor(root, scan_rel, workers),
					&cp->path);
	if (star == NULL)
	{
		/*
		 * the column of min(x), max(x) or count(DISTINCT x), coded as one
		 * more key; text grouping keys aside, whose strings a native plan
		 * hashes or sorts too (GROUP BY url over 1M rows on 2 cores: the
		 * node 3.8x native); a star join's dimension strings are coded once
		 * a dimension row (and its columns are numbered past the fact's)
		 */
		Bitmapset  *fold_attnos = NULL;
		Cost		text;

		pull_varattnos((Node *) gpuops_agg_fold_args(aggrefs), scan_rel->relid,
					   &fold_attnos);
		text = gpuops_agg_text_cost(root, scan_rel, fold_attnos, workers);
		cp->path.startup_cost += text;
		cp->path.total_cost += text;
	}
	if (star)
		gpuops_agg_star_cost(root, star, scan_rel->rows, workers, &cp->path);
	/* count(DISTINCT x): the engine's groups fold into the query's */
	cp->path.startup_cost += (engine_groups - groups) * cpu_operator_cost;
	cp->path.total_cost += (engine_groups - groups) * cpu_operator_cost;
	cp->flags = 0;
	cp->custom_paths = star ? gpuops_agg_star_paths(root, star) : NIL;
	cp->custom_private = list_make5(keys, aggrefs, input->tables,
									makeInteger(rte->inh ? 1 : 0),
									gextra->havingQual);
	cp->custom_private = lappend(cp->custom_private,
								 makeFloat(psprintf("%.0f", engine_groups)));
	cp->custom_private = lappend(cp->custom_private,
								 makeInteger(gpuops_device));
	cp->custom_private = lappend(cp->custom_private,
								 makeInteger(scan_rel->relid));
	cp->custom_private = lappend(cp->custom_private,
								 makeInteger(gpuops_agg_predict_strategy(root, scan_engine_keys,
																		 rows,
																		 engine_groups)));
	cp->custom_private = lappend(cp->custom_private, makeInteger(workers));
	/* PRIV_AGG_CLASSES comes with the plan */
	cp->custom_private = lappend(cp->custom_private, NULL);
	cp->custom_private = lappend(cp->custom_private,
								 star ? gpuops_agg_star_private(star, scan_keys,
																scan_aggrefs) : NIL);
	cp->methods = &gpuops_agg_path_methods;
	return cp;
}

/* create_upper_paths_hook: offer GpuOpsAgg for an eligible GROUP BY. */
static void
gpuops_agg_upper_paths(PlannerInfo *root, UpperRelationKind stage,
					   RelOptInfo *input_rel, RelOptInfo *output_rel,
					   void *extra)
{
	GroupPathExtraData *gextra = (GroupPathExtraData *) extra;
	GpuopsAggStar star_data;
	GpuopsAggStar *star = NULL;
	RelOptInfo *scan_rel = input_rel;
	List	   *target = output_rel->reltarget->exprs;
	Node	   *having = gextra ? gextra->havingQual : NULL;
	List	   *tlist = gextra ? gextra->targetList : NIL;
	List	   *keys;
	List	   *aggrefs;
	List	   *scan_keys;
	List	   *scan_aggrefs;
	GpuopsAggInput input;
	List	   *splits = NIL;
	List	   *derived;
	List	   *mapped;
	List	   *table_keys;
	List	   *fold_args;
	ListCell   *lc;
	double		groups;
	double		engine_groups;
	CustomPath *cp;

	if (prev_upper_paths_hook)
		prev_upper_paths_hook(root, stage, input_rel, output_rel, extra);
	if (!gpuops_agg_query_ok(root, stage, input_rel, output_rel, gextra))
		return;
	/* sums of numeric CASEs of several scales: their parts (agg_sum_split.c) */
	target = (List *) gpuops_agg_split_sums((Node *) target, &splits);
	having = gpuops_agg_split_sums(having, &splits);
	tlist = (List *) gpuops_agg_split_sums((Node *) tlist, &splits);
	if (input_rel->reloptkind == RELOPT_JOINREL)
	{
		/* the dimensions' columns as virtual columns of the fact table */
		if (!gpuops_agg_star_find(root, input_rel, &star_data))
			return;
		star = &star_data;
		star->group_exprs = get_sortgrouplist_exprs(root->parse->groupClause,
												   tlist);
		scan_rel = star->fact;
		target = (List *) gpuops_agg_star_to_fact(star, (Node *) target);
		having = gpuops_agg_star_to_fact(star, having);
		tlist = (List *) gpuops_agg_star_to_fact(star, (Node *) tlist);
		if (star->bad)
			return;
	}
	if (!gpuops_agg_collect(root, scan_rel->relid, target, having, tlist,
							&keys, &aggrefs))
		return;
	/* a star join's label keys: constants over the fact's columns */
	foreach(lc, star ? keys : NIL)
		if (gpuops_label_case((Node *) lfirst(lc), NULL, NULL) &&
			!gpuops_label_star_ok((Node *) lfirst(lc), scan_rel->max_attr))
			return;
	/* keys other keys determine: computed per group (agg_derived.c) */
	derived = star ? NIL : gpuops_agg_derive_keys(&keys);
	fold_args = gpuops_agg_fold_args(aggrefs);
	/* functions of one text column: grouped by the column (agg_mapped.c) */
	gpuops_agg_map_keys(keys, scan_rel->relid, &mapped, &table_keys);
	/* (a label key's column is read as its codes: no mapped key's too) */
	if (mapped != NIL &&
		(star || !gpuops_label_sources_ok(table_keys, fold_args)))
		return;
	memset(&input, 0, sizeof(input));
	input.checks = gpuops_agg_derived_checks(derived);
	if (!gpuops_agg_add_tables(root, scan_rel, scan_rel, table_keys, aggrefs,
							   &input) || input.tables == NIL)
		return;
	scan_keys = star ? (List *) gpuops_agg_star_from_fact(star, (Node *) keys) : keys;
	scan_aggrefs = star ?
		(List *) gpuops_agg_star_from_fact(star, (Node *) aggrefs) : aggrefs;

	if (keys == NIL)
		groups = 1;
	else
		groups = gpuops_label_groups(root, scan_keys, input_rel->rows);
	engine_groups = groups;
	if (fold_args != NIL)
		engine_groups = gpuops_label_groups(root,
											list_concat_copy(scan_keys,
															 gpuops_agg_fold_args(scan_aggrefs)),
											input_rel->rows);
	if (mapped != NIL)
		engine_groups = Max(engine_groups,
							gpuops_label_groups(root,
												list_concat_copy(table_keys, fold_args),
												input_rel->rows));
	if (!gpuops_agg_groups_fit(list_concat_copy(keys, fold_args),
							   aggrefs, engine_groups))
		return;

	cp = gpuops_agg_make_path(root, scan_rel, output_rel, gextra, keys,
							  aggrefs, scan_keys, scan_aggrefs, star, &input,
							  input_rel->rows, groups, engine_groups);
	cp->custom_private = lappend(cp->custom_private, splits);
	cp->custom_private = lappend(cp->custom_private, derived);
	cp->custom_private = lappend(cp->custom_private, mapped);
	cp->custom_private = lappend(cp->custom_private,
								 gpuops_agg_bound(root, keys, aggrefs, having,
												  derived, star != NULL));
	/* a mapped key's function: once a distinct value of its column */
	foreach(lc, mapped)
	{
		QualCost	fn;

		cost_qual_eval_node(&fn, lsecond((List *) lfirst(lc)), root);
		cp->path.startup_cost += engine_groups * fn.per_tuple;
		cp->path.total_cost += engine_groups * fn.per_tuple;
	}
	add_path(output_rel, &cp->path);
}

/* Install the planner hook, chaining to any earlier one. */
void
gpuops_agg_register(void)
{
	prev_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = gpuops_agg_upper_paths;
	RegisterCustomScanMethods(&gpuops_agg_scan_methods);
}
