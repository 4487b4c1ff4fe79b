/*
 * source.c
 *	  The fast path's blocks that a block source (the column cache) already
 *	  holds decoded: served from it instead of pinned, and the reading of
 *	  all-visible block ranges that fills such a source.
 */
#include "heapscan/reader_int.h"

#include "access/visibilitymap.h"
#include "miscadmin.h"
#include "storage/bufpage.h"

/* Makes the fast path take the blocks src has from it. */
bool
gpuops_scan_set_source(GpuopsScanReader *r, const GpuopsScanSource *src)
{
	if (!r->stats.fast)
		return false;
	if (r->missed == NULL)
		r->missed = palloc(sizeof(BlockNumber) * 2 * r->max_pages);
	r->nmissed = 0;
	r->source = src;
	return true;
}

/*
 * Serves the page batch's source blocks into the batch; true when it has
 * none left, false when the batch is full.  The blocks the source could not
 * serve after all wait in r->missed for the next page batch.
 */
bool
gpuops_scan_serve_source(GpuopsScanReader *r, GpuopsPageBatch *pb)
{
	while (pb->src_next < pb->nsrc)
	{
		int64		rows = 0;
		int			before = r->nmissed;
		int			used;

		/* (pinning drains up to max_pages of them before each serving) */
		Assert(r->nmissed + pb->nsrc - pb->src_next <= 2 * r->max_pages);
		used = r->source->serve(r->source->arg, pb->src_blocks + pb->src_next,
								pb->nsrc - pb->src_next, &r->batch,
								r->missed, &r->nmissed, &rows);
		pb->src_next += used;
		r->stats.source_rows += rows;
		r->stats.source_blocks += used - (r->nmissed - before);
		if (used == 0)
			return false;
	}
	return true;
}

/*
 * Decodes every tuple of blocks lo .. hi - 1 into the batch when each page
 * is all-visible; row_end[i] gets the rows up to block lo + i.  Each page is
 * read under its share lock and decoded under its pin alone, as the fast
 * path does.
 */
bool
gpuops_scan_read_all_visible(GpuopsScanReader *r, BlockNumber lo,
							 BlockNumber hi, int64 *row_end,
							 GpuopsScanBatch **batch)
{
	GpuopsScanBatch *b = &r->batch;
	HeapTupleHeader *tups = r->pb[0].tups;
	Buffer		vmbuf = InvalidBuffer;
	BlockNumber blk;
	int			i;

	if (!r->stats.fast)
		elog(ERROR, "gpuops column reader: all-visible ranges are read by the page-batch path only");
	for (i = 0; i < b->ncols; i++)
	{
		memset(b->validity[i], 0xFF, (b->capacity + 7) / 8);
		b->has_nulls[i] = false;
	}
	*batch = b;
	b->nrows = 0;
	r->unfit = false;
	/* the visibility map first: a range VACUUM has not cleaned costs no read */
	for (blk = lo; blk < hi; blk++)
		if (!VM_ALL_VISIBLE(r->rel, blk, &vmbuf))
			break;
	if (BufferIsValid(vmbuf))
		ReleaseBuffer(vmbuf);
	if (blk < hi)
		return false;
	for (blk = lo; blk < hi; blk++)
	{
		Buffer		buf;
		Page		page;
		OffsetNumber off;
		OffsetNumber lines;
		int			n = 0;

		CHECK_FOR_INTERRUPTS();
		buf = ReadBufferExtended(r->rel, MAIN_FORKNUM, blk, RBM_NORMAL,
								 r->strategy);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		lines = PageGetMaxOffsetNumber(page);
		if (!PageIsAllVisible(page) || b->nrows + lines > b->capacity)
		{
			UnlockReleaseBuffer(buf);
			return false;
		}
		for (off = FirstOffsetNumber; off <= lines; off++)
		{
			ItemId		lp = PageGetItemId(page, off);

			if (ItemIdIsNormal(lp))
				tups[n++] = (HeapTupleHeader) PageGetItem(page, lp);
		}
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		gpuops_decode_tuples(&r->plan, tups, n, b, b->nrows, NULL, NULL);
		ReleaseBuffer(buf);
		b->nrows += n;
		row_end[blk - lo] = b->nrows;
	}
	if (r->unfit)
	{
		r->unfit = false;
		return false;
	}
	return true;
}
