/*
 * agg_spec.c
 *	  The GpuOpsAgg plan's custom_private decoded for the executor: the
 *	  aggregates and their value columns (one per distinct argument and
 *	  FILTER, plus the squares of a variance's integer argument), and for
 *	  each table read its key and value attribute numbers (or expressions),
 *	  its device and CPU clauses and its FILTER clauses.
 */
#include "aggnode/gpuops_agg.h"

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/fmgroids.h"

/* Mutator: every Var of range-table index varnos[0] gets varnos[1]. */
static Node *
gpuops_set_varno_mutator(Node *node, void *context)
{
	int		   *varnos = (int *) context;

	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0 &&
		((Var *) node)->varno == varnos[0])
	{
		Var		   *v = (Var *) copyObject(node);

		v->varno = varnos[1];
		v->varnosyn = varnos[1];
		return (Node *) v;
	}
	return expression_tree_mutator(node, gpuops_set_varno_mutator, context);
}

/* A copy of node whose Vars of range-table index from refer to to. */
Node *
gpuops_agg_set_varno(Node *node, Index from, Index to)
{
	int			varnos[2];

	varnos[0] = (int) from;
	varnos[1] = (int) to;
	return gpuops_set_varno_mutator(node, varnos);
}

/* A copy of a plan expression with its operators' function OIDs filled in. */
static Expr *
gpuops_spec_expr(Node *e)
{
	Expr	   *copy = (Expr *) copyObject(e);

	fix_opfuncids((Node *) copy);
	return copy;
}

/*
 * The square of an int2/int4 expression as an int8 expression the device
 * evaluates (int8mul of two int48/int28 casts; it never overflows): the
 * values whose exact sum var_samp and friends of integers need.
 */
static Node *
gpuops_spec_square(Node *arg)
{
	Oid			cast = exprType(arg) == INT2OID ? F_INT8_INT2 : F_INT8_INT4;
	Node	   *wide;

	wide = (Node *) makeFuncExpr(cast, INT8OID, list_make1(copyObject(arg)),
								 InvalidOid, InvalidOid, COERCE_IMPLICIT_CAST);
	return (Node *) makeFuncExpr(F_INT8MUL, INT8OID,
								 list_make2(wide, copyObject(wide)),
								 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
}

/*
 * The aggregates' extra keys (gpuops_agg_fold_args: count(DISTINCT x)'s x
 * first, then the text columns of min and max) become the engine's last
 * keys, after the query's.
 */
static void
gpuops_spec_fold_keys(GpuopsAggSpec *spec, List *aggrefs, Index relid)
{
	ListCell   *lc;

	foreach(lc, gpuops_agg_fold_args(aggrefs))
	{
		Expr	   *x = (Expr *) lfirst(lc);
		int			k = spec->nkeys;

		if (k >= GPUOPS_AGG_MAX_KEYS)
			elog(ERROR, "GpuOpsAgg: too many keys with count(DISTINCT), min or max of text");
		spec->key_types[k] = exprType((Node *) x);
		spec->key_typmods[k] = gpuops_expr_typmod(x, relid);
		spec->key_collations[k] = exprCollation((Node *) x);
		spec->nkeys = k + 1;
	}
}

/*
 * The value column of (src, FILTER f) in spec, added with type typid when
 * there is none yet; val_srcs holds each column's source.
 */
static int
gpuops_spec_val_col(GpuopsAggSpec *spec, Node **val_srcs, Node *src,
					Oid typid, int f)
{
	int			v;

	for (v = 0; v < spec->nvals; v++)
		if (equal(val_srcs[v], src) && spec->val_filters[v] == f)
			return v;
	val_srcs[v] = src;
	spec->val_types[v] = typid;
	spec->val_filters[v] = f;
	spec->nvals++;
	return v;
}

/*
 * Decode a plan's custom_private into spec.  The quals and Vars kept there
 * were not seen by set_plan_references, so they carry the range-table
 * indexes of planning time (GpuopsAggTable.rti); only their attribute
 * numbers are used, and their operators' function OIDs are filled in here.
 */
void
gpuops_agg_spec_from_plan(CustomScan *cscan, GpuopsAggSpec *spec)
{
	List	   *priv = cscan->custom_private;
	List	   *keys = (List *) list_nth(priv, PRIV_KEYS);
	List	   *aggrefs = (List *) list_nth(priv, PRIV_AGGREFS);
	List	   *tables = (List *) list_nth(priv, PRIV_TABLES);
	List	   *classes = (List *) list_nth(priv, PRIV_AGG_CLASSES);
	Index		relid;
	Node	  **val_srcs;
	List	   *filters = NIL;
	ListCell   *lc;
	int			i;
	int			t;

	memset(spec, 0, sizeof(*spec));
	relid = (Index) intVal(list_nth(priv, PRIV_RELID));
	spec->nkeys = list_length(keys);
	i = 0;
	foreach(lc, keys)
	{
		spec->key_types[i] = exprType((Node *) lfirst(lc));
		spec->key_typmods[i] = gpuops_expr_typmod((Expr *) lfirst(lc), relid);
		spec->key_collations[i] = exprCollation((Node *) lfirst(lc));
		if (!gpuops_label_case((Node *) lfirst(lc), &spec->key_labels[i], NULL))
			spec->key_labels[i] = NIL;
		i++;
	}
	spec->nkeys_out = spec->nkeys;
	gpuops_spec_fold_keys(spec, aggrefs, relid);

	/*
	 * Value columns: one per distinct (argument, FILTER) pair.  count(*)
	 * FILTER (WHERE p) counts the rows of a column of no argument (attno 0)
	 * whose rows are valid where p holds.
	 */
	spec->naggs = list_length(aggrefs);
	spec->aggs = palloc0(sizeof(GpuopsAggCol) * Max(spec->naggs, 1));
	/* (at most two value columns per aggregate: a variance's squares) */
	spec->val_types = palloc0(sizeof(Oid) * 2 * Max(spec->naggs, 1));
	spec->val_filters = palloc0(sizeof(int) * 2 * Max(spec->naggs, 1));
	val_srcs = palloc0(sizeof(Node *) * 2 * Max(spec->naggs, 1));
	i = 0;
	foreach(lc, aggrefs)
	{
		Aggref	   *a = lfirst_node(Aggref, lc);
		List	   *cls = (List *) list_nth(classes, i);
		GpuopsAggCol *col = &spec->aggs[i++];
		Node	   *src = NULL;
		int			f = -1;

		col->kind = (GpuopsAggKind) linitial_int(cls);
		/* the value is the last argument (worker_partial_agg's second) */
		if (a->args != NIL)
			src = (Node *) llast_node(TargetEntry, a->args)->expr;
		col->argtype = (Oid) lthird_int(cls);
		col->argtypmod = src != NULL ? gpuops_expr_typmod((Expr *) src, relid) : -1;
		col->restype = a->aggtype;
		col->collation = a->inputcollid;
		col->valcol = -1;
		col->sqcol = -1;
		col->xkey = -1;
		if (a->aggfilter != NULL)
		{
			for (f = 0; f < list_length(filters); f++)
				if (equal(list_nth(filters, f), a->aggfilter))
					break;
			if (f == list_length(filters))
				filters = lappend(filters, a->aggfilter);
			if (col->kind == GPUOPS_AGG_COUNT_STAR)
			{
				col->kind = GPUOPS_AGG_COUNT;
				col->argtype = INT4OID;
				src = NULL;
			}
		}
		if (col->kind == GPUOPS_AGG_COUNT_STAR)
			continue;
		if (GPUOPS_AGG_IS_FOLDED(col->kind))
		{
			col->xkey = spec->nkeys_out + gpuops_agg_fold_index(aggrefs, a);
			/* with a FILTER, the rows that pass (as count(*) FILTER) */
			if (f >= 0)
				col->valcol = gpuops_spec_val_col(spec, val_srcs, NULL,
												  INT4OID, f);
			continue;
		}
		col->valcol = gpuops_spec_val_col(spec, val_srcs, src, col->argtype, f);
		if (GPUOPS_AGG_IS_VARIANCE(col->kind) && col->argtype != FLOAT4OID &&
			col->argtype != FLOAT8OID)
			col->sqcol = gpuops_spec_val_col(spec, val_srcs,
											 gpuops_spec_square(src), INT8OID, f);
	}
	spec->nfilters = list_length(filters);

	spec->partitioned = intVal(list_nth(priv, PRIV_INH)) != 0;
	spec->ntables = list_length(tables);
	spec->tables = palloc0(sizeof(GpuopsAggTable) * Max(spec->ntables, 1));
	t = 0;
	foreach(lc, tables)
	{
		List	   *entry = (List *) lfirst(lc);
		GpuopsAggTable *tab = &spec->tables[t++];
		ListCell   *lc2;
		int			a;

		tab->rti = intVal(list_nth(entry, TAB_RTI));
		tab->relid = (Oid) intVal(list_nth(entry, TAB_OID));
		i = 0;
		foreach(lc2, (List *) list_nth(entry, TAB_KEYS))
		{
			Node	   *k = (Node *) lfirst(lc2);

			if (IsA(k, Var))
				tab->key_attnos[i++] = ((Var *) k)->varattno;
			else
				tab->key_exprs[i++] = gpuops_spec_expr(k);
		}
		/* count(DISTINCT x), min(x), max(x): this table's x, after the keys */
		foreach(lc2, gpuops_agg_fold_args((List *) list_nth(entry, TAB_AGGREFS)))
		{
			Node	   *x = (Node *) lfirst(lc2);

			if (IsA(x, Var))
				tab->key_attnos[i++] = ((Var *) x)->varattno;
			else
				tab->key_exprs[i++] = gpuops_spec_expr(x);
		}
		Assert(i == spec->nkeys);
		tab->val_attnos = palloc0(sizeof(AttrNumber) * Max(spec->nvals, 1));
		tab->val_exprs = palloc0(sizeof(Expr *) * Max(spec->nvals, 1));
		tab->filter_quals = palloc0(sizeof(List *) * Max(spec->nfilters, 1));
		a = 0;
		foreach(lc2, (List *) list_nth(entry, TAB_AGGREFS))
		{
			Aggref	   *agg = lfirst_node(Aggref, lc2);
			GpuopsAggCol *col = &spec->aggs[a++];
			int			f;

			if (col->valcol < 0)
				continue;
			if (agg->args != NIL && val_srcs[col->valcol] != NULL)
			{
				Node	   *arg = (Node *) llast_node(TargetEntry, agg->args)->expr;

				if (IsA(arg, Var))
					tab->val_attnos[col->valcol] = ((Var *) arg)->varattno;
				else
					tab->val_exprs[col->valcol] = gpuops_spec_expr(arg);
				if (col->sqcol >= 0)
					tab->val_exprs[col->sqcol] =
						gpuops_spec_expr(gpuops_spec_square(arg));
			}
			f = spec->val_filters[col->valcol];
			if (f >= 0 && tab->filter_quals[f] == NIL)
			{
				tab->filter_quals[f] = list_make1(copyObject(agg->aggfilter));
				fix_opfuncids((Node *) tab->filter_quals[f]);
			}
		}
		tab->device_quals = copyObject((List *) list_nth(entry, TAB_DEVICE_QUALS));
		tab->cpu_quals = copyObject((List *) list_nth(entry, TAB_CPU_QUALS));
		tab->checks = copyObject((List *) list_nth(entry, TAB_CHECKS));
		fix_opfuncids((Node *) tab->checks);
		fix_opfuncids((Node *) tab->device_quals);
		fix_opfuncids((Node *) tab->cpu_quals);
	}
	/* a Float of an integral value reads back from text as an Integer */
	spec->est_groups = IsA(list_nth(priv, PRIV_EST_GROUPS), Integer) ?
		(double) intVal(list_nth(priv, PRIV_EST_GROUPS)) :
		floatVal(list_nth(priv, PRIV_EST_GROUPS));
	spec->planned_device = intVal(list_nth(priv, PRIV_DEVICE));
	spec->planned_strategy = intVal(list_nth(priv, PRIV_STRATEGY));
	spec->parallel_workers = list_length(priv) > PRIV_WORKERS ?
		intVal(list_nth(priv, PRIV_WORKERS)) : 0;
}
