/*
 * pages.c
 *	  The column reader's fast path: page batches pinned in block order
 *	  (from a block-parallel scan's share when processes share one, through
 *	  remembered buffers when recent.c has them), visibility decided
 *	  under each page's share lock, and the decoding threads fed while the
 *	  backend's thread pins the next page batch (see reader.c).
 */
#include "heapscan/reader_int.h"

#include "access/heapam.h"
#include "access/tableam.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "portability/instr_time.h"
#include "storage/buf_internals.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

/* The buffer that last held block blkno of r's relation, or InvalidBuffer. */
static inline Buffer
gpuops_scan_recent_buf(const GpuopsScanReader *r, BlockNumber blkno)
{
	const GpuopsRecentBuffers *rb = r->recent;

	return rb != NULL && blkno < rb->nblocks ? rb->bufs[blkno] : InvalidBuffer;
}

/*
 * Ask for the buffer header that last held block blkno (which
 * gpuops_scan_read_block pins through it a few pages later): on a machine
 * with large shared_buffers each header is a cache miss, and ReadRecentBuffer
 * writes it (the pin count) at once.
 */
static inline void
gpuops_scan_prefetch_desc(GpuopsScanReader *r, BlockNumber blkno)
{
	Buffer		recent = gpuops_scan_recent_buf(r, blkno);

	if (BufferIsValid(recent) && !BufferIsLocal(recent))
		__builtin_prefetch(GetBufferDescriptor(recent - 1), 1);
}

/* Pin block blkno of r's relation, through its remembered buffer if it still holds it. */
static inline Buffer
gpuops_scan_read_block(GpuopsScanReader *r, BlockNumber blkno)
{
	GpuopsRecentBuffers *rb = r->recent;
	Buffer		recent = gpuops_scan_recent_buf(r, blkno);
	Buffer		buf;

	if (BufferIsValid(recent) &&
		ReadRecentBuffer(r->rel->rd_node, MAIN_FORKNUM, blkno, recent))
	{
		/* what ReadBufferExtended counts for a hit */
		pgstat_count_buffer_read(r->rel);
		pgstat_count_buffer_hit(r->rel);
		return recent;
	}
	buf = ReadBufferExtended(r->rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
							 r->strategy);
	if (rb != NULL && blkno < rb->nblocks)
		rb->bufs[blkno] = buf;
	return buf;
}

/* Release the pins of a page batch and forget its tuples. */
void
gpuops_scan_release_pages(GpuopsPageBatch *pb)
{
	int			i;

	for (i = 0; i < pb->nbufs; i++)
		ReleaseBuffer(pb->bufs[i]);
	pb->nbufs = 0;
	pb->ntups = 0;
	pb->tup_next = 0;
	pb->nsrc = 0;
	pb->src_next = 0;
	pb->loaded = false;
}

/* Adds block blkno to the page batch: to its pages, or to the blocks its source serves. */
static inline void
gpuops_scan_take_block(GpuopsScanReader *r, GpuopsPageBatch *pb,
					   BlockNumber blkno, int *npages)
{
	if (r->source != NULL && r->source->has_block(r->source->arg, blkno))
		pb->src_blocks[pb->nsrc++] = blkno;
	else
		pb->blocks[(*npages)++] = blkno;
}

/*
 * Pin the next page batch and find its visible tuples, each page under its
 * share lock (heapgetpage's page-at-a-time mode): on an all-visible page the
 * line pointer array is copied as it is, on another one only the line
 * pointers of the tuples HeapTupleSatisfiesVisibility accepts.  Pages
 * without any are released at once.  (gpuops_scan_record_pages then finds
 * the tuples.)
 */
static void
gpuops_scan_pin_pages(GpuopsScanReader *r, GpuopsPageBatch *pb)
{
	Relation	rel = r->rel;
	Snapshot	snapshot = r->snapshot;
	int			npages = 0;
	int			kept = 0;
	int			i;
	int32		nlps = 0;
	instr_time	start;
	instr_time	stop;

	Assert(!pb->loaded && pb->nbufs == 0);
	INSTR_TIME_SET_CURRENT(start);

	/*
	 * the blocks: those the source missed, then the next ones in order, or
	 * those the shared scan hands out
	 */
	while (r->nmissed > 0 && npages < r->max_pages)
		pb->blocks[npages++] = r->missed[--r->nmissed];
	if (r->pscan == NULL)
	{
		while (npages + pb->nsrc < r->max_pages && r->next_block < r->nblocks)
			gpuops_scan_take_block(r, pb, r->next_block++, &npages);
	}
	else
		while (npages + pb->nsrc < r->max_pages && !r->pdone)
		{
			BlockNumber blkno = table_block_parallelscan_nextpage(rel, &r->pwork,
																  r->pscan);

			if (blkno == InvalidBlockNumber)
				r->pdone = true;
			else
				gpuops_scan_take_block(r, pb, blkno, &npages);
		}

	/*
	 * Pin the pages first and ask for their headers and line pointers, so
	 * that the cache misses of one page overlap those of the next ones
	 * instead of following them.
	 */
	for (i = 0; i < npages; i++)
	{
		const char *page;

		gpuops_scan_prefetch_desc(r, pb->blocks[i] + GPUOPS_SCAN_PREFETCH_PAGES);
		pb->bufs[i] = gpuops_scan_read_block(r, pb->blocks[i]);
		pb->nbufs = i + 1;		/* released by the resource owner on ERROR */
		page = (const char *) BufferGetPage(pb->bufs[i]);
		__builtin_prefetch(page);
		__builtin_prefetch(page + 64);
	}
	for (i = 0; i < npages; i++)
	{
		Buffer		buf = pb->bufs[i];
		BlockNumber blkno = pb->blocks[i];
		Page		page;
		OffsetNumber lines;
		int32		first = nlps;

		if (i + GPUOPS_SCAN_PREFETCH_PAGES < npages)
		{
			const char *next = (const char *)
				BufferGetPage(pb->bufs[i + GPUOPS_SCAN_PREFETCH_PAGES]);
			int			line;

			for (line = 128; line < 1024; line += 64)
				__builtin_prefetch(next + line);
		}
		heap_page_prune_opt(rel, buf);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		TestForOldSnapshot(snapshot, rel, page);
		lines = PageGetMaxOffsetNumber(page);

		if (PageIsAllVisible(page) && !snapshot->takenDuringRecovery)
		{
			memcpy(pb->lps + nlps, PageGetItemId(page, FirstOffsetNumber),
				   sizeof(ItemIdData) * lines);
			nlps += lines;
		}
		else
		{
			OffsetNumber off;
			ItemId		lpp;

			for (off = FirstOffsetNumber, lpp = PageGetItemId(page, off);
				 off <= lines; off++, lpp++)
			{
				HeapTupleData loctup;

				if (!ItemIdIsNormal(lpp))
					continue;
				loctup.t_tableOid = RelationGetRelid(rel);
				loctup.t_data = (HeapTupleHeader) PageGetItem(page, lpp);
				loctup.t_len = ItemIdGetLength(lpp);
				ItemPointerSet(&loctup.t_self, blkno, off);
				if (HeapTupleSatisfiesVisibility(&loctup, snapshot, buf))
					pb->lps[nlps++] = *lpp;
			}
		}
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		if (nlps > first)
		{
			GpuopsPageRef *pg = &pb->pages[kept];

			pg->page = (const char *) page;
			pg->lp_start = first;
			pg->nlp = nlps - first;
			pb->bufs[kept++] = buf;
		}
		else
			ReleaseBuffer(buf);
	}
	pb->nbufs = kept;
	pb->ntups = 0;
	pb->tup_next = 0;
	pb->loaded = true;
	r->stats.pages += npages;
	INSTR_TIME_SET_CURRENT(stop);
	INSTR_TIME_SUBTRACT(stop, start);
	r->stats.pin_ms += INSTR_TIME_GET_MILLISEC(stop);
}

/* True while blocks are left to pin (in a shared scan: not known to be none). */
static inline bool
gpuops_scan_more_blocks(const GpuopsScanReader *r)
{
	return r->nmissed > 0 ||
		(r->pscan != NULL ? !r->pdone : r->next_block < r->nblocks);
}

/* The threads turn a pinned page batch's line pointers into tuple headers. */
static void
gpuops_scan_record_pages(GpuopsScanReader *r, GpuopsPageBatch *pb)
{
	pb->ntups = gpuops_decode_record(&r->plan, pb->pages, pb->nbufs, pb->lps,
									 pb->page_first, pb->tups);
	pb->tup_next = 0;
}

/*
 * The pin job, run by the backend's own thread inside a decoding parallel
 * region: an ERROR must not leave the region, so it is caught here and
 * raised again once the region has ended.
 */
static void
gpuops_scan_pin_job(void *arg)
{
	GpuopsPinJob *job = (GpuopsPinJob *) arg;
	MemoryContext cxt = CurrentMemoryContext;

	PG_TRY();
	{
		gpuops_scan_pin_pages(job->r, job->pb);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		job->error = CopyErrorData();
		FlushErrorState();
	}
	PG_END_TRY();
}

/*
 * Fill the batch from page batches; true if the table is exhausted.  While
 * the threads decode one page batch, the backend's thread pins the next one
 * (then joins the decoding), so that its page-by-page work, which no other
 * thread may do, overlaps theirs.
 */
bool
gpuops_scan_next_fast(GpuopsScanReader *r)
{
	GpuopsScanBatch *b = &r->batch;

	while (b->nrows < b->capacity)
	{
		GpuopsPageBatch *cur = &r->pb[r->cur];
		GpuopsPageBatch *ahead = &r->pb[1 - r->cur];

		if (cur->tup_next < cur->ntups)
		{
			int64		n = Min(cur->ntups - cur->tup_next,
								b->capacity - b->nrows);
			GpuopsPinJob job;
			bool		pin = r->pin_ahead && !ahead->loaded &&
				gpuops_scan_more_blocks(r);
			int64		kept = n;

			job.r = r;
			job.pb = ahead;
			job.error = NULL;
			if (gpuops_scan_late_now(r))
				kept = gpuops_scan_decode_late(r, cur->tups + cur->tup_next, n,
											   pin ? gpuops_scan_pin_job : NULL,
											   &job);
			else
				gpuops_decode_tuples(&r->plan, cur->tups + cur->tup_next, n, b,
									 b->nrows, pin ? gpuops_scan_pin_job : NULL,
									 &job);
			if (job.error != NULL)
				ReThrowError(job.error);
			if (r->text)
				gpuops_scan_code_text(r, b->nrows, kept);
			cur->tup_next += n;
			b->nrows += kept;
			continue;
		}
		/* then the blocks of the batch that the source serves */
		if (cur->src_next < cur->nsrc && !gpuops_scan_serve_source(r, cur))
			return false;		/* the batch is full */
		gpuops_scan_release_pages(cur);
		CHECK_FOR_INTERRUPTS();
		if (!ahead->loaded)
		{
			if (!gpuops_scan_more_blocks(r))
				return true;
			gpuops_scan_pin_pages(r, ahead);
		}
		r->cur = 1 - r->cur;
		gpuops_scan_record_pages(r, ahead);
	}
	return false;
}

/*
 * Makes the fast path take its blocks from pscan, a block-parallel scan of
 * the reader's relation that other processes share, instead of all of them
 * in order; before the first gpuops_scan_next.  False (nothing changed) on
 * the slot path, which reads every block.
 */
bool
gpuops_scan_set_parallel(GpuopsScanReader *r, ParallelBlockTableScanDesc pscan)
{
	if (!r->stats.fast)
		return false;
	r->pscan = pscan;
	r->pdone = false;
	table_block_parallelscan_startblock_init(r->rel, &r->pwork, pscan);
	return true;
}

/*
 * The buffers this backend remembers for the fast path's relation (*nblocks
 * entries, 0 for none; see recent.c), or NULL.
 */
const Buffer *
gpuops_scan_recent_bufs(const GpuopsScanReader *r, BlockNumber *nblocks)
{
	*nblocks = 0;
	if (!r->stats.fast || r->recent == NULL)
		return NULL;
	*nblocks = r->recent->nblocks;
	return r->recent->bufs;
}

/*
 * Makes the fast path pin through bufs[blkno] (nblocks entries, another
 * process's remembered buffers in shared memory) and note there the buffers
 * it had to look up; processes that share a block-parallel scan read
 * different blocks, so their notes do not collide.
 */
void
gpuops_scan_use_recent(GpuopsScanReader *r, Buffer *bufs, BlockNumber nblocks)
{
	GpuopsRecentBuffers *rb;

	if (!r->stats.fast || bufs == NULL || nblocks == 0)
		return;
	rb = palloc0(sizeof(GpuopsRecentBuffers));
	rb->node = r->rel->rd_node;
	rb->nblocks = nblocks;
	rb->bufs = bufs;
	r->recent = rb;
}
