/*
 * dispatch.c
 *	  Contexts and the face dispatcher: each gpo_X checks its arguments once
 *	  for both faces, answers the two-phase scratch query, then runs the CPU
 *	  or the GPU face (AUTO falls back to the CPU when the GPU fails).
 */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "gpo_internal.h"

/* gpo_gpu_available's cache: -1 not asked yet, else 0 or 1. */
static int	gpu_usable = -1;

/* A context with the defaults: AUTO, gpu_min_rows 100000, all threads. */
void
gpo_ctx_init(gpo_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->device = GPO_DEVICE_AUTO;
	ctx->gpu_min_rows = 100000;
	ctx->threads = 0;
	ctx->used = GPO_DEVICE_AUTO;
	ctx->detail[0] = '\0';
}

/* Largest team of any CPU face (see gpo.h); 0: no limit. */
int			gpo_thread_limit = 0;

/* Cores the process may run on (OpenMP's count). */
int
gpo_cores(void)
{
	int			n = omp_get_num_procs();

	return n > 0 ? n : 1;
}

/* Threads the CPU face uses under ctx (0 is the core count), within gpo_thread_limit. */
int
gpo_threads(const gpo_ctx *ctx)
{
	int			n = ctx != NULL && ctx->threads > 0 ? ctx->threads : gpo_cores();

	return gpo_thread_limit > 0 && gpo_thread_limit < n ? gpo_thread_limit : n;
}

/* True when this build has CUDA and a device answers (cached after the first call). */
bool
gpo_gpu_available(void)
{
	if (gpu_usable < 0)
	{
		gpo_device_info info;

		memset(&info, 0, sizeof(info));
		gpo_gpu_info(&info);
		gpu_usable = info.usable ? 1 : 0;
	}
	return gpu_usable == 1;
}

/*
 * Starts a dispatcher call: clears the outputs of ctx.  Returns false (the
 * call must answer GPO_ERR_INVALID) when ctx is NULL.
 */
bool
gpo_call_begin(gpo_ctx *ctx)
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
bool
gpo_scratch_phase(gpo_ctx *ctx, void *scratch, size_t *scratch_bytes,
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
 * Picks the face for rows input rows.  Returns GPO_OK with *face set, or
 * GPO_ERR_NO_DEVICE when the GPU was demanded and there is none.
 */
gpo_status
gpo_pick_face(gpo_ctx *ctx, int64_t rows, gpo_device *face)
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
bool
gpo_gpu_fell_back(gpo_ctx *ctx, gpo_status st)
{
	char		why[sizeof(ctx->detail)];

	if (ctx->device != GPO_DEVICE_AUTO)
		return false;
	if (st != GPO_ERR_NO_DEVICE && st != GPO_ERR_DEVICE &&
		st != GPO_ERR_DEVICE_NOMEM)
		return false;
	memcpy(why, ctx->detail, sizeof(why));
	why[sizeof(why) - 1] = '\0';
	if (why[0])
		gpo_set_detail(ctx, "GPU failed (%s: %s); ran on the CPU",
					   gpo_status_text(st), why);
	else
		gpo_set_detail(ctx, "GPU failed (%s); ran on the CPU",
					   gpo_status_text(st));
	return true;
}

/* Scan dispatcher (see gpo.h). */
gpo_status
gpo_scan(gpo_ctx *ctx, const gpo_vector *in, const gpo_vector *heads,
		 bool inclusive, gpo_vector *out, void *scratch,
		 size_t *scratch_bytes)
{
	gpo_status	st;
	gpo_device	face;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if ((st = gpo_scan_check(ctx, in, heads, out)) != GPO_OK)
		return st;
	if (gpo_scratch_phase(ctx, scratch, scratch_bytes,
					  gpo_scan_scratch_bytes(ctx, in, heads, out), &st))
		return st;
	if ((st = gpo_pick_face(ctx, gpo_vector_rows(in), &face)) != GPO_OK)
		return st;
	if (face == GPO_DEVICE_GPU)
	{
		st = gpo_scan_gpu(ctx, in, heads, inclusive, out);
		if (!gpo_gpu_fell_back(ctx, st))
		{
			ctx->used = GPO_DEVICE_GPU;
			return st;
		}
	}
	ctx->used = GPO_DEVICE_CPU;
	return gpo_scan_cpu(ctx, in, heads, inclusive, out, scratch);
}

/* Compaction dispatcher (see gpo.h). */
gpo_status
gpo_compact(gpo_ctx *ctx, const gpo_vector *mask, uint32_t flags,
			gpo_vector *index_map, int64_t *count, void *scratch,
			size_t *scratch_bytes)
{
	gpo_status	st;
	gpo_device	face;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if ((st = gpo_compact_check(ctx, mask, flags, index_map, count)) != GPO_OK)
		return st;
	if (gpo_scratch_phase(ctx, scratch, scratch_bytes,
					  gpo_compact_scratch_bytes(ctx, mask, index_map), &st))
		return st;
	if ((st = gpo_pick_face(ctx, gpo_vector_rows(mask), &face)) != GPO_OK)
		return st;
	if (face == GPO_DEVICE_GPU)
	{
		st = gpo_compact_gpu(ctx, mask, flags, index_map, count);
		if (!gpo_gpu_fell_back(ctx, st))
		{
			ctx->used = GPO_DEVICE_GPU;
			return st;
		}
	}
	ctx->used = GPO_DEVICE_CPU;
	return gpo_compact_cpu(ctx, mask, flags, index_map, count, scratch);
}

/* Run-length encoding dispatcher (see gpo.h). */
gpo_status
gpo_rle(gpo_ctx *ctx, const gpo_vector *in, gpo_vector *values,
		gpo_vector *starts, gpo_vector *lengths, int64_t *count,
		void *scratch, size_t *scratch_bytes)
{
	gpo_status	st;
	gpo_device	face;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if ((st = gpo_rle_check(ctx, in, values, starts, lengths, count)) != GPO_OK)
		return st;
	if (gpo_scratch_phase(ctx, scratch, scratch_bytes,
					  gpo_rle_scratch_bytes(ctx, in, values, starts, lengths),
					  &st))
		return st;
	if ((st = gpo_pick_face(ctx, gpo_vector_rows(in), &face)) != GPO_OK)
		return st;
	if (face == GPO_DEVICE_GPU)
	{
		st = gpo_rle_gpu(ctx, in, values, starts, lengths, count);
		if (!gpo_gpu_fell_back(ctx, st))
		{
			ctx->used = GPO_DEVICE_GPU;
			return st;
		}
	}
	ctx->used = GPO_DEVICE_CPU;
	return gpo_rle_cpu(ctx, in, values, starts, lengths, count, scratch);
}

/* Adjacent-unique: gpo_rle with values only (see gpo.h). */
gpo_status
gpo_unique(gpo_ctx *ctx, const gpo_vector *in, gpo_vector *values,
		   int64_t *count, void *scratch, size_t *scratch_bytes)
{
	return gpo_rle(ctx, in, values, NULL, NULL, count, scratch, scratch_bytes);
}
