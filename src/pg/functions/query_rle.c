/*
 * query_rle.c
 *	  gpuops.rle(query text, value_type anyelement) and
 *	  gpuops.unique(query text, value_type anyelement): runs of a query's
 *	  one column, in the query's row order, streamed in chunks.
 *
 * A chunk of a device type goes through gpo_rle (gpo_unique); a chunk of any
 * other type is compared row by row by binary equality, as the array
 * versions do.  The last run of every chunk is held back: it continues when
 * the next chunk's first value is equal under the same equality, so runs
 * cross chunk seams.  start_pos is the 1-based row number in the whole
 * result.  Memory: the chunk buffers, one chunk's engine outputs and the
 * held-back run's value.
 */
#include "functions/gpuops_functions.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"

PG_FUNCTION_INFO_V1(gpuops_rle_query);
PG_FUNCTION_INFO_V1(gpuops_unique_query);

/* The run held back at a chunk seam, and where results go. */
typedef struct GpuopsQueryRuns
{
	ReturnSetInfo *rsinfo;
	bool		want_runs;
	bool		is_row;			/* unique of a row type: a set of rows */
	MemoryContext keep_cxt;		/* for the held-back value */
	bool		pending;		/* a run is held back */
	bool		pending_null;
	union
	{
		int64		i64;
		int32		i32;
		float8		f64;
		float4		f32;
		uint8		u8;
	}			pending_phys;	/* device types: the physical value */
	Datum		pending_datum;	/* other types: a copy in keep_cxt */
	int64		pending_start;	/* 0-based */
	int64		pending_length;
} GpuopsQueryRuns;

/* Emit the held-back run, if any. */
static void
gpuops_qruns_emit_pending(GpuopsQueryRuns *q, const GpuopsStreamColumn *col)
{
	Datum		value = (Datum) 0;

	if (!q->pending)
		return;
	if (!q->pending_null)
		value = col->is_device ?
			gpuops_value_to_datum(col->typid, col->type, &q->pending_phys, 0) :
			q->pending_datum;
	gpuops_rle_emit(q->rsinfo, q->want_runs, q->is_row, value,
					q->pending_null, q->pending_start, q->pending_length);
	q->pending = false;
}

/*
 * Rows of one engine call: its outputs (a value, a start and a length a
 * run, as many runs as rows at worst) take at most half of
 * gpuops.chunk_size, so the chunk and the outputs stay within 1.5 times it
 * (outputs for the whole chunk took 5 times a chunk of int4: 607 MB at the
 * default 64MB).  A multiple of 8, so that a slice's validity starts on a
 * byte.
 */
static int64
gpuops_qruns_slice_rows(size_t width)
{
	int64		m = (int64) (gpuops_chunk_size / 2) /
		(int64) (width + 2 * sizeof(int64) + 1);

	return Max(m & ~(int64) 7, 8);
}

/*
 * Rows off .. off + len - 1 of the current chunk through the engine, into
 * outputs of at least len rows; each run is joined to the held-back one
 * when it continues it.
 */
static void
gpuops_qruns_device_slice(GpuopsStream *s, GpuopsQueryRuns *q, int64 off,
						  int64 len, gpo_vector *values, gpo_vector *starts,
						  gpo_vector *lengths)
{
	GpuopsStreamColumn *col = &s->cols[0];
	size_t		width = gpo_type_size(col->type);
	const char *op = q->want_runs ? "rle" : "unique";
	const char *values_data = (const char *) values->chunks[0].data;
	const int64 *starts_data = (const int64 *) starts->chunks[0].data;
	const int64 *lengths_data = (const int64 *) lengths->chunks[0].data;
	gpo_chunk	inc;
	gpo_vector	in;
	int64		count = -1;
	size_t		scratch_bytes = 0;
	char	   *scratch_raw;
	gpo_ctx		ctx;
	gpo_status	st;
	int64		r;

	gpuops_one_chunk_vector(&in, &inc, col->type,
							(char *) col->chunk.data + off * width,
							col->chunk.validity != NULL ?
							col->chunk.validity + off / 8 : NULL, len);
	values->chunks[0].n = starts->chunks[0].n = lengths->chunks[0].n = len;

	gpuops_ctx_init_budget(&ctx);
	st = gpo_rle(&ctx, &in, values, starts, lengths, &count,
				 NULL, &scratch_bytes);
	gpuops_check_status(st, &ctx, op, InvalidOid);
	/* freed after each slice: a chunk has several */
	scratch_raw = palloc_extended(scratch_bytes + GPUOPS_SCRATCH_ALIGN,
								  MCXT_ALLOC_HUGE);
	st = gpo_rle(&ctx, &in, values, starts, lengths, &count,
				 (void *) TYPEALIGN(GPUOPS_SCRATCH_ALIGN, scratch_raw),
				 &scratch_bytes);
	gpuops_check_status(st, &ctx, op, InvalidOid);
	pfree(scratch_raw);
	if (count <= 0 || count > len)
		elog(ERROR, "gpuops: engine published " INT64_FORMAT " runs for " INT64_FORMAT " rows",
			 count, len);

	for (r = 0; r < count; r++)
	{
		const char *v = values_data + r * width;
		bool		isnull = !gpuops_vector_row_valid(values, r);
		int64		end = r + 1 < count ? starts_data[r + 1] : len;

		if (starts_data[r] < 0 || end <= starts_data[r] || end > len ||
			(r == 0 && starts_data[r] != 0) ||
			lengths_data[r] != end - starts_data[r])
			elog(ERROR, "gpuops: engine published a bad run " INT64_FORMAT, r);
		if (r == 0 && q->pending &&
			gpuops_rle_value_eq(col->type, &q->pending_phys, q->pending_null,
								v, isnull))
		{
			/* the held-back run continues across the seam */
			q->pending_length += lengths_data[0];
			continue;
		}
		gpuops_qruns_emit_pending(q, col);
		q->pending = true;
		q->pending_null = isnull;
		memset(&q->pending_phys, 0, sizeof(q->pending_phys));
		if (!isnull)
			memcpy(&q->pending_phys, v, width);
		q->pending_start = s->first_row + off + starts_data[r];
		q->pending_length = lengths_data[r];
	}
}

/* A one-chunk output vector of m rows of type, with a validity bitmap if asked. */
static void
gpuops_qruns_output(gpo_vector *vec, gpo_chunk *chunk, gpo_type type,
					int64 m, bool with_validity)
{
	void	   *data = palloc_extended(m * gpo_type_size(type), MCXT_ALLOC_HUGE);
	uint8	   *validity = with_validity ?
		palloc_extended((m + 7) / 8, MCXT_ALLOC_HUGE) : NULL;

	gpuops_one_chunk_vector(vec, chunk, type, data, validity, m);
}

/* One chunk of a device type: runs through the engine, slice by slice. */
static void
gpuops_qruns_device_chunk(GpuopsStream *s, GpuopsQueryRuns *q)
{
	GpuopsStreamColumn *col = &s->cols[0];
	int64		n = s->num_rows;
	int64		m = Min(n, gpuops_qruns_slice_rows(gpo_type_size(col->type)));
	gpo_vector	values;
	gpo_vector	starts;
	gpo_vector	lengths;
	gpo_chunk	outc[3];
	int64		off;

	/* outputs for m rows, with validity where the input has NULLs */
	gpuops_qruns_output(&values, &outc[0], col->type, m,
						col->chunk.validity != NULL);
	gpuops_qruns_output(&starts, &outc[1], GPO_INT64, m, false);
	gpuops_qruns_output(&lengths, &outc[2], GPO_INT64, m, false);
	for (off = 0; off < n; off += m)
		gpuops_qruns_device_slice(s, q, off, Min(m, n - off), &values,
								  &starts, &lengths);
}

/* One chunk of another type: binary equality row by row. */
static void
gpuops_qruns_generic_chunk(GpuopsStream *s, GpuopsQueryRuns *q)
{
	GpuopsStreamColumn *col = &s->cols[0];
	int64		i;

	for (i = 0; i < s->num_rows; i++)
	{
		bool		isnull;
		Datum		d = gpuops_stream_datum(col, i, &isnull);
		MemoryContext old;

		if (q->pending &&
			gpuops_rle_datum_eq(q->pending_datum, q->pending_null, d, isnull,
								col->typbyval, col->typlen))
		{
			q->pending_length++;
			continue;
		}
		gpuops_qruns_emit_pending(q, col);
		if (!col->typbyval && !q->pending_null && q->pending_datum != (Datum) 0)
			pfree(DatumGetPointer(q->pending_datum));
		q->pending = true;
		q->pending_null = isnull;
		old = MemoryContextSwitchTo(q->keep_cxt);
		q->pending_datum = isnull ? (Datum) 0 :
			datumCopy(d, col->typbyval, col->typlen);
		MemoryContextSwitchTo(old);
		q->pending_start = s->first_row + i;
		q->pending_length = 1;
	}
}

/* Chunk callback of the query versions. */
static void
gpuops_qruns_chunk(GpuopsStream *s, void *arg)
{
	GpuopsQueryRuns *q = (GpuopsQueryRuns *) arg;

	if (s->cols[0].is_device)
		gpuops_qruns_device_chunk(s, q);
	else
		gpuops_qruns_generic_chunk(s, q);
}

/* Shared body of the query versions of rle and unique. */
static void
gpuops_runs_query(FunctionCallInfo fcinfo, bool want_runs)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const char *fname = want_runs ? "gpuops.rle" : "gpuops.unique";
	Oid			value_type = get_fn_expr_argtype(fcinfo->flinfo, 1);
	GpuopsQueryRuns q;
	GpuopsStream s;
	char	   *query;

	InitMaterializedSRF(fcinfo, want_runs ? 0 : MAT_SRF_USE_EXPECTED_DESC);
	if (want_runs && rsinfo->setDesc->natts != 3)
		elog(ERROR, "gpuops.rle: return type must have 3 columns");
	if (!OidIsValid(value_type))
		elog(ERROR, "%s: could not determine the type of value_type", fname);
	if (PG_ARGISNULL(0))
		return;
	query = text_to_cstring(PG_GETARG_TEXT_PP(0));

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "%s: SPI_connect failed", fname);
	gpuops_stream_prepare(&s, fname, query, 1);
	gpuops_stream_expect_type(&s, 0, value_type);

	memset(&q, 0, sizeof(q));
	q.rsinfo = rsinfo;
	q.want_runs = want_runs;
	q.is_row = type_is_rowtype(value_type);
	q.keep_cxt = CurrentMemoryContext;
	gpuops_stream_begin(&s, gpuops_qruns_chunk, &q);
	gpuops_stream_run(&s);
	gpuops_qruns_emit_pending(&q, &s.cols[0]);
	SPI_finish();
}

/* gpuops.rle(query, value_type): one row per run of the query's column. */
Datum
gpuops_rle_query(PG_FUNCTION_ARGS)
{
	gpuops_runs_query(fcinfo, true);
	return (Datum) 0;
}

/* gpuops.unique(query, value_type): the first value of each run. */
Datum
gpuops_unique_query(PG_FUNCTION_ARGS)
{
	gpuops_runs_query(fcinfo, false);
	return (Datum) 0;
}
