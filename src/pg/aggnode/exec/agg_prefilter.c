/*
 * agg_prefilter.c
 *	  The clauses a GpuOpsAgg table's reader tests before it decodes a page
 *	  batch in full (late materialisation, heapscan/late.c): which device
 *	  clauses go first, and the prefilter the reader calls with them and
 *	  with a star join's first dimension.
 */
#include "aggnode/exec/agg_policy.h"

#include "utils/memutils.h"

/*
 * Compiles te's prefilter program te->eprog (te->neprog clauses) from its
 * device clauses preds (te->prog): those without a text column read as
 * codes; those on lengths and LIKE matches (columns numbered from
 * first_len; a first pass then walks to the strings of every row, late.c)
 * only where no other is left, since integer clauses drop most rows far
 * more cheaply (t_url_top on 2 cores: 162 ms with url <> '' in the first
 * pass, below 80 without).
 */
void
gpuops_agg_early_program(GpuopsAggTableExec *te, GpuopsAggTable *tab,
						 List *preds, const int *attno_col, int natts,
						 const gpo_type *col_types, AttrNumber first_len)
{
	List	   *early = NIL;
	List	   *strs = NIL;
	ListCell   *lc;

	foreach(lc, preds)
	{
		if (gpuops_qual_reads_text((Node *) lfirst(lc), tab->rti))
			continue;
		if (gpuops_agg_reads_length(te, (Node *) lfirst(lc), first_len))
			strs = lappend(strs, lfirst(lc));
		else
			early = lappend(early, lfirst(lc));
	}
	if (early == NIL)
		early = strs;
	te->eprog = te->prog;
	te->neprog = te->nprog;
	if (list_length(early) < list_length(preds))
		te->neprog = gpuops_quals_program(early, tab->rti, attno_col, natts,
										  col_types, NULL, NULL, &te->eprog);
}

/* What the reader's prefilter works with. */
typedef struct GpuopsAggPrefilterArg
{
	GpuopsAggScanState *s;
	GpuopsAggTableExec *te;
	MemoryContext cxt;			/* one page batch's work, reset after it */
} GpuopsAggPrefilterArg;

/*
 * GpuopsScanPrefilter: the device clauses over batch rows lo .. lo + n - 1,
 * before the other columns are decoded (late materialisation): those
 * without a text column (te->eprog), so every row that passes them all is
 * kept, and a star join's first dimension's (a row whose key it drops
 * leaves).  The rows are taken from lo rounded down to a multiple of 8 (a
 * validity bitmap's byte), evaluated again harmlessly.  CPU face: a page
 * batch's rows are few.  Every clause and join runs again over the batch
 * (agg_batch.c, agg_join.c).  What it allocates lives until it returns.
 */
static void
gpuops_agg_prefilter(void *arg, const GpuopsScanBatch *batch, int64 lo,
					 int64 n, uint8 *keep)
{
	GpuopsAggPrefilterArg *pa = (GpuopsAggPrefilterArg *) arg;
	GpuopsAggTableExec *te = pa->te;
	int64		lo8 = lo & ~(int64) 7;
	int64		m = lo + n - lo8;
	MemoryContext old = MemoryContextSwitchTo(pa->cxt);
	gpo_vector *vecs = palloc(sizeof(gpo_vector) * Max(te->nread, 1));
	gpo_chunk  *chunks = palloc(sizeof(gpo_chunk) * Max(te->nread, 1));
	gpo_vector	maskv;
	gpo_chunk	maskc;
	gpo_ctx		ctx;
	size_t		bytes = 0;
	gpo_status	st;
	int			i;

	for (i = 0; i < te->nread; i++)
		gpuops_one_chunk_vector(&vecs[i], &chunks[i], te->cols[i].type,
								(char *) batch->data[i] +
								lo8 * gpo_type_size(te->cols[i].type),
								batch->has_nulls[i] ?
								batch->validity[i] + lo8 / 8 : NULL, m);
	if (te->neprog > 0)
	{
		gpuops_one_chunk_vector(&maskv, &maskc, GPO_UINT8, keep, NULL, m);
		gpuops_ctx_init(&ctx);
		ctx.device = GPO_DEVICE_CPU;
		st = gpo_filter(&ctx, te->nread, vecs, te->eprog, te->neprog, &maskv,
						NULL, NULL, &bytes);
		if (st == GPO_OK)
			st = gpo_filter(&ctx, te->nread, vecs, te->eprog, te->neprog,
							&maskv, NULL, gpuops_alloc_scratch(bytes), NULL);
		gpuops_check_status(st, &ctx, "GpuOpsAgg prefilter", InvalidOid);
	}
	else
		memset(keep, 1, m);
	if (gpuops_agg_join_filters(pa->s))
		gpuops_agg_join_prefilter(pa->s, vecs, m, keep);
	memmove(keep, keep + (lo - lo8), n);
	MemoryContextSwitchTo(old);
	MemoryContextReset(pa->cxt);
}

/* Adds batch column col to the early columns (*nearly of them) if new. */
static void
gpuops_agg_add_early(int *early, int *nearly, int col)
{
	int			j;

	for (j = 0; j < *nearly && early[j] != col; j++)
		;
	if (j == *nearly)
		early[(*nearly)++] = col;
}

/*
 * Lets te's reader test rows with its device clauses, and with a star
 * join's first dimension where it drops rows by their key, before decoding
 * them in full (the reader decides whether that pays): the early columns
 * are those the clauses read and the join's key columns.
 */
void
gpuops_agg_set_prefilter(GpuopsAggScanState *s, GpuopsAggTableExec *te)
{
	GpuopsAggPrefilterArg *pa;
	bool		join = gpuops_agg_join_filters(s);
	int		   *early;
	int			nearly = 0;
	int			i;

	if ((te->neprog == 0 && !join) || te->reader == NULL)
		return;
	early = palloc(sizeof(int) * (te->neprog + 2));
	for (i = 0; i < te->neprog; i++)
	{
		const gpo_pred *p = &te->eprog[i];

		if (p->kind != GPO_PRED_CMP && p->kind != GPO_PRED_NULLTEST)
			continue;
		if (p->column < 0 || p->column >= te->nread)
			return;				/* not a reader's column */
		gpuops_agg_add_early(early, &nearly, p->column);
	}
	if (join)
	{
		gpuops_agg_add_early(early, &nearly, s->join->dims[0].fk_col);
		if (s->join->dims[0].key_resno2 > 0)
			gpuops_agg_add_early(early, &nearly, s->join->dims[0].fk_col2);
	}
	pa = palloc(sizeof(GpuopsAggPrefilterArg));
	pa->s = s;
	pa->te = te;
	pa->cxt = AllocSetContextCreate(CurrentMemoryContext, "GpuOpsAgg prefilter",
									ALLOCSET_DEFAULT_SIZES);
	gpuops_scan_set_prefilter(te->reader, gpuops_agg_prefilter, pa, nearly,
							  early);
}
