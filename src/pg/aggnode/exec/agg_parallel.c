/*
 * agg_parallel.c
 *	  GpuOpsAgg with worker processes (gpuops.parallel_workers): the backend
 *	  and its workers share one block-parallel scan of the table; each worker
 *	  reads the blocks it is handed, aggregates them on the CPU face into its
 *	  own running groups and sends those to the backend through a shared
 *	  memory queue, while the backend reads and aggregates its own share (on
 *	  whichever face it uses), then merges every worker's groups into its own.
 *
 * The page work that only a backend's own thread may do (pinning, locking,
 * copying line pointers) is what bounds one backend on many cores, and each
 * worker does its own.  The workers are PostgreSQL's parallel workers
 * (CreateParallelContext): they restore the backend's transaction, snapshot
 * and settings, and an ERROR in one is raised again in the backend.  The
 * plan asks for parallel mode (agg_plan_create.c), only for one heap table without
 * clauses PostgreSQL must evaluate; a text key's codes are per process, and
 * a worker sends the strings of its codes (agg_parallel_text.c).  A rescan
 * reads serially.  A
 * star join's dimension tables (agg_join.c), built by the backend with
 * their text keys' codes, reach the workers in the shared segment.
 *
 * A worker's groups go as one or more pieces, each one message
 * (agg_parallel_msg.c): groups held in memory go as one piece (or a few,
 * past 64 MB), and a worker whose groups spilled (agg_spill.c) sends them
 * piece by piece as the merge of its runs gives them out.  The backend
 * merges them (agg_parallel_merge.c).  With parallel_leader_participation
 * off the backend reads nothing and merges.  With DEBUG1 the backend logs
 * where its merge time went.
 */
#include "aggnode/exec/agg_parallel.h"
#include "cache/gpuops_cache.h"

#include "access/parallel.h"
#include "access/table.h"
#include "access/tableam.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/readfuncs.h"
#include "optimizer/optimizer.h"
#include "portability/instr_time.h"
#include "storage/latch.h"
#include "storage/shm_mq.h"
#include "storage/shm_toc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/wait_event.h"

/* shm_toc keys of the node's parallel state */
#define GPUOPS_PKEY_SHARED		UINT64CONST(0x6770756F70730001)
#define GPUOPS_PKEY_PLAN		UINT64CONST(0x6770756F70730002)
#define GPUOPS_PKEY_SCAN		UINT64CONST(0x6770756F70730003)
#define GPUOPS_PKEY_QUEUES		UINT64CONST(0x6770756F70730004)
#define GPUOPS_PKEY_RECENT		UINT64CONST(0x6770756F70730005)
#define GPUOPS_PKEY_JOIN		UINT64CONST(0x6770756F70730006)
#define GPUOPS_PKEY_SKIP		UINT64CONST(0x6770756F70730007)

/* Each worker's queue to the backend. */
#define GPUOPS_PARALLEL_QUEUE_BYTES (1024 * 1024)

/* What the backend tells its workers. */
typedef struct GpuopsParallelShared
{
	Oid			relid;
	int			nworkers;		/* queues */
	int			threads;		/* OpenMP threads of each worker */
	BlockNumber recent_nblocks; /* the backend's remembered buffers, if any */
	int64		nskip;			/* ranges of GPUOPS_PKEY_SKIP: the blocks the
								 * GPU service aggregated (agg_kept.c) */
} GpuopsParallelShared;

PGDLLEXPORT void gpuops_agg_worker_main(dsm_segment *seg, shm_toc *toc);

/* Each process's share of threads OpenMP threads among the backend and its workers. */
int
gpuops_agg_parallel_threads(int threads, int nworkers)
{
	return Max(1, threads / (nworkers + 1));
}

/*
 * Sends the running groups of s and its counts: at once when they are all
 * in memory, else piece by piece as the merge of its spilled runs gives
 * them out (the backend merges each piece, spilling in turn past
 * gpuops.max_group_memory).  The backend may hold a message of every
 * worker at once while it takes them (agg_parallel_msg.c), so a message
 * holds at most gpuops.max_group_memory / (nworkers + 1) bytes of groups.
 */
static void
gpuops_parallel_send_groups(shm_mq_handle *mqh, GpuopsAggScanState *s,
							int nworkers)
{
	GpuopsAggState *st = &s->groups;
	GpuopsAggState *piece;
	Size		most = (Size) gpuops_max_group_memory * 1024 / (Max(nworkers, 0) + 1);
	bool		first = true;

	if (!gpuops_aggstate_spilled(st))
	{
		gpuops_parallel_send_piece(mqh, s, st, most, true, true);
		return;
	}
	gpuops_aggstate_finish(st);
	while (gpuops_aggstate_next_piece(st, &piece) > 0)
	{
		gpuops_parallel_send_piece(mqh, s, piece, most, first, false);
		first = false;
	}
	/* the merge emptied st: a last piece of no groups */
	gpuops_parallel_send_piece(mqh, s, st, most, first, true);
	gpuops_aggstate_spill_end(st);
}

/*
 * Reads and aggregates the node's one table with worker processes beside
 * the backend (see the file header); false, with nothing done, when no
 * parallel context can be had (the caller then reads serially).
 */
bool
gpuops_agg_parallel_run(GpuopsAggScanState *s, GpuopsAggTableExec *te)
{
	EState	   *estate = s->css.ss.ps.state;
	Snapshot	snapshot = estate->es_snapshot;
	ParallelContext *pcxt;
	GpuopsParallelShared *shared;
	char	   *plan_str;
	char	   *plan_copy;
	ParallelTableScanDesc pscan;
	char	   *queues;
	const Buffer *recent;
	BlockNumber recent_nblocks;
	shm_mq_handle **mqh;
	Size		scan_bytes;
	const BlockNumber *skip_ends = NULL;
	int64		nskip;
	int			nworkers = s->workers_allowed;
	int			i;
	int64		own_rows;
	GpuopsWorkerMerge wm;
	MemoryContext old_cxt;
	instr_time	t0;
	instr_time	t1;
	instr_time	t2;
	instr_time	t3;

	if (nworkers <= 0 || !estate->es_use_parallel_mode || !IsInParallelMode() ||
		!IsMVCCSnapshot(snapshot) || te->reader == NULL)
		return false;
	INSTR_TIME_SET_CURRENT(t0);
	plan_str = nodeToString(((CustomScan *) s->css.ss.ps.plan)->custom_private);
	scan_bytes = table_parallelscan_estimate(te->rel, snapshot);

	pcxt = CreateParallelContext("gpuops", "gpuops_agg_worker_main", nworkers);
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(GpuopsParallelShared));
	shm_toc_estimate_chunk(&pcxt->estimator, strlen(plan_str) + 1);
	shm_toc_estimate_chunk(&pcxt->estimator, scan_bytes);
	shm_toc_estimate_chunk(&pcxt->estimator,
						   mul_size(nworkers, GPUOPS_PARALLEL_QUEUE_BYTES));
	/* the buffers the backend remembers, so that workers pin through them */
	recent = gpuops_scan_recent_bufs(te->reader, &recent_nblocks);
	if (recent != NULL)
		shm_toc_estimate_chunk(&pcxt->estimator,
							   mul_size(recent_nblocks, sizeof(Buffer)));
	/* a star join's tables, built by the backend */
	if (s->join != NULL)
		shm_toc_estimate_chunk(&pcxt->estimator, gpuops_agg_join_shared_size(s));
	/* the blocks the GPU service aggregated from its kept ranges */
	nskip = te->cache_src ? gpuops_cache_skip_ends(te->cache_src, &skip_ends) : 0;
	if (nskip > 0)
		shm_toc_estimate_chunk(&pcxt->estimator, sizeof(BlockNumber) * nskip);
	shm_toc_estimate_keys(&pcxt->estimator, 7);
	InitializeParallelDSM(pcxt);
	if (pcxt->seg == NULL)
	{
		/* no dynamic shared memory to be had: read alone */
		DestroyParallelContext(pcxt);
		return false;
	}

	shared = shm_toc_allocate(pcxt->toc, sizeof(GpuopsParallelShared));
	shared->relid = RelationGetRelid(te->rel);
	shared->nworkers = nworkers;
	shared->threads = gpuops_agg_parallel_threads(s->threads_got, nworkers);
	shm_toc_insert(pcxt->toc, GPUOPS_PKEY_SHARED, shared);
	plan_copy = shm_toc_allocate(pcxt->toc, strlen(plan_str) + 1);
	strcpy(plan_copy, plan_str);
	shm_toc_insert(pcxt->toc, GPUOPS_PKEY_PLAN, plan_copy);
	pscan = shm_toc_allocate(pcxt->toc, scan_bytes);
	table_parallelscan_initialize(te->rel, pscan, snapshot);
	shm_toc_insert(pcxt->toc, GPUOPS_PKEY_SCAN, pscan);
	queues = shm_toc_allocate(pcxt->toc,
							  mul_size(nworkers, GPUOPS_PARALLEL_QUEUE_BYTES));
	shm_toc_insert(pcxt->toc, GPUOPS_PKEY_QUEUES, queues);
	shared->recent_nblocks = 0;
	if (recent != NULL)
	{
		Buffer	   *copy = shm_toc_allocate(pcxt->toc,
											mul_size(recent_nblocks, sizeof(Buffer)));

		memcpy(copy, recent, sizeof(Buffer) * recent_nblocks);
		shm_toc_insert(pcxt->toc, GPUOPS_PKEY_RECENT, copy);
		shared->recent_nblocks = recent_nblocks;
	}
	shared->nskip = nskip;
	if (nskip > 0)
	{
		BlockNumber *copy = shm_toc_allocate(pcxt->toc, sizeof(BlockNumber) * nskip);

		memcpy(copy, skip_ends, sizeof(BlockNumber) * nskip);
		shm_toc_insert(pcxt->toc, GPUOPS_PKEY_SKIP, copy);
	}
	if (s->join != NULL)
	{
		char	   *tables = shm_toc_allocate(pcxt->toc,
											  gpuops_agg_join_shared_size(s));

		gpuops_agg_join_shared_write(s, tables);
		shm_toc_insert(pcxt->toc, GPUOPS_PKEY_JOIN, tables);
	}
	mqh = palloc0(sizeof(shm_mq_handle *) * nworkers);
	for (i = 0; i < nworkers; i++)
	{
		shm_mq	   *mq = shm_mq_create(queues + (Size) i * GPUOPS_PARALLEL_QUEUE_BYTES,
									   GPUOPS_PARALLEL_QUEUE_BYTES);

		shm_mq_set_receiver(mq, MyProc);
		mqh[i] = shm_mq_attach(mq, pcxt->seg, NULL);
	}

	LaunchParallelWorkers(pcxt);
	s->workers_launched = pcxt->nworkers_launched;
	for (i = 0; i < pcxt->nworkers_launched; i++)
		shm_mq_set_handle(mqh[i], pcxt->worker[i].bgwhandle);
	/*
	 * The backend decodes and aggregates with the threads no launched worker
	 * has (at least its share: 16 threads and 9 workers leave it 7, where
	 * an even share left 6 idle and read 10M wide rows in 355 ms against
	 * 257 ms with 15 workers, NVIDIA H100 machine); the blocks go to
	 * whichever process asks next, so it reads the more.
	 */
	if (pcxt->nworkers_launched > 0)
	{
		s->threads_cap = Max(s->threads_got -
							 pcxt->nworkers_launched * shared->threads, 1);
		gpuops_scan_limit_threads(te->reader, s->threads_cap);
		s->threads_got = s->threads_cap +
			pcxt->nworkers_launched * shared->threads;
		gpuops_budget_trim(s->lease, s->threads_got);
	}

	/* the backend's own share, then each worker's groups */
	if (!gpuops_scan_set_parallel(te->reader, (ParallelBlockTableScanDesc) pscan))
		elog(ERROR, "GpuOpsAgg cannot share the reading of \"%s\"",
			 RelationGetRelationName(te->rel));
	INSTR_TIME_SET_CURRENT(t1);
	/* parallel_leader_participation = off: the workers read, it merges */
	if (parallel_leader_participation || pcxt->nworkers_launched == 0)
		gpuops_agg_run_table(s, te);
	memset(&wm, 0, sizeof(wm));
	wm.threads = Max(s->threads_cap > 0 ? s->threads_cap : s->threads_got, 1);
	wm.worker_threads = shared->threads;
	wm.most_threads = Max(s->threads_got, 1);
	wm.queue_bytes = GPUOPS_PARALLEL_QUEUE_BYTES;
	old_cxt = MemoryContextSwitchTo(s->groups.cxt);
	gpuops_aggstate_init(&wm.pending, s->groups.nkeys, s->groups.key_types,
						 s->groups.nvals, s->groups.val_types);
	wm.pending.limit_bytes = 0;
	MemoryContextSwitchTo(old_cxt);
	s->threads_cap = 0;
	own_rows = s->rows_in;
	INSTR_TIME_SET_CURRENT(t2);
	gpuops_parallel_merge_workers(s, pcxt, mqh, pcxt->nworkers_launched, &wm);
	INSTR_TIME_SET_CURRENT(t3);
	INSTR_TIME_SUBTRACT(t3, t0);
	INSTR_TIME_SUBTRACT(t2, t0);
	INSTR_TIME_SUBTRACT(t1, t0);
	elog(DEBUG1, "GpuOpsAgg backend: %d workers launched after %.1f ms, its own %lld rows read and aggregated by %.1f ms, the workers' %lld groups and %lld strings merged by %.1f ms (waiting %.1f ms, coding strings %.1f ms, sorting %.1f ms, folding %.1f ms)",
		 pcxt->nworkers_launched, INSTR_TIME_GET_MILLISEC(t1),
		 (long long) own_rows, INSTR_TIME_GET_MILLISEC(t2),
		 (long long) wm.groups, (long long) wm.strings,
		 INSTR_TIME_GET_MILLISEC(t3),
		 wm.wait_ms, wm.recode_ms, wm.sort_ms, wm.fold_ms);
	WaitForParallelWorkersToFinish(pcxt);
	for (i = 0; i < nworkers; i++)
		shm_mq_detach(mqh[i]);
	DestroyParallelContext(pcxt);
	return true;
}

/*
 * A worker's entry point (by name, from the parallel context): rebuilds
 * the node's state from the plan, reads the blocks the shared scan hands it
 * on the CPU face and sends its groups to the backend.
 */
void
gpuops_agg_worker_main(dsm_segment *seg, shm_toc *toc)
{
	GpuopsParallelShared *shared = shm_toc_lookup(toc, GPUOPS_PKEY_SHARED, false);
	char	   *plan_str = shm_toc_lookup(toc, GPUOPS_PKEY_PLAN, false);
	ParallelTableScanDesc pscan = shm_toc_lookup(toc, GPUOPS_PKEY_SCAN, false);
	char	   *queues = shm_toc_lookup(toc, GPUOPS_PKEY_QUEUES, false);
	shm_mq	   *mq;
	shm_mq_handle *mqh;
	CustomScan *cscan = makeNode(CustomScan);
	GpuopsAggScanState *s = palloc0(sizeof(GpuopsAggScanState));
	GpuopsAggTableExec *te;
	EState	   *estate;
	Snapshot	snapshot;
	instr_time	start;
	instr_time	ready;
	instr_time	done;

	INSTR_TIME_SET_CURRENT(start);
	if (ParallelWorkerNumber < 0 || ParallelWorkerNumber >= shared->nworkers)
		elog(ERROR, "GpuOpsAgg worker %d of %d", ParallelWorkerNumber,
			 shared->nworkers);
	mq = (shm_mq *) (queues + (Size) ParallelWorkerNumber * GPUOPS_PARALLEL_QUEUE_BYTES);
	shm_mq_set_sender(mq, MyProc);
	mqh = shm_mq_attach(mq, seg, NULL);

	/*
	 * The CPU face, with a share of the cores and no helper thread.  These
	 * are this process's own copies of the settings, which a parallel worker
	 * may not SET; the process ends with the query.
	 */
	gpuops_device = GPO_DEVICE_CPU;
	gpuops_overlap = GPUOPS_OVERLAP_OFF;
	gpuops_threads = shared->threads;

	snapshot = RestoreSnapshot((char *) pscan + pscan->phs_snapshot_off);
	RegisterSnapshot(snapshot);
	estate = CreateExecutorState();
	estate->es_snapshot = snapshot;
	s->css.ss.ps.state = estate;
	cscan->custom_private = (List *) stringToNode(plan_str);
	s->css.ss.ps.plan = (Plan *) cscan;
	gpuops_agg_spec_from_plan(cscan, &s->spec);
	/* this process's own codes of the text keys it reads */
	gpuops_dict_create_keys(&s->spec);
	gpuops_agg_join_begin(s, cscan, estate, 0, false);
	if (s->spec.ntables != 1)
		elog(ERROR, "GpuOpsAgg worker: %d tables", s->spec.ntables);
	s->tables = palloc0(sizeof(GpuopsAggTableExec));
	te = &s->tables[0];
	te->tab = &s->spec.tables[0];
	te->rel = table_open(shared->relid, AccessShareLock);
	s->qual_cxt = CreateExprContext(estate);
	s->batch_cxt = AllocSetContextCreate(CurrentMemoryContext,
										 "GpuOpsAgg worker batch",
										 ALLOCSET_DEFAULT_SIZES);
	gpuops_agg_begin_table(s, te, estate, 0);
	/* the blocks the GPU service aggregated: never read twice */
	if (shared->nskip > 0)
	{
		if (te->cache_src == NULL)
			elog(ERROR, "GpuOpsAgg worker cannot pass over the blocks of \"%s\" that the GPU service aggregated",
				 RelationGetRelationName(te->rel));
		gpuops_cache_skip_set(te->cache_src, shared->nskip,
							  shm_toc_lookup(toc, GPUOPS_PKEY_SKIP, false));
	}
	if (s->join != NULL)
		gpuops_agg_join_shared_attach(s, te,
									  shm_toc_lookup(toc, GPUOPS_PKEY_JOIN, false));
	gpuops_agg_state_types(s);
	gpuops_agg_policy_create(s);
	if (shared->recent_nblocks > 0)
		gpuops_scan_use_recent(te->reader,
							   shm_toc_lookup(toc, GPUOPS_PKEY_RECENT, false),
							   shared->recent_nblocks);
	if (!gpuops_scan_set_parallel(te->reader, (ParallelBlockTableScanDesc) pscan))
		elog(ERROR, "GpuOpsAgg worker cannot share the reading of \"%s\"",
			 RelationGetRelationName(te->rel));
	INSTR_TIME_SET_CURRENT(ready);
	gpuops_agg_run_table(s, te);
	gpuops_parallel_send_groups(mqh, s, shared->nworkers);
	INSTR_TIME_SET_CURRENT(done);
	INSTR_TIME_SUBTRACT(done, ready);
	INSTR_TIME_SUBTRACT(ready, start);
	elog(DEBUG1, "GpuOpsAgg worker %d: set-up %.1f ms, %lld rows, read %.1f ms (pinning %.1f ms), engine %.1f ms, groups sent after %.1f ms",
		 ParallelWorkerNumber, INSTR_TIME_GET_MILLISEC(ready),
		 (long long) s->rows_in, s->read_ms, s->pin_ms, s->engine_ms,
		 INSTR_TIME_GET_MILLISEC(done));

	gpuops_scan_end(te->reader);
	table_close(te->rel, AccessShareLock);
	FreeExecutorState(estate);
	UnregisterSnapshot(snapshot);
	shm_mq_detach(mqh);
}
