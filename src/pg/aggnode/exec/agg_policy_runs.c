/*
 * agg_policy_runs.c
 *	  GpuOpsAgg's grouping policy "running groups": under
 *	  gpuops.running_groups, batches whose keys suit the dense strategy go
 *	  into running dense aggregations of the engine (one a value column, all
 *	  fed by one gpo_groupagg_run_add_many a batch), which keep their groups
 *	  where they are computed (on the GPU face: in device memory) from batch
 *	  to batch.  Their groups come back and are merged into the node's
 *	  running groups once: at the end of the table, or before a batch whose
 *	  keys fall outside the runs' key range (or were packed another way)
 *	  starts new runs.  The batches the runs decline go to the merge policy
 *	  this one wraps (agg_policy_merge.c); once the first batch of a table
 *	  is declined, the rest of the table goes there too.  The runs are not
 *	  used when their largest key range would not fit in
 *	  gpuops.max_group_memory: the merged groups can spill (agg_spill.c),
 *	  the engine's slots cannot.
 *
 * The runs are malloc'd by the engine; a reset callback on the query's
 * memory context frees them when an error or a cancel unwinds the query.
 */
#include "aggnode/exec/agg_policy.h"

#include "gpo_keypack.h"


/* The runs policy. */
typedef struct GpuopsAggRunsPolicy
{
	GpuopsAggPolicy base;
	GpuopsAggPolicy *merge;		/* takes the batches the runs decline */
	gpo_agg_run **runs;			/* [Max(nvals, 1)]; runs[0] NULL: none */
	gpo_keypack *run_pack;		/* several keys: the packing of the runs' */
	bool		runs_off;		/* this table's batches are merged instead */
	MemoryContextCallback cleanup;	/* frees the runs on error */
	int64		run_batches;	/* batches the runs took */
	gpo_device	run_face;		/* the face of the last run */
	/* what the runs' NULL-key group holds (never both) */
	bool		null_filtered;	/* rows a filter failed (null_key_out) */
	bool		null_keys;		/* maybe rows with a NULL key */
} GpuopsAggRunsPolicy;

/* Frees the runs and their key packing, forgets their NULL group (idempotent). */
static void
gpuops_agg_runs_destroy(GpuopsAggPolicy *policy)
{
	GpuopsAggRunsPolicy *rp = (GpuopsAggRunsPolicy *) policy;
	int			v;

	for (v = 0; v < Max(policy->s->spec.nvals, 1); v++)
	{
		gpo_groupagg_run_free(rp->runs[v]);
		rp->runs[v] = NULL;
	}
	gpo_keypack_free(rp->run_pack);
	rp->run_pack = NULL;
	rp->null_filtered = false;
	rp->null_keys = false;
}

/* Memory-context reset callback: frees the runs. */
static void
gpuops_agg_runs_cleanup(void *arg)
{
	gpuops_agg_runs_destroy((GpuopsAggPolicy *) arg);
}

/*
 * Adds the batch to every value column's run, in one engine call (the keys
 * read once); false (nothing added) when the runs decline it.
 */
static bool
gpuops_agg_runs_add_runs(GpuopsAggRunsPolicy *rp, const gpo_vector *keyv,
						 gpo_vector *valvecs)
{
	GpuopsAggScanState *s = rp->base.s;
	int			nvals = s->spec.nvals;
	int			nruns = Max(nvals, 1);
	gpo_agg_out *want = palloc(sizeof(gpo_agg_out) * nruns);
	const gpo_vector **vals = palloc(sizeof(gpo_vector *) * nruns);
	gpo_ctx		ctx;
	bool		added = false;
	gpo_status	st;
	int			v;

	for (v = 0; v < nruns; v++)
	{
		/* the arrays the finish will fill (only whether they are NULL counts) */
		gpuops_agg_out_alloc(&want[v], 1, keyv->type,
							 nvals > 0 ? valvecs[v].type : GPO_INT32, true,
							 gpuops_agg_val_m2(&s->spec, v));
		vals[v] = nvals > 0 ? &valvecs[v] : NULL;
	}
	gpuops_agg_ctx_init(s, &ctx);
	st = gpo_groupagg_run_add_many(&ctx, rp->runs, nruns, keyv, vals,
								   (int64) s->spec.est_groups,
								   (gpo_agg_strategy) gpuops_agg_strategy,
								   want, &added);
	gpuops_agg_checked(s, st, &ctx, "GpuOpsAgg running group aggregation");
	if (added)
		rp->run_face = gpo_groupagg_run_face(rp->runs[0]);
	return added;
}

/* Merges the running groups into the node's groups and frees them. */
static void
gpuops_agg_runs_flush(GpuopsAggRunsPolicy *rp)
{
	GpuopsAggScanState *s = rp->base.s;
	int			nvals = s->spec.nvals;
	int			nruns = Max(nvals, 1);
	gpo_type	ktype = rp->run_pack ? GPO_INT64 : s->groups.key_types[0];
	gpo_agg_out *outs;
	int64		ngroups = 0;
	int			v;
	/* the groups can become the running state's own arrays */
	bool		owned = s->groups.ngroups == 0 && s->groups.rows == NULL;
	MemoryContext old;

	if (rp->runs[0] == NULL)
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
			st = gpo_groupagg_run_finish(&ctx, rp->runs[0], &probe, &ngroups);
			if (st != GPO_ERR_CAPACITY || ngroups == 0)
				gpuops_agg_checked(s, st, &ctx,
								   "GpuOpsAgg running group aggregation");
		}
		old = MemoryContextSwitchTo(owned ? s->groups.cxt : CurrentMemoryContext);
		gpuops_agg_out_alloc(&outs[v], ngroups, ktype, vt, v == 0,
							 gpuops_agg_val_m2(&s->spec, v));
		MemoryContextSwitchTo(old);
		gpuops_agg_ctx_init(s, &ctx);
		st = gpo_groupagg_run_finish(&ctx, rp->runs[v], &outs[v], &ng);
		gpuops_agg_checked(s, st, &ctx,
						   "GpuOpsAgg running group aggregation");
		if (ng != ngroups)
			elog(ERROR, "GpuOpsAgg: value columns disagree on the running groups");
	}
	gpuops_agg_merge_outs_owned(s, ngroups, ktype, rp->run_pack, outs,
								rp->null_filtered, owned);
	gpuops_agg_runs_destroy(&rp->base);
}

/* Whether the key column of a batch has a validity bitmap (may hold NULLs). */
static bool
gpuops_agg_runs_key_nulls(const gpo_vector *keyv)
{
	int			c;

	for (c = 0; c < keyv->nchunks; c++)
		if (keyv->chunks[c].validity != NULL)
			return true;
	return false;
}

/*
 * Offers the batch's keys to the runs; true when they took it.  Only a
 * batch that starts runs may hand them its packing: a batch the runs turn
 * away (keys outside their range, or packed another way) has its groups
 * merged after theirs, and the next batch starts new runs.
 */
static bool
gpuops_agg_runs_take(GpuopsAggRunsPolicy *rp, GpuopsAggBatchKeys *bk)
{
	bool		fresh = rp->runs[0] == NULL;

	if (!fresh && bk->pack != NULL && !gpo_keypack_same(rp->run_pack, bk->pack))
	{
		/* packed keys group together only when packed alike */
		gpuops_agg_runs_flush(rp);
		return false;
	}
	if (fresh)
	{
		/* a packing that ranks keys is never the same as another */
		if (bk->pack != NULL && !gpo_keypack_same(bk->pack, bk->pack))
			return false;
		rp->run_pack = bk->pack;
		bk->pack_kept = bk->pack != NULL;
	}
	if (gpuops_agg_runs_add_runs(rp, &bk->keyv, bk->valvecs))
	{
		rp->run_batches++;
		rp->base.s->strategy_batches[GPO_AGG_DENSE]++;
		return true;
	}
	if (fresh)
	{
		/* no run started: dense isn't the strategy, the table is merged */
		rp->run_pack = NULL;
		bk->pack_kept = false;
		rp->runs_off = true;
		return false;
	}
	/* keys outside the runs' range */
	gpuops_agg_runs_flush(rp);
	return false;
}

/*
 * Whether running dense groups fit in gpuops.max_group_memory: they may
 * hold a slot for every key of a range up to GPO_AGG_DENSE_MAX_RANGE, in
 * the engine's memory, which the spill cannot bound.
 */
static bool
gpuops_agg_runs_fit(const GpuopsAggScanState *s)
{
	const GpuopsAggState *st = &s->groups;
	double		slot = sizeof(int64);	/* rows */
	int			v;

	/* each value column's run: count, exact and float sums, min and max */
	for (v = 0; v < st->nvals; v++)
		slot += sizeof(int64) + sizeof(gpo_int128) + sizeof(double) +
			2 * gpo_type_size(st->val_types[v]);
	return st->limit_bytes == 0 ||
		(double) GPO_AGG_DENSE_MAX_RANGE * slot <= (double) st->limit_bytes;
}

/* Takes one batch: into the runs, or else to the merge policy. */
static bool
gpuops_agg_runs_add(GpuopsAggPolicy *policy, GpuopsAggTableExec *te,
					gpo_vector *vecs, int64 n, bool null_key_out)
{
	GpuopsAggRunsPolicy *rp = (GpuopsAggRunsPolicy *) policy;
	GpuopsAggBatchKeys *bk = gpuops_agg_batch_keys(policy->s, te, vecs, n,
												   null_key_out);
	bool		key_nulls = !null_key_out && gpuops_agg_runs_key_nulls(&bk->keyv);

	/*
	 * With the GPU service the runs are this backend's CPU face's (the
	 * service keeps no groups from one request to the next): a pass over
	 * the batch's rows, which costs about what laying them out for the
	 * service would.
	 */
	if (!rp->runs_off && gpuops_running_groups && gpuops_agg_runs_fit(policy->s))
	{
		/*
		 * A batch whose failing rows were given NULL keys (null_key_out)
		 * joins runs whose NULL group holds only such rows, which the flush
		 * drops; runs that may hold a real NULL key are flushed first, and
		 * the other way round.
		 */
		if ((null_key_out && rp->null_keys) || (key_nulls && rp->null_filtered))
			gpuops_agg_runs_flush(rp);
		if (gpuops_agg_runs_take(rp, bk))
		{
			rp->null_filtered |= null_key_out;
			rp->null_keys |= key_nulls;
			return false;
		}
	}
	return gpuops_agg_policy_merge_keys(rp->merge, bk);
}

/* Merges the merge policy's batch in flight. */
static void
gpuops_agg_runs_settle(GpuopsAggPolicy *policy)
{
	GpuopsAggRunsPolicy *rp = (GpuopsAggRunsPolicy *) policy;

	rp->merge->funcs->settle(rp->merge);
}

/* At the end of a table: the batch in flight, then the runs' groups. */
static void
gpuops_agg_runs_finish(GpuopsAggPolicy *policy)
{
	GpuopsAggRunsPolicy *rp = (GpuopsAggRunsPolicy *) policy;

	rp->merge->funcs->finish(rp->merge);
	gpuops_agg_runs_flush(rp);
}

/* EXPLAIN ANALYZE: the chunks the runs took, and their face. */
static void
gpuops_agg_runs_explain(GpuopsAggPolicy *policy, ExplainState *es)
{
	GpuopsAggRunsPolicy *rp = (GpuopsAggRunsPolicy *) policy;

	if (rp->run_batches > 0)
	{
		char	   *text = psprintf("%lld chunks (%s)", (long long) rp->run_batches,
									rp->run_face == GPO_DEVICE_GPU ? "gpu" : "cpu");

		ExplainPropertyText("Running Groups", text, es);
	}
	rp->merge->funcs->explain(rp->merge, es);
}

/* Forgets the runs (freed) and whether this table declined them. */
static void
gpuops_agg_runs_reset(GpuopsAggPolicy *policy)
{
	GpuopsAggRunsPolicy *rp = (GpuopsAggRunsPolicy *) policy;

	gpuops_agg_runs_destroy(policy);
	rp->runs_off = false;
	rp->merge->funcs->reset(rp->merge);
}

static const GpuopsAggPolicyFuncs gpuops_agg_runs_funcs = {
	.name = "runs",
	.add_batch = gpuops_agg_runs_add,
	.settle = gpuops_agg_runs_settle,
	.finish = gpuops_agg_runs_finish,
	.explain = gpuops_agg_runs_explain,
	.reset = gpuops_agg_runs_reset,
	.destroy = gpuops_agg_runs_destroy,
};

/*
 * The running-groups policy over a merge policy, in the current memory
 * context, whose reset frees the runs.
 */
GpuopsAggPolicy *
gpuops_agg_policy_runs_create(GpuopsAggScanState *s)
{
	GpuopsAggRunsPolicy *rp = palloc0(sizeof(GpuopsAggRunsPolicy));

	rp->base.funcs = &gpuops_agg_runs_funcs;
	rp->base.s = s;
	rp->merge = gpuops_agg_policy_merge_create(s);
	rp->runs = palloc0(sizeof(gpo_agg_run *) * Max(s->spec.nvals, 1));
	rp->cleanup.func = gpuops_agg_runs_cleanup;
	rp->cleanup.arg = rp;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &rp->cleanup);
	return &rp->base;
}
