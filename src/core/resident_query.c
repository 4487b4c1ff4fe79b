/*
 * resident_query.c
 *	  One gpo_resident_groupagg call (gpo_resident.h): its checks, its plan
 *	  (the set columns it reads, then its computed ones), and the dispatch
 *	  to the face that keeps the sets; several keys are packed first
 *	  (resident_keys.c).  The sets themselves are resident.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "gpo_agg_internal.h"
#include "gpo_resident_internal.h"

/* The input of the plan that reads query column c (a set column once placed). */
static int
plan_input_of(const gpo_resident_plan *plan, int c)
{
	int			k = 0;

	if (gpo_resident_is_dim_col(c))
		return plan->nneed + c - GPO_RESIDENT_DIM_COL(0);
	if (c >= GPO_RESIDENT_MAX_COLS)
		return plan->nneed + plan->ndimcols + c - GPO_RESIDENT_MAX_COLS;
	while (k < plan->nneed && plan->need[k] != c)
		k++;
	return k;
}

/* The plan's input for query column c (a set column or a computed one), added if new. */
static int
plan_input(gpo_resident_plan *plan, int c)
{
	int			k = 0;

	if (c >= GPO_RESIDENT_MAX_COLS)
		return -1;				/* placed once every set column is known */
	while (k < plan->nneed && plan->need[k] != c)
		k++;
	if (k == plan->nneed)
		plan->need[plan->nneed++] = c;
	return k;
}

/* The plan of a (checked) query (see gpo_resident_internal.h). */
void
gpo_resident_plan_of(const gpo_resident_query *q, gpo_resident_plan *plan)
{
	plan->nneed = 0;
	plan->ndimcols = q->ndimcols;
	plan->key = q->key_col >= 0 ? plan_input(plan, q->key_col) : -1;
	for (int r = 0; r < q->nreqs; r++)
		plan->req[r] = q->val_cols[r] >= 0 ? plan_input(plan, q->val_cols[r]) : -1;
	for (int e = 0; e < q->nexprs; e++)
		for (int i = 0; i < q->exprs[e].nnodes; i++)
			if (q->exprs[e].prog[i].op == GPO_X_COL)
				(void) plan_input(plan, q->exprs[e].prog[i].arg);
	/* the dimension and computed columns come after every set column */
	if (q->key_col >= GPO_RESIDENT_MAX_COLS)
		plan->key = plan_input_of(plan, q->key_col);
	for (int r = 0; r < q->nreqs; r++)
		if (q->val_cols[r] >= GPO_RESIDENT_MAX_COLS)
			plan->req[r] = plan_input_of(plan, q->val_cols[r]);
}

/* An expression's program over the plan's inputs (see gpo_resident_internal.h). */
void
gpo_resident_expr_prog(const gpo_resident_query *q,
					   const gpo_resident_plan *plan, int e, gpo_xnode *out)
{
	for (int i = 0; i < q->exprs[e].nnodes; i++)
	{
		out[i] = q->exprs[e].prog[i];
		if (out[i].op == GPO_X_COL)
			out[i].arg = plan_input_of(plan, out[i].arg);
	}
}

/* The type of a query column c over sets of set's columns. */
static gpo_type
column_type(const gpo_resident *set, const gpo_resident_query *q, int c)
{
	if (gpo_resident_is_dim_col(c))
		return q->dimcols[c - GPO_RESIDENT_DIM_COL(0)].type;
	if (c >= GPO_RESIDENT_MAX_COLS)
		return q->exprs[c - GPO_RESIDENT_MAX_COLS].type;
	return set->cols[c].type;
}

/* The type of a plan's input (see gpo_resident_internal.h). */
gpo_type
gpo_resident_input_type(const gpo_resident *set, const gpo_resident_query *q,
						const gpo_resident_plan *plan, int k)
{
	if (k >= plan->nneed + plan->ndimcols)
		return q->exprs[k - plan->nneed - plan->ndimcols].type;
	if (k >= plan->nneed)
		return q->dimcols[k - plan->nneed].type;
	return set->cols[plan->need[k]].type;
}

/* The key type of a (checked) query over sets of set's columns. */
gpo_type
gpo_resident_key_type(const gpo_resident *set, const gpo_resident_query *q)
{
	return q->key_col >= 0 ? column_type(set, q, q->key_col) : GPO_INT32;
}

/* The answer when no row passes (see gpo_resident_internal.h). */
void
gpo_resident_no_rows(gpo_type key_type, gpo_agg_strategy *strategy,
					 int64_t *ngroups)
{
	if (*strategy == GPO_AGG_AUTO)
		*strategy = gpo_agg_choose(key_type, 0, UINT64_MAX, 0, 0);
	*ngroups = 0;
}

/* Checks the sets of an aggregation: given, of one face, of the same columns. */
static gpo_status
check_sets(gpo_ctx *ctx, int nsets, gpo_resident *const *sets)
{
	if (nsets < 0 || (nsets > 0 && sets == NULL))
	{
		gpo_set_detail(ctx, "%d sets at %p", nsets, (const void *) sets);
		return GPO_ERR_INVALID;
	}
	for (int s = 0; s < nsets; s++)
	{
		if (sets[s] == NULL)
		{
			gpo_set_detail(ctx, "set %d is NULL", s);
			return GPO_ERR_INVALID;
		}
		if (sets[s]->face != sets[0]->face)
		{
			gpo_set_detail(ctx, "set %d is kept by another face than set 0", s);
			return GPO_ERR_INVALID;
		}
		if (sets[s]->ncols != sets[0]->ncols)
		{
			gpo_set_detail(ctx, "set %d has %d columns, set 0 has %d", s,
						   sets[s]->ncols, sets[0]->ncols);
			return GPO_ERR_INVALID;
		}
		for (int c = 0; c < sets[0]->ncols; c++)
			if (sets[s]->cols[c].type != sets[0]->cols[c].type)
			{
				gpo_set_detail(ctx, "column %d of set %d is %s, of set 0 %s",
							   c, s, gpo_type_name(sets[s]->cols[c].type),
							   gpo_type_name(sets[0]->cols[c].type));
				return GPO_ERR_INVALID;
			}
	}
	return GPO_OK;
}

/* A computed column's program over a tile's columns (see gpo_resident_internal.h). */
void
gpo_resident_tile_prog(const gpo_resident_expr *x, int ncols, int ndimcols,
					   gpo_xnode *out)
{
	for (int i = 0; i < x->nnodes; i++)
	{
		int			c = x->prog[i].arg;

		out[i] = x->prog[i];
		if (out[i].op != GPO_X_COL)
			continue;
		if (gpo_resident_is_dim_col(c))
			out[i].arg = c - GPO_RESIDENT_DIM_COL(0) < ndimcols ?
				ncols + c - GPO_RESIDENT_DIM_COL(0) : -1;
		else if (c >= GPO_RESIDENT_MAX_COLS)
			out[i].arg = ncols + ndimcols + c - GPO_RESIDENT_MAX_COLS;
		else if (c >= ncols)
			out[i].arg = -1;
	}
}

/* Whether c names a set column of ncols or one of q's computed or dimension columns. */
static bool
column_ok(int ncols, const gpo_resident_query *q, int c)
{
	return (c >= 0 && c < ncols) ||
		(c >= GPO_RESIDENT_MAX_COLS && c < GPO_RESIDENT_MAX_COLS + q->nexprs) ||
		(gpo_resident_is_dim_col(c) && c < GPO_RESIDENT_DIM_COL(q->ndimcols));
}

/*
 * Checks q's computed columns against ncols columns: each a program that
 * gpo_expr_check takes, read as columns 0 .. ncols of the sets and then
 * the computed columns before it, of a type its result fits.
 */
static gpo_status
check_exprs(gpo_ctx *ctx, int ncols, const gpo_resident_query *q)
{
	gpo_xnode  *copy;
	gpo_status	st = GPO_OK;

	if (q->nexprs < 0 || q->nexprs > GPO_RESIDENT_MAX_EXPRS ||
		(q->nexprs > 0 && (q->exprs == NULL || q->xerr == NULL)))
	{
		gpo_set_detail(ctx, "nexprs must be 0 .. %d (%d given), with exprs and xerr",
					   GPO_RESIDENT_MAX_EXPRS, q->nexprs);
		return GPO_ERR_INVALID;
	}
	if ((copy = malloc(sizeof(gpo_xnode) * GPO_EXPR_MAX_NODES)) == NULL)
	{
		gpo_set_detail(ctx, "could not allocate a program");
		return GPO_ERR_NOMEM;
	}
	for (int e = 0; e < q->nexprs && st == GPO_OK; e++)
	{
		const gpo_resident_expr *x = &q->exprs[e];
		bool		dbl = x->type == GPO_FLOAT32 || x->type == GPO_FLOAT64;
		bool		num = x->type == GPO_INT32 || x->type == GPO_INT64;

		if (x->prog == NULL || x->nnodes < 1 || x->nnodes > GPO_EXPR_MAX_NODES ||
			!(dbl || num) || dbl != x->out_double)
		{
			gpo_set_detail(ctx, "computed column %d: %d nodes of a %s", e,
						   x->nnodes, gpo_type_name(x->type));
			st = GPO_ERR_INVALID;
			break;
		}
		/* its columns as 0 .. ncols + ndimcols + e: a later computed one is past them */
		gpo_resident_tile_prog(x, ncols, q->ndimcols, copy);
		st = gpo_expr_check(ctx, ncols + q->ndimcols + e, copy, x->nnodes);
	}
	free(copy);
	return st;
}

/* Checks the aggregation requests of q against ncols columns of set0 (NULL: none). */
static gpo_status
check_reqs(gpo_ctx *ctx, const gpo_resident *set0, int ncols,
		   const gpo_resident_query *q)
{
	if (q->nreqs < 0 || q->nreqs > GPO_AGG_MAX_REQS ||
		(q->nreqs > 0 && (q->val_cols == NULL || q->aggs == NULL)))
	{
		gpo_set_detail(ctx, "nreqs must be 0 .. %d (%d given), with val_cols and aggs",
					   GPO_AGG_MAX_REQS, q->nreqs);
		return GPO_ERR_INVALID;
	}
	for (int r = 0; r < q->nreqs; r++)
	{
		int			c = q->val_cols[r];

		if (c != -1 && !column_ok(ncols, q, c))
		{
			gpo_set_detail(ctx, "request %d reads column %d of %d", r, c, ncols);
			return GPO_ERR_INVALID;
		}
		if (set0 != NULL && c >= 0 &&
			!gpo_agg_value_type_ok(column_type(set0, q, c)))
		{
			gpo_set_detail(ctx, "values of type %s are not supported",
						   gpo_type_name(column_type(set0, q, c)));
			return GPO_ERR_INVALID;
		}
	}
	return GPO_OK;
}

/* Checks dimension d of q against sets of set0's columns (NULL: no set), ncols of them. */
static gpo_status
check_dim(gpo_ctx *ctx, const gpo_resident *set0, int ncols,
		  const gpo_resident_query *q, int d)
{
	const gpo_resident_dim *dim = &q->dims[d];
	gpo_type	kt = set0 != NULL && dim->key_col >= 0 && dim->key_col < ncols ?
		set0->cols[dim->key_col].type : GPO_INT32;

	if (dim->key_col < 0 || dim->key_col >= ncols ||
		(kt != GPO_INT32 && kt != GPO_INT64))
	{
		gpo_set_detail(ctx, "dimension %d: key column %d is not an INT32 or INT64 set column",
					   d, dim->key_col);
		return GPO_ERR_INVALID;
	}
	if (dim->kind < GPO_RESIDENT_MATCH || dim->kind > GPO_RESIDENT_LEFT ||
		dim->span < 0 || dim->span > GPO_RESIDENT_DIM_MAX_SPAN ||
		(dim->span > 0 && dim->row_of == NULL) ||
		(dim->span > 0 && dim->lo > INT64_MAX - (dim->span - 1)) ||
		dim->rows < 0 || dim->rows > INT32_MAX)
	{
		gpo_set_detail(ctx, "dimension %d: kind %d, %lld keys from %lld, %lld rows",
					   d, (int) dim->kind, (long long) dim->span,
					   (long long) dim->lo, (long long) dim->rows);
		return GPO_ERR_INVALID;
	}
	return GPO_OK;
}

/* Checks q's dimensions and dimension columns (see gpo_resident.h). */
static gpo_status
check_dims(gpo_ctx *ctx, const gpo_resident *set0, int ncols,
		   const gpo_resident_query *q)
{
	gpo_status	st;

	if (q->ndims < 0 || q->ndims > GPO_RESIDENT_MAX_DIMS ||
		(q->ndims > 0 && q->dims == NULL) ||
		q->ndimcols < 0 || q->ndimcols > GPO_RESIDENT_MAX_DIM_COLS ||
		(q->ndimcols > 0 && q->dimcols == NULL))
	{
		gpo_set_detail(ctx, "%d dimensions (0 .. %d) and %d dimension columns (0 .. %d)",
					   q->ndims, GPO_RESIDENT_MAX_DIMS, q->ndimcols,
					   GPO_RESIDENT_MAX_DIM_COLS);
		return GPO_ERR_INVALID;
	}
	for (int d = 0; d < q->ndims; d++)
		if ((st = check_dim(ctx, set0, ncols, q, d)) != GPO_OK)
			return st;
	for (int c = 0; c < q->ndimcols; c++)
	{
		const gpo_resident_dimcol *dc = &q->dimcols[c];
		bool		ok = dc->dim >= 0 && dc->dim < q->ndims;

		ok = ok && q->dims[dc->dim].kind != GPO_RESIDENT_ANTI;
		ok = ok && (dc->type == GPO_INT32 || dc->type == GPO_INT64 ||
					dc->type == GPO_FLOAT32 || dc->type == GPO_FLOAT64);
		ok = ok && (dc->data != NULL || q->dims[dc->dim].rows == 0);
		if (!ok)
		{
			gpo_set_detail(ctx, "dimension column %d: a %s of dimension %d",
						   c, gpo_type_name(dc->type), dc->dim);
			return GPO_ERR_INVALID;
		}
	}
	return GPO_OK;
}

/* Checks q, the outputs and the strategy against sets of set0's columns (NULL: no set). */
static gpo_status
check_query(gpo_ctx *ctx, const gpo_resident *set0, const gpo_resident_query *q,
			const gpo_agg_strategy *strategy, const gpo_agg_out *outs,
			const int64_t *ngroups)
{
	int			ncols = set0 != NULL ? set0->ncols : GPO_RESIDENT_MAX_COLS;
	gpo_status	st;

	if (q == NULL || strategy == NULL || outs == NULL || ngroups == NULL ||
		*strategy < GPO_AGG_AUTO || *strategy > GPO_AGG_SORT)
	{
		gpo_set_detail(ctx, "query, strategy, outs and ngroups must be given");
		return GPO_ERR_INVALID;
	}
	if (q->nnodes < 0 ||
		(q->nnodes > 0 &&
		 gpo_filter_check_program(ctx, ncols, q->prog, q->nnodes, NULL) != GPO_OK))
	{
		if (q->nnodes < 0)
			gpo_set_detail(ctx, "filter program of %d nodes", q->nnodes);
		return GPO_ERR_INVALID;
	}
	if ((st = check_dims(ctx, set0, ncols, q)) != GPO_OK ||
		(st = check_exprs(ctx, ncols, q)) != GPO_OK)
		return st;
	if (q->nkeys != 0 && (q->nkeys < 2 || q->key_col != -1))
	{
		gpo_set_detail(ctx, "%d packed keys with key column %d", q->nkeys, q->key_col);
		return GPO_ERR_INVALID;
	}
	if (q->key_col != -1 && !column_ok(ncols, q, q->key_col))
	{
		gpo_set_detail(ctx, "key column %d of %d", q->key_col, ncols);
		return GPO_ERR_INVALID;
	}
	if (set0 != NULL && q->key_col >= 0 &&
		!gpo_agg_key_type_ok(column_type(set0, q, q->key_col)))
	{
		gpo_set_detail(ctx, "group keys of type %s are not supported",
					   gpo_type_name(column_type(set0, q, q->key_col)));
		return GPO_ERR_INVALID;
	}
	if ((st = check_reqs(ctx, set0, ncols, q)) != GPO_OK)
		return st;
	for (int r = 0; r < (q->nreqs > 0 ? q->nreqs : 1); r++)
		if (outs[r].capacity < 0)
		{
			gpo_set_detail(ctx, "output capacity must be >= 0");
			return GPO_ERR_INVALID;
		}
	if (*strategy == GPO_AGG_DENSE && set0 != NULL &&
		!gpo_type_is_int(gpo_resident_key_type(set0, q)))
	{
		gpo_set_detail(ctx, "dense aggregation needs integer keys whose range is at most %lld",
					   (long long) GPO_AGG_DENSE_MAX_RANGE);
		return GPO_ERR_INVALID;
	}
	return GPO_OK;
}


/* Filtered group aggregation over kept sets (see gpo_resident.h). */
gpo_status
gpo_resident_groupagg(gpo_ctx *ctx, int nsets, gpo_resident *const *sets,
					  const gpo_resident_query *q, gpo_agg_strategy *strategy,
					  gpo_agg_out *outs, int64_t *ngroups)
{
	gpo_resident_query packed;
	gpo_resident_expr xbuf[GPO_RESIDENT_MAX_EXPRS];
	gpo_xnode	nodes[8 * GPO_RESIDENT_MAX_KEYS];
	gpo_status	st;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if ((st = check_sets(ctx, nsets, sets)) != GPO_OK ||
		(st = check_query(ctx, nsets > 0 ? sets[0] : NULL, q, strategy, outs,
						  ngroups)) != GPO_OK)
		return st;
	/* several keys: one more computed column, their packed codes */
	if (q->nkeys != 0 && nsets > 0)
	{
		if ((st = gpo_resident_pack_keys(ctx, nsets, sets, q, &packed, xbuf,
										 nodes)) != GPO_OK ||
			(st = check_query(ctx, sets[0], &packed, strategy, outs,
							  ngroups)) != GPO_OK)
			return st;
		q = &packed;
	}
	if (q->nexprs > 0)
	{
		q->xerr->code = GPO_XERR_NONE;
		q->xerr->row = 0;
	}
	if (nsets == 0)
	{
		/* no set, no face: the host answers */
		ctx->used = GPO_DEVICE_CPU;
		gpo_resident_no_rows(GPO_INT32, strategy, ngroups);
		return GPO_OK;
	}
	if (sets[0]->face == GPO_DEVICE_GPU)
	{
		ctx->used = GPO_DEVICE_GPU;
		return gpo_resident_groupagg_gpu(ctx, nsets, sets, q, strategy, outs,
										 ngroups);
	}
	return gpo_resident_groupagg_cpu(ctx, nsets, sets, q, strategy, outs,
									 ngroups);
}
