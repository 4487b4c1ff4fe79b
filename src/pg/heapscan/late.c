/*
 * late.c
 *	  Late materialisation on the page-batch path: the columns the caller's
 *	  WHERE clause reads are decoded first, the caller's prefilter tells
 *	  which rows can pass, and only those rows are decoded in full (their
 *	  text columns coded) into the batch.  The rows it drops never reach the
 *	  batch, so a selective clause no longer pays for walking and parsing
 *	  the other columns (text, numerics, anything behind a variable-width
 *	  attribute) of every row.
 *
 * Two passes cost more where most rows pass, so a page batch of which
 * more than GPUOPS_LATE_KEEP_MAX passed turns the prefilter off for the
 * next GPUOPS_LATE_PAUSE page batches, after which it is tried again.  The
 * reader uses it only where the columns are not all at fixed offsets or a
 * text column is coded, and where the clause does not read every column.
 */
#include "heapscan/reader_int.h"

/* Share of a page batch's rows past which two passes do not pay. */
#define GPUOPS_LATE_KEEP_MAX 0.75
/* Page batches read in one pass after one that did not pay. */
#define GPUOPS_LATE_PAUSE	16

/* Makes the page batches prefilter their rows (gpuops_scan.h). */
void
gpuops_scan_set_prefilter(GpuopsScanReader *r, GpuopsScanPrefilter fn,
						  void *arg, int nearly, const int *early)
{
	GpuopsDecodeCol *cols;
	int			n = 0;
	int			i;
	int			j;

	if (!r->stats.fast || fn == NULL || r->prefilter != NULL)
		return;
	if (nearly >= r->batch.ncols || (r->plan.all_fixed && !r->text))
		return;					/* one pass is as good */
	cols = palloc(sizeof(GpuopsDecodeCol) * Max(nearly, 1));
	/* r->dcols are sorted by attribute: so are these */
	for (i = 0; i < r->batch.ncols; i++)
		for (j = 0; j < nearly; j++)
			if (r->dcols[i].out == early[j])
			{
				/* a text column (a length, a LIKE match): coded first */
				cols[n++] = r->dcols[i];
				break;
			}
	gpuops_decode_plan_init(&r->early, RelationGetDescr(r->rel), n, cols,
							r->plan.nthreads);
	r->early_cols = cols;
	r->prefilter = fn;
	r->prefilter_arg = arg;
	r->keep = palloc_extended(Max(r->batch.capacity, 1), MCXT_ALLOC_HUGE);
	r->kept_tups = palloc_extended(sizeof(HeapTupleHeader) * r->max_pages *
								   MaxHeapTuplesPerPage, MCXT_ALLOC_HUGE);
}

/* Points the early columns at the batch's current arrays (after a swap). */
void
gpuops_scan_late_arrays(GpuopsScanReader *r)
{
	int			i;

	for (i = 0; r->prefilter != NULL && i < r->early.ncols; i++)
	{
		GpuopsDecodeCol *dc = &r->early_cols[i];

		dc->data = r->batch.data[dc->out];
		dc->validity = r->batch.validity[dc->out];
	}
}

/* Marks rows lo .. lo + n - 1 of a validity bitmap valid. */
static void
gpuops_scan_set_valid(uint8 *bits, int64 lo, int64 n)
{
	int64		i = lo;
	int64		hi = lo + n;

	for (; i < hi && (i & 7) != 0; i++)
		bits[i >> 3] |= (uint8) (1u << (i & 7));
	if (hi - i >= 8)
	{
		memset(bits + (i >> 3), 0xFF, (hi - i) >> 3);
		i += ((hi - i) >> 3) << 3;
	}
	for (; i < hi; i++)
		bits[i >> 3] |= (uint8) (1u << (i & 7));
}

/* True if the next page batch's rows are prefiltered. */
bool
gpuops_scan_late_now(GpuopsScanReader *r)
{
	if (r->prefilter == NULL)
		return false;
	if (r->late_pause > 0)
	{
		r->late_pause--;
		return false;
	}
	return true;
}

/*
 * Decodes the ntups tuples tups into the batch from row b->nrows on, only
 * those the prefilter keeps (see the file header); returns how many.
 * beside runs as gpuops_decode_tuples runs it (in the first pass).
 */
int64
gpuops_scan_decode_late(GpuopsScanReader *r, HeapTupleHeader const *tups,
						int64 ntups, void (*beside) (void *), void *arg)
{
	GpuopsScanBatch *b = &r->batch;
	int64		lo = b->nrows;
	int64		kept = 0;
	int64		i;

	r->early.nthreads = r->plan.nthreads;
	gpuops_decode_tuples(&r->early, tups, ntups, b, lo, beside, arg);
	gpuops_scan_code_cols(r, r->early_cols, r->early.ncols, lo, ntups);
	r->prefilter(r->prefilter_arg, b, lo, ntups, r->keep);
	for (i = 0; i < ntups; i++)
		if (r->keep[i])
			r->kept_tups[kept++] = tups[i];
	/* the first pass's NULLs may be those of rows now dropped */
	for (i = 0; i < r->early.ncols; i++)
		gpuops_scan_set_valid(r->early_cols[i].validity, lo, ntups);
	gpuops_decode_tuples(&r->plan, r->kept_tups, kept, b, lo, NULL, NULL);
	r->stats.prefiltered += ntups - kept;
	if (kept > GPUOPS_LATE_KEEP_MAX * ntups)
		r->late_pause = GPUOPS_LATE_PAUSE;
	return kept;
}
