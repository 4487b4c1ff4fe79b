/*
 * agg_eval.c
 *	  The engine's evaluations over a GpuOpsAgg batch: the checked call
 *	  (faces counted, errors raised), the FILTER clauses' masks, and the
 *	  columns a batch computes: expression keys and aggregate
 *	  arguments (agg_expr.c compiles them), evaluated by gpo_expr_eval over
 *	  the batch's rows after the WHERE clause, an aggregate's argument only
 *	  where its FILTER holds, as PostgreSQL evaluates them.  A row that
 *	  raises an error in PostgreSQL raises the same error here; of the
 *	  batch's errors, that of the lowest row is raised (keys before
 *	  arguments on one row, as PostgreSQL's Agg evaluates them).
 */
#include "aggnode/exec/gpuops_agg_exec.h"

#include "utils/memutils.h"

/* Counts an engine call's face and checks its status (see gpuops_agg_exec.h). */
void
gpuops_agg_checked(GpuopsAggScanState *s, gpo_status st, gpo_ctx *ctx,
				   const char *op)
{
	gpuops_check_status(st, ctx, op, InvalidOid);
	if (ctx->used == GPO_DEVICE_GPU)
		s->gpu_calls++;
	else
		s->cpu_calls++;
}

/* Raises the PostgreSQL error a row's gpo_xerr stands for (gpuops_agg_exec.h). */
void
gpuops_agg_expr_raise(gpo_xerr code)
{
	switch (code)
	{
		case GPO_XERR_NONE:
			return;
		case GPO_XERR_INT2_RANGE:
			ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
							errmsg("smallint out of range")));
			break;
		case GPO_XERR_INT4_RANGE:
			ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
							errmsg("integer out of range")));
			break;
		case GPO_XERR_INT8_RANGE:
			ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
							errmsg("bigint out of range")));
			break;
		case GPO_XERR_DIV_ZERO:
			ereport(ERROR, (errcode(ERRCODE_DIVISION_BY_ZERO),
							errmsg("division by zero")));
			break;
		case GPO_XERR_FLOAT_OVERFLOW:
			ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
							errmsg("value out of range: overflow")));
			break;
		case GPO_XERR_FLOAT_UNDERFLOW:
			ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
							errmsg("value out of range: underflow")));
			break;
		case GPO_XERR_DATE_RANGE:
			ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
							errmsg("date out of range")));
			break;
		case GPO_XERR_DATE_INFINITE_SUB:
			ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
							errmsg("cannot subtract infinite dates")));
			break;
		case GPO_XERR_DATE_TS_RANGE:
			ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
							errmsg("date out of range for timestamp")));
			break;
		case GPO_XERR_TS_RANGE:
			ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
							errmsg("timestamp out of range")));
			break;
		case GPO_XERR_UNREPRESENTABLE:
			ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
							errmsg("GpuOpsAgg cannot represent an expression's value"),
							errhint("SET gpuops.enabled = off runs the query without the node.")));
			break;
	}
	elog(ERROR, "GpuOpsAgg: unknown expression error %d", (int) code);
}

/*
 * The byte mask of a bool expression (a FILTER or WHERE clause) over the
 * batch's n rows of ncols columns: 1 where it is TRUE; the error of its
 * lowest erroring row in *err.  rows (a byte mask, or NULL: all): the rows
 * it is evaluated on, 0 at the others.
 */
static uint8 *
gpuops_agg_filter_expr(GpuopsAggScanState *s, const GpuopsExprProgram *prog,
					   int ncols, gpo_vector *vecs, int64 n, uint8 *rows,
					   gpo_expr_error *err)
{
	gpo_vector	rowsv;
	gpo_chunk	rowsc;
	int32	   *vals = palloc_extended(sizeof(int32) * Max(n, 1), MCXT_ALLOC_HUGE);
	uint8	   *valid = palloc_extended((n + 7) / 8 + 1, MCXT_ALLOC_HUGE);
	uint8	   *mask = palloc_extended(Max(n, 1), MCXT_ALLOC_HUGE);
	gpo_vector	outv;
	gpo_chunk	outc;
	gpo_ctx		ctx;
	gpo_status	st;
	int64		i;

	gpuops_one_chunk_vector(&outv, &outc, GPO_INT32, vals, valid, n);
	if (rows != NULL)
		gpuops_one_chunk_vector(&rowsv, &rowsc, GPO_UINT8, rows, NULL, n);
	gpuops_agg_ctx_init(s, &ctx);
	st = gpo_expr_eval(&ctx, ncols, vecs, prog->nodes, prog->n, false,
					   rows != NULL ? &rowsv : NULL, &outv, err);
	gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg expression clause");
	for (i = 0; i < n; i++)
		mask[i] = ((valid[i >> 3] >> (i & 7)) & 1) && vals[i] != 0;
	return mask;
}

/*
 * ANDs the WHERE clauses that the device evaluates as expressions (ones
 * that cannot fail) into mask, the byte mask of the batch's n rows (the
 * reader's columns); returns the rows left.
 */
int64
gpuops_agg_where_exprs(GpuopsAggScanState *s, GpuopsAggTableExec *te,
					   gpo_vector *vecs, int64 n, uint8 *mask)
{
	int64		count = 0;
	int64		i;
	int			w;

	for (w = 0; w < te->nwexpr; w++)
	{
		gpo_expr_error err;
		uint8	   *m;

		err.code = GPO_XERR_NONE;
		m = gpuops_agg_filter_expr(s, &te->wexpr[w], te->nread, vecs, n, NULL,
								   &err);
		if (err.code != GPO_XERR_NONE)
			elog(ERROR, "GpuOpsAgg: a WHERE clause that cannot fail failed");
		for (i = 0; i < n; i++)
			mask[i] &= m[i];
		pfree(m);
	}
	for (i = 0; i < n; i++)
		count += mask[i];
	return count;
}

/*
 * The byte mask (one byte a row, 1 where it holds) of FILTER clause f over
 * the batch's n rows, evaluated once per batch (gpuops_agg_batch_columns
 * evaluates the expression ones first, raising their errors).
 */
uint8 *
gpuops_agg_filter_mask(GpuopsAggScanState *s, GpuopsAggTableExec *te,
					   gpo_vector *vecs, int64 n, int f)
{
	gpo_vector	maskv;
	gpo_chunk	maskc;
	uint8	   *mask;
	gpo_ctx		ctx;
	gpo_status	st;
	size_t		bytes = 0;
	int64		count = 0;

	if (te->fmasks != NULL && te->fmasks[f] != NULL)
		return te->fmasks[f];
	if (te->fexpr[f] != NULL)
		elog(ERROR, "GpuOpsAgg: an expression FILTER was not evaluated");
	mask = palloc_extended(Max(n, 1), MCXT_ALLOC_HUGE);
	gpuops_one_chunk_vector(&maskv, &maskc, GPO_UINT8, mask, NULL, n);
	gpuops_agg_ctx_init(s, &ctx);
	st = gpo_filter(&ctx, te->ncols, vecs, te->fprog[f], te->fnprog[f],
					&maskv, &count, NULL, &bytes);
	if (st == GPO_OK)
		st = gpo_filter(&ctx, te->ncols, vecs, te->fprog[f], te->fnprog[f],
						&maskv, &count, gpuops_alloc_scratch(bytes), NULL);
	gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg FILTER");
	if (te->fmasks != NULL)
		te->fmasks[f] = mask;
	return mask;
}

/*
 * The rows of byte mask a that byte mask b (NULL: all rows) holds too, in
 * a new mask (a itself where b is NULL).
 */
static uint8 *
gpuops_agg_rows_and(uint8 *a, const uint8 *b, int64 n)
{
	uint8	   *m;
	int64		i;

	if (b == NULL)
		return a;
	m = palloc_extended(Max(n, 1), MCXT_ALLOC_HUGE);
	for (i = 0; i < n; i++)
		m[i] = a[i] & b[i];
	return m;
}

/*
 * Evaluates computed column c over the batch into *out (vecs: the reader's
 * columns, then the computed ones before c), on the rows its FILTER and the
 * batch's kept WHERE mask (te->wmask) hold (NULL at the others); its error
 * in *err.
 */
static void
gpuops_agg_compute_one(GpuopsAggScanState *s, GpuopsAggTableExec *te,
					   const GpuopsAggComputed *c, gpo_vector *vecs, int64 n,
					   gpo_vector *out, gpo_chunk *outc, gpo_expr_error *err)
{
	size_t		w = gpo_type_size(c->prog.out_type);
	gpo_vector	maskv;
	gpo_chunk	maskc;
	gpo_vector *mask = NULL;
	gpo_ctx		ctx;
	gpo_status	st;

	gpuops_one_chunk_vector(out, outc, c->prog.out_type,
							palloc_extended(w * Max(n, 1), MCXT_ALLOC_HUGE),
							palloc_extended((n + 7) / 8 + 1, MCXT_ALLOC_HUGE),
							n);
	if (c->filter >= 0 || te->wmask != NULL)
	{
		uint8	   *rows = te->wmask;

		if (c->filter >= 0)
			rows = gpuops_agg_rows_and(gpuops_agg_filter_mask(s, te, vecs, n,
															  c->filter),
									   te->wmask, n);
		gpuops_one_chunk_vector(&maskv, &maskc, GPO_UINT8, rows, NULL, n);
		mask = &maskv;
	}
	gpuops_agg_ctx_init(s, &ctx);
	st = gpo_expr_eval(&ctx, te->ncols + (int) (c - te->computed), vecs,
					   c->prog.nodes, c->prog.n, c->prog.out_double, mask, out,
					   err);
	gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg expression");
}

/*
 * The batch's n rows as the policies take them: the reader's columns, then
 * the computed ones (te->computed), in the batch's memory context; vecs
 * itself when the table computes none.  Raises the error of the lowest row
 * that has one.
 */
gpo_vector *
gpuops_agg_batch_columns(GpuopsAggScanState *s, GpuopsAggTableExec *te,
						 gpo_vector *vecs, int64 n)
{
	gpo_vector *all;
	gpo_chunk  *chunks;
	gpo_expr_error first;
	int			c;

	te->fmasks = palloc0(sizeof(uint8 *) * Max(s->spec.nfilters, 1));
	first.code = GPO_XERR_NONE;
	first.row = PG_INT64_MAX;
	for (c = 0; c < s->spec.nfilters; c++)
	{
		gpo_expr_error err;

		if (te->fexpr[c] == NULL)
			continue;
		err.code = GPO_XERR_NONE;
		te->fmasks[c] = gpuops_agg_filter_expr(s, te->fexpr[c], te->ncols,
											   vecs, n, te->wmask, &err);
		if (err.code != GPO_XERR_NONE && err.row < first.row)
			first = err;
	}
	if (te->ncomputed == 0)
	{
		gpuops_agg_expr_raise(first.code);
		return vecs;
	}
	all = palloc(sizeof(gpo_vector) * (te->ncols + te->ncomputed));
	chunks = palloc(sizeof(gpo_chunk) * te->ncomputed);
	memcpy(all, vecs, sizeof(gpo_vector) * te->ncols);
	for (c = 0; c < te->ncomputed; c++)
	{
		gpo_expr_error err;

		err.code = GPO_XERR_NONE;
		gpuops_agg_compute_one(s, te, &te->computed[c], all, n,
							   &all[te->ncols + c], &chunks[c], &err);
		if (err.code != GPO_XERR_NONE && err.row < first.row)
			first = err;
	}
	gpuops_agg_expr_raise(first.code);
	return all;
}

/*
 * Sets up te's computed columns: expr (an expression key or argument) as
 * computed column number te->ncols + its index, evaluated where FILTER
 * clause filter holds (-1: everywhere).  attno_col maps the table's
 * attribute numbers (up to natts) to the reader's columns, which are all
 * known; te->computed has room.  A part of expr that an earlier computed
 * column holds for every row expr is evaluated on (its FILTER's, or all)
 * is read from that column: TPC-H Q1's price * (1 - discount) once for
 * both sums (2 cores, 600K rows: the second sum with its expression was
 * 17% of the query).
 */
int
gpuops_agg_add_computed(GpuopsAggTableExec *te, Expr *expr, int filter,
						const int *attno_col, int natts)
{
	GpuopsAggComputed *c = &te->computed[te->ncomputed];
	GpuopsExprShared *shared = palloc(sizeof(GpuopsExprShared) *
									  Max(te->ncomputed, 1));
	int			nshared = 0;
	int			k;

	for (k = 0; k < te->ncomputed; k++)
		if (te->computed[k].filter < 0 || te->computed[k].filter == filter)
		{
			shared[nshared].expr = te->computed[k].expr;
			shared[nshared++].col = te->ncols + k;
		}
	if (!gpuops_expr_compile_shared(expr, te->tab->rti, attno_col, natts,
									te->ncols + te->ncomputed, shared,
									nshared, &c->prog))
		elog(ERROR, "GpuOpsAgg cannot evaluate an expression it planned");
	c->expr = expr;
	c->filter = filter;
	return te->ncols + te->ncomputed++;
}
