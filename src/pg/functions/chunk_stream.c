/*
 * chunk_stream.c
 *	  A query's rows -> engine column chunks.
 *
 * The query runs through SPI as the calling user, so the executor checks
 * privileges and the rewriter applies row-level security exactly as for the
 * same query typed by hand.  It must be one SELECT or VALUES (no
 * data-modifying CTE, no FOR UPDATE/SHARE); anything else is 42809.  It runs
 * read-only in the calling statement's snapshot and to completion, so the
 * planner may give it a parallel plan.  The last chunk handed to the
 * callback is the only one that may be part-full, and its values stay in the
 * buffers after the run (the histogram's automatic domain counts it there).
 *
 * Tuples arrive in a DestReceiver, which appends each column's value to a
 * preallocated buffer of capacity rows (capacity = gpuops.chunk_size bytes
 * over the widest column) and sets its validity bit; no allocation per row
 * for device types, which are stored by the column reader's own conversion
 * (gpuops_scan_put_datum: int2 widened to int32, bool stored as uint8).  Other
 * types are held as Datums, by-reference values copied into a per-chunk
 * memory context.  When a chunk is full the callback runs, the chunk memory
 * context is reset and interrupts are checked.  Memory is therefore the
 * chunk buffers plus whatever the callback keeps, whatever the row count.
 */
#include "functions/gpuops_functions.h"
#include "heapscan/gpuops_scan.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "portability/instr_time.h"
#include "tcop/dest.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/plancache.h"

/* The receiver: the stream it fills. */
typedef struct GpuopsStreamReceiver
{
	DestReceiver pub;
	GpuopsStream *stream;
} GpuopsStreamReceiver;

/* Raise 42809 unless the plan is one read-only SELECT or VALUES. */
static void
gpuops_stream_check_select(GpuopsStream *s)
{
	List	   *sources = SPI_plan_get_plan_sources(s->plan);
	CachedPlanSource *ps;
	Query	   *q;

	if (list_length(sources) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s: the query must be a single SELECT or VALUES, not %d statements",
						s->fname, list_length(sources))));
	ps = (CachedPlanSource *) linitial(sources);
	if (list_length(ps->query_list) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s: the query must be a single SELECT or VALUES",
						s->fname),
				 errdetail("A rule rewrote it into %d queries.",
						   list_length(ps->query_list))));
	q = linitial_node(Query, ps->query_list);
	if (q->commandType == CMD_UTILITY || q->utilityStmt != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s: the query must be a single SELECT or VALUES, not a utility statement",
						s->fname),
				 errdetail("It is %s.", ps->commandTag == CMDTAG_SELECT ?
						   "SELECT INTO" : GetCommandTagName(ps->commandTag))));
	if (q->commandType != CMD_SELECT)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s: the query must be a single SELECT or VALUES, not %s",
						s->fname, GetCommandTagName(ps->commandTag))));
	if (q->hasModifyingCTE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s: the query must be read-only", s->fname),
				 errdetail("It has a data-modifying WITH clause.")));
	if (q->rowMarks != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s: the query must be read-only", s->fname),
				 errdetail("It has a locking clause (FOR UPDATE/SHARE).")));
}

/* Parse and plan query as a read-only SELECT/VALUES of ncols columns. */
void
gpuops_stream_prepare(GpuopsStream *s, const char *fname, const char *query,
					  int ncols)
{
	List	   *sources;

	memset(s, 0, sizeof(*s));
	s->fname = fname;
	/* a parallel plan is fine: the query runs to completion, read-only */
	s->plan = SPI_prepare_cursor(query, 0, NULL, CURSOR_OPT_PARALLEL_OK);
	if (s->plan == NULL)
		elog(ERROR, "%s: SPI_prepare failed: %s", fname,
			 SPI_result_code_string(SPI_result));
	gpuops_stream_check_select(s);
	sources = SPI_plan_get_plan_sources(s->plan);
	s->desc = ((CachedPlanSource *) linitial(sources))->resultDesc;
	if (s->desc == NULL || s->desc->natts != ncols)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: the query must return %d column%s, not %d",
						fname, ncols, ncols == 1 ? "" : "s",
						s->desc == NULL ? 0 : s->desc->natts)));
	s->ncols = ncols;
}

/* Raise 42804 unless column attno has type expected. */
void
gpuops_stream_expect_type(GpuopsStream *s, int attno, Oid expected)
{
	Oid			actual = TupleDescAttr(s->desc, attno)->atttypid;

	if (actual != expected)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: column %d of the query has type %s, expected %s",
						s->fname, attno + 1, format_type_be(actual),
						format_type_be(expected)),
				 errhint("Cast the column, or pass a value of its type.")));
}

/* Allocate the chunk buffers of every column. */
void
gpuops_stream_begin(GpuopsStream *s, GpuopsChunkCallback callback, void *arg)
{
	size_t		widest = 1;
	int			i;

	s->cols = palloc0(sizeof(GpuopsStreamColumn) * s->ncols);
	for (i = 0; i < s->ncols; i++)
	{
		GpuopsStreamColumn *col = &s->cols[i];

		col->typid = TupleDescAttr(s->desc, i)->atttypid;
		col->is_device = gpuops_device_type(col->typid, &col->type);
		if (col->is_device)
		{
			col->conv = (int) gpuops_scan_conv(col->typid, col->type);
			widest = Max(widest, gpo_type_size(col->type));
		}
		else
		{
			get_typlenbyval(col->typid, &col->typlen, &col->typbyval);
			widest = Max(widest, sizeof(Datum));
		}
	}
	s->capacity = Max((s->chunk_bytes > 0 ? s->chunk_bytes :
					   (int64) gpuops_chunk_size) / (int64) widest, 1);
	for (i = 0; i < s->ncols; i++)
	{
		GpuopsStreamColumn *col = &s->cols[i];

		if (col->is_device)
			col->data = palloc_extended(s->capacity * gpo_type_size(col->type),
										MCXT_ALLOC_HUGE);
		else
		{
			col->data = palloc_extended(s->capacity * sizeof(Datum),
										MCXT_ALLOC_HUGE);
			col->isnull = palloc_extended(s->capacity * sizeof(bool),
										  MCXT_ALLOC_HUGE);
		}
		col->validity = palloc0((s->capacity + 7) / 8);
		col->vec.type = col->type;
		col->vec.nchunks = 1;
		col->vec.chunks = &col->chunk;
	}
	s->chunk_cxt = AllocSetContextCreate(CurrentMemoryContext,
										 "gpuops chunk",
										 ALLOCSET_DEFAULT_SIZES);
	s->callback = callback;
	s->arg = arg;
}

/* Hand the current chunk to the callback and start an empty one. */
static void
gpuops_stream_flush(GpuopsStream *s)
{
	MemoryContext old;
	instr_time	start;
	instr_time	end;
	int			i;

	if (s->num_rows == 0)
		return;
	INSTR_TIME_SET_CURRENT(start);
	for (i = 0; i < s->ncols; i++)
	{
		GpuopsStreamColumn *col = &s->cols[i];

		col->chunk.data = col->data;
		col->chunk.n = s->num_rows;
		col->chunk.validity = col->nnulls > 0 ? col->validity : NULL;
	}
	old = MemoryContextSwitchTo(s->chunk_cxt);
	s->callback(s, s->arg);
	MemoryContextSwitchTo(old);
	MemoryContextReset(s->chunk_cxt);
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_SUBTRACT(end, start);
	s->callback_ms += INSTR_TIME_GET_MILLISEC(end);

	for (i = 0; i < s->ncols; i++)
	{
		memset(s->cols[i].validity, 0, (s->num_rows + 7) / 8);
		s->cols[i].nnulls = 0;
	}
	s->first_row += s->num_rows;
	s->num_rows = 0;
	s->nchunks++;
	CHECK_FOR_INTERRUPTS();
}

/* Append one tuple's columns to the chunk; flush when it is full. */
static bool
gpuops_stream_receive(TupleTableSlot *slot, DestReceiver *self)
{
	GpuopsStream *s = ((GpuopsStreamReceiver *) self)->stream;
	int64		row = s->num_rows;
	int			i;

	slot_getsomeattrs(slot, s->ncols);
	for (i = 0; i < s->ncols; i++)
	{
		GpuopsStreamColumn *col = &s->cols[i];
		Datum		d = slot->tts_values[i];
		bool		isnull = slot->tts_isnull[i];

		if (!isnull)
			col->validity[row >> 3] |= (uint8) (1 << (row & 7));
		else
			col->nnulls++;

		if (!col->is_device)
		{
			col->isnull[row] = isnull;
			if (isnull || col->typbyval)
				((Datum *) col->data)[row] = d;
			else
			{
				MemoryContext old = MemoryContextSwitchTo(s->chunk_cxt);

				((Datum *) col->data)[row] = datumCopy(d, false, col->typlen);
				MemoryContextSwitchTo(old);
			}
			continue;
		}
		/* the column reader's conversion, as its slot path stores a value */
		gpuops_scan_put_datum((GpuopsScanConv) col->conv, col->data, row,
							  isnull ? (Datum) 0 : d);
	}
	s->num_rows++;
	if (s->num_rows >= s->capacity)
		gpuops_stream_flush(s);
	return true;
}

/* Receiver startup: nothing to do (the descriptor was checked at prepare). */
static void
gpuops_stream_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

/* Receiver shutdown: the final chunk is flushed by gpuops_stream_run. */
static void
gpuops_stream_shutdown(DestReceiver *self)
{
}

/* Receiver destroy: it lives in the caller's memory. */
static void
gpuops_stream_destroy(DestReceiver *self)
{
}

/* Run the query once and deliver its rows in chunks. */
void
gpuops_stream_run(GpuopsStream *s)
{
	GpuopsStreamReceiver recv;
	SPIExecuteOptions options;
	instr_time	start;
	instr_time	end;
	int			rc;

	memset(&recv, 0, sizeof(recv));
	recv.pub.receiveSlot = gpuops_stream_receive;
	recv.pub.rStartup = gpuops_stream_startup;
	recv.pub.rShutdown = gpuops_stream_shutdown;
	recv.pub.rDestroy = gpuops_stream_destroy;
	recv.pub.mydest = DestNone;
	recv.stream = s;

	s->num_rows = 0;
	s->first_row = 0;
	s->nchunks = 0;
	s->callback_ms = 0;
	INSTR_TIME_SET_CURRENT(start);

	memset(&options, 0, sizeof(options));
	options.read_only = true;	/* the calling statement's snapshot */
	options.dest = (DestReceiver *) &recv;

	rc = SPI_execute_plan_extended(s->plan, &options);
	/* SPI reports SPI_OK_UTILITY for a SELECT into a DestNone receiver */
	if (rc != SPI_OK_SELECT && rc != SPI_OK_UTILITY)
		elog(ERROR, "%s: query failed: %s", s->fname,
			 SPI_result_code_string(rc));
	gpuops_stream_flush(s);
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_SUBTRACT(end, start);
	elog(DEBUG1, "%s: %lld rows in %lld chunks of up to %lld rows: %.1f ms, %.1f ms of it in the engine",
		 s->fname, (long long) (s->first_row + s->num_rows),
		 (long long) s->nchunks, (long long) s->capacity,
		 INSTR_TIME_GET_MILLISEC(end), s->callback_ms);
}

/* Datum of row of a stream column, as the column's SQL type. */
Datum
gpuops_stream_datum(const GpuopsStreamColumn *col, int64 row, bool *isnull)
{
	*isnull = !((col->validity[row >> 3] >> (row & 7)) & 1);
	if (*isnull)
		return (Datum) 0;
	if (!col->is_device)
		return ((const Datum *) col->data)[row];
	return gpuops_value_to_datum(col->typid, col->type, col->data, row);
}
