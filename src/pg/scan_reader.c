/*
 * scan_reader.c
 *	  The column reader: fixed-width columns of one table -> column batches,
 *	  through page batches (heap) or slots (any table AM).
 *
 * Fast path.  The backend pins up to GPUOPS_SCAN_BATCH_PAGES heap pages in
 * block order through the buffer manager (with a bulk-read ring when the
 * table is larger than a quarter of shared_buffers, as a seq scan does;
 * through the buffer that last held the block when scan_recent.c remembers
 * one), then, page by page under its share lock, copies the line pointers
 * of the visible tuples: on a page marked all-visible (and a snapshot not
 * taken during recovery) the whole array, otherwise those of the tuples
 * HeapTupleSatisfiesVisibility accepts; that is heapgetpage's page-at-a-time
 * mode, pruning included.  Then OpenMP threads turn the copies into tuple
 * headers and decode the tuples into the batch (scan_heap_decode.c),
 * and once every tuple of the page batch is delivered the pins are released
 * and interrupts checked.  A page batch may span output batches: a cursor
 * into its recorded tuples carries over, and its pins are held until then
 * (the resource owner releases them on ERROR).
 *
 * Two page batches take turns: while the threads decode one, the backend's
 * own thread pins the next one and copies its line pointers (inside the
 * decoding's parallel region, then it joins the decoding), because that
 * page-by-page work may only run on the backend's thread and on many cores
 * it was half of the read (bench/RESULTS.md).  An ERROR there is caught and
 * raised again after the region.
 *
 * The fast path needs a heap relation, an MVCC snapshot, no CPU qual and an
 * isolation level below SERIALIZABLE (the heap scan's predicate locks and
 * conflict checks are the slot path's).  Everything else takes the slot
 * path: table_beginscan and table_scan_getnextslot, the CPU qual evaluated
 * on each slot, slot_getsomeattrs up to the highest needed attribute.
 */
#include "gpuops_scan.h"

#include "access/heapam.h"
#include "access/tableam.h"
#include "access/tupdesc_details.h"
#include "access/xact.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "utils/guc.h"
#include "pgstat.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "gpo_internal.h"

/* Most heap pages pinned at once by the fast path. */
#ifndef GPUOPS_SCAN_BATCH_PAGES
#define GPUOPS_SCAN_BATCH_PAGES 2048
#endif

/* Pages ahead of the one being read whose line pointers are prefetched. */
#ifndef GPUOPS_SCAN_PREFETCH_PAGES
#define GPUOPS_SCAN_PREFETCH_PAGES 16
#endif

/* Rows between interrupt checks on the slot path. */
#define GPUOPS_SCAN_CFI_ROWS 4096

/*
 * One page batch: its pinned pages, their line pointers copied under each
 * page's lock and, once recorded, the headers of the visible tuples.
 */
typedef struct GpuopsPageBatch
{
	BlockNumber *blocks;		/* [max_pages] the blocks it pins */
	Buffer	   *bufs;			/* [max_pages] pinned buffers */
	int			nbufs;
	GpuopsPageRef *pages;		/* [max_pages] pinned pages with tuples */
	int64	   *page_first;		/* [max_pages] scratch for the recording */
	ItemIdData *lps;			/* [max_pages * MaxHeapTuplesPerPage] copies */
	HeapTupleHeader *tups;		/* [max_pages * MaxHeapTuplesPerPage] */
	int64		ntups;			/* visible tuples (once recorded) */
	int64		tup_next;		/* first one not yet delivered */
	bool		loaded;			/* pinned (and maybe recorded), not released */
} GpuopsPageBatch;

/* What the backend's thread does beside the decoding threads: pin a page batch. */
typedef struct GpuopsPinJob
{
	GpuopsScanReader *r;
	GpuopsPageBatch *pb;
	ErrorData  *error;			/* an error it caught, to raise afterwards */
} GpuopsPinJob;

/*
 * Batch arrays page-locked for the GPU.  It lives in the arrays' memory
 * context, whose reset callback unlocks them, and outlives the reader.
 */
typedef struct GpuopsLockedArrays
{
	MemoryContextCallback unlock;
	int			n;
	void	   *arrays[FLEXIBLE_ARRAY_MEMBER];
} GpuopsLockedArrays;

struct GpuopsScanReader
{
	Relation	rel;
	Snapshot	snapshot;
	GpuopsScanBatch batch;
	void	  **data2;			/* [ncols] the second set of arrays, or NULL */
	uint8	  **validity2;		/* (gpuops_scan_double_buffer) */
	gpo_type   *col_types;		/* [ncols] each array's type */
	GpuopsLockedArrays *locked; /* arrays page-locked for the GPU, or NULL */
	GpuopsScanStats stats;
	GpuopsDecodeCol *dcols;		/* [ncols], sorted by attribute */
	int			maxatt;			/* highest needed attnum */
	bool		done;			/* no rows left */

	/* fast path */
	GpuopsDecodePlan plan;
	BlockNumber nblocks;		/* blocks at begin (or rescan) */
	BlockNumber next_block;		/* first block of the next page batch */
	int			max_pages;		/* pages of one page batch */
	BufferAccessStrategy strategy;	/* bulk-read ring, or NULL */
	GpuopsRecentBuffers *recent;	/* this relation's, or NULL */
	GpuopsPageBatch pb[2];		/* the one decoded, the one pinned ahead */
	int			cur;			/* index of the one decoded */
	bool		pin_ahead;		/* gpuops.pin_ahead at begin */
	ParallelBlockTableScanDesc pscan;	/* blocks shared with other
										 * processes, or NULL: all, in order */
	ParallelBlockTableScanWorkerData pwork; /* this process's share of pscan */
	bool		pdone;			/* pscan has no blocks left */

	/* slot path */
	TableScanDesc scan;
	TupleTableSlot *slot;
	ExprState  *qual;
	ExprContext *econtext;
};

/*
 * The physical batch type of a column type, or false if the reader can't
 * extract it: the device types of arrays (gpuops_device_type), except bool,
 * which the reader stores as int32 (0/1) so that it can be a grouping key.
 */
bool
gpuops_scan_col_type(Oid typid, gpo_type *type)
{
	if (typid == BOOLOID)
	{
		*type = GPO_INT32;
		return true;
	}
	return gpuops_device_type(typid, type);
}

/* The conversion from a stored typid to batch type, or elog if there is none. */
GpuopsScanConv
gpuops_scan_conv(Oid typid, gpo_type type)
{
	switch (typid)
	{
		case INT2OID:
			if (type == GPO_INT32)
				return GPUOPS_CONV_INT16_INT32;
			break;
		case INT4OID:
		case DATEOID:
			if (type == GPO_INT32)
				return GPUOPS_CONV_INT32;
			break;
		case BOOLOID:
			if (type == GPO_INT32)
				return GPUOPS_CONV_BOOL_INT32;
			if (type == GPO_UINT8)
				return GPUOPS_CONV_BOOL_UINT8;
			break;
		case INT8OID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			if (type == GPO_INT64)
				return GPUOPS_CONV_INT64;
			break;
		case FLOAT4OID:
			if (type == GPO_FLOAT32)
				return GPUOPS_CONV_FLOAT32;
			break;
		case FLOAT8OID:
			if (type == GPO_FLOAT64)
				return GPUOPS_CONV_FLOAT64;
			break;
	}
	elog(ERROR, "gpuops column reader: type %u can't be read as %s",
		 typid, gpo_type_name(type));
	return GPUOPS_CONV_INT32;	/* keep compiler quiet */
}

/* qsort comparator of decode columns by attribute, then batch column. */
static int
gpuops_scan_dcol_cmp(const void *a, const void *b)
{
	const GpuopsDecodeCol *x = (const GpuopsDecodeCol *) a;
	const GpuopsDecodeCol *y = (const GpuopsDecodeCol *) b;

	if (x->attidx != y->attidx)
		return x->attidx < y->attidx ? -1 : 1;
	return x->out < y->out ? -1 : (x->out > y->out ? 1 : 0);
}

/* Check cols against the relation and describe them for the decoders. */
static void
gpuops_scan_setup_cols(GpuopsScanReader *r, int ncols,
					   const GpuopsScanCol *cols)
{
	TupleDesc	desc = RelationGetDescr(r->rel);
	int			i;

	r->dcols = palloc0(sizeof(GpuopsDecodeCol) * Max(ncols, 1));
	r->maxatt = 0;
	for (i = 0; i < ncols; i++)
	{
		const GpuopsScanCol *col = &cols[i];
		GpuopsDecodeCol *dc = &r->dcols[i];
		Form_pg_attribute att;

		if (col->attnum < 1 || col->attnum > desc->natts)
			elog(ERROR, "gpuops column reader: relation \"%s\" has no column %d",
				 RelationGetRelationName(r->rel), col->attnum);
		att = TupleDescAttr(desc, col->attnum - 1);
		if (att->attisdropped)
			elog(ERROR, "gpuops column reader: column %d of relation \"%s\" is dropped",
				 col->attnum, RelationGetRelationName(r->rel));
		if (att->atttypid != col->typid &&
			getBaseType(att->atttypid) != col->typid)
			elog(ERROR, "gpuops column reader: column %d of relation \"%s\" has type %u, not %u",
				 col->attnum, RelationGetRelationName(r->rel),
				 att->atttypid, col->typid);
		dc->attidx = col->attnum - 1;
		if (col->encode != NULL)
		{
			if (col->type != GPO_INT32)
				elog(ERROR, "gpuops column reader: encoded columns are int32");
			dc->conv = GPUOPS_CONV_ENCODE;
			dc->encode = col->encode;
			dc->encode_arg = col->encode_arg;
		}
		else
			dc->conv = gpuops_scan_conv(col->typid, col->type);
		dc->data = r->batch.data[i];
		dc->validity = r->batch.validity[i];
		dc->out = i;

		/* the value of a tuple stored before the column was added */
		dc->miss_null = true;
		dc->miss_value = (Datum) 0;
		if (att->atthasmissing && desc->constr && desc->constr->missing)
		{
			AttrMissing *miss = &desc->constr->missing[col->attnum - 1];

			if (miss->am_present)
			{
				dc->miss_null = false;
				dc->miss_value = miss->am_value;
			}
		}
		r->maxatt = Max(r->maxatt, col->attnum);
	}
	qsort(r->dcols, ncols, sizeof(GpuopsDecodeCol), gpuops_scan_dcol_cmp);
}

/* True if the page-batch path may read rel under snapshot. */
static bool
gpuops_scan_can_fast(Relation rel, Snapshot snapshot, ExprState *cpu_qual)
{
	if (cpu_qual != NULL)
		return false;
	if (rel->rd_tableam != GetHeapamTableAmRoutine() ||
		rel->rd_rel->relam != HEAP_TABLE_AM_OID)
		return false;
	if (snapshot == NULL || !IsMVCCSnapshot(snapshot))
		return false;
	if (IsolationIsSerializable())
		return false;
	return true;
}

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

/* Starts reading cols of rel under snapshot in batches of batch_rows. */
GpuopsScanReader *
gpuops_scan_begin(Relation rel, Snapshot snapshot, int ncols,
				  const GpuopsScanCol *cols, int64 batch_rows,
				  ExprState *cpu_qual, ExprContext *econtext,
				  bool allow_fast, int nthreads)
{
	GpuopsScanReader *r = palloc0(sizeof(GpuopsScanReader));
	GpuopsScanBatch *b = &r->batch;
	int			i;

	if (ncols < 0 || batch_rows < 1)
		elog(ERROR, "gpuops column reader: bad arguments (%d columns, %lld rows a batch)",
			 ncols, (long long) batch_rows);
	if (rel->rd_tableam == NULL)
		elog(ERROR, "gpuops column reader: relation \"%s\" has no table access method",
			 RelationGetRelationName(rel));
	if (cpu_qual != NULL && econtext == NULL)
		elog(ERROR, "gpuops column reader: a CPU qual needs an expression context");

	r->rel = rel;
	r->snapshot = snapshot;
	r->qual = cpu_qual;
	r->econtext = econtext;

	/* the batch */
	b->ncols = ncols;
	b->capacity = batch_rows;
	b->data = palloc0(sizeof(void *) * Max(ncols, 1));
	b->validity = palloc0(sizeof(uint8 *) * Max(ncols, 1));
	b->has_nulls = palloc0(sizeof(bool) * Max(ncols, 1));
	r->col_types = palloc0(sizeof(gpo_type) * Max(ncols, 1));
	for (i = 0; i < ncols; i++)
	{
		r->col_types[i] = cols[i].type;
		b->data[i] = palloc_extended(batch_rows * gpo_type_size(cols[i].type),
									 MCXT_ALLOC_HUGE);
		b->validity[i] = palloc_extended((batch_rows + 7) / 8, MCXT_ALLOC_HUGE);
	}
	gpuops_scan_setup_cols(r, ncols, cols);

	r->stats.fast = allow_fast && gpuops_scan_can_fast(rel, snapshot, cpu_qual);
	for (i = 0; i < ncols; i++)
		if (cols[i].encode != NULL)
			r->stats.fast = false;	/* the decoders only read fixed widths */
	if (r->stats.fast)
	{
		int			pages = GPUOPS_SCAN_BATCH_PAGES;

		/* leave most buffers unpinned for the other backends (two batches) */
		if (RelationUsesLocalBuffers(rel))
			pages = Min(pages, Max(num_temp_buffers / 8, 1));
		else
			pages = Min(pages, Max(NBuffers / 32, 1));
		r->max_pages = pages;
		r->pin_ahead = gpuops_pin_ahead;
		for (i = 0; i < 2; i++)
		{
			GpuopsPageBatch *pb = &r->pb[i];

			pb->blocks = palloc(sizeof(BlockNumber) * pages);
			pb->bufs = palloc(sizeof(Buffer) * pages);
			pb->pages = palloc(sizeof(GpuopsPageRef) * pages);
			pb->page_first = palloc(sizeof(int64) * pages);
			pb->lps = palloc_extended(sizeof(ItemIdData) * pages *
									  MaxHeapTuplesPerPage, MCXT_ALLOC_HUGE);
			pb->tups = palloc_extended(sizeof(HeapTupleHeader) * pages *
									   MaxHeapTuplesPerPage, MCXT_ALLOC_HUGE);
		}
		gpuops_decode_plan_init(&r->plan, RelationGetDescr(rel), ncols,
								r->dcols, nthreads);
		if (r->plan.nthreads > 1)
			gpo_omp_prepare(r->plan.nthreads);
		r->nblocks = RelationGetNumberOfBlocks(rel);
		if (!RelationUsesLocalBuffers(rel) && r->nblocks > NBuffers / 4)
			r->strategy = GetAccessStrategy(BAS_BULKREAD);
		r->recent = gpuops_recent_buffers(rel, r->nblocks);
	}
	else
	{
		r->scan = table_beginscan(rel, snapshot, 0, NULL);
		r->slot = table_slot_create(rel, NULL);
	}
	return r;
}

/* Release the pins of a page batch and forget its tuples. */
static void
gpuops_scan_release_pages(GpuopsPageBatch *pb)
{
	int			i;

	for (i = 0; i < pb->nbufs; i++)
		ReleaseBuffer(pb->bufs[i]);
	pb->nbufs = 0;
	pb->ntups = 0;
	pb->tup_next = 0;
	pb->loaded = false;
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

	/* the blocks: the next ones in order, or those the shared scan hands out */
	if (r->pscan == NULL)
	{
		BlockNumber end = r->next_block + Min((BlockNumber) r->max_pages,
											  r->nblocks - r->next_block);

		for (; r->next_block < end; r->next_block++)
			pb->blocks[npages++] = r->next_block;
	}
	else
		while (npages < r->max_pages && !r->pdone)
		{
			BlockNumber blkno = table_block_parallelscan_nextpage(rel, &r->pwork,
																  r->pscan);

			if (blkno == InvalidBlockNumber)
				r->pdone = true;
			else
				pb->blocks[npages++] = blkno;
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
	return r->pscan != NULL ? !r->pdone : r->next_block < r->nblocks;
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
static bool
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

			job.r = r;
			job.pb = ahead;
			job.error = NULL;
			gpuops_decode_tuples(&r->plan, cur->tups + cur->tup_next, n, b,
								 b->nrows, pin ? gpuops_scan_pin_job : NULL,
								 &job);
			if (job.error != NULL)
				ReThrowError(job.error);
			cur->tup_next += n;
			b->nrows += n;
			continue;
		}
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

/* Fill the batch from slots; true if the table is exhausted. */
static bool
gpuops_scan_next_slot(GpuopsScanReader *r)
{
	GpuopsScanBatch *b = &r->batch;
	TupleTableSlot *slot = r->slot;
	int			ncols = b->ncols;
	int64		since_cfi = 0;

	while (b->nrows < b->capacity)
	{
		int64		row = b->nrows;
		int			c;

		if (++since_cfi >= GPUOPS_SCAN_CFI_ROWS)
		{
			CHECK_FOR_INTERRUPTS();
			since_cfi = 0;
		}
		if (!table_scan_getnextslot(r->scan, ForwardScanDirection, slot))
			return true;
		if (r->qual != NULL)
		{
			bool		keep;

			ResetExprContext(r->econtext);
			r->econtext->ecxt_scantuple = slot;
			keep = ExecQual(r->qual, r->econtext);
			if (!keep)
			{
				r->stats.cpu_filtered++;
				continue;
			}
		}
		slot_getsomeattrs(slot, r->maxatt);
		for (c = 0; c < ncols; c++)
		{
			const GpuopsDecodeCol *dc = &r->dcols[c];

			if (slot->tts_isnull[dc->attidx])
			{
				gpuops_scan_put_null(dc, row);
				b->has_nulls[dc->out] = true;
			}
			else if (dc->conv == GPUOPS_CONV_ENCODE)
				((int32 *) dc->data)[row] =
					dc->encode(dc->encode_arg, slot->tts_values[dc->attidx]);
			else
				gpuops_scan_put_datum(dc->conv, dc->data, row,
									  slot->tts_values[dc->attidx]);
		}
		b->nrows++;
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
 * entries, 0 for none; see scan_recent.c), or NULL.
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

/* Lowers the fast path's decoding threads to at most nthreads (at least 1). */
void
gpuops_scan_limit_threads(GpuopsScanReader *r, int nthreads)
{
	if (r->stats.fast && nthreads >= 1 && nthreads < r->plan.nthreads)
		r->plan.nthreads = nthreads;
}

/* Exchanges the batch's arrays with the second set, for the decoders too. */
static void
gpuops_scan_swap_buffers(GpuopsScanReader *r)
{
	GpuopsScanBatch *b = &r->batch;
	int			i;

	for (i = 0; i < b->ncols; i++)
	{
		void	   *data = b->data[i];
		uint8	   *validity = b->validity[i];

		b->data[i] = r->data2[i];
		b->validity[i] = r->validity2[i];
		r->data2[i] = data;
		r->validity2[i] = validity;
	}
	for (i = 0; i < b->ncols; i++)
	{
		GpuopsDecodeCol *dc = &r->dcols[i];

		dc->data = b->data[dc->out];
		dc->validity = b->validity[dc->out];
	}
}

/*
 * Gives the reader a second set of batch arrays: each gpuops_scan_next then
 * fills the set the call before did not, so the caller may go on reading a
 * batch's arrays (from another thread, say) until the call after next.
 */
void
gpuops_scan_double_buffer(GpuopsScanReader *r)
{
	GpuopsScanBatch *b = &r->batch;
	int			i;

	if (r->data2 != NULL)
		return;
	r->data2 = palloc0(sizeof(void *) * Max(b->ncols, 1));
	r->validity2 = palloc0(sizeof(uint8 *) * Max(b->ncols, 1));
	for (i = 0; i < b->ncols; i++)
	{
		r->data2[i] = palloc_extended(b->capacity * gpo_type_size(r->col_types[i]),
									  MCXT_ALLOC_HUGE);
		r->validity2[i] = palloc_extended((b->capacity + 7) / 8, MCXT_ALLOC_HUGE);
	}
}

/* Unlocks page-locked batch arrays (reset callback, and at the end). */
static void
gpuops_scan_unlock_arrays(void *arg)
{
	GpuopsLockedArrays *la = (GpuopsLockedArrays *) arg;
	int			i;

	for (i = 0; i < la->n; i++)
		gpo_host_unregister(la->arrays[i]);
	la->n = 0;
}

/*
 * Page-locks the batch's value arrays (both sets, after
 * gpuops_scan_double_buffer) so that the GPU faces copy them to the device
 * directly, without a host copy into their staging buffers; an array that
 * can't be locked goes through staging as before.  The arrays are unlocked
 * before they are freed, also when an error frees them.
 */
void
gpuops_scan_lock_arrays(GpuopsScanReader *r)
{
	GpuopsScanBatch *b = &r->batch;
	MemoryContext cxt;
	GpuopsLockedArrays *la;
	size_t		bytes;
	int			i;

	if (r->locked != NULL || b->ncols == 0)
		return;
	cxt = GetMemoryChunkContext(b->data[0]);
	la = MemoryContextAllocZero(cxt, offsetof(GpuopsLockedArrays, arrays) +
								sizeof(void *) * 2 * b->ncols);
	la->unlock.func = gpuops_scan_unlock_arrays;
	la->unlock.arg = la;
	MemoryContextRegisterResetCallback(cxt, &la->unlock);
	r->locked = la;
	for (i = 0; i < b->ncols; i++)
	{
		bytes = b->capacity * gpo_type_size(r->col_types[i]);
		if (gpo_host_register(b->data[i], bytes))
			la->arrays[la->n++] = b->data[i];
		if (r->data2 != NULL && gpo_host_register(r->data2[i], bytes))
			la->arrays[la->n++] = r->data2[i];
	}
}

/* Fills the next batch; false (and nrows 0) when the table is exhausted. */
bool
gpuops_scan_next(GpuopsScanReader *r, GpuopsScanBatch **batch)
{
	GpuopsScanBatch *b = &r->batch;
	instr_time	start;
	instr_time	end;
	int			i;

	*batch = b;
	b->nrows = 0;
	if (r->done)
		return false;

	INSTR_TIME_SET_CURRENT(start);
	if (r->data2 != NULL)
		gpuops_scan_swap_buffers(r);
	for (i = 0; i < b->ncols; i++)
	{
		/* every row valid until a NULL clears its bit */
		memset(b->validity[i], 0xFF, (b->capacity + 7) / 8);
		b->has_nulls[i] = false;
	}
	if (r->stats.fast)
		r->done = gpuops_scan_next_fast(r);
	else
		r->done = gpuops_scan_next_slot(r);
	r->stats.tuples += b->nrows;
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_SUBTRACT(end, start);
	r->stats.read_ms += INSTR_TIME_GET_MILLISEC(end);
	return b->nrows > 0;
}

/* Restarts from the first block (for rescans). */
void
gpuops_scan_rescan(GpuopsScanReader *r)
{
	r->done = false;
	r->batch.nrows = 0;
	if (r->stats.fast)
	{
		gpuops_scan_release_pages(&r->pb[0]);
		gpuops_scan_release_pages(&r->pb[1]);
		r->cur = 0;
		r->next_block = 0;
		r->pscan = NULL;		/* a rescan reads every block itself */
		r->pdone = false;
		r->nblocks = RelationGetNumberOfBlocks(r->rel);
		r->recent = gpuops_recent_buffers(r->rel, r->nblocks);
	}
	else
		table_rescan(r->scan, NULL);
}

/* The reader's counters so far. */
const GpuopsScanStats *
gpuops_scan_stats(const GpuopsScanReader *r)
{
	return &r->stats;
}

/* Releases pins, ends the table scan and frees the batch. */
void
gpuops_scan_end(GpuopsScanReader *r)
{
	int			i;

	if (r->stats.fast)
	{
		for (i = 0; i < 2; i++)
		{
			GpuopsPageBatch *pb = &r->pb[i];

			gpuops_scan_release_pages(pb);
			pfree(pb->blocks);
			pfree(pb->bufs);
			pfree(pb->pages);
			pfree(pb->page_first);
			pfree(pb->lps);
			pfree(pb->tups);
		}
		if (r->strategy != NULL)
			FreeAccessStrategy(r->strategy);
		pfree(r->plan.attlen);
		pfree(r->plan.attalign);
		pfree(r->plan.fixoff);
		pfree(r->plan.seen);
	}
	else
	{
		ExecDropSingleTupleTableSlot(r->slot);
		table_endscan(r->scan);
	}
	if (r->locked != NULL)
		gpuops_scan_unlock_arrays(r->locked);
	for (i = 0; i < r->batch.ncols; i++)
	{
		pfree(r->batch.data[i]);
		pfree(r->batch.validity[i]);
	}
	if (r->data2 != NULL)
	{
		for (i = 0; i < r->batch.ncols; i++)
		{
			pfree(r->data2[i]);
			pfree(r->validity2[i]);
		}
		pfree(r->data2);
		pfree(r->validity2);
	}
	pfree(r->batch.data);
	pfree(r->batch.validity);
	pfree(r->batch.has_nulls);
	pfree(r->col_types);
	pfree(r->dcols);
	pfree(r);
}
