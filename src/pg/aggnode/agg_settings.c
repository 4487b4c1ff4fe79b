/*
 * agg_settings.c
 *	  The settings of the GpuOpsAgg node: whether the planner offers it, its
 *	  costs, its batches' overlap and page-locking, running groups, worker
 *	  processes and the memory its groups may take.
 */
#include "aggnode/gpuops_agg.h"

#include <float.h>
#include <limits.h>

#include "utils/guc.h"

/* gpuops.overlap values */
static const struct config_enum_entry gpuops_overlap_options[] = {
	{"auto", GPUOPS_OVERLAP_AUTO, false},
	{"on", GPUOPS_OVERLAP_ON, false},
	{"off", GPUOPS_OVERLAP_OFF, false},
	{NULL, 0, false}
};

bool		gpuops_enabled = true;
int			gpuops_overlap = GPUOPS_OVERLAP_AUTO;
bool		gpuops_pinned_batches = true;
bool		gpuops_running_groups = true;
int			gpuops_parallel_workers = -1;
bool		gpuops_debug_worker_sweep = false;
/*
 * 400: bench/small_tables.sh with gpuops.device = gpu on the H100 machine
 * (bench/RESULTS.md), the node forced against native: 0.90-1.11x at 1,000
 * to 4,000 rows in new sessions, 0.92-1.51x at 16,000 and 1.44-2.42x from
 * 62,500 on; the node's cost at setup 0 was 256-308 below native's at
 * 16,000 rows and over 1,000 below from 62,500, so 400 keeps the native
 * plan up to about 16,000 rows.  (5000 before the GPU service, when every
 * backend started a CUDA context of its own; it kept the GPU face off
 * Citus's 312,000-row shards, where it then ran 1.4-2.8x faster.)
 */
double		gpuops_gpu_setup_cost = 400.0;
double		gpuops_gpu_row_cost = 0.0005;
/*
 * 250: bench/small_tables.sh on 2 cores (bench/RESULTS.md), the node forced
 * against native by table size, warm sessions and new ones (a connection a
 * query): warm, the node was faster from 4,000 rows; in a new session, whose
 * first node query pays about 0.5 ms more, from 16,000 to 62,500 rows.  At
 * 250 every query shape there keeps its native plan at 16,000 rows and takes
 * the node at 62,500 (a Citus shard of 2M rows in 32); at 1000 three of the
 * four kept native plans at 62,500 rows, where they were 1.3-5.3x faster on
 * the node.
 */
double		gpuops_cpu_setup_cost = 250.0;
double		gpuops_cpu_row_cost = 0.002;
int			gpuops_max_group_memory = 1024 * 1024;	/* kB */
int			gpuops_max_join_memory = 256 * 1024;	/* kB */

/* Defines the node's settings. */
void
gpuops_agg_settings_init(void)
{
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

	DefineCustomBoolVariable("gpuops.debug_worker_sweep",
							 "GpuOpsAgg's backend merges its workers' groups once every worker still reading sent a piece, for tests.",
							 "Off (the default), the backend merges the pieces of whichever "
							 "workers have one as they come; on, it waits for a piece of each "
							 "worker still reading, so that the tests merge several workers' "
							 "pieces and strings at once.  Slow: for testing only.",
							 &gpuops_debug_worker_sweep,
							 false,
							 PGC_USERSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("gpuops.gpu_setup_cost",
							 "Planner's cost of starting a GpuOpsAgg scan on the GPU.",
							 NULL,
							 &gpuops_gpu_setup_cost,
							 400.0,
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
							 250.0,
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

	DefineCustomIntVariable("gpuops.max_join_memory",
							"Most memory the dimensions of a star join under GpuOpsAgg may take.",
							"The planner keeps the native plan when the joined tables' estimated rows pass it; 0 keeps every join native.",
							&gpuops_max_join_memory,
							256 * 1024,
							0, INT_MAX,
							PGC_USERSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);
}
