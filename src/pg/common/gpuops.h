/*
 * gpuops.h
 *	  Declarations shared by the PostgreSQL glue of gpuops (src/pg).
 *
 * Only src/pg includes postgres.h; the engine (src/core, gpo.h) never does.
 */
#ifndef GPUOPS_H
#define GPUOPS_H

#include "postgres.h"

#include <pthread.h>

#include "executor/spi.h"
#include "storage/fd.h"
#include "funcapi.h"
#include "utils/array.h"

#include "gpo.h"
#include "budget/gpuops_omp.h"
#include "gpo_agg.h"
#include "gpo_hist.h"

#define GPUOPS_VERSION "0.1"

/*
 * Alignment of engine scratch: a cache line.  The engine aligns its own
 * pieces (16 bytes, for __int128 sums) in absolute terms, so palloc's MAXALIGN
 * would do; a cache-line start keeps the first pieces off a line shared with
 * the allocation's header.
 */
#define GPUOPS_SCRATCH_ALIGN 64

/* GUC values (gpuops.c) */
extern int	gpuops_device;
extern int	gpuops_gpu_min_rows;
extern int	gpuops_threads;
extern int	gpuops_chunk_size;
extern int	gpuops_agg_strategy;	/* a gpo_agg_strategy */

/* ---- gpuops.c ---- */

/* Fill an engine context from the current GUC settings. */
extern void gpuops_ctx_init(gpo_ctx *ctx);
/*
 * gpo_groupagg_many's sizing and running calls for nvals value columns
 * (0: rows only) into outs, each output's request what its arrays ask for
 * (groupagg_call.c; no PostgreSQL call: any thread).
 */
extern gpo_status gpuops_groupagg_many_call(gpo_ctx *ctx,
											const gpo_vector *keys,
											const gpo_vector *values,
											int nvals, int64 est_groups,
											gpo_agg_strategy *strategy,
											gpo_agg_out *outs,
											int64 *ngroups);
/* gpuops.device, or cpu while this backend's query found no GPU seat free. */
extern gpo_device gpuops_device_now(void);
/* Scratch for the second phase of an engine call, GPUOPS_SCRATCH_ALIGN aligned. */
extern void *gpuops_alloc_scratch(size_t scratch_bytes);
/* Name of the current gpuops.device setting ("auto", "gpu" or "cpu"). */
extern const char *gpuops_device_name(void);
/*
 * Starts fn(arg) on a helper thread with every signal blocked (the thread and
 * any thread it starts); false if no thread can be had.  The helper must
 * call nothing of PostgreSQL.
 */
extern bool gpuops_thread_start(pthread_t *thread, void *(*fn) (void *),
								void *arg);

/* ---- budget.c: the core budget shared by every session ---- */

/* gpuops.max_threads */
extern int	gpuops_max_threads;
typedef struct GpuopsBudgetLease GpuopsBudgetLease;
/* Defines gpuops.max_threads and, when preloaded, asks for the shared counter. */
extern void gpuops_budget_init(void);
/* Whether there is a shared budget (gpuops was preloaded). */
extern bool gpuops_budget_active(void);
/* The cap: gpuops.max_threads, or the cores when it is 0 or -1. */
extern int	gpuops_budget_max(void);
/* Threads of this backend's share, 0 when it holds none. */
extern int	gpuops_budget_held(void);
/*
 * Takes this query's share: up to want threads (at least one), held until
 * gpuops_budget_release or until CurrentMemoryContext is reset or deleted
 * (*lease: NULL the first time, or a lease given back before, used again);
 * returns the threads granted, 0 when nothing was taken (no budget, or this
 * backend already holds a share, which then bounds it).
 */
extern int	gpuops_budget_acquire(int want, GpuopsBudgetLease **lease);
/* Keeps threads of the share (at least one) and gives the rest back. */
extern void gpuops_budget_trim(GpuopsBudgetLease *lease, int threads);
/* Gives the whole share back (nothing if lease is NULL or already given). */
extern void gpuops_budget_release(GpuopsBudgetLease *lease);
/*
 * Fills ctx from the settings and takes the calling SQL function's share of
 * the budget (given back when the function's memory context goes); without
 * a GPU seat free, ctx runs on the CPU.
 */
extern void gpuops_ctx_init_budget(gpo_ctx *ctx);
/* A share's GPU seat: none asked for, held, or none was free. */
typedef enum GpuopsSeatState
{
	GPUOPS_SEAT_NONE,
	GPUOPS_SEAT_HELD,
	GPUOPS_SEAT_DENIED
} GpuopsSeatState;
/* Whether this backend's share found no GPU seat free: its query runs on the CPU. */
extern bool gpuops_budget_cpu_only(void);
/* The GPU seat of lease's last acquire and the time it waited for it. */
extern GpuopsSeatState gpuops_budget_seat(const GpuopsBudgetLease *lease,
										  double *wait_ms);

/* ---- gpu_seats.c: the GPU's seats, shared by every session ---- */

/* gpuops.max_gpu_queries, gpuops.debug_gpu_seats */
extern int	gpuops_max_gpu_queries;
extern bool gpuops_debug_gpu_seats;
/* Defines gpuops.max_gpu_queries and gpuops.debug_gpu_seats. */
extern void gpuops_seats_init(void);
/* Shared memory the seats need, and their creation (budget.c's hooks). */
extern Size gpuops_seats_shmem_size(void);
extern void gpuops_seats_shmem_attach(void);
/* Seats taken by every session now, -1 when there are no shared seats. */
extern int	gpuops_seats_in_use(void);
/* Takes a seat, waiting for one with wait; whether it took one. */
extern bool gpuops_seats_take(bool wait, double *waited_ms);
/* Gives a taken seat back and wakes the waiters. */
extern void gpuops_seats_give(void);

/* ---- errors.c ---- */

/*
 * Report a failed engine call (the only place a gpo_status becomes an
 * ereport).  result_type names the SQL type whose range an overflow left.
 * On GPO_OK, emits ctx->detail at DEBUG1 when AUTO fell back to the CPU.
 */
extern void gpuops_check_status(gpo_status st, const gpo_ctx *ctx,
								const char *op, Oid result_type);
/* The last engine call of this backend (op, "gpu"/"cpu"/"none", detail or NULL); false if none yet. */
extern bool gpuops_last_run(const char **op, const char **face,
							const char **detail);

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

/* True if elemtype maps onto an engine physical type; sets *type. */
extern bool gpuops_device_type(Oid elemtype, gpo_type *type);
/* Describe an array of a device type as a chunked engine column. */
extern void gpuops_array_to_column(ArrayType *arr, GpuopsColumn *col);
/* Rows per chunk for a physical type under gpuops.chunk_size. */
extern int64 gpuops_rows_per_chunk(gpo_type type);
/* Describe a contiguous buffer as a chunked vector, validity optional. */
extern void gpuops_make_vector(gpo_vector *vec, gpo_type type, void *data,
							   const bits8 *nulls, int64 num_rows,
							   bool out_validity);
/* A one-chunk vector v over n values at data (chunk c), validity optional. */
extern void gpuops_one_chunk_vector(gpo_vector *v, gpo_chunk *c, gpo_type type,
									void *data, uint8 *validity, int64 n);
/* True if logical row of an output vector made by gpuops_make_vector is valid. */
extern bool gpuops_vector_row_valid(const gpo_vector *vec, int64 row);
/* Convert value row of a contiguous physical buffer back to a Datum. */
extern Datum gpuops_value_to_datum(Oid elemtype, gpo_type type,
								   const void *data, int64 row);
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
/*
 * A group's float sum as float8pl (as_float4: float4pl) gives it, from the
 * engine's finite sum, non-finite flags and max: overflow error, IEEE
 * infinities and NaN, sign of zero.
 */
extern float8 gpuops_float_sum(float8 fsum, uint8 fflags, float8 mx,
							   bool as_float4);
/*
 * A group's float avg as float8_accum and float8_avg give it: overflow
 * error when the finite sum, or (all values finite) the sum of squared
 * deviations m2, overflows.
 */
extern float8 gpuops_float_avg(float8 fsum, uint8 fflags, float8 m2,
							   int64 count);
/* An exact 128-bit integer as a numeric. */
extern Datum gpuops_int128_to_numeric(gpo_int128 v);
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

#endif							/* GPUOPS_H */
