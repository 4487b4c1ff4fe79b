/*
 * reader_int.h
 *	  The column reader's state, shared by its files: reader.c (the API and
 *	  the columns), pages.c (page batches: pinning, visibility, the parallel
 *	  share, remembered buffers), slots.c (the slot path) and staging.c (the
 *	  second set of batch arrays and their page-locking).
 */
#ifndef GPUOPS_READER_INT_H
#define GPUOPS_READER_INT_H

#include "heapscan/gpuops_scan.h"

#include "access/relscan.h"
#include "storage/bufmgr.h"

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
	BlockNumber *src_blocks;	/* [max_pages] blocks left to the source */
	int			nsrc;
	int			src_next;		/* first one not yet served */
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
	bool		unfit;			/* a numeric value the batch can't hold */

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
	const GpuopsScanSource *source; /* blocks already decoded, or NULL */
	BlockNumber *missed;		/* [2 * max_pages] blocks the source could
								 * not serve after all: pinned first */
	int			nmissed;
	bool		text;			/* some column is GPUOPS_CONV_TEXT_REF */
	MemoryContext text_cxt;		/* detoasted strings of one page batch */
	GpuopsScanPrefilter prefilter;	/* or NULL (late.c) */
	void	   *prefilter_arg;
	GpuopsDecodePlan early;		/* the columns the prefilter reads */
	GpuopsDecodeCol *early_cols;
	uint8	   *keep;			/* [capacity] the prefilter's answer */
	HeapTupleHeader *kept_tups; /* [max_pages * MaxHeapTuplesPerPage] */
	int			late_pause;		/* page batches left in one pass */

	/* slot path */
	TableScanDesc scan;
	TupleTableSlot *slot;
	ExprState  *qual;
	ExprContext *econtext;
};

/* ---- pages.c ---- */

/* Release the pins of a page batch and forget its tuples. */
extern void gpuops_scan_release_pages(GpuopsPageBatch *pb);
/* Fill the batch from page batches; true if the table is exhausted. */
extern bool gpuops_scan_next_fast(GpuopsScanReader *r);

/* ---- source.c ---- */

/*
 * Serves the page batch's source blocks into the batch; true when it has
 * none left (false: the batch is full).
 */
extern bool gpuops_scan_serve_source(GpuopsScanReader *r, GpuopsPageBatch *pb);

/* ---- late.c ---- */

/* True if the next page batch's rows are prefiltered. */
extern bool gpuops_scan_late_now(GpuopsScanReader *r);
/*
 * Decodes tuples into the batch from row nrows on, only those the
 * prefilter keeps; returns how many.
 */
extern int64 gpuops_scan_decode_late(GpuopsScanReader *r,
									 HeapTupleHeader const *tups,
									 int64 ntups, void (*beside) (void *),
									 void *arg);
/* Points the early columns at the batch's current arrays (after a swap). */
extern void gpuops_scan_late_arrays(GpuopsScanReader *r);

/* ---- text.c ---- */

/*
 * Codes the text columns of batch rows lo .. lo + n - 1 (decoded from the
 * pages still pinned): detoasts what must be, then calls each column's
 * encode_many.
 */
extern void gpuops_scan_code_text(GpuopsScanReader *r, int64 lo, int64 n);
/* The same for the text columns among cols[0 .. ncols - 1]. */
extern void gpuops_scan_code_cols(GpuopsScanReader *r, GpuopsDecodeCol *cols,
								  int ncols, int64 lo, int64 n);

/* ---- slots.c ---- */

/* Fill the batch from slots; true if the table is exhausted. */
extern bool gpuops_scan_next_slot(GpuopsScanReader *r);

/* ---- staging.c ---- */

/* Exchanges the batch's arrays with the second set, for the decoders too. */
extern void gpuops_scan_swap_buffers(GpuopsScanReader *r);
/* Unlocks page-locked batch arrays (reset callback, and at the end). */
extern void gpuops_scan_unlock_arrays(void *arg);

#endif							/* GPUOPS_READER_INT_H */
