/*
 * agg_exec.c
 *	  Execution of the GpuOpsAgg custom scan.
 *
 * The node reads the needed columns of its table in batches (scan_reader.c:
 * page batches decoded by all cores for heap tables, the table AM's slots
 * otherwise or when a clause must run in PostgreSQL), so MVCC, privileges
 * and row-level security hold as in a sequential scan.  For each batch the
 * engine evaluates the device clauses as a mask (gpo_filter), compacts the
 * passing rows (gpo_compact + gpo_gather; or, when most pass and the one key
 * has no NULL, makes the failing rows' keys NULL and drops that group),
 * and hands the batch to the node's grouping policy (agg_policy.h): one
 * reduction without GROUP BY, the engine's running dense aggregation,
 * which keeps its groups (on the GPU, in device memory) until the end of
 * the table, or gpo_groupagg, the batch's groups then merging into the
 * running groups (agg_state.c).  With worker processes (agg_parallel.c)
 * each process reads its share of the blocks and the backend merges the
 * workers' groups.  Past gpuops.max_group_memory the running groups spill to
 * temporary files as sorted runs (agg_spill.c).  When the table is
 * exhausted, the groups come out as scan tuples (a spilled state's merged
 * back in key order), and PostgreSQL applies HAVING and the target list to
 * them.
 *
 * Every engine call runs on the face gpuops.device selects; interrupts are
 * checked between batches.  Under gpuops.overlap a helper thread forms a
 * batch's groups while the next batch is read (agg_job.c).  All memory is
 * palloc'd in the query's contexts (a per-batch context is reset after each
 * batch's merge); the engine's GPU faces free a call's device memory before
 * they return, and the running aggregations' memory is freed by a reset
 * callback of the query's context, so an error or a cancel leaks nothing.
 */
#include "aggnode/exec/agg_policy.h"

#include "access/table.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "portability/instr_time.h"
#include "storage/bufmgr.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

#include "gpo_join.h"
#include "gpo_keypack.h"

static Node *gpuops_agg_create_state(CustomScan *cscan);
static void gpuops_agg_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *gpuops_agg_exec(CustomScanState *node);
static void gpuops_agg_end(CustomScanState *node);
static void gpuops_agg_rescan(CustomScanState *node);

CustomScanMethods gpuops_agg_scan_methods = {
	.CustomName = "GpuOpsAgg",
	.CreateCustomScanState = gpuops_agg_create_state,
};

static CustomExecMethods gpuops_agg_exec_methods = {
	.CustomName = "GpuOpsAgg",
	.BeginCustomScan = gpuops_agg_begin,
	.ExecCustomScan = gpuops_agg_exec,
	.EndCustomScan = gpuops_agg_end,
	.ReScanCustomScan = gpuops_agg_rescan,
	.ExplainCustomScan = gpuops_agg_explain,
};

/* CreateCustomScanState: an empty GpuOpsAgg state. */
static Node *
gpuops_agg_create_state(CustomScan *cscan)
{
	GpuopsAggScanState *s = palloc0(sizeof(GpuopsAggScanState));

	NodeSetTag(s, T_CustomScanState);
	s->css.methods = &gpuops_agg_exec_methods;
	return (Node *) s;
}

/*
 * BeginCustomScan: decode the plan, open the partitions (a plain table is
 * opened by the executor), set up each table's reading.
 */
static void
gpuops_agg_begin(CustomScanState *node, EState *estate, int eflags)
{
	GpuopsAggScanState *s = (GpuopsAggScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	ListCell   *lc;
	int			t;

	gpuops_agg_spec_from_plan(cscan, &s->spec);
	s->splits = (List *) list_nth(cscan->custom_private, PRIV_SPLITS);
	foreach(lc, (List *) list_nth(cscan->custom_private, PRIV_DERIVED))
	{
		Expr	   *e = (Expr *) copyObject(lfirst(lc));

		fix_opfuncids((Node *) e);
		s->derived = lappend(s->derived, ExecInitExpr(e, &node->ss.ps));
	}
	gpuops_dict_create_keys(&s->spec);
	gpuops_agg_mapped_begin(s, cscan);
	gpuops_agg_join_begin(s, cscan, estate, eflags, true);
	s->tables = palloc0(sizeof(GpuopsAggTableExec) * Max(s->spec.ntables, 1));
	s->qual_cxt = CreateExprContext(estate);
	s->batch_cxt = AllocSetContextCreate(estate->es_query_cxt,
										 "GpuOpsAgg batch",
										 ALLOCSET_DEFAULT_SIZES);
	/* each group's result values, freed when the next group is asked for */
	s->out_cxt = AllocSetContextCreate(estate->es_query_cxt,
									   "GpuOpsAgg group out",
									   ALLOCSET_DEFAULT_SIZES);
	for (t = 0; t < s->spec.ntables; t++)
	{
		GpuopsAggTableExec *te = &s->tables[t];

		te->tab = &s->spec.tables[t];
		if (cscan->scan.scanrelid > 0)
			te->rel = node->ss.ss_currentRelation;
		else
		{
			/* the planner locked every partition it kept; this only opens */
			te->rel = table_open(te->tab->relid, AccessShareLock);
			te->opened = true;
		}
		gpuops_agg_begin_table(s, te, estate, eflags);
	}
	gpuops_agg_state_types(s);
	gpuops_agg_policy_create(s);
}


/*
 * Takes the read's share of the core budget (budget.c): the threads it would
 * use alone (no more than the rows are worth), at most what is free, at least
 * one; then the worker processes it may start (none under 3 threads, at most
 * one a thread beside the backend's, as agg_cost.c plans them) and the
 * decoders' threads.
 */
static void
gpuops_agg_take_threads(GpuopsAggScanState *s)
{
	EState	   *estate = s->css.ss.ps.state;
	MemoryContext old = MemoryContextSwitchTo(estate->es_query_cxt);
	gpo_ctx		ctx;
	int			want;
	int			got;
	int			t;
	double		rows = 0;

	for (t = 0; t < s->spec.ntables; t++)
		rows += gpuops_agg_table_rows(s->tables[t].rel);
	gpuops_ctx_init(&ctx);
	want = Max(1, Min(gpo_threads(&ctx), gpuops_agg_threads_worth(s, rows)));
	got = gpuops_budget_acquire(want, &s->lease);
	MemoryContextSwitchTo(old);
	s->threads_got = got > 0 ? got : want;
	s->workers_allowed = s->threads_got < 3 ? 0 :
		Min(s->spec.parallel_workers, s->threads_got - 1);
	for (t = 0; t < s->spec.ntables; t++)
		if (s->tables[t].reader)
			gpuops_scan_limit_threads(s->tables[t].reader,
									  Max(1, s->threads_got -
										  (gpuops_agg_overlaps(INT64_MAX) ? 1 : 0)));
}

/*
 * Blocks left to read after the GPU service aggregated the kept ranges
 * (32 MB, and an eighth of the table at most) that the backend reads
 * alone, since starting worker processes (10-20 ms) costs more.
 */
#define GPUOPS_AGG_KEPT_SERIAL_BLOCKS	4096

/* Reads and aggregates every table within the read's share of the cores. */
static void
gpuops_agg_run(GpuopsAggScanState *s)
{
	bool		parallel;
	int			t;

	gpuops_agg_take_threads(s);
	/* a star join's dimensions first (its fact table is the one table) */
	gpuops_agg_join_build(s, &s->tables[0]);
	/* with worker processes the first time (a rescan reads alone) */
	parallel = s->workers_allowed > 0 && !s->rescanned && s->spec.ntables == 1;
	for (t = 0; t < s->spec.ntables; t++)
	{
		int64		rest = -1;

		/* ranges the GPU service keeps: aggregated there, passed over here */
		if (s->tables[t].reader != NULL &&
			gpuops_agg_kept_run(s, &s->tables[t], &rest))
		{
			if (rest == 0)
				continue;
			/* a few stale blocks are read sooner than workers start */
			if (rest < GPUOPS_AGG_KEPT_SERIAL_BLOCKS &&
				rest * 8 < (int64) RelationGetNumberOfBlocks(s->tables[t].rel))
				parallel = false;
		}
		if (t > 0 || !parallel || !gpuops_agg_parallel_run(s, &s->tables[0]))
			gpuops_agg_run_table(s, &s->tables[t]);
	}
	/* groups on disk: merged back as they come out */
	gpuops_aggstate_finish(&s->groups);
	/* functions of one text column: grouped again by their values */
	gpuops_agg_mapped_regroup(s);
	/* a top-N by a count: only the groups that may be among it */
	gpuops_agg_bound_set(s, (CustomScan *) s->css.ss.ps.plan);
	gpuops_budget_release(s->lease);
	s->aggregated = true;
	s->next_group = 0;
	s->piece = NULL;
	s->piece_next = 0;
	s->fold = NULL;
}

/* The next group as a scan tuple, or NULL when all are out. */
static TupleTableSlot *
gpuops_agg_next_group(GpuopsAggScanState *s)
{
	TupleTableSlot *slot = s->css.ss.ss_ScanTupleSlot;
	const GpuopsAggState *st;
	int64		g;

	ExecClearTuple(slot);
	if (s->spec.nkeys_out < s->spec.nkeys)
	{
		if (!gpuops_agg_next_folded(s, slot))
			return NULL;
	}
	else if (s->spec.nkeys == 0 && s->groups.ngroups == 0)
	{
		if (s->next_group++ > 0)
			return NULL;
		gpuops_agg_empty_row(s, slot);
	}
	else if (gpuops_agg_next_engine_group(s, &st, &g))
		gpuops_aggstate_tuple(st, &s->spec, g, slot->tts_values, slot->tts_isnull);
	else
		return NULL;
	gpuops_agg_add_splits(s, slot);
	ExecStoreVirtualTuple(slot);
	gpuops_agg_add_derived(s, slot);
	return slot;
}

/* ExecCustomScan: aggregate on the first call, then return groups through HAVING and the target list. */
static TupleTableSlot *
gpuops_agg_exec(CustomScanState *node)
{
	GpuopsAggScanState *s = (GpuopsAggScanState *) node;
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	ExprState  *qual = node->ss.ps.qual;
	ProjectionInfo *proj = node->ss.ps.ps_ProjInfo;

	if (!s->aggregated)
		gpuops_agg_run(s);
	for (;;)
	{
		TupleTableSlot *slot;
		MemoryContext old;

		CHECK_FOR_INTERRUPTS();
		/* the previous group's values (numerics, text) are no longer used */
		MemoryContextReset(s->out_cxt);
		old = MemoryContextSwitchTo(s->out_cxt);
		slot = gpuops_agg_next_group(s);
		MemoryContextSwitchTo(old);
		if (slot == NULL)
			return NULL;
		ResetExprContext(econtext);
		econtext->ecxt_scantuple = slot;
		if (qual != NULL && !ExecQual(qual, econtext))
		{
			InstrCountFiltered1(node, 1);
			continue;
		}
		return proj ? ExecProject(proj) : slot;
	}
}

/* EndCustomScan: release the readers (pins, table scans) and the partitions. */
static void
gpuops_agg_end(CustomScanState *node)
{
	GpuopsAggScanState *s = (GpuopsAggScanState *) node;
	int			t;

	if (s->policy != NULL)
		s->policy->funcs->destroy(s->policy);
	gpuops_aggstate_spill_end(&s->groups);
	gpuops_agg_join_end(s);
	for (t = 0; t < s->spec.ntables; t++)
	{
		GpuopsAggTableExec *te = &s->tables[t];

		if (te->reader)
			gpuops_scan_end(te->reader);
		te->reader = NULL;
		if (te->opened)
			table_close(te->rel, NoLock);
		te->opened = false;
	}
}

/* ReScanCustomScan: forget the groups and read the tables again. */
static void
gpuops_agg_rescan(CustomScanState *node)
{
	GpuopsAggScanState *s = (GpuopsAggScanState *) node;
	MemoryContext old;
	int			t;

	for (t = 0; t < s->spec.ntables; t++)
		if (s->tables[t].reader)
			gpuops_scan_rescan(s->tables[t].reader);
	gpuops_agg_join_rescan(s);
	/* the groups live as long as the query, whoever asks for the rescan */
	old = MemoryContextSwitchTo(node->ss.ps.state->es_query_cxt);
	gpuops_aggstate_spill_end(&s->groups);
	gpuops_agg_mapped_rescan(s);
	gpuops_agg_state_types(s);
	MemoryContextSwitchTo(old);
	s->aggregated = false;
	s->rescanned = true;
	s->next_group = 0;
}
