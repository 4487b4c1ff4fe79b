/*
 * agg_text.c
 *	  Text columns as the node reads them: which grouping keys are text
 *	  keys (dictionary codes), which of those are short (int64 codes of
 *	  their bytes), and which WHERE and FILTER clauses compare a text column
 *	  with a text constant as dictionary codes (agg_quals.c compiles them):
 *	  "column = constant" and "<>", either side, over a text or varchar
 *	  column read as dictionary codes, under a deterministic collation,
 *	  whose equality is byte equality, so equal strings have equal codes
 *	  and only they.
 */
#include "aggnode/gpuops_agg.h"
#include "heapscan/gpuops_scan.h"

#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "nodes/nodeFuncs.h"
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

/* True if a column compared with a text constant is read as dictionary codes. */
bool
gpuops_agg_text_codes_col(Oid typid, int32 typmod, Oid collid)
{
	return (typid == TEXTOID || typid == VARCHAROID) &&
		gpuops_agg_text_key(typid, collid) &&
		!gpuops_agg_short_text_key(typid, typmod, collid);
}

/*
 * The text or varchar column of relid that node is (a Var, or one under a
 * RelabelType), if it is read as dictionary codes; else NULL.
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
		!gpuops_agg_text_codes_col(var->vartype, var->vartypmod,
								   var->varcollid))
		return NULL;
	return var;
}

/*
 * True if op is "text column = / <> text constant" (either side) under a
 * deterministic collation, whose equality is byte equality: *var, *c and
 * *cmp get its parts.
 */
bool
gpuops_qual_text_cmp(OpExpr *op, Index relid, Var **var, Const **c,
					 gpo_cmp_op *cmp)
{
	Oid			fn = get_opcode(op->opno);
	Node	   *other;

	if (list_length(op->args) != 2 || op->opretset)
		return false;
	if (fn == F_TEXTEQ)
		*cmp = GPO_CMP_EQ;
	else if (fn == F_TEXTNE)
		*cmp = GPO_CMP_NE;
	else
		return false;
	other = lsecond(op->args);
	*var = gpuops_qual_text_column(linitial(op->args), relid);
	if (*var == NULL)
	{
		other = linitial(op->args);
		*var = gpuops_qual_text_column(lsecond(op->args), relid);
	}
	if (*var == NULL || !IsA(other, Const) ||
		((Const *) other)->consttype != TEXTOID ||
		!OidIsValid(op->inputcollid) ||
		!get_collation_isdeterministic(op->inputcollid))
		return false;
	*c = (Const *) other;
	return true;
}

/* Walker: true at a text comparison of relid's columns. */
static bool
gpuops_qual_reads_text_walker(Node *node, Index *relid)
{
	Var		   *var;
	Const	   *c;
	gpo_cmp_op	cmp;

	if (node == NULL)
		return false;
	if (IsA(node, OpExpr) &&
		gpuops_qual_text_cmp((OpExpr *) node, *relid, &var, &c, &cmp))
		return true;
	return expression_tree_walker(node, gpuops_qual_reads_text_walker, relid);
}

/* True if clause holds a text column of relid that it compares as codes. */
bool
gpuops_qual_reads_text(Node *clause, Index relid)
{
	return gpuops_qual_reads_text_walker(clause, &relid);
}
