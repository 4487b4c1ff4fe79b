/*
 * resident.c
 *	  How much of a relation lies in shared buffers, from a sample of its
 *	  blocks: what the planner's page-read cost of GpuOpsAgg turns on.
 *
 * A block found in shared buffers is pinned without a read from the
 * kernel's cache; one that is not is copied in by the process that reads
 * it.  A native parallel plan spreads those copies (and, in processes new
 * to the buffers, the page faults of mapping them) over its workers, the
 * node over its own processes, so a table out of shared buffers costs the
 * node more than one in them (agg_cost.c, gpuops_agg_page_factor).  The
 * sample looks the blocks up in the buffer mapping table under its
 * partition locks, held shared one at a time: no I/O, no pin.
 */
#include "heapscan/gpuops_scan.h"

#include "access/table.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"

/* Blocks sampled at most. */
#define GPUOPS_RESIDENT_SAMPLE	64

/* Whether block blk of rnode's main fork is in shared buffers now. */
static bool
gpuops_block_resident(RelFileNode rnode, BlockNumber blk)
{
	BufferTag	tag;
	uint32		hash;
	LWLock	   *lock;
	int			id;

	INIT_BUFFERTAG(tag, rnode, MAIN_FORKNUM, blk);
	hash = BufTableHashCode(&tag);
	lock = BufMappingPartitionLock(hash);
	LWLockAcquire(lock, LW_SHARED);
	id = BufTableLookup(&tag, hash);
	LWLockRelease(lock);
	return id >= 0;
}

/*
 * The share (0 .. 1) of relid's first nblocks blocks found in shared
 * buffers, from up to GPUOPS_RESIDENT_SAMPLE blocks spread evenly over
 * them; 0 for a relation in local buffers or without blocks.  The caller
 * holds a lock on relid (the planner's).
 */
double
gpuops_resident_share(Oid relid, BlockNumber nblocks)
{
	Relation	rel;
	RelFileNode rnode;
	bool		local;
	int			n;
	int			found = 0;
	int			i;

	if (nblocks == 0)
		return 0.0;
	rel = table_open(relid, NoLock);
	rnode = rel->rd_node;
	local = RelationUsesLocalBuffers(rel);
	table_close(rel, NoLock);
	if (local)
		return 0.0;
	n = (int) Min((BlockNumber) GPUOPS_RESIDENT_SAMPLE, nblocks);
	for (i = 0; i < n; i++)
	{
		BlockNumber blk = (BlockNumber) (((uint64) nblocks * i + nblocks / 2) / n);

		if (gpuops_block_resident(rnode, blk))
			found++;
	}
	return (double) found / n;
}
