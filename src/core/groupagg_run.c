/*
 * groupagg_run.c
 *	  Running dense group aggregation (gpo_groupagg_run_add and _add_many,
 *	  see gpo_agg.h): the dispatcher and the CPU face, whose state is one
 *	  host slot per key code of the run's range plus the NULL key, filled
 *	  batch after batch in one pass for all runs (groupagg_fused.c) or by
 *	  the dense strategy's accumulation (groupagg_cpu.c).
 */
#include <stdlib.h>
#include <string.h>

#include "gpo_agg_run.h"
#include "groupagg_internal.h"

/* Whether a batch goes into run, starting it if need be (see gpo_agg_run.h). */
bool
gpo_agg_run_takes(gpo_agg_run *run, int64_t nvalid, uint64_t mn, uint64_t mx,
				  int64_t est_groups, gpo_agg_strategy want)
{
	if (run->started)
		return nvalid == 0 ||
			(mn >= run->min_code && mx - run->min_code < (uint64_t) run->range);
	if (nvalid == 0 || !gpo_type_is_int(run->kt) ||
		mx - mn >= (uint64_t) GPO_AGG_DENSE_MAX_RANGE)
		return false;
	if (want == GPO_AGG_AUTO)
		want = gpo_agg_choose(run->kt, nvalid, mn, mx, est_groups);
	if (want != GPO_AGG_DENSE)
		return false;
	run->started = true;
	run->min_code = mn;
	run->range = (int64_t) (mx - mn) + 1;
	return true;
}

/*
 * The CPU face of gpo_groupagg_run_add_many: the key statistics once, then
 * every run's rows in one pass where a thread's groups fit (else one
 * accumulation a run).  The runs are all new or all started alike.
 */
static gpo_status
run_add_many_cpu(gpo_ctx *ctx, gpo_agg_run **runs, int nruns,
				 const gpo_vector *keys, const gpo_vector *const *values,
				 int64_t est_groups, gpo_agg_strategy want, bool *added)
{
	int			nt = gpo_threads(ctx);
	int64_t    *kstarts = gpo_starts_of(keys);
	gpo_acc   **tabs = malloc(sizeof(gpo_acc *) * nruns);
	bool	   *m2 = malloc(sizeof(bool) * nruns);
	uint64_t	mn,
				mx;
	int64_t		nvalid;
	bool		taken = true;
	gpo_status	st = GPO_OK;

	if (kstarts == NULL || tabs == NULL || m2 == NULL)
		st = GPO_ERR_NOMEM;
	if (st == GPO_OK)
	{
		gpo_omp_prepare(nt);
		gpo_key_stats(keys, kstarts, nt, &mn, &mx, &nvalid);
	}
	for (int r = 0; st == GPO_OK && r < nruns; r++)
	{
		bool		was_started = runs[r]->started;

		if (!gpo_agg_run_takes(runs[r], nvalid, mn, mx, est_groups, want))
		{
			/* runs alike take a batch alike: the first run, none takes it */
			taken = false;
			break;
		}
		if (!was_started &&
			(runs[r]->tab = gpo_dense_slots_new((uint64_t) runs[r]->range, nt)) == NULL)
		{
			runs[r]->started = false;
			st = GPO_ERR_NOMEM;
		}
		tabs[r] = (gpo_acc *) runs[r]->tab;
		m2[r] = runs[r]->m2;
	}
	if (st == GPO_OK && taken)
	{
		uint64_t	range = (uint64_t) runs[0]->range;
		int			r;

		st = GPO_ERR_CAPACITY;
		if (gpo_dense_many_fits(gpo_vector_rows(keys), nt, range))
			st = gpo_dense_accumulate_many_cpu(keys, kstarts, nruns, values, nt,
											   runs[0]->min_code, range, m2, tabs);
		if (st == GPO_ERR_CAPACITY)
			for (st = GPO_OK, r = 0; st == GPO_OK && r < nruns; r++)
				st = gpo_dense_accumulate_cpu(keys, kstarts, values[r], nt,
											  runs[0]->min_code, range, m2[r],
											  tabs[r], &tabs[r][range]);
		*added = st == GPO_OK;
	}
	free(kstarts);
	free(tabs);
	free(m2);
	return st;
}

/* Checks the arguments of gpo_groupagg_run_add. */
static gpo_status
run_add_check(gpo_ctx *ctx, gpo_agg_run *const *run, const gpo_vector *keys,
			  const gpo_vector *values, const gpo_agg_out *want_out,
			  const bool *added)
{
	gpo_status	st;

	if (run == NULL || want_out == NULL || added == NULL)
	{
		gpo_set_detail(ctx, "run, want_out and added must be given");
		return GPO_ERR_INVALID;
	}
	if ((st = gpo_agg_check_inputs(ctx, keys, values)) != GPO_OK)
		return st;
	if (*run != NULL && ((*run)->kt != keys->type ||
						 (*run)->vt != (values ? (int) values->type : -1)))
	{
		gpo_set_detail(ctx, "a run keeps the key and value types it started with");
		return GPO_ERR_INVALID;
	}
	return GPO_OK;
}

/* A new run of key type kt and value type vt (-1: none); NULL on no memory. */
static gpo_agg_run *
run_new(gpo_type kt, const gpo_vector *values, const gpo_agg_out *want_out)
{
	gpo_agg_run *r = calloc(1, sizeof(gpo_agg_run));

	if (r == NULL)
		return NULL;
	r->kt = kt;
	r->vt = values ? (int) values->type : -1;
	r->m2 = want_out->m2 != NULL && values != NULL &&
		!gpo_type_is_int(values->type);
	return r;
}

/* Adds a batch to several running dense aggregations over its keys (see gpo_agg.h). */
gpo_status
gpo_groupagg_run_add_many(gpo_ctx *ctx, gpo_agg_run **runs, int nruns,
						  const gpo_vector *keys,
						  const gpo_vector *const *values, int64_t est_groups,
						  gpo_agg_strategy want, const gpo_agg_out *want_outs,
						  bool *added)
{
	bool		fresh;
	gpo_device	face;
	gpo_status	st = GPO_OK;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if (runs == NULL || nruns < 1 || values == NULL || want_outs == NULL)
	{
		gpo_set_detail(ctx, "runs, values and want_outs must be given");
		return GPO_ERR_INVALID;
	}
	fresh = runs[0] == NULL;
	for (int r = 0; r < nruns; r++)
	{
		if ((runs[r] == NULL) != fresh ||
			(!fresh && (runs[r]->started != runs[0]->started ||
						runs[r]->face != runs[0]->face)))
		{
			gpo_set_detail(ctx, "runs must be all new or all started together");
			return GPO_ERR_INVALID;
		}
		if ((st = run_add_check(ctx, &runs[r], keys, values[r], &want_outs[r],
								added)) != GPO_OK)
			return st;
	}
	*added = false;
	if (want != GPO_AGG_AUTO && want != GPO_AGG_DENSE)
		return GPO_OK;
	if (fresh)
	{
		if ((st = gpo_pick_face(ctx, gpo_vector_rows(keys), &face)) != GPO_OK)
			return st;
		for (int r = 0; r < nruns; r++)
		{
			if ((runs[r] = run_new(keys->type, values[r], &want_outs[r])) == NULL)
				st = GPO_ERR_NOMEM;
			else
				runs[r]->face = face;
		}
	}
	face = runs[0] != NULL ? runs[0]->face : GPO_DEVICE_CPU;
	if (st == GPO_OK && face == GPO_DEVICE_GPU)
	{
		for (int r = 0; st == GPO_OK && r < nruns; r++)
		{
			bool		one = false;

			st = gpo_groupagg_run_add_gpu(ctx, runs[r], keys, values[r],
										  est_groups, want, &want_outs[r], &one);
			if (st == GPO_OK && one != (r == 0 ? true : *added))
			{
				if (r == 0)
					break;		/* declined: the others are not asked */
				gpo_set_detail(ctx, "runs disagree on a batch");
				st = GPO_ERR_INVALID;
			}
			*added = one;
		}
	}
	else if (st == GPO_OK)
		st = run_add_many_cpu(ctx, runs, nruns, keys, values, est_groups,
							  want, added);
	ctx->used = face;
	if (fresh && (st != GPO_OK || !runs[0]->started))
		for (int r = 0; r < nruns; r++)
		{
			gpo_groupagg_run_free(runs[r]);
			runs[r] = NULL;
		}
	return st;
}

/* Adds a batch to a running dense aggregation (see gpo_agg.h): a run of one. */
gpo_status
gpo_groupagg_run_add(gpo_ctx *ctx, gpo_agg_run **run, const gpo_vector *keys,
					 const gpo_vector *values, int64_t est_groups,
					 gpo_agg_strategy want, const gpo_agg_out *want_out,
					 bool *added)
{
	return gpo_groupagg_run_add_many(ctx, run, 1, keys, &values, est_groups,
									 want, want_out, added);
}

/* Finishes a running dense aggregation into out (see gpo_agg.h). */
gpo_status
gpo_groupagg_run_finish(gpo_ctx *ctx, gpo_agg_run *run, gpo_agg_out *out,
						int64_t *ngroups)
{
	gpo_acc    *tab;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if (run == NULL || !run->started || out == NULL || ngroups == NULL ||
		out->capacity < 0)
	{
		gpo_set_detail(ctx, "a started run, out and ngroups must be given");
		return GPO_ERR_INVALID;
	}
	ctx->used = run->face;
	if (run->face == GPO_DEVICE_GPU)
		return gpo_groupagg_run_finish_gpu(ctx, run, out, ngroups);
	tab = (gpo_acc *) run->tab;
	return gpo_dense_store_cpu(run->kt, run->vt, tab, run->min_code,
							   (uint64_t) run->range, &tab[run->range], out,
							   ngroups);
}

/* Frees a run (see gpo_agg.h). */
void
gpo_groupagg_run_free(gpo_agg_run *run)
{
	if (run == NULL)
		return;
	if (run->gpu != NULL)
		gpo_groupagg_run_free_gpu(run);
	free(run->tab);
	free(run);
}

/* The face of a run (see gpo_agg.h). */
gpo_device
gpo_groupagg_run_face(const gpo_agg_run *run)
{
	return run->face;
}
