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
 * One-chunk vectors over the columns of range rng of t in the area (its
 * lock held: valid while it is), into cols with their chunks; *bounds
 * (when bounds is given) gets the columns' int64 bounds pairs (see
 * GpuopsCacheLayout).
 */
static void
gpuops_cache_range_vectors(const GpuopsCacheTable *t,
						   const GpuopsCacheRange *rng, gpo_vector *cols,
						   gpo_chunk *chunks, const int64 **bounds)
{
	const char *base = dsa_get_address(gpuops_cache_area(), rng->data);
	GpuopsCacheLayout lay;
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
	if (bounds != NULL)
		*bounds = (const int64 *) (base + lay.bounds);
}

/*
 * Hands the GPU service every fresh range of t that it does not keep as it
 * is now (see cache_int.h); returns how many it took.  Each range goes
 * into the service's staging memory straight from the area, under the
 * slot's lock, which is released before the service is waited for.
 */
int64
gpuops_cache_push_kept(GpuopsCacheTable *t)
{
	int			si = gpuops_service_for_relation(t->relid);
	GpuopsServiceRangeKey *found;
	int64		nranges;
	int64		pushed = 0;
	int64		i;

	if (si < 0 || gpuops_cache_memory_limit <= 0 || t->ncols == 0)
		return 0;
	/* copies of an earlier caching of the table, or of its file before a rewrite */
	gpuops_service_forget(si, t->dbid, t->relid, t->serial,
						  t->node.relNode);
	LWLockAcquire(t->lock, LW_SHARED);
	nranges = t->in_use ? t->nranges : 0;
	LWLockRelease(t->lock);
	found = palloc(sizeof(GpuopsServiceRangeKey) * Max(nranges, 1));
	(void) gpuops_service_kept_ranges(si, t->dbid, t->relid, t->serial,
									  t->node.relNode, nranges, found, NULL);
	for (i = 0; i < nranges; i++)
	{
		gpo_vector	cols[GPUOPS_CACHE_MAX_COLS];
		gpo_chunk	chunks[GPUOPS_CACHE_MAX_COLS];
		GpuopsCacheRange *rng;
		GpuopsServiceCall *call = NULL;
		gpo_status	st = GPO_OK;
		char		detail[256];

		CHECK_FOR_INTERRUPTS();
		LWLockAcquire(t->lock, LW_SHARED);
		rng = t->in_use && i < t->nranges ? &gpuops_cache_ranges(t)[i] : NULL;
		if (rng != NULL && DsaPointerIsValid(rng->data) &&
			pg_atomic_read_u32(&rng->gen) == rng->filled_gen &&
			!(found[i].entry >= 0 && found[i].filled_gen == rng->filled_gen))
		{
			GpuopsServiceRangeKey key = gpuops_cache_range_key(t, i, rng->filled_gen);

			gpuops_cache_range_vectors(t, rng, cols, chunks, NULL);
			call = gpuops_service_load_submit(si, &key, t->ncols, cols, &st,
											  detail, sizeof(detail));
		}
		LWLockRelease(t->lock);
		if (call != NULL)
			st = gpuops_service_load_wait(call, detail, sizeof(detail));
		if (st != GPO_OK)
			break;				/* (no room on the device, or no service) */
		pushed += call != NULL;
	}
	pfree(found);
	return pushed;
}

/*
 * An empty list of ranges for the reader's table of relblocks blocks, with
 * room for all of its cs->nhint ranges.
 */
static GpuopsCacheKept *
gpuops_cache_kept_new(GpuopsCacheSource *cs, BlockNumber relblocks, int si)
{
	GpuopsCacheKept *kept = palloc0(sizeof(GpuopsCacheKept));

	kept->service = si;
	kept->cidx = cs->cidx;
	kept->table_blocks = relblocks;
	kept->sets = palloc0(sizeof(GpuopsServiceRangeKey) * Max(cs->nhint, 1));
	kept->ends = palloc(sizeof(BlockNumber) * Max(cs->nhint, 1));
	return kept;
}

/*
 * Adds range i of cs's table (rng, under its lock), whose blocks start at
 * lo, to kept: its blocks up to the table's end count as covered.
 */
static void
gpuops_cache_kept_add(GpuopsCacheKept *kept, const GpuopsCacheSource *cs,
					  int64 i, const GpuopsCacheRange *rng,
					  const GpuopsServiceRangeKey *key)
{
	BlockNumber lo = (BlockNumber) (i * cs->range_blocks);

	kept->sets[kept->nsets] = *key;
	kept->sets[kept->nsets].range = i;
	kept->ends[kept->nsets++] = lo + (BlockNumber) rng->nblocks;
	kept->rows += rng->nrows;
	kept->blocks += Min((BlockNumber) rng->nblocks,
						(BlockNumber) kept->table_blocks - lo);
}

/* The ranges of cs's table (its lock held), or NULL when the slot changed. */
static GpuopsCacheRange *
gpuops_cache_source_ranges(const GpuopsCacheSource *cs)
{
	GpuopsCacheTable *t = cs->t;

	return t->in_use && t->serial == cs->serial &&
		RelFileNodeEquals(t->node, cs->node) ? gpuops_cache_ranges(t) : NULL;
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
	int64		i;

	if (si < 0 || cs->nhint == 0)
		return NULL;
	found = palloc(sizeof(GpuopsServiceRangeKey) * cs->nhint);
	if (gpuops_service_kept_ranges(si, MyDatabaseId, RelationGetRelid(rel),
								   cs->serial, cs->node.relNode, cs->nhint,
								   found, NULL) == 0)
		return NULL;
	kept = gpuops_cache_kept_new(cs, relblocks, si);
	LWLockAcquire(t->lock, LW_SHARED);
	ranges = gpuops_cache_source_ranges(cs);
	for (i = 0; ranges != NULL && i < Min(cs->nhint, t->nranges) &&
		 i * cs->range_blocks < relblocks; i++)
		if (found[i].entry >= 0 &&
			pg_atomic_read_u32(&ranges[i].gen) == found[i].filled_gen &&
			ranges[i].filled_gen == found[i].filled_gen)
			gpuops_cache_kept_add(kept, cs, i, &ranges[i], &found[i]);
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
	gpo_vector	cols[GPUOPS_CACHE_MAX_COLS];
	gpo_chunk	chunks[GPUOPS_CACHE_MAX_COLS];
	gpo_resident *view = NULL;
	gpo_ctx		ctx;

	const int64 *bounds;
	int			c;

	gpuops_cache_range_vectors(t, rng, cols, chunks, &bounds);
	gpo_ctx_init(&ctx);
	if (gpo_resident_view(&ctx, t->ncols, cols, &view) != GPO_OK)
		elog(ERROR, "gpuops column cache: a range's view: %s", ctx.detail);
	/* int columns' bounds, found at the fill: no pass for a key's range */
	for (c = 0; c < t->ncols; c++)
		if (t->cols[c].type == GPO_INT32 || t->cols[c].type == GPO_INT64)
			gpo_resident_set_bounds(view, c, bounds[2 * c], bounds[2 * c + 1]);
	return view;
}

/* The fresh host ranges as views, the lock held (see gpuops_cache.h). */
GpuopsCacheDirect *
gpuops_cache_direct_begin(GpuopsCacheSource *cs, Relation rel)
{
	GpuopsCacheTable *t = cs->t;
	BlockNumber relblocks = RelationGetNumberOfBlocks(rel);
	GpuopsCacheDirect *d;
	GpuopsCacheRange *ranges;
	GpuopsServiceRangeKey none;
	uint64		now;
	int64		i;

	if (cs->nhint == 0 || t->ncols > GPO_RESIDENT_MAX_COLS)
		return NULL;
	now = pg_atomic_fetch_add_u64(&gpuops_cache->clock, 1);
	d = palloc0(sizeof(GpuopsCacheDirect));
	d->kept = *gpuops_cache_kept_new(cs, relblocks, -1);
	d->views = palloc0(sizeof(gpo_resident *) * cs->nhint);
	d->cb.func = gpuops_cache_direct_reset;
	d->cb.arg = d;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &d->cb);
	memset(&none, 0, sizeof(none));
	LWLockAcquire(t->lock, LW_SHARED);
	ranges = gpuops_cache_source_ranges(cs);
	for (i = 0; ranges != NULL && i < Min(cs->nhint, t->nranges) &&
		 i * cs->range_blocks < relblocks; i++)
	{
		GpuopsCacheRange *rng = &ranges[i];

		if (!DsaPointerIsValid(rng->data) ||
			pg_atomic_read_u32(&rng->gen) != rng->filled_gen)
			continue;
		pg_atomic_write_u64(&rng->last_used, now);
		d->views[d->kept.nsets] = gpuops_cache_range_view(t, rng);
		gpuops_cache_kept_add(&d->kept, cs, i, rng, &none);
	}
	if (d->kept.nsets == 0)
	{
		LWLockRelease(t->lock);
		return NULL;
	}
	pg_atomic_fetch_add_u64(&t->hits, d->kept.blocks);
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
