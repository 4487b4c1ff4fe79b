/*
 * groupagg_run.c
 *	  Running dense group aggregation (gpo_groupagg_run_add, see gpo_agg.h):
 *	  the dispatcher and the CPU face, whose state is one host slot per key
 *	  code of the run's range plus the NULL key, filled batch after batch by
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

/* The CPU face of gpo_groupagg_run_add. */
static gpo_status
run_add_cpu(gpo_ctx *ctx, gpo_agg_run *run, const gpo_vector *keys,
			const gpo_vector *values, int64_t est_groups,
			gpo_agg_strategy want, bool *added)
{
	int			nt = gpo_threads(ctx);
	int64_t    *kstarts = gpo_starts_of(keys);
	uint64_t	mn,
				mx;
	int64_t		nvalid;
	bool		was_started = run->started;
	gpo_acc    *tab;
	gpo_status	st;

	if (kstarts == NULL)
		return GPO_ERR_NOMEM;
	gpo_omp_prepare(nt);
	gpo_key_stats(keys, kstarts, nt, &mn, &mx, &nvalid);
	if (!gpo_agg_run_takes(run, nvalid, mn, mx, est_groups, want))
	{
		free(kstarts);
		return GPO_OK;
	}
	if (!was_started)
	{
		run->tab = gpo_dense_slots_new((uint64_t) run->range, nt);
		if (run->tab == NULL)
		{
			run->started = false;
			free(kstarts);
			return GPO_ERR_NOMEM;
		}
	}
	tab = (gpo_acc *) run->tab;
	st = gpo_dense_accumulate_cpu(keys, kstarts, values, nt, run->min_code,
								  (uint64_t) run->range, run->m2, tab,
								  &tab[run->range]);
	free(kstarts);
	*added = st == GPO_OK;
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

/* Adds a batch to a running dense aggregation (see gpo_agg.h). */
gpo_status
gpo_groupagg_run_add(gpo_ctx *ctx, gpo_agg_run **run, const gpo_vector *keys,
					 const gpo_vector *values, int64_t est_groups,
					 gpo_agg_strategy want, const gpo_agg_out *want_out,
					 bool *added)
{
	gpo_agg_run *r;
	gpo_status	st;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if ((st = run_add_check(ctx, run, keys, values, want_out, added)) != GPO_OK)
		return st;
	*added = false;
	if (want != GPO_AGG_AUTO && want != GPO_AGG_DENSE)
		return GPO_OK;
	r = *run;
	if (r == NULL)
	{
		r = calloc(1, sizeof(gpo_agg_run));
		if (r == NULL)
			return GPO_ERR_NOMEM;
		r->kt = keys->type;
		r->vt = values ? (int) values->type : -1;
		r->m2 = want_out->m2 != NULL && values != NULL &&
			!gpo_type_is_int(values->type);
		if ((st = gpo_pick_face(ctx, gpo_vector_rows(keys), &r->face)) != GPO_OK)
		{
			free(r);
			return st;
		}
	}
	if (r->face == GPO_DEVICE_GPU)
		st = gpo_groupagg_run_add_gpu(ctx, r, keys, values, est_groups, want,
									  want_out, added);
	else
		st = run_add_cpu(ctx, r, keys, values, est_groups, want, added);
	ctx->used = r->face;
	if (*run == NULL)
	{
		if (r->started && st == GPO_OK)
			*run = r;
		else
			gpo_groupagg_run_free(r);
	}
	return st;
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
