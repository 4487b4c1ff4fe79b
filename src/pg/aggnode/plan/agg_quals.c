/*
 * agg_quals.c
 *	  WHERE clauses of a GpuOpsAgg scan that run as a device mask.
 *
 * A clause runs on the device when it is built only from:
 *   column op constant (=, <>, <, <=, >, >=, either side), where op is an
 *     operator of the integer, float or bool btree families (cross-type
 *     integer and float operators included), a same-type date, timestamp
 *     or timestamptz operator, or a date column against a timestamp
 *     constant and a timestamp column against a date one (what
 *     date '...' - interval '...' folds to), compared exactly in the
 *     column's own type;
 *   column op ANY/ALL (array constant), which covers IN and NOT IN lists;
 *   text column = or <> text constant, and IN / NOT IN lists of text
 *     constants, compared as codes (agg_text.c says which);
 *   column IS [NOT] NULL; a bool column by itself;
 *   AND, OR and NOT of such clauses (BETWEEN arrives as an AND).
 * The column is a plain column of the scanned table of a type the node
 * extracts.  Everything else runs in PostgreSQL.  The program the engine
 * evaluates (gpo_filter) follows SQL's three-valued logic and PostgreSQL's
 * float order (NaN equal to NaN and above every number, -0 = 0), so a row
 * passes exactly when PostgreSQL's WHERE would keep it.
 */
#include "aggnode/gpuops_agg.h"
#include "heapscan/gpuops_scan.h"

#include "catalog/pg_am.h"
#include "catalog/pg_opfamily.h"
#include "commands/defrem.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/array.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

/* float_ops (float4 and float8 comparisons); the catalog header names no macro for it */
#ifndef FLOAT_BTREE_FAM_OID
#define FLOAT_BTREE_FAM_OID 1970
#endif

/* datetime_ops (date, timestamp and timestamptz comparisons) */
#ifndef DATETIME_BTREE_FAM_OID
#define DATETIME_BTREE_FAM_OID 434
#endif

/* Longest IN list run on the device. */
#define GPUOPS_QUAL_MAX_LIST	256

/* A program under construction. */
typedef struct QualProgram
{
	gpo_pred   *nodes;
	int			n;
	int			cap;
	const int  *attno_col;
	int			max_attno;
	const gpo_type *col_types;
	Index		relid;			/* the scanned table's range-table index */
	GpuopsQualTextCode text_code;	/* codes of text constants */
	void	   *text_arg;
} QualProgram;

static gpo_pred *gpuops_qual_push(QualProgram *p, gpo_pred_kind kind);
static void gpuops_qual_cmp(QualProgram *p, Var *var, gpo_cmp_op op,
							Oid typid, Datum value, bool isnull);

/* True if node is a plain column of relid of a type the node extracts. */
static bool
gpuops_qual_column(Node *node, Index relid)
{
	Var		   *var;
	gpo_type	t;

	if (node == NULL || !IsA(node, Var))
		return false;
	var = (Var *) node;
	return var->varno == (int) relid && var->varlevelsup == 0 &&
		var->varattno > 0 &&
		gpuops_scan_col_type_mod(var->vartype, var->vartypmod, &t);
}

/*
 * The comparison opno performs, if the device can: *op gets it for
 * "column op constant" order.  coltype and consttype are the declared
 * input types (column first).
 */
static bool
gpuops_qual_cmp_op(Oid opno, Oid coltype, Oid consttype, gpo_cmp_op *op)
{
	List	   *interps = get_op_btree_interpretation(opno);
	ListCell   *lc;

	foreach(lc, interps)
	{
		OpBtreeInterpretation *bi = (OpBtreeInterpretation *) lfirst(lc);
		bool		family_ok;

		if (bi->oplefttype != coltype || bi->oprighttype != consttype)
			continue;
		family_ok = bi->opfamily_id == INTEGER_BTREE_FAM_OID ||
			bi->opfamily_id == FLOAT_BTREE_FAM_OID ||
			(bi->opfamily_id == BOOL_BTREE_FAM_OID && coltype == BOOLOID) ||
			(coltype == NUMERICOID && consttype == NUMERICOID &&
			 bi->opfamily_id ==
			 get_opclass_family(GetDefaultOpClass(NUMERICOID,
												  BTREE_AM_OID))) ||
			(coltype == consttype &&
			 (coltype == DATEOID || coltype == TIMESTAMPOID ||
			  coltype == TIMESTAMPTZOID)) ||
			(bi->opfamily_id == DATETIME_BTREE_FAM_OID &&
			 ((coltype == DATEOID && consttype == TIMESTAMPOID) ||
			  (coltype == TIMESTAMPOID && consttype == DATEOID)));
		if (!family_ok)
			continue;
		switch (bi->strategy)
		{
			case BTLessStrategyNumber:
				*op = GPO_CMP_LT;
				return true;
			case BTLessEqualStrategyNumber:
				*op = GPO_CMP_LE;
				return true;
			case BTEqualStrategyNumber:
				*op = GPO_CMP_EQ;
				return true;
			case BTGreaterEqualStrategyNumber:
				*op = GPO_CMP_GE;
				return true;
			case BTGreaterStrategyNumber:
				*op = GPO_CMP_GT;
				return true;
			case ROWCOMPARE_NE:
				*op = GPO_CMP_NE;
				return true;
		}
	}
	return false;
}

/* The comparison with its operands swapped (c < x is x > c). */
static gpo_cmp_op
gpuops_qual_commute(gpo_cmp_op op)
{
	switch (op)
	{
		case GPO_CMP_LT:
			return GPO_CMP_GT;
		case GPO_CMP_LE:
			return GPO_CMP_GE;
		case GPO_CMP_GT:
			return GPO_CMP_LT;
		case GPO_CMP_GE:
			return GPO_CMP_LE;
		default:
			return op;
	}
}

/*
 * Split a binary operator clause into column, constant side and the
 * comparison in column-first order; false if it isn't one the device runs.
 */
static bool
gpuops_qual_split_op(Oid opno, Node *left, Node *right, Index relid,
					 Var **var, Node **other, gpo_cmp_op *op)
{
	bool		swapped = false;

	if (!gpuops_qual_column(left, relid))
	{
		Node	   *t = left;

		left = right;
		right = t;
		swapped = true;
	}
	if (!gpuops_qual_column(left, relid))
		return false;
	*var = (Var *) left;
	*other = right;
	if (swapped)
	{
		if (!gpuops_qual_cmp_op(opno, exprType(right), (*var)->vartype, op))
			return false;
		*op = gpuops_qual_commute(*op);
	}
	else if (!gpuops_qual_cmp_op(opno, (*var)->vartype, exprType(right), op))
		return false;
	return true;
}

/*
 * The scaled value (numeric_scaled.h) of a numeric constant d at the scale
 * of a numeric(p, s) column of typmod coltypmod: NaN's stand-in for NaN;
 * false if the constant is not exact at that scale or too large.
 */
static bool
gpuops_qual_numeric_const(Datum d, int32 coltypmod, int64 *scaled)
{
	int			scale = gpuops_numeric_typmod_scale(coltypmod);

	return scale >= 0 &&
		gpuops_numeric_scaled_any(PG_DETOAST_DATUM_PACKED(d), scale, false,
								  scaled) != GPUOPS_NUMERIC_UNFIT;
}

/*
 * True if constant c compares with column var exactly on the device: a
 * date against a timestamp column only when it is a timestamp (a date past
 * the timestamp range compares as no timestamp does), a numeric only when
 * it is exact at the numeric column's scale.
 */
static bool
gpuops_qual_const_ok(Var *var, Const *c)
{
	Oid			coltype = var->vartype;
	int			overflow = 0;
	int64		scaled;

	if (coltype == NUMERICOID && !c->constisnull)
		return gpuops_qual_numeric_const(c->constvalue, var->vartypmod,
										 &scaled);
	if (coltype == TIMESTAMPOID && c->consttype == DATEOID && !c->constisnull)
		(void) date2timestamp_opt_overflow(DatumGetDateADT(c->constvalue),
										   &overflow);
	return overflow == 0;
}

/* Floor of a / b for b > 0 (C's division truncates towards zero). */
static inline int64
gpuops_qual_floor_div(int64 a, int64 b)
{
	int64		q = a / b;

	return (a % b != 0 && a < 0) ? q - 1 : q;
}

/*
 * Appends "date column op timestamp t" as comparisons of the date itself,
 * as PostgreSQL's date_cmp_timestamp orders them: a date d is the
 * timestamp at its midnight, -infinity and infinity the timestamp ones,
 * and a date past the timestamp range lies above every finite timestamp.
 * With c the smallest date at or above t and f the largest at or below
 * it, d < t is d < c, d <= t is d <= f, d = t is d >= c AND d <= f (never
 * true when t has a time of day), and so on; NULL stays NULL.
 */
static void
gpuops_qual_date_vs_ts(QualProgram *p, Var *var, gpo_cmp_op op, Timestamp t)
{
	int64		c;
	int64		f;

	if (TIMESTAMP_IS_NOBEGIN(t))
		c = f = PG_INT32_MIN;
	else if (TIMESTAMP_IS_NOEND(t))
		c = f = PG_INT32_MAX;
	else
	{
		f = gpuops_qual_floor_div(t, USECS_PER_DAY);
		c = (f * USECS_PER_DAY == t) ? f : f + 1;
	}
	switch (op)
	{
		case GPO_CMP_LT:
			gpuops_qual_cmp(p, var, GPO_CMP_LT, INT8OID, Int64GetDatum(c), false);
			break;
		case GPO_CMP_LE:
			gpuops_qual_cmp(p, var, GPO_CMP_LE, INT8OID, Int64GetDatum(f), false);
			break;
		case GPO_CMP_GT:
			gpuops_qual_cmp(p, var, GPO_CMP_GT, INT8OID, Int64GetDatum(f), false);
			break;
		case GPO_CMP_GE:
			gpuops_qual_cmp(p, var, GPO_CMP_GE, INT8OID, Int64GetDatum(c), false);
			break;
		case GPO_CMP_EQ:
			gpuops_qual_cmp(p, var, GPO_CMP_GE, INT8OID, Int64GetDatum(c), false);
			gpuops_qual_cmp(p, var, GPO_CMP_LE, INT8OID, Int64GetDatum(f), false);
			gpuops_qual_push(p, GPO_PRED_AND)->nargs = 2;
			break;
		case GPO_CMP_NE:
			gpuops_qual_cmp(p, var, GPO_CMP_LT, INT8OID, Int64GetDatum(c), false);
			gpuops_qual_cmp(p, var, GPO_CMP_GT, INT8OID, Int64GetDatum(f), false);
			gpuops_qual_push(p, GPO_PRED_OR)->nargs = 2;
			break;
	}
}

/* True if a WHERE clause can run as a device mask over plain columns of relid. */
bool
gpuops_qual_on_device(Expr *clause, Index relid)
{
	if (clause == NULL)
		return false;
	if (IsA(clause, BoolExpr))
	{
		ListCell   *lc;

		foreach(lc, ((BoolExpr *) clause)->args)
			if (!gpuops_qual_on_device((Expr *) lfirst(lc), relid))
				return false;
		return true;
	}
	if (IsA(clause, OpExpr))
	{
		OpExpr	   *op = (OpExpr *) clause;
		Var		   *var;
		Node	   *other;
		Const	   *c;
		gpo_cmp_op	cmp;
		bool		negated;

		if (gpuops_qual_text_cmp(op, relid, &var, &c, &cmp) ||
			gpuops_qual_text_like(op, relid, &var, &c, &negated))
			return true;
		return list_length(op->args) == 2 && !op->opretset &&
			gpuops_qual_split_op(op->opno, linitial(op->args),
								 lsecond(op->args), relid, &var, &other,
								 &cmp) &&
			IsA(other, Const) &&
			gpuops_qual_const_ok(var, (Const *) other);
	}
	if (IsA(clause, ScalarArrayOpExpr))
	{
		ScalarArrayOpExpr *sa = (ScalarArrayOpExpr *) clause;
		Node	   *arr = lsecond(sa->args);
		ArrayType  *elems;
		gpo_cmp_op	cmp;
		Oid			elemtype;
		Var		   *var;
		Const	   *list;

		if (gpuops_qual_text_list(sa, relid, GPUOPS_QUAL_MAX_LIST, &var,
								  &list, &cmp))
			return true;
		if (!gpuops_qual_column(linitial(sa->args), relid) ||
			!IsA(arr, Const) || ((Const *) arr)->constisnull)
			return false;
		elemtype = get_element_type(((Const *) arr)->consttype);
		if (!OidIsValid(elemtype) ||
			!gpuops_qual_cmp_op(sa->opno,
								((Var *) linitial(sa->args))->vartype,
								elemtype, &cmp))
			return false;
		/*
		 * a timestamp column's date list would need each date checked, and
		 * so would a numeric column's list
		 */
		if ((((Var *) linitial(sa->args))->vartype == TIMESTAMPOID &&
			 elemtype == DATEOID) || elemtype == NUMERICOID)
			return false;
		elems = DatumGetArrayTypeP(((Const *) arr)->constvalue);
		return ArrayGetNItems(ARR_NDIM(elems), ARR_DIMS(elems)) <=
			GPUOPS_QUAL_MAX_LIST;
	}
	if (IsA(clause, NullTest))
	{
		NullTest   *nt = (NullTest *) clause;

		return !nt->argisrow && gpuops_qual_column((Node *) nt->arg, relid);
	}
	if (IsA(clause, Var))
		return gpuops_qual_column((Node *) clause, relid) &&
			((Var *) clause)->vartype == BOOLOID;
	if (IsA(clause, Const))
		return ((Const *) clause)->consttype == BOOLOID;
	return false;
}

/* Appends a node to the program. */
static gpo_pred *
gpuops_qual_push(QualProgram *p, gpo_pred_kind kind)
{
	gpo_pred   *n;

	if (p->n == p->cap)
	{
		p->cap = p->cap ? p->cap * 2 : 16;
		p->nodes = p->nodes ? repalloc(p->nodes, sizeof(gpo_pred) * p->cap) :
			palloc(sizeof(gpo_pred) * p->cap);
	}
	n = &p->nodes[p->n++];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	return n;
}

/* The program column of a table column. */
static int
gpuops_qual_col(QualProgram *p, AttrNumber attno)
{
	if (attno < 1 || attno > p->max_attno || p->attno_col[attno] < 0)
		elog(ERROR, "GpuOpsAgg qual column %d is not extracted", attno);
	return p->attno_col[attno];
}

/* Appends "column op value" for a constant value of SQL type typid. */
static void
gpuops_qual_cmp(QualProgram *p, Var *var, gpo_cmp_op op, Oid typid,
				Datum value, bool isnull)
{
	gpo_pred   *n;

	if (!isnull && var->vartype == DATEOID && typid == TIMESTAMPOID)
	{
		gpuops_qual_date_vs_ts(p, var, op, DatumGetTimestamp(value));
		return;
	}
	n = gpuops_qual_push(p, GPO_PRED_CMP);
	n->op = op;
	n->column = gpuops_qual_col(p, var->varattno);
	n->const_null = isnull;
	if (isnull)
		return;
	if (var->vartype == TIMESTAMPOID && typid == DATEOID)
	{
		int			overflow = 0;

		/* exact: gpuops_qual_const_ok let only in-range dates through */
		n->ival = date2timestamp_opt_overflow(DatumGetDateADT(value), &overflow);
		if (overflow != 0)
			elog(ERROR, "GpuOpsAgg device qual: date out of timestamp range");
		return;
	}
	switch (typid)
	{
		case INT2OID:
			n->ival = DatumGetInt16(value);
			break;
		case INT4OID:
			n->ival = DatumGetInt32(value);
			break;
		case INT8OID:
			n->ival = DatumGetInt64(value);
			break;
		case BOOLOID:
			n->ival = DatumGetBool(value) ? 1 : 0;
			break;
		case DATEOID:
			n->ival = DatumGetDateADT(value);
			break;
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			n->ival = DatumGetTimestamp(value);
			break;
		case FLOAT4OID:
			n->fval = (double) DatumGetFloat4(value);
			break;
		case FLOAT8OID:
			n->fval = DatumGetFloat8(value);
			break;
		case NUMERICOID:
			/* gpuops_qual_const_ok let only exact constants through */
			if (!gpuops_qual_numeric_const(value, var->vartypmod, &n->ival))
				elog(ERROR, "GpuOpsAgg device qual: numeric constant not exact at the column's scale");
			break;
		default:
			elog(ERROR, "GpuOpsAgg qual constant of type %u", typid);
	}
}

/* Appends "text column op constant" as a comparison of codes. */
static void
gpuops_qual_text_emit(QualProgram *p, Var *var, gpo_cmp_op op, Datum value,
					  bool isnull)
{
	gpo_pred   *n = gpuops_qual_push(p, GPO_PRED_CMP);

	n->op = op;
	n->column = gpuops_qual_col(p, var->varattno);
	n->const_null = isnull;
	if (!isnull)
		n->ival = gpuops_qual_text_code(var, value, p->text_code, p->text_arg);
}

/* Appends an AND or OR of the last nargs results (nothing for one). */
static void
gpuops_qual_combine(QualProgram *p, gpo_pred_kind kind, int nargs)
{
	if (nargs == 0)
	{
		gpo_pred   *n = gpuops_qual_push(p, GPO_PRED_CONST);

		/* an empty AND is TRUE, an empty OR is FALSE */
		n->const_bool = (kind == GPO_PRED_AND);
	}
	else if (nargs > 1)
		gpuops_qual_push(p, kind)->nargs = nargs;
}

/* Appends the postfix program of one clause. */
static void
gpuops_qual_emit(QualProgram *p, Node *clause)
{
	if (IsA(clause, BoolExpr))
	{
		BoolExpr   *b = (BoolExpr *) clause;
		ListCell   *lc;

		foreach(lc, b->args)
			gpuops_qual_emit(p, (Node *) lfirst(lc));
		if (b->boolop == NOT_EXPR)
			gpuops_qual_push(p, GPO_PRED_NOT);
		else
			gpuops_qual_combine(p, b->boolop == AND_EXPR ? GPO_PRED_AND :
								GPO_PRED_OR, list_length(b->args));
	}
	else if (IsA(clause, OpExpr))
	{
		OpExpr	   *op = (OpExpr *) clause;
		Var		   *var;
		Node	   *other;
		gpo_cmp_op	cmp;
		Const	   *c;

		if (gpuops_qual_text_cmp(op, p->relid, &var, &c, &cmp))
		{
			gpuops_qual_text_emit(p, var, cmp, c->constvalue, c->constisnull);
			return;
		}
		if (!gpuops_qual_split_op(op->opno, linitial(op->args),
								  lsecond(op->args), p->relid, &var,
								  &other, &cmp))
			elog(ERROR, "GpuOpsAgg device qual is not a comparison");
		c = castNode(Const, other);
		gpuops_qual_cmp(p, var, cmp, c->consttype, c->constvalue,
						c->constisnull);
	}
	else if (IsA(clause, ScalarArrayOpExpr))
	{
		ScalarArrayOpExpr *sa = (ScalarArrayOpExpr *) clause;
		Var		   *var;
		Const	   *c;
		ArrayType  *arr;
		Oid			elemtype;
		int16		typlen;
		bool		typbyval;
		char		typalign;
		Datum	   *elems;
		bool	   *nulls;
		int			nelems;
		int			i;
		gpo_cmp_op	cmp;
		bool		text;

		text = gpuops_qual_text_list(sa, p->relid, INT_MAX, &var, &c, &cmp);
		if (!text)
		{
			var = linitial_node(Var, sa->args);
			c = lsecond_node(Const, sa->args);
		}
		arr = DatumGetArrayTypeP(c->constvalue);
		elemtype = ARR_ELEMTYPE(arr);
		if (!text && !gpuops_qual_cmp_op(sa->opno, var->vartype, elemtype, &cmp))
			elog(ERROR, "GpuOpsAgg device qual is not a comparison");
		get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
		deconstruct_array(arr, elemtype, typlen, typbyval, typalign,
						  &elems, &nulls, &nelems);
		for (i = 0; i < nelems; i++)
			if (text)
				gpuops_qual_text_emit(p, var, cmp, elems[i], nulls[i]);
			else
				gpuops_qual_cmp(p, var, cmp, elemtype, elems[i], nulls[i]);
		gpuops_qual_combine(p, sa->useOr ? GPO_PRED_OR : GPO_PRED_AND,
							nelems);
	}
	else if (IsA(clause, NullTest))
	{
		NullTest   *nt = (NullTest *) clause;
		gpo_pred   *n = gpuops_qual_push(p, GPO_PRED_NULLTEST);

		n->column = gpuops_qual_col(p, castNode(Var, nt->arg)->varattno);
		n->is_not = (nt->nulltesttype == IS_NOT_NULL);
	}
	else if (IsA(clause, Var))
		gpuops_qual_cmp(p, (Var *) clause, GPO_CMP_EQ, BOOLOID,
						BoolGetDatum(true), false);
	else if (IsA(clause, Const))
	{
		gpo_pred   *n = gpuops_qual_push(p, GPO_PRED_CONST);

		n->const_null = ((Const *) clause)->constisnull;
		n->const_bool = !n->const_null &&
			DatumGetBool(((Const *) clause)->constvalue);
	}
	else
		elog(ERROR, "GpuOpsAgg device qual of node type %d",
			 (int) nodeTag(clause));
}

/*
 * Translate device clauses (implicit AND) into a postfix predicate program
 * over columns; attno_col maps an attribute number to its column index.
 * Returns the node count (0 for no clauses); *prog is palloc'd.
 */
int
gpuops_quals_program(List *clauses, Index relid, const int *attno_col,
					 int max_attno, const gpo_type *col_types,
					 GpuopsQualTextCode text_code, void *text_arg,
					 gpo_pred **prog)
{
	QualProgram p;
	ListCell   *lc;

	memset(&p, 0, sizeof(p));
	p.attno_col = attno_col;
	p.max_attno = max_attno;
	p.col_types = col_types;
	p.relid = relid;
	p.text_code = text_code;
	p.text_arg = text_arg;
	*prog = NULL;
	if (clauses == NIL)
		return 0;
	foreach(lc, clauses)
		gpuops_qual_emit(&p, (Node *) lfirst(lc));
	gpuops_qual_combine(&p, GPO_PRED_AND, list_length(clauses));
	*prog = p.nodes;
	return p.n;
}

/* Walker: adds the attribute numbers of Vars to a Bitmapset. */
static bool
gpuops_quals_attnos_walker(Node *node, Bitmapset **attnos)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->varattno > 0)
	{
		*attnos = bms_add_member(*attnos, ((Var *) node)->varattno);
		return false;
	}
	return expression_tree_walker(node, gpuops_quals_attnos_walker, attnos);
}

/* Attribute numbers used by clauses, added to attnos. */
Bitmapset *
gpuops_quals_attnos(List *clauses, Bitmapset *attnos)
{
	gpuops_quals_attnos_walker((Node *) clauses, &attnos);
	return attnos;
}
