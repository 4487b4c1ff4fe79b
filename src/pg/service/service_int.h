/*
 * service_int.h
 *	  The GPU service's shared memory, shared by its three files:
 *	  service_shmem.c (the control block, the slots and the staging arena),
 *	  service_main.c (the background worker) and service_client.c (the
 *	  backends' side).
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

#include "port/atomics.h"
#include "storage/condition_variable.h"
#include "storage/latch.h"
#include "storage/spin.h"

#define GPUOPS_SVC_SLOTS		128
/* Alignment of every array in a request's range (device copies like it). */
#define GPUOPS_SVC_ALIGN		64

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

/* One request for gpo_groupagg_many, at the start of its arena range. */
typedef struct GpuopsSvcAggReq
{
	/* in */
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
	/* out */
	int32		status;			/* gpo_status */
	int32		strategy_used;
	int32		face_used;		/* gpo_device */
	int32		lost;			/* the service stopped while running it */
	int64		ngroups;
	double		device_ms;		/* the engine call, in the service */
	char		detail[256];
} GpuopsSvcAggReq;

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

/* The service's control block. */
typedef struct GpuopsSvcShared
{
	slock_t		lock;			/* slots' claims and arena ranges, counters */
	pg_atomic_uint32 state;		/* GpuopsSvcState */
	pg_atomic_uint64 generation;	/* bumped at each start of the executor */
	int			pid;			/* the executor's, 0 when not running */
	Latch	   *latch;			/* the supervisor's, NULL when not running */
	sem_t		work;			/* posted when a request is queued */
	/* published by the supervisor for the executor (which reads no GUCs) */
	pg_atomic_uint32 memory_limit_mb;	/* gpuops.gpu_memory_limit */
	pg_atomic_uint32 delay_ms;	/* gpuops.debug_gpu_service_delay */
	/* written by the executor, which takes no lock */
	pg_atomic_uint64 served;
	pg_atomic_uint64 device_held;	/* the pool's bytes after the last request */
	pg_atomic_uint64 device_peak;	/* the most the pool held */
	ConditionVariable room_cv;	/* broadcast when a slot frees up or the
								 * service's state changes */
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
} GpuopsSvcShared;

extern GpuopsSvcShared *gpuops_svc;
/* The staging arena (main shared memory: the same address in every process). */
extern char *gpuops_svc_arena;

/* The executor's body, in the child the supervisor forked; never returns. */
extern void gpuops_svc_exec_main(pid_t supervisor) pg_attribute_noreturn();
/*
 * Publishes slot i's answer (written before): DONE, then the owner's latch,
 * or (its owner gave it up) the supervisor's, which frees it.  Lock-free.
 */
extern void gpuops_svc_answer(int i);

/* Claims a free slot with a range of len arena bytes; -1 when none fits. */
extern int	gpuops_svc_claim(Size len);
/* Frees slot i if it holds ticket in state from (its owner or the service: one wins). */
extern bool gpuops_svc_release(int i, uint64 ticket, uint32 from);
/* Size of one element of output array f (of gpo_agg_out). */
extern size_t gpuops_svc_out_elem(int f, gpo_type key_type, gpo_type val_type);
/* Size of one element of request req's output array f of value column v. */
extern size_t gpuops_svc_req_elem(const GpuopsSvcAggReq *req, int v, int f);
/* The address of array f of outs (as a void ** into the struct). */
extern void **gpuops_svc_out_field(gpo_agg_out *out, int f);

#endif							/* GPUOPS_SERVICE_INT_H */
