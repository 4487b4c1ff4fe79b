/*
 * agg_explain.c
 *	  EXPLAIN of the GpuOpsAgg custom scan: the device setting, the group
 *	  keys, a star join's joins, the expected strategy, the clauses on the
 *	  device and on the CPU, and under ANALYZE how the tables were read and
 *	  what the engine did.
 */
#include "aggnode/exec/agg_policy.h"

#include "nodes/makefuncs.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"

/* The strategy the planner expects the engine to choose, for plain EXPLAIN. */
static const char *
gpuops_agg_planned_strategy(const GpuopsAggSpec *spec)
{
	if (spec->nkeys == 0 || spec->planned_strategy < 0)
		return "one group";
	return gpo_agg_strategy_name((gpo_agg_strategy) spec->planned_strategy);
}

/*
 * The extra keys (count(DISTINCT x)'s x, min(x)'s and max(x)'s of text) of
 * the first table read, deparsed.
 */
static List *
gpuops_agg_extra_keys(CustomScan *cscan, Index from, Index rti,
					  List *context, bool useprefix)
{
	List	   *tab0 = (List *) linitial((List *) list_nth(cscan->custom_private,
														   PRIV_TABLES));
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, gpuops_agg_fold_args((List *) list_nth(tab0, TAB_AGGREFS)))
		out = lappend(out,
					  deparse_expression(gpuops_agg_set_varno(lfirst(lc), from, rti),
										 context, useprefix, false));
	return out;
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

/*
 * EXPLAIN ANALYZE's word on the read's GPU seat (gpu_seats.c): none was free
 * (the read ran on the CPU), or the time it waited for one.
 */
static void
gpuops_agg_explain_seat(GpuopsAggScanState *s, ExplainState *es)
{
	double		wait_ms;
	GpuopsSeatState seat = gpuops_budget_seat(s->lease, &wait_ms);

	if (seat == GPUOPS_SEAT_DENIED)
		ExplainPropertyText("GPU Seat",
							"none free (gpuops.max_gpu_queries), ran on the CPU",
							es);
	else if (seat == GPUOPS_SEAT_HELD && wait_ms > 0 && es->timing)
		ExplainPropertyFloat("GPU Seat Wait", "ms", wait_ms, 3, es);
}

/* ExplainCustomScan: device, strategy, keys, quals and, under ANALYZE, the work done. */
/* "fact.column = dimension column" of one join key, for EXPLAIN. */
static char *
gpuops_agg_explain_key(RangeTblEntry *fact, int rti, int fk_attno,
					   int attno, List *context)
{
	Var		   *key = makeVar(rti, attno, INT4OID, -1, InvalidOid, 0);

	return psprintf("%s.%s = %s", quote_identifier(fact->eref->aliasname),
					quote_identifier(get_attname(fact->relid, fk_attno, false)),
					deparse_expression((Node *) key, context, true, false));
}

/*
 * A star join's joins (fact column = dimension column, and the kind of a
 * join other than inner, with rtoffset added to the planning-time
 * range-table indexes) and, under ANALYZE, each dimension's table (dense
 * or hash), rows built and rows out of its join.
 */
static void
gpuops_agg_explain_join(GpuopsAggScanState *s, CustomScan *cscan,
						List *context, int rtoffset, ExplainState *es)
{
	List	   *join = (List *) list_nth(cscan->custom_private, PRIV_JOIN);
	int			fact_rti = (int) s->spec.tables[0].rti;
	static const char *const kinds[] = {"", " (semi)", " (anti)", " (left)"};
	List	   *joins = NIL;
	List	   *built = NIL;
	List	   *tables = NIL;
	List	   *out = NIL;
	List	   *maps = NIL;
	bool		mapped = false;
	ListCell   *lc;

	foreach(lc, (List *) list_nth(join, JOIN_DIMS))
	{
		List	   *dim = (List *) lfirst(lc);
		GpuopsAggDim *d = &s->join->dims[foreach_current_index(lc)];
		RangeTblEntry *fact = rt_fetch(fact_rti + rtoffset, es->rtable);
		char	   *eq = gpuops_agg_explain_key(fact, linitial_int(dim) + rtoffset,
												lsecond_int(dim), lthird_int(dim),
												context);

		if (list_nth_int(dim, 4) != 0)
			eq = psprintf("%s AND %s", eq,
						  gpuops_agg_explain_key(fact, list_nth_int(dim, 4) + rtoffset,
												 list_nth_int(dim, 5),
												 list_nth_int(dim, 6), context));
		joins = lappend(joins, psprintf("%s%s", eq, kinds[d->kind]));
		built = lappend(built, psprintf("%lld", (long long) d->nrows));
		tables = lappend(tables, !s->join->built ? "none" :
						 d->table.dense ? "dense" : "hash");
		out = lappend(out, psprintf("%lld", (long long) d->matched));
		maps = lappend(maps, psprintf("%lld", (long long) d->map_keys));
		mapped |= d->mapped;
	}
	ExplainPropertyList("Star Join", joins, es);
	if (es->analyze)
	{
		ExplainPropertyList("Join Tables", tables, es);
		ExplainPropertyList("Join Build Rows", built, es);
		ExplainPropertyList("Join Rows Out", out, es);
		/* the cached ranges joined where they lie: the row maps' keys */
		if (mapped)
			ExplainPropertyList("Join Row Map Keys", maps, es);
		ExplainPropertyFloat("Join Build Time", "ms", s->join->build_ms, 3, es);
		ExplainPropertyFloat("Join Probe Time", "ms", s->join->probe_ms, 3, es);
	}
}

void
gpuops_agg_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	GpuopsAggScanState *s = (GpuopsAggScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	GpuopsAggTable *first = &s->spec.tables[0];
	List	   *tab0 = (List *) linitial((List *) lthird(cscan->custom_private));
	List	   *context;
	List	   *bound;
	bool		useprefix = es->verbose;
	static const char *const devices[] = {"auto", "cpu", "gpu"};
	Index		rti = cscan->scan.scanrelid;
	int			rtoffset = 0;
	char	   *text;

	/*
	 * Keys and clauses are shown as those of the first table read, with its
	 * range-table index of the final plan: the scan relation, or the
	 * partition's entry.
	 */
	if (s->join != NULL)
	{
		/* set_plan_references offset scanrelid, not custom_private */
		rtoffset = (int) rti - (int) first->rti;
	}
	else if (rti == 0)
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
	if (s->spec.parallel_workers > 0)
	{
		ExplainPropertyInteger("Workers Planned", NULL, s->spec.parallel_workers, es);
		if (es->analyze)
			ExplainPropertyInteger("Workers Launched", NULL, s->workers_launched, es);
	}
	if (es->analyze && s->threads_got > 0)
	{
		ExplainPropertyInteger("Threads", NULL, s->threads_got, es);
		if (!gpuops_budget_active())
			ExplainPropertyText("Core Budget",
								"none (gpuops is not in shared_preload_libraries)",
								es);
		gpuops_agg_explain_seat(s, es);
	}
	if (s->join != NULL)
		gpuops_agg_explain_join(s, cscan, context, rtoffset, es);
	if (s->spec.nkeys_out > 0 && s->join != NULL)
	{
		List	   *join = (List *) list_nth(cscan->custom_private, PRIV_JOIN);
		List	   *keys = NIL;
		ListCell   *lc;

		foreach(lc, (List *) list_nth(join, JOIN_SCAN_KEYS))
		{
			Node	   *k = copyObject(lfirst(lc));

			OffsetVarNodes(k, rtoffset, 0);
			keys = lappend(keys, deparse_expression(k, context, true, false));
		}
		ExplainPropertyList("Group Keys", keys, es);
	}
	else if (s->spec.nkeys_out > 0 && rti > 0)
	{
		List	   *keys = NIL;
		List	   *columns = NIL;
		ListCell   *lc;

		Index		relid = (Index) intVal(list_nth(cscan->custom_private, PRIV_RELID));
		int			k = 0;

		foreach(lc, (List *) lthird(tab0))
		{
			/* a label or mapped key as the query writes it, not its codes */
			Node	   *query_key = list_nth((List *) list_nth(cscan->custom_private,
															  PRIV_KEYS), k);
			Node	   *column = gpuops_agg_set_varno(lfirst(lc), first->rti, rti);
			bool		mapped = gpuops_agg_key_mapped(s, k);
			Node	   *key = gpuops_label_case(query_key, NULL, NULL) || mapped ?
				gpuops_agg_set_varno(query_key, relid, rti) : column;

			keys = lappend(keys, deparse_expression(key, context, useprefix, false));
			if (mapped)
				columns = lappend(columns, deparse_expression(column, context,
															  useprefix, false));
			k++;
		}
		ExplainPropertyList("Group Keys", keys, es);
		/* mapped keys: the columns the engine groups by (agg_mapped.c) */
		if (s->nmapped > 0)
			ExplainPropertyList("Mapped Key Columns", columns, es);
	}
	if (s->derived != NIL)
	{
		List	   *keys = NIL;
		ListCell   *lc;

		/* over the scan tuple's keys (INDEX_VAR), shown as those keys */
		foreach(lc, (List *) list_nth(cscan->custom_private, PRIV_DERIVED))
			keys = lappend(keys, deparse_expression(lfirst(lc), context,
													useprefix, false));
		ExplainPropertyList("Derived Keys", keys, es);
	}
	/* a top-N by a count (agg_bound.c): its rows, the count's order */
	bound = (List *) list_nth(cscan->custom_private, PRIV_BOUND);
	if (bound != NIL)
		ExplainPropertyText("Top-N Bound",
							psprintf("%d groups by count %s", linitial_int(bound),
									 lthird_int(bound) ? "desc" : "asc"), es);
	if (s->spec.nkeys > s->spec.nkeys_out && rti > 0 && s->join == NULL)
	{
		List	   *xs = gpuops_agg_extra_keys(cscan, first->rti, rti, context,
											   useprefix);

		if (list_length(xs) == 1)
			ExplainPropertyText("Distinct Key", linitial(xs), es);
		else
			ExplainPropertyList("Distinct Keys", xs, es);
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
		if (s->cached_rows > 0)
			ExplainPropertyInteger("Rows From Cache", NULL, s->cached_rows, es);
		if (s->kept_ranges > 0)
		{
			ExplainPropertyInteger("Ranges On Device", NULL, s->kept_ranges, es);
			ExplainPropertyInteger("Rows On Device", NULL, s->kept_rows, es);
			if (es->timing)
				ExplainPropertyFloat("Device Cache Time", "ms", s->kept_ms, 3, es);
		}
		if (s->direct_ranges > 0)
		{
			ExplainPropertyInteger("Ranges Aggregated In Cache", NULL,
								   s->direct_ranges, es);
			if (es->timing)
				ExplainPropertyFloat("In-Cache Time", "ms", s->kept_ms, 3, es);
		}
		if (s->early_filtered > 0)
			ExplainPropertyInteger("Rows Filtered Before Decoding", NULL,
								   s->early_filtered, es);
		ExplainPropertyInteger("Rows Passed", NULL, s->rows_passed, es);
		ExplainPropertyInteger("Groups", NULL,
							   s->groups.spill_runs > 0 && s->groups.ngroups == 0 ?
							   s->groups.groups_out : s->groups.ngroups, es);
		if (s->bounded)
			ExplainPropertyInteger("Groups Past The Bound", NULL,
								   s->bound_skipped, es);
		ExplainPropertyInteger("Chunks", NULL, s->batches, es);
		if (s->policy != NULL)
			s->policy->funcs->explain(s->policy, es);
		if (s->groups.spill_runs > 0)
		{
			ExplainPropertyInteger("Spilled Runs", NULL, s->groups.spill_runs, es);
			ExplainPropertyInteger("Spilled Bytes", "kB",
								   (s->groups.spill_bytes + 1023) / 1024, es);
			if (s->groups.spill_passes > 0)
				ExplainPropertyInteger("Spill Merge Passes", NULL,
									   s->groups.spill_passes, es);
		}
		if (es->verbose || s->gpu_calls > 0)
			ExplainPropertyInteger("Bytes Sent", "kB", s->bytes_in / 1024, es);
		ExplainPropertyInteger("GPU Calls", NULL, s->gpu_calls, es);
		ExplainPropertyInteger("CPU Calls", NULL, s->cpu_calls, es);
		if (s->service_calls > 0 || s->service_fallbacks > 0)
		{
			ExplainPropertyInteger("GPU Service Batches", NULL, s->service_calls, es);
			ExplainPropertyInteger("GPU Service Fallbacks", NULL,
								   s->service_fallbacks, es);
			if (es->timing)
			{
				ExplainPropertyFloat("GPU Service Time", "ms", s->service_ms, 3, es);
				ExplainPropertyFloat("GPU Service Copy Time", "ms",
									 s->service_copy_ms, 3, es);
			}
		}
		if (es->timing)
		{
			ExplainPropertyFloat("Read Time", "ms", s->read_ms, 3, es);
			if (s->fast_read)
				ExplainPropertyFloat("Page Pinning Time", "ms", s->pin_ms, 3, es);
			ExplainPropertyFloat("Engine Time", "ms", s->engine_ms, 3, es);
			if (s->spec.nkeys > 0)
				ExplainPropertyFloat("Merge Time", "ms", s->merge_ms, 3, es);
		}
	}
}
