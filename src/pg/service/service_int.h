/*
 * service_int.h
 *	  The GPU services' shared memory, shared by their files:
 *	  service_shmem.c (the control blocks, the slots and the staging arenas),
 *	  service_count.c (how many services), service_main.c (the background
 *	  worker), service_exec.c (its executor) and service_client.c (the
 *	  backends' side, with the placement rule).
 *
 * There is one service per GPU, each with its own control block, slots,
 * arena, semaphore, counters, supervisor and executor (which uses the GPU
 * of the service's number); a backend places each request with the least
 * loaded one (service_client.c).
 *
 * A request lives in one slot and one contiguous range of the staging
 * arena, which the service page-locked once.  The range starts with a
 * GpuopsSvcAggReq (what to run, where its columns and outputs lie in the
 * range, and what happened); the columns and the output arrays follow.
 *
 * A slot's state moves FREE -> FILLING (a backend claimed it, under the
 * lock, with its arena range) -> QUEUED (filled; the work semaphore
 * posted) -> RUNNING (the executor took it) -> DONE (results written; the
 * owner's latch set) -> FREE (the owner copied them out).  An owner that
 * gives up (cancel, error, exit) sets abandoned: a QUEUED or DONE slot it
 * frees itself, a RUNNING one the supervisor frees once the executor is
 * done with it.  Both sides write their own word, then read the other's,
 * with full barriers between, so one of them always frees the slot.
 *
 * The executor (service_exec.c) is a child process of the supervisor (the
 * background worker, service_main.c), not of the postmaster: it takes no
 * lock and calls nothing of PostgreSQL that can raise an error, so that
 * its death, even by SIGKILL, costs the request it was running and nothing
 * else.
 */
#ifndef GPUOPS_SERVICE_INT_H
#define GPUOPS_SERVICE_INT_H

#include "service/gpuops_service.h"

#include <semaphore.h>

#include "gpo_filter.h"
#include "gpo_resident.h"

#include "port/atomics.h"
#include "portability/instr_time.h"
#include "storage/condition_variable.h"
#include "storage/latch.h"
#include "storage/spin.h"

#define GPUOPS_SVC_SLOTS		128
/* Most requests one service runs at once (gpuops.gpu_service_streams). */
#define GPUOPS_SVC_MAX_STREAMS	32
/* Alignment of every array in a request's range (device copies like it). */
#define GPUOPS_SVC_ALIGN		64

/* How long a request under gpuops.device = gpu waits for a stopped service. */
#define GPUOPS_SVC_DOWN_WAIT_MS		30000.0

/* Slot states. */
#define GPUOPS_SVC_FREE			0
#define GPUOPS_SVC_FILLING		1
#define GPUOPS_SVC_QUEUED		2
#define GPUOPS_SVC_RUNNING		3
#define GPUOPS_SVC_DONE			4

/* The service's states. */
typedef enum GpuopsSvcState
{
	GPUOPS_SVC_DOWN = 0,		/* not running (starting, or restarting) */
	GPUOPS_SVC_READY,			/* serving on the GPU */
	GPUOPS_SVC_READY_CPU,		/* serving on the CPU face (debug_gpu_service) */
	GPUOPS_SVC_NO_DEVICE		/* found no usable GPU: backends use the CPU */
} GpuopsSvcState;

/* The output arrays of one gpo_agg_out, in its field order. */
#define GPUOPS_SVC_NOUT			10

/* What a request asks (GpuopsSvcAggReq.kind). */
#define GPUOPS_SVC_KIND_AGG		0	/* gpo_groupagg_many of the columns sent */
#define GPUOPS_SVC_KIND_LOAD	1	/* keep a cached range's columns */
#define GPUOPS_SVC_KIND_CACHED	2	/* gpo_resident_groupagg of kept ranges */
#define GPUOPS_SVC_KIND_FORGET	3	/* drop a table's kept ranges */

/* Ranges one service keeps (its directory's entries). */
#define GPUOPS_SVC_RESIDENT_MAX 4096

/*
 * A request, at the start of its arena range: a batch's gpo_groupagg_many
 * (AGG), a cached range's columns to keep on the device (LOAD), or the
 * filtered group aggregation of kept ranges (CACHED), whose groups come back
 * in the output arrays as AGG's do.
 */
typedef struct GpuopsSvcAggReq
{
	/* in */
	int32		kind;			/* GPUOPS_SVC_KIND_* */
	int64		nrows;
	int64		cap;			/* every output's capacity */
	int64		est_groups;
	int32		strategy;		/* gpo_agg_strategy asked for */
	int32		nvals;			/* value columns (0: rows only) */
	int32		key_type;		/* gpo_type */
	int32		val_type[GPO_AGG_MAX_REQS];
	uint64		off_keys;
	uint64		off_keys_valid; /* 0: no NULL key */
	uint64		off_vals[GPO_AGG_MAX_REQS];
	uint64		off_vals_valid[GPO_AGG_MAX_REQS];	/* 0: no NULL value */
	uint64		off_out[GPO_AGG_MAX_REQS][GPUOPS_SVC_NOUT];	/* 0: not wanted */
	/* CACHED: the ranges, the WHERE program, the key and the values */
	int32		nsets;
	uint64		off_sets;		/* [nsets] GpuopsServiceRangeKey */
	int32		nnodes;
	uint64		off_prog;		/* [nnodes] gpo_pred */
	int32		key_col;		/* -1: no key */
	int32		val_col[GPO_AGG_MAX_REQS];	/* -1: rows only */
	uint32		aggs[GPO_AGG_MAX_REQS];
	int32		nexprs;			/* computed columns (gpo_resident_expr) */
	uint64		off_exprs;		/* [nexprs] GpuopsSvcExpr */
	int32		nkeys;			/* several keys, packed; 0: key_col */
	int32		key_cols[GPO_RESIDENT_MAX_KEYS];
	int32		ndims;			/* a star join's dimensions */
	uint64		off_dims;		/* [ndims] GpuopsSvcDim */
	int32		ndimcols;
	uint64		off_dimcols;	/* [ndimcols] GpuopsSvcDimcol */
	/* LOAD: the range and its columns (nrows rows) */
	GpuopsServiceRangeKey load_key;
	int32		ncols;
	int32		col_type[GPO_RESIDENT_MAX_COLS];
	uint64		off_cols[GPO_RESIDENT_MAX_COLS];
	uint64		off_cols_valid[GPO_RESIDENT_MAX_COLS];	/* 0: no NULL */
	/* out */
	int32		status;			/* gpo_status */
	int32		strategy_used;
	int32		face_used;		/* gpo_device */
	int32		lost;			/* the service stopped while running it */
	int64		ngroups;
	int32		xerr;			/* CACHED: a computed column's gpo_xerr */
	int64		key_lo[GPO_RESIDENT_MAX_KEYS];	/* CACHED: how the keys */
	int64		key_width[GPO_RESIDENT_MAX_KEYS];	/* were packed */
	double		device_ms;		/* the engine call, in the service */
	char		detail[256];
} GpuopsSvcAggReq;

/* A CACHED request's dimension (gpo_resident_dim): its row map at off_row_of. */
typedef struct GpuopsSvcDim
{
	int32		key_col;
	int32		kind;			/* gpo_resident_join */
	int64		lo;
	int64		span;
	int64		rows;
	uint64		off_row_of;		/* [span] int32 */
} GpuopsSvcDim;

/* A CACHED request's dimension column (gpo_resident_dimcol). */
typedef struct GpuopsSvcDimcol
{
	int32		dim;
	int32		type;			/* gpo_type */
	int32		bounded;
	int64		lo;
	int64		hi;
	uint64		off_data;		/* [the dimension's rows] */
	uint64		off_valid;		/* [rows] bytes; 0: every value valid */
} GpuopsSvcDimcol;

/* A CACHED request's computed column: its program at off_prog. */
typedef struct GpuopsSvcExpr
{
	int32		nnodes;
	int32		type;			/* gpo_type */
	int32		out_double;
	uint64		off_prog;		/* [nnodes] gpo_xnode */
} GpuopsSvcExpr;

/*
 * One entry of a service's directory of kept ranges, written by its
 * executor alone (a sequence lock: version is odd while it rewrites the
 * entry) and read by backends without a lock, as a hint: the executor
 * checks a CACHED request's ranges again against what it holds.
 */
typedef struct GpuopsSvcResEntry
{
	pg_atomic_uint32 version;
	bool		used;
	GpuopsServiceRangeKey key;
	uint64		generation;		/* the executor's that keeps it */
	int64		bytes;
} GpuopsSvcResEntry;

/* One request's place. */
typedef struct GpuopsSvcSlot
{
	pg_atomic_uint32 state;
	pg_atomic_uint32 abandoned;
	uint64		ticket;			/* the owner's request number; 0 when free */
	uint64		seq;			/* submission order (fairness) */
	int			owner_pid;
	Latch	   *owner_latch;
	Size		off;			/* the arena range (under the lock) */
	Size		len;
} GpuopsSvcSlot;

/* One service's control block (one service per GPU). */
typedef struct GpuopsSvcShared
{
	int			index;			/* the service's number: its device, of
								 * those CUDA sees */
	slock_t		lock;			/* slots' claims and arena ranges, counters */
	pg_atomic_uint32 state;		/* GpuopsSvcState */
	pg_atomic_uint64 generation;	/* bumped at each start of the executor */
	int			pid;			/* the executor's, 0 when not running */
	Latch	   *latch;			/* the supervisor's, NULL when not running */
	sem_t		work;			/* posted when a request is queued */
	/* published by the supervisor for the executor (which reads no GUCs) */
	pg_atomic_uint32 memory_limit_mb;	/* gpuops.gpu_memory_limit */
	pg_atomic_uint32 delay_ms;	/* gpuops.debug_gpu_service_delay */
	pg_atomic_uint32 cache_limit_mb;	/* gpuops.cache_memory_limit */
	int			streams;		/* gpuops.gpu_service_streams (set at start) */
	/* written by the executor, which takes no lock */
	pg_atomic_uint64 served;
	pg_atomic_uint64 device_held;	/* the pool's bytes after the last request */
	pg_atomic_uint64 device_peak;	/* the most the pool held */
	pg_atomic_uint64 running;	/* requests being run now */
	pg_atomic_uint64 running_peak;	/* the most run at once */
	pg_atomic_uint64 resident_bytes;	/* kept ranges' device bytes */
	pg_atomic_uint64 resident_sets;	/* ranges kept */
	pg_atomic_uint64 resident_evictions;	/* ranges dropped for others */
	pg_atomic_uint64 resident_served;	/* CACHED requests answered */
	bool		pinned;			/* the arena is page-locked */
	char		device_name[128];
	uint64		next_ticket;
	uint64		next_seq;
	/* counters, under the lock */
	int64		abandoned;
	int64		lost;			/* requests dropped by a service restart */
	int64		no_room;		/* requests that found no room at once */
	Size		arena_used;
	Size		arena_peak;
	Size		arena_size;
	GpuopsSvcSlot slots[GPUOPS_SVC_SLOTS];
	GpuopsSvcResEntry resident[GPUOPS_SVC_RESIDENT_MAX];
} GpuopsSvcShared;

/* Most services (GPUs) one server runs. */
#define GPUOPS_SVC_MAX			16

/* Every service's control block, and what they share. */
typedef struct GpuopsSvcSet
{
	int			nservices;
	pg_atomic_uint32 next_pick;	/* the placement's round-robin counter */
	ConditionVariable room_cv;	/* broadcast when a slot of any service
								 * frees up or a service's state changes */
	GpuopsSvcShared svc[FLEXIBLE_ARRAY_MEMBER];
} GpuopsSvcSet;

extern GpuopsSvcSet *gpuops_svc_set;
/*
 * The services' staging arenas, one after the other (main shared memory:
 * the same address in every process).
 */
extern char *gpuops_svc_arenas;

/* Service i's control block. */
static inline GpuopsSvcShared *
gpuops_svc_at(int i)
{
	return &gpuops_svc_set->svc[i];
}

/* svc's staging arena. */
static inline char *
gpuops_svc_arena(const GpuopsSvcShared *svc)
{
	return gpuops_svc_arenas + (Size) svc->index * svc->arena_size;
}

/* Whether svc takes requests now (on the GPU, or the CPU for tests). */
static inline bool
gpuops_svc_serving(GpuopsSvcShared *svc)
{
	uint32		st = pg_atomic_read_u32(&svc->state);

	return st == GPUOPS_SVC_READY || st == GPUOPS_SVC_READY_CPU;
}

/* The executor of svc, in the child its supervisor forked; never returns. */
extern void gpuops_svc_exec_main(GpuopsSvcShared *svc,
								 pid_t supervisor) pg_attribute_noreturn();
/*
 * Publishes slot i's answer (written before): DONE, then the owner's latch,
 * or (its owner gave it up) the supervisor's, which frees it.  Lock-free.
 */
extern void gpuops_svc_answer(GpuopsSvcShared *svc, int i);

/* Claims a free slot of svc with len arena bytes; -1 when none fits. */
extern int	gpuops_svc_claim(GpuopsSvcShared *svc, Size len);
/*
 * Frees svc's slot i if it holds ticket in state from (its owner or the
 * service: one wins).
 */
extern bool gpuops_svc_release(GpuopsSvcShared *svc, int i, uint64 ticket,
							   uint32 from);
/*
 * A slot with bytes of arena room in the service the placement rule picks
 * (*svc; service only when only >= 0): at once, or (wait) once room frees
 * up or a service is back; -1 with *why and detail set when none is had
 * (service_place.c).
 */
extern int	gpuops_svc_place(Size bytes, int only, bool wait,
							 GpuopsSvcShared **svc,
							 gpo_status *why, char *detail, size_t len);
/* Milliseconds since start. */
extern double gpuops_svc_since(instr_time start);
/* Requests svc holds (slots FILLING, QUEUED, RUNNING), read without lock. */
extern int	gpuops_svc_load(GpuopsSvcShared *svc);
/* Services to run: GPUs counted without CUDA, or gpuops.debug_gpu_count. */
extern int	gpuops_svc_count_gpus(void);
/* Size of one element of output array f (of gpo_agg_out). */
extern size_t gpuops_svc_out_elem(int f, gpo_type key_type, gpo_type val_type);
/* Size of one element of request req's output array f of value column v. */
extern size_t gpuops_svc_req_elem(const GpuopsSvcAggReq *req, int v, int f);
/* The address of array f of outs (as a void ** into the struct). */
extern void **gpuops_svc_out_field(gpo_agg_out *out, int f);

/* ---- service_client.c: a request's life on the backend's side ---- */
/*
 * Claims room for a request of bytes (see gpuops_svc_place), tied to the
 * current memory context and to this backend's exit; NULL with *why set
 * when none is had.  The caller fills the range, then queues it.
 */
extern GpuopsServiceCall *gpuops_svc_call_begin(Size bytes, int only,
												bool wait,
												gpo_status *why, char *detail,
												size_t len);
/* The arena range of call. */
extern char *gpuops_svc_call_base(GpuopsServiceCall *call);
/* Sets where call's results go (nouts outputs). */
extern void gpuops_svc_call_outputs(GpuopsServiceCall *call, gpo_agg_out *outs,
									int nouts, double copy_ms);
/* Queues call's filled request and wakes the executor. */
extern void gpuops_svc_call_queue(GpuopsServiceCall *call);
/* The service that has call. */
extern GpuopsSvcShared *gpuops_svc_call_service(GpuopsServiceCall *call);
/* Bytes of n values of size sz, rounded up to the arena's alignment. */
extern Size gpuops_svc_span(int64 n, size_t sz);
/*
 * Places column v of nrows rows in a request's range at at: its values at
 * *off, and its NULL bits at *off_valid when it has a bitmap (else 0);
 * returns the end.
 */
extern Size gpuops_svc_layout_column(const gpo_vector *v, int64 nrows, Size at,
									 uint64 *off, uint64 *off_valid);
/* Copies vector v into one column at data (and its NULLs into valid, if any). */
extern void gpuops_svc_flatten(const gpo_vector *v, char *data, uint8 *valid);
/* Lays out the output arrays of req's nouts outputs from at; returns the end. */
extern Size gpuops_svc_layout_outs(GpuopsSvcAggReq *req, gpo_agg_out *outs,
								   int nouts, Size at);

/* ---- service_resident.c: the executor's kept ranges ---- */
/* Forgets every kept range (a new executor starts with none). */
extern void gpuops_svc_res_reset(GpuopsSvcShared *svc);
/* Runs a LOAD request (in the arena at base) on the executor's face. */
extern void gpuops_svc_run_load(GpuopsSvcShared *svc, GpuopsSvcAggReq *req,
								char *base, bool on_gpu);
/* Runs a CACHED request over the kept ranges it names. */
extern void gpuops_svc_run_cached(GpuopsSvcShared *svc, GpuopsSvcAggReq *req,
								  char *base);
/*
 * Runs a FORGET request: drops the ranges it keeps of load_key's table
 * (dbid, relid; relid InvalidOid: every table of dbid) but those of
 * load_key's serial and relnode (the table's copy as it is cached now).
 */
extern void gpuops_svc_run_forget(GpuopsSvcShared *svc, GpuopsSvcAggReq *req);

#endif							/* GPUOPS_SERVICE_INT_H */
