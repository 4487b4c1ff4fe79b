/*
 * agg_label.c
 *	  Label keys: a grouping key that is a CASE or COALESCE of type text or
 *	  varchar whose every result is a constant or one text column of the
 *	  table, as dashboards bucket rows (CASE WHEN w < 10 THEN 'small' ...
 *	  ELSE 'large' END) or pick a column under a condition (ClickBench's
 *	  CASE WHEN searchengineid = 0 THEN referer ELSE '' END).
 *
 * The table's key becomes the same expression over int4 codes, which the
 * device evaluates as any integer key: each constant is its label's code
 * (the labels in first-seen order), the column is its dictionary codes.
 * The executor puts the labels into the key's dictionary in that order
 * before it reads (exec/agg_dict.c), and reads the column as codes of that
 * same dictionary (exec/agg_table.c), so a label and an equal string of the
 * column get one code, and the codes give the strings back.  Without a
 * column every process codes the labels alike, so a worker's codes are the
 * backend's; with one, a worker sends its strings as for a text key column
 * (agg_parallel_text.c).  Grouping by the code is grouping by the string
 * under a deterministic collation; short text keys (varchar(7) and
 * narrower) read their bytes, not codes, so they stay native.
 */
#include "aggnode/gpuops_agg.h"

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/selfuncs.h"

/* e without its relabelings. */
static Node *
gpuops_label_strip(Node *e)
{
	while (e != NULL && IsA(e, RelabelType))
		e = (Node *) ((RelabelType *) e)->arg;
	return e;
}

/*
 * True if e (under its relabelings) can be a label key's result: a text or
 * varchar constant or NULL, or a text or varchar column, the same as
 * *source if that is set (else it becomes *source), and not a short one
 * (whose clauses compare codes of its bytes, not of a dictionary).
 */
static bool
gpuops_label_result(Node *e, Var **source)
{
	e = gpuops_label_strip(e);
	if (e != NULL && IsA(e, Const))
		return ((Const *) e)->constisnull ||
			((Const *) e)->consttype == TEXTOID ||
			((Const *) e)->consttype == VARCHAROID;
	if (e == NULL || !IsA(e, Var) || ((Var *) e)->varlevelsup != 0 ||
		((Var *) e)->varattno <= 0 ||
		(((Var *) e)->vartype != TEXTOID && ((Var *) e)->vartype != VARCHAROID) ||
		gpuops_agg_short_text_key(((Var *) e)->vartype, ((Var *) e)->vartypmod,
								  ((Var *) e)->varcollid))
		return false;
	if (*source == NULL)
		*source = (Var *) e;
	return (*source)->varno == ((Var *) e)->varno &&
		(*source)->varattno == ((Var *) e)->varattno;
}

/* The results of label key candidate e: its THENs and ELSE, or its arguments. */
static List *
gpuops_label_results(Node *e)
{
	List	   *out = NIL;
	ListCell   *lc;

	if (IsA(e, CoalesceExpr))
		return ((CoalesceExpr *) e)->args;
	foreach(lc, ((CaseExpr *) e)->args)
		out = lappend(out, lfirst_node(CaseWhen, lc)->result);
	/* (a CASE without ELSE has a NULL constant here) */
	return lappend(out, ((CaseExpr *) e)->defresult);
}

/* The code of the string of constant c (not NULL) in *labels, appended if new. */
static int
gpuops_label_code(Const *c, List **labels)
{
	char	   *s = TextDatumGetCString(c->constvalue);
	int			i = 0;
	ListCell   *lc;

	foreach(lc, *labels)
	{
		if (strcmp(strVal(lfirst(lc)), s) == 0)
			return i;
		i++;
	}
	*labels = lappend(*labels, makeString(s));
	return i;
}

/*
 * True if e is a label key (see the file header).  *labels, if labels is
 * not NULL, gets its distinct labels (String nodes) in code order: the
 * results' constants in order; *source, if source is not NULL, its column
 * (NULL if none).
 */
bool
gpuops_label_case(Node *e, List **labels, Var **source)
{
	List	   *found = NIL;
	Var		   *src = NULL;
	ListCell   *lc;
	Oid			typid;

	if (e == NULL)
		return false;
	/* the key's type is the outer one: CASE ... END::text */
	typid = exprType(e);
	if ((typid != TEXTOID && typid != VARCHAROID) ||
		!gpuops_agg_text_key(typid, exprCollation(e)) ||
		gpuops_agg_short_text_key(typid, exprTypmod(e), exprCollation(e)))
		return false;
	e = gpuops_label_strip(e);
	if (!IsA(e, CaseExpr) && !IsA(e, CoalesceExpr))
		return false;
	if (exprType(e) != TEXTOID && exprType(e) != VARCHAROID)
		return false;
	foreach(lc, gpuops_label_results(e))
	{
		Node	   *r = gpuops_label_strip((Node *) lfirst(lc));

		if (!gpuops_label_result(r, &src))
			return false;
		if (labels != NULL && IsA(r, Const) && !((Const *) r)->constisnull)
			(void) gpuops_label_code((Const *) r, &found);
	}
	if (labels != NULL)
		*labels = found;
	if (source != NULL)
		*source = src;
	return true;
}

/* A label key's result as codes: a label's int4 code, NULL, or the column's codes. */
static Expr *
gpuops_label_code_of(Node *result, List **labels)
{
	Node	   *r = gpuops_label_strip(result);
	Var		   *v;

	if (IsA(r, Var))
	{
		/* the column, read as int4 codes (exec/agg_table.c) */
		v = (Var *) copyObject(r);
		v->vartype = INT4OID;
		v->vartypmod = -1;
		v->varcollid = InvalidOid;
		return (Expr *) v;
	}
	if (((Const *) r)->constisnull)
		return (Expr *) makeNullConst(INT4OID, -1, InvalidOid);
	return (Expr *) makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
							  Int32GetDatum(gpuops_label_code((Const *) r, labels)),
							  false, true);
}

/* Label key e (gpuops_label_case) as the same expression over int4 codes. */
Node *
gpuops_label_codes(Node *e)
{
	List	   *labels = NIL;
	ListCell   *lc;

	Assert(gpuops_label_case(e, NULL, NULL));
	e = gpuops_label_strip(e);
	if (IsA(e, CoalesceExpr))
	{
		CoalesceExpr *ce = (CoalesceExpr *) e;
		CoalesceExpr *codes = makeNode(CoalesceExpr);

		codes->coalescetype = INT4OID;
		codes->coalescecollid = InvalidOid;
		foreach(lc, ce->args)
			codes->args = lappend(codes->args,
								  gpuops_label_code_of((Node *) lfirst(lc), &labels));
		codes->location = ce->location;
		return (Node *) codes;
	}
	else
	{
		CaseExpr   *ce = (CaseExpr *) e;
		CaseExpr   *codes = makeNode(CaseExpr);

		codes->casetype = INT4OID;
		codes->casecollid = InvalidOid;
		codes->arg = copyObject(ce->arg);
		foreach(lc, ce->args)
		{
			CaseWhen   *w = lfirst_node(CaseWhen, lc);
			CaseWhen   *cw = makeNode(CaseWhen);

			cw->expr = copyObject(w->expr);
			cw->result = gpuops_label_code_of((Node *) w->result, &labels);
			cw->location = w->location;
			codes->args = lappend(codes->args, cw);
		}
		codes->defresult = gpuops_label_code_of((Node *) ce->defresult, &labels);
		codes->location = ce->location;
		return (Node *) codes;
	}
}

/*
 * The column whose codes a label key's codes expression (gpuops_label_codes)
 * takes as a result, or 0 if none.
 */
AttrNumber
gpuops_label_source(Node *codes)
{
	List	   *results;
	ListCell   *lc;

	if (codes == NULL || (!IsA(codes, CaseExpr) && !IsA(codes, CoalesceExpr)) ||
		exprType(codes) != INT4OID)
		return 0;
	results = gpuops_label_results(codes);
	foreach(lc, results)
		if (IsA(lfirst(lc), Var))
			return ((Var *) lfirst(lc))->varattno;
	return 0;
}

/*
 * True if label key e can be a star join's: constants over the fact
 * table's own columns (max_attr its last; a dimension's columns are
 * virtual columns past it).  A column among the results would be read as
 * codes of the key's dictionary, which a star join's keys do not do.
 */
bool
gpuops_label_star_ok(Node *e, AttrNumber max_attr)
{
	Var		   *src = NULL;
	ListCell   *lc;

	if (!gpuops_label_case(e, NULL, &src) || src != NULL)
		return false;
	foreach(lc, pull_var_clause(e, 0))
		if (((Var *) lfirst(lc))->varattno > max_attr)
			return false;
	return true;
}

/* keys with each label key as its expression over codes (a new list). */
List *
gpuops_label_keys_codes(List *keys)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, keys)
	{
		Node	   *k = (Node *) lfirst(lc);

		out = lappend(out, gpuops_label_case(k, NULL, NULL) ?
					  gpuops_label_codes(k) : k);
	}
	return out;
}

/*
 * True if the label keys among keys can be the node's beside keys and the
 * arguments args of min, max and count(DISTINCT): a column that a label
 * key takes is read as that key's codes, so it may be no other key's (a
 * plain key, another label key's column, an argument), each of which has a
 * dictionary of its own.
 */
bool
gpuops_label_sources_ok(List *keys, List *args)
{
	List	   *all = list_concat_copy(keys, args);
	ListCell   *lc;

	foreach(lc, keys)
	{
		Var		   *src = NULL;
		ListCell   *lc2;

		if (!gpuops_label_case((Node *) lfirst(lc), NULL, &src) || src == NULL)
			continue;
		foreach(lc2, all)
		{
			Node	   *o = gpuops_label_strip((Node *) lfirst(lc2));
			Var		   *osrc = NULL;

			if (lfirst(lc2) == lfirst(lc))
				continue;
			if ((IsA(o, Var) && ((Var *) o)->varattno == src->varattno) ||
				(gpuops_label_case((Node *) lfirst(lc2), NULL, &osrc) &&
				 osrc != NULL && osrc->varattno == src->varattno))
				return false;
		}
	}
	return true;
}

/*
 * The groups of keys over rows input rows: PostgreSQL's estimate for the
 * keys but the label keys (a label key's column in its place), times each
 * label key's labels and NULL, at most rows.  PostgreSQL knows no
 * statistics of a CASE, and takes a label key for as many groups as rows.
 */
double
gpuops_label_groups(PlannerInfo *root, List *keys, double rows)
{
	List	   *others = NIL;
	double		labels = 1;
	bool		any = false;
	double		groups;
	ListCell   *lc;

	foreach(lc, keys)
	{
		List	   *ls = NIL;
		Var		   *src = NULL;

		if (gpuops_label_case((Node *) lfirst(lc), &ls, &src))
		{
			any = true;
			labels *= list_length(ls) + 1;
			if (src != NULL)
				others = lappend(others, src);
		}
		else
			others = lappend(others, lfirst(lc));
	}
	if (!any)
		return estimate_num_groups(root, keys, rows, NULL, NULL);
	groups = others == NIL ? 1 :
		estimate_num_groups(root, others, rows, NULL, NULL);
	return Max(Min(groups * labels, Max(rows, 1)), 1);
}
