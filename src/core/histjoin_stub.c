/*
 * histjoin_stub.c
 *	  GPU faces of the histogram, hash join and gather for a build without
 *	  CUDA: each answers GPO_ERR_NO_DEVICE.
 *
 * The definitions are weak: in a CUDA build the real faces of
 * kernels/{histogram,hashjoin,gather}.cu replace them at link time, so this
 * file can be compiled into every build.
 */
#include "gpo_histjoin_internal.h"

/* Histogram GPU face: unavailable in this build. */
__attribute__((weak)) gpo_status
gpo_histogram_gpu(gpo_ctx *ctx, const gpo_vector *values,
				  const gpo_vector *mask, const gpo_hist_spec *spec,
				  int64_t *counts, gpo_hist_domain *domain)
{
	(void) values;
	(void) mask;
	(void) spec;
	(void) counts;
	(void) domain;
	if (ctx != NULL)
		gpo_set_detail(ctx, "built without CUDA");
	return GPO_ERR_NO_DEVICE;
}

/* Hash join GPU face: unavailable in this build. */
__attribute__((weak)) gpo_status
gpo_hash_join_gpu(gpo_ctx *ctx, gpo_join_kind kind,
				  const gpo_vector *build_keys,
				  const gpo_vector *probe_keys, gpo_vector *build_rows,
				  gpo_vector *probe_rows, int64_t *count)
{
	(void) kind;
	(void) build_keys;
	(void) probe_keys;
	(void) build_rows;
	(void) probe_rows;
	(void) count;
	if (ctx != NULL)
		gpo_set_detail(ctx, "built without CUDA");
	return GPO_ERR_NO_DEVICE;
}

/* Gather GPU face: unavailable in this build. */
__attribute__((weak)) gpo_status
gpo_gather_gpu(gpo_ctx *ctx, const gpo_vector *in, const gpo_vector *index,
			   gpo_vector *out)
{
	(void) in;
	(void) index;
	(void) out;
	if (ctx != NULL)
		gpo_set_detail(ctx, "built without CUDA");
	return GPO_ERR_NO_DEVICE;
}
