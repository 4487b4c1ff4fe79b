/*
 * agg_derived.c
 *	  Grouping keys that other keys determine, as ClickBench's
 *	  `GROUP BY ClientIP, ClientIP - 1, ClientIP - 2, ClientIP - 3`: the
 *	  engine groups by the other keys alone, and the node computes such a
 *	  key once a group as it hands the group out.
 *
 * A key is derived when it is an expression (not a label CASE) whose
 * columns are all plain keys of integer-like types (whose equal values are
 * one value, unlike -0.0 and 0.0 or strings under a collation), with no
 * volatile function: equal source keys give it one value, so it adds no
 * group, and packing or sorting it per row (its range unknown) is work
 * thrown away: q36 over 1M rows on 2 cores spent a quarter of its time
 * ranking the three derived keys and was slower than native under pgbench.
 *
 * PostgreSQL evaluates a key for every row that reaches the grouping, and
 * raises its error (`ClientIP - 3` overflows below -2147483645) even for a
 * group that HAVING or a LIMIT never shows.  So a derived key that some
 * value can make fail is still evaluated for every row, as a column that
 * no grouping reads (the table entry's TAB_CHECKS); computed again per
 * group, it can then fail for no group.
 *
 * In the plan the scan tuple holds the derived keys after the sums split
 * by scale, as the query writes them (the target list, HAVING and the sorts
 * above refer to them), and PRIV_DERIVED holds each over the scan tuple's
 * keys (INDEX_VAR Vars), which agg_exec.c evaluates per group.
 */
#include "aggnode/plan/agg_plan_int.h"

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"

/* True if a column of type typid is one value for every equal value. */
static bool
gpuops_derived_source_type(Oid typid)
{
	switch (typid)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case BOOLOID:
			return true;
		default:
			return false;
	}
}

/* True if key e is determined by plain integer-like keys among keys. */
static bool
gpuops_derived_key(Node *e, List *keys)
{
	List	   *vars;
	ListCell   *lc;

	if (IsA(e, Var) || gpuops_label_case(e, NULL, NULL) ||
		contain_volatile_functions(e))
		return false;
	vars = pull_var_clause(e, 0);
	if (vars == NIL)
		return false;			/* a constant key: one group anyway */
	foreach(lc, vars)
	{
		Var		   *v = lfirst_node(Var, lc);

		if (v->varlevelsup != 0 || v->varattno <= 0 ||
			!gpuops_derived_source_type(v->vartype) || !list_member(keys, v))
			return false;
	}
	return true;
}

/*
 * Takes the derived keys out of *keys (the others keep their order) and
 * returns them; NIL if none.  The engine's extra keys of count(DISTINCT x)
 * and text min/max follow the keys left, and the groups fold over those
 * alone (agg_distinct.c) before the derived keys are computed.
 */
List *
gpuops_agg_derive_keys(List **keys)
{
	List	   *plain = NIL;
	List	   *derived = NIL;
	ListCell   *lc;

	foreach(lc, *keys)
		if (gpuops_derived_key((Node *) lfirst(lc), *keys))
			derived = lappend(derived, lfirst(lc));
		else
			plain = lappend(plain, lfirst(lc));
	if (derived != NIL)
		*keys = plain;
	return derived;
}

/* Of the derived keys, those some row can make fail: each row evaluates them. */
List *
gpuops_agg_derived_checks(List *derived)
{
	List	   *checks = NIL;
	ListCell   *lc;

	foreach(lc, derived)
		if (!gpuops_expr_cannot_fail((Node *) lfirst(lc)))
			checks = lappend(checks, lfirst(lc));
	return checks;
}

/*
 * Mutator: a Var of a key as the scan tuple's INDEX_VAR column of that key.
 * (setrefs.c would do this for custom_exprs, but it would also match the
 * whole derived key to its own scan-tuple entry.)
 */
static Node *
gpuops_derived_scan_mutator(Node *node, List *keys)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;
		ListCell   *lc;

		foreach(lc, keys)
			if (equal(lfirst(lc), v))
				return (Node *) makeVar(INDEX_VAR,
										(AttrNumber) (foreach_current_index(lc) + 1),
										v->vartype, v->vartypmod, v->varcollid, 0);
		elog(ERROR, "GpuOpsAgg: a derived key's column is not a key");
	}
	return expression_tree_mutator(node, gpuops_derived_scan_mutator,
								   (void *) keys);
}

/* The plan's PRIV_DERIVED: each derived key over the scan tuple's keys. */
List *
gpuops_agg_derived_plan(List *derived, List *keys)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, derived)
		out = lappend(out, gpuops_derived_scan_mutator((Node *) lfirst(lc),
													   keys));
	return out;
}
