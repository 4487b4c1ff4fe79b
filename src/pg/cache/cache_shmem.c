/*
 * cache_shmem.c
 *	  The column cache's shared memory (the table slots, in the main shared
 *	  memory, and the DSA area that holds the ranges), its settings, and
 *	  the slots' lookup.
 */
#include "cache/cache_int.h"

#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/shmem.h"
#include "utils/guc.h"
#include "utils/memutils.h"

GpuopsCacheShared *gpuops_cache = NULL;
bool		gpuops_use_cache = true;
int			gpuops_host_cache_memory = 1024;
int			gpuops_cache_range_blocks = 1024;

static dsa_area *cache_area = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

#define GPUOPS_CACHE_TRANCHE "gpuops column cache"

/* Asks for the slots and their locks. */
static void
gpuops_cache_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(GpuopsCacheShared)));
	RequestNamedLWLockTranche(GPUOPS_CACHE_TRANCHE, GPUOPS_CACHE_MAX_TABLES + 1);
}

/* Creates (or attaches to) the slots. */
static void
gpuops_cache_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	gpuops_cache = ShmemInitStruct("gpuops column cache",
								   sizeof(GpuopsCacheShared), &found);
	if (!found)
	{
		LWLockPadded *locks = GetNamedLWLockTranche(GPUOPS_CACHE_TRANCHE);
		int			i;

		memset(gpuops_cache, 0, sizeof(GpuopsCacheShared));
		gpuops_cache->lock = &locks[0].lock;
		gpuops_cache->area = DSM_HANDLE_INVALID;
		pg_atomic_init_u64(&gpuops_cache->bytes, 0);
		pg_atomic_init_u64(&gpuops_cache->clock, 1);
		pg_atomic_init_u64(&gpuops_cache->evictions, 0);
		for (i = 0; i < GPUOPS_CACHE_MAX_TABLES; i++)
		{
			gpuops_cache->tables[i].lock = &locks[i + 1].lock;
			gpuops_cache->tables[i].ranges = InvalidDsaPointer;
			pg_atomic_init_u64(&gpuops_cache->tables[i].hits, 0);
		}
	}
	LWLockRelease(AddinShmemInitLock);
}

/* Defines the cache's settings and, when preloaded, asks for its shared memory. */
void
gpuops_cache_shmem_init(void)
{
	DefineCustomBoolVariable("gpuops.use_cache",
							 "Queries read the column cache's fresh ranges instead of the heap.",
							 NULL,
							 &gpuops_use_cache,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("gpuops.host_cache_memory",
							"Shared memory the column cache may hold, in all.",
							"Past it the least recently used ranges make room; what does not fit stays uncached.",
							&gpuops_host_cache_memory,
							1024,
							0, INT_MAX,
							PGC_SIGHUP,
							GUC_UNIT_MB,
							NULL, NULL, NULL);
	DefineCustomIntVariable("gpuops.cache_range_blocks",
							"Heap blocks of one range of the column cache, for tables cached from now on.",
							"A change to any of its blocks sends the whole range back to the heap.",
							&gpuops_cache_range_blocks,
							1024,
							1, 131072,
							PGC_SUSET,
							0,
							NULL, NULL, NULL);
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = gpuops_cache_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = gpuops_cache_shmem_startup;
}

/* Raises an ERROR unless the cache can be used here. */
void
gpuops_cache_check_usable(void)
{
	if (gpuops_cache == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the gpuops column cache needs gpuops in shared_preload_libraries")));
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("the gpuops column cache is off during recovery"),
				 errdetail("Triggers do not fire on a standby, so cached ranges could not be kept true.")));
}

/*
 * The area, attached in this backend (created by the first user).  It takes
 * the slots' lock: call it before taking a slot's.
 */
dsa_area *
gpuops_cache_area(void)
{
	MemoryContext old;

	if (cache_area != NULL)
		return cache_area;
	old = MemoryContextSwitchTo(TopMemoryContext);
	LWLockAcquire(gpuops_cache->lock, LW_EXCLUSIVE);
	if (gpuops_cache->area == DSM_HANDLE_INVALID)
	{
		gpuops_cache->tranche = LWLockNewTrancheId();
		LWLockRegisterTranche(gpuops_cache->tranche, "gpuops cache area");
		cache_area = dsa_create(gpuops_cache->tranche);
		dsa_pin(cache_area);
		gpuops_cache->area = dsa_get_handle(cache_area);
	}
	else
	{
		LWLockRegisterTranche(gpuops_cache->tranche, "gpuops cache area");
		cache_area = dsa_attach(gpuops_cache->area);
	}
	dsa_pin_mapping(cache_area);
	LWLockRelease(gpuops_cache->lock);
	MemoryContextSwitchTo(old);
	return cache_area;
}

/* The slot of (this database, relid), or NULL; a hint unless locked. */
GpuopsCacheTable *
gpuops_cache_find(Oid relid)
{
	int			i;

	if (gpuops_cache == NULL)
		return NULL;
	for (i = 0; i < GPUOPS_CACHE_MAX_TABLES; i++)
	{
		GpuopsCacheTable *t = &gpuops_cache->tables[i];

		if (t->in_use && t->relid == relid && t->dbid == MyDatabaseId)
			return t;
	}
	return NULL;
}

/* The ranges of a slot (its lock held). */
GpuopsCacheRange *
gpuops_cache_ranges(GpuopsCacheTable *t)
{
	if (!DsaPointerIsValid(t->ranges))
		return NULL;
	return (GpuopsCacheRange *) dsa_get_address(gpuops_cache_area(), t->ranges);
}

/* The offsets of a range's parts for nrows rows of nblocks blocks. */
void
gpuops_cache_layout(const GpuopsCacheTable *t, int nblocks, int64 nrows,
					GpuopsCacheLayout *lay)
{
	size_t		off = MAXALIGN(sizeof(int32) * nblocks);
	int			c;

	for (c = 0; c < t->ncols; c++)
	{
		lay->values[c] = off;
		off += TYPEALIGN(8, gpo_type_size(t->cols[c].type) * (size_t) nrows);
	}
	for (c = 0; c < t->ncols; c++)
	{
		lay->validity[c] = off;
		off += TYPEALIGN(8, (size_t) (nrows + 7) / 8);
	}
	lay->bounds = off;
	off += sizeof(int64) * 2 * t->ncols;
	lay->has_nulls = off;
	off += t->ncols;
	lay->size = MAXALIGN(off);
}

/* Frees every range's data and the range array (the slot's lock held exclusively). */
void
gpuops_cache_free_ranges(GpuopsCacheTable *t)
{
	dsa_area   *area = gpuops_cache_area();
	GpuopsCacheRange *ranges = gpuops_cache_ranges(t);
	int64		i;

	if (ranges == NULL)
		return;
	for (i = 0; i < t->nranges; i++)
		if (DsaPointerIsValid(ranges[i].data))
		{
			dsa_free(area, ranges[i].data);
			pg_atomic_fetch_sub_u64(&gpuops_cache->bytes, ranges[i].bytes);
		}
	dsa_free(area, t->ranges);
	t->ranges = InvalidDsaPointer;
	t->nranges = 0;
}
