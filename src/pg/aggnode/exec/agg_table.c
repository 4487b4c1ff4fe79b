/*
 * agg_table.c
 *	  Reading one table of a GpuOpsAgg scan: the reader's columns, the
 *	  device programs and CPU qual, the batch size, and the batch loop that
 *	  filters each batch and hands it to the grouping policy (agg_policy.h);
 *	  the clauses tested before a batch is decoded are agg_prefilter.c's.
 *	  The backend runs it for each table, and so does each worker process
 *	  for its share of the blocks (agg_parallel.c).
 */
#include "aggnode/exec/agg_policy.h"
#include "cache/gpuops_cache.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "optimizer/plancat.h"
#include "portability/instr_time.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

/* Smallest batch, in bytes of the widest column, per face. */
#define GPUOPS_AGG_BATCH_CPU_BYTES (4.0 * 1024 * 1024)
#define GPUOPS_AGG_BATCH_GPU_BYTES (16.0 * 1024 * 1024)
/*
 * Most bytes of a CPU batch's columns, read and computed, together (at
 * least a row): ClickBench's q30, 90 sums of ResolutionWidth + k, computed
 * 90 int4 columns of 1M rows a batch (360 MB), which the allocator gave
 * back to the kernel and took again every batch, faulting in their pages.
 */
#define GPUOPS_AGG_BATCH_CPU_ALL_BYTES (32.0 * 1024 * 1024)
/* Estimated groups up to which the running (dense) groups are expected. */
#define GPUOPS_AGG_RUNS_LIKELY_GROUPS 4096.0

/*
 * The reader column of attno (dictionary codes when dict is set; with
 * presence, a column of a type the reader doesn't decode holds only its
 * NULLs, for count), added if new.
 */
static int
gpuops_agg_add_col(GpuopsAggTableExec *te, AttrNumber attno,
				   GpuopsTextDict *dict, bool presence)
{
	int			i;
	int32		typmod;
	GpuopsScanCol *c;

	for (i = 0; i < te->ncols; i++)
		if (te->cols[i].attnum == attno &&
			!gpuops_agg_is_length_col(te, i))
			return i;
	c = &te->cols[te->ncols];
	c->attnum = attno;
	c->typid = TupleDescAttr(RelationGetDescr(te->rel), attno - 1)->atttypid;
	typmod = TupleDescAttr(RelationGetDescr(te->rel), attno - 1)->atttypmod;
	if (dict != NULL)
	{
		/* a text key: its dictionary codes */
		c->type = GPO_INT32;
		c->encode = gpuops_dict_encode;
		c->encode_many = gpuops_dict_encode_many;
		c->encode_arg = dict;
	}
	else if (presence && (c->typid == BPCHAROID || c->typid == VARCHAROID ||
						  !gpuops_scan_col_type_mod(c->typid, typmod, &c->type)))
	{
		/* count's argument of a type read for its NULLs alone */
		c->type = GPO_INT32;
		c->presence = true;
	}
	else if (c->typid == BPCHAROID || c->typid == VARCHAROID)
		c->type = GPO_INT64;	/* a short text key: its bytes' code */
	else if (!gpuops_scan_col_type_mod(c->typid, typmod, &c->type))
		elog(ERROR, "GpuOpsAgg cannot read column %d of type %u", attno,
			 c->typid);
	return te->ncols++;
}

/*
 * The reader column of text column attno that a clause compares as
 * dictionary codes: a text key's own, or one with a dictionary of its own
 * (a column read only for count keeps its NULLs the same as codes).
 */
static int
gpuops_agg_add_text_col(GpuopsAggTableExec *te, AttrNumber attno)
{
	int			i = gpuops_agg_add_col(te, attno, NULL, true);
	GpuopsScanCol *c = &te->cols[i];

	if (c->encode == NULL)
	{
		c->presence = false;
		c->type = GPO_INT32;
		c->encode = gpuops_dict_encode;
		c->encode_many = gpuops_dict_encode_many;
		c->encode_arg = gpuops_dict_create(0);
	}
	return i;
}

/* GpuopsQualTextCode: the code of a text constant in te's column attno. */
static int32
gpuops_agg_qual_text_code(void *arg, AttrNumber attno, Datum value)
{
	GpuopsAggTableExec *te = (GpuopsAggTableExec *) arg;
	int			i;

	for (i = 0; i < te->nread; i++)
		if (te->cols[i].attnum == attno && te->cols[i].encode != NULL &&
			!gpuops_agg_is_length_col(te, i))
			return gpuops_dict_encode(te->cols[i].encode_arg, value);
	elog(ERROR, "GpuOpsAgg reads no codes of column %d", attno);
	return 0;
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
		key_types[i] = gpuops_agg_col_type(te, te->key_col[i]);
	for (i = 0; i < s->spec.nvals; i++)
		val_types[i] = te->val_col[i] >= 0 ?
			gpuops_agg_col_type(te, te->val_col[i]) : GPO_INT32;

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
 * True where the batches will most likely go to this backend's CPU face
 * whatever the device: with the GPU service, the running groups (few
 * groups: dense keys) are the CPU face's (agg_policy_runs.c).  Those
 * batches are sized for the CPU: TPC-H Q1 on 16 cores with 5 workers took
 * 364-435 ms under gpuops.device = gpu with the GPU's batches, 265-288 ms
 * on the CPU face.
 */
static bool
gpuops_agg_runs_on_cpu(GpuopsAggScanState *s)
{
	return gpuops_agg_served() && gpuops_running_groups && s->spec.nkeys > 0 &&
		s->spec.est_groups <= GPUOPS_AGG_RUNS_LIKELY_GROUPS;
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
	size_t		row = 0;
	bool		gpu = gpuops_agg_gpu_possible() && !gpuops_agg_runs_on_cpu(s);
	double		bytes;
	int			i;

	for (i = 0; i < te->ncols + te->ncomputed; i++)
	{
		widest = Max(widest, gpo_type_size(gpuops_agg_col_type(te, i)));
		row += gpo_type_size(gpuops_agg_col_type(te, i));
	}
	bytes = gpu ? GPUOPS_AGG_BATCH_GPU_BYTES : GPUOPS_AGG_BATCH_CPU_BYTES;
	/* many columns: all of them within GPUOPS_AGG_BATCH_CPU_ALL_BYTES */
	if (!gpu && row > 0)
		bytes = Min(bytes, GPUOPS_AGG_BATCH_CPU_ALL_BYTES / row * widest);
	bytes = Max(bytes, s->spec.est_groups * 64.0 * widest);
	bytes = Min(bytes, (double) gpuops_chunk_size);
	/* a batch for the GPU service takes at most a quarter of its arena */
	if (gpuops_agg_served())
		bytes = Min(bytes, gpuops_service_arena_bytes() / (4.0 * (te->ncols + 1)));
	/*
	 * no larger than the table's blocks can hold (no snapshot's visible rows
	 * are more): a new backend's first query faults in every page of its
	 * batch arrays that it touches, and batches of 4 MB a column for a table
	 * of 4,000 rows made such a query 1.3 ms slower than native, 0.3 ms with
	 * batches the table's size (2 cores, bench/small_tables.sh)
	 */
	bytes = Min(bytes, Max((double) RelationGetNumberOfBlocks(te->rel) *
						   MaxHeapTuplesPerPage, 64.0) * widest);
	return Max((int64) 1, (int64) (bytes / widest));
}

/* The rows rel holds now, as the planner estimates them (estimate_rel_size). */
double
gpuops_agg_table_rows(Relation rel)
{
	BlockNumber pages;
	double		tuples;
	double		allvisfrac;

	estimate_rel_size(rel, NULL, &pages, &tuples, &allvisfrac);
	return tuples;
}

/*
 * Threads worth waking for rows rows (GPUOPS_AGG_THREAD_ROWS) under
 * gpuops.threads = 0; INT_MAX, all it asks for, where gpuops.threads is
 * set or where the plan has worker processes, which need the team it
 * planned with.
 */
int
gpuops_agg_threads_worth(GpuopsAggScanState *s, double rows)
{
	if (gpuops_threads > 0 || s->spec.parallel_workers > 0)
		return INT_MAX;
	return (int) Max(1.0, Min(ceil(rows / GPUOPS_AGG_THREAD_ROWS),
							  (double) INT_MAX));
}

/*
 * The batch column of attno: the reader's, or a star join's virtual
 * column (numbered from natts + 1, after the reader's nread columns).
 */
static int
gpuops_agg_attno_col(GpuopsAggTableExec *te, AttrNumber attno, int natts)
{
	int			i;

	if (attno > natts)
		return te->nread + (attno - natts - 1);
	for (i = 0; i < te->nread; i++)
		if (te->cols[i].attnum == attno &&
			!gpuops_agg_is_length_col(te, i))
			return i;
	elog(ERROR, "GpuOpsAgg reads no column %d", attno);
	return -1;
}

/*
 * Compiles te's device clauses: the masks into te->prog (*preds gets
 * them), the bool expressions (clauses no row can make fail) into
 * te->wexpr, over the reader's columns.
 */
static void
gpuops_agg_compile_quals(GpuopsAggTableExec *te, GpuopsAggTable *tab,
						 const int *attno_col, int natts,
						 const gpo_type *col_types, List **preds)
{
	ListCell   *lc;

	*preds = NIL;
	te->nwexpr = 0;
	te->wexpr = palloc0(sizeof(GpuopsExprProgram) *
						Max(list_length(tab->device_quals), 1));
	foreach(lc, tab->device_quals)
	{
		Expr	   *q = (Expr *) lfirst(lc);

		if (gpuops_qual_on_device(q, tab->rti))
			*preds = lappend(*preds, q);
		else if (!gpuops_expr_compile(q, tab->rti, attno_col, natts, te->nread,
									  &te->wexpr[te->nwexpr++]))
			elog(ERROR, "GpuOpsAgg cannot evaluate a WHERE clause it planned");
	}
	te->nprog = gpuops_quals_program(*preds, tab->rti, attno_col, natts,
									 col_types, gpuops_agg_qual_text_code, te,
									 &te->prog);
}

/*
 * The batch column of a key's or value's expression: a length column
 * itself where the expression is one alone (agg_length.c; a FILTER applies
 * to it as to any plain column), else a column computed from it.
 */
static int
gpuops_agg_expr_col(GpuopsAggTableExec *te, Expr *expr, int filter,
					const int *attno_col, int natts)
{
	if (IsA(expr, Var))
		return attno_col[((Var *) expr)->varattno];
	return gpuops_agg_add_computed(te, expr, filter, attno_col, natts);
}

/* Sets up the reading of one table: its columns, device program and CPU qual. */
void
gpuops_agg_begin_table(GpuopsAggScanState *s, GpuopsAggTableExec *te,
					   EState *estate, int eflags)
{
	GpuopsAggTable *tab;
	int			natts = RelationGetDescr(te->rel)->natts;
	int			nvirt = s->join ? s->join->ngather : 0;
	int			all = natts + nvirt;	/* attribute numbers, virtual ones too */
	int		   *attno_col;
	gpo_type   *col_types;
	Bitmapset  *qual_attnos;
	List	   *preds;
	gpo_ctx		ctx;
	int			threads;
	ListCell   *lc;
	int			i;
	int			x;

	if (s->join && s->join->fact_natts != natts)
		elog(ERROR, "GpuOpsAgg: table \"%s\" changed since it was planned",
			 RelationGetRelationName(te->rel));
	/* length calls read as columns of their own, numbered after all */
	te->len_col0 = INT_MAX;
	tab = gpuops_agg_length_map(te, s->spec.nkeys, s->spec.nvals,
								s->spec.nfilters, (AttrNumber) (all + 1));
	te->cols = palloc0(sizeof(GpuopsScanCol) * (all + te->nlen + 1));
	te->val_col = palloc0(sizeof(int) * Max(s->spec.nvals, 1));
	te->computed = palloc0(sizeof(GpuopsAggComputed) *
						   (s->spec.nkeys + s->spec.nvals +
							list_length(tab->checks) + 1));
	/* the reader's columns first */
	for (i = 0; i < s->spec.nkeys; i++)
		if (tab->key_exprs[i] == NULL && tab->key_attnos[i] <= natts)
			gpuops_agg_add_col(te, tab->key_attnos[i], s->spec.key_dicts[i],
							   false);
	/* a label key's column: codes of the key's own dictionary (agg_label.c) */
	for (i = 0; i < s->spec.nkeys; i++)
	{
		AttrNumber	src = gpuops_label_source((Node *) tab->key_exprs[i]);

		if (src > 0 && s->spec.key_dicts[i] != NULL &&
			te->cols[gpuops_agg_add_col(te, src, s->spec.key_dicts[i],
										false)].encode_arg != s->spec.key_dicts[i])
			elog(ERROR, "GpuOpsAgg: a label key's column has another dictionary");
	}
	for (i = 0; i < s->spec.nvals; i++)
		if (tab->val_attnos[i] > 0 && tab->val_attnos[i] <= natts)
			gpuops_agg_add_col(te, tab->val_attnos[i], NULL,
							   gpuops_agg_val_presence(&s->spec, i));
	/* the columns the clauses, the expressions and the joins read */
	qual_attnos = gpuops_quals_attnos(tab->device_quals, NULL);
	for (i = 0; i < s->spec.nfilters; i++)
		qual_attnos = gpuops_quals_attnos(tab->filter_quals[i], qual_attnos);
	for (i = 0; i < s->spec.nkeys; i++)
		if (tab->key_exprs[i] != NULL)
			qual_attnos = gpuops_quals_attnos(list_make1(tab->key_exprs[i]),
											  qual_attnos);
	for (i = 0; i < s->spec.nvals; i++)
		if (tab->val_exprs[i] != NULL)
			qual_attnos = gpuops_quals_attnos(list_make1(tab->val_exprs[i]),
											  qual_attnos);
	qual_attnos = gpuops_quals_attnos(tab->checks, qual_attnos);
	for (i = 0; s->join && i < s->join->ndims; i++)
	{
		qual_attnos = bms_add_member(qual_attnos, s->join->dims[i].fk_attno);
		if (s->join->dims[i].key_resno2 > 0)
			qual_attnos = bms_add_member(qual_attnos, s->join->dims[i].fk_attno2);
	}
	x = -1;
	while ((x = bms_next_member(qual_attnos, x)) >= 0)
	{
		Form_pg_attribute att;

		if (x > natts)
			continue;
		att = TupleDescAttr(RelationGetDescr(te->rel), x - 1);
		/* a text column a clause reads is compared as codes */
		if (gpuops_agg_text_codes_col(att->atttypid, att->atttypmod,
									  att->attcollation))
			gpuops_agg_add_text_col(te, (AttrNumber) x);
		else
			gpuops_agg_add_col(te, (AttrNumber) x, NULL, false);
	}
	gpuops_agg_add_length_cols(te);
	te->nread = te->ncols;
	if (s->join)
		gpuops_agg_join_add_cols(s, te);
	for (i = 0; i < s->spec.nkeys; i++)
		if (tab->key_exprs[i] == NULL)
			te->key_col[i] = gpuops_agg_attno_col(te, tab->key_attnos[i], natts);
	for (i = 0; i < s->spec.nvals; i++)
		te->val_col[i] = tab->val_attnos[i] > 0 ?
			gpuops_agg_attno_col(te, tab->val_attnos[i], natts) : -1;

	attno_col = palloc(sizeof(int) * (all + te->nlen + 1));
	for (i = 0; i <= all + te->nlen; i++)
		attno_col[i] = -1;
	col_types = palloc(sizeof(gpo_type) * Max(te->ncols, 1));
	for (i = 0; i < te->ncols; i++)
	{
		if (gpuops_agg_is_length_col(te, i))
			attno_col[all + 1 + (i - te->len_col0)] = i;
		else
			attno_col[te->cols[i].attnum] = i;
		col_types[i] = te->cols[i].type;
	}
	natts = all + te->nlen;
	for (i = 0; i < s->spec.nkeys; i++)
		if (tab->key_exprs[i] != NULL)
			te->key_col[i] = gpuops_agg_expr_col(te, tab->key_exprs[i], -1,
												 attno_col, natts);
	for (i = 0; i < s->spec.nvals; i++)
		if (tab->val_exprs[i] != NULL)
			te->val_col[i] = gpuops_agg_expr_col(te, tab->val_exprs[i],
												 s->spec.val_filters[i],
												 attno_col, natts);
	/* derived keys: columns no grouping reads, for their rows' errors */
	foreach(lc, tab->checks)
		(void) gpuops_agg_add_computed(te, (Expr *) lfirst(lc), -1, attno_col,
									   natts);
	gpuops_agg_compile_quals(te, tab, attno_col, natts, col_types, &preds);
	gpuops_agg_early_program(te, tab, preds, attno_col, natts, col_types,
							 (AttrNumber) (all + 1));
	te->fprog = palloc0(sizeof(gpo_pred *) * Max(s->spec.nfilters, 1));
	te->fnprog = palloc0(sizeof(int) * Max(s->spec.nfilters, 1));
	te->fexpr = palloc0(sizeof(GpuopsExprProgram *) * Max(s->spec.nfilters, 1));
	for (i = 0; i < s->spec.nfilters; i++)
	{
		Expr	   *f = (Expr *) linitial(tab->filter_quals[i]);

		if (gpuops_qual_on_device(f, tab->rti))
			te->fnprog[i] = gpuops_quals_program(tab->filter_quals[i],
												 tab->rti, attno_col, natts,
												 col_types,
												 gpuops_agg_qual_text_code, te,
												 &te->fprog[i]);
		else
		{
			te->fexpr[i] = palloc0(sizeof(GpuopsExprProgram));
			if (!gpuops_expr_compile(f, tab->rti, attno_col, natts, te->ncols,
									 te->fexpr[i]))
				elog(ERROR, "GpuOpsAgg cannot evaluate a FILTER it planned");
		}
	}

	/*
	 * No parent: the node's own scan slot is virtual (the groups), while this
	 * qual reads the table's slots, which must be deformed.
	 */
	if (tab->cpu_quals != NIL)
		te->cpu_qual = ExecInitQual(tab->cpu_quals, NULL);

	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;
	/*
	 * while a helper thread aggregates, the decoders leave it a core; no more
	 * threads than the rows are worth (the reader starts them now)
	 */
	gpuops_ctx_init(&ctx);
	threads = Min(gpo_threads(&ctx) - (gpuops_agg_overlaps(INT64_MAX) ? 1 : 0),
				  gpuops_agg_threads_worth(s, gpuops_agg_table_rows(te->rel)));
	te->reader = gpuops_scan_begin(te->rel, estate->es_snapshot, te->nread,
								   te->cols, gpuops_agg_batch_rows(s, te),
								   te->cpu_qual, s->qual_cxt, true,
								   Max(1, threads));
	te->cache_src = gpuops_cache_attach_reader(te->reader, te->rel, te->nread,
											   te->cols, gpo_threads(&ctx));
	gpuops_agg_set_prefilter(s, te);
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
	{
		s->policy->funcs->finish(s->policy);
		gpuops_aggstate_drop_spare(&s->groups);
	}
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
		for (i = 0; i < te->nread; i++)
		{
			gpuops_one_chunk_vector(&vecs[i], &chunks[i], te->cols[i].type,
									batch->data[i],
									batch->has_nulls[i] ? batch->validity[i] : NULL, n);
			s->bytes_in += n * gpo_type_size(te->cols[i].type);
		}
		te->wmask = NULL;
		if (te->nprog > 0 || te->nwexpr > 0)
			passed = gpuops_agg_filter(s, te, vecs, chunks, &n, &null_key_out);
		else
			passed = n;
		/* a star join: the batch becomes the joined rows */
		if (s->join && passed > 0)
			passed = n = gpuops_agg_join_batch(s, te, vecs, n);
		s->rows_passed += passed;
		if (passed > 0)
			in_flight = s->policy->funcs->add_batch(s->policy, te,
													gpuops_agg_batch_columns(s, te, vecs, n),
													n, null_key_out);
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
	s->cached_rows += stats->source_rows;
	/* rows the reader's prefilter dropped were read too */
	s->rows_in += stats->prefiltered;
	s->early_filtered += stats->prefiltered;
	if (stats->fast)
		s->fast_read = true;
	else
		s->slot_read = true;
}
