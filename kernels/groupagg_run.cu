/*
 * groupagg_run.cu
 *	  The GPU face of running dense group aggregation (gpo_groupagg_run_add,
 *	  see gpo_agg.h): the run's accumulators stay in device memory from
 *	  batch to batch, each batch uploads its rows and adds them with the
 *	  dense strategy's kernel, and the groups come back once, at the finish.
 */
#include <stdlib.h>
#include <string.h>

#include "agg_cuda.cuh"
#include "gpo_agg_run.h"
#include "gpo_cuda.cuh"

/* A run's device state. */
struct gpo_run_gpu
{
	gpo_dmem	mem;			/* owns the accumulators */
	gpo_dacc	acc;			/* range + 1 slots, the NULL key's last */
	unsigned	fields;
};

/* Adds a batch to a GPU run (see gpo_agg_run.h). */
extern "C" gpo_status
gpo_groupagg_run_add_gpu(gpo_ctx *ctx, gpo_agg_run *run, const gpo_vector *keys,
						 const gpo_vector *values, int64_t est_groups,
						 gpo_agg_strategy want, const gpo_agg_out *want_out,
						 bool *added)
{
	gpo_status	st = GPO_OK;
	sigset_t	old;
	gpo_dmem	mem = {};
	int64_t		n = gpo_vector_rows(keys);
	void	   *d_keys = NULL;
	uint8_t    *d_kvalid = NULL;
	void	   *d_vals = NULL;
	uint8_t    *d_vvalid = NULL;
	unsigned long long stats[3];
	bool		was_started = run->started;
	gpo_run_gpu *g;

	*added = false;
	st = gpo_cuda_begin(ctx, &old);
	if (st != GPO_OK)
		goto cleanup;
	if (n > INT32_MAX)
	{
		snprintf(ctx->detail, sizeof(ctx->detail), "the GPU group aggregation takes at most 2^31 - 1 rows");
		st = GPO_ERR_INVALID;
		goto cleanup;
	}
	GPO_TRY(gpo_cuda_column_in(ctx, keys, n, &mem, &d_keys, &d_kvalid));
	GPO_CUDA_TRY(gpo_cuda_key_stats(keys->type, d_keys, d_kvalid, n, stats, &mem));
	if (!gpo_agg_run_takes(run, (int64_t) stats[2], stats[0], stats[1],
						   est_groups, want))
		goto cleanup;
	if (!was_started)
	{
		g = (gpo_run_gpu *) calloc(1, sizeof(gpo_run_gpu));
		if (g == NULL)
		{
			st = GPO_ERR_NOMEM;
			goto cleanup;
		}
		run->gpu = g;
		g->fields = gpo_cuda_fields(want_out, run->vt);
		GPO_CUDA_TRY(gpo_dacc_alloc(&g->mem, g->fields, run->range + 1, &g->acc));
	}
	g = (gpo_run_gpu *) run->gpu;
	if (values != NULL)
		GPO_TRY(gpo_cuda_column_in(ctx, values, n, &mem, &d_vals, &d_vvalid));
	if (g->fields & GPO_DF_M2)
	{
		/* m2 takes the batch's own means: its own slots, then Chan's fold */
		gpo_dacc	batch;

		GPO_CUDA_TRY(gpo_dacc_alloc(&mem, g->fields, run->range + 1, &batch));
		GPO_CUDA_TRY(gpo_cuda_dense_accumulate(keys->type, d_keys, d_kvalid, run->vt,
											   d_vals, d_vvalid, n, run->min_code,
											   run->range, g->fields, &batch));
		GPO_CUDA_TRY(gpo_cuda_dacc_fold(&g->acc, &batch, run->range + 1));
	}
	else
		GPO_CUDA_TRY(gpo_cuda_dense_accumulate(keys->type, d_keys, d_kvalid, run->vt,
											   d_vals, d_vvalid, n, run->min_code,
											   run->range, g->fields, &g->acc));
	GPO_CUDA_TRY(cudaStreamSynchronize(0));
	*added = true;
cleanup:
	if (d_kvalid != NULL)
		gpo_cuda_free(d_kvalid);
	if (d_vvalid != NULL)
		gpo_cuda_free(d_vvalid);
	gpo_dmem_release(&mem);
	gpo_cuda_end(&old);
	return st;
}

/* The groups of a GPU run into out (see gpo_agg_run.h). */
extern "C" gpo_status
gpo_groupagg_run_finish_gpu(gpo_ctx *ctx, gpo_agg_run *run, gpo_agg_out *out,
							int64_t *ngroups)
{
	gpo_status	st = GPO_OK;
	sigset_t	old;
	gpo_dmem	mem = {};
	gpo_run_gpu *g = (gpo_run_gpu *) run->gpu;
	gpo_cuda_groups res;

	memset(&res, 0, sizeof(res));
	st = gpo_cuda_begin(ctx, &old);
	if (st != GPO_OK)
		goto cleanup;
	if ((gpo_cuda_fields(out, run->vt) & ~g->fields) != 0)
	{
		snprintf(ctx->detail, sizeof(ctx->detail),
				 "the output asks for aggregates the run does not keep");
		st = GPO_ERR_INVALID;
		goto cleanup;
	}
	GPO_TRY(gpo_cuda_dense_groups(ctx, run->min_code, run->range, &g->acc, &mem, &res));
	*ngroups = res.ngroups;
	GPO_TRY(gpo_cuda_groups_download(ctx, &res, run->kt, run->vt, out, &mem));
	GPO_CUDA_TRY(cudaStreamSynchronize(0));
cleanup:
	gpo_dmem_release(&mem);
	gpo_cuda_end(&old);
	return st;
}

/* Frees a GPU run's device state (see gpo_agg_run.h). */
extern "C" void
gpo_groupagg_run_free_gpu(gpo_agg_run *run)
{
	gpo_run_gpu *g = (gpo_run_gpu *) run->gpu;
	sigset_t	old;

	if (g == NULL)
		return;
	if (gpo_cuda_begin(NULL, &old) == GPO_OK)
	{
		gpo_dmem_release(&g->mem);
		gpo_cuda_end(&old);
	}
	free(g);
	run->gpu = NULL;
}
