/*
 * query_histogram.c
 *	  gpuops.histogram(query text, bins, lo, hi): the histogram of a query's
 *	  one numeric column, streamed in chunks.
 *
 * Given domain: one pass; each chunk goes through gpo_histogram with the
 * same spec and its counts are added up.
 *
 * Automatic domain: the query also runs once.  While its chunks arrive the
 * backend finds the minimum and maximum finite value (ordered with -0.0
 * below 0.0, as the engine orders them) and counts the finite values and the
 * infinities, and appends each full chunk as the stream delivered it (the
 * values in their physical type, then the validity bitmap if the chunk has a
 * NULL) to a temporary file.  The query's last chunk, which is not full,
 * stays in the stream's buffer instead, so a query whose rows fit one chunk
 * writes no file.  If there is no finite value nothing is counted (as the
 * array version); if min = max every finite value is in bucket 1.  Otherwise
 * the counting pass counts the last chunk, then reads the others back one at
 * a time into the stream's buffer, and counts each with the domain [min, max)
 * given, which is width_bucket's rule; the automatic rule differs only in
 * that a finite value never goes above bucket bins (the maximum itself, or a
 * value that rounding puts in bins + 1, lands in bins), so the counting
 * pass's bucket bins + 1 minus the +Infinity count moves to bucket bins.  The
 * result then equals gpo_histogram's automatic domain over all rows.  The
 * engine counts the same chunks (values and validity) that a second run of
 * the query would give it, so the counts are those of counting during a
 * second run, for the price of writing and reading the file instead; and a
 * query that returns different rows when run again (random(), nextval(),
 * LIMIT without ORDER BY) is counted as it ran, once.
 *
 * Memory stays two chunk buffers of half gpuops.chunk_size (one filled by
 * the query, one being written) plus the counts, whatever the row count;
 * the file holds the values (8 bytes a row of int8 or float8, 4 of the other
 * types, a bit a row more where a chunk has a NULL).  It is an fd.c
 * temporary file (OpenTemporaryFile, the file under BufFile).  Each full
 * chunk is written whole by a helper thread (async_write.c) while the query
 * runs on into the other buffer, since writing it in the backend cost up to
 * half the query's time at 1e8 rows; it is read back in pieces of up to 64
 * MB (BufFile would move it 8 kB a system call).  The file belongs to the
 * resource owner, lies in temp_tablespaces, is held to temp_file_limit, and
 * is removed when closed, at transaction end or on an error or a cancel.
 */
#include "functions/gpuops_functions.h"

#include <math.h>
#include <sys/uio.h>

#include "catalog/pg_type.h"
#include "commands/tablespace.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

PG_FUNCTION_INFO_V1(gpuops_histogram_query);

/* What the automatic domain finds in the values while the query runs. */
typedef struct GpuopsHistStats
{
	int64		num_values;		/* rows seen (NULLs included) */
	bool		any_finite;
	int64		min_key;		/* gpo_hist_order_key of the minimum */
	int64		max_key;
	int64		num_finite;
	int64		num_neg_inf;
	int64		num_pos_inf;
} GpuopsHistStats;

/* How a chunk starts in the temporary file: its data, then its validity. */
typedef struct GpuopsQhistChunkHeader
{
	int64		num_rows;
	int64		has_validity;	/* 1: (num_rows + 7) / 8 validity bytes follow */
} GpuopsQhistChunkHeader;

/* What the passes accumulate. */
typedef struct GpuopsQueryHist
{
	gpo_hist_spec spec;			/* the spec each chunk is counted with */
	int64	   *counts;			/* bins + 2 totals */
	int64	   *chunk_counts;	/* one chunk's counts */
	int64		num_values;		/* rows counted (NULLs included) */
	GpuopsHistStats stats;		/* automatic domain: the values' figures */
	MemoryContext cxt;			/* the call's context, for last_validity */
	File		file;			/* the full chunks; 0 until the first */
	GpuopsAsyncWrite *writer;	/* appends them to file */
	GpuopsQhistChunkHeader *hdr;	/* the header of the chunk being written */
	void	   *spare;			/* the chunk buffer not being filled */
	uint8	   *wvalidity;		/* the validity of the chunk being written */
	int64		file_chunks;	/* chunks written to file */
	int64		file_rows;		/* their rows */
	int64		last_rows;		/* rows of the last chunk (in the stream) */
	uint8	   *last_validity;	/* its validity, or NULL if it has no NULL */
} GpuopsQueryHist;

/* Value row of a chunk of a numeric column as float8 (as v::float8). */
static pg_attribute_always_inline double
gpuops_qhist_value(const void *data, gpo_type type, int64 row)
{
	switch (type)
	{
		case GPO_INT32:
			return (double) ((const int32 *) data)[row];
		case GPO_INT64:
			return (double) ((const int64 *) data)[row];
		case GPO_FLOAT32:
			return (double) ((const float4 *) data)[row];
		default:
			return ((const double *) data)[row];
	}
}

/*
 * Min, max and counts of the n values of one physical type, validity
 * optional, added to h; inlined with constant type and validity-or-not, so
 * each combination gets its own loop.
 */
static pg_attribute_always_inline void
gpuops_qhist_stats_typed(const void *data, const uint8 *validity, int64 n,
						 gpo_type type, GpuopsHistStats *h)
{
	int64		min_key = h->any_finite ? h->min_key : PG_INT64_MAX;
	int64		max_key = h->any_finite ? h->max_key : PG_INT64_MIN;
	int64		num_finite = 0;
	int64		num_neg_inf = 0;
	int64		num_pos_inf = 0;
	int64		i;

	for (i = 0; i < n; i++)
	{
		double		v;
		int64		k;

		if (validity != NULL && !((validity[i >> 3] >> (i & 7)) & 1))
			continue;
		v = gpuops_qhist_value(data, type, i);
		if (unlikely(!isfinite(v)))
		{
			/* NaN is not counted */
			if (isinf(v))
			{
				if (v < 0)
					num_neg_inf++;
				else
					num_pos_inf++;
			}
			continue;
		}
		k = gpo_hist_order_key(v);
		min_key = Min(min_key, k);
		max_key = Max(max_key, k);
		num_finite++;
	}
	if (num_finite > 0)
	{
		h->any_finite = true;
		h->min_key = min_key;
		h->max_key = max_key;
	}
	h->num_finite += num_finite;
	h->num_neg_inf += num_neg_inf;
	h->num_pos_inf += num_pos_inf;
	h->num_values += n;
}

/* Min, max and counts of the values of one chunk, added to h. */
static void
gpuops_qhist_stats(const gpo_chunk *c, gpo_type type, GpuopsHistStats *h)
{
#define GPUOPS_QHIST_STATS(t) \
	do { \
		if (c->validity == NULL) \
			gpuops_qhist_stats_typed(c->data, NULL, c->n, (t), h); \
		else \
			gpuops_qhist_stats_typed(c->data, c->validity, c->n, (t), h); \
	} while (0)

	switch (type)
	{
		case GPO_INT32:
			GPUOPS_QHIST_STATS(GPO_INT32);
			break;
		case GPO_INT64:
			GPUOPS_QHIST_STATS(GPO_INT64);
			break;
		case GPO_FLOAT32:
			GPUOPS_QHIST_STATS(GPO_FLOAT32);
			break;
		case GPO_FLOAT64:
			GPUOPS_QHIST_STATS(GPO_FLOAT64);
			break;
		default:
			elog(ERROR, "gpuops.histogram: unexpected physical type %d", (int) type);
	}
#undef GPUOPS_QHIST_STATS
}

/* Largest single read of the temporary file. */
#define GPUOPS_QHIST_IO_MAX ((size_t) 64 * 1024 * 1024)

/* Read exactly size bytes of the temporary file at *offset, advancing it. */
static void
gpuops_qhist_read(GpuopsQueryHist *h, off_t *offset, void *ptr, size_t size)
{
	char	   *p = (char *) ptr;

	while (size > 0)
	{
		int			amount = (int) Min(size, GPUOPS_QHIST_IO_MAX);
		int			nread = FileRead(h->file, p, amount, *offset,
									 WAIT_EVENT_BUFFILE_READ);

		if (nread < 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("gpuops.histogram: could not read from temporary file: %m")));
		if (nread == 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("gpuops.histogram: unexpected end of temporary file")));
		*offset += nread;
		p += nread;
		size -= nread;
	}
}

/*
 * Append one full chunk (header, values, validity if any) to the temporary
 * file, written by the helper thread while the query goes on: the stream
 * fills the spare buffer from now on, and the chunk's buffer becomes the
 * spare once its write has ended.
 */
static void
gpuops_qhist_spill(GpuopsQueryHist *h, GpuopsStream *s,
				   GpuopsStreamColumn *col)
{
	struct iovec iov[3];
	int			iovcnt = 2;
	size_t		bytes = (size_t) s->capacity * gpo_type_size(col->type);
	void	   *full;

	if (h->file == 0)
	{
		PrepareTempTablespaces();
		h->file = OpenTemporaryFile(false);
		h->spare = MemoryContextAllocHuge(h->cxt, Max(bytes, 1));
		h->wvalidity = MemoryContextAllocHuge(h->cxt, (s->capacity + 7) / 8 + 1);
		/* in the context, not on the stack: an ERROR may end this frame first */
		h->hdr = MemoryContextAlloc(h->cxt, sizeof(GpuopsQhistChunkHeader));
		h->writer = gpuops_async_write_open(h->file, h->cxt);
	}
	gpuops_async_write_wait(h->writer);
	h->hdr->num_rows = col->chunk.n;
	h->hdr->has_validity = col->chunk.validity != NULL;
	iov[0].iov_base = h->hdr;
	iov[0].iov_len = sizeof(GpuopsQhistChunkHeader);
	iov[1].iov_base = col->chunk.data;
	iov[1].iov_len = (size_t) col->chunk.n * gpo_type_size(col->type);
	if (h->hdr->has_validity)
	{
		memcpy(h->wvalidity, col->chunk.validity, (col->chunk.n + 7) / 8);
		iov[2].iov_base = h->wvalidity;
		iov[2].iov_len = (size_t) (col->chunk.n + 7) / 8;
		iovcnt = 3;
	}
	full = col->data;
	Assert(col->chunk.data == full);
	col->data = h->spare;
	h->spare = full;
	gpuops_async_write_start(h->writer, iov, iovcnt);
	h->file_chunks++;
	h->file_rows += col->chunk.n;
}

/*
 * Automatic domain, while the query runs: the chunk's figures, and the chunk
 * kept for the counting pass.  A full chunk goes to the file.  A chunk that
 * is not full is the query's last (the stream flushes one only when the
 * query has ended), and the stream leaves its values in the buffer after the
 * run (it clears only the validity bits), so only its validity is copied.
 */
static void
gpuops_qhist_scan_chunk(GpuopsStream *s, void *arg)
{
	GpuopsQueryHist *h = (GpuopsQueryHist *) arg;
	GpuopsStreamColumn *col = &s->cols[0];

	gpuops_qhist_stats(&col->chunk, col->type, &h->stats);
	if (s->num_rows >= s->capacity)
	{
		gpuops_qhist_spill(h, s, col);
		return;
	}
	h->last_rows = s->num_rows;
	if (col->chunk.validity != NULL)
	{
		h->last_validity = MemoryContextAlloc(h->cxt,
											  (s->num_rows + 7) / 8);
		memcpy(h->last_validity, col->chunk.validity, (s->num_rows + 7) / 8);
	}
}

/* One chunk through gpo_histogram with h->spec, added to the totals. */
static void
gpuops_qhist_count(GpuopsQueryHist *h, const gpo_vector *vec)
{
	gpo_hist_domain domain;
	gpo_ctx		ctx;
	size_t		scratch_bytes = 0;
	void	   *scratch;
	gpo_status	st;
	int32		b;

	gpuops_ctx_init_budget(&ctx);
	st = gpo_histogram(&ctx, vec, NULL, &h->spec,
					   h->chunk_counts, &domain, NULL, &scratch_bytes);
	gpuops_check_status(st, &ctx, "histogram", INT8OID);
	scratch = gpuops_alloc_scratch(scratch_bytes);
	st = gpo_histogram(&ctx, vec, NULL, &h->spec,
					   h->chunk_counts, &domain, scratch, &scratch_bytes);
	gpuops_check_status(st, &ctx, "histogram", INT8OID);
	for (b = 0; b <= h->spec.bins + 1; b++)
	{
		if (h->chunk_counts[b] < 0)
			elog(ERROR, "gpuops: engine published a negative count for bucket %d", b);
		h->counts[b] += h->chunk_counts[b];
	}
	h->num_values += gpo_vector_rows(vec);
}

/* Given domain: one chunk of the query counted. */
static void
gpuops_qhist_count_chunk(GpuopsStream *s, void *arg)
{
	gpuops_qhist_count((GpuopsQueryHist *) arg, &s->cols[0].vec);
}

/*
 * Automatic domain, counting pass: the last chunk from the stream's buffer,
 * then the file's chunks read back into it, one at a time.
 */
static void
gpuops_qhist_recount(GpuopsQueryHist *h, GpuopsStream *s)
{
	GpuopsStreamColumn *col = &s->cols[0];
	MemoryContext cxt;
	MemoryContext old;
	gpo_chunk	chunk;
	gpo_vector	vec;
	off_t		offset = 0;
	int64		i;

	/* every chunk is in the file before it is read back */
	if (h->writer != NULL)
		gpuops_async_write_close(h->writer);

	/* engine scratch is per chunk, as in the stream's chunk context */
	cxt = AllocSetContextCreate(CurrentMemoryContext, "gpuops histogram",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	vec.type = col->type;
	vec.nchunks = 1;
	vec.chunks = &chunk;
	if (h->last_rows > 0)
	{
		chunk.data = col->data;
		chunk.validity = h->last_validity;
		chunk.n = h->last_rows;
		gpuops_qhist_count(h, &vec);
		MemoryContextReset(cxt);
		CHECK_FOR_INTERRUPTS();
	}
	for (i = 0; i < h->file_chunks; i++)
	{
		GpuopsQhistChunkHeader hdr;

		gpuops_qhist_read(h, &offset, &hdr, sizeof(hdr));
		if (hdr.num_rows <= 0 || hdr.num_rows > s->capacity)
			elog(ERROR, "gpuops.histogram: temporary file holds a chunk of " INT64_FORMAT " rows",
				 hdr.num_rows);
		gpuops_qhist_read(h, &offset, col->data,
						  (size_t) hdr.num_rows * gpo_type_size(col->type));
		if (hdr.has_validity)
			gpuops_qhist_read(h, &offset, col->validity,
							  (size_t) (hdr.num_rows + 7) / 8);
		chunk.data = col->data;
		chunk.validity = hdr.has_validity ? col->validity : NULL;
		chunk.n = hdr.num_rows;
		gpuops_qhist_count(h, &vec);
		MemoryContextReset(cxt);
		CHECK_FOR_INTERRUPTS();
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	/* the stream's validity bits must read as empty again */
	memset(col->validity, 0, (s->capacity + 7) / 8);
}

/* gpuops.histogram(query text, bins, lo, hi): width_bucket counts of a query's column. */
Datum
gpuops_histogram_query(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	GpuopsQueryHist h;
	GpuopsStream s;
	gpo_hist_domain domain;
	Oid			typid;
	char	   *query;
	int32		bins;

	InitMaterializedSRF(fcinfo, 0);
	if (rsinfo->setDesc->natts != 4)
		elog(ERROR, "gpuops.histogram: return type must have 4 columns");

	/* not STRICT (lo and hi default to NULL); a NULL query or bins: no rows */
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		return (Datum) 0;
	memset(&h, 0, sizeof(h));
	gpuops_hist_spec_from_args(fcinfo, &h.spec);
	bins = h.spec.bins;
	query = text_to_cstring(PG_GETARG_TEXT_PP(0));

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "gpuops.histogram: SPI_connect failed");
	gpuops_stream_prepare(&s, "gpuops.histogram", query, 1);
	typid = TupleDescAttr(s.desc, 0)->atttypid;
	if (typid != INT2OID && typid != INT4OID && typid != INT8OID &&
		typid != FLOAT4OID && typid != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("gpuops.histogram: column 1 of the query has type %s, expected smallint, integer, bigint, real or double precision",
						format_type_be(typid)),
				 errhint("Cast the column, e.g. to double precision.")));

	h.counts = palloc0(((Size) bins + 2) * sizeof(int64));
	h.chunk_counts = palloc0(((Size) bins + 2) * sizeof(int64));

	if (!h.spec.auto_domain)
	{
		gpuops_stream_begin(&s, gpuops_qhist_count_chunk, &h);
		gpuops_stream_run(&s);
		domain.valid = true;
		domain.lo = h.spec.lo;
		domain.hi = h.spec.hi;
	}
	else
	{
		GpuopsHistStats *f = &h.stats;

		h.cxt = CurrentMemoryContext;
		/* two chunk buffers (one filled, one written): half the size each */
		s.chunk_bytes = Max((int64) gpuops_chunk_size / 2, 1);
		gpuops_stream_begin(&s, gpuops_qhist_scan_chunk, &h);
		gpuops_stream_run(&s);
		if (h.file_rows + h.last_rows != f->num_values)
			elog(ERROR, "gpuops.histogram: kept " INT64_FORMAT " of " INT64_FORMAT " rows",
				 h.file_rows + h.last_rows, f->num_values);
		h.num_values = f->num_values;
		domain.valid = f->any_finite;
		domain.lo = f->any_finite ? gpo_hist_order_value(f->min_key) : 0.0;
		domain.hi = f->any_finite ? gpo_hist_order_value(f->max_key) : 0.0;
		if (!f->any_finite)
		{
			/* no finite value: nothing is counted, infinities included */
		}
		else if (domain.lo == domain.hi)
		{
			/* one finite value (or -0.0 and 0.0): all of them in bucket 1 */
			h.counts[0] = f->num_neg_inf;
			h.counts[1] = f->num_finite;
			h.counts[bins + 1] = f->num_pos_inf;
		}
		else
		{
			/* count the kept chunks with the domain given */
			h.num_values = 0;
			h.spec.auto_domain = false;
			h.spec.lo = domain.lo;
			h.spec.hi = domain.hi;
			gpuops_qhist_recount(&h, &s);
			h.spec.auto_domain = true;
			if (h.num_values != f->num_values ||
				h.counts[0] != f->num_neg_inf ||
				h.counts[bins + 1] < f->num_pos_inf)
				elog(ERROR, "gpuops.histogram: the counting pass disagrees with the values read");
			h.counts[bins] += h.counts[bins + 1] - f->num_pos_inf;
			h.counts[bins + 1] = f->num_pos_inf;
		}
		if (h.writer != NULL)
			gpuops_async_write_close(h.writer);
		if (h.file != 0)
			FileClose(h.file);
	}

	gpuops_hist_output(rsinfo, &h.spec, h.counts, &domain, h.num_values);
	SPI_finish();
	return (Datum) 0;
}
