/*
 * service_sql.c
 *	  The GPU service's SQL face: gpuops.service() shows its state and
 *	  counters, gpuops.service_restart() makes the postmaster restart it.
 */
#include "service/service_int.h"

#include <signal.h>

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(gpuops_service_sql);
PG_FUNCTION_INFO_V1(gpuops_service_restart_sql);

/* The service's state as text. */
static const char *
gpuops_svc_state_name(uint32 state)
{
	switch (state)
	{
		case GPUOPS_SVC_READY:
			return "gpu";
		case GPUOPS_SVC_READY_CPU:
			return "cpu";
		case GPUOPS_SVC_NO_DEVICE:
			return "no device";
		default:
			return "down";
	}
}

/* Requests not yet answered and given back, every backend's. */
static int
gpuops_svc_in_flight(void)
{
	int			n = 0;
	int			i;

	for (i = 0; i < GPUOPS_SVC_SLOTS; i++)
		if (pg_atomic_read_u32(&gpuops_svc->slots[i].state) != GPUOPS_SVC_FREE)
			n++;
	return n;
}

/*
 * gpuops.service(): whether the server runs the service, its state, pid
 * and device, whether its arena is page-locked, the arena's size, use and
 * peak, its pool's device memory now and at most, and its requests (in flight, served, given up, lost to a restart,
 * turned away for room) and starts.
 */
Datum
gpuops_service_sql(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[15];
	bool		nulls[15];
	GpuopsSvcShared copy;
	int			i;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	memset(nulls, !gpuops_service_configured(), sizeof(nulls));
	values[0] = BoolGetDatum(gpuops_service_configured());
	nulls[0] = false;
	if (gpuops_service_configured())
	{
		SpinLockAcquire(&gpuops_svc->lock);
		memcpy(&copy, gpuops_svc, offsetof(GpuopsSvcShared, slots));
		SpinLockRelease(&gpuops_svc->lock);
		i = 1;
		values[i++] = CStringGetTextDatum(gpuops_svc_state_name(pg_atomic_read_u32(&gpuops_svc->state)));
		values[i++] = Int32GetDatum(copy.pid);
		values[i++] = CStringGetTextDatum(copy.device_name);
		values[i++] = BoolGetDatum(copy.pinned);
		values[i++] = Int64GetDatum((int64) copy.arena_size);
		values[i++] = Int64GetDatum((int64) copy.arena_used);
		values[i++] = Int64GetDatum((int64) copy.arena_peak);
		values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&gpuops_svc->device_held));
		values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&gpuops_svc->device_peak));
		values[i++] = Int32GetDatum(gpuops_svc_in_flight());
		values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&gpuops_svc->served));
		values[i++] = Int64GetDatum(copy.abandoned);
		values[i++] = Int64GetDatum(copy.lost);
		values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&gpuops_svc->generation));
		if (copy.pid == 0)
			nulls[2] = true;
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * gpuops.service_restart(immediate): stops the service's executor (SIGTERM,
 * or SIGKILL when immediate); its supervisor starts a new one.  Superuser
 * only; false when it isn't running.
 */
Datum
gpuops_service_restart_sql(PG_FUNCTION_ARGS)
{
	int			pid;

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to restart the gpuops GPU service"),
				 errhint("Only superusers may restart it.")));
	if (!gpuops_service_configured())
		PG_RETURN_BOOL(false);
	SpinLockAcquire(&gpuops_svc->lock);
	pid = gpuops_svc->pid;
	SpinLockRelease(&gpuops_svc->lock);
	PG_RETURN_BOOL(pid > 0 &&
				   kill(pid, PG_GETARG_BOOL(0) ? SIGKILL : SIGTERM) == 0);
}
