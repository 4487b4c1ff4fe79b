/*
 * service_shmem.c
 *	  The GPU services' settings, their registration as background workers
 *	  (one per GPU), and their shared memory: each one's control block,
 *	  request slots and the staging arena that requests are laid out in
 *	  (service_int.h).
 *
 * The service is registered only when gpuops is in shared_preload_libraries,
 * gpuops.gpu_service is on and the build has CUDA (or, for tests,
 * gpuops.debug_gpu_service is on: the service then serves on the CPU face,
 * so that a machine without a GPU tests the protocol, its cancels and its
 * restarts).  The postmaster registers it and places the shared memory; it
 * never calls CUDA: the service starts CUDA in its own process.  It counts
 * the GPUs without CUDA (service_count.c) and registers one service per GPU,
 * at least one (which reports NO_DEVICE where there is none).
 *
 * The arenas are a fixed part of the main shared memory, so they lie at the
 * same address in every process.  Each service has an arena of gpuops.
 * gpu_service_memory of its own, not a share of it: a batch must fit one
 * arena, and the aggregate node sizes its batches from one arena's size, so
 * a split would shrink every batch as GPUs are added (and a batch that fits
 * on a one-GPU server could fit nowhere on a larger one); the cost is that
 * much shared memory per GPU.
 * A request takes one contiguous range, first fit among the ranges of the
 * slots in use, chosen under the control block's spinlock; its slot's
 * release gives it back.
 */
#include "service/service_int.h"

#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "storage/shmem.h"
#include "utils/guc.h"

bool		gpuops_gpu_service = true;
int			gpuops_gpu_service_memory = 512;
/*
 * 1 until several streams are measured on a GPU machine (the lanes ran on
 * the CPU face only, test/service/multi.sh).
 */
int			gpuops_gpu_service_streams = 1;
bool		gpuops_debug_gpu_service = false;
int			gpuops_debug_gpu_service_delay = 0;
int			gpuops_debug_gpu_count = 0;

GpuopsSvcSet *gpuops_svc_set = NULL;
char	   *gpuops_svc_arenas = NULL;

/*
 * The services the postmaster registered, 0 when none (inherited by forks):
 * decided once, at preload.
 */
static int	service_count = 0;

/* Registers the background workers of n services (bgw_main_arg: the number). */
static void
gpuops_service_register(int n)
{
	BackgroundWorker worker;
	int			i;

	for (i = 0; i < n; i++)
	{
		memset(&worker, 0, sizeof(worker));
		worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
		worker.bgw_start_time = BgWorkerStart_PostmasterStart;
		worker.bgw_restart_time = 1;
		worker.bgw_main_arg = Int32GetDatum(i);
		snprintf(worker.bgw_library_name, BGW_MAXLEN, "gpuops");
		snprintf(worker.bgw_function_name, BGW_MAXLEN, "gpuops_service_main");
		if (n > 1)
			snprintf(worker.bgw_name, BGW_MAXLEN, "gpuops GPU service %d", i);
		else
			snprintf(worker.bgw_name, BGW_MAXLEN, "gpuops GPU service");
		snprintf(worker.bgw_type, BGW_MAXLEN, "gpuops GPU service");
		RegisterBackgroundWorker(&worker);
	}
	service_count = n;
}

/*
 * Defines the service's settings and, when preloaded, registers it.  The
 * server-start settings are PGC_POSTMASTER only while the library is
 * preloaded: PostgreSQL ends a session (FATAL) that defines one later, as
 * CREATE EXTENSION or LOAD does without the preload; then they are
 * PGC_INTERNAL, shown but fixed, since no service runs.
 */
void
gpuops_service_init(void)
{
	GucContext	start_only = process_shared_preload_libraries_in_progress ?
		PGC_POSTMASTER : PGC_INTERNAL;

	DefineCustomBoolVariable("gpuops.gpu_service",
							 "Runs the GPU face of every session in one GPU service process.",
							 "The service owns the only CUDA context, so sessions share one "
							 "GPU memory pool instead of creating a context each.  Only when "
							 "gpuops is in shared_preload_libraries and built with CUDA.",
							 &gpuops_gpu_service,
							 true,
							 start_only,
							 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("gpuops.gpu_service_memory",
							"Shared memory for the batches that sessions hand to the GPU service, per GPU.",
							"The service page-locks it once; a batch that finds no room waits "
							"(gpuops.device = gpu) or runs on the CPU (auto).",
							&gpuops_gpu_service_memory,
							512,
							16, 65536,
							start_only,
							GUC_UNIT_MB,
							NULL, NULL, NULL);
	DefineCustomIntVariable("gpuops.gpu_service_streams",
							"Requests each GPU service runs at once, each on a CUDA stream of its own.",
							"Requests run oldest first; while one copies its batch or its "
							"groups, another's kernels run.  A request that does not fit "
							"gpuops.gpu_memory_limit beside the others runs again alone.",
							&gpuops_gpu_service_streams,
							1,
							1, GPUOPS_SVC_MAX_STREAMS,
							start_only,
							0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("gpuops.cache_memory_limit",
							"Device memory per GPU that the GPU service gives to cached tables' ranges.",
							"Ranges of tables marked with gpuops.cache_table are kept on the "
							"device within it, the least recently used dropped first; "
							"queries over them send no column to the GPU.  0 keeps none.",
							&gpuops_cache_memory_limit,
							4096,
							0, 1048576,
							PGC_SIGHUP,
							GUC_UNIT_MB,
							NULL, NULL, NULL);
	DefineCustomBoolVariable("gpuops.debug_gpu_service",
							 "Runs the GPU service on the CPU face where there is no GPU, for tests.",
							 "Sessions then hand their GPU work to the service as they would "
							 "on a GPU machine, and the service runs it on the CPU.",
							 &gpuops_debug_gpu_service,
							 false,
							 start_only,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("gpuops.debug_gpu_service_delay",
							"Makes the GPU service wait this long before each request, for tests.",
							"Lets tests cancel, terminate or restart while a request is "
							"queued or running.",
							&gpuops_debug_gpu_service_delay,
							0,
							0, 600000,
							PGC_SIGHUP,
							GUC_UNIT_MS | GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);
	DefineCustomIntVariable("gpuops.debug_gpu_count",
							"Runs this many GPU services instead of one per GPU found, for tests.",
							"0 counts the GPUs (CUDA_VISIBLE_DEVICES, else the driver's "
							"/proc/driver/nvidia/gpus); with gpuops.debug_gpu_service, "
							"a machine without a GPU tests the placement over several services.",
							&gpuops_debug_gpu_count,
							0,
							0, GPUOPS_SVC_MAX,
							start_only,
							GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);
	if (process_shared_preload_libraries_in_progress && gpuops_gpu_service &&
		(gpo_gpu_compiled() || gpuops_debug_gpu_service))
		gpuops_service_register(gpuops_svc_count_gpus());
}

/* Bytes of one service's staging arena. */
static Size
gpuops_service_arena_size(void)
{
	return mul_size((Size) gpuops_gpu_service_memory, 1024 * 1024);
}

/* Shared memory the services need: none unless they are registered. */
Size
gpuops_service_shmem_size(void)
{
	if (service_count == 0)
		return 0;
	return add_size(MAXALIGN(offsetof(GpuopsSvcSet, svc) +
							 sizeof(GpuopsSvcShared) * service_count) +
					GPUOPS_SVC_ALIGN,
					mul_size(gpuops_service_arena_size(), service_count));
}

/* Sets up service i's control block, its arena being bytes long. */
static void
gpuops_service_shmem_init(GpuopsSvcShared *svc, int i, Size bytes)
{
	int			j;

	memset(svc, 0, sizeof(GpuopsSvcShared));
	svc->index = i;
	SpinLockInit(&svc->lock);
	pg_atomic_init_u32(&svc->state, GPUOPS_SVC_DOWN);
	pg_atomic_init_u64(&svc->generation, 0);
	pg_atomic_init_u32(&svc->memory_limit_mb, 0);
	pg_atomic_init_u32(&svc->delay_ms, 0);
	pg_atomic_init_u32(&svc->cache_limit_mb, 0);
	pg_atomic_init_u64(&svc->resident_bytes, 0);
	pg_atomic_init_u64(&svc->resident_sets, 0);
	pg_atomic_init_u64(&svc->resident_evictions, 0);
	pg_atomic_init_u64(&svc->resident_served, 0);
	for (j = 0; j < GPUOPS_SVC_RESIDENT_MAX; j++)
		pg_atomic_init_u32(&svc->resident[j].version, 0);
	pg_atomic_init_u64(&svc->served, 0);
	pg_atomic_init_u64(&svc->device_held, 0);
	pg_atomic_init_u64(&svc->device_peak, 0);
	pg_atomic_init_u64(&svc->running, 0);
	pg_atomic_init_u64(&svc->running_peak, 0);
	svc->streams = gpuops_gpu_service_streams;
	if (sem_init(&svc->work, 1, 0) != 0)
		elog(FATAL, "gpuops GPU service: could not create its semaphore: %m");
	svc->arena_size = bytes;
	svc->next_ticket = 1;
	for (j = 0; j < GPUOPS_SVC_SLOTS; j++)
	{
		pg_atomic_init_u32(&svc->slots[j].state, GPUOPS_SVC_FREE);
		pg_atomic_init_u32(&svc->slots[j].abandoned, 0);
	}
}

/* Creates or attaches to the control blocks and the arenas. */
void
gpuops_service_shmem_attach(void)
{
	bool		found;
	Size		bytes;
	int			i;

	if (service_count == 0)
		return;
	bytes = gpuops_service_arena_size();
	gpuops_svc_set = ShmemInitStruct("gpuops GPU service",
									 offsetof(GpuopsSvcSet, svc) +
									 sizeof(GpuopsSvcShared) * service_count,
									 &found);
	gpuops_svc_arenas = ShmemInitStruct("gpuops GPU service arena",
										bytes * service_count + GPUOPS_SVC_ALIGN,
										&found);
	gpuops_svc_arenas = (char *) TYPEALIGN(GPUOPS_SVC_ALIGN, gpuops_svc_arenas);
	if (found)
		return;
	gpuops_svc_set->nservices = service_count;
	pg_atomic_init_u32(&gpuops_svc_set->next_pick, 0);
	ConditionVariableInit(&gpuops_svc_set->room_cv);
	for (i = 0; i < service_count; i++)
		gpuops_service_shmem_init(gpuops_svc_at(i), i, bytes);
}

/* Whether this server runs the services (and they have their shared memory). */
bool
gpuops_service_configured(void)
{
	return service_count > 0 && gpuops_svc_set != NULL;
}

/* Bytes of one service's staging arena (0 without the service). */
double
gpuops_service_arena_bytes(void)
{
	return gpuops_service_configured() ?
		(double) gpuops_svc_at(0)->arena_size : 0.0;
}

/*
 * Whether the GPU face can be had: with the services, unless every one
 * found no GPU (while one starts, yes: a request waits or goes to the CPU);
 * without them, from this backend's own CUDA.
 */
bool
gpuops_gpu_usable(void)
{
	int			i;

	if (!gpuops_service_configured())
		return gpo_gpu_available();
	for (i = 0; i < gpuops_svc_set->nservices; i++)
		if (pg_atomic_read_u32(&gpuops_svc_at(i)->state) != GPUOPS_SVC_NO_DEVICE)
			return true;
	return false;
}

/* Requests svc holds (slots FILLING, QUEUED or RUNNING), read without the lock. */
int
gpuops_svc_load(GpuopsSvcShared *svc)
{
	int			n = 0;
	int			i;

	for (i = 0; i < GPUOPS_SVC_SLOTS; i++)
	{
		uint32		st = pg_atomic_read_u32(&svc->slots[i].state);

		if (st == GPUOPS_SVC_FILLING || st == GPUOPS_SVC_QUEUED ||
			st == GPUOPS_SVC_RUNNING)
			n++;
	}
	return n;
}

/*
 * Claims a free slot of svc with a range of len arena bytes (first fit
 * between the ranges of the slots in use); -1 when no slot or no range is
 * free.
 */
int
gpuops_svc_claim(GpuopsSvcShared *svc, Size len)
{
	Size		starts[GPUOPS_SVC_SLOTS];
	Size		ends[GPUOPS_SVC_SLOTS];
	int			nused = 0;
	int			freeslot = -1;
	Size		at = 0;
	int			i;
	int			j;

	len = TYPEALIGN(GPUOPS_SVC_ALIGN, len);
	SpinLockAcquire(&svc->lock);
	for (i = 0; i < GPUOPS_SVC_SLOTS; i++)
	{
		GpuopsSvcSlot *sl = &svc->slots[i];

		if (pg_atomic_read_u32(&sl->state) == GPUOPS_SVC_FREE)
		{
			if (freeslot < 0)
				freeslot = i;
			continue;
		}
		/* insertion into the sorted ranges (at most GPUOPS_SVC_SLOTS) */
		for (j = nused; j > 0 && starts[j - 1] > sl->off; j--)
		{
			starts[j] = starts[j - 1];
			ends[j] = ends[j - 1];
		}
		starts[j] = sl->off;
		ends[j] = sl->off + sl->len;
		nused++;
	}
	for (j = 0; j < nused && freeslot >= 0; j++)
	{
		if (starts[j] >= at + len)
			break;
		at = Max(at, ends[j]);
	}
	if (freeslot < 0 || at + len > svc->arena_size)
	{
		SpinLockRelease(&svc->lock);
		return -1;
	}
	svc->slots[freeslot].off = at;
	svc->slots[freeslot].len = len;
	svc->slots[freeslot].ticket = svc->next_ticket++;
	svc->slots[freeslot].seq = 0;
	pg_atomic_write_u32(&svc->slots[freeslot].abandoned, 0);
	pg_atomic_write_u32(&svc->slots[freeslot].state, GPUOPS_SVC_FILLING);
	svc->arena_used += len;
	svc->arena_peak = Max(svc->arena_peak, svc->arena_used);
	SpinLockRelease(&svc->lock);
	return freeslot;
}

/*
 * Frees svc's slot i if it holds ticket in state from (its owner and the
 * service may both try: one wins), counting it as abandoned if its owner
 * gave it up, and wakes the backends waiting for room; true when this call
 * freed it.
 */
bool
gpuops_svc_release(GpuopsSvcShared *svc, int i, uint64 ticket, uint32 from)
{
	GpuopsSvcSlot *sl = &svc->slots[i];
	bool		freed;

	SpinLockAcquire(&svc->lock);
	/* a compare-and-swap: the service takes QUEUED slots without the lock */
	freed = sl->ticket == ticket &&
		pg_atomic_compare_exchange_u32(&sl->state, &from, GPUOPS_SVC_FREE);
	if (freed)
	{
		if (pg_atomic_read_u32(&sl->abandoned) != 0)
			svc->abandoned++;
		svc->arena_used -= sl->len;
		sl->ticket = 0;
		sl->owner_pid = 0;
		sl->owner_latch = NULL;
	}
	SpinLockRelease(&svc->lock);
	if (freed)
		ConditionVariableBroadcast(&gpuops_svc_set->room_cv);
	return freed;
}

/* Size of one element of output array f of a gpo_agg_out (field order). */
size_t
gpuops_svc_out_elem(int f, gpo_type key_type, gpo_type val_type)
{
	switch (f)
	{
		case 0:
			return gpo_type_size(key_type);
		case 1:
		case 8:
			return 1;
		case 2:
		case 3:
			return sizeof(int64);
		case 4:
			return sizeof(gpo_int128);
		case 5:
		case 9:
			return sizeof(double);
		default:
			return gpo_type_size(val_type);
	}
}

/* Size of one element of request req's output array f of value column v. */
size_t
gpuops_svc_req_elem(const GpuopsSvcAggReq *req, int v, int f)
{
	return gpuops_svc_out_elem(f, (gpo_type) req->key_type,
							   v < req->nvals ? (gpo_type) req->val_type[v] :
							   GPO_INT32);
}

/* The address of output array f of out, in gpo_agg_out's field order. */
void	  **
gpuops_svc_out_field(gpo_agg_out *out, int f)
{
	switch (f)
	{
		case 0:
			return &out->keys;
		case 1:
			return (void **) &out->key_valid;
		case 2:
			return (void **) &out->rows;
		case 3:
			return (void **) &out->count;
		case 4:
			return (void **) &out->isum;
		case 5:
			return (void **) &out->fsum;
		case 6:
			return &out->min;
		case 7:
			return &out->max;
		case 8:
			return (void **) &out->fflags;
		default:
			return (void **) &out->m2;
	}
}
