/*
 * gpuops.h
 *	  Declarations shared by the PostgreSQL glue of gpuops (src/pg).
 *
 * Only src/pg includes postgres.h; the engine (src/core, gpo.h) never does.
 */
#ifndef GPUOPS_H
#define GPUOPS_H

#include "postgres.h"

#include "utils/array.h"

#include "gpo.h"

#define GPUOPS_VERSION "0.1"

/*
 * Alignment of engine scratch: the engine carves 16-byte aligned pieces
 * (holding __int128 sums) at offsets from the scratch base, so the base must
 * be at least that aligned; palloc only guarantees MAXALIGN (8).
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
/* Scratch for the second phase of an engine call, GPUOPS_SCRATCH_ALIGN aligned. */
extern void *gpuops_alloc_scratch(size_t scratch_bytes);
/* Name of the current gpuops.device setting ("auto", "gpu" or "cpu"). */
extern const char *gpuops_device_name(void);

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

#endif							/* GPUOPS_H */
