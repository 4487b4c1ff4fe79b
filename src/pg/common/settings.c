/*
 * settings.c
 *	  The engine-wide settings (gpuops.device, gpu_min_rows, threads,
 *	  chunk_size, debug_chunk_size, agg_strategy, gpu_memory_limit) that
 *	  every feature's engine calls read.
 */
#include "common/gpuops.h"

#include <limits.h>

#include "utils/guc.h"

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

int			gpuops_device = GPO_DEVICE_AUTO;
int			gpuops_agg_strategy = GPO_AGG_AUTO;
int			gpuops_gpu_min_rows = 100000;
int			gpuops_threads = 0;
int			gpuops_chunk_size = 64 * 1024 * 1024;	/* effective */
static int	gpuops_chunk_size_setting = 64 * 1024 * 1024;
static int	gpuops_debug_chunk_size = 0;
int			gpuops_gpu_memory_limit = 0;	/* MB; 0: none */

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

/* Defines the engine-wide settings. */
void
gpuops_settings_init(void)
{
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
	DefineCustomIntVariable("gpuops.gpu_memory_limit",
							"Most device memory a process's GPU work may take; 0 means no limit but the device's.",
							"Bounds the memory pool of the GPU service (and of a backend that runs the SQL "
							"functions on the GPU), in use and cached; a batch that does not fit runs on the "
							"CPU under gpuops.device = auto and fails under gpu.  The CUDA context's own "
							"memory (about 0.5 GB) is not counted.",
							&gpuops_gpu_memory_limit,
							0,
							0, INT_MAX,
							PGC_SIGHUP,
							GUC_UNIT_MB,
							NULL, NULL, NULL);
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
