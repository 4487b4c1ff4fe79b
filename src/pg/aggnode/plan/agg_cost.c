/*
 * agg_cost.c
 *	  What a GpuOpsAgg path is expected to cost and do: its cost, the worker
 *	  processes it may read with, and the grouping strategy the engine is
 *	  expected to choose, from the key columns' value ranges in the
 *	  statistics.
 */
#include "aggnode/plan/agg_plan_int.h"
#include "heapscan/gpuops_scan.h"

#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"

/* The share of a sample of blocks in shared buffers that counts as all. */
#define GPUOPS_RESIDENT_ENOUGH	0.9

/*
 * Cost of the path: setup, reading every page and row, quals, groups out.
 * The per-row cost is not divided among the OpenMP threads: on 16 cores the
 * CPU face took 1.2 to 1.4 s for 1e8 rows whatever the query (the backend's
 * page reading bounds it), slower than a 16-worker native plan for a
 * selective WHERE or a plain count and sum, faster only for heavier
 * aggregation (bench/RESULTS.md).  It is divided among the processes that
 * read when there are worker processes (plus PostgreSQL's parallel set-up
 * cost): with 15 workers the CPU face read 1e8 rows in 120-210 ms.  The
 * share cached of the table (gpuops_cache_fresh_share) costs no page and no
 * decoding: on 2 cores, 10M rows, the read went from about 200 ms to 11 ms.
 */
void
gpuops_agg_cost(PlannerInfo *root, GpuopsAggInput *input, double groups,
				int ncols, double decode_weight, double cached, int workers,
				double page_factor, Path *path)
{
	bool		gpu = gpuops_device == GPO_DEVICE_GPU;
	double		row_cost = gpu ? gpuops_gpu_row_cost : gpuops_cpu_row_cost;
	QualCost	qcost;
	Cost		startup;
	gpo_ctx		ctx;
	int			threads;
	int			procs;

	cost_qual_eval(&qcost, input->cpu_quals, root);
	/* the decoding threads share the walk and the parsing (gpuops_agg_decode_weight) */
	gpuops_ctx_init(&ctx);
	threads = Max(gpo_threads(&ctx), 1);
	/*
	 * (the worker processes share the threads: decoding is spread over all
	 * of them, not over threads in each process; with fewer than 3 threads
	 * the node has no worker processes, and its two threads share the pages
	 * and rows, as a native plan's processes do: on 2 cores, SSB at 3M
	 * lineorder rows, every star join cost 1.04-1.40x native's when divided
	 * by one and ran 2.1-3.1x faster than native, forced)
	 */
	procs = workers > 0 || threads > 2 ? workers + 1 : threads;
	startup = (gpu ? gpuops_gpu_setup_cost : gpuops_cpu_setup_cost) +
		qcost.startup +
		(seq_page_cost * input->pages * (1.0 - cached) * page_factor +
		 input->tuples * (row_cost * (1 + 0.25 * ncols) + qcost.per_tuple)) /
		procs +
		input->tuples * (1.0 - cached) * gpuops_cpu_row_cost * decode_weight /
		Max(threads, workers + 1);
	if (workers > 0)
		startup += parallel_setup_cost;
	path->startup_cost = startup;
	path->total_cost = startup + groups * cpu_tuple_cost;
}

/*
 * How many times a page read costs the node what it costs a native plan,
 * for rel read with workers worker processes: where rel is larger than a
 * quarter of shared_buffers, both read it through a small ring of buffers,
 * so every page is copied from the kernel's cache by the process that
 * reads it, and a native parallel scan spreads those copies over its
 * processes (the leader's included) while the node's are spread over its
 * own.  1 otherwise (the pages stay in shared_buffers).  On 2 cores, a
 * 1M-row, 600 MB table of 105 columns (bench/wide_queries.sql) with
 * shared_buffers at 128MB: a filtered count took 165 ms natively (3
 * processes) and 330-360 ms on the node alone (its pinning, with the
 * kernel's copies, was half of its profile), 250-280 ms with 2 workers.
 * Also 1 where rel fits in shared_buffers and a sample of its blocks finds
 * nearly all of them there (gpuops_resident_share): the node pins them
 * without a copy (the node's batches keep more pages pinned than a ring
 * holds, so its reads leave a table that fits in shared buffers).  On 2
 * cores, 2M rows of (int4, int4, int8), 85 MB with shared_buffers at
 * 128MB, GROUP BY k: native with 2 workers 226-358 ms; the node, the
 * table in shared buffers, 145-257 ms as a session's first query (the
 * backend's page faults mapping the buffers: 57-69 ms with huge_pages =
 * on, native then 174-200) and 22-30 ms after it; the table out of them,
 * 291-555 ms.
 */
double
gpuops_agg_page_factor(PlannerInfo *root, RelOptInfo *rel, int workers)
{
	int			native;

	if (rel == NULL || rel->pages <= NBuffers / 4 ||
		!rel->consider_parallel || !root->glob->parallelModeOK ||
		max_parallel_workers_per_gather <= 0)
		return 1.0;
	native = compute_parallel_worker(rel, rel->pages, -1,
									 max_parallel_workers_per_gather);
	if (native <= workers)
		return 1.0;
	/* (sampled only where the answer can change the factor) */
	if (rel->pages <= NBuffers && rel->rtekind == RTE_RELATION &&
		gpuops_resident_share(planner_rt_fetch(rel->relid, root)->relid,
							  rel->pages) >= GPUOPS_RESIDENT_ENOUGH)
		return 1.0;
	return (double) (native + 1) / (double) (workers + 1);
}

/*
 * What decoding a row of relation relid costs beyond reading fixed-width
 * columns at fixed offsets, in units of gpuops.cpu_row_cost, for the columns
 * attnos: 0.1 for each step of the decoder's walk (walk.c: from the first
 * variable-width attribute up to the last needed one, each variable-width
 * or needed attribute a step, and each run of other fixed-width ones one
 * step), 0.3 for each numeric column it parses, 0.1 for each short text
 * key.  Fitted on 2 cores, 1M rows of TPC-H's lineitem
 * (bench/tpch_queries.sql, native planned with up to 15 workers): Q6 (a
 * walk of 7 steps, 3 numerics, 2% of the rows kept) measured 0.94x native
 * with the node, Q1 2.29x and d3 2.76x; with these weights Q6 keeps its
 * native plan and the other two take the node.  The walk and the parsing
 * were 46% and 21% of a profile of Q6's node.  PostgreSQL's own cost of
 * numeric aggregates is far below their time, so a larger weight would
 * keep Q1 and d3 native where they lose.  (The weight was 0.1 an attribute
 * before the walk passed runs in one step; on the 105-column table of
 * bench/wide_queries.sql that kept 16 queries native on 2 cores where
 * the node, forced, ran 2.6-4.9x faster.)
 */
double
gpuops_agg_decode_weight(Oid relid, Bitmapset *attnos)
{
	double		weight = 0.0;
	bool		walking = false;
	bool		in_run = false;
	int			maxatt = -1;
	int			a;

	a = -1;
	while ((a = bms_next_member(attnos, a)) >= 0)
		maxatt = a + FirstLowInvalidHeapAttributeNumber;
	for (a = 1; a <= maxatt; a++)
	{
		Oid			typid;
		int32		typmod;
		Oid			collid;
		int16		typlen;
		bool		needed = bms_is_member(a - FirstLowInvalidHeapAttributeNumber,
										   attnos);

		get_atttypetypmodcoll(relid, (AttrNumber) a, &typid, &typmod, &collid);
		if (!OidIsValid(typid))
			continue;			/* a dropped column: NULL or skipped alike */
		typlen = get_typlen(typid);
		if (typlen < 0)
			walking = true;
		/* a step: a variable-width or needed attribute, or a run's first */
		if (walking && (typlen < 0 || needed || !in_run))
			weight += 0.1;
		in_run = walking && typlen > 0 && !needed;
		if (needed && typid == NUMERICOID)
			weight += 0.3;
		else if (needed && (typid == BPCHAROID || typid == VARCHAROID))
			weight += 0.1;
	}
	return weight;
}

/*
 * Cost of one distinct string put into a text column's dictionary.  The
 * dictionary adds the strings its lookups miss on one thread, each a cache
 * miss or two into tables that grow with it: on 2 cores, 1M rows of
 * bench/wide_queries.sql, coding the 172,227 distinct URLs of the 201,094
 * rows with a phrase took some 170 ms of the node's 275 (`searchphrase,
 * min(url)`), while a native plan costed at 83.8K units took 246 ms;
 * without this cost the node was costed at half that and ran 0.84x native.
 * The statistics counted 40,038 distinct URLs (some 195,000 in the table),
 * so the cost a string is set by that count.  A dictionary of up to
 * GPUOPS_TEXT_CODE_FREE strings stays in the caches and costs nothing more
 * (the pg_regress tables' text arguments, of a few thousand strings).
 */
#define GPUOPS_TEXT_CODE_COST	2.5
#define GPUOPS_TEXT_CODE_FREE	16384.0

/*
 * What coding the strings of rel's text columns among attnos costs: each
 * process codes the distinct strings among the rows it reads that pass the
 * WHERE clause, at most the column's distinct values (its statistics) and
 * at most its share of those rows, past the first GPUOPS_TEXT_CODE_FREE.
 * The caller passes the argument of min, max or count(DISTINCT), coded as
 * one more key; not the grouping keys, whose strings a native plan hashes
 * or sorts as well.  Numerics are parsed, not coded
 * (gpuops_agg_decode_weight).
 */
Cost
gpuops_agg_text_cost(PlannerInfo *root, RelOptInfo *rel, Bitmapset *attnos,
					 int workers)
{
	RangeTblEntry *rte = planner_rt_fetch(rel->relid, root);
	double		share = Max(rel->rows, 1.0) / (workers + 1);
	Cost		cost = 0;
	int			a = -1;

	while ((a = bms_next_member(attnos, a)) >= 0)
	{
		AttrNumber	attno = a + FirstLowInvalidHeapAttributeNumber;
		Oid			typid;
		int32		typmod;
		Oid			collid;
		Var		   *var;
		VariableStatData vardata;
		bool		isdefault;
		double		distinct;

		if (attno <= 0)
			continue;
		get_atttypetypmodcoll(rte->relid, attno, &typid, &typmod, &collid);
		if (!OidIsValid(typid) || typid == NUMERICOID || get_typlen(typid) >= 0)
			continue;
		var = makeVar(rel->relid, attno, typid, typmod, collid, 0);
		examine_variable(root, (Node *) var, 0, &vardata);
		distinct = get_variable_numdistinct(&vardata, &isdefault);
		ReleaseVariableStats(vardata);
		cost += Max(Min(distinct, share) - GPUOPS_TEXT_CODE_FREE, 0.0) *
			GPUOPS_TEXT_CODE_COST;
	}
	return cost;
}

/*
 * What reading a row of relation relid costs a process beyond a row of
 * two fixed-width columns, for the columns attnos (the worker count's
 * scale): decode_weight (gpuops_agg_decode_weight of those columns), plus
 * 1 for each variable-width column other than numeric, whose strings the
 * process hashes and codes.  On the H200
 * machine (16 cores), 3M rows of bench/wide_queries.sql's 105-column
 * table: 2 to 4 workers ran text-key queries 1.3-2.2x faster than none
 * (t_url_top 867 -> 526 ms, t_url_all 1058 -> 822 ms, i_urlhash_date
 * 428 -> 195 ms), 8 workers less so, while the rule of rows / (64 x
 * groups) alone gave none.
 */
double
gpuops_agg_read_weight(Oid relid, Bitmapset *attnos, double decode_weight)
{
	double		weight = decode_weight;
	int			a = -1;

	while ((a = bms_next_member(attnos, a)) >= 0)
	{
		AttrNumber	attno = a + FirstLowInvalidHeapAttributeNumber;
		Oid			typid;

		if (attno <= 0)
			continue;
		typid = get_atttype(relid, attno);
		if (OidIsValid(typid) && typid != NUMERICOID && get_typlen(typid) < 0)
			weight += 1.0;
	}
	return weight;
}

/*
 * The key code (gpo_key_code) of d, a statistics value of a column of type
 * typid whose engine type phys is GPO_INT32 or GPO_INT64.
 */
static uint64
gpuops_agg_stat_code(Oid typid, gpo_type phys, Datum d)
{
	int64		v64 = 0;
	int32		v32 = 0;

	switch (typid)
	{
		case INT2OID:
			v32 = DatumGetInt16(d);
			break;
		case BOOLOID:
			v32 = DatumGetBool(d) ? 1 : 0;
			break;
		case INT4OID:
		case DATEOID:
			v32 = DatumGetInt32(d);
			break;
		default:
			v64 = DatumGetInt64(d);
			break;
	}
	return phys == GPO_INT32 ? gpo_key_code(phys, &v32) :
		gpo_key_code(phys, &v64);
}

/*
 * The range of key codes (gpo_key_code) a key's values span, from the
 * column's statistics (histogram bounds and most common values); false when
 * unknown or not an integer-like key.  A text key's codes are its dense
 * dictionary numbers, so its range is its estimated number of values.
 */
static bool
gpuops_agg_key_range(PlannerInfo *root, Var *var, double rows, uint64 *span)
{
	VariableStatData vardata;
	AttStatsSlot sslot;
	gpo_type	phys;
	bool		found = false;
	uint64		lo = PG_UINT64_MAX;
	uint64		hi = 0;
	int			kinds[2] = {STATISTIC_KIND_HISTOGRAM, STATISTIC_KIND_MCV};
	int			k;
	int			i;

	if (gpuops_agg_short_text_key(var->vartype, var->vartypmod,
								  var->varcollid))
	{
		/* one byte: codes below 2048; longer: no useful span */
		if (var->vartypmod - VARHDRSZ > 1 ||
			pg_database_encoding_max_length() > 1)
			return false;
		*span = 2047;
		return true;
	}
	if (gpuops_agg_text_key(var->vartype, var->varcollid))
	{
		double		nd = estimate_num_groups(root, list_make1(var), rows,
											 NULL, NULL);

		*span = (uint64) Max(nd, 1.0) - 1;
		return true;
	}
	if (!gpuops_scan_col_type(var->vartype, &phys) ||
		(phys != GPO_INT32 && phys != GPO_INT64))
		return false;
	examine_variable(root, (Node *) var, 0, &vardata);
	for (k = 0; k < 2 && HeapTupleIsValid(vardata.statsTuple); k++)
	{
		if (!get_attstatsslot(&sslot, vardata.statsTuple, kinds[k], InvalidOid,
							  ATTSTATSSLOT_VALUES))
			continue;
		for (i = 0; i < sslot.nvalues; i++)
		{
			uint64		code = gpuops_agg_stat_code(var->vartype, phys,
													sslot.values[i]);

			lo = Min(lo, code);
			hi = Max(hi, code);
			found = true;
		}
		free_attstatsslot(&sslot);
	}
	ReleaseVariableStats(vardata);
	if (found)
		*span = hi - lo;
	return found;
}

/*
 * The strategy the engine is expected to choose (gpo_agg_choose, or the
 * setting that forces one); -1 for aggregates without GROUP BY.  Several
 * keys are packed into one key whose span is the product of theirs.
 */
int
gpuops_agg_predict_strategy(PlannerInfo *root, List *keys, double rows,
							double groups)
{
	gpo_type	type = GPO_INT64;
	uint64		span = PG_UINT64_MAX;
	double		packed = 1;
	ListCell   *lc;

	if (keys == NIL)
		return -1;
	if (gpuops_agg_strategy == GPO_AGG_HASH || gpuops_agg_strategy == GPO_AGG_SORT)
		return gpuops_agg_strategy;
	foreach(lc, keys)
	{
		uint64		one;

		if (!IsA(lfirst(lc), Var) ||
			!gpuops_agg_key_range(root, (Var *) lfirst(lc), rows, &one))
		{
			packed = -1;
			break;
		}
		/* and one more code for NULL */
		packed *= (double) one + 2;
	}
	if (list_length(keys) == 1)
		gpuops_scan_col_type_mod(exprType((Node *) linitial(keys)),
								 exprTypmod((Node *) linitial(keys)), &type);
	if (gpuops_agg_text_key(exprType((Node *) linitial(keys)),
							exprCollation((Node *) linitial(keys))))
		type = gpuops_agg_short_text_key(exprType((Node *) linitial(keys)),
										 exprTypmod((Node *) linitial(keys)),
										 exprCollation((Node *) linitial(keys))) ?
			GPO_INT64 : GPO_INT32;
	if (packed > 0 && packed < (double) PG_INT64_MAX)
		span = (uint64) packed - 1;
	if (gpuops_agg_strategy == GPO_AGG_DENSE)
		return span < (uint64) GPO_AGG_DENSE_MAX_RANGE ? GPO_AGG_DENSE :
			gpo_agg_choose(type, (int64) rows, 0, span, (int64) groups);
	return gpo_agg_choose(type, (int64) Max(rows, 1), 0, span, (int64) groups);
}

/*
 * Pages of a table a worker process is worth reading, where the table sets
 * no parallel_workers (see gpuops_agg_workers): 32 MB.  TPC-H Q6 over 60M
 * lineitem rows (8.8 GB) on 16 cores (H100 machine) took 254 ms with the
 * 7 workers PostgreSQL's rule gives, 213 ms with 15.
 */
#define GPUOPS_PAGES_A_WORKER	4096.0

/*
 * Rows read that a string a worker sends costs the backend (see
 * gpuops_agg_workers).  GROUP BY url over 10M rows of a 105-column table
 * (398,877 URLs, H100 machine, 16 cores) ran best with 4 workers (537 ms,
 * 2 workers 583 ms, 8 workers 688 ms); with 8, the backend coded 1.6M
 * strings in 98 ms, some 3 rows read a string, but the pieces' transfer
 * and merge grow with the strings too.  At 16, with a group counted at a
 * row a thread, the rule picks 3-4 workers there.
 */
#define GPUOPS_ROWS_A_STRING	16.0

/*
 * Worker processes the node may read with (for the costing and the plan):
 * only where the query may run in parallel, for one heap table whose scan
 * is parallel-safe, without clauses PostgreSQL must evaluate (row-level
 * security included); a text key's codes are per process, and the backend
 * codes a worker's strings again (agg_parallel_text.c).
 * gpuops.parallel_workers = -1 (the default) takes as many as PostgreSQL
 * would give a parallel scan of the table (its parallel_workers option, or
 * one more each time its size triples), or one a GPUOPS_PAGES_A_WORKER
 * pages where the table has no such option and that is more, within
 * max_parallel_workers_per_gather; but no more than one
 * process a thread of gpuops.threads, none with fewer than 3 threads (the
 * processes share the threads, and on 2 cores a worker was measured a
 * loss); and of those, the number whose read and merge cost least: every
 * process sends the groups it saw to the backend, which merges them alone.
 * At 1e8 rows of two narrow columns, 1M groups and 15 workers on 16 cores
 * the query took 2.8-3.0 s, against 2.2-2.3 s without workers: about 180
 * ns a group sent, against 22 ns a row read by the 16 threads of one
 * process.  So n processes cost the table's rows x (1 + read_weight) / n
 * (reading a row costs 1 + read_weight times what it costs there,
 * gpuops_agg_read_weight) plus the groups the n - 1 workers send times the
 * threads, a worker sending at most the estimated groups and at most its
 * share of the rows the WHERE clauses pass (the backend's own groups are
 * not sent).  A worker also sends each distinct string of its text
 * columns once (at most strings of them, and at most its share of the
 * rows), which the backend codes again in its own dictionary: a string
 * costs GPUOPS_ROWS_A_STRING rows.  Before, every group of a text query
 * was counted at 64 rows, which left count(DISTINCT userid) by phone model
 * (268,137 groups, 165 models) without a worker.  The executor gives the
 * workers only the threads the core budget has free.
 * Another value asks for that many, at most max_parallel_workers_per_gather.
 */
int
gpuops_agg_workers(PlannerInfo *root, Index relid, List *tables, bool inh,
				   double groups, double read_weight, double strings)
{
	int			workers = Min(gpuops_parallel_workers,
							  max_parallel_workers_per_gather);
	RelOptInfo *scanrel;

	if (gpuops_parallel_workers == 0 || max_parallel_workers_per_gather <= 0 ||
		!root->glob->parallelModeOK ||
		inh || list_length(tables) != 1 ||
		relid >= (Index) root->simple_rel_array_size)
		return 0;
	scanrel = root->simple_rel_array[relid];
	if (scanrel == NULL || !scanrel->consider_parallel ||
		list_nth((List *) linitial(tables), TAB_CPU_QUALS) != NIL)
		return 0;
	if (gpuops_parallel_workers < 0)
	{
		gpo_ctx		ctx;
		int			threads;
		double		read = Max(scanrel->tuples, 1.0) * (1.0 + Max(read_weight, 0.0));
		double		passed = Min(Max(scanrel->rows, 1.0), Max(scanrel->tuples, 1.0));
		double		best = -1;
		int			most;

		gpuops_ctx_init(&ctx);
		threads = gpo_threads(&ctx);
		most = compute_parallel_worker(scanrel, scanrel->pages, -1,
									   max_parallel_workers_per_gather);
		/* a large table without the option: a worker a few thousand pages */
		if (scanrel->rel_parallel_workers < 0)
			most = Max(most,
					   Min((int) Min(scanrel->pages / GPUOPS_PAGES_A_WORKER, 1024.0),
						   max_parallel_workers_per_gather));
		most = threads < 3 ? 0 : Min(most, threads - 1);
		/* the processes whose read and merge cost least, in rows read */
		workers = 0;
		for (int p = 1; p <= most + 1; p++)
		{
			double		sent = (p - 1) * Min(Max(groups, 1.0), passed / p);
			double		coded = (p - 1) * Min(strings, passed / p);
			double		cost = read / p + sent * (double) Max(threads, 1) +
				coded * GPUOPS_ROWS_A_STRING;

			if (best < 0 || cost < best)
			{
				best = cost;
				workers = p - 1;
			}
		}
	}
	return Max(workers, 0);
}
