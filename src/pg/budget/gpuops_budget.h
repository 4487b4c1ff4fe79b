/*
 * gpuops_budget.h
 *	  The core budget shared by every session, the GPU's seats, and the
 *	  engine context a backend's calls run under (src/pg/budget).
 */
#ifndef GPUOPS_BUDGET_H
#define GPUOPS_BUDGET_H

#include "common/gpuops.h"

/* ---- engine_ctx.c ---- */

/* Fill an engine context from the current GUC settings. */
extern void gpuops_ctx_init(gpo_ctx *ctx);
/* gpuops.device, or cpu while this backend's query found no GPU seat free. */
extern gpo_device gpuops_device_now(void);

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

#endif							/* GPUOPS_BUDGET_H */
