/*
 * agg_mapped.c
 *	  Mapped keys: a grouping key that is a function of one text column
 *	  and constants alone, with a text or varchar result, as dashboards cut
 *	  a URL to its host (ClickBench's `regexp_replace(Referer,
 *	  '^https?://(?:www\.)?([^/]+)/.*$', '\1')`) or fold its case
 *	  (`lower(url)`): the engine groups by the column (its dictionary
 *	  codes), and the node evaluates the function once per distinct value
 *	  of the column among the groups, then groups those again by its
 *	  result (exec/agg_mapped.c).  Native evaluates it once a row.
 *
 * Errors stay PostgreSQL's: the function is evaluated for the values of
 * the rows that reached the grouping, each value once, so a value that
 * makes it fail fails here as it fails there (the same SQLSTATE; which
 * row's error PostgreSQL reports first is not this one's concern, the
 * error is the same for equal values of an immutable or stable function).
 * A volatile function keeps the native plan.
 *
 * In the plan the key keeps its expression (PRIV_KEYS, the scan tuple, the
 * target list and HAVING above refer to it), the table entry's key is the
 * column (TAB_KEYS), and PRIV_MAPPED holds, per mapped key, its position
 * and the expression over INDEX_VAR attribute 1 (the column's value).
 */
#include "aggnode/plan/agg_plan_int.h"

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"

/* Walker: true (stop) at a Param (an initplan's or a statement's value). */
static bool
gpuops_mapped_param_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param))
		return true;
	return expression_tree_walker(node, gpuops_mapped_param_walker, context);
}

/*
 * The column a mapped key e reads (see the file header), or NULL if e is
 * not one: a non-volatile expression of text or varchar under a
 * deterministic collation, not a plain column or a label key, with no
 * Param (the node evaluates it after the scan, with no initplan's value
 * at hand), whose one column is a text or varchar column of relid read as
 * dictionary codes (not a short text key).
 */
Var *
gpuops_mapped_source(Node *e, Index relid)
{
	List	   *vars;
	Var		   *v;
	int			i;

	if (e == NULL || IsA(e, Var) || IsA(e, RelabelType) ||
		(exprType(e) != TEXTOID && exprType(e) != VARCHAROID) ||
		!gpuops_agg_text_key(exprType(e), exprCollation(e)) ||
		gpuops_label_case(e, NULL, NULL) ||
		contain_volatile_functions(e) || contain_subplans(e) ||
		contain_agg_clause(e) || contain_window_function(e) ||
		gpuops_mapped_param_walker(e, NULL))
		return NULL;
	vars = pull_var_clause(e, PVC_RECURSE_PLACEHOLDERS);
	if (vars == NIL)
		return NULL;			/* a constant key: no column to group by */
	v = linitial_node(Var, vars);
	for (i = 1; i < list_length(vars); i++)
		if (!equal(list_nth(vars, i), v))
			return NULL;
	if (v->varno != (int) relid || v->varlevelsup != 0 || v->varattno <= 0 ||
		(v->vartype != TEXTOID && v->vartype != VARCHAROID) ||
		!gpuops_agg_text_key(v->vartype, v->varcollid) ||
		gpuops_agg_short_text_key(v->vartype, v->vartypmod, v->varcollid))
		return NULL;
	return v;
}

/*
 * The mapped keys among keys as (Integer position, key, column) lists,
 * NIL if none; *table_keys becomes keys with each mapped key's column in its
 * place (a column may then be several keys: they share its dictionary).
 * With count(DISTINCT x), min(x) or max(x) of text, x's extra key follows
 * (the groups are grouped again by all keys, x's included, before they
 * fold over x).
 */
void
gpuops_agg_map_keys(List *keys, Index relid, List **mapped, List **table_keys)
{
	ListCell   *lc;

	*mapped = NIL;
	*table_keys = NIL;
	foreach(lc, keys)
	{
		Node	   *k = (Node *) lfirst(lc);
		Var		   *v = gpuops_mapped_source(k, relid);

		if (v == NULL)
		{
			*table_keys = lappend(*table_keys, k);
			continue;
		}
		*mapped = lappend(*mapped,
						  list_make3(makeInteger(foreach_current_index(lc)), k, v));
		*table_keys = lappend(*table_keys, v);
	}
}

/* Mutator: the mapped key's column as INDEX_VAR attribute 1. */
static Node *
gpuops_mapped_mutator(Node *node, void *context)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		return (Node *) makeVar(INDEX_VAR, 1, v->vartype, v->vartypmod,
								v->varcollid, 0);
	}
	return expression_tree_mutator(node, gpuops_mapped_mutator, context);
}

/*
 * The plan's PRIV_MAPPED: per mapped key (Integer position, expression
 * over INDEX_VAR attribute 1, its column's type, typmod and collation).
 */
List *
gpuops_agg_mapped_plan(List *mapped)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, mapped)
	{
		List	   *m = (List *) lfirst(lc);
		Var		   *v = lthird_node(Var, m);

		out = lappend(out,
					  list_make5(linitial(m),
								 gpuops_mapped_mutator(lsecond(m), NULL),
								 makeInteger((int) v->vartype),
								 makeInteger((int) v->vartypmod),
								 makeInteger((int) v->varcollid)));
	}
	return out;
}
