/*
 * agg_length.c
 *	  length(), char_length() and octet_length() of text columns on the
 *	  node: each distinct (column, kind) a table's expressions and clauses
 *	  take the length of becomes a reader column of its own, an int4 column
 *	  numbered after the table's attributes (and a star join's virtual
 *	  columns), and the calls become plain Vars of it, so the device reads
 *	  the lengths as it reads any int4 column.
 *
 * On the page-batch path the reader notes where each string lies and the
 * backend counts them (gpo_str_lengths, with threads) while the pages are
 * pinned, as it codes text keys; the strings are detoasted first, so a
 * compressed value's length is its uncompressed one's, as PostgreSQL's.
 * On the slot path each value goes through PostgreSQL's own function.
 * Characters are counted in the database's encoding: UTF-8 and single-byte
 * encodings by the engine, any other by pg_mbstrlen_with_len.
 *
 * A LIKE clause the engine matches (agg_like.c) is read the same way: an
 * int4 column of each value's match (1 or 0), by gpo_str_like on the page
 * batches, by textlike itself on the slot path.
 *
 * A text column compared with the empty string (url <> '', ClickBench's
 * favourite clause) is a test of its length too: under a deterministic
 * collation a text or varchar value equals '' exactly when it has no byte,
 * and a char(n) value when it has no character but trailing spaces.  So
 * the column needs no dictionary (2 cores, 1M URLs: 0.9-1.3 s to code
 * them against 0.15-0.2 s to count them).
 */
#include "aggnode/exec/gpuops_agg_exec.h"

#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

/* One length column's reader callbacks' argument. */
typedef struct GpuopsLenArg
{
	GpuopsTextLen kind;
	Datum		pattern;		/* GPUOPS_LEN_LIKE: the pattern (text) */
	Oid			collation;		/* and the clause's collation */
	gpo_like	like;			/* and its pieces */
} GpuopsLenArg;

/* What the mutator works with. */
typedef struct GpuopsLenMap
{
	GpuopsAggTableExec *te;
	Index		relid;
	AttrNumber	first;			/* the first length column's number */
} GpuopsLenMap;

/* GpuopsScanEncode: the length of one value, by PostgreSQL's own function. */
static int32
gpuops_len_encode(void *arg, Datum value)
{
	switch (((GpuopsLenArg *) arg)->kind)
	{
		case GPUOPS_LEN_CHARS:
			return DatumGetInt32(DirectFunctionCall1(textlen, value));
		case GPUOPS_LEN_CHARS_TRIM:
			return DatumGetInt32(DirectFunctionCall1(bpcharlen, value));
		case GPUOPS_LEN_OCTETS:
			return DatumGetInt32(DirectFunctionCall1(textoctetlen, value));
		case GPUOPS_LEN_LIKE:
			return DatumGetBool(DirectFunctionCall2Coll(textlike,
														((GpuopsLenArg *) arg)->collation,
														value,
														((GpuopsLenArg *) arg)->pattern)) ? 1 : 0;
		case GPUOPS_LEN_NONE:
			break;
	}
	elog(ERROR, "GpuOpsAgg: unknown length kind");
	return 0;
}

/* GpuopsScanEncodeMany: the lengths of n detoasted strings. */
static void
gpuops_len_encode_many(void *arg, int nthreads, int64 n, const gpo_str *strs,
					   int32 *codes)
{
	GpuopsTextLen kind = ((GpuopsLenArg *) arg)->kind;
	bool		trim = kind == GPUOPS_LEN_CHARS_TRIM;
	int			mode = GPO_STRLEN_BYTES;
	gpo_ctx		ctx;
	int64		i;

	gpuops_ctx_init(&ctx);
	ctx.device = GPO_DEVICE_CPU;
	ctx.threads = Max(nthreads, 1);
	if (kind == GPUOPS_LEN_LIKE)
	{
		if (gpo_str_like(&ctx, n, strs, &((GpuopsLenArg *) arg)->like,
						 codes) != GPO_OK)
			elog(ERROR, "GpuOpsAgg: could not match text values with LIKE");
		return;
	}
	if (kind != GPUOPS_LEN_OCTETS && pg_database_encoding_max_length() > 1)
	{
		if (GetDatabaseEncoding() != PG_UTF8)
		{
			/* another multibyte encoding: PostgreSQL's own count */
			for (i = 0; i < n; i++)
			{
				int			len = strs[i].len;

				if (strs[i].data == NULL)
				{
					codes[i] = 0;
					continue;
				}
				while (trim && len > 0 && strs[i].data[len - 1] == ' ')
					len--;
				codes[i] = pg_mbstrlen_with_len(strs[i].data, len);
			}
			return;
		}
		mode = GPO_STRLEN_UTF8;
	}
	if (gpo_str_lengths(&ctx, n, strs, mode, trim && kind != GPUOPS_LEN_OCTETS,
						codes) != GPO_OK)
		elog(ERROR, "GpuOpsAgg: could not count the lengths of text values");
}

/*
 * If op compares a text, varchar or char(n) column of relid with the empty
 * string, = or <>, under a deterministic collation: *var the column, *kind
 * the length that is 0 exactly when the value equals '', *eq whether op is =.
 */
static bool
gpuops_len_empty_cmp(OpExpr *op, Index relid, Var **var, GpuopsTextLen *kind,
					 bool *eq)
{
	Node	   *a;
	Node	   *b;
	Const	   *c;
	char	   *str;
	int			len;
	int			i;

	set_opfuncid(op);
	if (list_length(op->args) != 2 ||
		(op->opfuncid != F_TEXTEQ && op->opfuncid != F_TEXTNE &&
		 op->opfuncid != F_BPCHAREQ && op->opfuncid != F_BPCHARNE) ||
		!OidIsValid(op->inputcollid) ||
		!get_collation_isdeterministic(op->inputcollid))
		return false;
	a = (Node *) linitial(op->args);
	b = (Node *) lsecond(op->args);
	if (IsA(a, Const))
	{
		Node	   *t = a;

		a = b;
		b = t;
	}
	while (IsA(a, RelabelType))
		a = (Node *) ((RelabelType *) a)->arg;
	if (!IsA(a, Var) || !IsA(b, Const) || ((Const *) b)->constisnull ||
		((Var *) a)->varno != (int) relid || ((Var *) a)->varlevelsup != 0 ||
		((Var *) a)->varattno <= 0 ||
		(((Var *) a)->vartype != TEXTOID && ((Var *) a)->vartype != VARCHAROID &&
		 ((Var *) a)->vartype != BPCHAROID))
		return false;
	c = (Const *) b;
	str = VARDATA_ANY(DatumGetPointer(c->constvalue));
	len = VARSIZE_ANY_EXHDR(DatumGetPointer(c->constvalue));
	if (VARATT_IS_EXTENDED(DatumGetPointer(c->constvalue)) &&
		!VARATT_IS_SHORT(DatumGetPointer(c->constvalue)))
		return false;			/* (a compressed constant is no '') */
	*eq = op->opfuncid == F_TEXTEQ || op->opfuncid == F_BPCHAREQ;
	if (op->opfuncid == F_BPCHAREQ || op->opfuncid == F_BPCHARNE)
	{
		/* bpchar compares without trailing spaces, on both sides */
		if (((Var *) a)->vartype != BPCHAROID)
			return false;
		for (i = 0; i < len; i++)
			if (str[i] != ' ')
				return false;
		*kind = GPUOPS_LEN_CHARS_TRIM;
	}
	else
	{
		if (len != 0 || ((Var *) a)->vartype == BPCHAROID)
			return false;
		*kind = GPUOPS_LEN_OCTETS;
	}
	*var = (Var *) a;
	return true;
}

/*
 * The Var of te's length column of var of kind (added if new); for
 * GPUOPS_LEN_LIKE, of its match with pattern pat under collation coll.
 */
static Var *
gpuops_len_var(GpuopsLenMap *map, Var *var, GpuopsTextLen kind, Const *pat,
			   Oid coll)
{
	GpuopsAggTableExec *te = map->te;
	int			k;

	for (k = 0; k < te->nlen; k++)
		if (te->len_attnos[k] == var->varattno && te->len_kinds[k] == kind &&
			equal(te->len_patterns[k], pat) && te->len_colls[k] == coll)
			break;
	if (k == te->nlen)
	{
		if (te->nlen % 8 == 0)
		{
			te->len_attnos = te->nlen == 0 ? palloc(sizeof(AttrNumber) * 8) :
				repalloc(te->len_attnos, sizeof(AttrNumber) * (te->nlen + 8));
			te->len_kinds = te->nlen == 0 ? palloc(sizeof(GpuopsTextLen) * 8) :
				repalloc(te->len_kinds, sizeof(GpuopsTextLen) * (te->nlen + 8));
			te->len_patterns = te->nlen == 0 ? palloc(sizeof(Const *) * 8) :
				repalloc(te->len_patterns, sizeof(Const *) * (te->nlen + 8));
			te->len_colls = te->nlen == 0 ? palloc(sizeof(Oid) * 8) :
				repalloc(te->len_colls, sizeof(Oid) * (te->nlen + 8));
		}
		te->len_attnos[k] = var->varattno;
		te->len_kinds[k] = kind;
		te->len_patterns[k] = pat;
		te->len_colls[k] = coll;
		te->nlen++;
	}
	return makeVar(map->relid, (AttrNumber) (map->first + k), INT4OID, -1,
				   InvalidOid, 0);
}

/* "lenvar = value" (eq) or "lenvar <> value" of int4s. */
static Node *
gpuops_len_cmp(Var *lenvar, bool eq, int32 value)
{
	Oid			opno = eq ? Int4EqualOperator : get_negator(Int4EqualOperator);
	OpExpr	   *op;

	op = (OpExpr *) make_opclause(opno, BOOLOID, false, (Expr *) lenvar,
								  (Expr *) makeConst(INT4OID, -1, InvalidOid,
													 sizeof(int32),
													 Int32GetDatum(value),
													 false, true),
								  InvalidOid, InvalidOid);
	op->opfuncid = get_opcode(opno);
	return (Node *) op;
}

/*
 * Mutator: each length call over a column of map->relid -> a Var of its
 * length column; each comparison of such a column with '' -> one of that
 * Var with 0; each LIKE the engine matches (agg_like.c) -> its match
 * column compared with 1 (with 0 for NOT LIKE).
 */
static Node *
gpuops_len_mutator(Node *node, GpuopsLenMap *map)
{
	GpuopsTextLen kind;
	Var		   *var;
	Const	   *pat;
	bool		eq;
	bool		negated;

	if (node == NULL)
		return NULL;
	if (IsA(node, OpExpr) &&
		gpuops_len_empty_cmp((OpExpr *) node, map->relid, &var, &kind, &eq))
		return gpuops_len_cmp(gpuops_len_var(map, var, kind, NULL, InvalidOid),
							  eq, 0);
	if (IsA(node, OpExpr) &&
		gpuops_qual_text_like((OpExpr *) node, map->relid, &var, &pat,
							  &negated))
		return gpuops_len_cmp(gpuops_len_var(map, var, GPUOPS_LEN_LIKE, pat,
											 ((OpExpr *) node)->inputcollid),
							  true, negated ? 0 : 1);
	kind = gpuops_text_length_kind(node, map->relid, &var);
	if (kind == GPUOPS_LEN_NONE)
		return expression_tree_mutator(node, gpuops_len_mutator, map);
	return (Node *) gpuops_len_var(map, var, kind, NULL, InvalidOid);
}

/* A copy of expr with its length calls as Vars of their columns. */
static Expr *
gpuops_len_map_expr(GpuopsLenMap *map, Expr *expr)
{
	return (Expr *) gpuops_len_mutator((Node *) expr, map);
}

/*
 * The table entry te's columns are set up from: te->tab itself where no
 * length call is met, else a copy whose expressions and clauses read each
 * length as a Var numbered from first (te->nlen, len_attnos and len_kinds
 * say which).  te->tab stays as planned (EXPLAIN shows it).
 */
GpuopsAggTable *
gpuops_agg_length_map(GpuopsAggTableExec *te, int nkeys, int nvals,
					  int nfilters, AttrNumber first)
{
	GpuopsAggTable *tab = te->tab;
	GpuopsAggTable *copy = palloc(sizeof(GpuopsAggTable));
	GpuopsLenMap map;
	int			i;

	te->nlen = 0;
	map.te = te;
	map.relid = tab->rti;
	map.first = first;
	*copy = *tab;
	for (i = 0; i < nkeys; i++)
		copy->key_exprs[i] = gpuops_len_map_expr(&map, tab->key_exprs[i]);
	copy->val_exprs = palloc(sizeof(Expr *) * Max(nvals, 1));
	for (i = 0; i < nvals; i++)
		copy->val_exprs[i] = gpuops_len_map_expr(&map, tab->val_exprs[i]);
	copy->filter_quals = palloc(sizeof(List *) * Max(nfilters, 1));
	for (i = 0; i < nfilters; i++)
		copy->filter_quals[i] = (List *)
			gpuops_len_map_expr(&map, (Expr *) tab->filter_quals[i]);
	copy->device_quals = (List *)
		gpuops_len_map_expr(&map, (Expr *) tab->device_quals);
	if (te->nlen == 0)
	{
		pfree(copy);
		return tab;
	}
	return copy;
}

/* Appends te's length columns to the reader's (after every other one). */
void
gpuops_agg_add_length_cols(GpuopsAggTableExec *te)
{
	int			k;

	te->len_col0 = te->ncols;
	for (k = 0; k < te->nlen; k++)
	{
		GpuopsScanCol *c = &te->cols[te->ncols++];
		GpuopsLenArg *arg = palloc(sizeof(GpuopsLenArg));

		arg->kind = te->len_kinds[k];
		if (arg->kind == GPUOPS_LEN_LIKE)
		{
			arg->pattern = te->len_patterns[k]->constvalue;
			arg->collation = te->len_colls[k];
			if (!gpuops_like_pieces(arg->pattern, &arg->like))
				elog(ERROR, "GpuOpsAgg: a LIKE pattern it cannot match");
		}
		c->attnum = te->len_attnos[k];
		c->typid = TupleDescAttr(RelationGetDescr(te->rel),
								 c->attnum - 1)->atttypid;
		c->type = GPO_INT32;
		c->encode = gpuops_len_encode;
		c->encode_many = gpuops_len_encode_many;
		c->encode_arg = arg;
	}
}

/* True if clause reads one of te's length columns (numbered from first). */
bool
gpuops_agg_reads_length(GpuopsAggTableExec *te, Node *clause, AttrNumber first)
{
	Bitmapset  *attnos = gpuops_quals_attnos(list_make1(clause), NULL);
	int			x = -1;

	while ((x = bms_next_member(attnos, x)) >= 0)
		if (x >= first && x < first + te->nlen)
			return true;
	return false;
}
