/*
 * cache_int.h
 *	  The column cache's shared state, shared by its files: cache_shmem.c
 *	  (the table slots, the area, the settings), cache_fill.c (reading
 *	  all-visible ranges into it), cache_serve.c (the reader's source) and
 *	  cache_sql.c (the SQL functions and the trigger).
 *
 * Per cached table a slot in the main shared memory holds its identity
 * (database, relation, relfilenode), the columns it keeps and an array of
 * block ranges in a DSA area.  A range holds, for the tuples of its blocks
 * that were all-visible when it was read, each column's values and NULL
 * bits, and the row where each block's tuples end.  Its gen counts the
 * changes of its blocks (the row trigger bumps it before the change
 * commits); the range is fresh while gen equals the filled_gen its data was
 * read at.  Data is replaced and freed only under the slot's lock held
 * exclusively; readers copy under it held shared.
 */
#ifndef GPUOPS_CACHE_INT_H
#define GPUOPS_CACHE_INT_H

#include "cache/gpuops_cache.h"

#include "port/atomics.h"
#include "storage/lwlock.h"
#include "utils/dsa.h"

#define GPUOPS_CACHE_MAX_TABLES 32
#define GPUOPS_CACHE_MAX_COLS 64

/* One cached column. */
typedef struct GpuopsCacheCol
{
	AttrNumber	attnum;
	Oid			typid;
	int32		typmod;
	gpo_type	type;			/* as the reader's batches hold it */
} GpuopsCacheCol;

/* One block range. */
typedef struct GpuopsCacheRange
{
	pg_atomic_uint32 gen;		/* changes of its blocks so far */
	pg_atomic_uint64 last_used; /* the cache's clock when last read or
								 * served (least recently used go first) */
	uint32		filled_gen;		/* gen its data was read at */
	dsa_pointer data;			/* InvalidDsaPointer: not cached */
	int32		nblocks;		/* blocks the data covers (from the range's
								 * first) */
	int64		nrows;
	int64		bytes;
} GpuopsCacheRange;

/* One cached table. */
typedef struct GpuopsCacheTable
{
	LWLock	   *lock;
	bool		in_use;
	bool		auto_refresh;	/* the refresher reads its stale ranges */
	bool		grown;			/* a change touched a block past its ranges
								 * (a hint for the refresher) */
	bool		broken;			/* its triggers were altered or dropped:
								 * nothing served until cache_table again */
	uint32		serial;			/* changes each time the slot is taken */
	Oid			dbid;
	Oid			relid;
	RelFileNode node;			/* the relation's file when cached */
	int			range_blocks;
	int			ncols;
	GpuopsCacheCol cols[GPUOPS_CACHE_MAX_COLS];
	int64		nranges;
	dsa_pointer ranges;			/* [nranges] GpuopsCacheRange */
	pg_atomic_uint64 hits;		/* ranges' blocks served to queries */
} GpuopsCacheTable;

typedef struct GpuopsCacheShared
{
	LWLock	   *lock;			/* the slots' identities and the area */
	dsa_handle	area;			/* DSM_HANDLE_INVALID until first used */
	int			tranche;
	pg_atomic_uint64 bytes;		/* range data in the area */
	pg_atomic_uint64 clock;		/* ticks at every serving and filling */
	pg_atomic_uint64 evictions; /* ranges freed for others */
	uint32		next_serial;
	GpuopsCacheTable tables[GPUOPS_CACHE_MAX_TABLES];
} GpuopsCacheShared;

/*
 * A range's data: int32 row_end[nblocks], then per column its values
 * (8-byte aligned), then per column its NULL bits (set = not NULL), then
 * per column the smallest and largest valid value of an int4 or int8
 * column (int64 pairs; the first larger: none valid, or another type),
 * then per column whether any is NULL.
 */
typedef struct GpuopsCacheLayout
{
	size_t		values[GPUOPS_CACHE_MAX_COLS];
	size_t		validity[GPUOPS_CACHE_MAX_COLS];
	size_t		bounds;
	size_t		has_nulls;
	size_t		size;
} GpuopsCacheLayout;

/* The reader's source: what it needs of one cached table. */
typedef struct GpuopsCacheSource
{
	GpuopsScanSource src;
	GpuopsCacheTable *t;
	uint32		serial;
	RelFileNode node;
	int			range_blocks;
	int			ncols;			/* the reader's columns */
	int		   *cidx;			/* [ncols] the cached column of each */
	bool	   *presence;		/* [ncols] only whether each is NULL */
	int			nthreads;
	int64		nhint;
	bool	   *hint;			/* [nhint] ranges fresh when attached */
	int			maxseg;
	struct GpuopsCacheSeg *segs;	/* [maxseg] scratch of serve */
	/* the ranges the GPU service aggregated: their blocks give no rows */
	int64		nskip;
	BlockNumber *skip_end;		/* [nskip]: range i's blocks end there */
} GpuopsCacheSource;

/* Whether the reader passes over blkno (the GPU service aggregated it). */
static inline bool
gpuops_cache_skipped(const GpuopsCacheSource *cs, BlockNumber blkno)
{
	int64		i = blkno / cs->range_blocks;

	return i < cs->nskip && blkno < cs->skip_end[i];
}

/* ---- cache_shmem.c ---- */
/* Defines the cache's settings and, when preloaded, asks for its shared memory. */
extern void gpuops_cache_shmem_init(void);
extern GpuopsCacheShared *gpuops_cache;
extern int	gpuops_host_cache_memory;
extern int	gpuops_cache_range_blocks;
/* The area, attached in this backend (created by the first user). */
extern dsa_area *gpuops_cache_area(void);
/* The slot of (this database, relid), or NULL; a hint unless locked. */
extern GpuopsCacheTable *gpuops_cache_find(Oid relid);
/* The ranges of a slot (its lock held). */
extern GpuopsCacheRange *gpuops_cache_ranges(GpuopsCacheTable *t);
/* The offsets of a range's parts for nrows rows of nblocks blocks. */
extern void gpuops_cache_layout(const GpuopsCacheTable *t, int nblocks,
								int64 nrows, GpuopsCacheLayout *lay);
/* Frees every range's data and the range array (the slot's lock held exclusively). */
extern void gpuops_cache_free_ranges(GpuopsCacheTable *t);
/* Raises an ERROR unless the cache can be used here. */
extern void gpuops_cache_check_usable(void);

/* ---- cache_worker.c ---- */
extern int	gpuops_cache_refresh_interval;
/* Registers the refresher (at preload). */
extern void gpuops_cache_register_refresher(void);

/* ---- cache_serve.c ---- */
/* Whether rel has the cache's triggers, enabled ALWAYS. */
extern bool gpuops_cache_triggers_ok(Relation rel);

/* ---- cache_device.c ---- */
/* Hands the GPU service t's fresh ranges it does not keep; returns how many. */
extern int64 gpuops_cache_push_kept(GpuopsCacheTable *t);

/* ---- cache_fill.c ---- */
/* Reads the ranges of rel that are not fresh; returns how many it filled. */
extern int64 gpuops_cache_fill(Relation rel, GpuopsCacheTable *t,
							   int64 *skipped, int64 *full);

#endif							/* GPUOPS_CACHE_INT_H */
