/*
 * cache_fill.c
 *	  Reading a cached table's block ranges into the cache: only ranges
 *	  whose pages are all all-visible (then every snapshot sees exactly their
 *	  tuples), and only where no change touched the range while it was read
 *	  (its gen, which the row trigger bumps before a change commits, is
 *	  unchanged when the data is published).
 */
#include "cache/cache_int.h"

#include "access/htup_details.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/snapmgr.h"

/* Grows t's range array to cover nblocks blocks (its lock held exclusively). */
static void
gpuops_cache_grow(GpuopsCacheTable *t, BlockNumber nblocks)
{
	dsa_area   *area = gpuops_cache_area();
	int64		need = ((int64) nblocks + t->range_blocks - 1) / t->range_blocks;
	GpuopsCacheRange *old = gpuops_cache_ranges(t);
	GpuopsCacheRange *ranges;
	dsa_pointer dp;
	int64		i;

	if (need <= t->nranges)
		return;
	dp = dsa_allocate_extended(area, sizeof(GpuopsCacheRange) * need,
							   DSA_ALLOC_HUGE | DSA_ALLOC_ZERO);
	ranges = dsa_get_address(area, dp);
	for (i = 0; i < need; i++)
	{
		if (i < t->nranges)
		{
			pg_atomic_init_u32(&ranges[i].gen, pg_atomic_read_u32(&old[i].gen));
			pg_atomic_init_u64(&ranges[i].last_used,
							   pg_atomic_read_u64(&old[i].last_used));
			ranges[i].filled_gen = old[i].filled_gen;
			ranges[i].data = old[i].data;
			ranges[i].nblocks = old[i].nblocks;
			ranges[i].nrows = old[i].nrows;
			ranges[i].bytes = old[i].bytes;
		}
		else
		{
			pg_atomic_init_u32(&ranges[i].gen, 0);
			pg_atomic_init_u64(&ranges[i].last_used, 0);
			ranges[i].data = InvalidDsaPointer;
		}
	}
	if (old != NULL)
		dsa_free(area, t->ranges);
	t->ranges = dp;
	t->nranges = need;
}

/*
 * Frees the least recently used range last used before clock "before" (of
 * any table); false if there is none.  Takes one slot's lock at a time.
 */
static bool
gpuops_cache_evict_one(uint64 before)
{
	GpuopsCacheTable *victim = NULL;
	uint32		serial = 0;
	int64		vrange = -1;
	dsa_pointer vdata = InvalidDsaPointer;
	uint64		oldest = before;
	int			i;
	int64		r;

	for (i = 0; i < GPUOPS_CACHE_MAX_TABLES; i++)
	{
		GpuopsCacheTable *t = &gpuops_cache->tables[i];
		GpuopsCacheRange *ranges;

		LWLockAcquire(t->lock, LW_SHARED);
		ranges = t->in_use ? gpuops_cache_ranges(t) : NULL;
		for (r = 0; ranges != NULL && r < t->nranges; r++)
		{
			uint64		used = pg_atomic_read_u64(&ranges[r].last_used);

			if (DsaPointerIsValid(ranges[r].data) && used < oldest)
			{
				oldest = used;
				victim = t;
				serial = t->serial;
				vrange = r;
				vdata = ranges[r].data;
			}
		}
		LWLockRelease(t->lock);
	}
	if (victim == NULL)
		return false;
	LWLockAcquire(victim->lock, LW_EXCLUSIVE);
	if (victim->in_use && victim->serial == serial && vrange < victim->nranges)
	{
		GpuopsCacheRange *rng = &gpuops_cache_ranges(victim)[vrange];

		if (rng->data == vdata)
		{
			dsa_free(gpuops_cache_area(), rng->data);
			pg_atomic_fetch_sub_u64(&gpuops_cache->bytes, rng->bytes);
			pg_atomic_fetch_add_u64(&gpuops_cache->evictions, 1);
			rng->data = InvalidDsaPointer;
		}
	}
	LWLockRelease(victim->lock);
	return true;				/* (freed, or someone else did meanwhile) */
}

/*
 * bounds[0] and [1]: the smallest and largest valid one of n values of an
 * int4 or int8 column (validity NULL: none NULL), so that a range's view
 * can be told them (gpo_resident_set_bounds); the first larger where none
 * is valid or the column is of another type.
 */
static void
gpuops_cache_bounds_of(gpo_type type, const void *data, const uint8 *validity,
					   int64 n, int64 *bounds)
{
	gpo_chunk	ch;
	gpo_vector	v;

	ch.data = (void *) data;
	ch.validity = (uint8 *) validity;
	ch.n = n;
	v.type = type;
	v.nchunks = 1;
	v.chunks = &ch;
	if (!gpo_int_bounds(&v, &bounds[0], &bounds[1]))
	{
		bounds[0] = PG_INT64_MAX;
		bounds[1] = PG_INT64_MIN;
	}
}

/*
 * Copies a range's decoded rows (batch) and its blocks' row ends into new
 * area memory; InvalidDsaPointer when the cache's memory is spent.
 */
static dsa_pointer
gpuops_cache_store(GpuopsCacheTable *t, GpuopsScanBatch *batch, int nblocks,
				   const int64 *row_end, uint64 fill_start, int64 *bytes)
{
	dsa_area   *area = gpuops_cache_area();
	uint64		limit = (uint64) gpuops_host_cache_memory * 1024 * 1024;
	GpuopsCacheLayout lay;
	dsa_pointer dp;
	char	   *base;
	int			c;
	int			i;

	gpuops_cache_layout(t, nblocks, batch->nrows, &lay);
	if (lay.size > limit)
		return InvalidDsaPointer;
	/* room: the least recently used ranges go, but none this fill used */
	while (pg_atomic_add_fetch_u64(&gpuops_cache->bytes, lay.size) > limit)
	{
		pg_atomic_fetch_sub_u64(&gpuops_cache->bytes, lay.size);
		if (!gpuops_cache_evict_one(fill_start))
			return InvalidDsaPointer;
	}
	dp = dsa_allocate_extended(area, lay.size, DSA_ALLOC_HUGE | DSA_ALLOC_NO_OOM);
	if (!DsaPointerIsValid(dp))
	{
		pg_atomic_fetch_sub_u64(&gpuops_cache->bytes, lay.size);
		return InvalidDsaPointer;
	}
	base = dsa_get_address(area, dp);
	for (i = 0; i < nblocks; i++)
		((int32 *) base)[i] = (int32) row_end[i];
	for (c = 0; c < t->ncols; c++)
	{
		memcpy(base + lay.values[c], batch->data[c],
			   gpo_type_size(t->cols[c].type) * (size_t) batch->nrows);
		memcpy(base + lay.validity[c], batch->validity[c],
			   (size_t) (batch->nrows + 7) / 8);
		((bool *) (base + lay.has_nulls))[c] = batch->has_nulls[c];
		gpuops_cache_bounds_of(t->cols[c].type, batch->data[c],
							   batch->has_nulls[c] ? batch->validity[c] : NULL,
							   batch->nrows,
							   (int64 *) (base + lay.bounds) + 2 * c);
	}
	*bytes = lay.size;
	return dp;
}

/*
 * Publishes range i's new data read at gen0, unless t was taken by another
 * table meanwhile or a change touched the range (then the data is freed);
 * true if published.
 */
static bool
gpuops_cache_publish(GpuopsCacheTable *t, uint32 serial, int64 i, uint32 gen0,
					 dsa_pointer dp, int nblocks, int64 nrows, int64 bytes)
{
	GpuopsCacheRange *rng;
	bool		ok;

	LWLockAcquire(t->lock, LW_EXCLUSIVE);
	ok = t->in_use && t->serial == serial && i < t->nranges;
	rng = ok ? &gpuops_cache_ranges(t)[i] : NULL;
	ok = ok && pg_atomic_read_u32(&rng->gen) == gen0;
	if (ok)
	{
		if (DsaPointerIsValid(rng->data))
		{
			dsa_free(gpuops_cache_area(), rng->data);
			pg_atomic_fetch_sub_u64(&gpuops_cache->bytes, rng->bytes);
		}
		rng->data = dp;
		rng->filled_gen = gen0;
		pg_atomic_write_u64(&rng->last_used,
							pg_atomic_fetch_add_u64(&gpuops_cache->clock, 1));
		rng->nblocks = nblocks;
		rng->nrows = nrows;
		rng->bytes = bytes;
	}
	else
	{
		dsa_free(gpuops_cache_area(), dp);
		pg_atomic_fetch_sub_u64(&gpuops_cache->bytes, bytes);
	}
	LWLockRelease(t->lock);
	return ok;
}

/*
 * Reads the ranges of rel that are not fresh; returns how many it filled,
 * with those it skipped (some page not all-visible, or changed while read)
 * and those that did not fit in the cache's memory.
 */
int64
gpuops_cache_fill(Relation rel, GpuopsCacheTable *t, int64 *skipped,
				  int64 *full)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	GpuopsScanCol cols[GPUOPS_CACHE_MAX_COLS];
	GpuopsScanReader *reader;
	int64	   *row_end;
	int64		nranges;
	int64		filled = 0;
	uint64		fill_start = pg_atomic_fetch_add_u64(&gpuops_cache->clock, 1);
	uint32		serial;
	int			rb;
	int			ncols;
	int64		i;
	int			c;

	(void) gpuops_cache_area(); /* (attached before the slot's lock) */
	LWLockAcquire(t->lock, LW_EXCLUSIVE);
	if (!RelFileNodeEquals(t->node, rel->rd_node))
	{
		/* rewritten (VACUUM FULL, CLUSTER, TRUNCATE): start again */
		gpuops_cache_free_ranges(t);
		t->node = rel->rd_node;
	}
	gpuops_cache_grow(t, nblocks);
	t->grown = false;
	serial = t->serial;
	nranges = t->nranges;
	rb = t->range_blocks;
	ncols = t->ncols;
	memset(cols, 0, sizeof(cols));
	for (c = 0; c < ncols; c++)
	{
		cols[c].attnum = t->cols[c].attnum;
		cols[c].typid = t->cols[c].typid;
		cols[c].type = t->cols[c].type;
	}
	LWLockRelease(t->lock);

	reader = gpuops_scan_begin(rel, GetActiveSnapshot(), ncols, cols,
							   (int64) rb * MaxHeapTuplesPerPage, NULL, NULL,
							   true, 1);
	if (!gpuops_scan_stats(reader)->fast)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the gpuops column cache cannot read \"%s\" here",
						RelationGetRelationName(rel)),
				 errdetail("It reads heap pages directly, which a SERIALIZABLE transaction does not allow.")));
	row_end = palloc(sizeof(int64) * rb);
	for (i = 0; i < nranges && (BlockNumber) (i * rb) < nblocks; i++)
	{
		BlockNumber lo = (BlockNumber) (i * rb);
		BlockNumber hi = Min(nblocks, lo + (BlockNumber) rb);
		GpuopsCacheRange *rng;
		GpuopsScanBatch *batch;
		bool		fresh;
		uint32		gen0;
		dsa_pointer dp;
		int64		bytes = 0;

		CHECK_FOR_INTERRUPTS();
		LWLockAcquire(t->lock, LW_SHARED);
		if (!t->in_use || t->serial != serial)
		{
			LWLockRelease(t->lock);
			break;
		}
		rng = &gpuops_cache_ranges(t)[i];
		gen0 = pg_atomic_read_u32(&rng->gen);
		fresh = DsaPointerIsValid(rng->data) && rng->filled_gen == gen0 &&
			rng->nblocks == (int32) (hi - lo);
		LWLockRelease(t->lock);
		if (fresh)
			continue;
		if (!gpuops_scan_read_all_visible(reader, lo, hi, row_end, &batch))
		{
			(*skipped)++;
			continue;
		}
		dp = gpuops_cache_store(t, batch, (int) (hi - lo), row_end, fill_start,
								&bytes);
		if (!DsaPointerIsValid(dp))
		{
			(*full)++;
			continue;
		}
		if (gpuops_cache_publish(t, serial, i, gen0, dp, (int) (hi - lo),
								 batch->nrows, bytes))
			filled++;
		else
			(*skipped)++;
	}
	pfree(row_end);
	gpuops_scan_end(reader);
	/* the GPU service keeps a copy of each fresh range it lacks */
	(void) gpuops_cache_push_kept(t);
	return filled;
}
