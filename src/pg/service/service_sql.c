/*
 * service_sql.c
 *	  The GPU services' SQL face: gpuops.service() shows each one's state and
 *	  counters, gpuops.service_restart() makes their supervisors restart
 *	  their executors.
 */
#include "service/service_int.h"

#include <signal.h>

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

/* Columns of gpuops.service(). */
#define GPUOPS_SVC_SQL_COLS		21

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

/* Requests of svc not yet answered and given back, every backend's. */
static int
gpuops_svc_in_flight(GpuopsSvcShared *svc)
{
	int			n = 0;
	int			i;

	for (i = 0; i < GPUOPS_SVC_SLOTS; i++)
		if (pg_atomic_read_u32(&svc->slots[i].state) != GPUOPS_SVC_FREE)
			n++;
	return n;
}

/* Fills values (and nulls) with service svc's row of gpuops.service(). */
static void
gpuops_svc_row(GpuopsSvcShared *svc, Datum *values, bool *nulls)
{
	GpuopsSvcShared copy;
	int			i = 0;

	SpinLockAcquire(&svc->lock);
	memcpy(&copy, svc, offsetof(GpuopsSvcShared, slots));
	SpinLockRelease(&svc->lock);
	values[i++] = BoolGetDatum(true);
	values[i++] = Int32GetDatum(copy.index);
	values[i++] = CStringGetTextDatum(gpuops_svc_state_name(pg_atomic_read_u32(&svc->state)));
	values[i++] = Int32GetDatum(copy.pid);
	values[i++] = CStringGetTextDatum(copy.device_name);
	values[i++] = BoolGetDatum(copy.pinned);
	values[i++] = Int64GetDatum((int64) copy.arena_size);
	values[i++] = Int64GetDatum((int64) copy.arena_used);
	values[i++] = Int64GetDatum((int64) copy.arena_peak);
	values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&svc->device_held));
	values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&svc->device_peak));
	values[i++] = Int32GetDatum(gpuops_svc_in_flight(svc));
	values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&svc->served));
	values[i++] = Int64GetDatum(copy.abandoned);
	values[i++] = Int64GetDatum(copy.lost);
	values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&svc->generation));
	values[i++] = Int32GetDatum(copy.streams);
	values[i++] = Int32GetDatum((int32) pg_atomic_read_u64(&svc->running));
	values[i++] = Int32GetDatum((int32) pg_atomic_read_u64(&svc->running_peak));
	values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&svc->resident_sets));
	values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&svc->resident_bytes));
	memset(nulls, false, sizeof(bool) * i);
	if (copy.pid == 0)
		nulls[3] = true;
}

/*
 * gpuops.service(): a row per GPU service (one per GPU): whether the server
 * runs the service, the service's number (its GPU), its state, pid and
 * device, whether its arena is page-locked, the arena's size, use and peak,
 * its pool's device memory now and at most, its requests (in flight,
 * served, given up, lost to a restart) and starts, and the column cache's
 * ranges it keeps and their bytes.  One row of NULLs but
 * configured where the server runs no service.
 */
Datum
gpuops_service_sql(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Datum		values[GPUOPS_SVC_SQL_COLS];
	bool		nulls[GPUOPS_SVC_SQL_COLS];
	int			i;

	InitMaterializedSRF(fcinfo, 0);
	if (rsinfo->setDesc->natts != GPUOPS_SVC_SQL_COLS)
		elog(ERROR, "gpuops.service() must return %d columns", GPUOPS_SVC_SQL_COLS);
	if (!gpuops_service_configured())
	{
		memset(nulls, true, sizeof(nulls));
		values[0] = BoolGetDatum(false);
		nulls[0] = false;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		return (Datum) 0;
	}
	for (i = 0; i < gpuops_svc_set->nservices; i++)
	{
		gpuops_svc_row(gpuops_svc_at(i), values, nulls);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * gpuops.service_restart(immediate, gpu): stops the executor of service gpu
 * (NULL: of every service) with SIGTERM, or SIGKILL when immediate; its
 * supervisor starts a new one.  Superuser only; false when none was
 * running.
 */
Datum
gpuops_service_restart_sql(PG_FUNCTION_ARGS)
{
	bool		immediate = !PG_ARGISNULL(0) && PG_GETARG_BOOL(0);
	bool		any = false;
	int			from = 0;
	int			to;
	int			i;

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to restart the gpuops GPU service"),
				 errhint("Only superusers may restart it.")));
	if (!gpuops_service_configured())
		PG_RETURN_BOOL(false);
	to = gpuops_svc_set->nservices - 1;
	if (PG_NARGS() > 1 && !PG_ARGISNULL(1))
	{
		from = to = PG_GETARG_INT32(1);
		if (from < 0 || from >= gpuops_svc_set->nservices)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("there is no gpuops GPU service %d", from),
					 errhint("The services are numbered from 0 to %d.",
							 gpuops_svc_set->nservices - 1)));
	}
	for (i = from; i <= to; i++)
	{
		GpuopsSvcShared *svc = gpuops_svc_at(i);
		int			pid;

		SpinLockAcquire(&svc->lock);
		pid = svc->pid;
		SpinLockRelease(&svc->lock);
		if (pid > 0 && kill(pid, immediate ? SIGKILL : SIGTERM) == 0)
			any = true;
	}
	PG_RETURN_BOOL(any);
}
