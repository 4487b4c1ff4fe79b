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
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

#include "gpo_join.h"
#include "gpo_keypack.h"

/* Smallest batch, in bytes of the widest column, per face. */
#define GPUOPS_AGG_BATCH_CPU_BYTES (4.0 * 1024 * 1024)
#define GPUOPS_AGG_BATCH_GPU_BYTES (16.0 * 1024 * 1024)

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

/* The reader column of attno (dictionary codes when dict is set), added if new. */
static int
gpuops_agg_add_col(GpuopsAggTableExec *te, AttrNumber attno,
				   GpuopsTextDict *dict)
{
	int			i;
	GpuopsScanCol *c;

	for (i = 0; i < te->ncols; i++)
		if (te->cols[i].attnum == attno)
			return i;
	c = &te->cols[te->ncols];
	c->attnum = attno;
	c->typid = TupleDescAttr(RelationGetDescr(te->rel), attno - 1)->atttypid;
	if (dict != NULL)
	{
		/* a text key: its dictionary codes */
		c->type = GPO_INT32;
		c->encode = gpuops_dict_encode;
		c->encode_arg = dict;
	}
	else if (!gpuops_scan_col_type(c->typid, &c->type))
		elog(ERROR, "GpuOpsAgg cannot read column %d of type %u", attno,
			 c->typid);
	return te->ncols++;
}

/* The key and value types of the running groups (those of the first table). */
void
gpuops_agg_state_types(GpuopsAggScanState *s)
{
	GpuopsAggTableExec *te = &s->tables[0];
	gpo_type	key_types[GPUOPS_AGG_MAX_KEYS];
	gpo_type   *val_types = palloc(sizeof(gpo_type) * Max(s->spec.nvals, 1));
	int			i;

	for (i = 0; i < s->spec.nkeys; i++)
		key_types[i] = te->cols[te->key_col[i]].type;
	for (i = 0; i < s->spec.nvals; i++)
		val_types[i] = te->val_col[i] >= 0 ? te->cols[te->val_col[i]].type :
			GPO_INT32;

	gpuops_aggstate_init(&s->groups, s->spec.nkeys, key_types, s->spec.nvals,
						 val_types);
}

/*
 * The node's grouping policy (agg_policy.h), in the current memory context:
 * plain without GROUP BY, else the running groups over the merge.
 */
void
gpuops_agg_policy_create(GpuopsAggScanState *s)
{
	if (s->spec.nkeys == 0)
		s->policy = gpuops_agg_policy_plain_create(s);
	else
		s->policy = gpuops_agg_policy_runs_create(s);
}

/*
 * Rows per batch.  Small batches stay in the CPU caches between the decoding
 * and the engine (measured on 1e7 rows, 2 cores: 115 ms a query with 8M-row
 * batches, 86 ms with 512K), but each batch's groups are merged into the
 * running ones, so a batch holds at least 64 rows an estimated group.  The
 * GPU face takes larger batches (fewer transfers and launches).  At most
 * gpuops.chunk_size bytes of the widest column.
 */
static int64
gpuops_agg_batch_rows(GpuopsAggScanState *s, GpuopsAggTableExec *te)
{
	size_t		widest = 4;
	double		bytes;
	int			i;

	for (i = 0; i < te->ncols; i++)
		widest = Max(widest, gpo_type_size(te->cols[i].type));
	bytes = gpuops_agg_gpu_possible() ?
		GPUOPS_AGG_BATCH_GPU_BYTES : GPUOPS_AGG_BATCH_CPU_BYTES;
	bytes = Max(bytes, s->spec.est_groups * 64.0 * widest);
	bytes = Min(bytes, (double) gpuops_chunk_size);
	/* a batch for the GPU service takes at most a quarter of its arena */
	if (gpuops_agg_served())
		bytes = Min(bytes, gpuops_service_arena_bytes() / (4.0 * (te->ncols + 1)));
	return Max((int64) 1, (int64) (bytes / widest));
}

/* Sets up the reading of one table: its columns, device program and CPU qual. */
void
gpuops_agg_begin_table(GpuopsAggScanState *s, GpuopsAggTableExec *te,
					   EState *estate, int eflags)
{
	GpuopsAggTable *tab = te->tab;
	int			natts = RelationGetDescr(te->rel)->natts;
	int		   *attno_col;
	gpo_type   *col_types;
	Bitmapset  *qual_attnos;
	gpo_ctx		ctx;
	int			i;
	int			x;

	te->cols = palloc0(sizeof(GpuopsScanCol) * (natts + 1));
	te->val_col = palloc0(sizeof(int) * Max(s->spec.nvals, 1));
	for (i = 0; i < s->spec.nkeys; i++)
		te->key_col[i] = gpuops_agg_add_col(te, tab->key_attnos[i],
											s->spec.key_dicts[i]);
	for (i = 0; i < s->spec.nvals; i++)
		te->val_col[i] = tab->val_attnos[i] > 0 ?
			gpuops_agg_add_col(te, tab->val_attnos[i], NULL) : -1;
	qual_attnos = gpuops_quals_attnos(tab->device_quals, NULL);
	for (i = 0; i < s->spec.nfilters; i++)
		qual_attnos = gpuops_quals_attnos(tab->filter_quals[i], qual_attnos);
	x = -1;
	while ((x = bms_next_member(qual_attnos, x)) >= 0)
		gpuops_agg_add_col(te, (AttrNumber) x, NULL);

	attno_col = palloc(sizeof(int) * (natts + 1));
	for (i = 0; i <= natts; i++)
		attno_col[i] = -1;
	col_types = palloc(sizeof(gpo_type) * Max(te->ncols, 1));
	for (i = 0; i < te->ncols; i++)
	{
		attno_col[te->cols[i].attnum] = i;
		col_types[i] = te->cols[i].type;
	}
	te->nprog = gpuops_quals_program(tab->device_quals, tab->rti, attno_col,
									 natts, col_types, &te->prog);
	te->fprog = palloc0(sizeof(gpo_pred *) * Max(s->spec.nfilters, 1));
	te->fnprog = palloc0(sizeof(int) * Max(s->spec.nfilters, 1));
	for (i = 0; i < s->spec.nfilters; i++)
		te->fnprog[i] = gpuops_quals_program(tab->filter_quals[i], tab->rti,
											 attno_col, natts, col_types,
											 &te->fprog[i]);

	/*
	 * No parent: the node's own scan slot is virtual (the groups), while this
	 * qual reads the table's slots, which must be deformed.
	 */
	if (tab->cpu_quals != NIL)
		te->cpu_qual = ExecInitQual(tab->cpu_quals, NULL);

	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;
	/* while a helper thread aggregates, the decoders leave it a core */
	gpuops_ctx_init(&ctx);
	te->reader = gpuops_scan_begin(te->rel, estate->es_snapshot, te->ncols,
								   te->cols, gpuops_agg_batch_rows(s, te),
								   te->cpu_qual, s->qual_cxt, true,
								   Max(1, gpo_threads(&ctx) -
									   (gpuops_agg_overlaps(INT64_MAX) ? 1 : 0)));
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
	int			t;

	gpuops_agg_spec_from_plan(cscan, &s->spec);
	for (t = 0; t < s->spec.nkeys; t++)
		if (gpuops_agg_text_key(s->spec.key_types[t], s->spec.key_collations[t]))
			s->spec.key_dicts[t] = gpuops_dict_create();
	s->tables = palloc0(sizeof(GpuopsAggTableExec) * Max(s->spec.ntables, 1));
	s->qual_cxt = CreateExprContext(estate);
	s->batch_cxt = AllocSetContextCreate(estate->es_query_cxt,
										 "GpuOpsAgg batch",
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
 * Waits for the batch in flight, merges it and frees its memory, and at the
 * end of the table (last) also every group the policy holds; adds the time
 * the backend spent here since start to the engine's.
 */
static void
gpuops_agg_settle(GpuopsAggScanState *s, instr_time start, bool last)
{
	MemoryContext old = MemoryContextSwitchTo(s->batch_cxt);
	instr_time	dur;

	if (last)
		s->policy->funcs->finish(s->policy);
	else
		s->policy->funcs->settle(s->policy);
	MemoryContextSwitchTo(old);
	MemoryContextReset(s->batch_cxt);
	INSTR_TIME_SET_CURRENT(dur);
	INSTR_TIME_SUBTRACT(dur, start);
	s->engine_ms += INSTR_TIME_GET_MILLISEC(dur);
}

/*
 * Reads every batch of one table and aggregates it.  Under gpuops.overlap
 * the group aggregation of a batch runs on a helper thread while the next
 * batch is read (into the reader's other arrays), and is merged before that
 * next batch goes to the engine; everything of a batch lives in batch_cxt
 * until its merge.
 */
void
gpuops_agg_run_table(GpuopsAggScanState *s, GpuopsAggTableExec *te)
{
	GpuopsScanBatch *batch;
	const GpuopsScanStats *stats;
	MemoryContext old;
	instr_time	start;

	/* decided once: a job may only read arrays the reader leaves alone */
	s->overlap = gpuops_agg_overlaps(INT64_MAX);
	s->policy->funcs->reset(s->policy);
	if (s->overlap)
		gpuops_scan_double_buffer(te->reader);
	/* this backend's GPU face copies page-locked batches without staging them */
	if (gpuops_pinned_batches && gpuops_agg_gpu_possible() && !gpuops_agg_served())
		gpuops_scan_lock_arrays(te->reader);
	while (gpuops_scan_next(te->reader, &batch))
	{
		int64		n = batch->nrows;
		int64		passed;
		bool		null_key_out = false;
		bool		in_flight = false;
		gpo_vector *vecs;
		gpo_chunk  *chunks;
		int			i;

		CHECK_FOR_INTERRUPTS();
		if (n == 0)
			continue;
		INSTR_TIME_SET_CURRENT(start);
		gpuops_agg_settle(s, start, false);
		INSTR_TIME_SET_CURRENT(start);
		s->batches++;
		s->rows_in += n;
		old = MemoryContextSwitchTo(s->batch_cxt);
		vecs = palloc(sizeof(gpo_vector) * Max(te->ncols, 1));
		chunks = palloc(sizeof(gpo_chunk) * Max(te->ncols, 1));
		for (i = 0; i < te->ncols; i++)
		{
			gpuops_one_chunk_vector(&vecs[i], &chunks[i], te->cols[i].type,
									batch->data[i],
									batch->has_nulls[i] ? batch->validity[i] : NULL, n);
			s->bytes_in += n * gpo_type_size(te->cols[i].type);
		}
		if (te->nprog > 0)
			passed = gpuops_agg_filter(s, te, vecs, chunks, &n, &null_key_out);
		else
			passed = n;
		s->rows_passed += passed;
		if (passed > 0)
			in_flight = s->policy->funcs->add_batch(s->policy, te, vecs, n,
													null_key_out);
		MemoryContextSwitchTo(old);
		if (!in_flight)
			gpuops_agg_settle(s, start, false);
		else
		{
			instr_time	dur;

			INSTR_TIME_SET_CURRENT(dur);
			INSTR_TIME_SUBTRACT(dur, start);
			s->engine_ms += INSTR_TIME_GET_MILLISEC(dur);
		}
	}
	INSTR_TIME_SET_CURRENT(start);
	/* the running groups come back once, at the end of the table */
	gpuops_agg_settle(s, start, true);
	stats = gpuops_scan_stats(te->reader);
	s->read_ms += stats->read_ms;
	s->pin_ms += stats->pin_ms;
	if (stats->fast)
		s->fast_read = true;
	else
		s->slot_read = true;
}

/*
 * Takes the read's share of the core budget (budget.c): the threads it would
 * use alone, at most what is free, at least one; then the worker processes
 * it may start (none under 3 threads, at most one a thread beside the
 * backend's, as agg_plan.c plans them) and the decoders' threads.
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

	gpuops_ctx_init(&ctx);
	want = gpo_threads(&ctx);
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

/* Reads and aggregates every table within the read's share of the cores. */
static void
gpuops_agg_run(GpuopsAggScanState *s)
{
	int			t;

	gpuops_agg_take_threads(s);
	/* with worker processes the first time (a rescan reads alone) */
	if (s->workers_allowed > 0 && !s->rescanned && s->spec.ntables == 1 &&
		gpuops_agg_parallel_run(s, &s->tables[0]))
		t = 1;
	else
		t = 0;
	for (; t < s->spec.ntables; t++)
		gpuops_agg_run_table(s, &s->tables[t]);
	/* groups on disk: merged back as they come out */
	gpuops_aggstate_finish(&s->groups);
	gpuops_budget_release(s->lease);
	s->aggregated = true;
	s->next_group = 0;
	s->piece = NULL;
	s->piece_next = 0;
}

/*
 * The next group of a spilled state, read back in key order, as a group
 * of s->piece at s->piece_next - 1; false when all are out.
 */
static bool
gpuops_agg_next_spilled(GpuopsAggScanState *s)
{
	if (s->piece == NULL || s->piece_next >= s->piece->ngroups)
	{
		if (gpuops_aggstate_next_piece(&s->groups, &s->piece) == 0)
			return false;
		s->piece_next = 0;
	}
	s->piece_next++;
	return true;
}

/* The next group as a scan tuple, or NULL when all are out. */
static TupleTableSlot *
gpuops_agg_next_group(GpuopsAggScanState *s)
{
	TupleTableSlot *slot = s->css.ss.ss_ScanTupleSlot;
	int			a;

	ExecClearTuple(slot);
	if (s->spec.nkeys == 0 && s->groups.ngroups == 0)
	{
		/* aggregates without GROUP BY over no rows: one row, as Agg gives */
		if (s->next_group > 0)
			return NULL;
		for (a = 0; a < s->spec.naggs; a++)
		{
			GpuopsAggKind kind = s->spec.aggs[a].kind;
			bool		counts = kind == GPUOPS_AGG_COUNT ||
				kind == GPUOPS_AGG_COUNT_STAR;

			slot->tts_values[a] = Int64GetDatum(0);
			slot->tts_isnull[a] = !counts;
		}
		s->next_group++;
		return ExecStoreVirtualTuple(slot);
	}
	if (gpuops_aggstate_spilled(&s->groups))
	{
		if (!gpuops_agg_next_spilled(s))
			return NULL;
		gpuops_aggstate_tuple(s->piece, &s->spec, s->piece_next - 1,
							  slot->tts_values, slot->tts_isnull);
		return ExecStoreVirtualTuple(slot);
	}
	if (s->next_group >= s->groups.ngroups)
		return NULL;
	gpuops_aggstate_tuple(&s->groups, &s->spec, s->next_group,
						  slot->tts_values, slot->tts_isnull);
	s->next_group++;
	return ExecStoreVirtualTuple(slot);
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

		CHECK_FOR_INTERRUPTS();
		slot = gpuops_agg_next_group(s);
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
	/* the groups live as long as the query, whoever asks for the rescan */
	old = MemoryContextSwitchTo(node->ss.ps.state->es_query_cxt);
	gpuops_aggstate_spill_end(&s->groups);
	gpuops_agg_state_types(s);
	MemoryContextSwitchTo(old);
	s->aggregated = false;
	s->rescanned = true;
	s->next_group = 0;
}
