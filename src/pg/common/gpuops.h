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

#include "gpo.h"
#include "gpo_agg.h"

#define GPUOPS_VERSION "0.1"

/*
 * Alignment of engine scratch: a cache line.  The engine aligns its own
 * pieces (16 bytes, for __int128 sums) in absolute terms, so palloc's MAXALIGN
 * would do; a cache-line start keeps the first pieces off a line shared with
 * the allocation's header.
 */
#define GPUOPS_SCRATCH_ALIGN 64

/* GUC values (settings.c) */
extern int	gpuops_device;
extern int	gpuops_gpu_min_rows;
extern int	gpuops_threads;
extern int	gpuops_chunk_size;
extern int	gpuops_agg_strategy;	/* a gpo_agg_strategy */
extern int	gpuops_gpu_memory_limit;	/* MB; 0: none */

/* ---- malloc_tune.c: glibc's malloc thresholds ---- */

/* Sets malloc's mmap and trim thresholds for the page batches (from _PG_init). */
extern void gpuops_malloc_tune(void);
/* How malloc's thresholds were set, for gpuops.info(). */
extern const char *gpuops_malloc_describe(void);

/* ---- settings.c: the engine-wide settings ---- */

/* Defines gpuops.device, gpu_min_rows, threads, chunk_size, debug_chunk_size and agg_strategy. */
extern void gpuops_settings_init(void);
/* Name of the current gpuops.device setting ("auto", "gpu" or "cpu"). */
extern const char *gpuops_device_name(void);

/* ---- runtime.c ---- */

/* Scratch for the second phase of an engine call, GPUOPS_SCRATCH_ALIGN aligned. */
extern void *gpuops_alloc_scratch(size_t scratch_bytes);
/*
 * Starts fn(arg) on a helper thread with every signal blocked (the thread and
 * any thread it starts); false if no thread can be had.  The helper must
 * call nothing of PostgreSQL.
 */
extern bool gpuops_thread_start(pthread_t *thread, void *(*fn) (void *),
								void *arg);

/* ---- groupagg_call.c ---- */

/*
 * gpo_groupagg_many's sizing and running calls for nvals value columns
 * (0: rows only) into outs, each output's request what its arrays ask for
 * (no PostgreSQL call: any thread).
 */
extern gpo_status gpuops_groupagg_many_call(gpo_ctx *ctx,
											const gpo_vector *keys,
											const gpo_vector *values,
											int nvals, int64 est_groups,
											gpo_agg_strategy *strategy,
											gpo_agg_out *outs,
											int64 *ngroups);

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

/* ---- values.c: engine values <-> PostgreSQL values ---- */

/* True if elemtype maps onto an engine physical type; sets *type. */
extern bool gpuops_device_type(Oid elemtype, gpo_type *type);
/* A one-chunk vector v over n values at data (chunk c), validity optional. */
extern void gpuops_one_chunk_vector(gpo_vector *v, gpo_chunk *c, gpo_type type,
									void *data, uint8 *validity, int64 n);
/* Convert value row of a contiguous physical buffer back to a Datum. */
extern Datum gpuops_value_to_datum(Oid elemtype, gpo_type type,
								   const void *data, int64 row);
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
/* The Sx float8_accum keeps for a group (same errors as gpuops_float_avg). */
extern float8 gpuops_float_accum_sum(float8 fsum, uint8 fflags, float8 m2);
/* An exact 128-bit integer as a numeric. */
extern Datum gpuops_int128_to_numeric(gpo_int128 v);

#endif							/* GPUOPS_H */
