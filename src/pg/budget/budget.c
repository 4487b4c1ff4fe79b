/*
 * budget.c
 *	  The core budget shared by every session: a counter in shared memory of
 *	  the engine threads (and worker processes, one thread each) in use,
 *	  capped by gpuops.max_threads.
 *
 * A query takes its share when it starts (gpuops_budget_acquire): what it
 * wants, at most what is free, and at least one thread, its backend's own,
 * which runs anyway (so the count may pass the cap when every core is
 * taken).  The share is given back explicitly at the end, by a reset
 * callback of the memory context it was taken in (an ERROR or a cancel
 * deletes that context) and, for a backend that exits, by a
 * before_shmem_exit callback.  A backend killed with SIGKILL makes the
 * postmaster reinitialize shared memory, counter included.
 *
 * A backend holds one share at a time: a nested acquire (a query that a
 * gpuops function runs through SPI, say) gets nothing more and runs within
 * the share already held.  While a share is held, the engine's teams are
 * capped at it (gpo_thread_limit).
 *
 * A share also holds its query's GPU seat, if it got one (gpu_seats.c):
 * taken before the threads, given back with them.
 *
 * The counter exists only when gpuops is in shared_preload_libraries;
 * otherwise every query sizes itself as gpuops.threads says and EXPLAIN
 * ANALYZE says there is no budget.
 */
#include "budget/gpuops_budget.h"
#include "service/gpuops_service.h"

#include <limits.h>

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gpuops_budget_sql);

/* The shared counter. */
typedef struct GpuopsBudgetShared
{
	pg_atomic_uint32 in_use;	/* engine threads of every session */
} GpuopsBudgetShared;

/* A share taken by gpuops_budget_acquire. */
struct GpuopsBudgetLease
{
	uint32		units;			/* threads held; 0 once given back */
	GpuopsSeatState seat;		/* the GPU seat of the last acquire */
	bool		seat_owned;		/* that seat is still this lease's */
	double		seat_wait_ms;	/* time it waited for that seat */
	MemoryContextCallback cb;
};

int			gpuops_max_threads = 0;

static GpuopsBudgetShared *budget = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* This backend's share (NULL: none) and whether the exit callback is set. */
static GpuopsBudgetLease *held = NULL;
static bool exit_callback_set = false;

/* Asks for the counter's shared memory, the GPU seats' and the GPU service's. */
static void
gpuops_budget_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(GpuopsBudgetShared)) +
						   gpuops_seats_shmem_size());
	RequestAddinShmemSpace(gpuops_service_shmem_size());
}

/* Creates (or attaches to) the counter, the GPU seats and the GPU service's memory. */
static void
gpuops_budget_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	budget = ShmemInitStruct("gpuops core budget", sizeof(GpuopsBudgetShared),
							 &found);
	if (!found)
		pg_atomic_init_u32(&budget->in_use, 0);
	gpuops_seats_shmem_attach();
	gpuops_service_shmem_attach();
	LWLockRelease(AddinShmemInitLock);
}

/* Defines gpuops.max_threads and, when preloaded, installs the shared memory hooks. */
void
gpuops_budget_init(void)
{
	DefineCustomIntVariable("gpuops.max_threads",
							"Engine threads that all sessions together may use; 0 or -1 means one per core.",
							"Each query takes what is free when it starts, at least one thread, "
							"and gives it back when it ends; worker processes count one thread "
							"each.  Only when gpuops is in shared_preload_libraries.",
							&gpuops_max_threads,
							0,
							-1, 65536,
							PGC_SIGHUP,
							0,
							NULL, NULL, NULL);
	gpuops_seats_init();
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = gpuops_budget_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = gpuops_budget_shmem_startup;
}

/* Whether there is a shared budget (gpuops was preloaded). */
bool
gpuops_budget_active(void)
{
	return budget != NULL;
}

/* The cap: gpuops.max_threads, or the cores when it is 0 or -1. */
int
gpuops_budget_max(void)
{
	return gpuops_max_threads > 0 ? gpuops_max_threads : gpo_cores();
}

/* Threads of this backend's share, 0 when it holds none. */
int
gpuops_budget_held(void)
{
	return held != NULL ? (int) held->units : 0;
}

/* Gives n threads of l back to the counter. */
static void
gpuops_budget_put(GpuopsBudgetLease *l, uint32 n)
{
	if (n > l->units)
		n = l->units;
	if (n == 0)
		return;
	l->units -= n;
	pg_atomic_sub_fetch_u32(&budget->in_use, n);
	if (held == l)
		gpo_thread_limit = (int) l->units;
	if (l->units == 0 && held == l)
		held = NULL;
}

/* Gives l's GPU seat back, once (l->seat stays, for EXPLAIN). */
static void
gpuops_budget_give_seat(GpuopsBudgetLease *l)
{
	if (!l->seat_owned)
		return;
	l->seat_owned = false;
	gpuops_seats_give();
}

/* Reset callback of the lease's memory context: gives back what is left. */
static void
gpuops_budget_reset_callback(void *arg)
{
	GpuopsBudgetLease *l = (GpuopsBudgetLease *) arg;

	gpuops_budget_put(l, l->units);
	gpuops_budget_give_seat(l);
	if (held == l)
	{
		held = NULL;
		gpo_thread_limit = 0;
	}
}

/* A dying backend gives its share back. */
static void
gpuops_budget_exit_callback(int code, Datum arg)
{
	GpuopsBudgetLease *l = held;

	/* gpuops_budget_put clears held when the share is all given back */
	if (l != NULL && budget != NULL)
	{
		gpuops_budget_put(l, l->units);
		gpuops_budget_give_seat(l);
	}
	held = NULL;
	gpo_thread_limit = 0;
}

/* Takes up to want threads from the counter, at least one. */
static uint32
gpuops_budget_take(uint32 want)
{
	uint32		max = (uint32) gpuops_budget_max();
	uint32		cur = pg_atomic_read_u32(&budget->in_use);

	for (;;)
	{
		uint32		avail = cur < max ? max - cur : 0;
		uint32		got = Max(1, Min(want, avail));

		if (pg_atomic_compare_exchange_u32(&budget->in_use, &cur, cur + got))
			return got;
	}
}

/*
 * Takes l's GPU seat (gpu_seats.c) first, so that a query waiting for one
 * holds no threads: only when the query may use a GPU that answers; under
 * gpuops.device = gpu it waits for the seat, under auto it goes without.
 */
static void
gpuops_budget_take_seat(GpuopsBudgetLease *l)
{
	l->seat = GPUOPS_SEAT_NONE;
	l->seat_owned = false;
	l->seat_wait_ms = 0;
	if (gpuops_device == GPO_DEVICE_CPU || gpuops_seats_in_use() < 0 ||
		(!gpuops_debug_gpu_seats && !gpuops_gpu_usable()))
		return;
	l->seat_owned = gpuops_seats_take(gpuops_device == GPO_DEVICE_GPU,
									  &l->seat_wait_ms);
	l->seat = l->seat_owned ? GPUOPS_SEAT_HELD : GPUOPS_SEAT_DENIED;
}

/*
 * Takes this query's share: up to want threads (at least one), held until
 * gpuops_budget_release or until CurrentMemoryContext is reset or deleted.
 * *lease is NULL the first time, or a lease given back before, which is
 * used again (a rescan).  Returns the threads granted, or 0 when nothing
 * was taken (no shared budget, or this backend already holds a share,
 * which then bounds it).
 */
int
gpuops_budget_acquire(int want, GpuopsBudgetLease **lease)
{
	GpuopsBudgetLease *l = *lease;

	if (budget == NULL || held != NULL || (l != NULL && l->units > 0))
		return 0;
	if (!exit_callback_set)
	{
		before_shmem_exit(gpuops_budget_exit_callback, (Datum) 0);
		exit_callback_set = true;
	}
	if (l == NULL)
	{
		l = MemoryContextAllocZero(CurrentMemoryContext, sizeof(GpuopsBudgetLease));
		l->cb.func = gpuops_budget_reset_callback;
		l->cb.arg = l;
		MemoryContextRegisterResetCallback(CurrentMemoryContext, &l->cb);
		*lease = l;
	}
	gpuops_budget_take_seat(l);
	l->units = gpuops_budget_take((uint32) Max(want, 1));
	held = l;
	gpo_thread_limit = (int) l->units;
	return (int) l->units;
}

/* Keeps threads of the share (at least one) and gives the rest back. */
void
gpuops_budget_trim(GpuopsBudgetLease *lease, int threads)
{
	if (lease != NULL && threads >= 1 && (uint32) threads < lease->units)
		gpuops_budget_put(lease, lease->units - (uint32) threads);
}

/* Gives the whole share back (nothing if lease is NULL or already given). */
void
gpuops_budget_release(GpuopsBudgetLease *lease)
{
	if (lease != NULL)
	{
		gpuops_budget_put(lease, lease->units);
		gpuops_budget_give_seat(lease);
	}
	if (lease != NULL && held == lease)
	{
		held = NULL;
		gpo_thread_limit = 0;
	}
}

/* Whether this backend's share found no GPU seat free: its query runs on the CPU. */
bool
gpuops_budget_cpu_only(void)
{
	return held != NULL && held->seat == GPUOPS_SEAT_DENIED;
}

/* The GPU seat of lease's last acquire and the time it waited for it (EXPLAIN). */
GpuopsSeatState
gpuops_budget_seat(const GpuopsBudgetLease *lease, double *wait_ms)
{
	*wait_ms = lease != NULL ? lease->seat_wait_ms : 0;
	return lease != NULL ? lease->seat : GPUOPS_SEAT_NONE;
}

/* gpuops.budget(): the cap, the threads in use, this backend's share, the GPU seats. */
Datum
gpuops_budget_sql(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[6];
	bool		nulls[6] = {false, false, false, false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = BoolGetDatum(budget != NULL);
	values[1] = Int32GetDatum(gpuops_budget_max());
	if (budget != NULL)
		values[2] = Int32GetDatum((int32) pg_atomic_read_u32(&budget->in_use));
	else
		nulls[2] = true;
	values[3] = Int32GetDatum(gpuops_budget_held());
	values[4] = Int32GetDatum(gpuops_max_gpu_queries);
	if (gpuops_seats_in_use() >= 0)
		values[5] = Int32GetDatum(gpuops_seats_in_use());
	else
		nulls[5] = true;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
