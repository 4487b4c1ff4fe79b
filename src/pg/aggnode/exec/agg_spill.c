/*
 * agg_spill.c
 *	  GpuOpsAgg's groups past gpuops.max_group_memory: sorted runs of partial
 *	  states in a temporary file, merged back in key order.
 *
 * The running groups are one array sorted by key (agg_state.c), and every
 * batch's groups merge into them.  When a merge would hold more than the
 * limit, the groups held are written out as a sorted run of partial states
 * (rows, counts, exact sums, float sums, minimums and maximums, non-finite
 * flags and m2) and the state starts again empty; incoming groups that
 * alone pass the limit go straight to a run.  After the input, the groups still held become the
 * last run, and a k-way merge (a binary heap of runs) combines equal keys
 * across runs exactly as the in-memory merge does; it gives the groups out
 * in key order, so the node keeps the sorted output the planner may rely
 * on (agg_plan.c, gpuops_agg_pathkeys).  When there are more runs than the
 * merge may read at once (each reader holds a block of groups), merge
 * passes first combine them fanin at a time into longer runs, as an
 * external sort does.  Against partitioning by key hash this keeps the key
 * order, needs no recursion on skewed keys (a pass always shortens the run
 * list) and writes each group at most once per run, not once per batch.
 *
 * The runs live in one BufFile (BufFileCreateTemp): temp_file_limit and
 * temp_tablespaces hold, and the resource owner removes the files when an
 * error or a cancel ends the query.  Interrupts are checked as each block
 * is read back.
 */
#include "aggnode/gpuops_agg.h"

#include "commands/tablespace.h"
#include "lib/binaryheap.h"
#include "miscadmin.h"
#include "storage/buffile.h"
#include "utils/memutils.h"

/* Most runs one merge reads at once. */
#define GPUOPS_SPILL_MAX_FANIN 256
/* Most groups of one block. */
#define GPUOPS_SPILL_MAX_BLOCK 8192

/* Where a run starts in the file, and its groups. */
typedef struct GpuopsSpillRun
{
	int			fileno;
	off_t		offset;
	int64		ngroups;
} GpuopsSpillRun;

/* A run being merged: its next block on disk and the block in memory. */
typedef struct GpuopsSpillReader
{
	int			fileno;
	off_t		offset;
	int64		left;			/* groups of the run not read yet */
	GpuopsAggState buf;			/* the block read */
	int64		cur;			/* its next group */
} GpuopsSpillReader;

/* The state's runs and its merge. */
typedef struct GpuopsAggSpill
{
	MemoryContext cxt;			/* the spill, its file and the last merge */
	MemoryContext merge_cxt;	/* the readers of the merge in progress */
	BufFile    *file;
	GpuopsSpillRun *runs;
	int			nruns;
	int			maxruns;
	int64		block;			/* most groups a block */
	int			fanin;
	GpuopsSpillReader *readers;	/* the merge in progress */
	int			nreaders;
	binaryheap *heap;			/* readers with groups left, least key first */
	GpuopsAggState out;			/* a merge's output block */
} GpuopsAggSpill;

/* A new empty temporary file for runs, in the spill's context. */
static BufFile *
gpuops_spill_file(GpuopsAggSpill *sp)
{
	MemoryContext old = MemoryContextSwitchTo(sp->cxt);
	BufFile    *file;

	PrepareTempTablespaces();
	file = BufFileCreateTemp(false);
	MemoryContextSwitchTo(old);
	return file;
}

/* An empty state of st's shape in the current memory context, with room for capacity groups. */
static void
gpuops_spill_buffer(const GpuopsAggState *st, GpuopsAggState *buf,
					int64 capacity)
{
	gpuops_aggstate_init(buf, st->nkeys, st->key_types, st->nvals,
						 st->val_types);
	buf->limit_bytes = 0;
	gpuops_aggstate_reserve(buf, capacity);
}

/*
 * The spill of st: block and fan-in sized so that a merge's blocks take at
 * most half of gpuops.max_group_memory.
 */
static GpuopsAggSpill *
gpuops_spill_create(GpuopsAggState *st)
{
	MemoryContext old = MemoryContextSwitchTo(st->cxt);
	GpuopsAggSpill *sp = palloc0(sizeof(GpuopsAggSpill));
	Size		gb = gpuops_aggstate_group_bytes(st);
	Size		limit = Max(st->limit_bytes, (Size) 64 * 1024);

	sp->cxt = AllocSetContextCreate(st->cxt, "GpuOpsAgg spill",
									ALLOCSET_DEFAULT_SIZES);
	MemoryContextSwitchTo(sp->cxt);
	sp->merge_cxt = AllocSetContextCreate(sp->cxt, "GpuOpsAgg spill merge",
										  ALLOCSET_DEFAULT_SIZES);
	sp->block = Max((int64) 1, Min((int64) GPUOPS_SPILL_MAX_BLOCK,
								   (int64) (limit / (16 * gb))));
	sp->fanin = (int) Max((int64) 2,
						  Min((int64) GPUOPS_SPILL_MAX_FANIN,
							  (int64) (limit / (2 * sp->block * gb))));
	sp->maxruns = 16;
	sp->runs = palloc(sizeof(GpuopsSpillRun) * sp->maxruns);
	gpuops_spill_buffer(st, &sp->out, sp->block);
	sp->file = gpuops_spill_file(sp);
	MemoryContextSwitchTo(old);
	return sp;
}

/* Appends bytes to file, counting them. */
static void
gpuops_spill_put(GpuopsAggState *st, BufFile *file, const void *p, Size bytes)
{
	BufFileWrite(file, (void *) p, bytes);
	st->spill_bytes += bytes;
}

/*
 * Writes bytes from p, or zeros where the engine left the array out (no
 * non-finite flags or m2 asked for): a run's layout is fixed.
 */
static void
gpuops_spill_put_or_zero(GpuopsAggState *st, BufFile *file, const void *p,
						 Size bytes)
{
	if (p != NULL)
		gpuops_spill_put(st, file, p, bytes);
	else
	{
		void	   *zeros = palloc_extended(bytes, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);

		gpuops_spill_put(st, file, zeros, bytes);
		pfree(zeros);
	}
}

/* Writes groups [start, start + count) of the arrays as one block. */
static void
gpuops_spill_write_block(GpuopsAggState *st, BufFile *file, int64 start,
						 int64 count, uint64 *const *key_codes,
						 uint8 *const *key_valid, const int64 *rows,
						 const gpo_agg_out *vals)
{
	int			k;
	int			v;

	gpuops_spill_put(st, file, &count, sizeof(count));
	for (k = 0; k < st->nkeys; k++)
	{
		gpuops_spill_put(st, file, key_codes[k] + start, sizeof(uint64) * count);
		gpuops_spill_put(st, file, key_valid[k] + start, count);
	}
	gpuops_spill_put(st, file, rows + start, sizeof(int64) * count);
	for (v = 0; v < st->nvals; v++)
	{
		size_t		w = gpo_type_size(st->val_types[v]);

		gpuops_spill_put(st, file, vals[v].count + start, sizeof(int64) * count);
		gpuops_spill_put(st, file, vals[v].isum + start, sizeof(gpo_int128) * count);
		gpuops_spill_put(st, file, vals[v].fsum + start, sizeof(double) * count);
		gpuops_spill_put(st, file, (char *) vals[v].min + w * start, w * count);
		gpuops_spill_put(st, file, (char *) vals[v].max + w * start, w * count);
		gpuops_spill_put_or_zero(st, file, vals[v].fflags ?
								 vals[v].fflags + start : NULL, count);
		gpuops_spill_put_or_zero(st, file, vals[v].m2 ?
								 (char *) (vals[v].m2 + start) : NULL,
								 sizeof(double) * count);
	}
}

/* A new run starting at the end of file, added to runs (*nruns of *maxruns). */
static GpuopsSpillRun *
gpuops_spill_new_run(GpuopsAggSpill *sp, BufFile *file, GpuopsSpillRun **runs,
					 int *nruns, int *maxruns)
{
	GpuopsSpillRun *run;

	if (*nruns == *maxruns)
	{
		*maxruns *= 2;
		*runs = repalloc(*runs, sizeof(GpuopsSpillRun) * *maxruns);
	}
	run = &(*runs)[(*nruns)++];
	BufFileTell(file, &run->fileno, &run->offset);
	run->ngroups = 0;
	return run;
}

/* Writes n sorted groups as one run (see gpuops_agg.h). */
void
gpuops_aggspill_write(GpuopsAggState *st, int64 n, uint64 *const *key_codes,
					  uint8 *const *key_valid, const int64 *rows,
					  const gpo_agg_out *vals)
{
	GpuopsAggSpill *sp;
	GpuopsSpillRun *run;
	int64		start;

	if (st->spill == NULL)
		st->spill = gpuops_spill_create(st);
	sp = st->spill;
	run = gpuops_spill_new_run(sp, sp->file, &sp->runs, &sp->nruns,
							   &sp->maxruns);
	for (start = 0; start < n; start += sp->block)
	{
		int64		count = Min(sp->block, n - start);

		gpuops_spill_write_block(st, sp->file, start, count, key_codes,
								 key_valid, rows, vals);
	}
	run->ngroups = n;
	st->spill_runs++;
}

/* Merges groups into st within its limit, spilling first (see gpuops_agg.h). */
void
gpuops_aggspill_merge(GpuopsAggState *st, int64 n, uint64 *const *key_codes,
					  uint8 *const *key_valid, const int64 *rows,
					  const gpo_agg_out *vals)
{
	Size		group_bytes = gpuops_aggstate_group_bytes(st);

	if (n == 0)
		return;
	/* the merge holds the old and the new arrays at once */
	if (st->limit_bytes > 0 &&
		group_bytes * (Size) (2 * st->ngroups + n) > st->limit_bytes)
	{
		if (st->ngroups > 0)
		{
			gpuops_aggspill_write(st, st->ngroups, st->key_codes,
								  st->key_valid, st->rows, st->vals);
			gpuops_aggstate_clear(st);
		}
		if (group_bytes * (Size) n > st->limit_bytes)
		{
			gpuops_aggspill_write(st, n, key_codes, key_valid, rows, vals);
			return;
		}
	}
	gpuops_aggstate_merge(st, n, key_codes, key_valid, rows, vals);
}

/* Takes a chunk's arrays where they fit the limit (see gpuops_agg.h). */
bool
gpuops_aggspill_take(GpuopsAggState *st, int64 n, uint64 *const *key_codes,
					 uint8 *const *key_valid, int64 *rows,
					 const gpo_agg_out *vals)
{
	if (st->limit_bytes > 0 &&
		gpuops_aggstate_group_bytes(st) * (Size) n > st->limit_bytes)
		return false;
	return gpuops_aggstate_take(st, n, key_codes, key_valid, rows, vals);
}

/* Reads bytes from file, or raises an error. */
static void
gpuops_spill_get(BufFile *file, void *p, Size bytes)
{
	if (BufFileRead(file, p, bytes) != bytes)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read from GpuOpsAgg temporary file")));
}

/* Reads the reader's next block into its buffer (its run has groups left). */
static void
gpuops_spill_refill(GpuopsAggSpill *sp, GpuopsSpillReader *r)
{
	GpuopsAggState *b = &r->buf;
	int64		count;
	int			k;
	int			v;

	CHECK_FOR_INTERRUPTS();
	if (BufFileSeek(sp->file, r->fileno, r->offset, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not seek in GpuOpsAgg temporary file")));
	gpuops_spill_get(sp->file, &count, sizeof(count));
	if (count <= 0 || count > b->capacity || count > r->left)
		elog(ERROR, "GpuOpsAgg temporary file holds a block of %lld groups",
			 (long long) count);
	for (k = 0; k < b->nkeys; k++)
	{
		gpuops_spill_get(sp->file, b->key_codes[k], sizeof(uint64) * count);
		gpuops_spill_get(sp->file, b->key_valid[k], count);
	}
	gpuops_spill_get(sp->file, b->rows, sizeof(int64) * count);
	for (v = 0; v < b->nvals; v++)
	{
		size_t		w = gpo_type_size(b->val_types[v]);

		gpuops_spill_get(sp->file, b->vals[v].count, sizeof(int64) * count);
		gpuops_spill_get(sp->file, b->vals[v].isum, sizeof(gpo_int128) * count);
		gpuops_spill_get(sp->file, b->vals[v].fsum, sizeof(double) * count);
		gpuops_spill_get(sp->file, b->vals[v].min, w * count);
		gpuops_spill_get(sp->file, b->vals[v].max, w * count);
		gpuops_spill_get(sp->file, b->vals[v].fflags, count);
		gpuops_spill_get(sp->file, b->vals[v].m2, sizeof(double) * count);
	}
	BufFileTell(sp->file, &r->fileno, &r->offset);
	b->ngroups = count;
	r->left -= count;
	r->cur = 0;
}

/* Heap order: the reader whose next group has the least key comes first. */
static int
gpuops_spill_cmp(Datum a, Datum b, void *arg)
{
	GpuopsAggSpill *sp = (GpuopsAggSpill *) arg;
	GpuopsSpillReader *ra = &sp->readers[DatumGetInt32(a)];
	GpuopsSpillReader *rb = &sp->readers[DatumGetInt32(b)];

	return -gpuops_aggstate_cmp_groups(&ra->buf, ra->cur, &rb->buf, rb->cur);
}

/* Opens the merge of runs [first, first + n) of the file's runs. */
static void
gpuops_spill_open(GpuopsAggState *st, GpuopsAggSpill *sp,
				  const GpuopsSpillRun *runs, int n)
{
	MemoryContext old;
	int			i;

	MemoryContextReset(sp->merge_cxt);
	old = MemoryContextSwitchTo(sp->merge_cxt);
	sp->readers = palloc0(sizeof(GpuopsSpillReader) * Max(n, 1));
	sp->nreaders = n;
	sp->heap = binaryheap_allocate(Max(n, 1), gpuops_spill_cmp, sp);
	for (i = 0; i < n; i++)
	{
		GpuopsSpillReader *r = &sp->readers[i];

		r->fileno = runs[i].fileno;
		r->offset = runs[i].offset;
		r->left = runs[i].ngroups;
		if (r->left == 0)
			continue;
		gpuops_spill_buffer(st, &r->buf, Min(sp->block, r->left));
		gpuops_spill_refill(sp, r);
		binaryheap_add_unordered(sp->heap, Int32GetDatum(i));
	}
	binaryheap_build(sp->heap);
	MemoryContextSwitchTo(old);
}

/*
 * Fills sp->out (emptied first) with the merge's next groups, at most
 * sp->block, each complete: a group ends where the next key differs.
 * Returns their number, 0 at the end of the merge.
 */
static int64
gpuops_spill_fill(GpuopsAggSpill *sp)
{
	GpuopsAggState *out = &sp->out;

	out->ngroups = 0;
	while (!binaryheap_empty(sp->heap))
	{
		int			i = DatumGetInt32(binaryheap_first(sp->heap));
		GpuopsSpillReader *r = &sp->readers[i];

		if (out->ngroups == out->capacity &&
			gpuops_aggstate_cmp_groups(out, out->ngroups - 1, &r->buf,
									   r->cur) != 0)
			break;
		gpuops_aggstate_put(out, &r->buf, r->cur);
		if (++r->cur < r->buf.ngroups)
			binaryheap_replace_first(sp->heap, Int32GetDatum(i));
		else if (r->left > 0)
		{
			gpuops_spill_refill(sp, r);
			binaryheap_replace_first(sp->heap, Int32GetDatum(i));
		}
		else
			(void) binaryheap_remove_first(sp->heap);
	}
	return out->ngroups;
}

/*
 * One merge pass: every fanin runs become one, in a new file that replaces
 * the old one.
 */
static void
gpuops_spill_pass(GpuopsAggState *st, GpuopsAggSpill *sp)
{
	BufFile    *next = gpuops_spill_file(sp);
	int			maxruns = sp->nruns / sp->fanin + 2;
	int			nruns = 0;
	GpuopsSpillRun *runs = MemoryContextAlloc(sp->cxt,
											  sizeof(GpuopsSpillRun) * maxruns);
	int			first;

	for (first = 0; first < sp->nruns; first += sp->fanin)
	{
		GpuopsSpillRun *run = gpuops_spill_new_run(sp, next, &runs, &nruns,
												   &maxruns);
		int64		count;

		gpuops_spill_open(st, sp, sp->runs + first,
						  Min(sp->fanin, sp->nruns - first));
		while ((count = gpuops_spill_fill(sp)) > 0)
		{
			gpuops_spill_write_block(st, next, 0, count, sp->out.key_codes,
									 sp->out.key_valid, sp->out.rows,
									 sp->out.vals);
			run->ngroups += count;
		}
	}
	MemoryContextReset(sp->merge_cxt);
	sp->heap = NULL;
	BufFileClose(sp->file);
	sp->file = next;
	pfree(sp->runs);
	sp->runs = runs;
	sp->nruns = nruns;
	sp->maxruns = maxruns;
	st->spill_passes++;
}

/* The last run, the merge passes and the last merge (see gpuops_agg.h). */
void
gpuops_aggstate_finish(GpuopsAggState *st)
{
	GpuopsAggSpill *sp = st->spill;

	if (sp == NULL)
		return;
	if (st->ngroups > 0)
	{
		gpuops_aggspill_write(st, st->ngroups, st->key_codes, st->key_valid,
							  st->rows, st->vals);
		gpuops_aggstate_clear(st);
	}
	while (sp->nruns > sp->fanin)
		gpuops_spill_pass(st, sp);
	gpuops_spill_open(st, sp, sp->runs, sp->nruns);
	st->groups_out = 0;
}

/* The next groups of the last merge (see gpuops_agg.h). */
int64
gpuops_aggstate_next_piece(GpuopsAggState *st, GpuopsAggState **piece)
{
	GpuopsAggSpill *sp = st->spill;
	int64		count;

	if (sp == NULL || sp->heap == NULL)
		return 0;
	count = gpuops_spill_fill(sp);
	st->groups_out += count;
	*piece = &sp->out;
	return count;
}

/* Closes the temporary file and frees the spill (see gpuops_agg.h). */
void
gpuops_aggstate_spill_end(GpuopsAggState *st)
{
	GpuopsAggSpill *sp = st->spill;

	if (sp == NULL)
		return;
	st->spill = NULL;
	if (sp->file != NULL)
		BufFileClose(sp->file);
	MemoryContextDelete(sp->cxt);
}
