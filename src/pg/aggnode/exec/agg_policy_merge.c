/*
 * agg_policy_merge.c
 *	  GpuOpsAgg's grouping policy "per batch, then merge": the engine forms a
 *	  batch's groups with the aggregates of every value column in one
 *	  gpo_groupagg_many call (agg_job.c), and they merge into the node's
 *	  running groups (agg_state.c) before the next batch goes to the engine.  Under gpuops.overlap the
 *	  groups are formed on a helper thread while the next batch is read: the
 *	  batch stays in flight until settle.
 */
#include "aggnode/exec/agg_policy.h"

/*
 * A batch whose groups are being formed: what its merge needs once the
 * job is done.  Lives in the batch's memory context.
 */
typedef struct GpuopsAggPending
{
	GpuopsAggJob *job;
	GpuopsAggBatchKeys *bk;
	gpo_agg_strategy strategy;	/* asked of the engine */
	bool		owned;			/* the outputs are in the running state's
								 * context (gpuops_agg_merge_outs_owned) */
} GpuopsAggPending;

/* The merge policy. */
typedef struct GpuopsAggMergePolicy
{
	GpuopsAggPolicy base;
	GpuopsAggPending *pending;	/* a batch not merged yet, or NULL */
} GpuopsAggMergePolicy;

/* Forms the batch's groups (here, or on a helper thread); true when in flight. */
bool
gpuops_agg_policy_merge_keys(GpuopsAggPolicy *policy, GpuopsAggBatchKeys *bk)
{
	GpuopsAggMergePolicy *mp = (GpuopsAggMergePolicy *) policy;
	GpuopsAggScanState *s = policy->s;
	GpuopsAggSpec *spec = &s->spec;
	GpuopsAggPending *p;
	gpo_agg_out *outs;
	gpo_ctx		ctx;
	int64		cap;
	int			v;
	MemoryContext old;

	Assert(mp->pending == NULL);
	p = palloc0(sizeof(GpuopsAggPending));
	p->bk = bk;
	/*
	 * Room for every group a batch can hold (one a row) where the engine
	 * runs in this process: arrays take memory only where written, and a
	 * batch with more groups than the room is grouped twice (the room is
	 * checked after the sort or the hash tables).  i_region of
	 * bench/wide_queries.sql (936,566 (regionid, userid) groups of 1M rows,
	 * 100,017 estimated) spent 60-80 ms of its 350-450 in the engine so.
	 * A request to the GPU service carries its room in the service's
	 * shared memory: twice the estimate there.
	 */
	if (gpuops_agg_to_service(bk->n))
		cap = Min(bk->n, Max((int64) 1024, (int64) (2 * spec->est_groups)));
	else
		cap = Max(bk->n, 1);
	outs = palloc0(sizeof(gpo_agg_out) * Max(spec->nvals, 1));
	/* the first batch's groups can become the running state's own arrays */
	p->owned = s->groups.ngroups == 0 && s->groups.rows == NULL;
	old = MemoryContextSwitchTo(p->owned ? s->groups.cxt : CurrentMemoryContext);
	for (v = 0; v < Max(spec->nvals, 1); v++)
		gpuops_agg_out_alloc(&outs[v], cap, bk->keyv.type,
							 spec->nvals > 0 ? bk->valvecs[v].type : GPO_INT32,
							 v == 0, gpuops_agg_val_m2(spec, v));
	MemoryContextSwitchTo(old);
	gpuops_agg_ctx_init(s, &ctx);
	p->strategy = gpo_agg_strategy_fit(&ctx, &bk->keyv,
									   (gpo_agg_strategy) gpuops_agg_strategy);
	p->job = gpuops_agg_job_create(&bk->keyv, bk->valvecs, spec->nvals,
								   (int64) spec->est_groups, p->strategy,
								   &ctx, outs);
	mp->pending = p;
	if (s->overlap && gpuops_agg_overlaps(bk->n))
	{
		gpuops_agg_job_start(p->job);
		return true;
	}
	gpuops_agg_job_run(p->job);
	policy->funcs->settle(policy);
	return false;
}

/* Takes one batch: its keys, then its groups. */
static bool
gpuops_agg_merge_add(GpuopsAggPolicy *policy, GpuopsAggTableExec *te,
					 gpo_vector *vecs, int64 n, bool null_key_out)
{
	return gpuops_agg_policy_merge_keys(policy,
										gpuops_agg_batch_keys(policy->s, te, vecs,
															  n, null_key_out));
}

/* Counts a job's batch for EXPLAIN ANALYZE: to the GPU service or not. */
static void
gpuops_agg_job_count(GpuopsAggScanState *s, const GpuopsAggJob *job)
{
	if (job->fell_back)
		s->service_fallbacks++;
	else if (job->served)
	{
		s->service_calls++;
		s->service_ms += job->service_ms;
		s->service_copy_ms += job->service_copy_ms;
	}
}

/*
 * The groups of the pending batch's job, in its outputs: the job's own
 * when they fit, else formed again (by the service, or here) with outputs
 * the engine sized.
 */
static int64
gpuops_agg_pending_groups(GpuopsAggScanState *s, GpuopsAggPending *p)
{
	GpuopsAggJob *job = p->job;
	GpuopsAggBatchKeys *bk = p->bk;
	int			nvals = s->spec.nvals;
	int64		ngroups;
	int			v;

	gpuops_agg_job_count(s, job);
	if (job->st == GPO_ERR_CAPACITY)
	{
		/* more groups than cap: again, with outputs sized by the engine */
		gpo_ctx		ctx;

		ngroups = job->ngroups[0];
		for (v = 0; p->owned && v < Max(nvals, 1); v++)
			gpuops_agg_out_free(&job->outs[v], false, false);
		p->owned = false;
		for (v = 0; v < Max(nvals, 1); v++)
			gpuops_agg_out_alloc(&job->outs[v], ngroups, bk->keyv.type,
								 nvals > 0 ? bk->valvecs[v].type : GPO_INT32,
								 v == 0, gpuops_agg_val_m2(&s->spec, v));
		gpuops_agg_ctx_init(s, &ctx);
		job = gpuops_agg_job_create(&bk->keyv, bk->valvecs, nvals,
									(int64) s->spec.est_groups, p->strategy,
									&ctx, job->outs);
		gpuops_agg_job_run(job);
		gpuops_agg_job_count(s, job);
	}
	gpuops_agg_checked(s, job->st, &job->ctx[0], "GpuOpsAgg group aggregation");
	if ((int) job->used[0] >= 0 && (int) job->used[0] < 4)
		s->strategy_batches[job->used[0]]++;
	return job->ngroups[0];
}

/* Waits for the pending batch's groups, if any, and merges them. */
static void
gpuops_agg_merge_settle(GpuopsAggPolicy *policy)
{
	GpuopsAggMergePolicy *mp = (GpuopsAggMergePolicy *) policy;
	GpuopsAggPending *p = mp->pending;
	int64		ngroups;

	if (p == NULL)
		return;
	mp->pending = NULL;
	gpuops_agg_job_wait(p->job);
	ngroups = gpuops_agg_pending_groups(policy->s, p);
	gpuops_agg_merge_outs_owned(policy->s, ngroups, p->bk->keyv.type,
								p->bk->pack, p->job->outs,
								p->bk->null_key_out, p->owned);
}

/* No properties of its own. */
static void
gpuops_agg_merge_explain(GpuopsAggPolicy *policy, ExplainState *es)
{
}

/*
 * Forgets the batch in flight: its memory (and the job's thread, which a
 * reset callback waits for) goes with the batch's context.
 */
static void
gpuops_agg_merge_reset(GpuopsAggPolicy *policy)
{
	((GpuopsAggMergePolicy *) policy)->pending = NULL;
}

static const GpuopsAggPolicyFuncs gpuops_agg_merge_funcs = {
	.name = "merge",
	.add_batch = gpuops_agg_merge_add,
	.settle = gpuops_agg_merge_settle,
	.finish = gpuops_agg_merge_settle,
	.explain = gpuops_agg_merge_explain,
	.reset = gpuops_agg_merge_reset,
	.destroy = gpuops_agg_merge_reset,
};

/* The per-batch-then-merge policy, in the current memory context. */
GpuopsAggPolicy *
gpuops_agg_policy_merge_create(GpuopsAggScanState *s)
{
	GpuopsAggMergePolicy *mp = palloc0(sizeof(GpuopsAggMergePolicy));

	mp->base.funcs = &gpuops_agg_merge_funcs;
	mp->base.s = s;
	return &mp->base;
}
