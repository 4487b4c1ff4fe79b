/*
 * recent.c
 *	  Which shared buffer last held each block of the relations this backend
 *	  read: the column reader pins a block again through that buffer.
 *
 * ReadRecentBuffer pins a buffer if its tag still names the block, checking
 * it under the buffer header's lock; that skips the shared buffer mapping
 * table, whose lookup was most of the backend's own work per page (on 2
 * cores, 21 of 28 ms per 1e7 rows; bench/RESULTS.md).  A stale entry (the
 * buffer since given to another block) costs one failed check, then the
 * reader falls back to ReadBufferExtended.  The memory lives in
 * TopMemoryContext: 4 bytes a block, for the last GPUOPS_RECENT_RELS
 * relations of at most GPUOPS_RECENT_MAX_BLOCKS blocks.
 */
#include "heapscan/gpuops_scan.h"

#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

/* Relations remembered. */
#define GPUOPS_RECENT_RELS 4
/* Largest relation remembered, in blocks (4 bytes each: 16 MB, for 32 GB). */
#define GPUOPS_RECENT_MAX_BLOCKS ((BlockNumber) 4 * 1024 * 1024)

static GpuopsRecentBuffers gpuops_recent[GPUOPS_RECENT_RELS];
static uint64 gpuops_recent_clock = 0;

/*
 * The remembered buffers of rel's main fork, covering at least nblocks
 * blocks (the least recently used slot is taken over for a new relation),
 * or NULL for a relation too large or in local buffers.
 */
GpuopsRecentBuffers *
gpuops_recent_buffers(Relation rel, BlockNumber nblocks)
{
	GpuopsRecentBuffers *rb = NULL;
	int			i;

	if (RelationUsesLocalBuffers(rel) || nblocks == 0 ||
		nblocks > GPUOPS_RECENT_MAX_BLOCKS)
		return NULL;
	for (i = 0; i < GPUOPS_RECENT_RELS; i++)
		if (gpuops_recent[i].bufs != NULL &&
			RelFileNodeEquals(gpuops_recent[i].node, rel->rd_node))
		{
			rb = &gpuops_recent[i];
			break;
		}
	if (rb == NULL)
	{
		rb = &gpuops_recent[0];
		for (i = 1; i < GPUOPS_RECENT_RELS; i++)
			if (gpuops_recent[i].last_use < rb->last_use)
				rb = &gpuops_recent[i];
		if (rb->bufs != NULL)
			pfree(rb->bufs);
		rb->bufs = NULL;
		rb->nblocks = 0;
		rb->node = rel->rd_node;
	}
	if (rb->nblocks < nblocks)
	{
		Buffer	   *bufs = MemoryContextAllocExtended(TopMemoryContext,
													  sizeof(Buffer) * nblocks,
													  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);

		if (rb->bufs != NULL)
		{
			memcpy(bufs, rb->bufs, sizeof(Buffer) * rb->nblocks);
			pfree(rb->bufs);
		}
		rb->bufs = bufs;
		rb->nblocks = nblocks;
	}
	rb->last_use = ++gpuops_recent_clock;
	return rb;
}
