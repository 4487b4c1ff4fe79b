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
#include "gpo_filter.h"
#include "gpo_resident.h"

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

/*
 * One block range of the column cache as the service keeps it on its
 * device: the range's identity and the change count its data was read at.
 */
typedef struct GpuopsServiceRangeKey
{
	Oid			dbid;
	Oid			relid;
	uint32		serial;			/* the cache slot's (new each time it is taken) */
	Oid			relnode;		/* the table's file when the range was read
								 * (a rewrite starts the change counts
								 * again) */
	uint32		filled_gen;
	int64		range;
	int32		entry;			/* the directory entry (a hint), -1: none */
} GpuopsServiceRangeKey;

/* gpuops.cache_memory_limit: device memory per GPU for kept ranges (MB). */
extern int	gpuops_cache_memory_limit;

/* The service that keeps relid's ranges (-1: no service serves). */
extern int	gpuops_service_for_relation(Oid relid);
/*
 * Looks up which of the nranges ranges of (dbid, relid, serial, relnode) service
 * svc keeps now: found[i] gets range i's key (entry -1 when not kept);
 * returns how many are kept, and their device bytes into *bytes (bytes
 * may be NULL).  A hint: the service checks again.
 */
extern int64 gpuops_service_kept_ranges(int svc, Oid dbid, Oid relid,
										uint32 serial, Oid relnode,
										int64 nranges,
										GpuopsServiceRangeKey *found,
										int64 *bytes);
/* Whether service svc keeps ranges and has room for more (under half full). */
extern bool gpuops_service_kept_room(int svc);
/*
 * Hands service svc a cached range's ncols columns to keep on its device
 * (replacing what it kept of that range): copies them into the staging
 * arena at once (no wait for room), so that the caller may release them
 * before gpuops_service_load_wait.  NULL when not handed over (see *why).
 */
extern GpuopsServiceCall *gpuops_service_load_submit(int svc,
													 const GpuopsServiceRangeKey *key,
													 int ncols,
													 const gpo_vector *cols,
													 gpo_status *why,
													 char *detail, size_t len);
/*
 * Has service svc drop every range it keeps of table (dbid, relid) (relid
 * InvalidOid: of every table of database dbid) but the copies of
 * keep_serial and keep_relnode (the table as cached now; 0 and InvalidOid:
 * none kept), and waits for it; nothing when the request can't be placed
 * at once.
 */
extern void gpuops_service_forget(int svc, Oid dbid, Oid relid,
								  uint32 keep_serial, Oid keep_relnode);
/* gpuops_service_forget of every table of database dbid, on every service. */
extern void gpuops_service_forget_database(Oid dbid);
/* Waits for a LOAD request; GPO_OK when the range is kept (else detail says why). */
extern gpo_status gpuops_service_load_wait(GpuopsServiceCall *call,
										   char *detail, size_t len);
/*
 * Several grouping keys of a CACHED request, which the engine packs into
 * one (gpo_resident_query.nkeys): the kept columns, and how they were
 * packed (filled when the answer comes).
 */
typedef struct GpuopsServiceKeys
{
	int			nkeys;			/* 2 .. GPO_RESIDENT_MAX_KEYS; 0: key_col */
	int			cols[GPO_RESIDENT_MAX_KEYS];
	int64		lo[GPO_RESIDENT_MAX_KEYS];
	int64		width[GPO_RESIDENT_MAX_KEYS];
} GpuopsServiceKeys;

/*
 * The star join of a CACHED request: the dimensions its rows are joined to
 * and the dimension columns they read (gpo_resident.h), in host memory;
 * the request carries them to the service.
 */
typedef struct GpuopsServiceStar
{
	int			ndims;
	gpo_resident_dim dims[GPO_RESIDENT_MAX_DIMS];
	int			ndimcols;
	gpo_resident_dimcol dimcols[GPO_RESIDENT_MAX_DIM_COLS];
} GpuopsServiceStar;

/*
 * Asks service svc for the group aggregation of the rows of its kept
 * ranges sets[0 .. nsets) that pass prog: by column key_col (-1: one
 * group) of key_type, request r over column val_cols[r] (-1: rows only) of
 * val_types[r] for aggs[r], into outs (nreqs of them, one for rows only),
 * whose capacity bounds the groups; key_col and val_cols may name the
 * nexprs computed columns exprs (gpo_resident.h); keys (NULL: none) the
 * several keys grouped by instead of key_col; star (NULL: none) the
 * dimensions the rows are joined to first; wait: for room (as
 * gpuops_service_agg_submit's).  Waited for with
 * gpuops_service_cached_wait; NULL when not handed over (see *why).
 */
extern GpuopsServiceCall *gpuops_service_cached_submit(int svc, int nsets,
													   const GpuopsServiceRangeKey *sets,
													   const gpo_pred *prog,
													   int nnodes, int key_col,
													   gpo_type key_type,
													   int nreqs,
													   const int *val_cols,
													   const gpo_type *val_types,
													   const unsigned *aggs,
													   int nexprs,
													   const gpo_resident_expr *exprs,
													   const GpuopsServiceKeys *keys,
													   const GpuopsServiceStar *star,
													   int64 est_groups,
													   gpo_agg_out *outs,
													   bool wait,
													   gpo_status *why,
													   char *detail, size_t len);
/*
 * gpuops_service_agg_wait of a cached_submit call; *xerr gets the gpo_xerr
 * of a computed column's lowest erring row (0: none; outs are not filled
 * then), and keys (NULL: none asked) how several keys were packed.
 */
extern gpo_status gpuops_service_cached_wait(GpuopsServiceCall *call,
											 gpo_ctx *ctx,
											 gpo_agg_strategy *used,
											 int64 *ngroups,
											 double *device_ms,
											 double *copy_ms, bool *lost,
											 int *xerr,
											 GpuopsServiceKeys *keys);

#endif							/* GPUOPS_SERVICE_H */
