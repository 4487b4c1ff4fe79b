/*
 * cache_worker.c
 *	  The column cache's refresher: a background worker that every
 *	  gpuops.cache_refresh_interval starts, for each database with cached
 *	  tables that refresh by themselves and have stale ranges (or blocks
 *	  past their ranges), a worker connected to it, which reads again the
 *	  ranges that changes made stale once VACUUM has made their pages
 *	  all-visible (cache_fill.c).  Queries never fill the cache.
 */
#include "cache/cache_int.h"

#include "access/relation.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/procsignal.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/snapmgr.h"

PGDLLEXPORT void gpuops_cache_refresher_main(Datum arg);
PGDLLEXPORT void gpuops_cache_db_worker_main(Datum arg);

int			gpuops_cache_refresh_interval = 60;

/* Registers the refresher (at preload). */
void
gpuops_cache_register_refresher(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = 10;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "gpuops");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "gpuops_cache_refresher_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "gpuops cache refresher");
	snprintf(worker.bgw_type, BGW_MAXLEN, "gpuops cache refresher");
	RegisterBackgroundWorker(&worker);
}

/* Whether slot t refreshes by itself and has a range to read (a stale or new one). */
static bool
gpuops_cache_wants_refresh(GpuopsCacheTable *t)
{
	GpuopsCacheRange *ranges;
	bool		wants = false;
	int64		r;

	LWLockAcquire(t->lock, LW_SHARED);
	if (t->in_use && !t->broken && t->auto_refresh)
	{
		ranges = gpuops_cache_ranges(t);
		wants = t->grown || ranges == NULL;
		for (r = 0; !wants && r < t->nranges; r++)
			wants = !DsaPointerIsValid(ranges[r].data) ||
				pg_atomic_read_u32(&ranges[r].gen) != ranges[r].filled_gen;
		/* or the GPU service, with room, lacks a fresh range (it restarted) */
		if (!wants && gpuops_service_kept_room(gpuops_service_for_relation(t->relid)))
		{
			GpuopsServiceRangeKey *found = palloc(sizeof(GpuopsServiceRangeKey) *
												  Max(t->nranges, 1));

			wants = gpuops_service_kept_ranges(gpuops_service_for_relation(t->relid),
											   t->dbid, t->relid, t->serial,
											   t->node.relNode, t->nranges,
											   found, NULL) < t->nranges;
			pfree(found);
		}
	}
	LWLockRelease(t->lock);
	return wants;
}

/* The databases (at most n) with a cached table that wants refreshing; how many. */
static int
gpuops_cache_refresh_dbs(Oid *dbs, int n)
{
	int			ndbs = 0;
	int			i;
	int			j;

	(void) gpuops_cache_area(); /* (attached before any slot's lock) */
	for (i = 0; i < GPUOPS_CACHE_MAX_TABLES; i++)
	{
		GpuopsCacheTable *t = &gpuops_cache->tables[i];

		if (!gpuops_cache_wants_refresh(t))
			continue;
		for (j = 0; j < ndbs && dbs[j] != t->dbid; j++)
			;
		if (j == ndbs && ndbs < n)
			dbs[ndbs++] = t->dbid;
	}
	return ndbs;
}

/* Starts the worker of database dbid and waits for it to end. */
static void
gpuops_cache_run_db_worker(Oid dbid)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "gpuops");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "gpuops_cache_db_worker_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "gpuops cache refresh of database %u", dbid);
	snprintf(worker.bgw_type, BGW_MAXLEN, "gpuops cache refresh");
	worker.bgw_main_arg = ObjectIdGetDatum(dbid);
	worker.bgw_notify_pid = MyProcPid;
	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
		return;					/* no slot free now: next time */
	(void) WaitForBackgroundWorkerShutdown(handle);
	pfree(handle);
}

/* The refresher's loop. */
void
gpuops_cache_refresher_main(Datum arg)
{
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();
	for (;;)
	{
		long		wait_ms = gpuops_cache_refresh_interval > 0 ?
			gpuops_cache_refresh_interval * 1000L : 60 * 1000L;
		Oid			dbs[GPUOPS_CACHE_MAX_TABLES];
		int			ndbs;
		int			i;

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 wait_ms, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		if (ShutdownRequestPending)
			proc_exit(0);
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			continue;			/* (wait the new interval first) */
		}
		if (gpuops_cache_refresh_interval <= 0)
			continue;
		ndbs = gpuops_cache_refresh_dbs(dbs, GPUOPS_CACHE_MAX_TABLES);
		for (i = 0; i < ndbs && !ShutdownRequestPending; i++)
			gpuops_cache_run_db_worker(dbs[i]);
	}
}

/*
 * Reads again the stale ranges of slot t's table, when it can be locked at
 * once, still exists and still has its triggers.
 */
static void
gpuops_cache_refresh_slot(GpuopsCacheTable *t)
{
	Oid			relid = t->relid;
	Relation	rel;
	int64		skipped = 0;
	int64		full = 0;

	if (!ConditionalLockRelationOid(relid, AccessShareLock))
		return;					/* (a rewrite holds it: next time) */
	rel = try_relation_open(relid, NoLock);
	if (rel == NULL)
	{
		UnlockRelationOid(relid, AccessShareLock);
		return;
	}
	if (t->in_use && t->relid == relid && t->dbid == MyDatabaseId &&
		!t->broken && gpuops_cache_triggers_ok(rel))
		(void) gpuops_cache_fill(rel, t, &skipped, &full);
	relation_close(rel, AccessShareLock);
}

/* The worker of one database: each of its tables that refresh by themselves, one transaction each. */
void
gpuops_cache_db_worker_main(Datum arg)
{
	int			i;

	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(DatumGetObjectId(arg), InvalidOid, 0);
	pgstat_report_activity(STATE_RUNNING, "gpuops cache refresh");
	for (i = 0; i < GPUOPS_CACHE_MAX_TABLES; i++)
	{
		GpuopsCacheTable *t = &gpuops_cache->tables[i];

		if (!t->in_use || t->dbid != MyDatabaseId || t->broken || !t->auto_refresh)
			continue;
		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		PushActiveSnapshot(GetTransactionSnapshot());
		gpuops_cache_refresh_slot(t);
		PopActiveSnapshot();
		CommitTransactionCommand();
		CHECK_FOR_INTERRUPTS();
	}
	pgstat_report_activity(STATE_IDLE, NULL);
	proc_exit(0);
}
