/*
 * service_shmem.c
 *	  The GPU service's settings, its registration as a background worker,
 *	  and its shared memory: the control block, the request slots and the
 *	  staging arena that requests are laid out in (service_int.h).
 *
 * The service is registered only when gpuops is in shared_preload_libraries,
 * gpuops.gpu_service is on and the build has CUDA (or, for tests,
 * gpuops.debug_gpu_service is on: the service then serves on the CPU face,
 * so that a machine without a GPU tests the protocol, its cancels and its
 * restarts).  The postmaster registers it and places the shared memory; it
 * never calls CUDA: the service starts CUDA in its own process.
 *
 * The arena is a fixed part of the main shared memory (gpuops.
 * gpu_service_memory), so it lies at the same address in every process.
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
bool		gpuops_debug_gpu_service = false;
int			gpuops_debug_gpu_service_delay = 0;

GpuopsSvcShared *gpuops_svc = NULL;
char	   *gpuops_svc_arena = NULL;

/* Set in the postmaster when it registered the service (inherited by forks). */
static bool service_registered = false;

/* Registers the service's background worker. */
static void
gpuops_service_register(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	worker.bgw_start_time = BgWorkerStart_PostmasterStart;
	worker.bgw_restart_time = 1;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "gpuops");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "gpuops_service_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "gpuops GPU service");
	snprintf(worker.bgw_type, BGW_MAXLEN, "gpuops GPU service");
	RegisterBackgroundWorker(&worker);
	service_registered = true;
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
							"Shared memory for the batches that sessions hand to the GPU service.",
							"The service page-locks it once; a batch that finds no room waits "
							"(gpuops.device = gpu) or runs on the CPU (auto).",
							&gpuops_gpu_service_memory,
							512,
							16, 65536,
							start_only,
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
	if (process_shared_preload_libraries_in_progress && gpuops_gpu_service &&
		(gpo_gpu_compiled() || gpuops_debug_gpu_service))
		gpuops_service_register();
}

/* Shared memory the service needs: none unless it is registered. */
Size
gpuops_service_shmem_size(void)
{
	if (!service_registered)
		return 0;
	return add_size(MAXALIGN(sizeof(GpuopsSvcShared)) + GPUOPS_SVC_ALIGN,
					mul_size((Size) gpuops_gpu_service_memory, 1024 * 1024));
}

/* Creates or attaches to the control block and the arena. */
void
gpuops_service_shmem_attach(void)
{
	bool		found;
	Size		bytes;
	int			i;

	if (!service_registered)
		return;
	bytes = mul_size((Size) gpuops_gpu_service_memory, 1024 * 1024);
	gpuops_svc = ShmemInitStruct("gpuops GPU service", sizeof(GpuopsSvcShared),
								 &found);
	gpuops_svc_arena = ShmemInitStruct("gpuops GPU service arena",
									   bytes + GPUOPS_SVC_ALIGN, &found);
	gpuops_svc_arena = (char *) TYPEALIGN(GPUOPS_SVC_ALIGN, gpuops_svc_arena);
	if (found)
		return;
	memset(gpuops_svc, 0, sizeof(GpuopsSvcShared));
	SpinLockInit(&gpuops_svc->lock);
	ConditionVariableInit(&gpuops_svc->room_cv);
	pg_atomic_init_u32(&gpuops_svc->state, GPUOPS_SVC_DOWN);
	pg_atomic_init_u64(&gpuops_svc->generation, 0);
	pg_atomic_init_u32(&gpuops_svc->memory_limit_mb, 0);
	pg_atomic_init_u32(&gpuops_svc->delay_ms, 0);
	pg_atomic_init_u64(&gpuops_svc->served, 0);
	pg_atomic_init_u64(&gpuops_svc->device_held, 0);
	pg_atomic_init_u64(&gpuops_svc->device_peak, 0);
	if (sem_init(&gpuops_svc->work, 1, 0) != 0)
		elog(FATAL, "gpuops GPU service: could not create its semaphore: %m");
	gpuops_svc->arena_size = bytes;
	gpuops_svc->next_ticket = 1;
	for (i = 0; i < GPUOPS_SVC_SLOTS; i++)
	{
		pg_atomic_init_u32(&gpuops_svc->slots[i].state, GPUOPS_SVC_FREE);
		pg_atomic_init_u32(&gpuops_svc->slots[i].abandoned, 0);
	}
}

/* Whether this server runs the service (and it has its shared memory). */
bool
gpuops_service_configured(void)
{
	return service_registered && gpuops_svc != NULL;
}

/* Bytes of the service's staging arena (0 without the service). */
double
gpuops_service_arena_bytes(void)
{
	return gpuops_service_configured() ? (double) gpuops_svc->arena_size : 0.0;
}

/*
 * Whether the GPU face can be had: with the service, unless it found no
 * GPU (while it starts, yes: a request waits or goes to the CPU); without
 * it, from this backend's own CUDA.
 */
bool
gpuops_gpu_usable(void)
{
	if (gpuops_service_configured())
		return pg_atomic_read_u32(&gpuops_svc->state) != GPUOPS_SVC_NO_DEVICE;
	return gpo_gpu_available();
}

/*
 * Claims a free slot with a range of len arena bytes (first fit between
 * the ranges of the slots in use); -1 when no slot or no range is free.
 */
int
gpuops_svc_claim(Size len)
{
	Size		starts[GPUOPS_SVC_SLOTS];
	Size		ends[GPUOPS_SVC_SLOTS];
	int			nused = 0;
	int			freeslot = -1;
	Size		at = 0;
	int			i;
	int			j;

	len = TYPEALIGN(GPUOPS_SVC_ALIGN, len);
	SpinLockAcquire(&gpuops_svc->lock);
	for (i = 0; i < GPUOPS_SVC_SLOTS; i++)
	{
		GpuopsSvcSlot *sl = &gpuops_svc->slots[i];

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
	if (freeslot < 0 || at + len > gpuops_svc->arena_size)
	{
		SpinLockRelease(&gpuops_svc->lock);
		return -1;
	}
	gpuops_svc->slots[freeslot].off = at;
	gpuops_svc->slots[freeslot].len = len;
	gpuops_svc->slots[freeslot].ticket = gpuops_svc->next_ticket++;
	gpuops_svc->slots[freeslot].seq = 0;
	pg_atomic_write_u32(&gpuops_svc->slots[freeslot].abandoned, 0);
	pg_atomic_write_u32(&gpuops_svc->slots[freeslot].state, GPUOPS_SVC_FILLING);
	gpuops_svc->arena_used += len;
	gpuops_svc->arena_peak = Max(gpuops_svc->arena_peak, gpuops_svc->arena_used);
	SpinLockRelease(&gpuops_svc->lock);
	return freeslot;
}

/*
 * Frees slot i if it holds ticket in state from (its owner and the service
 * may both try: one wins), counting it as abandoned if its owner gave it
 * up, and wakes the backends waiting for room; true when this call freed
 * it.
 */
bool
gpuops_svc_release(int i, uint64 ticket, uint32 from)
{
	GpuopsSvcSlot *sl = &gpuops_svc->slots[i];
	bool		freed;

	SpinLockAcquire(&gpuops_svc->lock);
	/* a compare-and-swap: the service takes QUEUED slots without the lock */
	freed = sl->ticket == ticket &&
		pg_atomic_compare_exchange_u32(&sl->state, &from, GPUOPS_SVC_FREE);
	if (freed)
	{
		if (pg_atomic_read_u32(&sl->abandoned) != 0)
			gpuops_svc->abandoned++;
		gpuops_svc->arena_used -= sl->len;
		sl->ticket = 0;
		sl->owner_pid = 0;
		sl->owner_latch = NULL;
	}
	SpinLockRelease(&gpuops_svc->lock);
	if (freed)
		ConditionVariableBroadcast(&gpuops_svc->room_cv);
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
