/*
 * agg_mapped.c
 *	  Mapped keys (plan/agg_mapped.c): the engine grouped the rows by a
 *	  text column's dictionary codes; here, once every group is in, each
 *	  code the groups hold gets the key's value (its function evaluated
 *	  once a distinct string, with PostgreSQL's own evaluator), coded in a
 *	  dictionary of the results, and the groups are grouped again by those
 *	  codes: sorted, equal neighbours combined (counts and sums add,
 *	  min/max, m2 by Chan, as batches merge), then merged into running
 *	  groups that spill as any do.
 */
#include "aggnode/exec/gpuops_agg_exec.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"

/* The code of a NULL result in a key's map. */
#define GPUOPS_MAPPED_NULL	(-2)
/* A code not mapped yet. */
#define GPUOPS_MAPPED_NONE	(-1)

/* Sets up the mapped keys of PRIV_MAPPED (after the keys' dictionaries). */
void
gpuops_agg_mapped_begin(GpuopsAggScanState *s, CustomScan *cscan)
{
	List	   *mapped = (List *) list_nth(cscan->custom_private, PRIV_MAPPED);
	ListCell   *lc;
	int			i = 0;

	s->nmapped = list_length(mapped);
	if (s->nmapped == 0)
		return;
	s->mapped = palloc0(sizeof(GpuopsMappedKey) * s->nmapped);
	foreach(lc, mapped)
	{
		List	   *m = (List *) lfirst(lc);
		GpuopsMappedKey *mk = &s->mapped[i++];
		Expr	   *e = (Expr *) copyObject(lsecond(m));
		TupleDesc	desc = CreateTemplateTupleDesc(1);

		mk->key = intVal(linitial(m));
		if (mk->key < 0 || mk->key >= s->spec.nkeys_out ||
			s->spec.key_dicts[mk->key] == NULL)
			elog(ERROR, "GpuOpsAgg: a mapped key has no text codes");
		TupleDescInitEntry(desc, 1, "source", (Oid) intVal(lthird(m)),
						   (int32) intVal(lfourth(m)), 0);
		TupleDescInitEntryCollation(desc, 1, (Oid) intVal(list_nth(m, 4)));
		mk->slot = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
		fix_opfuncids((Node *) e);
		mk->expr = ExecInitExpr(e, &s->css.ss.ps);
		mk->source = s->spec.key_dicts[mk->key];
	}
}

/* True if key k is a mapped key. */
bool
gpuops_agg_key_mapped(const GpuopsAggScanState *s, int k)
{
	int			i;

	for (i = 0; i < s->nmapped; i++)
		if (s->mapped[i].key == k)
			return true;
	return false;
}

/* Puts every mapped key's column dictionary back (a rescan reads again). */
void
gpuops_agg_mapped_rescan(GpuopsAggScanState *s)
{
	int			i;

	for (i = 0; i < s->nmapped; i++)
		s->spec.key_dicts[s->mapped[i].key] = s->mapped[i].source;
}

/*
 * The key's value for the column's string of code (-1: NULL), coded in
 * mk->result; the string and the value live in the per-tuple memory,
 * reset before each.
 */
static int32
gpuops_mapped_eval(GpuopsAggScanState *s, GpuopsMappedKey *mk, int32 code)
{
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	TupleTableSlot *slot = mk->slot;
	MemoryContext old;
	Datum		res;
	bool		resnull;

	ResetExprContext(econtext);
	ExecClearTuple(slot);
	old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	slot->tts_values[0] = code < 0 ? (Datum) 0 : gpuops_dict_datum(mk->source, code);
	MemoryContextSwitchTo(old);
	slot->tts_isnull[0] = code < 0;
	ExecStoreVirtualTuple(slot);
	econtext->ecxt_scantuple = slot;
	res = ExecEvalExprSwitchContext(mk->expr, econtext, &resnull);
	return resnull ? GPUOPS_MAPPED_NULL : gpuops_dict_encode(mk->result, res);
}

/* Turns a piece's codes of mk's column into codes of its results. */
static void
gpuops_mapped_recode(GpuopsAggScanState *s, GpuopsMappedKey *mk,
					 uint64 *codes, uint8 *valid, int64 n)
{
	int64		g;

	for (g = 0; g < n; g++)
	{
		int32		code = 0;
		int32		r;

		if (valid[g])
		{
			gpo_code_decode(GPO_INT32, codes[g], &code);
			if (code < 0 || code >= mk->nmap)
				elog(ERROR, "GpuOpsAgg: text key code %d of %lld", code,
					 (long long) mk->nmap);
			if (mk->map[code] == GPUOPS_MAPPED_NONE)
				mk->map[code] = gpuops_mapped_eval(s, mk, code);
			r = mk->map[code];
		}
		else
		{
			if (mk->map_null == GPUOPS_MAPPED_NONE)
				mk->map_null = gpuops_mapped_eval(s, mk, -1);
			r = mk->map_null;
		}
		if (r == GPUOPS_MAPPED_NULL)
		{
			valid[g] = 0;
			codes[g] = 0;
		}
		else
		{
			valid[g] = 1;
			codes[g] = gpo_key_code(GPO_INT32, &r);
		}
		if ((g & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Groups a piece of n groups again by the mapped keys' results: recoded,
 * sorted, equal neighbours combined; returns the groups left.
 */
static int64
gpuops_mapped_regroup(GpuopsAggScanState *s, GpuopsAggState *p, int64 n)
{
	int			i;

	for (i = 0; i < s->nmapped; i++)
	{
		GpuopsMappedKey *mk = &s->mapped[i];

		gpuops_mapped_recode(s, mk, p->key_codes[mk->key],
							 p->key_valid[mk->key], n);
	}
	return gpuops_parallel_sort_fold(p, n, Max(s->threads_got, 1));
}

/*
 * Groups the engine's groups again by the mapped keys' values (see the
 * file header); afterwards the keys' dictionaries are those of the
 * results.
 */
void
gpuops_agg_mapped_regroup(GpuopsAggScanState *s)
{
	GpuopsAggState *st = &s->groups;
	MemoryContext old;
	int			i;
	int64		c;

	if (s->nmapped == 0)
		return;
	old = MemoryContextSwitchTo(st->cxt);
	for (i = 0; i < s->nmapped; i++)
	{
		GpuopsMappedKey *mk = &s->mapped[i];

		mk->nmap = gpuops_dict_count(mk->source);
		mk->map = palloc_extended(sizeof(int32) * Max(mk->nmap, 1),
								  MCXT_ALLOC_HUGE);
		for (c = 0; c < mk->nmap; c++)
			mk->map[c] = GPUOPS_MAPPED_NONE;
		mk->map_null = GPUOPS_MAPPED_NONE;
		mk->result = gpuops_dict_create(Min((double) mk->nmap, s->spec.est_groups));
	}
	if (!gpuops_aggstate_spilled(st))
		st->ngroups = gpuops_mapped_regroup(s, st, st->ngroups);
	else
	{
		GpuopsAggState out;
		GpuopsAggState *piece;
		int64		n;

		gpuops_aggstate_init(&out, st->nkeys, st->key_types, st->nvals,
							 st->val_types);
		while ((n = gpuops_aggstate_next_piece(st, &piece)) > 0)
		{
			n = gpuops_mapped_regroup(s, piece, n);
			gpuops_aggspill_merge(&out, n, piece->key_codes, piece->key_valid,
								  piece->rows, piece->vals);
		}
		out.spill_runs += st->spill_runs;
		out.spill_bytes += st->spill_bytes;
		out.spill_passes += st->spill_passes;
		gpuops_aggstate_spill_end(st);
		gpuops_aggstate_clear(st);
		*st = out;
		gpuops_aggstate_finish(st);
	}
	for (i = 0; i < s->nmapped; i++)
	{
		GpuopsMappedKey *mk = &s->mapped[i];

		pfree(mk->map);
		mk->map = NULL;
		s->spec.key_dicts[mk->key] = mk->result;
	}
	MemoryContextSwitchTo(old);
}
