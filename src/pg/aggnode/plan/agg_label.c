/*
 * agg_label.c
 *	  Label keys: a grouping key that is a CASE of type text or varchar
 *	  whose every result is a constant, as dashboards bucket rows
 *	  (CASE WHEN w < 10 THEN 'small' WHEN w < 100 THEN 'medium' ELSE 'large'
 *	  END).  The table's key becomes the same CASE over int4 codes (the
 *	  labels' dictionary codes, in first-seen order), which the device
 *	  evaluates as any integer key; the executor puts the labels into the
 *	  key's dictionary in the same order before it reads, so the codes give
 *	  the labels back (exec/agg_dict.c).  Every process codes the labels
 *	  alike, so a worker's codes are the backend's (agg_parallel_text.c).
 *	  Grouping by the code is grouping by the label under a deterministic
 *	  collation; short text keys (varchar(7) and narrower) read their bytes,
 *	  not codes, so they stay native.
 */
#include "aggnode/gpuops_agg.h"

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/selfuncs.h"

/* The constant under e's relabelings, or NULL. */
static Const *
gpuops_label_const(Node *e)
{
	while (e != NULL && IsA(e, RelabelType))
		e = (Node *) ((RelabelType *) e)->arg;
	if (e == NULL || !IsA(e, Const))
		return NULL;
	if (((Const *) e)->constisnull)
		return (Const *) e;
	/* a text or varchar constant: its bytes are the label's */
	if (((Const *) e)->consttype != TEXTOID &&
		((Const *) e)->consttype != VARCHAROID)
		return NULL;
	return (Const *) e;
}

/* The code of label c (not NULL) in *labels, appended if new. */
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
 * True if e is a label key (see the file header); *labels, if labels is
 * not NULL, gets its distinct labels (String nodes) in code order: the
 * WHENs' results, then the ELSE's.
 */
bool
gpuops_label_case(Node *e, List **labels)
{
	CaseExpr   *ce;
	List	   *found = NIL;
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
	while (IsA(e, RelabelType))
		e = (Node *) ((RelabelType *) e)->arg;
	if (!IsA(e, CaseExpr))
		return false;
	ce = (CaseExpr *) e;
	if (ce->casetype != TEXTOID && ce->casetype != VARCHAROID)
		return false;
	foreach(lc, ce->args)
	{
		Const	   *c = gpuops_label_const((Node *) lfirst_node(CaseWhen, lc)->result);

		if (c == NULL)
			return false;
		if (!c->constisnull)
			(void) gpuops_label_code(c, &found);
	}
	if (ce->defresult != NULL)
	{
		Const	   *c = gpuops_label_const((Node *) ce->defresult);

		if (c == NULL)
			return false;
		if (!c->constisnull)
			(void) gpuops_label_code(c, &found);
	}
	if (labels != NULL)
		*labels = found;
	return true;
}

/* An int4 constant: a label's code, or NULL for a NULL result. */
static Expr *
gpuops_label_code_const(Node *result, List **labels)
{
	Const	   *c = gpuops_label_const(result);

	if (c->constisnull)
		return (Expr *) makeNullConst(INT4OID, -1, InvalidOid);
	return (Expr *) makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
							  Int32GetDatum(gpuops_label_code(c, labels)),
							  false, true);
}

/* Label key e (gpuops_label_case) as the same CASE over int4 codes. */
Node *
gpuops_label_codes(Node *e)
{
	CaseExpr   *ce;
	CaseExpr   *codes = makeNode(CaseExpr);
	List	   *labels = NIL;
	ListCell   *lc;

	Assert(gpuops_label_case(e, NULL));
	while (IsA(e, RelabelType))
		e = (Node *) ((RelabelType *) e)->arg;
	ce = (CaseExpr *) e;
	codes->casetype = INT4OID;
	codes->casecollid = InvalidOid;
	codes->arg = copyObject(ce->arg);
	foreach(lc, ce->args)
	{
		CaseWhen   *w = lfirst_node(CaseWhen, lc);
		CaseWhen   *cw = makeNode(CaseWhen);

		cw->expr = copyObject(w->expr);
		cw->result = gpuops_label_code_const((Node *) w->result, &labels);
		cw->location = w->location;
		codes->args = lappend(codes->args, cw);
	}
	codes->defresult = ce->defresult != NULL ?
		gpuops_label_code_const((Node *) ce->defresult, &labels) :
		(Expr *) makeNullConst(INT4OID, -1, InvalidOid);
	codes->location = ce->location;
	return (Node *) codes;
}

/* keys with each label key as its CASE over codes (a new list). */
List *
gpuops_label_keys_codes(List *keys)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, keys)
	{
		Node	   *k = (Node *) lfirst(lc);

		out = lappend(out, gpuops_label_case(k, NULL) ? gpuops_label_codes(k) : k);
	}
	return out;
}

/*
 * The groups of keys over rows input rows: PostgreSQL's estimate for the
 * keys but the label keys, times each label key's labels and NULL, at most
 * rows.  PostgreSQL knows no statistics of a CASE, and takes a label key
 * for as many groups as rows.
 */
double
gpuops_label_groups(PlannerInfo *root, List *keys, double rows)
{
	List	   *others = NIL;
	double		labels = 1;
	double		groups;
	ListCell   *lc;

	foreach(lc, keys)
	{
		List	   *ls = NIL;

		if (gpuops_label_case((Node *) lfirst(lc), &ls))
			labels *= list_length(ls) + 1;
		else
			others = lappend(others, lfirst(lc));
	}
	if (others == NIL && labels == 1)
		return estimate_num_groups(root, keys, rows, NULL, NULL);
	groups = others == NIL ? 1 :
		estimate_num_groups(root, others, rows, NULL, NULL);
	return Max(Min(groups * labels, Max(rows, 1)), 1);
}
