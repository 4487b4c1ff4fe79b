/*
 * gpuops.c
 *	  Module load, GUCs, and the engine context built from them.
 *
 * _PG_init may run in the postmaster (shared_preload_libraries): it only
 * defines GUCs.  It never touches CUDA and never starts threads; the engine
 * initializes both lazily in the backend that first needs them.
 */
#include "common/gpuops.h"
#include "aggnode/gpuops_agg.h"
#include "service/gpuops_service.h"

#include <limits.h>
#include <signal.h>

#include "fmgr.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "gpo_agg.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* gpuops.device values; the numbers are gpo_device's */
static const struct config_enum_entry gpuops_device_options[] = {
	{"auto", GPO_DEVICE_AUTO, false},
	{"gpu", GPO_DEVICE_GPU, false},
	{"cpu", GPO_DEVICE_CPU, false},
	{NULL, 0, false}
};

/* gpuops.agg_strategy values; the numbers are gpo_agg_strategy's */
static const struct config_enum_entry gpuops_agg_strategy_options[] = {
	{"auto", GPO_AGG_AUTO, false},
	{"dense", GPO_AGG_DENSE, false},
	{"hash", GPO_AGG_HASH, false},
	{"sort", GPO_AGG_SORT, false},
	{NULL, 0, false}
};

/* gpuops.overlap values */
static const struct config_enum_entry gpuops_overlap_options[] = {
	{"auto", GPUOPS_OVERLAP_AUTO, false},
	{"on", GPUOPS_OVERLAP_ON, false},
	{"off", GPUOPS_OVERLAP_OFF, false},
	{NULL, 0, false}
};

int			gpuops_device = GPO_DEVICE_AUTO;
int			gpuops_agg_strategy = GPO_AGG_AUTO;
int			gpuops_gpu_min_rows = 100000;
int			gpuops_threads = 0;
int			gpuops_chunk_size = 64 * 1024 * 1024;	/* effective */
static int	gpuops_chunk_size_setting = 64 * 1024 * 1024;
static int	gpuops_debug_chunk_size = 0;
bool		gpuops_enabled = true;
int			gpuops_overlap = GPUOPS_OVERLAP_AUTO;
bool		gpuops_pinned_batches = true;
bool		gpuops_pin_ahead = true;
int			gpuops_parallel_workers = -1;
double		gpuops_gpu_setup_cost = 5000.0;
double		gpuops_gpu_row_cost = 0.0005;
double		gpuops_cpu_setup_cost = 1000.0;
double		gpuops_cpu_row_cost = 0.002;
int			gpuops_max_group_memory = 1024 * 1024;	/* kB */

/* Smallest gpuops.chunk_size (bytes); gpuops.debug_chunk_size goes lower. */
#define GPUOPS_MIN_CHUNK_SIZE (1024 * 1024)

/* Smallest gpuops.debug_chunk_size other than 0 (off). */
#define GPUOPS_MIN_DEBUG_CHUNK_SIZE 16

/* The effective chunk size: the debug override if set, else the setting. */
static void
gpuops_update_chunk_size(void)
{
	gpuops_chunk_size = gpuops_debug_chunk_size > 0 ?
		gpuops_debug_chunk_size : gpuops_chunk_size_setting;
}

/* Assign hook of gpuops.chunk_size. */
static void
gpuops_assign_chunk_size(int newval, void *extra)
{
	gpuops_chunk_size_setting = newval;
	gpuops_update_chunk_size();
}

/* Check hook of gpuops.debug_chunk_size: 0, or at least 16 bytes. */
static bool
gpuops_check_debug_chunk_size(int *newval, void **extra, GucSource source)
{
	if (*newval != 0 && *newval < GPUOPS_MIN_DEBUG_CHUNK_SIZE)
	{
		GUC_check_errdetail("gpuops.debug_chunk_size must be 0 (off) or at least %d bytes.",
							GPUOPS_MIN_DEBUG_CHUNK_SIZE);
		return false;
	}
	return true;
}

/* Assign hook of gpuops.debug_chunk_size. */
static void
gpuops_assign_debug_chunk_size(int newval, void *extra)
{
	gpuops_debug_chunk_size = newval;
	gpuops_update_chunk_size();
}

/* Load the OpenMP runtime, define the gpuops.* GUCs and reserve their prefix. */
void
_PG_init(void)
{
	const char *why = gpuops_omp_load();

	if (why != NULL)
		ereport(WARNING,
				(errcode(ERRCODE_UNDEFINED_FILE),
				 errmsg("gpuops could not load the OpenMP runtime: its CPU face runs on one thread"),
				 errdetail("%s", why)));
	DefineCustomEnumVariable("gpuops.device",
							 "Which face runs gpuops primitives: auto, gpu or cpu.",
							 "auto takes the GPU when one is usable and the input has at "
							 "least gpuops.gpu_min_rows rows, else the CPU; gpu fails "
							 "when no GPU is usable.",
							 &gpuops_device,
							 GPO_DEVICE_AUTO,
							 gpuops_device_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpuops.gpu_min_rows",
							"Smallest input, in rows, that gpuops.device = auto sends to the GPU.",
							NULL,
							&gpuops_gpu_min_rows,
							100000,
							0, INT_MAX,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpuops.threads",
							"Threads the CPU face uses; 0 means one per core.",
							NULL,
							&gpuops_threads,
							0,
							0, 1024,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	/*
	 * At least 1 MB: the node's batches are at most this long and cost
	 * time per group each, so tiny chunks made a 60k-row, 2,000-group query
	 * 180 times slower (256 bytes: 182 ms, 1 MB: 0.9 ms) and a 280k-row,
	 * 140k-group one 18 times (4 kB: 2.7 s, 1 MB: 151 ms, 64 MB: 91 ms).
	 */
	DefineCustomIntVariable("gpuops.chunk_size",
							"Largest column chunk handed to the engine.",
							"Arrays are cut into zero-copy chunks of at most this many bytes; "
							"the functions over a query fill one buffer of this size per column.",
							&gpuops_chunk_size_setting,
							64 * 1024 * 1024,
							GPUOPS_MIN_CHUNK_SIZE, 1024 * 1024 * 1024,
							PGC_USERSET,
							GUC_UNIT_BYTE,
							NULL, gpuops_assign_chunk_size, NULL);

	DefineCustomIntVariable("gpuops.debug_chunk_size",
							"Overrides gpuops.chunk_size with smaller chunks, for tests.",
							"0 (the default) leaves gpuops.chunk_size in force; a value of "
							"16 bytes or more cuts every chunk to that size, so that small "
							"inputs cross chunk seams.  Slow: for testing only.",
							&gpuops_debug_chunk_size,
							0,
							0, 1024 * 1024 * 1024,
							PGC_USERSET,
							GUC_UNIT_BYTE | GUC_NOT_IN_SAMPLE,
							gpuops_check_debug_chunk_size,
							gpuops_assign_debug_chunk_size, NULL);

	DefineCustomEnumVariable("gpuops.agg_strategy",
							 "How gpuops group aggregation forms its groups: auto, dense, hash or sort.",
							 "auto chooses from the observed key range; dense applies only to "
							 "integer keys of a small range and otherwise means auto.  "
							 "Results do not depend on it.",
							 &gpuops_agg_strategy,
							 GPO_AGG_AUTO,
							 gpuops_agg_strategy_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuops.enabled",
							 "Lets the planner run eligible aggregate queries through GpuOpsAgg.",
							 "Off always gives the native plan.",
							 &gpuops_enabled,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("gpuops.overlap",
							 "When GpuOpsAgg reads the next batch while a helper thread aggregates one: auto, on or off.",
							 "auto (the default) overlaps when the GPU face aggregates (the "
							 "helper thread mostly waits for the device); on overlaps on either "
							 "face; off aggregates each batch in the backend, between reads.",
							 &gpuops_overlap,
							 GPUOPS_OVERLAP_AUTO,
							 gpuops_overlap_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuops.pinned_batches",
							 "Lets GpuOpsAgg page-lock its batch arrays for the GPU face.",
							 "The GPU face then copies each batch to the device directly "
							 "instead of through its pinned staging buffers.",
							 &gpuops_pinned_batches,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuops.running_groups",
							 "GpuOpsAgg keeps dense groups where the engine computes them from batch to batch.",
							 "On the GPU the groups then stay in device memory and come back "
							 "once; off merges every batch's groups into the node's.",
							 &gpuops_running_groups,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuops.pin_ahead",
							 "Lets GpuOpsAgg's reader pin the next page batch while its threads decode the current one.",
							 "Off, the backend pins each page batch and then the threads decode it, one after the other.",
							 &gpuops_pin_ahead,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpuops.parallel_workers",
							"Worker processes GpuOpsAgg reads a table with, beside the backend.",
							"-1 takes as many as PostgreSQL would give a parallel scan of the "
							"table, at most one a thread of gpuops.threads and none with fewer "
							"than 3 threads; another value asks for that many, at most "
							"max_parallel_workers_per_gather; 0 reads in the backend alone.",
							&gpuops_parallel_workers,
							-1, -1, 64,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomRealVariable("gpuops.gpu_setup_cost",
							 "Planner's cost of starting a GpuOpsAgg scan on the GPU.",
							 NULL,
							 &gpuops_gpu_setup_cost,
							 5000.0,
							 0.0, DBL_MAX,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("gpuops.gpu_row_cost",
							 "Planner's cost of one input row of a GpuOpsAgg scan on the GPU.",
							 NULL,
							 &gpuops_gpu_row_cost,
							 0.0005,
							 0.0, DBL_MAX,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("gpuops.cpu_setup_cost",
							 "Planner's cost of starting a GpuOpsAgg scan on the CPU cores.",
							 NULL,
							 &gpuops_cpu_setup_cost,
							 1000.0,
							 0.0, DBL_MAX,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("gpuops.cpu_row_cost",
							 "Planner's cost of one input row of a GpuOpsAgg scan on the CPU cores.",
							 NULL,
							 &gpuops_cpu_row_cost,
							 0.002,
							 0.0, DBL_MAX,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpuops.max_group_memory",
							"Most memory GpuOpsAgg's groups take; past it they spill to temporary files.",
							"The planner also keeps the native plan when the estimated groups pass it.",
							&gpuops_max_group_memory,
							1024 * 1024,
							64, INT_MAX,
							PGC_USERSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	gpuops_budget_init();
	gpuops_service_init();

	MarkGUCPrefixReserved("gpuops");
	gpuops_agg_register();
}

/* gpuops.device, or cpu while this backend's query found no GPU seat free (gpu_seats.c). */
gpo_device
gpuops_device_now(void)
{
	return gpuops_budget_cpu_only() ? GPO_DEVICE_CPU : (gpo_device) gpuops_device;
}

/*
 * Fill an engine context from the current GUC settings (the engine keeps
 * its teams within this backend's share of the core budget by itself).
 */
void
gpuops_ctx_init(gpo_ctx *ctx)
{
	gpo_ctx_init(ctx);
	ctx->device = gpuops_device_now();
	ctx->gpu_min_rows = gpuops_gpu_min_rows;
	ctx->threads = gpuops_threads;
}

/* Scratch for the second phase of an engine call, GPUOPS_SCRATCH_ALIGN aligned. */
void *
gpuops_alloc_scratch(size_t scratch_bytes)
{
	char	   *raw = palloc_extended(scratch_bytes + GPUOPS_SCRATCH_ALIGN,
									  MCXT_ALLOC_HUGE);

	return (void *) TYPEALIGN(GPUOPS_SCRATCH_ALIGN, raw);
}

/*
 * Starts fn(arg) on a helper thread with every signal blocked: PostgreSQL's
 * handlers must run in the backend's own thread, and the new thread (and
 * the OpenMP threads it may start) inherits this mask.
 */
bool
gpuops_thread_start(pthread_t *thread, void *(*fn) (void *), void *arg)
{
	sigset_t	all;
	sigset_t	old;
	int			rc;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(thread, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc == 0;
}

/* Name of the current gpuops.device setting. */
const char *
gpuops_device_name(void)
{
	const struct config_enum_entry *e;

	for (e = gpuops_device_options; e->name != NULL; e++)
	{
		if (e->val == gpuops_device)
			return e->name;
	}
	return "unknown";
}
