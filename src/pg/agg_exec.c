/*
 * agg_exec.c
 *	  Execution of the GpuOpsAgg custom scan.
 *
 * The node reads the needed columns of its table in batches (scan_reader.c:
 * page batches decoded by all cores for heap tables, the table AM's slots
 * otherwise or when a clause must run in PostgreSQL), so MVCC, privileges
 * and row-level security hold as in a sequential scan.  For each batch the
 * engine evaluates the device clauses as a mask (gpo_filter), compacts the
 * passing rows (gpo_compact + gpo_gather), forms one key per row (the column
 * itself, or gpo_keypack for several keys) and aggregates every value
 * column (gpo_groupagg); the batch's groups merge into the running groups
 * (agg_state.c).  When the table is exhausted, the groups come out as scan
 * tuples, and PostgreSQL applies HAVING and the target list to them.
 *
 * Every engine call runs on the face gpuops.device selects; interrupts are
 * checked between batches.  All memory is palloc'd in the query's contexts
 * (a per-batch context is reset after each batch), and the engine's GPU
 * faces free device memory before they return, so an error or a cancel
 * leaks nothing.
 */
#include "gpuops_agg.h"
#include "gpuops_scan.h"

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

/* How the node reads one of its tables. */
typedef struct GpuopsAggTableExec
{
	GpuopsAggTable *tab;
	Relation	rel;
	bool		opened;			/* opened here (partitions), to be closed */
	int			ncols;			/* columns the reader extracts */
	GpuopsScanCol *cols;
	int			key_col[GPUOPS_AGG_MAX_KEYS];	/* reader column of each key */
	int		   *val_col;		/* reader column of each value column */
	gpo_pred   *prog;			/* device clauses, postfix */
	int			nprog;
	gpo_pred  **fprog;			/* [nfilters]: FILTER clauses, postfix */
	int		   *fnprog;
	ExprState  *cpu_qual;
	GpuopsScanReader *reader;
} GpuopsAggTableExec;

/* The node's executor state. */
typedef struct GpuopsAggScanState
{
	CustomScanState css;
	GpuopsAggSpec spec;
	GpuopsAggTableExec *tables; /* [spec.ntables] */
	ExprContext *qual_cxt;
	MemoryContext batch_cxt;	/* reset after each batch */
	GpuopsAggState groups;
	bool		aggregated;		/* every batch merged */
	int64		next_group;
	/* EXPLAIN ANALYZE */
	int64		rows_in;
	int64		rows_passed;
	int64		batches;
	int64		bytes_in;
	int64		gpu_calls;
	int64		cpu_calls;
	int64		strategy_batches[4];	/* by gpo_agg_strategy */
	double		engine_ms;
	double		read_ms;
	bool		fast_read;		/* some table was read in page batches */
	bool		slot_read;		/* some table was read through slots */
} GpuopsAggScanState;

static Node *gpuops_agg_create_state(CustomScan *cscan);
static void gpuops_agg_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *gpuops_agg_exec(CustomScanState *node);
static void gpuops_agg_end(CustomScanState *node);
static void gpuops_agg_rescan(CustomScanState *node);
static void gpuops_agg_explain(CustomScanState *node, List *ancestors,
							   ExplainState *es);

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
static void
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

/* Rows per batch: gpuops.chunk_size bytes of the widest column. */
static int64
gpuops_agg_batch_rows(GpuopsAggTableExec *te)
{
	size_t		widest = 4;
	int			i;

	for (i = 0; i < te->ncols; i++)
		widest = Max(widest, gpo_type_size(te->cols[i].type));
	return Max((int64) 1, (int64) gpuops_chunk_size / (int64) widest);
}

/* Sets up the reading of one table: its columns, device program and CPU qual. */
static void
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
	gpuops_ctx_init(&ctx);
	te->reader = gpuops_scan_begin(te->rel, estate->es_snapshot, te->ncols,
								   te->cols, gpuops_agg_batch_rows(te),
								   te->cpu_qual, s->qual_cxt, true,
								   gpo_threads(&ctx));
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
}

/* Counts an engine call's face and checks its status. */
static void
gpuops_agg_checked(GpuopsAggScanState *s, gpo_status st, gpo_ctx *ctx,
				   const char *op)
{
	gpuops_check_status(st, ctx, op, InvalidOid);
	if (ctx->used == GPO_DEVICE_GPU)
		s->gpu_calls++;
	else
		s->cpu_calls++;
}

/* A one-chunk vector over n values at data, validity optional. */
static void
gpuops_agg_vec(gpo_vector *v, gpo_chunk *c, gpo_type type, void *data,
			   uint8 *validity, int64 n)
{
	c->data = data;
	c->validity = validity;
	c->n = n;
	v->type = type;
	v->nchunks = 1;
	v->chunks = c;
}

/*
 * Runs the device program over the batch and compacts the passing rows of
 * every column into new buffers (cols/chunks updated); returns the rows
 * left.
 */
static int64
gpuops_agg_filter(GpuopsAggScanState *s, GpuopsAggTableExec *te,
				  gpo_vector *vecs, gpo_chunk *chunks, int64 n)
{
	gpo_ctx		ctx;
	gpo_vector	maskv;
	gpo_chunk	maskc;
	gpo_vector	idxv;
	gpo_chunk	idxc;
	size_t		bytes = 0;
	int64		count = 0;
	gpo_status	st;
	int			i;

	gpuops_agg_vec(&maskv, &maskc, GPO_UINT8, palloc_extended(Max(n, 1), MCXT_ALLOC_HUGE), NULL, n);
	gpuops_ctx_init(&ctx);
	st = gpo_filter(&ctx, te->ncols, vecs, te->prog, te->nprog, &maskv, &count,
					NULL, &bytes);
	if (st == GPO_OK)
		st = gpo_filter(&ctx, te->ncols, vecs, te->prog, te->nprog, &maskv,
						&count, gpuops_alloc_scratch(bytes), NULL);
	gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg filter");
	if (count == n || count == 0)
		return count;

	gpuops_agg_vec(&idxv, &idxc, GPO_INT64,
				   palloc_extended(sizeof(int64) * count, MCXT_ALLOC_HUGE),
				   NULL, count);
	gpuops_ctx_init(&ctx);
	bytes = 0;
	st = gpo_compact(&ctx, &maskv, 0, &idxv, &count, NULL, &bytes);
	if (st == GPO_OK)
		st = gpo_compact(&ctx, &maskv, 0, &idxv, &count,
						 gpuops_alloc_scratch(bytes), NULL);
	gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg compaction");

	for (i = 0; i < te->ncols; i++)
	{
		gpo_vector	outv;
		gpo_chunk	outc;
		size_t		w = gpo_type_size(vecs[i].type);
		uint8	   *valid = NULL;

		if (chunks[i].validity != NULL)
			valid = palloc_extended((count + 7) / 8, MCXT_ALLOC_HUGE);
		gpuops_agg_vec(&outv, &outc, vecs[i].type,
					   palloc_extended(w * Max(count, 1), MCXT_ALLOC_HUGE),
					   valid, count);
		gpuops_ctx_init(&ctx);
		bytes = 0;
		st = gpo_gather(&ctx, &vecs[i], &idxv, &outv, NULL, &bytes);
		if (st == GPO_OK)
			st = gpo_gather(&ctx, &vecs[i], &idxv, &outv,
							gpuops_alloc_scratch(bytes), NULL);
		gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg gather");
		chunks[i] = outc;
		vecs[i].chunks = &chunks[i];
	}
	return count;
}

/* Result arrays with room for capacity groups. */
static void
gpuops_agg_out_alloc(gpo_agg_out *out, int64 capacity, gpo_type ktype,
					 gpo_type vtype, bool with_keys)
{
	Size		n = (Size) Max(capacity, 1);

	memset(out, 0, sizeof(*out));
	out->capacity = capacity;
	if (with_keys)
	{
		out->keys = palloc_extended(gpo_type_size(ktype) * n, MCXT_ALLOC_HUGE);
		out->key_valid = palloc_extended(n, MCXT_ALLOC_HUGE);
		out->rows = palloc_extended(sizeof(int64) * n, MCXT_ALLOC_HUGE);
	}
	out->count = palloc_extended(sizeof(int64) * n, MCXT_ALLOC_HUGE);
	out->isum = palloc_extended(sizeof(gpo_int128) * n, MCXT_ALLOC_HUGE);
	out->fsum = palloc_extended(sizeof(double) * n, MCXT_ALLOC_HUGE);
	out->min = palloc_extended(gpo_type_size(vtype) * n, MCXT_ALLOC_HUGE);
	out->max = palloc_extended(gpo_type_size(vtype) * n, MCXT_ALLOC_HUGE);
}

/*
 * Groups keys with the aggregates of values (NULL: rows only) into out,
 * growing out when the groups don't fit; returns the group count.  The
 * first call of a batch counts the strategy used for EXPLAIN.
 */
static int64
gpuops_agg_group(GpuopsAggScanState *s, const gpo_vector *keys,
				 const gpo_vector *values, gpo_agg_out *out, bool first)
{
	gpo_ctx		ctx;
	gpo_agg_strategy strategy;
	int64		ngroups = 0;
	size_t		bytes = 0;
	gpo_status	st;
	char		scratch;

	for (;;)
	{
		gpuops_ctx_init(&ctx);
		strategy = (gpo_agg_strategy) gpuops_agg_strategy;
		st = gpo_groupagg(&ctx, keys, values, (int64) s->spec.est_groups,
						  &strategy, out, &ngroups, NULL, &bytes);
		if (st == GPO_OK)
			st = gpo_groupagg(&ctx, keys, values, (int64) s->spec.est_groups,
							  &strategy, out, &ngroups, &scratch, NULL);
		if (st != GPO_ERR_CAPACITY)
			break;
		gpuops_agg_out_alloc(out, ngroups, keys->type,
							 values ? values->type : GPO_INT32,
							 out->keys != NULL);
	}
	gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg group aggregation");
	if (first && (int) strategy >= 0 && (int) strategy < 4)
		s->strategy_batches[strategy]++;
	return ngroups;
}

/*
 * The value columns of a batch of n rows: each aggregate argument's column,
 * or a column of zeros for count(*) FILTER, with its validity cleared where
 * the aggregate's FILTER clause does not hold (the engine then skips those
 * rows as it skips NULLs).  Each FILTER runs once per batch.
 */
static gpo_vector *
gpuops_agg_value_vectors(GpuopsAggScanState *s, GpuopsAggTableExec *te,
						 gpo_vector *vecs, int64 n)
{
	GpuopsAggSpec *spec = &s->spec;
	gpo_vector *vals = palloc0(sizeof(gpo_vector) * Max(spec->nvals, 1));
	gpo_chunk  *chunks = palloc0(sizeof(gpo_chunk) * Max(spec->nvals, 1));
	uint8	  **fbits = palloc0(sizeof(uint8 *) * Max(spec->nfilters, 1));
	int			v;

	for (v = 0; v < spec->nvals; v++)
	{
		int			f = spec->val_filters[v];
		uint8	   *valid;
		int64		i;

		if (te->val_col[v] >= 0)
		{
			vals[v] = vecs[te->val_col[v]];
			chunks[v] = vals[v].chunks[0];
		}
		else
			gpuops_agg_vec(&vals[v], &chunks[v], GPO_INT32,
						   palloc_extended(sizeof(int32) * Max(n, 1),
										   MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO),
						   NULL, n);
		vals[v].chunks = &chunks[v];
		if (f < 0)
			continue;
		if (fbits[f] == NULL)
		{
			gpo_vector	maskv;
			gpo_chunk	maskc;
			uint8	   *mask = palloc_extended(Max(n, 1), MCXT_ALLOC_HUGE);
			gpo_ctx		ctx;
			gpo_status	st;
			size_t		bytes = 0;
			int64		count = 0;

			gpuops_agg_vec(&maskv, &maskc, GPO_UINT8, mask, NULL, n);
			gpuops_ctx_init(&ctx);
			st = gpo_filter(&ctx, te->ncols, vecs, te->fprog[f], te->fnprog[f],
							&maskv, &count, NULL, &bytes);
			if (st == GPO_OK)
				st = gpo_filter(&ctx, te->ncols, vecs, te->fprog[f],
								te->fnprog[f], &maskv, &count,
								gpuops_alloc_scratch(bytes), NULL);
			gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg FILTER");
			fbits[f] = palloc_extended((n + 7) / 8 + 1,
									   MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
			for (i = 0; i < n; i++)
				if (mask[i])
					fbits[f][i >> 3] |= (uint8) (1 << (i & 7));
		}
		valid = palloc_extended((n + 7) / 8 + 1, MCXT_ALLOC_HUGE);
		for (i = 0; i < (n + 7) / 8; i++)
			valid[i] = fbits[f][i] &
				(chunks[v].validity ? chunks[v].validity[i] : 0xFF);
		chunks[v].validity = valid;
	}
	return vals;
}

/*
 * Without GROUP BY the batch is one group: a row-parallel segmented
 * reduction over the single segment [0, n) of every value column (or of no
 * column, for count(*) alone) is cheaper than grouping by a constant key.
 */
static void
gpuops_agg_batch_one_group(GpuopsAggScanState *s, GpuopsAggTableExec *te,
						   gpo_vector *vecs, int64 n)
{
	GpuopsAggSpec *spec = &s->spec;
	gpo_agg_out *vals = palloc0(sizeof(gpo_agg_out) * Max(spec->nvals, 1));
	int64		offsets[2] = {0, n};
	int64		rows = n;
	gpo_vector *valvecs;
	gpo_vector	offv;
	gpo_chunk	offc;
	int			v;

	gpuops_agg_vec(&offv, &offc, GPO_INT64, offsets, NULL, 2);
	valvecs = gpuops_agg_value_vectors(s, te, vecs, n);
	for (v = 0; v < spec->nvals; v++)
	{
		gpo_vector *values = &valvecs[v];
		gpo_ctx		ctx;
		gpo_status	st;
		size_t		bytes = 0;

		gpuops_agg_out_alloc(&vals[v], 1, GPO_INT32, values->type, true);
		gpuops_ctx_init(&ctx);
		st = gpo_segreduce(&ctx, values, &offv, 1, &vals[v], NULL, &bytes);
		if (st == GPO_OK)
			st = gpo_segreduce(&ctx, values, &offv, 1, &vals[v],
							   gpuops_alloc_scratch(bytes), NULL);
		gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg reduction");
	}
	gpuops_aggstate_merge(&s->groups, 1, NULL, NULL, &rows, vals);
}

/* Aggregates one batch of n rows (vecs: one per reader column) and merges it. */
static void
gpuops_agg_batch(GpuopsAggScanState *s, GpuopsAggTableExec *te,
				 gpo_vector *vecs, int64 n)
{
	GpuopsAggSpec *spec = &s->spec;
	gpo_vector	keyv;
	gpo_chunk	keyc;
	gpo_keypack *pack = NULL;
	gpo_vector *valvecs;
	gpo_agg_out first;
	gpo_agg_out *vals = palloc0(sizeof(gpo_agg_out) * Max(spec->nvals, 1));
	uint64	   *codes[GPUOPS_AGG_MAX_KEYS];
	uint8	   *valid[GPUOPS_AGG_MAX_KEYS];
	int64		ngroups;
	int64		cap;
	int64		g;
	int			k;
	int			v;

	/* one key per row */
	if (spec->nkeys == 0)
	{
		gpuops_agg_batch_one_group(s, te, vecs, n);
		return;
	}
	else if (spec->nkeys == 1)
		keyv = vecs[te->key_col[0]];
	else
	{
		gpo_vector	kv[GPUOPS_AGG_MAX_KEYS];
		gpo_ctx		ctx;
		gpo_status	st;

		for (k = 0; k < spec->nkeys; k++)
			kv[k] = vecs[te->key_col[k]];
		gpuops_agg_vec(&keyv, &keyc, GPO_INT64,
					   palloc_extended(sizeof(int64) * n, MCXT_ALLOC_HUGE),
					   NULL, n);
		gpuops_ctx_init(&ctx);
		st = gpo_keypack_build(&ctx, spec->nkeys, kv, &keyv, &pack);
		gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg key packing");
	}

	/* the groups, with every value column's aggregates */
	valvecs = gpuops_agg_value_vectors(s, te, vecs, n);
	cap = Min(n, Max((int64) 1024, (int64) (2 * spec->est_groups)));
	gpuops_agg_out_alloc(&first, cap, keyv.type,
						 spec->nvals > 0 ? valvecs[0].type : GPO_INT32,
						 true);
	ngroups = gpuops_agg_group(s, &keyv,
							   spec->nvals > 0 ? &valvecs[0] : NULL,
							   &first, true);
	if (spec->nvals > 0)
		vals[0] = first;
	for (v = 1; v < spec->nvals; v++)
	{
		gpuops_agg_out_alloc(&vals[v], ngroups, keyv.type,
							 valvecs[v].type, false);
		if (gpuops_agg_group(s, &keyv, &valvecs[v], &vals[v], false) !=
			ngroups)
			elog(ERROR, "GpuOpsAgg: value columns disagree on the groups");
	}

	/* the groups' keys as key codes, in the running state's form */
	for (k = 0; k < spec->nkeys; k++)
	{
		codes[k] = palloc_extended(sizeof(uint64) * Max(ngroups, 1), MCXT_ALLOC_HUGE);
		valid[k] = palloc_extended(Max(ngroups, 1), MCXT_ALLOC_HUGE);
	}
	if (spec->nkeys == 1)
	{
		size_t		w = gpo_type_size(keyv.type);

		for (g = 0; g < ngroups; g++)
		{
			valid[0][g] = first.key_valid[g];
			codes[0][g] = first.key_valid[g] ?
				gpo_key_code(keyv.type, (const char *) first.keys + w * g) : 0;
		}
	}
	else if (spec->nkeys > 1)
	{
		void	   *values[GPUOPS_AGG_MAX_KEYS];

		for (k = 0; k < spec->nkeys; k++)
			values[k] = palloc_extended(8 * Max(ngroups, 1), MCXT_ALLOC_HUGE);
		gpo_keypack_decode(pack, ngroups, (const int64_t *) first.keys,
						   values, valid);
		for (k = 0; k < spec->nkeys; k++)
		{
			gpo_type	t = s->groups.key_types[k];
			size_t		w = gpo_type_size(t);

			for (g = 0; g < ngroups; g++)
				codes[k][g] = valid[k][g] ?
					gpo_key_code(t, (const char *) values[k] + w * g) : 0;
		}
		gpo_keypack_free(pack);
	}
	gpuops_aggstate_merge(&s->groups, ngroups, codes, valid, first.rows, vals);
}

/* Reads every batch of one table and aggregates it. */
static void
gpuops_agg_run_table(GpuopsAggScanState *s, GpuopsAggTableExec *te)
{
	GpuopsScanBatch *batch;
	gpo_vector *vecs = palloc(sizeof(gpo_vector) * Max(te->ncols, 1));
	gpo_chunk  *chunks = palloc(sizeof(gpo_chunk) * Max(te->ncols, 1));
	const GpuopsScanStats *stats;
	MemoryContext old;

	while (gpuops_scan_next(te->reader, &batch))
	{
		int64		n = batch->nrows;
		instr_time	start;
		instr_time	dur;
		int			i;

		CHECK_FOR_INTERRUPTS();
		if (n == 0)
			continue;
		s->batches++;
		s->rows_in += n;
		INSTR_TIME_SET_CURRENT(start);
		old = MemoryContextSwitchTo(s->batch_cxt);
		for (i = 0; i < te->ncols; i++)
		{
			gpuops_agg_vec(&vecs[i], &chunks[i], te->cols[i].type,
						   batch->data[i],
						   batch->has_nulls[i] ? batch->validity[i] : NULL, n);
			s->bytes_in += n * gpo_type_size(te->cols[i].type);
		}
		if (te->nprog > 0)
			n = gpuops_agg_filter(s, te, vecs, chunks, n);
		s->rows_passed += n;
		if (n > 0)
			gpuops_agg_batch(s, te, vecs, n);
		MemoryContextSwitchTo(old);
		MemoryContextReset(s->batch_cxt);
		INSTR_TIME_SET_CURRENT(dur);
		INSTR_TIME_SUBTRACT(dur, start);
		s->engine_ms += INSTR_TIME_GET_MILLISEC(dur);
	}
	stats = gpuops_scan_stats(te->reader);
	s->read_ms += stats->read_ms;
	if (stats->fast)
		s->fast_read = true;
	else
		s->slot_read = true;
}

/* Reads and aggregates every table. */
static void
gpuops_agg_run(GpuopsAggScanState *s)
{
	int			t;

	for (t = 0; t < s->spec.ntables; t++)
		gpuops_agg_run_table(s, &s->tables[t]);
	s->aggregated = true;
	s->next_group = 0;
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
	gpuops_agg_state_types(s);
	MemoryContextSwitchTo(old);
	s->aggregated = false;
	s->next_group = 0;
}

/* The strategy the engine is expected to choose, for plain EXPLAIN. */
static const char *
gpuops_agg_planned_strategy(const GpuopsAggSpec *spec)
{
	if (gpuops_agg_strategy != GPO_AGG_AUTO)
		return gpo_agg_strategy_name((gpo_agg_strategy) gpuops_agg_strategy);
	if (spec->nkeys == 0)
		return "one group";
	return spec->est_groups <= (double) GPO_AGG_HASH_MAX_GROUPS ?
		"dense or hash" : "sort";
}

/* Deparsed implicit-AND clauses, or NULL for none. */
static char *
gpuops_agg_deparse(List *clauses, List *context, bool useprefix)
{
	if (clauses == NIL)
		return NULL;
	return deparse_expression((Node *) make_ands_explicit(clauses), context,
							  useprefix, false);
}

/* ExplainCustomScan: device, strategy, keys, quals and, under ANALYZE, the work done. */
static void
gpuops_agg_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	GpuopsAggScanState *s = (GpuopsAggScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	GpuopsAggTable *first = &s->spec.tables[0];
	List	   *tab0 = (List *) linitial((List *) lthird(cscan->custom_private));
	List	   *context;
	bool		useprefix = es->verbose;
	static const char *const devices[] = {"auto", "cpu", "gpu"};
	Index		rti = cscan->scan.scanrelid;
	char	   *text;

	/*
	 * Keys and clauses are shown as those of the first table read, with its
	 * range-table index of the final plan: the scan relation, or the
	 * partition's entry.
	 */
	if (rti == 0)
	{
		ListCell   *lc;
		Index		i = 1;

		foreach(lc, es->rtable)
		{
			RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

			if (rte->rtekind == RTE_RELATION && rte->relid == first->relid)
			{
				rti = i;
				break;
			}
			i++;
		}
	}
	context = set_deparse_context_plan(es->deparse_cxt, &cscan->scan.plan,
									   ancestors);
	ExplainPropertyText("Device", devices[s->spec.planned_device], es);
	if (s->spec.partitioned)
		ExplainPropertyInteger("Partitions", NULL, s->spec.ntables, es);
	if (s->spec.nkeys > 0 && rti > 0)
	{
		List	   *keys = NIL;
		ListCell   *lc;

		foreach(lc, (List *) lthird(tab0))
			keys = lappend(keys,
						   deparse_expression(gpuops_agg_set_varno(lfirst(lc),
																   first->rti,
																   rti),
											  context, useprefix, false));
		ExplainPropertyList("Group Keys", keys, es);
	}
	if (es->analyze && s->batches > 0 && s->spec.nkeys > 0)
	{
		StringInfoData buf;
		int			i;

		initStringInfo(&buf);
		for (i = 1; i < 4; i++)
			if (s->strategy_batches[i] > 0)
				appendStringInfo(&buf, "%s%s (%lld chunk%s)",
								 buf.len ? ", " : "",
								 gpo_agg_strategy_name((gpo_agg_strategy) i),
								 (long long) s->strategy_batches[i],
								 s->strategy_batches[i] == 1 ? "" : "s");
		ExplainPropertyText("Strategy", buf.data, es);
	}
	else
		ExplainPropertyText("Strategy", gpuops_agg_planned_strategy(&s->spec),
							es);
	if (rti > 0)
	{
		text = gpuops_agg_deparse((List *) gpuops_agg_set_varno((Node *) first->device_quals,
																first->rti, rti),
								  context, useprefix);
		if (text)
			ExplainPropertyText("Device Filter", text, es);
		text = gpuops_agg_deparse((List *) gpuops_agg_set_varno((Node *) first->cpu_quals,
																first->rti, rti),
								  context, useprefix);
		if (text)
			ExplainPropertyText("CPU Filter", text, es);
	}
	if (es->analyze)
	{
		if (s->fast_read || s->slot_read)
			ExplainPropertyText("Table Read",
								s->fast_read && s->slot_read ? "page batches and slots" :
								s->fast_read ? "page batches" : "slots", es);
		ExplainPropertyInteger("Rows In", NULL, s->rows_in, es);
		ExplainPropertyInteger("Rows Passed", NULL, s->rows_passed, es);
		ExplainPropertyInteger("Groups", NULL, s->groups.ngroups, es);
		ExplainPropertyInteger("Chunks", NULL, s->batches, es);
		if (es->verbose || s->gpu_calls > 0)
			ExplainPropertyInteger("Bytes Sent", "kB", s->bytes_in / 1024, es);
		ExplainPropertyInteger("GPU Calls", NULL, s->gpu_calls, es);
		ExplainPropertyInteger("CPU Calls", NULL, s->cpu_calls, es);
		if (es->timing)
		{
			ExplainPropertyFloat("Read Time", "ms", s->read_ms, 3, es);
			ExplainPropertyFloat("Engine Time", "ms", s->engine_ms, 3, es);
		}
	}
}
