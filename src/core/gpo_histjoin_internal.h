/*
 * gpo_histjoin_internal.h
 *	  Dispatcher plumbing of the histogram, hash join and gather primitives:
 *	  the face choice, the scratch query and the AUTO fallback, in the same
 *	  shape (and with the same rules) as dispatch.c's, whose helpers are
 *	  private to that file.
 *
 * Plain C11; for the src/core files only.
 */
#ifndef GPO_HISTJOIN_INTERNAL_H
#define GPO_HISTJOIN_INTERNAL_H

#include <stdio.h>
#include <string.h>

#include "gpo_hist.h"
#include "gpo_internal.h"
#include "gpo_join.h"

/* Starts a dispatcher call: clears ctx's outputs; false when ctx is NULL. */
static inline bool
gpo_hj_begin(gpo_ctx *ctx)
{
	if (ctx == NULL)
		return false;
	ctx->detail[0] = '\0';
	ctx->used = GPO_DEVICE_AUTO;
	return true;
}

/*
 * Answers the scratch query or checks the scratch given.  Returns true when
 * the call is finished (*st says how), false when a face should run.
 */
static inline bool
gpo_hj_scratch_phase(gpo_ctx *ctx, void *scratch, size_t *scratch_bytes,
					 size_t need, gpo_status *st)
{
	if (scratch == NULL)
	{
		if (scratch_bytes == NULL)
		{
			gpo_set_detail(ctx, "scratch and scratch_bytes are both NULL");
			*st = GPO_ERR_INVALID;
		}
		else
		{
			*scratch_bytes = need;
			*st = GPO_OK;
		}
		return true;
	}
	if (scratch_bytes != NULL && *scratch_bytes < need)
	{
		gpo_set_detail(ctx, "scratch of %zu bytes is smaller than the %zu bytes needed",
					   *scratch_bytes, need);
		*st = GPO_ERR_INVALID;
		return true;
	}
	return false;
}

/*
 * Picks the face for rows input rows: CPU, GPU (GPO_ERR_NO_DEVICE when
 * demanded and absent), or AUTO (GPU when usable and rows >= gpu_min_rows).
 */
static inline gpo_status
gpo_hj_pick_face(gpo_ctx *ctx, int64_t rows, gpo_device *face)
{
	switch (ctx->device)
	{
		case GPO_DEVICE_CPU:
			*face = GPO_DEVICE_CPU;
			return GPO_OK;
		case GPO_DEVICE_GPU:
			if (!gpo_gpu_available())
			{
				gpo_device_info info;

				memset(&info, 0, sizeof(info));
				gpo_gpu_info(&info);
				gpo_set_detail(ctx, "device = gpu, but no GPU is usable: %s",
							   info.error[0] ? info.error : "unknown reason");
				return GPO_ERR_NO_DEVICE;
			}
			*face = GPO_DEVICE_GPU;
			return GPO_OK;
		case GPO_DEVICE_AUTO:
			*face = (gpo_gpu_available() && rows >= ctx->gpu_min_rows) ?
				GPO_DEVICE_GPU : GPO_DEVICE_CPU;
			return GPO_OK;
	}
	gpo_set_detail(ctx, "unknown device %d", (int) ctx->device);
	return GPO_ERR_INVALID;
}

/*
 * After the GPU face returned st: true if AUTO should run the CPU face
 * instead (the reason is then in ctx->detail).
 */
static inline bool
gpo_hj_fell_back(gpo_ctx *ctx, gpo_status st)
{
	char		why[sizeof(ctx->detail)];

	if (ctx->device != GPO_DEVICE_AUTO)
		return false;
	if (st != GPO_ERR_NO_DEVICE && st != GPO_ERR_DEVICE &&
		st != GPO_ERR_DEVICE_NOMEM)
		return false;
	if (ctx->detail[0])
		snprintf(why, sizeof(why), "%s: %.200s", gpo_status_text(st), ctx->detail);
	else
		snprintf(why, sizeof(why), "%s", gpo_status_text(st));
	gpo_set_detail(ctx, "GPU failed (%s); ran on the CPU", why);
	return true;
}

/* Host scratch bytes of each CPU face (histogram.c, hashjoin.c, gather.c). */
extern size_t gpo_histogram_scratch_bytes(const gpo_ctx *ctx,
										  const gpo_vector *values,
										  const gpo_vector *mask,
										  const gpo_hist_spec *spec);
extern size_t gpo_hash_join_scratch_bytes(const gpo_ctx *ctx,
										  const gpo_vector *build_keys,
										  const gpo_vector *probe_keys,
										  const gpo_vector *build_rows,
										  const gpo_vector *probe_rows);
extern size_t gpo_gather_scratch_bytes(const gpo_ctx *ctx,
									   const gpo_vector *in,
									   const gpo_vector *index,
									   const gpo_vector *out);

#endif							/* GPO_HISTJOIN_INTERNAL_H */
