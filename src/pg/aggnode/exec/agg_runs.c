/*
 * agg_runs.c
 *	  GpuOpsAgg's running groups: under gpuops.running_groups, batches whose
 *	  keys suit the dense strategy go into running dense aggregations of the
 *	  engine (gpo_groupagg_run_add, one a value column), which keep their
 *	  groups where they are computed (on the GPU face: in device memory)
 *	  from batch to batch.  Their groups come back and are merged into the
 *	  node's running groups once: at the end of the table, or before a batch
 *	  whose keys fall outside the runs' key range (or were packed another
 *	  way) starts new runs.  Other batches are merged one by one
 *	  (agg_batch.c).
 *
 * The runs are malloc'd by the engine; a reset callback on the query's
 * memory context frees them when an error or a cancel unwinds the query.
 */
#include "aggnode/exec/gpuops_agg_exec.h"

#include "gpo_keypack.h"

bool		gpuops_running_groups = true;

/* Memory-context reset callback: frees the runs and their key packing. */
static void
gpuops_agg_runs_free(void *arg)
{
	GpuopsAggScanState *s = (GpuopsAggScanState *) arg;
	int			v;

	if (s->runs != NULL)
		for (v = 0; v < Max(s->spec.nvals, 1); v++)
		{
			gpo_groupagg_run_free(s->runs[v]);
			s->runs[v] = NULL;
		}
	gpo_keypack_free(s->run_pack);
	s->run_pack = NULL;
}

/* The runs' array, and the callback that frees them (once per node). */
static void
gpuops_agg_runs_init(GpuopsAggScanState *s)
{
	MemoryContext cxt = GetMemoryChunkContext(s);

	s->runs = MemoryContextAllocZero(cxt, sizeof(gpo_agg_run *) *
									 Max(s->spec.nvals, 1));
	s->runs_cleanup.func = gpuops_agg_runs_free;
	s->runs_cleanup.arg = s;
	MemoryContextRegisterResetCallback(cxt, &s->runs_cleanup);
}

/*
 * Adds the batch to every value column's run; false (nothing added) when
 * the first run declines it.
 */
static bool
gpuops_agg_runs_add(GpuopsAggScanState *s, const gpo_vector *keyv,
					gpo_vector *valvecs)
{
	int			nvals = s->spec.nvals;
	gpo_agg_out want;
	int			v;

	/* the arrays the finish will fill (only whether they are NULL counts) */
	gpuops_agg_out_alloc(&want, 1, keyv->type,
						 nvals > 0 ? valvecs[0].type : GPO_INT32, true);
	for (v = 0; v < Max(nvals, 1); v++)
	{
		gpo_ctx		ctx;
		bool		added = false;
		gpo_status	st;

		gpuops_agg_ctx_init(s, &ctx);
		st = gpo_groupagg_run_add(&ctx, &s->runs[v], keyv,
								  nvals > 0 ? &valvecs[v] : NULL,
								  (int64) s->spec.est_groups,
								  (gpo_agg_strategy) gpuops_agg_strategy,
								  &want, &added);
		gpuops_agg_checked(s, st, &ctx,
						   "GpuOpsAgg running group aggregation");
		if (!added && v == 0)
			return false;
		if (!added)
			elog(ERROR, "GpuOpsAgg: value columns disagree on the running groups");
		s->run_face = gpo_groupagg_run_face(s->runs[v]);
	}
	return true;
}

/*
 * Offers a batch to the running groups (see gpuops_agg_exec.h).  Only a
 * batch that starts runs may hand them its packing: a batch the runs turn
 * away (keys outside their range, or packed another way) has its groups
 * merged after theirs, and the next batch starts new runs.
 */
bool
gpuops_agg_runs_take(GpuopsAggScanState *s, const gpo_vector *keyv,
					 gpo_keypack *pack, gpo_vector *valvecs, bool *pack_kept)
{
	bool		fresh;

	*pack_kept = false;
	if (!gpuops_running_groups)
		return false;
	if (s->runs == NULL)
		gpuops_agg_runs_init(s);
	fresh = s->runs[0] == NULL;

	if (!fresh && pack != NULL && !gpo_keypack_same(s->run_pack, pack))
	{
		/* packed keys group together only when packed alike */
		gpuops_agg_runs_flush(s);
		return false;
	}
	if (fresh)
	{
		/* a packing that ranks keys is never the same as another */
		if (pack != NULL && !gpo_keypack_same(pack, pack))
			return false;
		s->run_pack = pack;
		*pack_kept = pack != NULL;
	}
	if (gpuops_agg_runs_add(s, keyv, valvecs))
	{
		s->run_batches++;
		s->strategy_batches[GPO_AGG_DENSE]++;
		return true;
	}
	if (fresh)
	{
		/* no run started: dense isn't the strategy, the table is merged */
		s->run_pack = NULL;
		*pack_kept = false;
		s->runs_off = true;
		return false;
	}
	/* keys outside the runs' range */
	gpuops_agg_runs_flush(s);
	return false;
}

/* Merges the running groups into s->groups and frees them (see gpuops_agg_exec.h). */
void
gpuops_agg_runs_flush(GpuopsAggScanState *s)
{
	int			nvals = s->spec.nvals;
	int			nruns = Max(nvals, 1);
	gpo_agg_out *outs;
	int64		ngroups = 0;
	int			v;

	if (s->runs == NULL || s->runs[0] == NULL)
		return;
	outs = palloc0(sizeof(gpo_agg_out) * nruns);
	for (v = 0; v < nruns; v++)
	{
		gpo_type	vt = nvals > 0 ? s->groups.val_types[v] : GPO_INT32;
		gpo_agg_out probe;
		int64		ng = 0;
		gpo_ctx		ctx;
		gpo_status	st;

		/* the number of groups first (an empty output), then the groups */
		if (v == 0)
		{
			memset(&probe, 0, sizeof(probe));
			gpuops_agg_ctx_init(s, &ctx);
			st = gpo_groupagg_run_finish(&ctx, s->runs[0], &probe, &ngroups);
			if (st != GPO_ERR_CAPACITY || ngroups == 0)
				gpuops_agg_checked(s, st, &ctx,
								   "GpuOpsAgg running group aggregation");
		}
		gpuops_agg_out_alloc(&outs[v], ngroups,
							 s->run_pack ? GPO_INT64 : s->groups.key_types[0],
							 vt, v == 0);
		gpuops_agg_ctx_init(s, &ctx);
		st = gpo_groupagg_run_finish(&ctx, s->runs[v], &outs[v], &ng);
		gpuops_agg_checked(s, st, &ctx,
						   "GpuOpsAgg running group aggregation");
		if (ng != ngroups)
			elog(ERROR, "GpuOpsAgg: value columns disagree on the running groups");
	}
	gpuops_agg_merge_outs(s, ngroups,
						  s->run_pack ? GPO_INT64 : s->groups.key_types[0],
						  s->run_pack, outs, false);
	gpuops_agg_runs_free(s);
}
