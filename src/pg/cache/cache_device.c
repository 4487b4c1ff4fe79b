/*
 * cache_device.c
 *	  The cache's ranges kept on the GPU by the GPU service: handed over
 *	  after they are filled (never in a query's own time), found for a
 *	  query (every block range of the table that is fresh and kept with the
 *	  query's columns), and skipped by the query's reader once the service
 *	  aggregated them.
 *
 * Why a kept range is right for the query: it holds the data the host
 * range was filled with at filled_gen, and it is used only while the
 * range's gen still equals that filled_gen (checked under the slot's lock
 * after the query's snapshot was taken), as cache_serve.c explains.
 */
#include "cache/cache_int.h"

#include "miscadmin.h"
#include "utils/memutils.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"

/* A range's key as the service keeps it. */
static GpuopsServiceRangeKey
gpuops_cache_range_key(const GpuopsCacheTable *t, int64 i, uint32 filled_gen)
{
	GpuopsServiceRangeKey key;

	memset(&key, 0, sizeof(key));
	key.dbid = t->dbid;
	key.relid = t->relid;
	key.serial = t->serial;
	key.relnode = t->node.relNode;
	key.filled_gen = filled_gen;
	key.range = i;
	key.entry = -1;
	return key;
}

/*
 * Copies fresh range i of t (its lock held shared) into one-chunk vectors
 * in the current memory context; false when it holds no data now.
 */
static bool
gpuops_cache_copy_range(GpuopsCacheTable *t, int64 i, gpo_vector *cols,
						uint32 *filled_gen)
{
	GpuopsCacheRange *rng = &gpuops_cache_ranges(t)[i];
	GpuopsCacheLayout lay;
	const char *base;
	int			c;

	if (!DsaPointerIsValid(rng->data) ||
		pg_atomic_read_u32(&rng->gen) != rng->filled_gen)
		return false;
	base = dsa_get_address(gpuops_cache_area(), rng->data);
	gpuops_cache_layout(t, rng->nblocks, rng->nrows, &lay);
	for (c = 0; c < t->ncols; c++)
	{
		gpo_chunk  *ch = palloc(sizeof(gpo_chunk));
		size_t		w = gpo_type_size(t->cols[c].type);
		bool		nulls = ((const bool *) (base + lay.has_nulls))[c];

		ch->n = rng->nrows;
		ch->data = palloc_extended(Max(w * rng->nrows, 1), MCXT_ALLOC_HUGE);
		memcpy(ch->data, base + lay.values[c], w * rng->nrows);
		ch->validity = NULL;
		if (nulls)
		{
			ch->validity = palloc((rng->nrows + 7) / 8 + 1);
			memcpy(ch->validity, base + lay.validity[c], (rng->nrows + 7) / 8);
		}
		cols[c].type = t->cols[c].type;
		cols[c].nchunks = 1;
		cols[c].chunks = ch;
	}
	*filled_gen = rng->filled_gen;
	return true;
}

/*
 * Hands the GPU service every fresh range of t that it does not keep as it
 * is now (see cache_int.h); returns how many it took.
 */
int64
gpuops_cache_push_kept(GpuopsCacheTable *t)
{
	int			si = gpuops_service_for_relation(t->relid);
	MemoryContext cxt;
	MemoryContext old;
	GpuopsServiceRangeKey *found;
	int64		nranges;
	int64		pushed = 0;
	int64		i;

	if (si < 0 || gpuops_cache_memory_limit <= 0 || t->ncols == 0)
		return 0;
	LWLockAcquire(t->lock, LW_SHARED);
	nranges = t->in_use ? t->nranges : 0;
	LWLockRelease(t->lock);
	found = palloc(sizeof(GpuopsServiceRangeKey) * Max(nranges, 1));
	(void) gpuops_service_kept_ranges(si, t->dbid, t->relid, t->serial,
									  t->node.relNode, nranges, found, NULL);
	/* one range's copy at a time */
	cxt = AllocSetContextCreate(CurrentMemoryContext, "gpuops cache push",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	for (i = 0; i < nranges; i++)
	{
		gpo_vector *cols = palloc(sizeof(gpo_vector) * t->ncols);
		GpuopsServiceRangeKey key;
		uint32		filled_gen = 0;
		bool		have;
		char		detail[256];

		CHECK_FOR_INTERRUPTS();
		LWLockAcquire(t->lock, LW_SHARED);
		have = t->in_use && i < t->nranges &&
			!(found[i].entry >= 0 &&
			  found[i].filled_gen == gpuops_cache_ranges(t)[i].filled_gen) &&
			gpuops_cache_copy_range(t, i, cols, &filled_gen);
		key = gpuops_cache_range_key(t, i, filled_gen);
		LWLockRelease(t->lock);
		if (have &&
			gpuops_service_load(si, &key, t->ncols, cols, detail,
								sizeof(detail)) != GPO_OK)
			break;				/* (no room on the device, or no service) */
		pushed += have;
		MemoryContextReset(cxt);
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	pfree(found);
	return pushed;
}

/* The ranges the GPU service keeps fresh for the reader's columns (see gpuops_cache.h). */
GpuopsCacheKept *
gpuops_cache_kept(GpuopsCacheSource *cs, Relation rel)
{
	GpuopsCacheTable *t = cs->t;
	int			si = gpuops_service_for_relation(RelationGetRelid(rel));
	BlockNumber relblocks = RelationGetNumberOfBlocks(rel);
	GpuopsCacheKept *kept;
	GpuopsServiceRangeKey *found;
	GpuopsCacheRange *ranges;
	int64		nranges;
	int64		i;

	if (si < 0 || cs->nhint == 0)
		return NULL;
	nranges = cs->nhint;
	found = palloc(sizeof(GpuopsServiceRangeKey) * nranges);
	if (gpuops_service_kept_ranges(si, MyDatabaseId, RelationGetRelid(rel),
								   cs->serial, cs->node.relNode, nranges, found,
								   NULL) == 0)
		return NULL;
	kept = palloc0(sizeof(GpuopsCacheKept));
	kept->service = si;
	kept->cidx = cs->cidx;
	kept->sets = palloc(sizeof(GpuopsServiceRangeKey) * nranges);
	kept->ends = palloc(sizeof(BlockNumber) * nranges);
	kept->whole = true;
	kept->table_blocks = relblocks;
	LWLockAcquire(t->lock, LW_SHARED);
	ranges = t->in_use && t->serial == cs->serial &&
		RelFileNodeEquals(t->node, cs->node) ? gpuops_cache_ranges(t) : NULL;
	for (i = 0; i < nranges; i++)
	{
		BlockNumber lo = (BlockNumber) (i * cs->range_blocks);
		BlockNumber hi = Min(relblocks, lo + (BlockNumber) cs->range_blocks);
		bool		fresh;

		if (lo >= relblocks)
			break;
		fresh = ranges != NULL && i < t->nranges && found[i].entry >= 0 &&
			pg_atomic_read_u32(&ranges[i].gen) == found[i].filled_gen &&
			ranges[i].filled_gen == found[i].filled_gen;
		if (!fresh || lo + (BlockNumber) ranges[i].nblocks < hi)
			kept->whole = false;
		if (!fresh)
			continue;
		kept->ends[kept->nsets] = lo + (BlockNumber) ranges[i].nblocks;
		kept->sets[kept->nsets++] = found[i];
		kept->rows += ranges[i].nrows;
		kept->blocks += ranges[i].nblocks;
	}
	if (i * cs->range_blocks < relblocks)
		kept->whole = false;
	LWLockRelease(t->lock);
	pfree(found);
	return kept->nsets > 0 ? kept : NULL;
}

/* Makes the reader pass over the blocks of kept's ranges (see gpuops_cache.h). */
void
gpuops_cache_skip_kept(GpuopsCacheSource *cs, const GpuopsCacheKept *kept)
{
	int			k;

	cs->nskip = 0;
	if (kept == NULL)
		return;
	cs->nskip = cs->nhint;
	cs->skip_end = palloc0(sizeof(BlockNumber) * Max(cs->nskip, 1));
	for (k = 0; k < kept->nsets; k++)
		cs->skip_end[kept->sets[k].range] = kept->ends[k];
}

/* Where the reader's passed-over blocks end, per range (see gpuops_cache.h). */
int64
gpuops_cache_skip_ends(const GpuopsCacheSource *cs, const BlockNumber **ends)
{
	*ends = cs->skip_end;
	return cs->nskip;
}

/* Makes a worker's reader pass over the same blocks (see gpuops_cache.h). */
void
gpuops_cache_skip_set(GpuopsCacheSource *cs, int64 nskip,
					  const BlockNumber *ends)
{
	cs->skip_end = palloc(sizeof(BlockNumber) * Max(nskip, 1));
	memcpy(cs->skip_end, ends, sizeof(BlockNumber) * nskip);
	cs->nskip = nskip;
}

/* Memory context callback: a direct read's views go with its memory. */
static void
gpuops_cache_direct_reset(void *arg)
{
	GpuopsCacheDirect *d = (GpuopsCacheDirect *) arg;
	int			k;

	for (k = 0; d->views != NULL && k < d->kept.nsets; k++)
		gpo_resident_free(d->views[k]);
	d->views = NULL;
}

/* View of range rng of t (its lock held), over the area's memory. */
static gpo_resident *
gpuops_cache_range_view(GpuopsCacheTable *t, GpuopsCacheRange *rng)
{
	const char *base = dsa_get_address(gpuops_cache_area(), rng->data);
	gpo_vector	cols[GPUOPS_CACHE_MAX_COLS];
	gpo_chunk	chunks[GPUOPS_CACHE_MAX_COLS];
	GpuopsCacheLayout lay;
	gpo_resident *view = NULL;
	gpo_ctx		ctx;
	int			c;

	gpuops_cache_layout(t, rng->nblocks, rng->nrows, &lay);
	for (c = 0; c < t->ncols; c++)
	{
		chunks[c].data = (void *) (base + lay.values[c]);
		chunks[c].validity = ((const bool *) (base + lay.has_nulls))[c] ?
			(uint8 *) (base + lay.validity[c]) : NULL;
		chunks[c].n = rng->nrows;
		cols[c].type = t->cols[c].type;
		cols[c].nchunks = 1;
		cols[c].chunks = &chunks[c];
	}
	gpo_ctx_init(&ctx);
	if (gpo_resident_view(&ctx, t->ncols, cols, &view) != GPO_OK)
		elog(ERROR, "gpuops column cache: a range's view: %s", ctx.detail);
	return view;
}

/* The fresh host ranges as views, the lock held (see gpuops_cache.h). */
GpuopsCacheDirect *
gpuops_cache_direct_begin(GpuopsCacheSource *cs, Relation rel)
{
	GpuopsCacheTable *t = cs->t;
	BlockNumber relblocks = RelationGetNumberOfBlocks(rel);
	GpuopsCacheDirect *d = palloc0(sizeof(GpuopsCacheDirect));
	GpuopsCacheKept *kept = &d->kept;
	GpuopsCacheRange *ranges;
	uint64		now;
	int64		i;

	if (cs->nhint == 0 || t->ncols > GPO_RESIDENT_MAX_COLS)
		return NULL;
	now = pg_atomic_fetch_add_u64(&gpuops_cache->clock, 1);
	kept->service = -1;
	kept->cidx = cs->cidx;
	kept->whole = true;
	kept->table_blocks = relblocks;
	kept->sets = palloc0(sizeof(GpuopsServiceRangeKey) * cs->nhint);
	kept->ends = palloc(sizeof(BlockNumber) * cs->nhint);
	d->views = palloc0(sizeof(gpo_resident *) * cs->nhint);
	d->cb.func = gpuops_cache_direct_reset;
	d->cb.arg = d;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &d->cb);
	LWLockAcquire(t->lock, LW_SHARED);
	ranges = t->in_use && t->serial == cs->serial &&
		RelFileNodeEquals(t->node, cs->node) ? gpuops_cache_ranges(t) : NULL;
	for (i = 0; i < cs->nhint; i++)
	{
		BlockNumber lo = (BlockNumber) (i * cs->range_blocks);
		BlockNumber hi = Min(relblocks, lo + (BlockNumber) cs->range_blocks);
		GpuopsCacheRange *rng = ranges != NULL && i < t->nranges ? &ranges[i] : NULL;

		if (lo >= relblocks)
			break;
		if (rng == NULL || !DsaPointerIsValid(rng->data) ||
			pg_atomic_read_u32(&rng->gen) != rng->filled_gen)
		{
			kept->whole = false;
			continue;
		}
		if (lo + (BlockNumber) rng->nblocks < hi)
			kept->whole = false;
		pg_atomic_write_u64(&rng->last_used, now);
		kept->sets[kept->nsets].range = i;
		kept->ends[kept->nsets] = lo + (BlockNumber) rng->nblocks;
		d->views[kept->nsets++] = gpuops_cache_range_view(t, rng);
		kept->rows += rng->nrows;
		kept->blocks += rng->nblocks;
	}
	if (i * cs->range_blocks < relblocks)
		kept->whole = false;
	if (kept->nsets == 0)
	{
		LWLockRelease(t->lock);
		return NULL;
	}
	pg_atomic_fetch_add_u64(&t->hits, kept->blocks);
	d->t = t;
	return d;
}

/* Frees the views and releases the lock (see gpuops_cache.h). */
void
gpuops_cache_direct_end(GpuopsCacheDirect *d)
{
	gpuops_cache_direct_reset(d);
	if (d->t != NULL)
		LWLockRelease(d->t->lock);
	d->t = NULL;
}
