/*
 * cache_serve.c
 *	  The column reader's source of cached blocks: which blocks the cache
 *	  holds fresh for a query's columns, and their rows copied into the
 *	  reader's batch under the table's lock (held shared, so that no range
 *	  is replaced or freed meanwhile).
 *
 * Why a fresh range is right for any snapshot the query may hold: its data
 * are the tuples of pages that were all-visible when read, which every
 * snapshot then in use saw, and no later snapshot can see otherwise until a
 * change commits; a change bumps the range's gen (the row trigger) before
 * it commits, so after that the range is no longer fresh and its blocks
 * come from the heap with the query's own snapshot.  A change that commits
 * after the query's snapshot was taken is invisible to it either way.
 */
#include "cache/cache_int.h"

#include <omp.h>

#include "access/sysattr.h"
#include "access/xlog.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_trigger.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "commands/trigger.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

/* Rows of one piece of the copying. */
#define GPUOPS_CACHE_COPY_PIECE 32768

/* A run of rows of one range copied to the batch. */
typedef struct GpuopsCacheSeg
{
	const char *base;			/* the range's data */
	int64		src_row;
	int64		dst_row;
	int64		n;
	GpuopsCacheLayout lay;
} GpuopsCacheSeg;

/* Whether trigger tg calls gpuops.cache_mark(). */
static bool
gpuops_cache_trigger_is_ours(const Trigger *tg)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(tg->tgfoid));
	bool		ours = false;

	if (HeapTupleIsValid(tup))
	{
		bool		isnull;
		Datum		src = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc,
										  &isnull);

		ours = !isnull &&
			((Form_pg_proc) GETSTRUCT(tup))->prolang == ClanguageId &&
			strcmp(TextDatumGetCString(src), "gpuops_cache_mark") == 0;
		ReleaseSysCache(tup);
	}
	return ours;
}

/*
 * Whether rel has the cache's triggers, enabled ALWAYS: the row trigger on
 * every insert, update and delete (no WHEN, no column list) and the
 * TRUNCATE trigger.
 */
bool
gpuops_cache_triggers_ok(Relation rel)
{
	TriggerDesc *td = rel->trigdesc;
	bool		row = false;
	bool		truncate = false;
	int			i;

	for (i = 0; td != NULL && i < td->numtriggers; i++)
	{
		const Trigger *tg = &td->triggers[i];
		int16		type = tg->tgtype;

		if (tg->tgenabled != TRIGGER_FIRES_ALWAYS || tg->tgqual != NULL ||
			!gpuops_cache_trigger_is_ours(tg))
			continue;
		if (TRIGGER_FOR_ROW(type) && TRIGGER_FOR_AFTER(type) &&
			TRIGGER_FOR_INSERT(type) && TRIGGER_FOR_UPDATE(type) &&
			TRIGGER_FOR_DELETE(type) && tg->tgnattr == 0)
			row = true;
		if (TRIGGER_FOR_TRUNCATE(type))
			truncate = true;
	}
	return row && truncate;
}

/* Whether the cache holds blkno fresh (as when attached: a hint). */
static bool
gpuops_cache_has_block(void *arg, BlockNumber blkno)
{
	GpuopsCacheSource *cs = (GpuopsCacheSource *) arg;
	int64		i = blkno / cs->range_blocks;

	return gpuops_cache_skipped(cs, blkno) || (i < cs->nhint && cs->hint[i]);
}

/* The fresh range of blkno and the rows of blkno in it, or NULL (lock held). */
static const char *
gpuops_cache_block_rows(GpuopsCacheSource *cs, GpuopsCacheRange *ranges,
						BlockNumber blkno, int64 *lo, int64 *hi)
{
	GpuopsCacheTable *t = cs->t;
	int64		i = blkno / cs->range_blocks;
	int			off = blkno % cs->range_blocks;
	GpuopsCacheRange *rng;
	const int32 *row_end;

	if (ranges == NULL || i >= t->nranges)
		return NULL;
	rng = &ranges[i];
	if (!DsaPointerIsValid(rng->data) || off >= rng->nblocks ||
		pg_atomic_read_u32(&rng->gen) != rng->filled_gen)
		return NULL;
	row_end = dsa_get_address(gpuops_cache_area(), rng->data);
	*lo = off == 0 ? 0 : row_end[off - 1];
	*hi = row_end[off];
	return (const char *) row_end;
}

/* Copies the segments' values (OpenMP threads: plain memory only). */
static void
gpuops_cache_copy(GpuopsCacheSource *cs, int nseg, GpuopsScanBatch *batch)
{
	int64		npieces = 0;
	int64		p;
	int			s;

	for (s = 0; s < nseg; s++)
		npieces += (cs->segs[s].n + GPUOPS_CACHE_COPY_PIECE - 1) /
			GPUOPS_CACHE_COPY_PIECE;
#pragma omp parallel for num_threads(cs->nthreads) schedule(dynamic, 1) if (npieces > 1)
	for (p = 0; p < npieces * cs->ncols; p++)
	{
		int			c = (int) (p % cs->ncols);
		int64		piece = p / cs->ncols;
		const GpuopsCacheSeg *seg = cs->segs;
		int64		from;
		int64		n;

		while (piece >= (seg->n + GPUOPS_CACHE_COPY_PIECE - 1) /
			   GPUOPS_CACHE_COPY_PIECE)
		{
			piece -= (seg->n + GPUOPS_CACHE_COPY_PIECE - 1) /
				GPUOPS_CACHE_COPY_PIECE;
			seg++;
		}
		from = piece * GPUOPS_CACHE_COPY_PIECE;
		n = Min(seg->n - from, GPUOPS_CACHE_COPY_PIECE);
		if (cs->presence[c])
		{
			int32	   *dst = (int32 *) batch->data[c] + seg->dst_row + from;
			int64		j;

			for (j = 0; j < n; j++)
				dst[j] = 1;
		}
		else
		{
			size_t		w = gpo_type_size(cs->t->cols[cs->cidx[c]].type);

			memcpy((char *) batch->data[c] + (seg->dst_row + from) * w,
				   seg->base + seg->lay.values[cs->cidx[c]] +
				   (seg->src_row + from) * w, n * w);
		}
	}
}

/* Clears the batch's bits (and presence values) of the segments' NULL rows. */
static void
gpuops_cache_copy_nulls(GpuopsCacheSource *cs, int nseg, GpuopsScanBatch *batch)
{
	int			s;
	int			c;

	for (s = 0; s < nseg; s++)
	{
		const GpuopsCacheSeg *seg = &cs->segs[s];

		for (c = 0; c < cs->ncols; c++)
		{
			int			cc = cs->cidx[c];
			const uint8 *bits = (const uint8 *) seg->base + seg->lay.validity[cc];
			uint8	   *dst = batch->validity[c];
			int64		j;

			if (!((const bool *) (seg->base + seg->lay.has_nulls))[cc])
				continue;
			for (j = 0; j < seg->n; j++)
			{
				int64		sr = seg->src_row + j;
				int64		dr = seg->dst_row + j;

				if (bits[sr >> 3] & (1 << (sr & 7)))
					continue;
				dst[dr >> 3] &= ~(1 << (dr & 7));
				batch->has_nulls[c] = true;
				if (cs->presence[c])
					((int32 *) batch->data[c])[dr] = 0;
			}
		}
	}
}

/*
 * Appends the rows of blocks[0 ..] that the cache holds fresh, whole blocks
 * while they fit; the others go to missed.  Returns the blocks consumed.
 */
static int
gpuops_cache_serve(void *arg, const BlockNumber *blocks, int nblocks,
				   GpuopsScanBatch *batch, BlockNumber *missed, int *nmissed,
				   int64 *rows)
{
	GpuopsCacheSource *cs = (GpuopsCacheSource *) arg;
	GpuopsCacheTable *t = cs->t;
	GpuopsCacheRange *ranges;
	uint64		now = pg_atomic_fetch_add_u64(&gpuops_cache->clock, 1);
	int64		dst = batch->nrows;
	int			nseg = 0;
	int			served = 0;
	int			k;

	if (cs->maxseg < nblocks)
	{
		cs->segs = cs->segs ? repalloc(cs->segs, sizeof(GpuopsCacheSeg) * nblocks) :
			palloc(sizeof(GpuopsCacheSeg) * nblocks);
		cs->maxseg = nblocks;
	}
	LWLockAcquire(t->lock, LW_SHARED);
	ranges = t->in_use && t->serial == cs->serial &&
		RelFileNodeEquals(t->node, cs->node) ? gpuops_cache_ranges(t) : NULL;
	for (k = 0; k < nblocks; k++)
	{
		int64		lo = 0;
		int64		hi = 0;
		const char *base;
		GpuopsCacheSeg *last = nseg > 0 ? &cs->segs[nseg - 1] : NULL;

		/* a block the GPU service aggregated from its kept range: no rows */
		if (gpuops_cache_skipped(cs, blocks[k]))
		{
			served++;
			continue;
		}
		base = gpuops_cache_block_rows(cs, ranges, blocks[k], &lo, &hi);

		if (base != NULL && dst + (hi - lo) > batch->capacity)
		{
			if (dst > 0)
				break;			/* the batch is full */
			base = NULL;		/* a block larger than a batch: the heap's */
		}
		if (base == NULL)
		{
			missed[(*nmissed)++] = blocks[k];
			continue;
		}
		pg_atomic_write_u64(&ranges[blocks[k] / cs->range_blocks].last_used, now);
		if (last != NULL && last->base == base && last->src_row + last->n == lo)
			last->n += hi - lo;
		else
		{
			GpuopsCacheSeg *seg = &cs->segs[nseg++];

			seg->base = base;
			seg->src_row = lo;
			seg->dst_row = dst;
			seg->n = hi - lo;
			gpuops_cache_layout(t, ranges[blocks[k] / cs->range_blocks].nblocks,
								ranges[blocks[k] / cs->range_blocks].nrows,
								&seg->lay);
		}
		dst += hi - lo;
		served++;
	}
	gpuops_cache_copy(cs, nseg, batch);
	gpuops_cache_copy_nulls(cs, nseg, batch);
	if (served > 0)
		pg_atomic_fetch_add_u64(&t->hits, served);
	LWLockRelease(t->lock);
	*rows = dst - batch->nrows;
	batch->nrows = dst;
	return k;
}

/* The cached column of the reader's column col, or -1. */
static int
gpuops_cache_col_of(const GpuopsCacheTable *t, Relation rel,
					const GpuopsScanCol *col)
{
	Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), col->attnum - 1);
	int			c;

	if (col->encode != NULL || att->attisdropped)
		return -1;
	for (c = 0; c < t->ncols; c++)
	{
		const GpuopsCacheCol *cc = &t->cols[c];

		if (cc->attnum != col->attnum || cc->typid != att->atttypid ||
			cc->typmod != att->atttypmod)
			continue;
		if (col->presence || cc->type == col->type)
			return c;
	}
	return -1;
}

/* The share of relid's pages the cache holds fresh now with every column of attnos. */
double
gpuops_cache_fresh_share(Oid relid, double pages, Bitmapset *attnos)
{
	GpuopsCacheTable *t;
	GpuopsCacheRange *ranges;
	double		blocks = 0;
	int64		i;
	int			a = -1;

	if (!gpuops_use_cache || pages <= 0 || RecoveryInProgress() ||
		(t = gpuops_cache_find(relid)) == NULL)
		return 0.0;
	(void) gpuops_cache_area(); /* (attached before the slot's lock) */
	LWLockAcquire(t->lock, LW_SHARED);
	while ((a = bms_next_member(attnos, a)) >= 0)
	{
		AttrNumber	attnum = a + FirstLowInvalidHeapAttributeNumber;
		int			c;

		for (c = 0; c < t->ncols && t->cols[c].attnum != attnum; c++)
			;
		if (c == t->ncols)
			break;				/* (a system column, or one not cached) */
	}
	ranges = a < 0 && t->in_use && t->relid == relid && !t->broken ?
		gpuops_cache_ranges(t) : NULL;
	for (i = 0; ranges != NULL && i < t->nranges; i++)
		if (DsaPointerIsValid(ranges[i].data) &&
			pg_atomic_read_u32(&ranges[i].gen) == ranges[i].filled_gen)
			blocks += ranges[i].nblocks;
	LWLockRelease(t->lock);
	return Min(blocks / pages, 1.0);
}

/* Makes the reader take the blocks the cache holds fresh from it. */
GpuopsCacheSource *
gpuops_cache_attach_reader(GpuopsScanReader *r, Relation rel, int ncols,
						   const GpuopsScanCol *cols, int nthreads)
{
	GpuopsCacheTable *t;
	GpuopsCacheSource *cs;
	GpuopsCacheRange *ranges;
	bool		any = false;
	int64		i;
	int			c;

	if (!gpuops_use_cache || !gpuops_scan_stats(r)->fast ||
		RecoveryInProgress() ||
		(t = gpuops_cache_find(RelationGetRelid(rel))) == NULL ||
		!gpuops_cache_triggers_ok(rel))
		return NULL;
	cs = palloc0(sizeof(GpuopsCacheSource));
	cs->cidx = palloc(sizeof(int) * Max(ncols, 1));
	cs->presence = palloc(sizeof(bool) * Max(ncols, 1));
	cs->ncols = ncols;
	cs->nthreads = Max(nthreads, 1);
	cs->t = t;
	cs->node = rel->rd_node;
	(void) gpuops_cache_area(); /* (attached before the slot's lock) */
	LWLockAcquire(t->lock, LW_SHARED);
	for (c = 0; c < ncols; c++)
	{
		cs->cidx[c] = gpuops_cache_col_of(t, rel, &cols[c]);
		cs->presence[c] = cols[c].presence;
		if (cs->cidx[c] < 0)
			break;
	}
	if (c == ncols && t->in_use && t->relid == RelationGetRelid(rel) &&
		t->dbid == MyDatabaseId && !t->broken &&
		RelFileNodeEquals(t->node, rel->rd_node))
	{
		ranges = gpuops_cache_ranges(t);
		cs->serial = t->serial;
		cs->range_blocks = t->range_blocks;
		cs->nhint = t->nranges;
		cs->hint = palloc0(sizeof(bool) * Max(cs->nhint, 1));
		for (i = 0; i < cs->nhint; i++)
		{
			cs->hint[i] = DsaPointerIsValid(ranges[i].data) &&
				pg_atomic_read_u32(&ranges[i].gen) == ranges[i].filled_gen;
			any |= cs->hint[i];
		}
	}
	LWLockRelease(t->lock);
	/* (without a fresh range: for the ranges the GPU service keeps) */
	if (cs->hint == NULL)
		return NULL;
	cs->src.has_block = gpuops_cache_has_block;
	cs->src.serve = gpuops_cache_serve;
	cs->src.arg = cs;
	gpuops_scan_set_source(r, &cs->src);
	return cs;
}
