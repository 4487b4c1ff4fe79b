/*
 * agg_policy.h
 *	  GpuOpsAgg's grouping policies: how a batch's rows become groups in the
 *	  node's running groups (s->groups).  The batch loop (agg_table.c) calls
 *	  the node's one policy through this interface and nothing else:
 *
 *	  - plain (agg_policy_plain.c): no GROUP BY, one reduction a batch;
 *	  - merge (agg_policy_merge.c): each batch's groups formed by the engine
 *	    (on a helper thread under gpuops.overlap), then merged;
 *	  - runs (agg_policy_runs.c): under gpuops.running_groups, the engine's
 *	    running dense aggregation keeps the groups across batches; a batch it
 *	    declines goes to the merge policy it wraps.
 *
 * A policy's memory lives in the query's context; what the engine malloc'd
 * for it is freed by destroy, which a reset callback of that context also
 * calls, so an error or a cancel leaks nothing.
 */
#ifndef GPUOPS_AGG_POLICY_H
#define GPUOPS_AGG_POLICY_H

#include "aggnode/exec/gpuops_agg_exec.h"

typedef struct GpuopsAggPolicy GpuopsAggPolicy;

/* The functions of a grouping policy. */
typedef struct GpuopsAggPolicyFuncs
{
	const char *name;

	/*
	 * Takes one batch of n rows (vecs: one per reader column, in the batch's
	 * memory context); null_key_out: the NULL-key group holds rows the
	 * WHERE removed.  True when the batch is still in flight: its memory
	 * must stay until settle.
	 */
	bool		(*add_batch) (GpuopsAggPolicy *p, GpuopsAggTableExec *te,
							  gpo_vector *vecs, int64 n, bool null_key_out);
	/* Merges the batch in flight, if any, into the node's groups. */
	void		(*settle) (GpuopsAggPolicy *p);
	/* At the end of a table: every group it holds into the node's groups. */
	void		(*finish) (GpuopsAggPolicy *p);
	/* Its own EXPLAIN ANALYZE properties. */
	void		(*explain) (GpuopsAggPolicy *p, ExplainState *es);
	/* Forgets the groups it holds and its per-table choices (not counts). */
	void		(*reset) (GpuopsAggPolicy *p);
	/* Frees what the engine allocated for it (idempotent). */
	void		(*destroy) (GpuopsAggPolicy *p);
} GpuopsAggPolicyFuncs;

/* What every policy starts with; each extends it. */
struct GpuopsAggPolicy
{
	const GpuopsAggPolicyFuncs *funcs;
	GpuopsAggScanState *s;
};

/* The policy of a node without GROUP BY. */
extern GpuopsAggPolicy *gpuops_agg_policy_plain_create(GpuopsAggScanState *s);
/* The policy that forms each batch's groups, then merges them. */
extern GpuopsAggPolicy *gpuops_agg_policy_merge_create(GpuopsAggScanState *s);
/* The running dense groups, over a merge policy for the batches they decline. */
extern GpuopsAggPolicy *gpuops_agg_policy_runs_create(GpuopsAggScanState *s);

/*
 * The merge policy's work on a batch whose keys are formed (the runs policy
 * hands it those it declines); true when it is in flight.
 */
extern bool gpuops_agg_policy_merge_keys(GpuopsAggPolicy *merge,
										 GpuopsAggBatchKeys *bk);

#endif							/* GPUOPS_AGG_POLICY_H */
