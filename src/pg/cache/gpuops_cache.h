/*
 * gpuops_cache.h
 *	  The column cache: decoded columns of the all-visible block ranges of
 *	  the tables a DBA marked (gpuops.cache_table), kept in shared memory and
 *	  served to the column reader instead of the heap while no change
 *	  touched their blocks.
 */
#ifndef GPUOPS_CACHE_H
#define GPUOPS_CACHE_H

#include "heapscan/gpuops_scan.h"

/* gpuops.use_cache: queries read cached ranges. */
extern bool gpuops_use_cache;

/* Defines the cache's settings and, when preloaded, asks for its shared memory. */
extern void gpuops_cache_init(void);

/*
 * Makes the reader of cols of rel take the blocks the cache holds fresh
 * from it (the fast path only, and only when every column is cached);
 * memory in CurrentMemoryContext, which must outlive the reader.
 */
extern void gpuops_cache_attach_reader(GpuopsScanReader *r, Relation rel,
									   int ncols, const GpuopsScanCol *cols,
									   int nthreads);

/*
 * For the planner: the share of relation relid's blocks (by its pages) that
 * the cache holds fresh now with every column of attnos (attribute numbers
 * offset by FirstLowInvalidHeapAttributeNumber); 0 when it can't serve them.
 */
extern double gpuops_cache_fresh_share(Oid relid, double pages,
									   Bitmapset *attnos);

#endif							/* GPUOPS_CACHE_H */
