/*
 * agg_eligible.c
 *	  What the GpuOpsAgg custom scan can compute, as the planner decides it:
 *	  grouping keys and aggregates (with the result types PostgreSQL gives
 *	  them), expressions that need the executor, the split of a table's
 *	  restriction clauses into device and CPU clauses, and the collection
 *	  of a query's keys, aggregates and tables.
 *
 * agg_plan.c says when the path is offered as a whole, agg_quals.c which
 * WHERE clauses run as a device mask.
 */
#include "aggnode/plan/agg_plan_int.h"
#include "heapscan/gpuops_scan.h"

#include "catalog/pg_aggregate.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/appendinfo.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "parser/parsetree.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

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

	if (gpuops_scan_col_type_mod(exprType(e), exprTypmod(e), &phys))
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
		typid == FLOAT4OID || typid == FLOAT8OID || typid == NUMERICOID;
}

/*
 * The variance or standard deviation kind an aggregate's name gives, or -1.
 * Its argument must be a float (N, the sum and m2 give PostgreSQL's
 * float8 result) or int2/int4 (the exact sums of the values and of their
 * squares give its numeric one); int8 and numeric, whose squares need more
 * than 128 bits, keep the native plan.
 */
static int
gpuops_variance_kind(const char *name, Oid argtype)
{
	if (argtype != INT2OID && argtype != INT4OID &&
		argtype != FLOAT4OID && argtype != FLOAT8OID)
		return -1;
	if (strcmp(name, "var_pop") == 0)
		return GPUOPS_AGG_VAR_POP;
	if (strcmp(name, "var_samp") == 0 || strcmp(name, "variance") == 0)
		return GPUOPS_AGG_VAR_SAMP;
	if (strcmp(name, "stddev_pop") == 0)
		return GPUOPS_AGG_STDDEV_POP;
	if (strcmp(name, "stddev_samp") == 0 || strcmp(name, "stddev") == 0)
		return GPUOPS_AGG_STDDEV_SAMP;
	return -1;
}

/* The result type PostgreSQL gives kind over argtype. */
static Oid
gpuops_agg_result_type(GpuopsAggKind kind, Oid argtype)
{
	switch (kind)
	{
		case GPUOPS_AGG_COUNT_STAR:
		case GPUOPS_AGG_COUNT:
		case GPUOPS_AGG_COUNT_DISTINCT:
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
		case GPUOPS_AGG_MIN_KEY:
		case GPUOPS_AGG_MAX_KEY:
			return TEXTOID;
		case GPUOPS_AGG_VAR_POP:
		case GPUOPS_AGG_VAR_SAMP:
		case GPUOPS_AGG_STDDEV_POP:
		case GPUOPS_AGG_STDDEV_SAMP:
			return (argtype == FLOAT4OID || argtype == FLOAT8OID) ?
				FLOAT8OID : NUMERICOID;
		case GPUOPS_AGG_FLOAT_STATE:
			return CSTRINGOID;
	}
	return InvalidOid;
}

static bool gpuops_agg_key_source_ok(Node *e, Index relid);

/*
 * count(DISTINCT x): true (with *kind, *argattno, *argtype) when x can be a
 * grouping key.  The node groups by the query's keys and x, and counts each
 * group's key groups whose x is not NULL (agg_distinct.c).
 */
static bool
gpuops_agg_distinct_ok(Aggref *aggref, const char *name, Index relid,
					   GpuopsAggKind *kind, AttrNumber *argattno, Oid *argtype)
{
	Node	   *arg;

	if (aggref->aggstar || strcmp(name, "count") != 0 ||
		list_length(aggref->args) != 1 || aggref->aggtype != INT8OID)
		return false;
	arg = (Node *) linitial_node(TargetEntry, aggref->args)->expr;
	/* (a label CASE is a grouping key only: agg_label.c) */
	if (gpuops_label_case(arg, NULL, NULL) || !gpuops_agg_key_source_ok(arg, relid))
		return false;
	*kind = GPUOPS_AGG_COUNT_DISTINCT;
	*argattno = IsA(arg, Var) ? ((Var *) arg)->varattno : GPUOPS_AGG_ARG_EXPR;
	*argtype = exprType(arg);
	return true;
}

/*
 * The text column x of min(x) or max(x) over text or varchar (under its
 * RelabelType to text), or NULL for another aggregate.
 */
static Node *
gpuops_agg_text_minmax_arg(Aggref *aggref)
{
	Node	   *arg;

	if ((aggref->aggfnoid != F_MIN_TEXT && aggref->aggfnoid != F_MAX_TEXT) ||
		aggref->aggdistinct != NIL || list_length(aggref->args) != 1)
		return NULL;
	arg = (Node *) linitial_node(TargetEntry, aggref->args)->expr;
	while (IsA(arg, RelabelType))
		arg = (Node *) ((RelabelType *) arg)->arg;
	return arg;
}

/*
 * min(x) or max(x) of a text or varchar column x: true (with *kind,
 * *argattno, *argtype) when x can be a grouping key and the aggregate's
 * collation is deterministic.  As for count(DISTINCT x), the node groups by
 * the query's keys and x, and keeps the least or greatest x of each group's
 * key groups by the collation (agg_distinct.c).
 */
static bool
gpuops_agg_text_minmax_ok(Aggref *aggref, Index relid, GpuopsAggKind *kind,
						  AttrNumber *argattno, Oid *argtype)
{
	Node	   *x = gpuops_agg_text_minmax_arg(aggref);

	if (x == NULL || !gpuops_plain_column(x, relid) ||
		!gpuops_agg_text_key(exprType(x), exprCollation(x)) ||
		!OidIsValid(aggref->inputcollid) ||
		!get_collation_isdeterministic(aggref->inputcollid) ||
		!gpuops_agg_key_source_ok(x, relid))
		return false;
	*kind = aggref->aggfnoid == F_MIN_TEXT ? GPUOPS_AGG_MIN_KEY : GPUOPS_AGG_MAX_KEY;
	*argattno = ((Var *) x)->varattno;
	*argtype = exprType(x);
	return aggref->aggtype == TEXTOID;
}

/*
 * Citus's worker_partial_agg(aggregate, x), which a worker gives the
 * coordinator to combine: true (kind GPUOPS_AGG_FLOAT_STATE) when the
 * aggregate's state is float8_accum's or float4_accum's {N, Sx, Sxx} (the
 * variances and standard deviations, avg, of floats) and x, of the
 * aggregate's argument type, a float column or device expression.
 */
static bool
gpuops_agg_partial_ok(Aggref *aggref, Index relid, GpuopsAggKind *kind,
					  AttrNumber *argattno, Oid *argtype)
{
	Node	   *inner;
	Node	   *x;
	HeapTuple	tup;
	Oid			transfn;
	Oid		   *argtypes;
	int			nargs;

	if (list_length(aggref->args) != 2 || aggref->aggtype != CSTRINGOID ||
		aggref->aggstar)
		return false;
	inner = (Node *) linitial_node(TargetEntry, aggref->args)->expr;
	while (IsA(inner, RelabelType))
		inner = (Node *) ((RelabelType *) inner)->arg;
	if (!IsA(inner, Const) || ((Const *) inner)->constisnull ||
		(((Const *) inner)->consttype != OIDOID &&
		 ((Const *) inner)->consttype != REGPROCEDUREOID))
		return false;
	tup = SearchSysCache1(AGGFNOID, ((Const *) inner)->constvalue);
	if (!HeapTupleIsValid(tup))
		return false;
	transfn = ((Form_pg_aggregate) GETSTRUCT(tup))->aggtransfn;
	ReleaseSysCache(tup);
	if (transfn != F_FLOAT8_ACCUM && transfn != F_FLOAT4_ACCUM)
		return false;
	x = (Node *) llast_node(TargetEntry, aggref->args)->expr;
	(void) get_func_signature(DatumGetObjectId(((Const *) inner)->constvalue),
							  &argtypes, &nargs);
	if (nargs != 1 || argtypes[0] != exprType(x) ||
		(exprType(x) != FLOAT4OID && exprType(x) != FLOAT8OID))
		return false;
	if (gpuops_plain_column(x, relid))
		*argattno = ((Var *) x)->varattno;
	else if (gpuops_expr_on_device((Expr *) x, relid))
		*argattno = GPUOPS_AGG_ARG_EXPR;
	else
		return false;
	*argtype = exprType(x);
	*kind = GPUOPS_AGG_FLOAT_STATE;
	return true;
}

/*
 * Classify an Aggref: true (with *kind, *argattno, *argtype) if the node
 * computes it over a plain column of relid (*argattno its attno) or an
 * expression the device evaluates (GPUOPS_AGG_ARG_EXPR) exactly as
 * PostgreSQL does.
 */
bool
gpuops_agg_supported(Aggref *aggref, Index relid, GpuopsAggKind *kind,
					 AttrNumber *argattno, Oid *argtype)
{
	char	   *name;
	TargetEntry *tle;
	gpo_type	phys;

	if (aggref->aggorder != NIL ||
		(aggref->aggfilter != NULL &&
		 !gpuops_qual_on_device(aggref->aggfilter, relid) &&
		 !(exprType((Node *) aggref->aggfilter) == BOOLOID &&
		   gpuops_expr_on_device(aggref->aggfilter, relid))) ||
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
	if (aggref->aggdistinct != NIL)
		return gpuops_agg_distinct_ok(aggref, name, relid, kind, argattno,
									  argtype);
	if (strcmp(name, "worker_partial_agg") == 0)
		return gpuops_agg_partial_ok(aggref, relid, kind, argattno, argtype);
	if (gpuops_agg_text_minmax_arg(aggref) != NULL)
		return gpuops_agg_text_minmax_ok(aggref, relid, kind, argattno, argtype);
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
	if (gpuops_plain_column((Node *) tle->expr, relid))
		*argattno = ((Var *) tle->expr)->varattno;
	else if (gpuops_expr_on_device(tle->expr, relid))
		*argattno = GPUOPS_AGG_ARG_EXPR;
	else
		return false;
	*argtype = exprType((Node *) tle->expr);
	/* count of a column of any type: the reader gives its NULLs alone */
	if (strcmp(name, "count") == 0 && *argattno > 0)
	{
		*kind = GPUOPS_AGG_COUNT;
		return aggref->aggtype == INT8OID;
	}
	if (!gpuops_scan_col_type_mod(*argtype,
								  gpuops_expr_typmod(tle->expr, relid), &phys))
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
	/* bool_and and every are the least of 0/1, bool_or the largest */
	else if ((strcmp(name, "bool_and") == 0 || strcmp(name, "every") == 0) &&
			 *argtype == BOOLOID)
		*kind = GPUOPS_AGG_MIN;
	else if (strcmp(name, "bool_or") == 0 && *argtype == BOOLOID)
		*kind = GPUOPS_AGG_MAX;
	else if (gpuops_variance_kind(name, *argtype) >= 0)
		*kind = (GpuopsAggKind) gpuops_variance_kind(name, *argtype);
	else
		return false;
	/* a catalog with other overloads than expected keeps the native plan */
	return aggref->aggtype == gpuops_agg_result_type(*kind, *argtype);
}

/* Walker: true if the tree holds a subplan, an executor Param or a PHV. */
bool
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
	bool		device;			/* the device can run it */
} GpuopsQualItem;

/*
 * True if a WHERE clause that is no device mask (agg_quals.c) can run on
 * the device as a bool expression over relid's columns: one that no row
 * can make raise an error (agg_safe.c), since the device evaluates it on
 * rows that the table's other clauses remove, and before them (TPC-H
 * Q12's l_commitdate < l_receiptdate).
 */
static bool
gpuops_qual_expr_on_device(Expr *clause, Index relid)
{
	return exprType((Node *) clause) == BOOLOID &&
		gpuops_expr_cannot_fail((Node *) clause) &&
		!contain_volatile_functions((Node *) clause) &&
		gpuops_expr_on_device(clause, relid);
}

/*
 * Split the table's restriction clauses into device and CPU clauses; false
 * if some clause keeps the whole query native.  The clauses are put in the
 * order a scan would evaluate them (createplan.c's order_qual_clauses:
 * security level first, then cost, stable), so security barrier quals run
 * before any user clause.  The CPU clauses run first, on every row, so a
 * device clause that the scan would evaluate before a CPU clause that can
 * fail becomes a CPU clause too: WHERE x <> 0 AND 100 / x > 1 raises no
 * error, as in PostgreSQL.
 */
static bool
gpuops_agg_split_quals(PlannerInfo *root, RelOptInfo *rel,
					   List **device_quals, List **cpu_quals)
{
	ListCell   *lc;
	bool		rls = false;
	GpuopsQualItem *items;
	int			n = 0;
	int			last_failing = -1;
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

		cost_qual_eval_node(&qcost, (Node *) ri->clause, root);
		item.clause = ri->clause;
		item.security_level = ri->security_level;
		item.cost = qcost.per_tuple;
		item.device = !rls && !ri->pseudoconstant &&
			(gpuops_qual_on_device(ri->clause, rel->relid) ||
			 gpuops_qual_expr_on_device(ri->clause, rel->relid));
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
		if (!items[i].device &&
			!gpuops_expr_cannot_fail((Node *) items[i].clause))
			last_failing = i;
	for (i = 0; i < n; i++)
	{
		if (items[i].device && i > last_failing)
			*device_quals = lappend(*device_quals, items[i].clause);
		else
			*cpu_quals = lappend(*cpu_quals, items[i].clause);
	}
	return true;
}

/*
 * True if grouping key e can be the node's: a plain column of relid of a
 * key type, or an expression the device evaluates.
 */
static bool
gpuops_agg_key_source_ok(Node *e, Index relid)
{
	if (gpuops_plain_column(e, relid))
		return gpuops_agg_key_ok(e);
	if (gpuops_label_case(e, NULL, NULL))
		return gpuops_expr_on_device((Expr *) gpuops_label_codes(e), relid);
	return gpuops_expr_on_device((Expr *) e, relid);
}

/* What the output walker knows and collects. */
typedef struct GpuopsOutputCheck
{
	List	   *keys;
	Index		relid;
	AttrNumber	max_attr;		/* relid's last attribute */
	List	   *aggrefs;		/* the aggregates met */
} GpuopsOutputCheck;

/*
 * Walker over the grouped target and HAVING: true (stop) at what the node
 * can't give: a column outside the keys and the aggregates, a window
 * function, a placeholder, an aggregate it doesn't compute.  A grouping
 * key, however deep, is a value the node gives; so is a supported Aggref,
 * which is collected.
 */
static bool
gpuops_agg_output_walker(Node *node, GpuopsOutputCheck *oc)
{
	if (node == NULL)
		return false;
	if (list_member(oc->keys, node))
		return false;
	if (IsA(node, Aggref))
	{
		GpuopsAggKind kind;
		AttrNumber	attno;
		Oid			argtype;

		if (!gpuops_agg_supported((Aggref *) node, oc->relid, &kind, &attno,
								  &argtype) ||
			gpuops_like_past((Node *) ((Aggref *) node)->aggfilter, oc->relid,
							 oc->max_attr))
			return true;
		oc->aggrefs = list_append_unique(oc->aggrefs, node);
		return false;
	}
	if (IsA(node, Var) || IsA(node, WindowFunc) ||
		IsA(node, PlaceHolderVar) || IsA(node, GroupingFunc))
		return true;
	return expression_tree_walker(node, gpuops_agg_output_walker, oc);
}

/*
 * Collect the grouping keys (plain columns of relid, or expressions the
 * device evaluates) and the aggregates of the grouped target and HAVING
 * (tlist: the target before grouping, with the sort-group references);
 * false if the node can't compute them.
 */
bool
gpuops_agg_collect(PlannerInfo *root, Index relid, List *target, Node *having,
				   List *tlist, List **keys, List **aggrefs)
{
	List	   *group_exprs;
	GpuopsOutputCheck oc;
	ListCell   *lc;
	List	   *xs;

	*keys = NIL;
	*aggrefs = NIL;
	group_exprs = get_sortgrouplist_exprs(root->parse->groupClause, tlist);
	foreach(lc, group_exprs)
	{
		Node	   *e = (Node *) lfirst(lc);

		/* (a function of one text column: agg_mapped.c) */
		if (!gpuops_agg_key_source_ok(e, relid) &&
			gpuops_mapped_source(e, relid) == NULL)
			return false;
		*keys = list_append_unique(*keys, e);
	}
	if (list_length(*keys) > GPUOPS_AGG_MAX_KEYS)
		return false;

	memset(&oc, 0, sizeof(oc));
	oc.keys = *keys;
	oc.relid = relid;
	oc.max_attr = root->simple_rel_array[relid]->max_attr;
	if (gpuops_agg_output_walker((Node *) target, &oc) ||
		gpuops_agg_output_walker(having, &oc))
		return false;
	*aggrefs = oc.aggrefs;
	/*
	 * count(DISTINCT x), min(x), max(x) of text: each x one more key, the
	 * DISTINCT's first (one x for all of them: agg_distinct.c counts its
	 * changes in key order)
	 */
	xs = gpuops_agg_fold_args(*aggrefs);
	foreach(lc, *aggrefs)
	{
		Aggref	   *a = lfirst_node(Aggref, lc);
		Node	   *arg = gpuops_agg_fold_arg(a);

		if (arg == NULL)
			continue;
		if (a->aggdistinct != NIL && !equal(arg, linitial(xs)))
			return false;
		/* min(k) of a text key k: the key itself (its strings not kept twice) */
		if (a->aggdistinct == NIL && list_member(*keys, arg))
			return false;
	}
	if (list_length(*keys) + list_length(xs) > GPUOPS_AGG_MAX_KEYS ||
		!gpuops_label_sources_ok(*keys, xs))
		return false;
	return true;
}

/*
 * The engine's extra key x of aggregate a: the argument of count(DISTINCT
 * x), the text column of min(x) or max(x); else NULL.
 */
Node *
gpuops_agg_fold_arg(Aggref *a)
{
	if (a->aggdistinct != NIL)
		return (Node *) linitial_node(TargetEntry, a->args)->expr;
	return gpuops_agg_text_minmax_arg(a);
}

/*
 * The aggregates' extra keys (the x of count(DISTINCT x), min(x) or max(x)
 * of text), each once: count(DISTINCT x)'s first, then the others as the
 * aggregates name them; NIL if none.
 */
List *
gpuops_agg_fold_args(List *aggrefs)
{
	List	   *xs = NIL;
	ListCell   *lc;
	int			pass;

	for (pass = 0; pass < 2; pass++)
		foreach(lc, aggrefs)
		{
			Aggref	   *a = lfirst_node(Aggref, lc);
			Node	   *x = gpuops_agg_fold_arg(a);

			if (x != NULL && (a->aggdistinct != NIL) == (pass == 0) &&
				!list_member(xs, x))
				xs = lappend(xs, x);
		}
	return xs;
}

/* The index of aggregate a's extra key among gpuops_agg_fold_args(aggrefs). */
int
gpuops_agg_fold_index(List *aggrefs, Aggref *a)
{
	Node	   *x = gpuops_agg_fold_arg(a);
	ListCell   *lc;

	foreach(lc, gpuops_agg_fold_args(aggrefs))
		if (equal(lfirst(lc), x))
			return foreach_current_index(lc);
	elog(ERROR, "GpuOpsAgg: an aggregate's extra key is not among the plan's");
	return -1;
}

/*
 * Adds the tables under rel (rel itself, or every partition left after
 * pruning, recursively) to input, with the keys and aggregates of the top
 * relation top translated to each table's columns; false if some table
 * can't be read by the node.
 */
bool
gpuops_agg_add_tables(PlannerInfo *root, RelOptInfo *top, RelOptInfo *rel,
					  List *keys, List *aggrefs, GpuopsAggInput *input)
{
	RangeTblEntry *rte = planner_rt_fetch(rel->relid, root);
	List	   *device_quals;
	List	   *cpu_quals;
	List	   *entry;
	List	   *checks = input->checks;
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
		checks = (List *) adjust_appendrel_attrs_multilevel(root, (Node *) checks,
															child, parent);
	}
	/* the translation of a key is a key of the partition; check anyway */
	foreach(lc, list_concat_copy(keys, checks))
		if (!gpuops_agg_key_source_ok((Node *) lfirst(lc), rel->relid))
			return false;
	/* a label key: its CASE over codes (agg_label.c) */
	keys = gpuops_label_keys_codes(keys);

	entry = list_make5(makeInteger(rel->relid), makeInteger((int) rte->relid),
					   keys, aggrefs, device_quals);
	entry = lappend(entry, cpu_quals);
	entry = lappend(entry, checks);
	input->tables = lappend(input->tables, entry);
	input->pages += rel->pages;
	input->tuples += Max(rel->tuples, rel->rows);
	if (list_length(input->tables) == 1)
		input->ndevice_quals = list_length(device_quals);
	input->cpu_quals = list_concat(input->cpu_quals, cpu_quals);
	return true;
}
