/*
 * agg_join.c
 *	  The star join of a GpuOpsAgg scan (planned by agg_star.c): the
 *	  dimensions' child plans run first, once per scan, and their rows
 *	  become a join key column and the columns the query needs (built in
 *	  the join's memory); each batch of the fact table that passed its
 *	  clauses is then joined to every dimension on the engine
 *	  (a probe of the dimension's join table, built once from its keys,
 *	  with the batch's join column: in an inner join rows without a match go and a key found k
 *	  times gives k rows; a semi join keeps each row with a match once, an
 *	  anti join each row without one, a left join every row, with NULL
 *	  columns where none matched), and the matched dimensions' columns are
 *	  gathered into the batch as its virtual columns (te->nread and after).
 *
 * Only rows with a join key are kept: a NULL key never matches, and
 * neither does a dimension's key outside the range of the fact table's
 * join column type.
 */
#include "aggnode/exec/gpuops_agg_exec.h"

#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/memutils.h"

#include "gpo_join.h"

/* The engine's join kind of a planner's JoinType (inner, semi, anti, left). */
static gpo_join_kind
gpuops_agg_join_kind(JoinType jointype)
{
	switch (jointype)
	{
		case JOIN_INNER:
			return GPO_JOIN_INNER;
		case JOIN_SEMI:
			return GPO_JOIN_SEMI;
		case JOIN_ANTI:
			return GPO_JOIN_ANTI;
		case JOIN_LEFT:
			return GPO_JOIN_LEFT;
		default:
			elog(ERROR, "GpuOpsAgg: unexpected join type %d", (int) jointype);
	}
	return GPO_JOIN_INNER;		/* keep the compiler quiet */
}

/*
 * Decodes the plan's PRIV_JOIN into s->join and, with children, starts the
 * dimensions' child plans (a worker process gets their tables from the
 * backend instead); nothing for a plan without a join.
 */
void
gpuops_agg_join_begin(GpuopsAggScanState *s, CustomScan *cscan,
					  EState *estate, int eflags, bool children)
{
	List	   *join = (List *) list_nth(cscan->custom_private, PRIV_JOIN);
	GpuopsAggJoin *j;
	ListCell   *lc;
	int			i = 0;

	if (join == NIL)
		return;
	j = palloc0(sizeof(GpuopsAggJoin));
	j->fact_natts = intVal(list_nth(join, JOIN_FACT_NATTS));
	j->ndims = list_length((List *) list_nth(join, JOIN_DIMS));
	j->dims = palloc0(sizeof(GpuopsAggDim) * j->ndims);
	foreach(lc, (List *) list_nth(join, JOIN_DIMS))
	{
		List	   *dim = (List *) lfirst(lc);
		GpuopsAggDim *d = &j->dims[i];

		d->fk_attno = (AttrNumber) lsecond_int(dim);
		d->kind = gpuops_agg_join_kind((JoinType) list_nth_int(dim, 3));
		d->fk_attno2 = (AttrNumber) list_nth_int(dim, 5);
		d->key_resno = list_nth_int(dim, 7);
		d->key_resno2 = list_nth_int(dim, 8);
		if (children)
		{
			d->ps = ExecInitNode((Plan *) list_nth(cscan->custom_plans, i),
								 estate, eflags);
			s->css.custom_ps = lappend(s->css.custom_ps, d->ps);
		}
		i++;
	}
	j->ngather = list_length((List *) list_nth(join, JOIN_GATHER));
	j->gathers = palloc0(sizeof(GpuopsAggGather) * Max(j->ngather, 1));
	i = 0;
	foreach(lc, (List *) list_nth(join, JOIN_GATHER))
	{
		List	   *g = (List *) lfirst(lc);
		GpuopsAggGather *ga = &j->gathers[i++];

		ga->dim = linitial_int(g);
		ga->typid = (Oid) lthird_int(g);
		ga->typmod = list_nth_int(g, 3);
		ga->collid = (Oid) list_nth_int(g, 4);
		ga->resno = list_nth_int(g, 6);
		if (j->dims[ga->dim].kind == GPO_JOIN_SEMI ||
			j->dims[ga->dim].kind == GPO_JOIN_ANTI)
			elog(ERROR, "GpuOpsAgg: a semi or anti join's relation has no columns to gather");
	}
	j->cxt = AllocSetContextCreate(estate->es_query_cxt, "GpuOpsAgg join",
								   ALLOCSET_DEFAULT_SIZES);
	s->join = j;
}

/*
 * Appends te's virtual columns after the reader's (te->nread of them):
 * virtual column g as batch column te->nread + g, of the type the reader
 * would give a column like it (a text key's dictionary codes or short
 * codes, the NULLs alone of a text column only counted).
 */
void
gpuops_agg_join_add_cols(GpuopsAggScanState *s, GpuopsAggTableExec *te)
{
	GpuopsAggJoin *j = s->join;
	int			g;
	int			i;

	for (i = 0; i < j->ndims; i++)
	{
		int			c;

		for (c = 0; c < te->nread; c++)
		{
			if (te->cols[c].attnum == j->dims[i].fk_attno)
				j->dims[i].fk_col = c;
			if (te->cols[c].attnum == j->dims[i].fk_attno2)
				j->dims[i].fk_col2 = c;
		}
	}
	for (g = 0; g < j->ngather; g++)
	{
		GpuopsAggGather *ga = &j->gathers[g];
		GpuopsScanCol *c = &te->cols[te->ncols];
		AttrNumber	attno = (AttrNumber) (j->fact_natts + 1 + g);
		bool		key = false;
		bool		dict = false;

		c->attnum = attno;
		c->typid = ga->typid;
		for (i = 0; i < s->spec.nkeys; i++)
			if (te->tab->key_exprs[i] == NULL && te->tab->key_attnos[i] == attno)
			{
				key = true;
				/* (as agg_exec.c makes dictionaries; a worker has none) */
				dict = gpuops_agg_text_key(ga->typid, ga->collid) &&
					!gpuops_agg_short_text_key(ga->typid, ga->typmod, ga->collid);
				ga->dc.encode = gpuops_dict_encode;
				ga->dc.encode_arg = s->spec.key_dicts[i];
			}
		ga->dc.unfit = &ga->unfit;
		if (dict)
		{
			c->type = GPO_INT32;
			ga->dc.conv = GPUOPS_CONV_ENCODE;
		}
		else if (ga->typid == TEXTOID || ga->typid == VARCHAROID ||
				 ga->typid == BPCHAROID)
		{
			c->type = key ? GPO_INT64 : GPO_INT32;
			ga->dc.conv = key ? GPUOPS_CONV_SHORT_TEXT : GPUOPS_CONV_PRESENCE;
			c->presence = !key;
		}
		else if (gpuops_scan_col_type_mod(ga->typid, ga->typmod, &c->type))
		{
			ga->dc.conv = gpuops_scan_conv(ga->typid, c->type);
			/* numeric(p, s): scaled by the column's own scale, as the reader's */
			if (ga->dc.conv == GPUOPS_CONV_NUMERIC)
				ga->dc.scale = gpuops_numeric_typmod_scale(ga->typmod);
		}
		else
			elog(ERROR, "GpuOpsAgg cannot gather a column of type %u", ga->typid);
		ga->col = te->ncols++;
		ga->type = c->type;
	}
}

/* Room for cap more rows of dimension d's table (keys and gathered columns). */
static void
gpuops_agg_dim_grow(GpuopsAggJoin *j, int d, int64 need)
{
	GpuopsAggDim *dim = &j->dims[d];
	int64		cap = Max(need, dim->cap * 2);
	int			g;

	if (need <= dim->cap)
		return;
	cap = Max(cap, 1024);
	dim->keys = dim->keys ?
		repalloc_huge(dim->keys, sizeof(int64) * cap) :
		MemoryContextAllocHuge(j->cxt, sizeof(int64) * cap);
	for (g = 0; g < j->ngather; g++)
	{
		GpuopsAggGather *ga = &j->gathers[g];
		size_t		w = gpo_type_size(ga->type);

		if (ga->dim != d)
			continue;
		ga->dc.data = ga->dc.data ? repalloc_huge(ga->dc.data, w * cap) :
			MemoryContextAllocHuge(j->cxt, w * cap);
		ga->dc.validity = ga->dc.validity ?
			repalloc_huge(ga->dc.validity, (cap + 7) / 8) :
			MemoryContextAllocHuge(j->cxt, (cap + 7) / 8);
	}
	dim->cap = cap;
}

/*
 * The join key of a slot's value of type typid as a value of the fact
 * table's join column type ktype; false for NULL, or a key no fact row can
 * equal (outside ktype's range).
 */
static bool
gpuops_agg_dim_key(TupleTableSlot *slot, int resno, gpo_type ktype,
				   int64 *key)
{
	Oid			typid = TupleDescAttr(slot->tts_tupleDescriptor,
									  resno - 1)->atttypid;
	Datum		v = slot->tts_values[resno - 1];

	if (slot->tts_isnull[resno - 1])
		return false;
	if (typid == INT2OID)
		*key = DatumGetInt16(v);
	else if (typid == INT4OID || typid == DATEOID)
		*key = DatumGetInt32(v);
	else
		*key = DatumGetInt64(v);
	return ktype == GPO_INT64 || (*key >= PG_INT32_MIN && *key <= PG_INT32_MAX);
}

/*
 * The int64 that a composite key's two 32-bit values (int2, int4, date)
 * pack into: one value for each pair, and only for it.
 */
static inline int64
gpuops_agg_pack_key(int64 a, int64 b)
{
	return (int64) (((uint64) (uint32) a << 32) | (uint64) (uint32) b);
}

/* The type of dimension dim's keys: the fact's join column's, or int64 packed. */
gpo_type
gpuops_agg_dim_key_type(GpuopsAggTableExec *te, GpuopsAggDim *dim)
{
	return dim->key_resno2 > 0 ? GPO_INT64 : te->cols[dim->fk_col].type;
}

/*
 * A batch's composite keys: the n rows of its two join columns a and b
 * (int32 vectors of one chunk) packed, NULL where either is NULL.
 */
static gpo_vector
gpuops_agg_pack_probe(const gpo_vector *a, const gpo_vector *b, int64 n)
{
	const int32 *av = (const int32 *) a->chunks[0].data;
	const int32 *bv = (const int32 *) b->chunks[0].data;
	const uint8 *am = a->chunks[0].validity;
	const uint8 *bm = b->chunks[0].validity;
	int64	   *keys = palloc_extended(sizeof(int64) * Max(n, 1), MCXT_ALLOC_HUGE);
	uint8	   *valid = NULL;
	gpo_vector	v;
	gpo_chunk  *c = palloc(sizeof(gpo_chunk));
	int64		r;

	for (r = 0; r < n; r++)
		keys[r] = gpuops_agg_pack_key(av[r], bv[r]);
	if (am != NULL || bm != NULL)
	{
		valid = palloc_extended((n + 7) / 8 + 1, MCXT_ALLOC_HUGE);
		for (r = 0; r < (n + 7) / 8; r++)
			valid[r] = (am ? am[r] : 0xFF) & (bm ? bm[r] : 0xFF);
	}
	gpuops_one_chunk_vector(&v, c, GPO_INT64, keys, valid, n);
	return v;
}

/*
 * Builds dimension d's join table from its keys (once per scan, in the
 * join's memory): dense for surrogate keys (also those of a dimension
 * filtered to a few, where the fact table's rows will probe each slot a
 * few times), hashed otherwise.
 */
void
gpuops_agg_dim_table(GpuopsAggScanState *s, GpuopsAggDim *dim)
{
	/* the fact table's rows (its only table), as VACUUM or ANALYZE counted them */
	float4		facts = RelationGetForm(s->tables[0].rel)->reltuples;
	int64		probes = facts > 0 ? (int64) facts : 0;
	size_t		bytes = gpo_join_table_bytes(&dim->keyv, probes);
	gpo_status	st;
	gpo_ctx		ctx;

	gpuops_agg_ctx_init(s, &ctx);
	st = gpo_join_table_build(&ctx, &dim->keyv, probes,
							  MemoryContextAllocHuge(s->join->cxt, bytes), bytes,
							  &dim->table);
	gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg join table");
}

/* Runs dimension d's plan to its end into its table. */
static void
gpuops_agg_dim_build(GpuopsAggScanState *s, GpuopsAggTableExec *te, int d)
{
	GpuopsAggJoin *j = s->join;
	GpuopsAggDim *dim = &j->dims[d];
	gpo_type	ktype = gpuops_agg_dim_key_type(te, dim);
	int			maxres = Max(dim->key_resno, dim->key_resno2);
	int			g;

	for (g = 0; g < j->ngather; g++)
		if (j->gathers[g].dim == d)
			maxres = Max(maxres, j->gathers[g].resno);
	dim->nrows = 0;
	for (;;)
	{
		TupleTableSlot *slot;
		int64		key;

		CHECK_FOR_INTERRUPTS();
		slot = ExecProcNode(dim->ps);
		if (TupIsNull(slot))
			break;
		dim->build_rows++;
		slot_getsomeattrs(slot, maxres);
		if (!gpuops_agg_dim_key(slot, dim->key_resno, ktype, &key))
			continue;
		if (dim->key_resno2 > 0)
		{
			int64		key2;

			if (!gpuops_agg_dim_key(slot, dim->key_resno2, ktype, &key2))
				continue;
			key = gpuops_agg_pack_key(key, key2);
		}
		gpuops_agg_dim_grow(j, d, dim->nrows + 1);
		dim->keys[dim->nrows] = key;
		for (g = 0; g < j->ngather; g++)
		{
			GpuopsAggGather *ga = &j->gathers[g];

			if (ga->dim == d)
				gpuops_scan_put_value(&ga->dc, dim->nrows,
									  slot->tts_values[ga->resno - 1],
									  slot->tts_isnull[ga->resno - 1]);
		}
		dim->nrows++;
	}
	/*
	 * the planner took char(n) and varchar(n) keys of at most 7 bytes and
	 * numeric(p, s) of at most 18 digits: the data are not what the type says
	 */
	for (g = 0; g < j->ngather; g++)
		if (j->gathers[g].unfit)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("gpuops cannot read a value of a joined relation's column as an integer code"),
					 errhint("Run the query with gpuops.enabled = off.")));
	/* the keys in the fact's join column type */
	if (ktype == GPO_INT32)
	{
		int32	   *k32 = MemoryContextAllocHuge(j->cxt,
												 sizeof(int32) * Max(dim->nrows, 1));
		int64		r;

		for (r = 0; r < dim->nrows; r++)
			k32[r] = (int32) dim->keys[r];
		gpuops_one_chunk_vector(&dim->keyv, &dim->keyc, GPO_INT32, k32, NULL,
								dim->nrows);
	}
	else
		gpuops_one_chunk_vector(&dim->keyv, &dim->keyc, GPO_INT64, dim->keys,
								NULL, dim->nrows);
	gpuops_agg_dim_table(s, dim);
	for (g = 0; g < j->ngather; g++)
		if (j->gathers[g].dim == d)
			gpuops_one_chunk_vector(&j->gathers[g].v, &j->gathers[g].c,
									j->gathers[g].type, j->gathers[g].dc.data,
									j->gathers[g].dc.validity, dim->nrows);
}

/* Builds every dimension's table, once per scan (its arrays in the join's memory). */
void
gpuops_agg_join_build(GpuopsAggScanState *s, GpuopsAggTableExec *te)
{
	GpuopsAggJoin *j = s->join;
	instr_time	start;
	instr_time	dur;
	int			d;

	if (j == NULL || j->built)
		return;
	INSTR_TIME_SET_CURRENT(start);
	/* (the child plans' own memory, such as a scan's, must outlive a rescan) */
	for (d = 0; d < j->ndims; d++)
		gpuops_agg_dim_build(s, te, d);
	j->built = true;
	INSTR_TIME_SET_CURRENT(dur);
	INSTR_TIME_SUBTRACT(dur, start);
	j->build_ms += INSTR_TIME_GET_MILLISEC(dur);
}

/*
 * The pairs (dimension row, probe row) of a join of kind of dimension d
 * with probe keys of n rows, in *build_rows (none for a semi or anti join;
 * NULL where a left join found no match) and *probe_rows (batch memory);
 * returns their number.  cpu: on the CPU face whatever the device.
 */
static int64
gpuops_agg_join_probe(GpuopsAggScanState *s, GpuopsAggDim *dim,
					  gpo_join_kind kind, bool cpu, const gpo_vector *probe,
					  int64 n, gpo_vector *build_rows, gpo_vector *probe_rows)
{
	int64		cap = Max(n, 1);
	int64		count = 0;
	bool		rows = kind == GPO_JOIN_INNER || kind == GPO_JOIN_LEFT;
	gpo_vector *brows = rows ? build_rows : NULL;

	for (;;)
	{
		gpo_chunk  *bc = palloc(sizeof(gpo_chunk));
		gpo_chunk  *pc = palloc(sizeof(gpo_chunk));
		size_t		bytes = 0;
		gpo_status	st;
		gpo_ctx		ctx;

		gpuops_one_chunk_vector(build_rows, bc, GPO_INT64,
								palloc_extended(sizeof(int64) * cap, MCXT_ALLOC_HUGE),
								kind == GPO_JOIN_LEFT ?
								palloc_extended((cap + 7) / 8 + 1, MCXT_ALLOC_HUGE) :
								NULL, cap);
		gpuops_one_chunk_vector(probe_rows, pc, GPO_INT64,
								palloc_extended(sizeof(int64) * cap, MCXT_ALLOC_HUGE),
								NULL, cap);
		gpuops_agg_ctx_init(s, &ctx);
		if (cpu)
			ctx.device = GPO_DEVICE_CPU;
		st = gpo_join_table_probe(&ctx, kind, &dim->table, probe, brows,
								  probe_rows, &count, NULL, &bytes);
		if (st == GPO_OK)
			st = gpo_join_table_probe(&ctx, kind, &dim->table, probe, brows,
									  probe_rows, &count,
									  gpuops_alloc_scratch(bytes), NULL);
		if (st == GPO_ERR_CAPACITY && count > cap)
		{
			cap = count;		/* duplicate keys: more pairs than rows */
			continue;
		}
		gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg join");
		build_rows->chunks[0].n = count;
		probe_rows->chunks[0].n = count;
		return count;
	}
}

/*
 * Joins a batch of n fact rows (vecs[0 .. te->nread - 1], compacted) to
 * every dimension and fills the virtual columns; the batch's rows become
 * the joined ones, whose number is returned.
 */
int64
gpuops_agg_join_batch(GpuopsAggScanState *s, GpuopsAggTableExec *te,
					  gpo_vector *vecs, int64 n)
{
	GpuopsAggJoin *j = s->join;
	gpo_vector *drows = palloc(sizeof(gpo_vector) * j->ndims);
	gpo_vector	idx;
	instr_time	start;
	instr_time	dur;
	int			d;
	int			i;
	int			g;

	INSTR_TIME_SET_CURRENT(start);
	for (d = 0; d < j->ndims && n > 0; d++)
	{
		GpuopsAggDim *dim = &j->dims[d];
		gpo_vector	probe = d == 0 ? vecs[dim->fk_col] :
			gpuops_agg_gather(s, &vecs[dim->fk_col], &idx, n);
		gpo_vector	brows;
		gpo_vector	prows;

		if (dim->key_resno2 > 0)
		{
			gpo_vector	second = d == 0 ? vecs[dim->fk_col2] :
				gpuops_agg_gather(s, &vecs[dim->fk_col2], &idx, n);

			probe = gpuops_agg_pack_probe(&probe, &second, n);
		}
		dim->probed += n;
		n = gpuops_agg_join_probe(s, dim, dim->kind, false, &probe, n, &brows,
								  &prows);
		dim->matched += n;
		/* the earlier joins' rows, at the pairs' probe rows */
		if (d == 0)
			idx = prows;
		else
		{
			idx = gpuops_agg_gather(s, &idx, &prows, n);
			for (i = 0; i < d; i++)
				if (j->dims[i].kind == GPO_JOIN_INNER ||
					j->dims[i].kind == GPO_JOIN_LEFT)
					drows[i] = gpuops_agg_gather(s, &drows[i], &prows, n);
		}
		drows[d] = brows;		/* (of no use after a semi or anti join) */
	}
	if (n > 0)
	{
		for (i = 0; i < te->nread; i++)
			vecs[i] = gpuops_agg_gather(s, &vecs[i], &idx, n);
		for (g = 0; g < j->ngather; g++)
			vecs[j->gathers[g].col] = gpuops_agg_gather(s, &j->gathers[g].v,
															 &drows[j->gathers[g].dim],
															 n);
	}
	INSTR_TIME_SET_CURRENT(dur);
	INSTR_TIME_SUBTRACT(dur, start);
	j->probe_ms += INSTR_TIME_GET_MILLISEC(dur);
	return n;
}

/*
 * True if the star join's first dimension (the most selective) drops rows
 * by their key alone: an inner, semi or anti join.
 */
bool
gpuops_agg_join_filters(GpuopsAggScanState *s)
{
	return s->join != NULL && s->join->ndims > 0 &&
		s->join->dims[0].kind != GPO_JOIN_LEFT;
}

/*
 * The reader's prefilter's part of the join (late materialisation): ANDs
 * into keep, for the m rows of the batch columns vecs (the join columns
 * decoded), whether each row's key can pass the first dimension's join: a
 * match for an inner or semi join, none for an anti join.  A row it drops
 * would leave at the join; the rest are decoded in full and joined.
 * Allocates in the caller's (per page batch) memory context.
 */
void
gpuops_agg_join_prefilter(GpuopsAggScanState *s, gpo_vector *vecs, int64 m,
						  uint8 *keep)
{
	GpuopsAggDim *dim = &s->join->dims[0];
	gpo_vector	probe = vecs[dim->fk_col];
	gpo_vector	brows;
	gpo_vector	prows;
	uint8	   *match = palloc0(Max(m, 1));
	const int64 *rows;
	int64		count;
	int64		i;

	if (dim->key_resno2 > 0)
		probe = gpuops_agg_pack_probe(&probe, &vecs[dim->fk_col2], m);
	count = gpuops_agg_join_probe(s, dim, GPO_JOIN_SEMI, true, &probe, m,
								  &brows, &prows);
	rows = (const int64 *) prows.chunks[0].data;
	for (i = 0; i < count; i++)
		match[rows[i]] = 1;
	for (i = 0; i < m; i++)
		keep[i] &= (dim->kind == GPO_JOIN_ANTI) ? !match[i] : match[i];
}

/* Rescan: the dimensions' plans run again and their tables are built anew. */
void
gpuops_agg_join_rescan(GpuopsAggScanState *s)
{
	GpuopsAggJoin *j = s->join;
	int			d;

	if (j == NULL)
		return;
	for (d = 0; d < j->ndims; d++)
	{
		GpuopsAggDim *dim = &j->dims[d];

		ExecReScan(dim->ps);
		dim->keys = NULL;
		dim->cap = 0;
		dim->nrows = 0;
	}
	for (d = 0; d < j->ngather; d++)
	{
		j->gathers[d].dc.data = NULL;
		j->gathers[d].dc.validity = NULL;
	}
	MemoryContextReset(j->cxt);
	j->built = false;
}

/* End: the dimensions' plans end. */
void
gpuops_agg_join_end(GpuopsAggScanState *s)
{
	int			d;

	if (s->join == NULL)
		return;
	for (d = 0; d < s->join->ndims; d++)
		if (s->join->dims[d].ps != NULL)
			ExecEndNode(s->join->dims[d].ps);
}
