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
#include "service/gpuops_service.h"
#include "gpo_resident.h"

/* gpuops.use_cache: queries read cached ranges. */
extern bool gpuops_use_cache;

/* Defines the cache's settings and, when preloaded, asks for its shared memory. */
extern void gpuops_cache_init(void);

/* The cache's source of a reader. */
typedef struct GpuopsCacheSource GpuopsCacheSource;

/*
 * Makes the reader of cols of rel take the blocks the cache holds fresh
 * from it (the fast path only, and only when every column is cached);
 * memory in CurrentMemoryContext, which must outlive the reader.  Returns
 * the reader's source, or NULL when the cache can't serve it.
 */
extern GpuopsCacheSource *gpuops_cache_attach_reader(GpuopsScanReader *r,
													 Relation rel, int ncols,
													 const GpuopsScanCol *cols,
													 int nthreads);

/* The ranges the GPU service keeps fresh for a reader's columns. */
typedef struct GpuopsCacheKept
{
	int			service;		/* the service that keeps them */
	int			nsets;
	GpuopsServiceRangeKey *sets;	/* [nsets] */
	BlockNumber *ends;			/* [nsets] where each one's blocks end */
	const int  *cidx;			/* [reader columns] each one's kept column */
	int64		rows;			/* rows in them */
	int64		blocks;			/* the table's blocks they cover (all of
								 * them: table_blocks) */
	int64		table_blocks;	/* the table's, when they were found */
} GpuopsCacheKept;

/*
 * The fresh ranges of the reader's table in the host cache, for the CPU
 * face to aggregate where they lie: one engine view (gpo_resident_view)
 * of all the cached columns a range, valid while the table's slot lock is
 * held shared, from gpuops_cache_direct_begin to gpuops_cache_direct_end
 * (or an error).  kept.cidx maps the reader's columns to the views'.
 */
typedef struct GpuopsCacheDirect
{
	GpuopsCacheKept kept;		/* the ranges (kept.sets[].range), their
								 * ends, rows and blocks */
	gpo_resident **views;		/* [kept.nsets] */
	struct GpuopsCacheTable *t; /* whose lock is held */
	MemoryContextCallback cb;	/* frees the views on a reset */
} GpuopsCacheDirect;

/*
 * The reader's table's fresh host ranges as views, the slot's lock taken
 * shared (after the query's snapshot); NULL, with no lock, when there is
 * none.  Hold it briefly: refills wait for it.
 */
extern GpuopsCacheDirect *gpuops_cache_direct_begin(GpuopsCacheSource *cs,
													Relation rel);
/* Frees the views and releases the lock. */
extern void gpuops_cache_direct_end(GpuopsCacheDirect *d);

/*
 * The ranges of the reader's table that are fresh now and kept by the GPU
 * service with every column the reader reads (after the query's snapshot
 * was taken); NULL when there is none.
 */
extern GpuopsCacheKept *gpuops_cache_kept(GpuopsCacheSource *cs, Relation rel);
/*
 * Makes the reader pass over the blocks of kept's ranges (aggregated
 * already); NULL: over none.
 */
extern void gpuops_cache_skip_kept(GpuopsCacheSource *cs,
								   const GpuopsCacheKept *kept);
/*
 * The blocks a reader passes over, for worker processes: per range, where
 * its passed-over blocks end (*ends); returns the ranges (0: none).
 */
extern int64 gpuops_cache_skip_ends(const GpuopsCacheSource *cs,
									const BlockNumber **ends);
/* Makes a worker's reader pass over the same blocks (nskip ranges of ends). */
extern void gpuops_cache_skip_set(GpuopsCacheSource *cs, int64 nskip,
								  const BlockNumber *ends);

/*
 * For the planner: the share of relation relid's blocks (by its pages) that
 * the cache holds fresh now with every column of attnos (attribute numbers
 * offset by FirstLowInvalidHeapAttributeNumber); 0 when it can't serve them.
 */
extern double gpuops_cache_fresh_share(Oid relid, double pages,
									   Bitmapset *attnos);

#endif							/* GPUOPS_CACHE_H */
