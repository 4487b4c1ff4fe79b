/*
 * resident.c
 *	  Column sets kept between calls (gpo_resident.h): the set itself, the
 *	  argument checks and the dispatch both faces share, and the CPU face's
 *	  copies and views (its aggregation: resident_cpu.c).
 *
 * A set holds each column's rows in one piece and, only when some row is
 * NULL, their validity.  The CPU face keeps malloc'd host copies, with
 * validity as a bitmap, so that a kept column is a one-chunk gpo_vector as
 * it stands; the GPU face keeps device copies (kernels/resident.cu).  A set's
 * face decides which face aggregates it.
 */
#include <stdlib.h>
#include <string.h>

#include "gpo_agg_internal.h"
#include "gpo_resident_internal.h"


/* True if some row of v is NULL. */
bool
gpo_resident_has_null(const gpo_vector *v)
{
	for (int32_t c = 0; c < v->nchunks; c++)
	{
		const gpo_chunk *ch = &v->chunks[c];
		int64_t		full = ch->n / 8;
		unsigned	rem = (1u << (ch->n % 8)) - 1;

		if (ch->validity == NULL || ch->n == 0)
			continue;
		for (int64_t j = 0; j < full; j++)
			if (ch->validity[j] != 0xff)
				return true;
		if (rem != 0 && (ch->validity[full] & rem) != rem)
			return true;
	}
	return false;
}

/* dst[i] = 1 if row from + i of v is valid, else 0, for i < len. */
void
gpo_resident_valid_bytes(const gpo_vector *v, int64_t from, int64_t len,
						 uint8_t *dst)
{
	int64_t		start = 0;

	for (int32_t c = 0; c < v->nchunks && len > 0; c++)
	{
		const gpo_chunk *ch = &v->chunks[c];
		int64_t		off = from - start;
		int64_t		take;

		start += ch->n;
		if (off >= ch->n)
			continue;
		take = ch->n - off < len ? ch->n - off : len;
		if (ch->validity == NULL)
			memset(dst, 1, (size_t) take);
		else
			for (int64_t i = 0; i < take; i++)
				dst[i] = (ch->validity[(off + i) >> 3] >> ((off + i) & 7)) & 1;
		dst += take;
		from += take;
		len -= take;
	}
}

/* ORs n bits of src (all ones when NULL) into the zeroed bitmap dst from bit at on. */
static void
bits_put(uint8_t *dst, int64_t at, const uint8_t *src, int64_t n)
{
	if ((at & 7) == 0 && src != NULL)
	{
		memcpy(dst + (at >> 3), src, (size_t) (n / 8));
		if (n % 8 != 0)
			dst[(at >> 3) + n / 8] |= src[n / 8] & ((1u << (n % 8)) - 1);
		return;
	}
	for (int64_t i = 0; i < n; i++)
		if (src == NULL || (src[i >> 3] >> (i & 7)) & 1)
			dst[(at + i) >> 3] |= (uint8_t) (1u << ((at + i) & 7));
}

/* The CPU face of a put: host copies of the rows of cols into set. */
static gpo_status
put_cpu(gpo_ctx *ctx, const gpo_vector *cols, gpo_resident *set)
{
	int64_t		n = set->rows;

	for (int c = 0; c < set->ncols && n > 0; c++)
	{
		const gpo_vector *v = &cols[c];
		gpo_resident_col *rc = &set->cols[c];
		size_t		w = gpo_type_size(v->type);
		bool		nulls = gpo_resident_has_null(v);
		int64_t		off = 0;

		rc->data = malloc(w * (size_t) n);
		rc->valid = nulls ? calloc((size_t) (n + 7) / 8, 1) : NULL;
		if (rc->data == NULL || (nulls && rc->valid == NULL))
		{
			gpo_set_detail(ctx, "could not allocate %lld rows of kept column %d",
						   (long long) n, c);
			return GPO_ERR_NOMEM;
		}
		for (int32_t k = 0; k < v->nchunks; k++)
		{
			const gpo_chunk *ch = &v->chunks[k];

			if (ch->n == 0)
				continue;
			memcpy((char *) rc->data + off * w, ch->data, w * (size_t) ch->n);
			if (nulls)
				bits_put(rc->valid, off, ch->validity, ch->n);
			off += ch->n;
		}
		set->bytes += w * (size_t) n + (nulls ? (size_t) (n + 7) / 8 : 0);
		gpo_resident_find_bounds(set, c);
	}
	return GPO_OK;
}

/*
 * Begins a put or a view: checks its arguments (*out cleared); *rows gets
 * the columns' row count.
 */
static gpo_status
put_check(gpo_ctx *ctx, int ncols, const gpo_vector *cols,
		  gpo_resident **out, int64_t *rows)
{
	gpo_status	st;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if (out != NULL)
		*out = NULL;
	if (out == NULL || cols == NULL || ncols < 1 ||
		ncols > GPO_RESIDENT_MAX_COLS)
	{
		gpo_set_detail(ctx, "a kept set needs 1 .. %d columns (%d given) and an output",
					   GPO_RESIDENT_MAX_COLS, ncols);
		return GPO_ERR_INVALID;
	}
	for (int c = 0; c < ncols; c++)
	{
		if ((st = gpo_check_vector(ctx, &cols[c], "kept column")) != GPO_OK)
			return st;
		if (gpo_vector_rows(&cols[c]) != gpo_vector_rows(&cols[0]))
		{
			gpo_set_detail(ctx, "kept column %d has %lld rows, column 0 has %lld",
						   c, (long long) gpo_vector_rows(&cols[c]),
						   (long long) gpo_vector_rows(&cols[0]));
			return GPO_ERR_INVALID;
		}
	}
	*rows = gpo_vector_rows(&cols[0]);
	return GPO_OK;
}

/* A new empty set of cols' ncols types and rows rows; NULL without memory. */
static gpo_resident *
set_new(gpo_ctx *ctx, int ncols, const gpo_vector *cols, int64_t rows)
{
	gpo_resident *set = calloc(1, sizeof(*set));

	if (set == NULL)
	{
		gpo_set_detail(ctx, "could not allocate a kept set");
		return NULL;
	}
	set->ncols = ncols;
	set->rows = rows;
	for (int c = 0; c < ncols; c++)
		set->cols[c].type = cols[c].type;
	return set;
}

/* Keeps a column set (see gpo_resident.h). */
gpo_status
gpo_resident_put(gpo_ctx *ctx, int ncols, const gpo_vector *cols,
				 gpo_resident **out)
{
	gpo_resident *set;
	gpo_device	face = GPO_DEVICE_CPU;
	gpo_status	st;
	int64_t		rows = 0;

	if ((st = put_check(ctx, ncols, cols, out, &rows)) != GPO_OK)
		return st;
	if (ctx->device == GPO_DEVICE_AUTO)
		face = gpo_gpu_available() ? GPO_DEVICE_GPU : GPO_DEVICE_CPU;
	else if ((st = gpo_pick_face(ctx, rows, &face)) != GPO_OK)
		return st;
	if ((set = set_new(ctx, ncols, cols, rows)) == NULL)
		return GPO_ERR_NOMEM;
	if (face == GPO_DEVICE_GPU)
	{
		set->face = GPO_DEVICE_GPU;
		st = gpo_resident_put_gpu(ctx, cols, set);
		if (st == GPO_OK)
		{
			ctx->used = GPO_DEVICE_GPU;
			gpo_resident_bounds_of(set, cols);
		}
		if (!gpo_gpu_fell_back(ctx, st))
			goto done;
		set->bytes = 0;			/* the GPU face kept nothing */
	}
	set->face = GPO_DEVICE_CPU;
	ctx->used = GPO_DEVICE_CPU;
	st = put_cpu(ctx, cols, set);
done:
	if (st != GPO_OK)
		gpo_resident_free(set);
	else
		*out = set;
	return st;
}

/* A CPU-face set over the caller's columns (see gpo_resident.h). */
gpo_status
gpo_resident_view(gpo_ctx *ctx, int ncols, const gpo_vector *cols,
				  gpo_resident **out)
{
	gpo_resident *set;
	gpo_status	st;
	int64_t		rows = 0;

	if ((st = put_check(ctx, ncols, cols, out, &rows)) != GPO_OK)
		return st;
	for (int c = 0; c < ncols; c++)
		if (cols[c].nchunks != 1)
		{
			gpo_set_detail(ctx, "a view's column %d has %d chunks, not one",
						   c, (int) cols[c].nchunks);
			return GPO_ERR_INVALID;
		}
	if ((set = set_new(ctx, ncols, cols, rows)) == NULL)
		return GPO_ERR_NOMEM;
	set->face = GPO_DEVICE_CPU;
	set->borrowed = true;
	for (int c = 0; c < ncols; c++)
	{
		set->cols[c].data = rows > 0 ? cols[c].chunks[0].data : NULL;
		set->cols[c].valid = rows > 0 ? cols[c].chunks[0].validity : NULL;
	}
	ctx->used = GPO_DEVICE_CPU;
	*out = set;
	return GPO_OK;
}

/* Frees a set (see gpo_resident.h). */
void
gpo_resident_free(gpo_resident *set)
{
	if (set == NULL)
		return;
	if (set->borrowed)
		;						/* the caller's columns */
	else if (set->face == GPO_DEVICE_GPU)
		gpo_resident_free_gpu(set);
	else
		for (int c = 0; c < set->ncols; c++)
		{
			free(set->cols[c].data);
			free(set->cols[c].valid);
		}
	free(set);
}

/* Rows of a set. */
int64_t
gpo_resident_rows(const gpo_resident *set)
{
	return set != NULL ? set->rows : 0;
}

/* Bytes a set holds. */
size_t
gpo_resident_bytes(const gpo_resident *set)
{
	return set != NULL ? set->bytes : 0;
}

/* The face that keeps a set. */
gpo_device
gpo_resident_face(const gpo_resident *set)
{
	return set != NULL ? set->face : GPO_DEVICE_AUTO;
}

/* Columns of a set. */
int
gpo_resident_ncols(const gpo_resident *set)
{
	return set != NULL ? set->ncols : 0;
}

/* The type of column c of a set; (gpo_type) -1 for no such column. */
gpo_type
gpo_resident_type(const gpo_resident *set, int c)
{
	if (set == NULL || c < 0 || c >= set->ncols)
		return (gpo_type) -1;
	return set->cols[c].type;
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
	plan->key = q->key_col >= 0 ? plan_input(plan, q->key_col) : -1;
	for (int r = 0; r < q->nreqs; r++)
		plan->req[r] = q->val_cols[r] >= 0 ? plan_input(plan, q->val_cols[r]) : -1;
	for (int e = 0; e < q->nexprs; e++)
		for (int i = 0; i < q->exprs[e].nnodes; i++)
			if (q->exprs[e].prog[i].op == GPO_X_COL)
				(void) plan_input(plan, q->exprs[e].prog[i].arg);
	/* the computed columns come after every set column */
	if (q->key_col >= GPO_RESIDENT_MAX_COLS)
		plan->key = plan->nneed + q->key_col - GPO_RESIDENT_MAX_COLS;
	for (int r = 0; r < q->nreqs; r++)
		if (q->val_cols[r] >= GPO_RESIDENT_MAX_COLS)
			plan->req[r] = plan->nneed + q->val_cols[r] - GPO_RESIDENT_MAX_COLS;
}

/* The input of the plan that reads query column c (see plan_input). */
static int
plan_input_of(const gpo_resident_plan *plan, int c)
{
	int			k = 0;

	if (c >= GPO_RESIDENT_MAX_COLS)
		return plan->nneed + c - GPO_RESIDENT_MAX_COLS;
	while (k < plan->nneed && plan->need[k] != c)
		k++;
	return k;
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
	if (c >= GPO_RESIDENT_MAX_COLS)
		return q->exprs[c - GPO_RESIDENT_MAX_COLS].type;
	return set->cols[c].type;
}

/* The type of a plan's input (see gpo_resident_internal.h). */
gpo_type
gpo_resident_input_type(const gpo_resident *set, const gpo_resident_query *q,
						const gpo_resident_plan *plan, int k)
{
	if (k >= plan->nneed)
		return q->exprs[k - plan->nneed].type;
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

/* Whether c names a set column of ncols or one of q's computed columns. */
static bool
column_ok(int ncols, const gpo_resident_query *q, int c)
{
	return (c >= 0 && c < ncols) ||
		(c >= GPO_RESIDENT_MAX_COLS && c < GPO_RESIDENT_MAX_COLS + q->nexprs);
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
		/* its columns as 0 .. ncols + e for gpo_expr_check */
		for (int i = 0; i < x->nnodes; i++)
		{
			copy[i] = x->prog[i];
			if (copy[i].op != GPO_X_COL)
				continue;
			if (copy[i].arg >= GPO_RESIDENT_MAX_COLS &&
				copy[i].arg < GPO_RESIDENT_MAX_COLS + e)
				copy[i].arg = ncols + copy[i].arg - GPO_RESIDENT_MAX_COLS;
			else if (copy[i].arg >= ncols)
				copy[i].arg = -1;	/* rejected below */
		}
		st = gpo_expr_check(ctx, ncols + e, copy, x->nnodes);
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
	if ((st = check_exprs(ctx, ncols, q)) != GPO_OK)
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
