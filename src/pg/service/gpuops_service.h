/*
 * gpuops_service.h
 *	  The GPU service: one background worker per GPU that owns the only CUDA
 *	  context of that GPU and runs the GPU face's group aggregations for
 *	  every backend, which hand each batch to the least loaded service
 *	  through its page-locked staging arena in shared memory
 *	  (service_shmem.c, service_main.c, service_client.c).
 */
#ifndef GPUOPS_SERVICE_H
#define GPUOPS_SERVICE_H

#include "common/gpuops.h"
#include "gpo_agg.h"

extern bool gpuops_gpu_service;
extern int	gpuops_gpu_service_memory;	/* MB */
extern int	gpuops_gpu_service_streams;
extern bool gpuops_debug_gpu_service;
extern int	gpuops_debug_gpu_service_delay; /* ms */
extern int	gpuops_debug_gpu_count; /* 0: one service per GPU found */

/* Defines the service's settings and, when preloaded, registers it. */
extern void gpuops_service_init(void);
/* Shared memory the service needs (budget.c's request hook asks for it). */
extern Size gpuops_service_shmem_size(void);
/* Creates or attaches to it (under AddinShmemInitLock). */
extern void gpuops_service_shmem_attach(void);

/*
 * Whether this server runs the service: then backends never create a CUDA
 * context of their own for the aggregate node, which hands its GPU work to
 * the service.
 */
extern bool gpuops_service_configured(void);
/*
 * Whether the GPU face can be had: from the service when it is configured
 * (it is running and found a GPU, or is starting), else from this backend.
 */
extern bool gpuops_gpu_usable(void);

/* Bytes of one service's staging arena (0 without the service). */
extern double gpuops_service_arena_bytes(void);

/* A request handed to the service (service_client.c). */
typedef struct GpuopsServiceCall GpuopsServiceCall;

/*
 * Hands gpo_groupagg_many of keys with values (nvals columns, 0: rows
 * only) into outs to the service, in the current memory context (whose
 * reset gives the request up).  wait: the query must run on the GPU, so
 * wait for room and for a restarting service; else a request that can't be
 * placed at once is not placed.  NULL when nothing was handed over (see
 * *why).
 */
extern GpuopsServiceCall *gpuops_service_agg_submit(const gpo_vector *keys,
													const gpo_vector *values,
													int nvals, int64 est_groups,
													gpo_agg_strategy strategy,
													gpo_agg_out *outs,
													bool wait, gpo_status *why,
													char *why_detail,
													size_t why_len);
/*
 * Waits for call's results (a cancel gives it up) and copies them into the
 * outputs it was submitted with; fills ctx's used and detail, *used and
 * *ngroups; *device_ms the engine's time in the service, *copy_ms this
 * backend's copying of the batch into the shared arena and of the groups
 * out of it.  *lost: the service stopped before it answered (the request
 * may run elsewhere).
 */
extern gpo_status gpuops_service_agg_wait(GpuopsServiceCall *call,
										  gpo_ctx *ctx, gpo_agg_strategy *used,
										  int64 *ngroups, double *device_ms,
										  double *copy_ms, bool *lost);

#endif							/* GPUOPS_SERVICE_H */
