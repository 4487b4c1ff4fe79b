/*
 * agg_plan.c
 *	  Planning of the GpuOpsAgg custom scan: a create_upper_paths_hook that
 *	  offers `Custom Scan (GpuOpsAgg)` for GROUP BY (or plain aggregates) over
 *	  one table, and the plan it turns into.
 *
 * The path is offered only when every piece is something the node computes
 * exactly as PostgreSQL does: the input is one plain table (no inheritance,
 * no TABLESAMPLE), the grouping keys are up to four plain columns of
 * supported types, every aggregate is count(*), count(x), sum, avg, min or
 * max of a plain column (no DISTINCT, ORDER BY or FILTER), and no qual needs
 * a subplan or an executor parameter.  WHERE clauses that are comparisons of
 * a column with a constant (agg_quals.c) run as a device mask; the others
 * run in PostgreSQL, row by row, before rows reach the engine.  With
 * row-level security every clause runs in PostgreSQL, in the order the
 * planner gave them.
 *
 * The plan is a CustomScan on the table's range-table entry whose scan tuple
 * (custom_scan_tlist) is the grouping keys followed by the aggregates; the
 * target list and the HAVING quals refer to it, so PostgreSQL projects and
 * filters the groups as an Agg node would.
 */
#include "aggnode/gpuops_agg.h"
#include "heapscan/gpuops_scan.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_class.h"
#include "catalog/pg_am.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/appendinfo.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"

static int	gpuops_agg_workers(PlannerInfo *root, Index relid, List *tables,
							   bool inh, List *keys, double groups);

/* What the planner found out about the tables it would read. */
typedef struct GpuopsAggInput
{
	List	   *tables;			/* table entries */
	double		pages;
	double		tuples;
	int			ndevice_quals;	/* of the first table */
	List	   *cpu_quals;		/* all tables' CPU clauses (for costing) */
} GpuopsAggInput;

static create_upper_paths_hook_type prev_upper_paths_hook = NULL;

static Plan *gpuops_agg_plan_path(PlannerInfo *root, RelOptInfo *rel,
								  CustomPath *best_path, List *tlist,
								  List *clauses, List *custom_plans);

static CustomPathMethods gpuops_agg_path_methods = {
	.CustomName = "GpuOpsAgg",
	.PlanCustomPath = gpuops_agg_plan_path,
};

/*
 * True if a grouping key of type typid and collation collid is a text key:
 * text, varchar or char(n) under a deterministic collation, whose equality
 * is byte equality (for char(n) because every value is padded to n
 * characters; see gpuops_agg_key_ok for bpchar without a length).
 */
bool
gpuops_agg_text_key(Oid typid, Oid collid)
{
	return (typid == TEXTOID || typid == VARCHAROID || typid == BPCHAROID) &&
		OidIsValid(collid) && get_collation_isdeterministic(collid);
}

/*
 * True if grouping key e can be the node's: a fixed-width column type the
 * reader extracts, or a text key; bpchar only with a length, since values
 * of a bare bpchar that differ in trailing blanks are equal but not
 * byte-equal.
 */
static bool
gpuops_agg_key_ok(Node *e)
{
	gpo_type	phys;

	if (gpuops_scan_col_type(exprType(e), &phys))
		return true;
	return gpuops_agg_text_key(exprType(e), exprCollation(e)) &&
		(exprType(e) != BPCHAROID || exprTypmod(e) >= 0);
}

/* True if node is a plain user column of relid (no system column, no whole row). */
static bool
gpuops_plain_column(Node *node, Index relid)
{
	Var		   *var;

	if (node == NULL || !IsA(node, Var))
		return false;
	var = (Var *) node;
	return var->varno == (int) relid && var->varlevelsup == 0 &&
		var->varattno > 0;
}

/* True if a numeric argument type (sum, avg). */
static bool
gpuops_numeric_arg(Oid typid)
{
	return typid == INT2OID || typid == INT4OID || typid == INT8OID ||
		typid == FLOAT4OID || typid == FLOAT8OID;
}

/* The result type PostgreSQL gives kind over argtype. */
static Oid
gpuops_agg_result_type(GpuopsAggKind kind, Oid argtype)
{
	switch (kind)
	{
		case GPUOPS_AGG_COUNT_STAR:
		case GPUOPS_AGG_COUNT:
			return INT8OID;
		case GPUOPS_AGG_SUM:
			if (argtype == INT2OID || argtype == INT4OID)
				return INT8OID;
			if (argtype == INT8OID)
				return NUMERICOID;
			return argtype;
		case GPUOPS_AGG_AVG:
			return (argtype == FLOAT4OID || argtype == FLOAT8OID) ?
				FLOAT8OID : NUMERICOID;
		case GPUOPS_AGG_MIN:
		case GPUOPS_AGG_MAX:
			return argtype;
	}
	return InvalidOid;
}

/*
 * Classify an Aggref: true (with *kind, *argattno, *argtype) if the node
 * computes it over a plain column of relid exactly as PostgreSQL does.
 */
bool
gpuops_agg_supported(Aggref *aggref, Index relid, GpuopsAggKind *kind,
					 AttrNumber *argattno, Oid *argtype)
{
	char	   *name;
	TargetEntry *tle;
	gpo_type	phys;

	if (aggref->aggorder != NIL || aggref->aggdistinct != NIL ||
		(aggref->aggfilter != NULL &&
		 !gpuops_qual_on_device(aggref->aggfilter, relid)) ||
		aggref->aggkind != AGGKIND_NORMAL ||
		aggref->agglevelsup != 0 || aggref->aggsplit != AGGSPLIT_SIMPLE ||
		aggref->aggvariadic)
		return false;
	if (get_func_namespace(aggref->aggfnoid) != PG_CATALOG_NAMESPACE)
		return false;
	name = get_func_name(aggref->aggfnoid);
	if (name == NULL)
		return false;

	*argattno = InvalidAttrNumber;
	*argtype = InvalidOid;
	if (aggref->aggstar)
	{
		if (strcmp(name, "count") != 0)
			return false;
		*kind = GPUOPS_AGG_COUNT_STAR;
		return aggref->aggtype == INT8OID;
	}
	if (list_length(aggref->args) != 1)
		return false;
	tle = linitial_node(TargetEntry, aggref->args);
	if (!gpuops_plain_column((Node *) tle->expr, relid))
		return false;
	*argattno = ((Var *) tle->expr)->varattno;
	*argtype = exprType((Node *) tle->expr);
	if (!gpuops_scan_col_type(*argtype, &phys))
		return false;

	if (strcmp(name, "count") == 0)
		*kind = GPUOPS_AGG_COUNT;
	else if (strcmp(name, "sum") == 0 && gpuops_numeric_arg(*argtype))
		*kind = GPUOPS_AGG_SUM;
	else if (strcmp(name, "avg") == 0 && gpuops_numeric_arg(*argtype))
		*kind = GPUOPS_AGG_AVG;
	else if (strcmp(name, "min") == 0 && *argtype != BOOLOID)
		*kind = GPUOPS_AGG_MIN;
	else if (strcmp(name, "max") == 0 && *argtype != BOOLOID)
		*kind = GPUOPS_AGG_MAX;
	else
		return false;
	/* a catalog with other overloads than expected keeps the native plan */
	return aggref->aggtype == gpuops_agg_result_type(*kind, *argtype);
}

/* Walker: true if the tree holds a subplan, an executor Param or a SRF. */
static bool
gpuops_needs_executor_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, SubPlan) || IsA(node, AlternativeSubPlan) ||
		IsA(node, SubLink))
		return true;
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_EXEC)
		return true;
	if (IsA(node, PlaceHolderVar))
		return true;
	return expression_tree_walker(node, gpuops_needs_executor_walker, context);
}

/* A restriction clause with its evaluation order keys. */
typedef struct GpuopsQualItem
{
	Expr	   *clause;
	Index		security_level;
	Cost		cost;
} GpuopsQualItem;

/*
 * Split the table's restriction clauses into device and CPU clauses; false
 * if some clause keeps the whole query native.  The CPU clauses come in the
 * order a scan would evaluate them (createplan.c's order_qual_clauses:
 * security level first, then cost, stable), so security barrier quals run
 * before any user clause.
 */
static bool
gpuops_agg_split_quals(PlannerInfo *root, RelOptInfo *rel,
					   List **device_quals, List **cpu_quals)
{
	ListCell   *lc;
	bool		rls = false;
	GpuopsQualItem *items;
	int			n = 0;
	int			i;

	*device_quals = NIL;
	*cpu_quals = NIL;
	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);

		if (gpuops_needs_executor_walker((Node *) ri->clause, NULL))
			return false;
		if (ri->security_level > 0)
			rls = true;
	}
	items = palloc(sizeof(GpuopsQualItem) *
				   Max(list_length(rel->baserestrictinfo), 1));
	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		GpuopsQualItem item;
		QualCost	qcost;

		if (!rls && !ri->pseudoconstant &&
			gpuops_qual_on_device(ri->clause, rel->relid))
		{
			*device_quals = lappend(*device_quals, ri->clause);
			continue;
		}
		cost_qual_eval_node(&qcost, (Node *) ri->clause, root);
		item.clause = ri->clause;
		item.security_level = ri->security_level;
		item.cost = qcost.per_tuple;
		/* insertion sort: stable, by security level, then cost */
		for (i = n; i > 0; i--)
		{
			GpuopsQualItem *prev = &items[i - 1];

			if (item.security_level > prev->security_level ||
				(item.security_level == prev->security_level &&
				 item.cost >= prev->cost))
				break;
			items[i] = *prev;
		}
		items[i] = item;
		n++;
	}
	for (i = 0; i < n; i++)
		*cpu_quals = lappend(*cpu_quals, items[i].clause);
	return true;
}

/*
 * Collect the grouping keys (plain columns) and the aggregates of the
 * grouped target and HAVING; false if the node can't compute them.
 */
static bool
gpuops_agg_collect(PlannerInfo *root, RelOptInfo *input_rel,
				   RelOptInfo *output_rel, GroupPathExtraData *gextra,
				   List **keys, List **aggrefs)
{
	Index		relid = input_rel->relid;
	List	   *group_exprs;
	List	   *items;
	ListCell   *lc;

	*keys = NIL;
	*aggrefs = NIL;
	group_exprs = get_sortgrouplist_exprs(root->parse->groupClause,
										  gextra->targetList);
	foreach(lc, group_exprs)
	{
		Node	   *e = (Node *) lfirst(lc);

		if (!gpuops_plain_column(e, relid) || !gpuops_agg_key_ok(e))
			return false;
		*keys = list_append_unique(*keys, e);
	}
	if (list_length(*keys) > GPUOPS_AGG_MAX_KEYS)
		return false;

	items = pull_var_clause((Node *) output_rel->reltarget->exprs,
							PVC_INCLUDE_AGGREGATES |
							PVC_INCLUDE_WINDOWFUNCS |
							PVC_INCLUDE_PLACEHOLDERS);
	items = list_concat(items,
						pull_var_clause(gextra->havingQual,
										PVC_INCLUDE_AGGREGATES |
										PVC_INCLUDE_WINDOWFUNCS |
										PVC_INCLUDE_PLACEHOLDERS));
	foreach(lc, items)
	{
		Node	   *item = (Node *) lfirst(lc);

		if (IsA(item, Var))
		{
			/* outside an aggregate only the grouping keys may appear */
			if (!list_member(*keys, item))
				return false;
		}
		else if (IsA(item, Aggref))
		{
			GpuopsAggKind kind;
			AttrNumber	attno;
			Oid			argtype;

			if (!gpuops_agg_supported((Aggref *) item, relid, &kind, &attno,
									  &argtype))
				return false;
			*aggrefs = list_append_unique(*aggrefs, item);
		}
		else
			return false;
	}
	return true;
}

/*
 * Cost of the path: setup, reading every page and row, quals, groups out.
 * The per-row cost is not divided among the OpenMP threads: on 16 cores the
 * CPU face took 1.2 to 1.4 s for 1e8 rows whatever the query (the backend's
 * page reading bounds it), slower than a 16-worker native plan for a
 * selective WHERE or a plain count and sum, faster only for heavier
 * aggregation (bench/RESULTS.md).  It is divided among the processes that
 * read when there are worker processes (plus PostgreSQL's parallel set-up
 * cost): with 15 workers the CPU face read 1e8 rows in 120-210 ms.
 */
static void
gpuops_agg_cost(PlannerInfo *root, GpuopsAggInput *input, double groups,
				int ncols, int workers, Path *path)
{
	bool		gpu = gpuops_device == GPO_DEVICE_GPU;
	double		row_cost = gpu ? gpuops_gpu_row_cost : gpuops_cpu_row_cost;
	QualCost	qcost;
	Cost		startup;

	cost_qual_eval(&qcost, input->cpu_quals, root);
	startup = (gpu ? gpuops_gpu_setup_cost : gpuops_cpu_setup_cost) +
		qcost.startup +
		(seq_page_cost * input->pages +
		 input->tuples * (row_cost * (1 + 0.25 * ncols) + qcost.per_tuple)) /
		(workers + 1);
	if (workers > 0)
		startup += parallel_setup_cost;
	path->startup_cost = startup;
	path->total_cost = startup + groups * cpu_tuple_cost;
}

/*
 * Adds the tables under rel (rel itself, or every partition left after
 * pruning, recursively) to input, with the keys and aggregates of the top
 * relation top translated to each table's columns; false if some table
 * can't be read by the node.
 */
static bool
gpuops_agg_add_tables(PlannerInfo *root, RelOptInfo *top, RelOptInfo *rel,
					  List *keys, List *aggrefs, GpuopsAggInput *input)
{
	RangeTblEntry *rte = planner_rt_fetch(rel->relid, root);
	List	   *device_quals;
	List	   *cpu_quals;
	List	   *entry;
	ListCell   *lc;

	if (IS_DUMMY_REL(rel))
		return true;
	if (rte->inh)
	{
		foreach(lc, root->append_rel_list)
		{
			AppendRelInfo *ai = lfirst_node(AppendRelInfo, lc);
			RelOptInfo *child;

			if (ai->parent_relid != rel->relid)
				continue;
			child = find_base_rel(root, ai->child_relid);
			if (!gpuops_agg_add_tables(root, top, child, keys, aggrefs, input))
				return false;
		}
		return true;
	}
	if (rte->rtekind != RTE_RELATION || rte->tablesample != NULL ||
		(rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW))
		return false;
	if (!gpuops_agg_split_quals(root, rel, &device_quals, &cpu_quals))
		return false;
	if (rel != top)
	{
		Relids		child = bms_make_singleton(rel->relid);
		Relids		parent = bms_make_singleton(top->relid);

		keys = (List *) adjust_appendrel_attrs_multilevel(root, (Node *) keys,
														  child, parent);
		aggrefs = (List *) adjust_appendrel_attrs_multilevel(root, (Node *) aggrefs,
															 child, parent);
	}
	/* the translation of a plain column is a plain column; check anyway */
	foreach(lc, keys)
		if (!gpuops_plain_column((Node *) lfirst(lc), rel->relid))
			return false;

	entry = list_make5(makeInteger(rel->relid), makeInteger((int) rte->relid),
					   keys, aggrefs, device_quals);
	entry = lappend(entry, cpu_quals);
	input->tables = lappend(input->tables, entry);
	input->pages += rel->pages;
	input->tuples += Max(rel->tuples, rel->rows);
	if (list_length(input->tables) == 1)
		input->ndevice_quals = list_length(device_quals);
	input->cpu_quals = list_concat(input->cpu_quals, cpu_quals);
	return true;
}

/*
 * The range of key codes (gpo_key_code) a key's values span, from the
 * column's statistics (histogram bounds and most common values); false when
 * unknown or not an integer-like key.  A text key's codes are its dense
 * dictionary numbers, so its range is its estimated number of values.
 */
static bool
gpuops_agg_key_range(PlannerInfo *root, Var *var, double rows, uint64 *span)
{
	VariableStatData vardata;
	AttStatsSlot sslot;
	gpo_type	phys;
	bool		found = false;
	uint64		lo = PG_UINT64_MAX;
	uint64		hi = 0;
	int			kinds[2] = {STATISTIC_KIND_HISTOGRAM, STATISTIC_KIND_MCV};
	int			k;
	int			i;

	if (gpuops_agg_text_key(var->vartype, var->varcollid))
	{
		double		nd = estimate_num_groups(root, list_make1(var), rows,
											 NULL, NULL);

		*span = (uint64) Max(nd, 1.0) - 1;
		return true;
	}
	if (!gpuops_scan_col_type(var->vartype, &phys) ||
		(phys != GPO_INT32 && phys != GPO_INT64))
		return false;
	examine_variable(root, (Node *) var, 0, &vardata);
	for (k = 0; k < 2 && HeapTupleIsValid(vardata.statsTuple); k++)
	{
		if (!get_attstatsslot(&sslot, vardata.statsTuple, kinds[k], InvalidOid,
							  ATTSTATSSLOT_VALUES))
			continue;
		for (i = 0; i < sslot.nvalues; i++)
		{
			Datum		d = sslot.values[i];
			int64		v64 = 0;
			int32		v32 = 0;
			uint64		code;

			switch (var->vartype)
			{
				case INT2OID:
					v32 = DatumGetInt16(d);
					break;
				case BOOLOID:
					v32 = DatumGetBool(d) ? 1 : 0;
					break;
				case INT4OID:
				case DATEOID:
					v32 = DatumGetInt32(d);
					break;
				default:
					v64 = DatumGetInt64(d);
					break;
			}
			code = phys == GPO_INT32 ? gpo_key_code(phys, &v32) :
				gpo_key_code(phys, &v64);
			lo = Min(lo, code);
			hi = Max(hi, code);
			found = true;
		}
		free_attstatsslot(&sslot);
	}
	ReleaseVariableStats(vardata);
	if (found)
		*span = hi - lo;
	return found;
}

/*
 * The strategy the engine is expected to choose (gpo_agg_choose, or the
 * setting that forces one); -1 for aggregates without GROUP BY.  Several
 * keys are packed into one key whose span is the product of theirs.
 */
static int
gpuops_agg_predict_strategy(PlannerInfo *root, List *keys, double rows,
							double groups)
{
	gpo_type	type = GPO_INT64;
	uint64		span = PG_UINT64_MAX;
	double		packed = 1;
	ListCell   *lc;

	if (keys == NIL)
		return -1;
	if (gpuops_agg_strategy == GPO_AGG_HASH || gpuops_agg_strategy == GPO_AGG_SORT)
		return gpuops_agg_strategy;
	foreach(lc, keys)
	{
		Var		   *var = (Var *) lfirst(lc);
		uint64		one;

		if (!gpuops_agg_key_range(root, var, rows, &one))
		{
			packed = -1;
			break;
		}
		/* and one more code for NULL */
		packed *= (double) one + 2;
	}
	if (list_length(keys) == 1)
		gpuops_scan_col_type(((Var *) linitial(keys))->vartype, &type);
	if (gpuops_agg_text_key(((Var *) linitial(keys))->vartype,
							((Var *) linitial(keys))->varcollid))
		type = GPO_INT32;
	if (packed > 0 && packed < (double) PG_INT64_MAX)
		span = (uint64) packed - 1;
	if (gpuops_agg_strategy == GPO_AGG_DENSE)
		return span < (uint64) GPO_AGG_DENSE_MAX_RANGE ? GPO_AGG_DENSE :
			gpo_agg_choose(type, (int64) rows, 0, span, (int64) groups);
	return gpo_agg_choose(type, (int64) Max(rows, 1), 0, span, (int64) groups);
}

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
		Var		   *var = (Var *) lfirst(lk);
		PathKey    *pk = (PathKey *) lfirst(lp);
		EquivalenceClass *ec = pk->pk_eclass;
		ListCell   *lm;
		bool		found = false;
		gpo_type	phys;

		if (!gpuops_scan_col_type(var->vartype, &phys) ||
			pk->pk_strategy != BTLessStrategyNumber || pk->pk_nulls_first ||
			pk->pk_opfamily != get_opclass_family(GetDefaultOpClass(var->vartype,
																	 BTREE_AM_OID)))
			return NIL;
		foreach(lm, ec->ec_members)
		{
			EquivalenceMember *em = (EquivalenceMember *) lfirst(lm);

			if (equal(em->em_expr, var))
				found = true;
		}
		if (!found)
			return NIL;
	}
	return root->group_pathkeys;
}

/* create_upper_paths_hook: offer GpuOpsAgg for an eligible GROUP BY. */
static void
gpuops_agg_upper_paths(PlannerInfo *root, UpperRelationKind stage,
					   RelOptInfo *input_rel, RelOptInfo *output_rel,
					   void *extra)
{
	Query	   *parse = root->parse;
	GroupPathExtraData *gextra = (GroupPathExtraData *) extra;
	RangeTblEntry *rte;
	List	   *keys;
	List	   *aggrefs;
	GpuopsAggInput input;
	Bitmapset  *cols = NULL;
	ListCell   *lc;
	double		groups;
	CustomPath *cp;

	if (prev_upper_paths_hook)
		prev_upper_paths_hook(root, stage, input_rel, output_rel, extra);
	if (stage != UPPERREL_GROUP_AGG || !gpuops_enabled || gextra == NULL)
		return;
	if (parse->groupingSets != NIL || parse->rowMarks != NIL ||
		gextra->patype != PARTITIONWISE_AGGREGATE_NONE)
		return;
	if (!parse->hasAggs && parse->groupClause == NIL)
		return;
	/* only in databases that have the extension (a preloaded library is everywhere) */
	if (!OidIsValid(get_extension_oid("gpuops", true)))
		return;
	if (input_rel->reloptkind != RELOPT_BASEREL ||
		input_rel->rtekind != RTE_RELATION || IS_DUMMY_REL(input_rel))
		return;
	rte = planner_rt_fetch(input_rel->relid, root);
	if (rte->tablesample != NULL)
		return;
	if (gpuops_needs_executor_walker((Node *) output_rel->reltarget->exprs,
									 NULL) ||
		gpuops_needs_executor_walker(gextra->havingQual, NULL))
		return;
	if (!gpuops_agg_collect(root, input_rel, output_rel, gextra, &keys,
							&aggrefs))
		return;
	memset(&input, 0, sizeof(input));
	if (!gpuops_agg_add_tables(root, input_rel, input_rel, keys, aggrefs,
							   &input) || input.tables == NIL)
		return;

	if (keys == NIL)
		groups = 1;
	else
		groups = estimate_num_groups(root, keys, input_rel->rows, NULL, NULL);

	/*
	 * Keep the native plan when the groups' estimated size, twice over for
	 * a merge, passes gpuops.max_group_memory: the node would spill them
	 * (agg_spill.c), and HashAggregate is as good at that.
	 */
	{
		int			nvals = 0;

		foreach(lc, aggrefs)
			if (!((Aggref *) lfirst(lc))->aggstar ||
				((Aggref *) lfirst(lc))->aggfilter != NULL)
				nvals++;
		if (groups * 2.0 * (9.0 * list_length(keys) + 8.0 + 48.0 * nvals) >
			(double) gpuops_max_group_memory * 1024.0)
			return;
	}

	foreach(lc, keys)
		cols = bms_add_member(cols, ((Var *) lfirst(lc))->varattno);
	foreach(lc, aggrefs)
	{
		Aggref	   *a = (Aggref *) lfirst(lc);

		if (!a->aggstar)
			cols = bms_add_member(cols,
								  ((Var *) linitial_node(TargetEntry, a->args)->expr)->varattno);
	}

	cp = makeNode(CustomPath);
	cp->path.pathtype = T_CustomScan;
	cp->path.parent = output_rel;
	cp->path.pathtarget = output_rel->reltarget;
	cp->path.param_info = NULL;
	cp->path.parallel_aware = false;
	cp->path.parallel_safe = false;
	cp->path.parallel_workers = 0;
	cp->path.rows = groups;
	cp->path.pathkeys = gpuops_agg_pathkeys(root, keys);
	gpuops_agg_cost(root, &input, groups,
					bms_num_members(cols) + input.ndevice_quals,
					gpuops_agg_workers(root, input_rel->relid, input.tables,
									   rte->inh, keys, groups),
					&cp->path);
	cp->flags = 0;
	cp->custom_paths = NIL;
	cp->custom_private = list_make5(keys, aggrefs, input.tables,
									makeInteger(rte->inh ? 1 : 0),
									gextra->havingQual);
	cp->custom_private = lappend(cp->custom_private,
								 makeFloat(psprintf("%.0f", groups)));
	cp->custom_private = lappend(cp->custom_private,
								 makeInteger(gpuops_device));
	cp->custom_private = lappend(cp->custom_private,
								 makeInteger(input_rel->relid));
	cp->custom_private = lappend(cp->custom_private,
								 makeInteger(gpuops_agg_predict_strategy(root, keys,
																		 input_rel->rows,
																		 groups)));
	cp->methods = &gpuops_agg_path_methods;
	add_path(output_rel, &cp->path);
}

/*
 * Worker processes the node may read with (for the costing and the plan):
 * only where the query may run in parallel, for one heap table whose scan
 * is parallel-safe, without clauses PostgreSQL must evaluate (row-level
 * security included) and without text keys (dictionary codes are per
 * process).  gpuops.parallel_workers = -1 (the default) takes
 * as many as PostgreSQL would give a parallel scan of the table (its size,
 * its parallel_workers option, max_parallel_workers_per_gather), but no more
 * than one process a thread of gpuops.threads, none with fewer than 3
 * threads (the processes share the threads, and on 2 cores a worker was
 * measured a loss), and fewer than the table's rows / (64 x the estimated
 * groups) processes in all: every process sends the groups it saw to the
 * backend, which merges them (at 1e8 rows, 1M groups and 15 workers on 16
 * cores the query took 2.8-3.0 s, against 2.2-2.3 s without workers).
 * Another value asks for that many, at most max_parallel_workers_per_gather.
 */
static int
gpuops_agg_workers(PlannerInfo *root, Index relid, List *tables, bool inh,
				   List *keys, double groups)
{
	int			workers = Min(gpuops_parallel_workers,
							  max_parallel_workers_per_gather);
	RelOptInfo *scanrel;
	ListCell   *lc;

	if (gpuops_parallel_workers == 0 || max_parallel_workers_per_gather <= 0 ||
		!root->glob->parallelModeOK ||
		inh || list_length(tables) != 1 ||
		relid >= (Index) root->simple_rel_array_size)
		return 0;
	scanrel = root->simple_rel_array[relid];
	if (scanrel == NULL || !scanrel->consider_parallel ||
		list_nth((List *) linitial(tables), TAB_CPU_QUALS) != NIL)
		return 0;
	if (gpuops_parallel_workers < 0)
	{
		gpo_ctx		ctx;
		int			threads;
		double		per_worker = scanrel->tuples / (64.0 * Max(groups, 1.0)) - 1.0;

		gpuops_ctx_init(&ctx);
		threads = gpo_threads(&ctx);

		workers = threads < 3 ? 0 :
			Min(compute_parallel_worker(scanrel, scanrel->pages, -1,
										max_parallel_workers_per_gather),
				threads - 1);
		/* each process sends the groups it saw, and the backend merges them */
		if (per_worker < workers)
			workers = per_worker < 1.0 ? 0 : (int) per_worker;
	}
	if (workers <= 0)
		return 0;
	foreach(lc, keys)
	{
		Var		   *var = (Var *) lfirst(lc);

		if (gpuops_agg_text_key(var->vartype, var->varcollid))
			return 0;
	}
	return workers;
}

/* The plan's worker processes (see gpuops_agg_workers), asking for parallel mode when any. */
static int
gpuops_agg_plan_workers(PlannerInfo *root, List *priv)
{
	Node	   *g = (Node *) list_nth(priv, PRIV_EST_GROUPS);
	int			workers;

	workers = gpuops_agg_workers(root, intVal(list_nth(priv, PRIV_RELID)),
								 (List *) list_nth(priv, PRIV_TABLES),
								 intVal(list_nth(priv, PRIV_INH)) != 0,
								 (List *) list_nth(priv, PRIV_KEYS),
								 IsA(g, Integer) ? (double) intVal(g) : floatVal(g));
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

/* PlanCustomPath: the CustomScan whose scan tuple is keys then aggregates. */
static Plan *
gpuops_agg_plan_path(PlannerInfo *root, RelOptInfo *rel,
					 CustomPath *best_path, List *tlist, List *clauses,
					 List *custom_plans)
{
	List	   *priv = best_path->custom_private;
	List	   *keys = (List *) list_nth(priv, PRIV_KEYS);
	List	   *aggrefs = (List *) list_nth(priv, PRIV_AGGREFS);
	Node	   *having = (Node *) list_nth(priv, PRIV_HAVING);
	CustomScan *cscan = makeNode(CustomScan);
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

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = (List *) copyObject(having);
	/* an inheritance tree is read table by table: no one scan relation */
	cscan->scan.scanrelid = intVal(list_nth(priv, PRIV_INH)) ? 0 :
		intVal(list_nth(priv, PRIV_RELID));
	cscan->flags = best_path->flags;
	cscan->custom_plans = NIL;
	cscan->custom_exprs = NIL;
	cscan->custom_scan_tlist = scan_tlist;
	cscan->custom_private = list_make5(list_nth(priv, PRIV_KEYS),
									   list_nth(priv, PRIV_AGGREFS),
									   list_nth(priv, PRIV_TABLES),
									   list_nth(priv, PRIV_INH),
									   NIL);
	cscan->custom_private = lappend(cscan->custom_private,
									list_nth(priv, PRIV_EST_GROUPS));
	cscan->custom_private = lappend(cscan->custom_private,
									list_nth(priv, PRIV_DEVICE));
	cscan->custom_private = lappend(cscan->custom_private,
									list_nth(priv, PRIV_RELID));
	cscan->custom_private = lappend(cscan->custom_private,
									list_nth(priv, PRIV_STRATEGY));
	cscan->custom_private = lappend(cscan->custom_private,
									makeInteger(gpuops_agg_plan_workers(root, priv)));
	cscan->custom_private = lappend(cscan->custom_private,
									gpuops_agg_classes(aggrefs,
													   intVal(list_nth(priv, PRIV_RELID))));
	cscan->custom_private = copyObject(cscan->custom_private);
	cscan->methods = &gpuops_agg_scan_methods;
	return &cscan->scan.plan;
}


/* Install the planner hook, chaining to any earlier one. */
void
gpuops_agg_register(void)
{
	prev_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = gpuops_agg_upper_paths;
	RegisterCustomScanMethods(&gpuops_agg_scan_methods);
}
