/*
 * reader.c
 *	  The column reader: fixed-width columns of one table -> column batches,
 *	  through page batches (heap) or slots (any table AM).
 *
 * Fast path.  The backend pins up to GPUOPS_SCAN_BATCH_PAGES heap pages in
 * block order through the buffer manager (with a bulk-read ring when the
 * table is larger than a quarter of shared_buffers, as a seq scan does;
 * through the buffer that last held the block when recent.c remembers
 * one), then, page by page under its share lock, copies the line pointers
 * of the visible tuples: on a page marked all-visible (and a snapshot not
 * taken during recovery) the whole array, otherwise those of the tuples
 * HeapTupleSatisfiesVisibility accepts; that is heapgetpage's page-at-a-time
 * mode, pruning included.  Then OpenMP threads turn the copies into tuple
 * headers and decode the tuples into the batch (decode.c),
 * and once every tuple of the page batch is delivered the pins are released
 * and interrupts checked.  A page batch may span output batches: a cursor
 * into its recorded tuples carries over, and its pins are held until then
 * (the resource owner releases them on ERROR).
 *
 * Two page batches take turns: while the threads decode one, the backend's
 * own thread pins the next one and copies its line pointers (inside the
 * decoding's parallel region, then it joins the decoding), because that
 * page-by-page work may only run on the backend's thread and on many cores
 * it was half of the read (bench/RESULTS.md).  An ERROR there is caught and
 * raised again after the region.
 *
 * The fast path needs a heap relation, an MVCC snapshot, no CPU qual and an
 * isolation level below SERIALIZABLE (the heap scan's predicate locks and
 * conflict checks are the slot path's).  Everything else takes the slot
 * path: table_beginscan and table_scan_getnextslot, the CPU qual evaluated
 * on each slot, slot_getsomeattrs up to the highest needed attribute.
 */
#include "heapscan/reader_int.h"

#include "access/heapam.h"
#include "access/tableam.h"
#include "access/tupdesc_details.h"
#include "access/xact.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/guc.h"

bool		gpuops_pin_ahead = true;

/* Defines the reader's settings. */
void
gpuops_scan_settings_init(void)
{
	DefineCustomBoolVariable("gpuops.pin_ahead",
							 "Lets GpuOpsAgg's reader pin the next page batch while its threads decode the current one.",
							 "Off, the backend pins each page batch and then the threads decode it, one after the other.",
							 &gpuops_pin_ahead,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
}

/*
 * The physical batch type of a column type, or false if the reader can't
 * extract it: the device types of arrays (gpuops_device_type), except bool,
 * which the reader stores as int32 (0/1) so that it can be a grouping key.
 */
bool
gpuops_scan_col_type(Oid typid, gpo_type *type)
{
	if (typid == BOOLOID)
	{
		*type = GPO_INT32;
		return true;
	}
	return gpuops_device_type(typid, type);
}

/*
 * gpuops_scan_col_type for a column of type typid and typmod: also
 * numeric(p, s) with 0 <= s <= p <= 18, whose values the reader stores as
 * int64 value * 10^s (numeric_scaled.h).
 */
bool
gpuops_scan_col_type_mod(Oid typid, int32 typmod, gpo_type *type)
{
	if (typid == NUMERICOID)
	{
		*type = GPO_INT64;
		return gpuops_numeric_typmod_scale(typmod) >= 0;
	}
	return gpuops_scan_col_type(typid, type);
}

/* The string (text, varchar and bpchar alike) of a short text code. */
Datum
gpuops_scan_short_text_datum(int64 code)
{
	char		buf[GPUOPS_SCAN_SHORT_TEXT_BYTES];
	int			len = (int) (code & 7);
	uint64		v = (uint64) code >> 3;
	int			i;

	for (i = len - 1; i >= 0; i--)
	{
		buf[i] = (char) (v & 0xFF);
		v >>= 8;
	}
	return PointerGetDatum(cstring_to_text_with_len(buf, len));
}

/* The conversion from a stored typid to batch type, or elog if there is none. */
GpuopsScanConv
gpuops_scan_conv(Oid typid, gpo_type type)
{
	switch (typid)
	{
		case INT2OID:
			if (type == GPO_INT32)
				return GPUOPS_CONV_INT16_INT32;
			break;
		case INT4OID:
		case DATEOID:
			if (type == GPO_INT32)
				return GPUOPS_CONV_INT32;
			break;
		case BOOLOID:
			if (type == GPO_INT32)
				return GPUOPS_CONV_BOOL_INT32;
			if (type == GPO_UINT8)
				return GPUOPS_CONV_BOOL_UINT8;
			break;
		case INT8OID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			if (type == GPO_INT64)
				return GPUOPS_CONV_INT64;
			break;
		case FLOAT4OID:
			if (type == GPO_FLOAT32)
				return GPUOPS_CONV_FLOAT32;
			break;
		case FLOAT8OID:
			if (type == GPO_FLOAT64)
				return GPUOPS_CONV_FLOAT64;
			break;
		case NUMERICOID:
			if (type == GPO_INT64)
				return GPUOPS_CONV_NUMERIC;
			break;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			if (type == GPO_INT64)
				return GPUOPS_CONV_SHORT_TEXT;
			break;
	}
	elog(ERROR, "gpuops column reader: type %u can't be read as %s",
		 typid, gpo_type_name(type));
	return GPUOPS_CONV_INT32;	/* keep compiler quiet */
}

/* qsort comparator of decode columns by attribute, then batch column. */
static int
gpuops_scan_dcol_cmp(const void *a, const void *b)
{
	const GpuopsDecodeCol *x = (const GpuopsDecodeCol *) a;
	const GpuopsDecodeCol *y = (const GpuopsDecodeCol *) b;

	if (x->attidx != y->attidx)
		return x->attidx < y->attidx ? -1 : 1;
	return x->out < y->out ? -1 : (x->out > y->out ? 1 : 0);
}

/* Check cols against the relation and describe them for the decoders. */
static void
gpuops_scan_setup_cols(GpuopsScanReader *r, int ncols,
					   const GpuopsScanCol *cols)
{
	TupleDesc	desc = RelationGetDescr(r->rel);
	int			i;

	r->dcols = palloc0(sizeof(GpuopsDecodeCol) * Max(ncols, 1));
	r->maxatt = 0;
	for (i = 0; i < ncols; i++)
	{
		const GpuopsScanCol *col = &cols[i];
		GpuopsDecodeCol *dc = &r->dcols[i];
		Form_pg_attribute att;

		if (col->attnum < 1 || col->attnum > desc->natts)
			elog(ERROR, "gpuops column reader: relation \"%s\" has no column %d",
				 RelationGetRelationName(r->rel), col->attnum);
		att = TupleDescAttr(desc, col->attnum - 1);
		if (att->attisdropped)
			elog(ERROR, "gpuops column reader: column %d of relation \"%s\" is dropped",
				 col->attnum, RelationGetRelationName(r->rel));
		if (att->atttypid != col->typid &&
			getBaseType(att->atttypid) != col->typid)
			elog(ERROR, "gpuops column reader: column %d of relation \"%s\" has type %u, not %u",
				 col->attnum, RelationGetRelationName(r->rel),
				 att->atttypid, col->typid);
		dc->attidx = col->attnum - 1;
		if (col->encode != NULL || col->presence)
		{
			if (col->type != GPO_INT32)
				elog(ERROR, "gpuops column reader: encoded and presence columns are int32");
			dc->conv = col->presence ? GPUOPS_CONV_PRESENCE : GPUOPS_CONV_ENCODE;
			dc->encode = col->encode;
			dc->encode_arg = col->encode_arg;
			dc->encode_many = col->encode_many;
		}
		else
			dc->conv = gpuops_scan_conv(col->typid, col->type);
		if (dc->conv == GPUOPS_CONV_NUMERIC)
		{
			/* the scale the stored values have: the column's own typmod */
			dc->scale = gpuops_numeric_typmod_scale(att->atttypmod);
			if (att->atttypid != NUMERICOID || dc->scale < 0)
				elog(ERROR, "gpuops column reader: column %d of relation \"%s\" is not numeric(p, s) with p <= %d",
					 col->attnum, RelationGetRelationName(r->rel),
					 GPUOPS_NUMERIC_MAX_PRECISION);
			dc->unfit = &r->unfit;
		}
		if (dc->conv == GPUOPS_CONV_SHORT_TEXT)
			dc->unfit = &r->unfit;
		dc->data = r->batch.data[i];
		dc->validity = r->batch.validity[i];
		dc->out = i;

		/* the value of a tuple stored before the column was added */
		dc->miss_null = true;
		dc->miss_value = (Datum) 0;
		if (att->atthasmissing && desc->constr && desc->constr->missing)
		{
			AttrMissing *miss = &desc->constr->missing[col->attnum - 1];

			if (miss->am_present)
			{
				dc->miss_null = false;
				dc->miss_value = miss->am_value;
			}
		}
		r->maxatt = Max(r->maxatt, col->attnum);
	}
	qsort(r->dcols, ncols, sizeof(GpuopsDecodeCol), gpuops_scan_dcol_cmp);
}

/* True if the page-batch path may read rel under snapshot. */
static bool
gpuops_scan_can_fast(Relation rel, Snapshot snapshot, ExprState *cpu_qual)
{
	if (cpu_qual != NULL)
		return false;
	if (rel->rd_tableam != GetHeapamTableAmRoutine() ||
		rel->rd_rel->relam != HEAP_TABLE_AM_OID)
		return false;
	if (snapshot == NULL || !IsMVCCSnapshot(snapshot))
		return false;
	if (IsolationIsSerializable())
		return false;
	return true;
}

/* Starts reading cols of rel under snapshot in batches of batch_rows. */
GpuopsScanReader *
gpuops_scan_begin(Relation rel, Snapshot snapshot, int ncols,
				  const GpuopsScanCol *cols, int64 batch_rows,
				  ExprState *cpu_qual, ExprContext *econtext,
				  bool allow_fast, int nthreads)
{
	GpuopsScanReader *r = palloc0(sizeof(GpuopsScanReader));
	GpuopsScanBatch *b = &r->batch;
	int			i;

	if (ncols < 0 || batch_rows < 1)
		elog(ERROR, "gpuops column reader: bad arguments (%d columns, %lld rows a batch)",
			 ncols, (long long) batch_rows);
	if (rel->rd_tableam == NULL)
		elog(ERROR, "gpuops column reader: relation \"%s\" has no table access method",
			 RelationGetRelationName(rel));
	if (cpu_qual != NULL && econtext == NULL)
		elog(ERROR, "gpuops column reader: a CPU qual needs an expression context");

	r->rel = rel;
	r->snapshot = snapshot;
	r->qual = cpu_qual;
	r->econtext = econtext;

	/* the batch */
	b->ncols = ncols;
	b->capacity = batch_rows;
	b->data = palloc0(sizeof(void *) * Max(ncols, 1));
	b->validity = palloc0(sizeof(uint8 *) * Max(ncols, 1));
	b->has_nulls = palloc0(sizeof(bool) * Max(ncols, 1));
	r->col_types = palloc0(sizeof(gpo_type) * Max(ncols, 1));
	for (i = 0; i < ncols; i++)
	{
		r->col_types[i] = cols[i].type;
		b->data[i] = palloc_extended(batch_rows * gpo_type_size(cols[i].type),
									 MCXT_ALLOC_HUGE);
		b->validity[i] = palloc_extended((batch_rows + 7) / 8, MCXT_ALLOC_HUGE);
	}
	gpuops_scan_setup_cols(r, ncols, cols);

	r->stats.fast = allow_fast && gpuops_scan_can_fast(rel, snapshot, cpu_qual);
	for (i = 0; i < ncols; i++)
		if (cols[i].encode != NULL && cols[i].encode_many == NULL)
			r->stats.fast = false;	/* the decoders can't code it */
	if (r->stats.fast)
	{
		/* text columns: the decoders note the strings, the backend codes them */
		for (i = 0; i < ncols; i++)
		{
			GpuopsDecodeCol *dc = &r->dcols[i];

			if (dc->conv != GPUOPS_CONV_ENCODE || dc->encode_many == NULL)
				continue;
			dc->conv = GPUOPS_CONV_TEXT_REF;
			dc->refs = palloc_extended(sizeof(gpo_str) * batch_rows,
									   MCXT_ALLOC_HUGE);
			r->text = true;
		}
		if (r->text)
			r->text_cxt = AllocSetContextCreate(CurrentMemoryContext,
												"gpuops column reader text",
												ALLOCSET_DEFAULT_SIZES);
	}
	if (r->stats.fast)
	{
		int			pages = GPUOPS_SCAN_BATCH_PAGES;

		/* leave most buffers unpinned for the other backends (two batches) */
		if (RelationUsesLocalBuffers(rel))
			pages = Min(pages, Max(num_temp_buffers / 8, 1));
		else
			pages = Min(pages, Max(NBuffers / 32, 1));
		r->max_pages = pages;
		r->pin_ahead = gpuops_pin_ahead;
		for (i = 0; i < 2; i++)
		{
			GpuopsPageBatch *pb = &r->pb[i];

			pb->blocks = palloc(sizeof(BlockNumber) * pages);
			pb->bufs = palloc(sizeof(Buffer) * pages);
			pb->pages = palloc(sizeof(GpuopsPageRef) * pages);
			pb->page_first = palloc(sizeof(int64) * pages);
			pb->src_blocks = palloc(sizeof(BlockNumber) * pages);
			pb->lps = palloc_extended(sizeof(ItemIdData) * pages *
									  MaxHeapTuplesPerPage, MCXT_ALLOC_HUGE);
			pb->tups = palloc_extended(sizeof(HeapTupleHeader) * pages *
									   MaxHeapTuplesPerPage, MCXT_ALLOC_HUGE);
		}
		gpuops_decode_plan_init(&r->plan, RelationGetDescr(rel), ncols,
								r->dcols, nthreads);
		if (r->plan.nthreads > 1)
			gpo_omp_prepare(r->plan.nthreads);
		r->nblocks = RelationGetNumberOfBlocks(rel);
		if (!RelationUsesLocalBuffers(rel) && r->nblocks > NBuffers / 4)
			r->strategy = GetAccessStrategy(BAS_BULKREAD);
		r->recent = gpuops_recent_buffers(rel, r->nblocks);
	}
	else
	{
		r->scan = table_beginscan(rel, snapshot, 0, NULL);
		r->slot = table_slot_create(rel, NULL);
	}
	return r;
}

/*
 * Raises the error for a value of the batch that the reader could not hold
 * as an int64 (a numeric as a scaled integer, a short string as its code):
 * none of a numeric(p, s) column's values, or of a char(n) or varchar(n)
 * column read that way, should be one, so the data are not what the type
 * says.
 */
static void
gpuops_scan_unfit_error(GpuopsScanReader *r)
{
	const char *colname = "?";
	int			i;

	for (i = 0; i < r->batch.ncols; i++)
		if (r->dcols[i].conv == GPUOPS_CONV_NUMERIC ||
			r->dcols[i].conv == GPUOPS_CONV_SHORT_TEXT)
		{
			colname = NameStr(TupleDescAttr(RelationGetDescr(r->rel),
											r->dcols[i].attidx)->attname);
			break;
		}
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("gpuops cannot read a value of relation \"%s\" (column \"%s\") as an integer code",
					RelationGetRelationName(r->rel), colname),
			 errhint("Run the query with gpuops.enabled = off.")));
}

/* Fills the next batch; false (and nrows 0) when the table is exhausted. */
bool
gpuops_scan_next(GpuopsScanReader *r, GpuopsScanBatch **batch)
{
	GpuopsScanBatch *b = &r->batch;
	instr_time	start;
	instr_time	end;
	int			i;

	*batch = b;
	b->nrows = 0;
	if (r->done)
		return false;

	INSTR_TIME_SET_CURRENT(start);
	if (r->data2 != NULL)
		gpuops_scan_swap_buffers(r);
	for (i = 0; i < b->ncols; i++)
	{
		/* every row valid until a NULL clears its bit */
		memset(b->validity[i], 0xFF, (b->capacity + 7) / 8);
		b->has_nulls[i] = false;
	}
	if (r->stats.fast)
		r->done = gpuops_scan_next_fast(r);
	else
		r->done = gpuops_scan_next_slot(r);
	if (r->unfit)
		gpuops_scan_unfit_error(r);
	r->stats.tuples += b->nrows;
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_SUBTRACT(end, start);
	r->stats.read_ms += INSTR_TIME_GET_MILLISEC(end);
	return b->nrows > 0;
}

/* Restarts from the first block (for rescans). */
void
gpuops_scan_rescan(GpuopsScanReader *r)
{
	r->done = false;
	r->batch.nrows = 0;
	if (r->stats.fast)
	{
		gpuops_scan_release_pages(&r->pb[0]);
		gpuops_scan_release_pages(&r->pb[1]);
		r->cur = 0;
		r->next_block = 0;
		r->pscan = NULL;		/* a rescan reads every block itself */
		r->pdone = false;
		r->nmissed = 0;
		r->nblocks = RelationGetNumberOfBlocks(r->rel);
		r->recent = gpuops_recent_buffers(r->rel, r->nblocks);
	}
	else
		table_rescan(r->scan, NULL);
}

/* The reader's counters so far. */
const GpuopsScanStats *
gpuops_scan_stats(const GpuopsScanReader *r)
{
	return &r->stats;
}

/* Releases pins, ends the table scan and frees the batch. */
void
gpuops_scan_end(GpuopsScanReader *r)
{
	int			i;

	if (r->stats.fast)
	{
		for (i = 0; i < 2; i++)
		{
			GpuopsPageBatch *pb = &r->pb[i];

			gpuops_scan_release_pages(pb);
			pfree(pb->blocks);
			pfree(pb->bufs);
			pfree(pb->pages);
			pfree(pb->page_first);
			pfree(pb->src_blocks);
			pfree(pb->lps);
			pfree(pb->tups);
		}
		if (r->strategy != NULL)
			FreeAccessStrategy(r->strategy);
		pfree(r->plan.attlen);
		pfree(r->plan.attalign);
		pfree(r->plan.fixoff);
		pfree(r->plan.seen);
	}
	else
	{
		ExecDropSingleTupleTableSlot(r->slot);
		table_endscan(r->scan);
	}
	if (r->locked != NULL)
		gpuops_scan_unlock_arrays(r->locked);
	for (i = 0; i < r->batch.ncols; i++)
	{
		pfree(r->batch.data[i]);
		pfree(r->batch.validity[i]);
	}
	if (r->data2 != NULL)
	{
		for (i = 0; i < r->batch.ncols; i++)
		{
			pfree(r->data2[i]);
			pfree(r->validity2[i]);
		}
		pfree(r->data2);
		pfree(r->validity2);
	}
	pfree(r->batch.data);
	pfree(r->batch.validity);
	pfree(r->batch.has_nulls);
	pfree(r->col_types);
	pfree(r->dcols);
	pfree(r);
}

/* Lowers the fast path's decoding threads to at most nthreads (at least 1). */
void
gpuops_scan_limit_threads(GpuopsScanReader *r, int nthreads)
{
	if (r->stats.fast && nthreads >= 1 && nthreads < r->plan.nthreads)
		r->plan.nthreads = nthreads;
}
