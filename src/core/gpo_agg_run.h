/*
 * gpo_agg_run.h
 *	  The state of a running dense group aggregation (gpo_groupagg_run_add),
 *	  shared by its CPU face (groupagg_run.c) and its GPU face
 *	  (kernels/groupagg_run.cu).  Plain C; never includes postgres.h.
 */
#ifndef GPO_AGG_RUN_H
#define GPO_AGG_RUN_H

#include "gpo_agg.h"

#ifdef __cplusplus
extern "C"
{
#endif

struct gpo_agg_run
{
	gpo_device	face;			/* CPU or GPU, fixed at the start */
	gpo_type	kt;				/* key type */
	int			vt;				/* value type, -1: no values */
	bool		m2;				/* float values' m2 kept (want_out->m2) */
	bool		started;		/* min_code and range are set */
	uint64_t	min_code;		/* slots hold key codes [min_code, */
	int64_t		range;			/* min_code + range), then the NULL key */
	void	   *tab;			/* CPU face: gpo_acc[range + 1] */
	void	   *gpu;			/* GPU face: the kernels' state */
};

/*
 * Whether a batch whose nvalid non-NULL key codes span [mn, mx] goes into
 * run: when the run has started, whether they fall in its range; else
 * whether a run starts (see gpo_groupagg_run_add), which then sets its
 * range.
 */
extern bool gpo_agg_run_takes(gpo_agg_run *run, int64_t nvalid, uint64_t mn,
							  uint64_t mx, int64_t est_groups,
							  gpo_agg_strategy want);

/* The GPU face of gpo_groupagg_run_add, _finish and _free. */
extern gpo_status gpo_groupagg_run_add_gpu(gpo_ctx *ctx, gpo_agg_run *run,
										   const gpo_vector *keys,
										   const gpo_vector *values,
										   int64_t est_groups,
										   gpo_agg_strategy want,
										   const gpo_agg_out *want_out,
										   bool *added);
extern gpo_status gpo_groupagg_run_finish_gpu(gpo_ctx *ctx, gpo_agg_run *run,
											  gpo_agg_out *out,
											  int64_t *ngroups);
extern void gpo_groupagg_run_free_gpu(gpo_agg_run *run);

#ifdef __cplusplus
}
#endif

#endif							/* GPO_AGG_RUN_H */
