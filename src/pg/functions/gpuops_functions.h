/*
 * gpuops_functions.h
 *	  Declarations shared by the SQL functions (src/pg/functions): arrays as
 *	  engine columns, the histogram, rle and group_agg helpers their array
 *	  and query forms share, query streams and asynchronous writes.
 */
#ifndef GPUOPS_FUNCTIONS_H
#define GPUOPS_FUNCTIONS_H

#include "common/gpuops.h"
#include "budget/gpuops_budget.h"

#include "executor/spi.h"
#include "funcapi.h"
#include "storage/fd.h"
#include "utils/array.h"

#include "gpo_hist.h"

/* ---- array.c ---- */

/*
 * An array's elements described for the engine: one full-length buffer of
 * num_rows values of a physical type (NULL rows hold zero), the array's null
 * bitmap (NULL when it has no NULLs), and a chunked vector over both.
 */
typedef struct GpuopsColumn
{
	Oid			elemtype;		/* SQL element type */
	gpo_type	type;			/* physical type */
	int64		num_rows;		/* elements, in storage order */
	void	   *data;			/* num_rows values (may point into the array) */
	bits8	   *nulls;			/* array null bitmap, or NULL */
	gpo_vector	vec;			/* chunks of at most gpuops.chunk_size bytes */
} GpuopsColumn;

/* Describe an array of a device type as a chunked engine column. */
extern void gpuops_array_to_column(ArrayType *arr, GpuopsColumn *col);
/* Rows per chunk for a physical type under gpuops.chunk_size. */
extern int64 gpuops_rows_per_chunk(gpo_type type);
/* Describe a contiguous buffer as a chunked vector, validity optional. */
extern void gpuops_make_vector(gpo_vector *vec, gpo_type type, void *data,
							   const bits8 *nulls, int64 num_rows,
							   bool out_validity);
/* True if logical row of an output vector made by gpuops_make_vector is valid. */
extern bool gpuops_vector_row_valid(const gpo_vector *vec, int64 row);
/* Element type of argument argno, checked against the array's own. */
extern Oid	gpuops_array_elemtype(FunctionCallInfo fcinfo, int argno,
								  ArrayType *arr);
/* Number of elements of an array, all dimensions. */
extern int64 gpuops_array_nitems(ArrayType *arr);


/* ---- func_histogram.c (shared with query_histogram.c) ---- */


/* The histogram spec from arguments bins, lo, hi (1..3), checked. */
extern void gpuops_hist_spec_from_args(FunctionCallInfo fcinfo,
									   gpo_hist_spec *spec);
/* Check the counts of num_values values and emit the histogram's rows. */
extern void gpuops_hist_output(ReturnSetInfo *rsinfo,
							   const gpo_hist_spec *spec, const int64 *counts,
							   const gpo_hist_domain *domain,
							   int64 num_values);

/* ---- func_rle.c (shared with query_rle.c) ---- */

/*
 * Emit one rle row (value, start + 1, length), or one unique row (value);
 * is_row: unique of a row type, whose value fills the result's columns.
 */
extern void gpuops_rle_emit(ReturnSetInfo *rsinfo, bool want_runs,
							bool is_row, Datum value, bool isnull,
							int64 start, int64 length);
/* Binary equality of non-device elements, two NULLs equal. */
extern bool gpuops_rle_datum_eq(Datum a, bool a_null, Datum b, bool b_null,
								bool typbyval, int16 typlen);
/* The engine's equality of two physical values (NaN = NaN, -0 = 0). */
extern bool gpuops_rle_value_eq(gpo_type type, const void *a, bool a_null,
								const void *b, bool b_null);

/* ---- func_groupagg.c (shared with query_groupagg.c) ---- */

/* The engine's per-group results, in arrays of capacity entries. */
typedef struct GpuopsGroups
{
	int64		ngroups;
	gpo_agg_out out;
} GpuopsGroups;

/* Result arrays with room for capacity groups (keys of ktype, values of vtype). */
extern void gpuops_groupagg_alloc(gpo_agg_out *out, int64 capacity,
								  gpo_type ktype, gpo_type vtype);
/* Groups of keys with aggregates of vals through gpo_groupagg, checked. */
extern void gpuops_groupagg_run(const GpuopsColumn *keys,
								const GpuopsColumn *vals,
								GpuopsGroups *groups, Oid result_type);
/* Emit one group_agg row per group. */
extern void gpuops_groupagg_output(ReturnSetInfo *rsinfo,
								   const GpuopsColumn *keys,
								   const GpuopsGroups *groups,
								   Oid value_type);

/* ---- chunk_stream.c ---- */

/*
 * How a query column is held in a chunk: a device type as its physical
 * engine type (int2 widened to int32, bool as uint8), any other type as
 * Datums (by-reference values copied into the chunk's memory context).
 */
typedef struct GpuopsStreamColumn
{
	Oid			typid;			/* SQL type of the query's column */
	bool		is_device;		/* a device type (type is meaningful) */
	gpo_type	type;			/* physical type, if is_device */
	int			conv;			/* its GpuopsScanConv (gpuops_scan.h), if
								 * is_device */
	int16		typlen;			/* for Datum columns */
	bool		typbyval;		/* for Datum columns */
	void	   *data;			/* capacity values (Datums if !is_device) */
	bool	   *isnull;			/* capacity flags (Datum columns only) */
	uint8	   *validity;		/* (capacity + 7) / 8 bytes, bit set = valid */
	int64		nnulls;			/* NULLs in the current chunk */
	gpo_chunk	chunk;			/* the current chunk (device columns) */
	gpo_vector	vec;			/* one-chunk vector over chunk */
} GpuopsStreamColumn;

struct GpuopsStream;

/*
 * Called once per full (or final, non-empty) chunk, in the stream's chunk
 * memory context, which is reset after the call.  s->num_rows rows are in
 * the columns; s->first_row is the 0-based row number of the first one.
 */
typedef void (*GpuopsChunkCallback) (struct GpuopsStream *s, void *arg);

/* A query prepared for streaming, and its chunk buffers. */
typedef struct GpuopsStream
{
	const char *fname;			/* SQL function name, for messages */
	SPIPlanPtr	plan;
	TupleDesc	desc;			/* the query's result columns */
	int			ncols;
	GpuopsStreamColumn *cols;
	int64		chunk_bytes;	/* bytes of the widest column a chunk; 0 (as
								 * prepared): gpuops.chunk_size */
	int64		capacity;		/* rows per chunk */
	int64		num_rows;		/* rows in the current chunk */
	int64		first_row;		/* 0-based row number of its first row */
	int64		nchunks;		/* chunks delivered in this pass */
	double		callback_ms;	/* time spent in the callback this pass */
	MemoryContext chunk_cxt;	/* reset after each chunk */
	GpuopsChunkCallback callback;
	void	   *arg;
} GpuopsStream;

/* ---- async_write.c: one write at a time to a temporary file, by a helper thread ---- */
typedef struct GpuopsAsyncWrite GpuopsAsyncWrite;
struct iovec;

/* A writer appending to the empty file; ends with cxt's reset or deletion. */
extern GpuopsAsyncWrite *gpuops_async_write_open(File file, MemoryContext cxt);
/* Start appending the pieces once the write before has ended (they must stay untouched until the next wait). */
extern void gpuops_async_write_start(GpuopsAsyncWrite *w,
									 const struct iovec *iov, int iovcnt);
/* Wait for the write in flight and raise its error, if any. */
extern void gpuops_async_write_wait(GpuopsAsyncWrite *w);
/* Wait, then close the writer's descriptor. */
extern void gpuops_async_write_close(GpuopsAsyncWrite *w);

/*
 * Parse and plan query (SPI must be connected) as a read-only single
 * SELECT or VALUES returning ncols columns; raises 42601 (syntax), 42809
 * (not a single SELECT/VALUES) or 42804 (column count).
 */
extern void gpuops_stream_prepare(GpuopsStream *s, const char *fname,
								  const char *query, int ncols);
/* Raises 42804 unless column attno (0-based) has type expected. */
extern void gpuops_stream_expect_type(GpuopsStream *s, int attno,
									  Oid expected);
/* Allocate the chunk buffers (after the column types are checked). */
extern void gpuops_stream_begin(GpuopsStream *s, GpuopsChunkCallback callback,
								void *arg);
/* Run the query once, as the caller, delivering every chunk to the callback. */
extern void gpuops_stream_run(GpuopsStream *s);
/* Datum of row of a Datum column, or of a device column (as its SQL type). */
extern Datum gpuops_stream_datum(const GpuopsStreamColumn *col, int64 row,
								 bool *isnull);

#endif							/* GPUOPS_FUNCTIONS_H */
