/*
 * decode.c
 *	  Decode fixed-width attributes of visible heap tuples, straight out of
 *	  pinned pages, into column batches with OpenMP threads.
 *
 * The backend has pinned the pages and recorded the visible tuples; the
 * pins keep every tuple in place (pruning needs a cleanup lock), and a
 * concurrent updater changes only xmax, ctid and flag bits, never the
 * attribute count, the null bitmap or the data.  So the threads read the
 * tuples without the buffer lock, as heap's page-at-a-time mode does.
 *
 * Inside the parallel region the decoding threads only read and write plain
 * memory (the backend's own thread may meanwhile pin the next pages, see
 * gpuops_decode_tuples):
 * the descriptor's attribute lengths and alignments were copied out
 * beforehand, with offsets precomputed the way attcacheoff is (but never
 * written into the shared descriptor), and the value of an attribute a tuple
 * lacks (added later by ALTER TABLE ADD COLUMN) was taken from the
 * descriptor's missing values.  The output rows are cut into pieces that
 * start on multiples of 8, one thread a piece, so no two threads write one
 * validity byte.
 */
#include "heapscan/gpuops_scan.h"

#include <omp.h>

#include "access/htup_details.h"
#include "access/tupmacs.h"

/* Fewest tuples worth another decoding thread. */
#define GPUOPS_DECODE_MIN_PER_THREAD 8192

/*
 * The same where the decoder walks variable-width attributes: each tuple
 * is more work, and a page batch holds fewer (a 600-byte row: some 27,000
 * in 2,048 pages, which gave 3 threads of 16 on the H200 machine).
 */
#define GPUOPS_DECODE_MIN_PER_THREAD_WALK 1024

/* Tuples ahead of the one decoded whose header is prefetched. */
#ifndef GPUOPS_DECODE_PREFETCH
#define GPUOPS_DECODE_PREFETCH 64
#endif

/* Tuples ahead whose lines past the header are prefetched (the walk). */
#define GPUOPS_DECODE_PREFETCH_NEAR 8

/* Most lines past a tuple's header prefetched for the walk. */
#define GPUOPS_DECODE_WALK_LINES 8

/* Pieces per thread of a parallel decode. */
#define GPUOPS_DECODE_PIECES 8

/* Fill plan for the sorted columns cols of a relation with descriptor desc. */
void
gpuops_decode_plan_init(GpuopsDecodePlan *plan, TupleDesc desc, int ncols,
						GpuopsDecodeCol *cols, int nthreads)
{
	int			natts = 0;
	int32		off = 0;
	bool		fixed = true;
	int			i;

	for (i = 0; i < ncols; i++)
		natts = Max(natts, cols[i].attidx + 1);
	plan->ncols = ncols;
	plan->cols = cols;
	plan->natts = natts;
	plan->attlen = palloc(sizeof(int16) * Max(natts, 1));
	plan->attalign = palloc(sizeof(char) * Max(natts, 1));
	plan->fixoff = palloc(sizeof(int32) * Max(natts, 1));
	for (i = 0; i < natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		plan->attlen[i] = att->attlen;
		plan->attalign[i] = att->attalign;
		plan->fixoff[i] = -1;
		if (!fixed)
			continue;
		if (att->attlen > 0)
		{
			off = att_align_nominal(off, att->attalign);
			plan->fixoff[i] = off;
			off += att->attlen;
		}
		else
		{
			/* a varlena at an aligned offset needs no padding either way */
			if (att->attlen == -1 &&
				off == att_align_nominal(off, att->attalign))
				plan->fixoff[i] = off;
			fixed = false;
		}
	}
	plan->all_fixed = true;
	for (i = 0; i < ncols; i++)
		if (plan->fixoff[cols[i].attidx] < 0)
			plan->all_fixed = false;
	gpuops_walk_init(plan);
	/* a guess of the bytes the walk reads: 8 an attribute, at least one line */
	plan->walk_lines = Min(GPUOPS_DECODE_WALK_LINES, Max(1, natts * 8 / 64));
	plan->nthreads = Max(nthreads, 1);
	/* one cache line (or more) of flags per thread */
	plan->seen_stride = (int) TYPEALIGN(64, Max(ncols, 1));
	plan->seen = palloc0(sizeof(bool) * plan->seen_stride * plan->nthreads);
}

/* Store the stored value at p as the batch value of row. */
static inline void
gpuops_decode_put(const GpuopsDecodeCol *dc, int64 row, const char *p)
{
	switch (dc->conv)
	{
		case GPUOPS_CONV_INT16_INT32:
			((int32 *) dc->data)[row] = *(const int16 *) p;
			break;
		case GPUOPS_CONV_INT32:
			((int32 *) dc->data)[row] = *(const int32 *) p;
			break;
		case GPUOPS_CONV_INT64:
			((int64 *) dc->data)[row] = *(const int64 *) p;
			break;
		case GPUOPS_CONV_FLOAT32:
			((float4 *) dc->data)[row] = *(const float4 *) p;
			break;
		case GPUOPS_CONV_FLOAT64:
			((float8 *) dc->data)[row] = *(const float8 *) p;
			break;
		case GPUOPS_CONV_BOOL_INT32:
			((int32 *) dc->data)[row] = *(const char *) p != 0;
			break;
		case GPUOPS_CONV_BOOL_UINT8:
			((uint8 *) dc->data)[row] = *(const char *) p != 0;
			break;
		case GPUOPS_CONV_NUMERIC:
			gpuops_scan_put_numeric(dc, row, p);
			break;
		case GPUOPS_CONV_SHORT_TEXT:
			gpuops_scan_put_short_text(dc, row, p);
			break;
		case GPUOPS_CONV_PRESENCE:
			((int32 *) dc->data)[row] = 1;
			break;
		case GPUOPS_CONV_TEXT_REF:
			gpuops_scan_put_text_ref(dc, row, p);
			break;
		case GPUOPS_CONV_ENCODE:
			break;				/* never on the page-batch path */
	}
}

/*
 * Decode one tuple the general way: walk the attributes up to the highest
 * needed one (NULLs, varlena and cstring ones included), as
 * slot_deform_heap_tuple does.
 */
static void
gpuops_decode_slow(const GpuopsDecodePlan *plan, HeapTupleHeader tup,
				   int64 row, bool *seen)
{
	int			natts = Min((int) HeapTupleHeaderGetNatts(tup), plan->natts);
	bool		hasnulls = (tup->t_infomask & HEAP_HASNULL) != 0;
	const bits8 *bp = tup->t_bits;
	const char *tp = (const char *) tup + tup->t_hoff;
	uint32		off = 0;
	bool		slow = false;
	int			k = 0;
	int			att;

	for (att = 0; att < natts && k < plan->ncols; att++)
	{
		int16		len = plan->attlen[att];

		if (hasnulls && att_isnull(att, bp))
		{
			for (; k < plan->ncols && plan->cols[k].attidx == att; k++)
			{
				gpuops_scan_put_null(&plan->cols[k], row);
				seen[plan->cols[k].out] = true;
			}
			slow = true;
			continue;
		}
		if (!slow && plan->fixoff[att] >= 0)
			off = plan->fixoff[att];
		else if (len == -1)
			off = att_align_pointer(off, plan->attalign[att], -1, tp + off);
		else
			off = att_align_nominal(off, plan->attalign[att]);
		for (; k < plan->ncols && plan->cols[k].attidx == att; k++)
			gpuops_decode_put(&plan->cols[k], row, tp + off);
		off = att_addlength_pointer(off, len, tp + off);
		if (len <= 0)
			slow = true;
	}
	/* attributes the tuple lacks: NULL, or the column's missing value */
	for (; k < plan->ncols; k++)
	{
		const GpuopsDecodeCol *dc = &plan->cols[k];

		if (dc->miss_null)
		{
			gpuops_scan_put_null(dc, row);
			seen[dc->out] = true;
		}
		else if (dc->conv == GPUOPS_CONV_NUMERIC)
			gpuops_scan_put_numeric(dc, row, DatumGetPointer(dc->miss_value));
		else if (dc->conv == GPUOPS_CONV_SHORT_TEXT)
			gpuops_scan_put_short_text(dc, row, DatumGetPointer(dc->miss_value));
		else if (dc->conv == GPUOPS_CONV_TEXT_REF)
			gpuops_scan_put_text_ref(dc, row, DatumGetPointer(dc->miss_value));
		else
			gpuops_scan_put_datum(dc->conv, dc->data, row, dc->miss_value);
	}
}

/*
 * Decode one tuple that has no NULLs and every needed attribute by the
 * plan's walk steps (walk.c): as gpuops_decode_slow, with each run of
 * unneeded fixed-width attributes passed in one step.
 */
static inline void
gpuops_decode_walk(const GpuopsDecodePlan *plan, HeapTupleHeader tup, int64 row)
{
	const char *tp = (const char *) tup + tup->t_hoff;
	uint32		off = 0;
	int			i;

	for (i = 0; i < plan->nsteps; i++)
	{
		const GpuopsWalkStep *st = &plan->steps[i];
		int			k;

		if (st->len == 0)
		{
			off += st->span[off & 7];
			continue;
		}
		if (st->len == -1)
			off = att_align_pointer(off, st->align, -1, tp + off);
		else
			off = att_align_nominal(off, st->align);
		for (k = st->col; k < st->col + st->ncol; k++)
			gpuops_decode_put(&plan->cols[k], row, tp + off);
		off = att_addlength_pointer(off, st->len, tp + off);
	}
}

/* Decode tuples tups[0 .. n-1] into batch rows row0 .. row0 + n - 1. */
static void
gpuops_decode_range(const GpuopsDecodePlan *plan, HeapTupleHeader const *tups,
					int64 n, int64 row0, bool *seen)
{
	int			ncols = plan->ncols;
	int			natts = plan->natts;
	int64		i;

	if (!plan->all_fixed)
	{
		for (i = 0; i < n; i++)
		{
			if (i + GPUOPS_DECODE_PREFETCH < n)
				__builtin_prefetch(tups[i + GPUOPS_DECODE_PREFETCH]);
			/* the walk reads on into the tuple: its next lines too */
			if (i + GPUOPS_DECODE_PREFETCH_NEAR < n)
			{
				const char *t = (const char *) tups[i + GPUOPS_DECODE_PREFETCH_NEAR];
				int			l;

				for (l = 1; l <= plan->walk_lines; l++)
					__builtin_prefetch(t + 64 * l);
			}
			if ((tups[i]->t_infomask & HEAP_HASNULL) == 0 &&
				HeapTupleHeaderGetNatts(tups[i]) >= natts)
				gpuops_decode_walk(plan, tups[i], row0 + i);
			else
				gpuops_decode_slow(plan, tups[i], row0 + i, seen);
		}
		return;
	}
	for (i = 0; i < n; i++)
	{
		HeapTupleHeader tup = tups[i];
		const char *tp;
		int			c;

		/* the tuples are cold: ask for one a few rows ahead */
		if (i + GPUOPS_DECODE_PREFETCH < n)
			__builtin_prefetch(tups[i + GPUOPS_DECODE_PREFETCH]);
		if ((tup->t_infomask & HEAP_HASNULL) != 0 ||
			HeapTupleHeaderGetNatts(tup) < natts)
		{
			gpuops_decode_slow(plan, tup, row0 + i, seen);
			continue;
		}
		tp = (const char *) tup + tup->t_hoff;
		for (c = 0; c < ncols; c++)
		{
			const GpuopsDecodeCol *dc = &plan->cols[c];

			gpuops_decode_put(dc, row0 + i, tp + plan->fixoff[dc->attidx]);
		}
	}
}

/*
 * Start of piece p of np pieces of n tuples written from output row row0: an
 * even split, moved up to a multiple of 8 output rows.
 */
static inline int64
gpuops_decode_split(int64 n, int64 row0, int p, int np)
{
	int64		r;

	if (p <= 0)
		return 0;
	if (p >= np)
		return n;
	r = (int64) ((__int128) n * p / np);
	r = TYPEALIGN(8, row0 + r) - row0;
	return Min(r, n);
}

/*
 * Decode ntups visible tuples into batch rows out_row .. out_row + ntups - 1
 * (validity bits preset); NULLs seen are added to batch->has_nulls.  If
 * beside is not NULL, the calling thread runs beside(arg) first, inside the
 * parallel region, while the other threads start decoding, then joins them:
 * beside may call PostgreSQL (it runs on the backend's own thread) but must
 * catch its own errors.
 */
void
gpuops_decode_tuples(GpuopsDecodePlan *plan, HeapTupleHeader const *tups,
					 int64 ntups, GpuopsScanBatch *batch, int64 out_row,
					 void (*beside) (void *), void *arg)
{
	int			nt;
	int			t;
	int			c;

	if (ntups <= 0)
	{
		if (beside != NULL)
			beside(arg);
		return;
	}
	nt = (int) Min((int64) plan->nthreads,
				   Max(ntups / (plan->all_fixed ? GPUOPS_DECODE_MIN_PER_THREAD :
								GPUOPS_DECODE_MIN_PER_THREAD_WALK), 1));
	memset(plan->seen, 0, sizeof(bool) * plan->seen_stride * nt);
	if (nt <= 1)
	{
		if (beside != NULL)
			beside(arg);
		gpuops_decode_range(plan, tups, ntups, out_row, plan->seen);
	}
	else
	{
		/*
		 * A few pieces per thread, taken dynamically, so that a thread the
		 * kernel preempts (or the calling thread, busy with beside) does not
		 * hold the others up at the barrier.
		 */
		int			npieces = (int) Min((int64) nt * GPUOPS_DECODE_PIECES,
										Max(ntups / 1024, nt));

#pragma omp parallel num_threads(nt)
		{
			int			p;

			if (beside != NULL && omp_get_thread_num() == 0)
				beside(arg);
#pragma omp for schedule(dynamic, 1) nowait
			for (p = 0; p < npieces; p++)
			{
				int64		lo = gpuops_decode_split(ntups, out_row, p, npieces);
				int64		hi = gpuops_decode_split(ntups, out_row, p + 1, npieces);

				if (hi > lo)
					gpuops_decode_range(plan, tups + lo, hi - lo, out_row + lo,
										plan->seen + (size_t) omp_get_thread_num() *
										plan->seen_stride);
			}
		}
	}
	for (t = 0; t < nt; t++)
		for (c = 0; c < batch->ncols; c++)
			if (plan->seen[(size_t) t * plan->seen_stride + c])
				batch->has_nulls[c] = true;
}

/* Number of normal line pointers among n. */
static inline int32
gpuops_decode_count_normal(const ItemIdData *lp, int32 n)
{
	int32		k = 0;
	int32		i;

	for (i = 0; i < n; i++)
		k += ItemIdIsNormal(&lp[i]) ? 1 : 0;
	return k;
}

/* Tuple headers of the normal line pointers of one page, from tups on. */
static inline void
gpuops_decode_record_page(const GpuopsPageRef *pg, const ItemIdData *lps,
						  HeapTupleHeader *tups)
{
	const ItemIdData *lp = lps + pg->lp_start;
	int64		k = 0;
	int32		i;

	for (i = 0; i < pg->nlp; i++)
		if (ItemIdIsNormal(&lp[i]))
			tups[k++] = (HeapTupleHeader) (pg->page + ItemIdGetOffset(&lp[i]));
}

/*
 * The tuple headers of the normal line pointers of npages pages, in order,
 * into tups (page_first: [npages] scratch); returns how many.  The line
 * pointers are the backend's copies taken under each page's lock, and the
 * pages stay pinned, so the threads only read memory.
 */
int64
gpuops_decode_record(const GpuopsDecodePlan *plan, const GpuopsPageRef *pages,
					 int npages, const ItemIdData *lps, int64 *page_first,
					 HeapTupleHeader *tups)
{
	int64		total = 0;
	int			nt;
	int			i;

	if (npages <= 0)
		return 0;
	nt = Min(plan->nthreads, Max(npages / 64, 1));
#pragma omp parallel for num_threads(nt) schedule(dynamic, 64) if (nt > 1)
	for (i = 0; i < npages; i++)
		page_first[i] = gpuops_decode_count_normal(lps + pages[i].lp_start,
												   pages[i].nlp);
	for (i = 0; i < npages; i++)
	{
		int64		k = page_first[i];

		page_first[i] = total;
		total += k;
	}
#pragma omp parallel for num_threads(nt) schedule(dynamic, 64) if (nt > 1)
	for (i = 0; i < npages; i++)
		gpuops_decode_record_page(&pages[i], lps, tups + page_first[i]);
	return total;
}
