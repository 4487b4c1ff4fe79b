/*
 * agg_expr.c
 *	  Expressions of a GpuOpsAgg scan that the device evaluates: grouping
 *	  keys and aggregate arguments built from plain columns of the scanned
 *	  table, constants, the operators and casts of the integer, float, bool,
 *	  date and timestamp types (agg_expr_funcs.c), date_part, date_trunc,
 *	  length, char_length and octet_length of text columns,
 *	  AND / OR / NOT, IS [NOT] NULL, IS [NOT] TRUE / FALSE, CASE, COALESCE
 *	  and NULLIF, compiled into a gpo_expr program.  Its leaves (classes,
 *	  columns, constants, operator types) are agg_expr_leaf.c's.
 *
 * The compiler is also the test of eligibility: the planner compiles an
 * expression to learn whether the device can evaluate it, and the executor
 * compiles it again with the reader's column numbers.  Every operator keeps
 * PostgreSQL's semantics (gpo_expr.h): strictness, three-valued logic,
 * short-circuits (a CASE branch not taken, an AND after a FALSE is not
 * evaluated, so raises no error) and the errors themselves.
 */
#include "aggnode/plan/agg_expr_int.h"
#include "heapscan/gpuops_scan.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

static bool gpuops_x_expr(XBuild *b, Node *e);

/*
 * Appends expression e brought from its scale to scale to (numerics).  A
 * constant is brought there as it is compiled (TPC-H Q1's `1 - l_discount`:
 * the 1 at scale 2), not by a GPO_X_NSCALE run for every row (on 2 cores
 * Q1's engine time went from 200 to 160 ms); one that would reach 10^18
 * there, which every row would fail on, keeps the expression off the
 * device.
 */
static bool
gpuops_x_num_arg(XBuild *b, Node *e, int to)
{
	int			from = gpuops_x_scale(e);
	gpo_xnode  *x;

	if (from == -1 || !gpuops_x_expr(b, e))
		return false;
	if (from == GPUOPS_X_ANY_SCALE || to < 0 || from == to)
		return true;
	if (from > to)
		return false;
	x = &b->nodes[b->n - 1];
	if (IsA(e, Const) && x->op == GPO_X_CONST && !x->is_null &&
		x->width == 0 && x->ival != GPO_X_NUMERIC_NAN)
	{
		__int128	v = x->ival;
		int			k;

		for (k = from; k < to && v < GPO_X_NUMERIC_LIMIT && v > -GPO_X_NUMERIC_LIMIT; k++)
			v *= 10;
		if (v >= GPO_X_NUMERIC_LIMIT || v <= -GPO_X_NUMERIC_LIMIT)
			return false;
		x->ival = (int64) v;
		return true;
	}
	if ((x = gpuops_x_push(b, GPO_X_NSCALE, 0)) == NULL)
		return false;
	x->arg = to - from;
	return true;
}

/*
 * A numeric operator or comparison: the operands at one scale (the larger),
 * except for *, whose result's scale is the sum of its operands', and the
 * comparisons, which compare across scales exactly (GPO_X_NCMP).
 */
static bool
gpuops_x_num_call(XBuild *b, const GpuopsXFunc *f, List *args)
{
	int			sa = gpuops_x_scale(linitial(args));
	int			sb = list_length(args) > 1 ? gpuops_x_scale(lsecond(args)) :
		GPUOPS_X_ANY_SCALE;
	int			to = Max(sa, sb);
	gpo_xnode  *x;

	if (sa == -1 || sb == -1)
		return false;
	/* a product's scale is its operands' sum, at most 18 */
	if (f->op == GPO_X_NMUL && sa >= 0 && sb >= 0 &&
		sa + sb > GPUOPS_NUMERIC_MAX_PRECISION)
		return false;
	if (f->op == GPO_X_ICMP)
	{
		/* compared as they are, the scales' difference in the node */
		if (!gpuops_x_expr(b, linitial(args)) ||
			!gpuops_x_expr(b, lsecond(args)) ||
			(x = gpuops_x_push(b, GPO_X_NCMP, -1)) == NULL)
			return false;
		x->arg = f->cmp;
		x->ival = (sa < 0 || sb < 0) ? 0 : sb - sa;
		return true;
	}
	if (!gpuops_x_num_arg(b, linitial(args), f->op == GPO_X_NMUL ? -1 : to) ||
		(list_length(args) > 1 &&
		 !gpuops_x_num_arg(b, lsecond(args), f->op == GPO_X_NMUL ? -1 : to)))
		return false;
	if (f->op == -1)
		return true;
	if ((x = gpuops_x_push(b, f->op, 1 - list_length(args))) == NULL)
		return false;
	x->width = 8;
	return true;
}

/*
 * date_part / date_trunc / extract: a constant unit, then the timestamp
 * (or, for extract, the date).  A field the device does not take keeps the
 * native plan (and PostgreSQL's own error where it has one).
 */
static bool
gpuops_x_datetime_field(XBuild *b, const GpuopsXFunc *f, List *args)
{
	int			field;
	gpo_xnode  *x;

	if (!gpuops_x_datetime_unit(f->op, (Node *) linitial(args), &field))
		return false;
	if (!gpuops_x_expr(b, lsecond(args)) ||
		(x = gpuops_x_push(b, f->op, 0)) == NULL)
		return false;
	x->arg = field;
	x->width = f->op == GPO_X_TS_TRUNC ? 0 : 8;
	return true;
}

/* timestamp (or date) +/- a constant interval. */
static bool
gpuops_x_interval(XBuild *b, const GpuopsXFunc *f, List *args)
{
	Const	   *c = (Const *) lsecond(args);
	Interval   *iv;
	gpo_xnode  *x;

	if (!IsA(c, Const) || c->constisnull || c->consttype != INTERVALOID)
		return false;
	iv = DatumGetIntervalP(c->constvalue);
	if (!gpuops_x_expr(b, linitial(args)))
		return false;
	if (f->date_arg && gpuops_x_push(b, GPO_X_DATE2TS, 0) == NULL)
		return false;
	if ((x = gpuops_x_push(b, f->op, 0)) == NULL)
		return false;
	x->months = iv->month;
	x->days = iv->day;
	x->ival = iv->time;
	return true;
}

/* A call of funcid over args with result restype (OpExpr or FuncExpr). */
static bool
gpuops_x_call(XBuild *b, Oid funcid, List *args, Oid restype, bool retset)
{
	GpuopsXFunc f;
	ListCell   *lc;
	gpo_xnode  *x;
	int			w;

	if (retset || args == NIL ||
		!gpuops_xfunc_lookup(funcid, list_length(args), &f) ||
		!gpuops_x_func_types(&f, args, restype))
		return false;
	if (f.op == GPO_X_TS_PART || f.op == GPO_X_TS_TRUNC ||
		f.op == GPO_X_TS_EXTRACT || f.op == GPO_X_DATE_EXTRACT)
		return gpuops_x_datetime_field(b, &f, args);
	if (f.op == GPO_X_TS_PL_INTERVAL || f.op == GPO_X_TS_MI_INTERVAL)
		return gpuops_x_interval(b, &f, args);
	if (f.op == GPUOPS_XF_INT_TO_NUMERIC)
	{
		/* int2 / int4 values are their own scale-0 numerics */
		Oid			argtype = exprType(linitial(args));

		return (argtype == INT2OID || argtype == INT4OID) &&
			gpuops_x_expr(b, linitial(args));
	}
	if (gpuops_x_class(restype, &w) == XC_NUM ||
		gpuops_x_class_of(linitial(args)) == XC_NUM)
		return gpuops_x_num_call(b, &f, args);
	foreach(lc, args)
		if (!gpuops_x_expr(b, (Node *) lfirst(lc)))
			return false;
	if (f.op < 0)
		return true;
	if ((x = gpuops_x_push(b, f.op, 1 - list_length(args))) == NULL)
		return false;
	(void) gpuops_x_class(restype, &w);
	x->width = (int16) w;
	if (f.op == GPO_X_ICMP || f.op == GPO_X_FCMP)
		x->arg = f.cmp;
	return true;
}

/* AND / OR as accumulating steps that jump to the end on FALSE / TRUE. */
static bool
gpuops_x_bool(XBuild *b, BoolExpr *be)
{
	int			first = b->n;
	int			end_op = be->boolop == AND_EXPR ? GPO_X_AND_STEP : GPO_X_OR_STEP;
	ListCell   *lc;
	gpo_xnode  *x;
	int			i;

	if (be->boolop == NOT_EXPR)
		return gpuops_x_expr(b, linitial(be->args)) &&
			gpuops_x_push(b, GPO_X_NOT, 0) != NULL;
	if ((x = gpuops_x_push(b, GPO_X_CONST, 1)) == NULL)
		return false;
	x->ival = be->boolop == AND_EXPR ? 1 : 0;
	foreach(lc, be->args)
	{
		if (!gpuops_x_expr(b, (Node *) lfirst(lc)) ||
			gpuops_x_push(b, end_op, -1) == NULL)
			return false;
	}
	for (i = first; i < b->n; i++)
		if (b->nodes[i].op == end_op && b->nodes[i].arg == 0)
			b->nodes[i].arg = b->n;
	return true;
}

/* Walker: true if the tree holds a CaseTestExpr. */
static bool
gpuops_x_has_case_test(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, CaseTestExpr))
		return true;
	return expression_tree_walker(node, gpuops_x_has_case_test, context);
}

/*
 * CASE: each WHEN's condition, a jump past its result when not TRUE, the
 * result, a jump to the end; then the ELSE result.  Each branch leaves one
 * slot.  The CASE operand is compiled anew wherever a WHEN compares it.
 */
static bool
gpuops_x_case(XBuild *b, CaseExpr *ce)
{
	Node	   *saved = b->case_arg;
	int		   *to_end = palloc(sizeof(int) * (list_length(ce->args) + 1));
	int			nend = 0;
	int			base = b->depth;
	ListCell   *lc;
	int			i;

	/* an operand that itself refers to an outer CASE's is left native */
	if (ce->arg != NULL && gpuops_x_has_case_test((Node *) ce->arg, NULL))
		return false;
	b->case_arg = (Node *) ce->arg;
	foreach(lc, ce->args)
	{
		CaseWhen   *w = lfirst_node(CaseWhen, lc);
		int			skip;

		if (!gpuops_x_expr(b, (Node *) w->expr) ||
			gpuops_x_push(b, GPO_X_JUMP_IF_NOT_TRUE, -1) == NULL)
			return false;
		skip = b->n - 1;
		if (!gpuops_x_expr(b, (Node *) w->result) ||
			gpuops_x_push(b, GPO_X_JUMP, -1) == NULL)
			return false;
		to_end[nend++] = b->n - 1;
		b->nodes[skip].arg = b->n;
	}
	b->case_arg = saved;
	if (ce->defresult == NULL || !gpuops_x_expr(b, (Node *) ce->defresult))
		return false;
	for (i = 0; i < nend; i++)
		b->nodes[to_end[i]].arg = b->n;
	return b->depth == base + 1;
}

/* COALESCE: each argument but the last, then a jump to the end if not NULL. */
static bool
gpuops_x_coalesce(XBuild *b, CoalesceExpr *ce)
{
	int			first = b->n;
	int			i = 0;
	ListCell   *lc;

	foreach(lc, ce->args)
	{
		if (!gpuops_x_expr(b, (Node *) lfirst(lc)))
			return false;
		if (++i < list_length(ce->args) &&
			gpuops_x_push(b, GPO_X_JUMP_IF_NOT_NULL, -1) == NULL)
			return false;
	}
	for (i = first; i < b->n; i++)
		if (b->nodes[i].op == GPO_X_JUMP_IF_NOT_NULL && b->nodes[i].arg == 0)
			b->nodes[i].arg = b->n;
	return true;
}

/* NULLIF(a, b) of two values of one class, equal by that class's equality. */
static bool
gpuops_x_nullif(XBuild *b, NullIfExpr *ne)
{
	XClass		a0 = gpuops_x_class_of(linitial(ne->args));
	GpuopsXFunc f;
	gpo_xnode  *x;

	set_opfuncid((OpExpr *) ne);
	if (list_length(ne->args) != 2 ||
		a0 != gpuops_x_class_of(lsecond(ne->args)) || a0 == XC_NONE ||
		!gpuops_xfunc_lookup(ne->opfuncid, 2, &f) || f.cmp != GPO_CMP_EQ)
		return false;
	if (!gpuops_x_expr(b, linitial(ne->args)) ||
		!gpuops_x_expr(b, lsecond(ne->args)) ||
		(x = gpuops_x_push(b, GPO_X_NULLIF, -1)) == NULL)
		return false;
	x->width = a0 == XC_FLOAT ? 1 : 0;
	return true;
}

/* IS [NOT] TRUE / FALSE / UNKNOWN. */
static bool
gpuops_x_booltest(XBuild *b, BooleanTest *bt)
{
	gpo_xnode  *x;
	int			op = GPO_X_ISTRUE;
	int64		variant = 0;

	switch (bt->booltesttype)
	{
		case IS_TRUE:
			variant = 0;
			break;
		case IS_FALSE:
			variant = 1;
			break;
		case IS_NOT_TRUE:
			variant = 2;
			break;
		case IS_NOT_FALSE:
			variant = 3;
			break;
		case IS_UNKNOWN:
		case IS_NOT_UNKNOWN:
			op = GPO_X_ISNULL;
			variant = bt->booltesttype == IS_NOT_UNKNOWN;
			break;
	}
	if (!gpuops_x_expr(b, (Node *) bt->arg) || (x = gpuops_x_push(b, op, 0)) == NULL)
		return false;
	x->ival = variant;
	return true;
}

/* Appends the code of e; false if the device can't evaluate it. */
static bool
gpuops_x_expr(XBuild *b, Node *e)
{
	gpo_xnode  *x;

	if (e == NULL)
		return false;
	check_stack_depth();
	if (b->nshared > 0 && gpuops_x_shared(b, e))
		return true;
	switch (nodeTag(e))
	{
		case T_Var:
			return gpuops_x_var(b, (Var *) e);
		case T_Const:
			return gpuops_x_const(b, (Const *) e);
		case T_RelabelType:
			return gpuops_x_class_of(e) != XC_NONE &&
				gpuops_x_class_of(e) == gpuops_x_class_of((Node *) ((RelabelType *) e)->arg) &&
				gpuops_x_expr(b, (Node *) ((RelabelType *) e)->arg);
		case T_OpExpr:
			set_opfuncid((OpExpr *) e);
			return gpuops_x_call(b, ((OpExpr *) e)->opfuncid,
								 ((OpExpr *) e)->args,
								 ((OpExpr *) e)->opresulttype,
								 ((OpExpr *) e)->opretset);
		case T_FuncExpr:
			if (gpuops_text_length_kind(e, b->relid, NULL) != GPUOPS_LEN_NONE)
				return gpuops_x_text_length(b, e);
			return !((FuncExpr *) e)->funcvariadic &&
				gpuops_x_call(b, ((FuncExpr *) e)->funcid,
							  ((FuncExpr *) e)->args,
							  ((FuncExpr *) e)->funcresulttype,
							  ((FuncExpr *) e)->funcretset);
		case T_BoolExpr:
			return gpuops_x_bool(b, (BoolExpr *) e);
		case T_NullTest:
			if (((NullTest *) e)->argisrow ||
				gpuops_x_class_of((Node *) ((NullTest *) e)->arg) == XC_NONE ||
				!gpuops_x_expr(b, (Node *) ((NullTest *) e)->arg) ||
				(x = gpuops_x_push(b, GPO_X_ISNULL, 0)) == NULL)
				return false;
			x->ival = ((NullTest *) e)->nulltesttype == IS_NOT_NULL;
			return true;
		case T_BooleanTest:
			return gpuops_x_booltest(b, (BooleanTest *) e);
		case T_CaseExpr:
			return gpuops_x_class_of(e) != XC_NONE &&
				(gpuops_x_class_of(e) != XC_NUM || gpuops_x_scale(e) != -1) &&
				gpuops_x_case(b, (CaseExpr *) e);
		case T_CaseTestExpr:
			return b->case_arg != NULL && gpuops_x_expr(b, b->case_arg);
		case T_CoalesceExpr:
			return gpuops_x_class_of(e) != XC_NONE &&
				(gpuops_x_class_of(e) != XC_NUM || gpuops_x_scale(e) != -1) &&
				gpuops_x_coalesce(b, (CoalesceExpr *) e);
		case T_NullIfExpr:
			return (gpuops_x_class_of(e) != XC_NUM || gpuops_x_scale(e) != -1) &&
				gpuops_x_nullif(b, (NullIfExpr *) e);
		default:
			return false;
	}
}

/*
 * Compiles e, an expression over plain columns of relid, into *prog; false
 * if the device can't evaluate it.  attno_col maps attribute numbers (up to
 * max_attno) to the ncols columns the program reads; NULL when only
 * planning.  A bare column is no expression (the reader gives it).
 */
bool
gpuops_expr_compile(Expr *e, Index relid, const int *attno_col,
					int max_attno, int ncols, GpuopsExprProgram *prog)
{
	return gpuops_expr_compile_shared(e, relid, attno_col, max_attno, ncols,
									  NULL, 0, prog);
}

/*
 * gpuops_expr_compile, reading each subexpression of e that equals one of
 * shared's (computed before, into columns below ncols) from its column.
 */
bool
gpuops_expr_compile_shared(Expr *e, Index relid, const int *attno_col,
						   int max_attno, int ncols,
						   const GpuopsExprShared *shared, int nshared,
						   GpuopsExprProgram *prog)
{
	XBuild		b;
	int			w;
	gpo_ctx		ctx;
	XClass		cls;

	memset(prog, 0, sizeof(*prog));
	/* (every function it takes is immutable: no volatility test needed) */
	if (e == NULL || IsA(e, Var))
		return false;
	cls = gpuops_x_class(exprType((Node *) e), &w);
	if (cls == XC_NONE)
		return false;
	memset(&b, 0, sizeof(b));
	b.relid = relid;
	b.attno_col = attno_col;
	b.max_attno = max_attno;
	b.shared = shared;
	b.nshared = nshared;
	if (!gpuops_x_expr(&b, (Node *) e) || b.depth != 1)
		return false;
	gpo_ctx_init(&ctx);
	if (gpo_expr_check(&ctx, attno_col ? ncols : MaxAttrNumber + 1,
					   b.nodes, b.n) != GPO_OK)
		return false;
	prog->nodes = b.nodes;
	prog->n = b.n;
	prog->out_double = cls == XC_FLOAT;
	prog->restype = exprType((Node *) e);
	prog->out_scale = -1;
	if (cls == XC_NUM)
	{
		/* numeric: value * 10^out_scale in an int64 column */
		prog->out_scale = gpuops_x_scale((Node *) e);
		prog->out_type = GPO_INT64;
		return prog->out_scale >= 0;
	}
	if (!gpuops_scan_col_type(prog->restype, &prog->out_type))
		return false;
	return true;
}

/*
 * The typmod that describes the values of e for the node: a column's own,
 * and for a numeric expression numeric(18, s) with s the scale its program
 * holds it at (its values all show that display scale).
 */
int32
gpuops_expr_typmod(Expr *e, Index relid)
{
	GpuopsExprProgram prog;

	if (exprType((Node *) e) != NUMERICOID || IsA(e, Var))
		return exprTypmod((Node *) e);
	if (!gpuops_expr_compile(e, relid, NULL, 0, 0, &prog))
		return -1;
	return (int32) (((GPUOPS_NUMERIC_MAX_PRECISION << 16) | prog.out_scale) +
					VARHDRSZ);
}

/* True if the device can evaluate e over plain columns of relid. */
bool
gpuops_expr_on_device(Expr *e, Index relid)
{
	GpuopsExprProgram prog;

	return gpuops_expr_compile(e, relid, NULL, 0, 0, &prog);
}
