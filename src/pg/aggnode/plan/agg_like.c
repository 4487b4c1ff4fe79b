/*
 * agg_like.c
 *	  "column LIKE 'pattern'" and NOT LIKE as the node runs them: a text,
 *	  varchar or char(n) column of the table (char(n)'s LIKE matches its
 *	  stored value, trailing spaces included) against a constant pattern of literal
 *	  characters and '%' (escapes allowed, no '_'), under a deterministic
 *	  collation, in UTF-8 or an encoding of one byte a character.  There
 *	  PostgreSQL's LIKE compares bytes and a literal piece can only match
 *	  at a character's start, so the engine matches bytes (gpo_str_like).
 *	  The reader computes each such match as an int4 column of 1s and 0s
 *	  (exec/agg_length.c), so the clause runs on the device as a comparison
 *	  of a plain column, and the table is read in page batches, with
 *	  workers, instead of through slots.  Any other LIKE stays a CPU clause.
 */
#include "aggnode/gpuops_agg.h"

#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "nodes/nodeFuncs.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

/*
 * The pieces between the '%'s of LIKE pattern (a text Datum), escapes
 * resolved, into *like (palloc'd, pointing into a copy of the pattern);
 * false where the pattern has a '_' or ends with an escape (PostgreSQL
 * raises an error there, which the native plan keeps).
 */
bool
gpuops_like_pieces(Datum pattern, gpo_like *like)
{
	text	   *t = DatumGetTextPP(pattern);
	const char *p = VARDATA_ANY(t);
	int			len = VARSIZE_ANY_EXHDR(t);
	char	   *buf = palloc(len + 1);
	gpo_str    *pieces = palloc(sizeof(gpo_str) * (len + 1));
	int			n = 0;
	int			out = 0;
	int			i;

	pieces[0].data = buf;
	pieces[0].len = 0;
	for (i = 0; i < len; i++)
	{
		if (p[i] == '_')
			return false;
		if (p[i] == '%')
		{
			pieces[n].len = out - (int) (pieces[n].data - buf);
			n++;
			pieces[n].data = buf + out;
			pieces[n].len = 0;
			continue;
		}
		if (p[i] == '\\')
		{
			if (++i == len)
				return false;
		}
		buf[out++] = p[i];
	}
	pieces[n].len = out - (int) (pieces[n].data - buf);
	like->npieces = n + 1;
	like->pieces = pieces;
	return true;
}

/*
 * True if op is "text, varchar or char(n) column of relid LIKE / NOT LIKE
 * constant pattern" that the engine matches (see the head of this file): *var, *pat
 * and *negated get its parts.
 */
bool
gpuops_qual_text_like(OpExpr *op, Index relid, Var **var, Const **pat,
					  bool *negated)
{
	Node	   *a;
	gpo_like	like;

	if (list_length(op->args) != 2 || op->opretset)
		return false;
	set_opfuncid(op);
	if (op->opfuncid != F_TEXTLIKE && op->opfuncid != F_TEXTNLIKE &&
		op->opfuncid != F_BPCHARLIKE && op->opfuncid != F_BPCHARNLIKE)
		return false;
	a = (Node *) linitial(op->args);
	while (IsA(a, RelabelType))
		a = (Node *) ((RelabelType *) a)->arg;
	if (!IsA(a, Var) || !IsA(lsecond(op->args), Const))
		return false;
	*var = (Var *) a;
	*pat = (Const *) lsecond(op->args);
	*negated = op->opfuncid == F_TEXTNLIKE || op->opfuncid == F_BPCHARNLIKE;
	return (*var)->varno == (int) relid && (*var)->varlevelsup == 0 &&
		(*var)->varattno > 0 &&
		(op->opfuncid == F_BPCHARLIKE || op->opfuncid == F_BPCHARNLIKE ?
		 (*var)->vartype == BPCHAROID :
		 (*var)->vartype == TEXTOID || (*var)->vartype == VARCHAROID) &&
		(*pat)->consttype == TEXTOID && !(*pat)->constisnull &&
		OidIsValid(op->inputcollid) &&
		get_collation_isdeterministic(op->inputcollid) &&
		(GetDatabaseEncoding() == PG_UTF8 ||
		 pg_database_encoding_max_length() == 1) &&
		gpuops_like_pieces((*pat)->constvalue, &like);
}

/* Walker of gpuops_like_past: the limit, and what was found. */
typedef struct GpuopsLikePast
{
	Index		relid;
	AttrNumber	max_attr;
} GpuopsLikePast;

/* Walker: true at a LIKE the engine matches over a column past max_attr. */
static bool
gpuops_like_past_walker(Node *node, GpuopsLikePast *lp)
{
	Var		   *var;
	Const	   *pat;
	bool		negated;

	if (node == NULL)
		return false;
	if (IsA(node, OpExpr) &&
		gpuops_qual_text_like((OpExpr *) node, lp->relid, &var, &pat, &negated) &&
		var->varattno > lp->max_attr)
		return true;
	return expression_tree_walker(node, gpuops_like_past_walker, lp);
}

/*
 * True if node holds a LIKE that gpuops_qual_text_like takes over a column
 * of relid past its last attribute, max_attr: a star join's virtual column
 * (a dimension's, agg_star.c), whose strings the reader does not see.
 */
bool
gpuops_like_past(Node *node, Index relid, AttrNumber max_attr)
{
	GpuopsLikePast lp;

	lp.relid = relid;
	lp.max_attr = max_attr;
	return gpuops_like_past_walker(node, &lp);
}
