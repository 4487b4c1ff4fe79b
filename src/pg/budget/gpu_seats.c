/*
 * gpu_seats.c
 *	  The GPU's seats, shared by every session: a counter in shared memory of
 *	  the queries running on the GPU face, capped by gpuops.max_gpu_queries.
 *
 * Each backend that uses the GPU has its own CUDA context: with 64 sessions
 * on it at once throughput fell below native's (bench/concurrency.sh,
 * bench/RESULTS.md 2026-12-02).  A cap of 4 did not lift it (3.1-3.2 tps at
 * 64 clients either way, and 16 clients on the GPU face fell from 36 to 16
 * tps), so the default is no cap: the seats are counted, and a DBA may cap
 * them.  The GPU service (one context for every session) is the fix this
 * admission is meant to serve.  A query takes a seat when its share
 * of the core budget is taken (budget.c) and gives it back with that share.
 * Under gpuops.device = auto a query that finds no seat free runs on the
 * CPU face; under gpu it waits for one (on a condition variable: a cancel or
 * statement_timeout ends the wait).
 *
 * The seat is the lease's (budget.c), which gives it back at the end of its
 * query, on ERROR and cancel (the lease's memory context goes) and when the
 * backend exits; this file keeps no state of its own in the backend.  A
 * SIGKILLed backend makes the postmaster reinitialize shared memory, counter
 * included.  The seats exist only when gpuops is in shared_preload_libraries
 * (budget.c's shared memory hooks place them).
 */
#include "budget/gpuops_budget.h"

#include "pgstat.h"
#include "port/atomics.h"
#include "portability/instr_time.h"
#include "storage/condition_variable.h"
#include "storage/shmem.h"
#include "utils/guc.h"

/* The shared counter and the waiters' condition variable. */
typedef struct GpuopsSeatsShared
{
	pg_atomic_uint32 in_use;	/* seats taken by every session */
	ConditionVariable freed;	/* signalled when a seat comes back */
} GpuopsSeatsShared;

int			gpuops_max_gpu_queries = 0;
bool		gpuops_debug_gpu_seats = false;

static GpuopsSeatsShared *seats = NULL;

/* Shared memory the seats need (budget.c asks for it). */
Size
gpuops_seats_shmem_size(void)
{
	return MAXALIGN(sizeof(GpuopsSeatsShared));
}

/* Creates (or attaches to) the counter; budget.c calls it holding AddinShmemInitLock. */
void
gpuops_seats_shmem_attach(void)
{
	bool		found;

	seats = ShmemInitStruct("gpuops GPU seats", sizeof(GpuopsSeatsShared),
							&found);
	if (!found)
	{
		pg_atomic_init_u32(&seats->in_use, 0);
		ConditionVariableInit(&seats->freed);
	}
}

/* Defines gpuops.max_gpu_queries and gpuops.debug_gpu_seats. */
void
gpuops_seats_init(void)
{
	DefineCustomIntVariable("gpuops.max_gpu_queries",
							"Queries of all sessions that may run on the GPU at once; 0 means no limit.",
							"Under gpuops.device = auto a query that finds none free runs "
							"on the CPU; under gpu it waits for one.  Only when gpuops is "
							"in shared_preload_libraries.",
							&gpuops_max_gpu_queries,
							0,
							0, 1024,
							PGC_SIGHUP,
							0,
							NULL, NULL, NULL);
	DefineCustomBoolVariable("gpuops.debug_gpu_seats",
							 "Takes GPU seats where no GPU answers, for tests.",
							 "Lets a machine without a GPU test the seats: its queries "
							 "take them, wait for them and go without them as a GPU "
							 "machine's do, and then run on the CPU.",
							 &gpuops_debug_gpu_seats,
							 false,
							 PGC_SUSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);
}

/* Seats taken by every session now, -1 when there are no shared seats. */
int
gpuops_seats_in_use(void)
{
	return seats != NULL ? (int) pg_atomic_read_u32(&seats->in_use) : -1;
}

/* Takes a seat if one is free under the cap (0: no cap, the seats are only counted). */
static bool
gpuops_seats_try(void)
{
	uint32		max = gpuops_max_gpu_queries > 0 ?
		(uint32) gpuops_max_gpu_queries : PG_UINT32_MAX;
	uint32		cur = pg_atomic_read_u32(&seats->in_use);

	while (cur < max)
	{
		if (pg_atomic_compare_exchange_u32(&seats->in_use, &cur, cur + 1))
			return true;
	}
	return false;
}

/*
 * Takes a seat: at once if one is free; else, with wait, sleeps until one
 * comes back (adding the wait to *waited_ms).  Returns whether it took one;
 * the caller gives it back once.  Without shared seats: false.
 */
bool
gpuops_seats_take(bool wait, double *waited_ms)
{
	instr_time	start;
	instr_time	now;
	bool		got;

	if (seats == NULL)
		return false;
	got = gpuops_seats_try();
	if (!got && wait)
	{
		INSTR_TIME_SET_CURRENT(start);
		ConditionVariablePrepareToSleep(&seats->freed);
		while (!(got = gpuops_seats_try()))
			ConditionVariableSleep(&seats->freed, PG_WAIT_EXTENSION);
		ConditionVariableCancelSleep();
		INSTR_TIME_SET_CURRENT(now);
		INSTR_TIME_SUBTRACT(now, start);
		*waited_ms += INSTR_TIME_GET_MILLISEC(now);
	}
	return got;
}

/* Gives a seat taken by gpuops_seats_take back and wakes the waiters. */
void
gpuops_seats_give(void)
{
	pg_atomic_sub_fetch_u32(&seats->in_use, 1);
	ConditionVariableBroadcast(&seats->freed);
}
