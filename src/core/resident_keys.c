/*
 * resident_keys.c
 *	  Several grouping keys of a gpo_resident_groupagg call (gpo_resident.h)
 *	  packed into one: a computed column whose program gives each row the
 *	  code of its key tuple, from the sets' bounds of the key columns, so
 *	  that both faces group by one INT64 key as they do by one column.
 *
 * Key k's code is its value minus the least value of all sets (NULL: the
 * code past the greatest), and the codes are laid out most significant
 * first, so the packed order is the tuples' order with NULL after every
 * value, as PostgreSQL sorts them.  The bounds are those a put found, or
 * that the caller of a view told: the codes need no pass of their own.
 */
#include <string.h>

#include "gpo_internal.h"
#include "gpo_resident_internal.h"

/* Widths past this product do not pack into an INT64 key. */
#define PACK_LIMIT	(INT64_C(1) << 62)

/*
 * The bounds of query column c (a set or dimension column) over the sets
 * into *lo, *hi (lo > hi: none valid); false if unknown.
 */
static bool
key_bounds(int nsets, gpo_resident *const *sets, const gpo_resident_query *q,
		   int c, int64_t *lo, int64_t *hi)
{
	*lo = INT64_MAX;
	*hi = INT64_MIN;
	if (gpo_resident_is_dim_col(c))
	{
		const gpo_resident_dimcol *dc = &q->dimcols[c - GPO_RESIDENT_DIM_COL(0)];

		if (!dc->bounded)
			return false;
		if (dc->lo <= dc->hi)
		{
			*lo = dc->lo;
			*hi = dc->hi;
		}
		return true;
	}
	for (int s = 0; s < nsets; s++)
	{
		const gpo_resident_col *rc = &sets[s]->cols[c];

		if (sets[s]->rows == 0)
			continue;
		if (!rc->bounded)
			return false;
		if (rc->lo > rc->hi)
			continue;			/* every value NULL */
		*lo = rc->lo < *lo ? rc->lo : *lo;
		*hi = rc->hi > *hi ? rc->hi : *hi;
	}
	return true;
}

/* Appends node (op, width, arg, ival) to prog at *n. */
static void
put_node(gpo_xnode *prog, int *n, int op, int width, int arg, int64_t ival)
{
	gpo_xnode  *x = &prog[(*n)++];

	memset(x, 0, sizeof(*x));
	x->op = (int16_t) op;
	x->width = (int16_t) width;
	x->arg = arg;
	x->ival = ival;
}

/* Appends the code of key column c: COALESCE(c - lo, width - 1). */
static void
put_code(gpo_xnode *prog, int *n, int c, int64_t lo, int64_t width)
{
	put_node(prog, n, GPO_X_COL, 0, c, 0);
	put_node(prog, n, GPO_X_CONST, 0, 0, lo);
	put_node(prog, n, GPO_X_ISUB, 8, 0, 0);
	put_node(prog, n, GPO_X_JUMP_IF_NOT_NULL, 0, *n + 2, 0);
	put_node(prog, n, GPO_X_CONST, 0, 0, width - 1);
}

/* Checks q's keys against the sets' columns; GPO_OK or GPO_ERR_INVALID. */
static gpo_status
check_keys(gpo_ctx *ctx, gpo_resident *const *sets, const gpo_resident_query *q)
{
	if (q->nkeys < 2 || q->nkeys > GPO_RESIDENT_MAX_KEYS || q->key_cols == NULL ||
		q->key_lo == NULL || q->key_width == NULL || q->key_col != -1 ||
		q->nexprs >= GPO_RESIDENT_MAX_EXPRS || q->xerr == NULL)
	{
		gpo_set_detail(ctx, "%d keys: 2 .. %d, with key_cols, key_lo, key_width, xerr, no key_col",
					   q->nkeys, GPO_RESIDENT_MAX_KEYS);
		return GPO_ERR_INVALID;
	}
	for (int k = 0; k < q->nkeys; k++)
	{
		int			c = q->key_cols[k];
		int			d = c - GPO_RESIDENT_DIM_COL(0);
		gpo_type	t = (gpo_type) -1;

		if (c >= 0 && c < sets[0]->ncols)
			t = sets[0]->cols[c].type;
		else if (d >= 0 && d < q->ndimcols)
			t = q->dimcols[d].type;
		if (t != GPO_INT32 && t != GPO_INT64)
		{
			gpo_set_detail(ctx, "key %d: column %d is not an INT32 or INT64 set or dimension column",
						   k, c);
			return GPO_ERR_INVALID;
		}
	}
	return GPO_OK;
}

/* q with its keys packed (see gpo_resident_internal.h). */
gpo_status
gpo_resident_pack_keys(gpo_ctx *ctx, int nsets, gpo_resident *const *sets,
					   const gpo_resident_query *q, gpo_resident_query *packed,
					   gpo_resident_expr *xbuf, gpo_xnode *nodes)
{
	__int128	product = 1;
	int			n = 0;
	gpo_status	st;

	if ((st = check_keys(ctx, sets, q)) != GPO_OK)
		return st;
	for (int k = 0; k < q->nkeys; k++)
	{
		int64_t		lo,
					hi;

		if (!key_bounds(nsets, sets, q, q->key_cols[k], &lo, &hi))
		{
			gpo_set_detail(ctx, "a set has no bounds of key column %d", q->key_cols[k]);
			return GPO_ERR_INVALID;
		}
		if (lo > hi)
			lo = hi = 0;		/* only NULL: code 0 */
		q->key_lo[k] = lo;
		/* its values, and NULL */
		product *= (__int128) hi - lo + 2;
		if (product > PACK_LIMIT)
		{
			gpo_set_detail(ctx, "%d keys span more than 2^62 packed codes", q->nkeys);
			return GPO_ERR_INVALID;
		}
		q->key_width[k] = (int64_t) ((__int128) hi - lo + 2);
	}
	for (int k = 0; k < q->nkeys; k++)
	{
		if (k > 0)
		{
			put_node(nodes, &n, GPO_X_CONST, 0, 0, q->key_width[k]);
			put_node(nodes, &n, GPO_X_IMUL, 8, 0, 0);
		}
		put_code(nodes, &n, q->key_cols[k], q->key_lo[k], q->key_width[k]);
		if (k > 0)
			put_node(nodes, &n, GPO_X_IADD, 8, 0, 0);
	}
	*packed = *q;
	for (int e = 0; e < q->nexprs; e++)
		xbuf[e] = q->exprs[e];
	xbuf[q->nexprs].prog = nodes;
	xbuf[q->nexprs].nnodes = n;
	xbuf[q->nexprs].type = GPO_INT64;
	xbuf[q->nexprs].out_double = false;
	packed->exprs = xbuf;
	packed->nexprs = q->nexprs + 1;
	packed->key_col = GPO_RESIDENT_EXPR_COL(q->nexprs);
	packed->nkeys = 0;
	packed->key_span = (int64_t) product;
	return GPO_OK;
}
