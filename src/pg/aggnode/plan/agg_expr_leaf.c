/*
 * agg_expr_leaf.c
 *	  The expression compiler's leaves (agg_expr.c compiles the rest): the
 *	  value class of each SQL type, appending a node to a program, plain
 *	  columns, the lengths of text columns (read as columns), constants, a part an earlier program computed (read from its
 *	  column), and the argument and result classes each built-in operator
 *	  takes.  Nothing here compiles a subexpression.
 */
#include "aggnode/plan/agg_expr_int.h"
#include "heapscan/gpuops_scan.h"

#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "utils/fmgroids.h"

/* The class and width of SQL type typid. */
XClass
gpuops_x_class(Oid typid, int *width)
{
	*width = 8;
	switch (typid)
	{
		case INT2OID:
			*width = 2;
			return XC_INT;
		case INT4OID:
			*width = 4;
			return XC_INT;
		case INT8OID:
			return XC_INT;
		case FLOAT4OID:
			*width = 4;
			return XC_FLOAT;
		case FLOAT8OID:
			return XC_FLOAT;
		case BOOLOID:
			*width = 4;
			return XC_BOOL;
		case DATEOID:
			*width = 4;
			return XC_DATE;
		case TIMESTAMPOID:
			return XC_TS;
		case NUMERICOID:
			return XC_NUM;
	}
	return XC_NONE;
}

/* The class of an expression's result. */
XClass
gpuops_x_class_of(Node *e)
{
	int			w;

	return gpuops_x_class(exprType(e), &w);
}

/* Appends a node of op changing the stack depth by delta; NULL when full. */
gpo_xnode *
gpuops_x_push(XBuild *b, int op, int delta)
{
	gpo_xnode  *x;

	if (b->n >= GPO_EXPR_MAX_NODES)
		return NULL;
	if (b->n == b->cap)
	{
		b->cap = Max(16, b->cap * 2);
		b->nodes = b->nodes ? repalloc(b->nodes, sizeof(gpo_xnode) * b->cap) :
			palloc(sizeof(gpo_xnode) * b->cap);
	}
	x = &b->nodes[b->n++];
	memset(x, 0, sizeof(*x));
	x->op = (int16) op;
	b->depth += delta;
	return b->depth > GPO_EXPR_MAX_DEPTH ? NULL : x;
}

/* A plain column of the scanned table of a class the machine holds. */
bool
gpuops_x_var(XBuild *b, Var *var)
{
	gpo_xnode  *x;
	gpo_type	t;

	if (var->varno != (int) b->relid || var->varlevelsup != 0 ||
		var->varattno <= 0 || gpuops_x_class_of((Node *) var) == XC_NONE ||
		!gpuops_scan_col_type_mod(var->vartype, var->vartypmod, &t))
		return false;
	if ((x = gpuops_x_push(b, GPO_X_COL, 1)) == NULL)
		return false;
	if (b->attno_col == NULL)
		x->arg = var->varattno;
	else if (var->varattno > b->max_attno || b->attno_col[var->varattno] < 0)
		return false;
	else
		x->arg = b->attno_col[var->varattno];
	return true;
}

/* What e counts if it is a length call over a text column of relid. */
GpuopsTextLen
gpuops_text_length_kind(Node *e, Index relid, Var **var)
{
	FuncExpr   *fe = (FuncExpr *) e;
	GpuopsTextLen kind;
	Node	   *arg;
	Var		   *v;

	if (e == NULL || !IsA(e, FuncExpr) || list_length(fe->args) != 1 ||
		fe->funcretset || fe->funcvariadic)
		return GPUOPS_LEN_NONE;
	switch (fe->funcid)
	{
		case F_LENGTH_TEXT:
		case F_CHAR_LENGTH_TEXT:
		case F_CHARACTER_LENGTH_TEXT:
		case F_TEXTLEN:
			kind = GPUOPS_LEN_CHARS;
			break;
		case F_LENGTH_BPCHAR:
		case F_CHAR_LENGTH_BPCHAR:
		case F_CHARACTER_LENGTH_BPCHAR:
			kind = GPUOPS_LEN_CHARS_TRIM;
			break;
		case F_OCTET_LENGTH_TEXT:
		case F_OCTET_LENGTH_BPCHAR:
			kind = GPUOPS_LEN_OCTETS;
			break;
		default:
			return GPUOPS_LEN_NONE;
	}
	arg = (Node *) linitial(fe->args);
	while (IsA(arg, RelabelType))	/* varchar -> text */
		arg = (Node *) ((RelabelType *) arg)->arg;
	v = (Var *) arg;
	if (!IsA(arg, Var) || v->varno != (int) relid || v->varlevelsup != 0 ||
		v->varattno <= 0 ||
		(v->vartype != TEXTOID && v->vartype != VARCHAROID &&
		 v->vartype != BPCHAROID))
		return GPUOPS_LEN_NONE;
	if (var != NULL)
		*var = v;
	return kind;
}

/*
 * A length call over a text column, read as a column: when planning only,
 * since the executor turns each into a column of its own first.
 */
bool
gpuops_x_text_length(XBuild *b, Node *e)
{
	Var		   *var;
	gpo_xnode  *x;

	if (b->attno_col != NULL ||
		gpuops_text_length_kind(e, b->relid, &var) == GPUOPS_LEN_NONE ||
		(x = gpuops_x_push(b, GPO_X_COL, 1)) == NULL)
		return false;
	x->arg = var->varattno;
	return true;
}

/* A constant of a class the machine holds. */
bool
gpuops_x_const(XBuild *b, Const *c)
{
	int			w;
	XClass		cls = gpuops_x_class(c->consttype, &w);
	gpo_xnode  *x;

	if (cls == XC_NONE || (x = gpuops_x_push(b, GPO_X_CONST, 1)) == NULL)
		return false;
	x->width = cls == XC_FLOAT ? 1 : 0;
	x->is_null = c->constisnull;
	if (c->constisnull)
		return true;
	if (cls == XC_NUM)
		return gpuops_x_numeric_const(c->constvalue, &x->ival) >= 0;
	switch (c->consttype)
	{
		case INT2OID:
			x->ival = DatumGetInt16(c->constvalue);
			break;
		case INT4OID:
		case DATEOID:
			x->ival = DatumGetInt32(c->constvalue);
			break;
		case BOOLOID:
			x->ival = DatumGetBool(c->constvalue) ? 1 : 0;
			break;
		case FLOAT4OID:
			x->fval = (double) DatumGetFloat4(c->constvalue);
			break;
		case FLOAT8OID:
			x->fval = DatumGetFloat8(c->constvalue);
			break;
		default:
			x->ival = DatumGetInt64(c->constvalue);
			break;
	}
	return true;
}

/* The arguments' classes a function's operator takes, and its result's. */
bool
gpuops_x_func_types(const GpuopsXFunc *f, List *args, Oid restype)
{
	int			w;
	XClass		r = gpuops_x_class(restype, &w);
	XClass		a0 = gpuops_x_class_of(linitial(args));
	XClass		a1 = list_length(args) > 1 ? gpuops_x_class_of(lsecond(args)) : XC_NONE;

	switch (f->op)
	{
		case GPO_X_IADD:
		case GPO_X_ISUB:
		case GPO_X_IMUL:
		case GPO_X_IDIV:
		case GPO_X_IMOD:
			return r == XC_INT && a0 == XC_INT && a1 == XC_INT;
		case GPO_X_INEG:
		case GPO_X_IABS:
		case GPO_X_I2I:
			return r == XC_INT && a0 == XC_INT;
		case GPO_X_FADD:
		case GPO_X_FSUB:
		case GPO_X_FMUL:
		case GPO_X_FDIV:
			return r == XC_FLOAT && a0 == XC_FLOAT && a1 == XC_FLOAT;
		case GPO_X_FNEG:
		case GPO_X_FABS:
		case GPO_X_F2F:
			return r == XC_FLOAT && a0 == XC_FLOAT;
		case GPO_X_ICMP:
			return r == XC_BOOL && a0 == a1 && a0 != XC_FLOAT && a0 != XC_NONE;
		case GPO_X_FCMP:
			return r == XC_BOOL && a0 == XC_FLOAT && a1 == XC_FLOAT;
		case GPO_X_I2F:
			return r == XC_FLOAT && a0 == XC_INT;
		case GPO_X_F2I:
			return r == XC_INT && a0 == XC_FLOAT;
		case GPO_X_BOOL2I:
			return r == XC_INT && a0 == XC_BOOL;
		case GPO_X_DATE_PLI:
		case GPO_X_DATE_MII:
			return r == XC_DATE && a0 == XC_DATE && a1 == XC_INT;
		case GPO_X_DATE_MI:
			return r == XC_INT && a0 == XC_DATE && a1 == XC_DATE;
		case GPO_X_DATE2TS:
			return r == XC_TS && a0 == XC_DATE;
		case GPO_X_TS2DATE:
			return r == XC_DATE && a0 == XC_TS;
		case GPO_X_TS_PL_INTERVAL:
		case GPO_X_TS_MI_INTERVAL:
			return r == XC_TS && a0 == (f->date_arg ? XC_DATE : XC_TS);
		case GPO_X_TS_PART:
			return r == XC_FLOAT && a1 == XC_TS;
		case GPO_X_TS_EXTRACT:
			return r == XC_NUM && a1 == XC_TS;
		case GPO_X_DATE_EXTRACT:
			return r == XC_NUM && a1 == XC_DATE;
		case GPO_X_TS_TRUNC:
			return r == XC_TS && a1 == XC_TS;
		case -1:
			return r == a0;
		case GPO_X_NADD:
		case GPO_X_NSUB:
		case GPO_X_NMUL:
			return r == XC_NUM && a0 == XC_NUM && a1 == XC_NUM;
		case GPO_X_NNEG:
		case GPO_X_NABS:
			return r == XC_NUM && a0 == XC_NUM;
		case GPUOPS_XF_INT_TO_NUMERIC:
			return r == XC_NUM && a0 == XC_INT;
	}
	return false;
}

/*
 * Appends a read of the column where an earlier program computed e, if one
 * did (b->shared): of exact types only (integers, numeric, float8), whose
 * column holds the very value the operators would give again.
 */
bool
gpuops_x_shared(XBuild *b, Node *e)
{
	Oid			t = exprType(e);
	gpo_xnode  *x;
	int			i;

	if (IsA(e, Var) || IsA(e, Const) ||
		(t != INT2OID && t != INT4OID && t != INT8OID && t != NUMERICOID &&
		 t != FLOAT8OID))
		return false;
	for (i = 0; i < b->nshared; i++)
		if (equal(e, b->shared[i].expr))
		{
			if ((x = gpuops_x_push(b, GPO_X_COL, 1)) == NULL)
				return false;
			x->arg = b->shared[i].col;
			return true;
		}
	return false;
}
