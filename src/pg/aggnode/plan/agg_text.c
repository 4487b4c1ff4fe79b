/*
 * agg_text.c
 *	  Text columns as the node reads them: which grouping keys are text
 *	  keys (dictionary codes), which of those are short (int64 codes of
 *	  their bytes), and which WHERE and FILTER clauses compare a text column
 *	  with text constants as codes (agg_quals.c compiles them):
 *	  "column = constant" and "<>", either side, and IN / NOT IN lists, over
 *	  a text, varchar or char(n) column read as dictionary codes or as a
 *	  short text key's codes of its bytes, under a deterministic collation,
 *	  whose equality is byte equality (char(n)'s after trimming trailing
 *	  spaces, and its values are stored padded), so equal strings have
 *	  equal codes and only they.
 */
#include "aggnode/gpuops_agg.h"
#include "heapscan/gpuops_scan.h"

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "nodes/nodeFuncs.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

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
 * True if a text key of type typid and typmod is a short text key: a
 * char(n) or varchar(n) whose values have at most
 * GPUOPS_SCAN_SHORT_TEXT_BYTES bytes in the database's encoding (char(1)
 * in UTF8), read as int64 codes of their bytes (page batches, worker
 * processes) instead of dictionary codes.
 */
bool
gpuops_agg_short_text_key(Oid typid, int32 typmod, Oid collid)
{
	if ((typid != BPCHAROID && typid != VARCHAROID) ||
		!gpuops_agg_text_key(typid, collid) || typmod < (int32) VARHDRSZ)
		return false;
	return (int64) (typmod - VARHDRSZ) * pg_database_encoding_max_length() <=
		GPUOPS_SCAN_SHORT_TEXT_BYTES;
}

/*
 * True if a column compared with a text constant is read as dictionary
 * codes: a text key that is not a short one (char(n) only with a length,
 * whose values are all padded to n characters).
 */
bool
gpuops_agg_text_codes_col(Oid typid, int32 typmod, Oid collid)
{
	return gpuops_agg_text_key(typid, collid) &&
		(typid != BPCHAROID || typmod >= (int32) VARHDRSZ) &&
		!gpuops_agg_short_text_key(typid, typmod, collid);
}

/*
 * The text, varchar or char(n) column of relid that node is (a Var, or one
 * under a RelabelType), if a clause can compare it with constants as codes
 * (dictionary codes, or a short text key's codes of its bytes); else NULL.
 */
static Var *
gpuops_qual_text_column(Node *node, Index relid)
{
	Var		   *var;

	if (node != NULL && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	if (node == NULL || !IsA(node, Var))
		return NULL;
	var = (Var *) node;
	if (var->varno != (int) relid || var->varlevelsup != 0 ||
		var->varattno <= 0 ||
		!(gpuops_agg_text_codes_col(var->vartype, var->vartypmod,
									var->varcollid) ||
		  gpuops_agg_short_text_key(var->vartype, var->vartypmod,
									var->varcollid)))
		return NULL;
	return var;
}

/*
 * The comparison that operator opno with input collation collid makes of
 * codes, for a column of type coltype and constants of type consttype:
 * texteq / textne of text and varchar, bpchareq / bpcharne of char(n),
 * under a deterministic collation (byte equality, after trimming trailing
 * spaces for char(n)).
 */
static bool
gpuops_qual_text_op(Oid opno, Oid collid, Oid coltype, Oid consttype,
					gpo_cmp_op *cmp)
{
	bool		bpchar = coltype == BPCHAROID;
	Oid			fn = get_opcode(opno);

	if (!OidIsValid(collid) || !get_collation_isdeterministic(collid) ||
		(bpchar ? consttype != BPCHAROID :
		 consttype != TEXTOID && consttype != VARCHAROID))
		return false;
	if (fn == (bpchar ? F_BPCHAREQ : F_TEXTEQ))
		*cmp = GPO_CMP_EQ;
	else if (fn == (bpchar ? F_BPCHARNE : F_TEXTNE))
		*cmp = GPO_CMP_NE;
	else
		return false;
	return true;
}

/*
 * True if op is "text column = / <> text constant" (either side) that the
 * device compares as codes: *var, *c and *cmp get its parts.
 */
bool
gpuops_qual_text_cmp(OpExpr *op, Index relid, Var **var, Const **c,
					 gpo_cmp_op *cmp)
{
	Node	   *other;

	if (list_length(op->args) != 2 || op->opretset)
		return false;
	other = lsecond(op->args);
	*var = gpuops_qual_text_column(linitial(op->args), relid);
	if (*var == NULL)
	{
		other = linitial(op->args);
		*var = gpuops_qual_text_column(lsecond(op->args), relid);
	}
	if (*var == NULL || !IsA(other, Const))
		return false;
	*c = (Const *) other;
	return gpuops_qual_text_op(op->opno, op->inputcollid, (*var)->vartype,
							   (*c)->consttype, cmp);
}

/*
 * True if sa is "text column = ANY / <> ALL (array constant)" (IN and NOT
 * IN lists, or the other two combinations) of at most max_list elements
 * that the device compares as codes: *var, *arr and *cmp get its parts.
 */
bool
gpuops_qual_text_list(ScalarArrayOpExpr *sa, Index relid, int max_list,
					  Var **var, Const **arr, gpo_cmp_op *cmp)
{
	ArrayType  *a;

	if (list_length(sa->args) != 2)
		return false;
	*var = gpuops_qual_text_column(linitial(sa->args), relid);
	if (*var == NULL || !IsA(lsecond(sa->args), Const))
		return false;
	*arr = (Const *) lsecond(sa->args);
	if ((*arr)->constisnull ||
		!gpuops_qual_text_op(sa->opno, sa->inputcollid, (*var)->vartype,
							 get_element_type((*arr)->consttype), cmp))
		return false;
	a = DatumGetArrayTypeP((*arr)->constvalue);
	return ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a)) <= max_list;
}

/*
 * The code that text constant value (not NULL) has in text column var:
 * a short text key's code of its bytes, or its dictionary code from
 * text_code.  A char(n) constant is compared as the column's values are
 * stored, trimmed of trailing spaces and padded to n characters.
 * GPUOPS_QUAL_TEXT_NO_CODE where no value of the column can equal it (too
 * long for the column).
 */
int64
gpuops_qual_text_code(Var *var, Datum value, GpuopsQualTextCode text_code,
					  void *text_arg)
{
	text	   *t = DatumGetTextPP(value);
	const char *data = VARDATA_ANY(t);
	int			len = (int) VARSIZE_ANY_EXHDR(t);
	StringInfoData buf;
	int64		code;

	initStringInfo(&buf);
	if (var->vartype == BPCHAROID)
	{
		int			n = var->vartypmod - (int32) VARHDRSZ;
		int			chars;

		while (len > 0 && data[len - 1] == ' ')
			len--;
		chars = pg_mbstrlen_with_len(data, len);
		if (chars > n)
			return GPUOPS_QUAL_TEXT_NO_CODE;
		appendBinaryStringInfo(&buf, data, len);
		appendStringInfoSpaces(&buf, n - chars);
		data = buf.data;
		len = buf.len;
	}
	if (gpuops_agg_short_text_key(var->vartype, var->vartypmod,
								  var->varcollid))
		code = len > GPUOPS_SCAN_SHORT_TEXT_BYTES ? GPUOPS_QUAL_TEXT_NO_CODE :
			gpuops_scan_short_text_code(data, len);
	else
	{
		if (text_code == NULL)
			elog(ERROR, "GpuOpsAgg device qual on text without codes");
		code = text_code(text_arg, var->varattno,
						 PointerGetDatum(cstring_to_text_with_len(data, len)));
	}
	pfree(buf.data);
	return code;
}

/* Walker: true at a text comparison of relid's columns read as dictionary codes. */
static bool
gpuops_qual_reads_text_walker(Node *node, Index *relid)
{
	Var		   *var = NULL;
	Const	   *c;
	gpo_cmp_op	cmp;

	if (node == NULL)
		return false;
	if ((IsA(node, OpExpr) &&
		 gpuops_qual_text_cmp((OpExpr *) node, *relid, &var, &c, &cmp)) ||
		(IsA(node, ScalarArrayOpExpr) &&
		 gpuops_qual_text_list((ScalarArrayOpExpr *) node, *relid, INT_MAX,
							   &var, &c, &cmp)))
		return gpuops_agg_text_codes_col(var->vartype, var->vartypmod,
										 var->varcollid);
	return expression_tree_walker(node, gpuops_qual_reads_text_walker, relid);
}

/*
 * True if clause holds a text column of relid that it compares as
 * dictionary codes (short text keys' codes need no dictionary).
 */
bool
gpuops_qual_reads_text(Node *clause, Index relid)
{
	return gpuops_qual_reads_text_walker(clause, &relid);
}
