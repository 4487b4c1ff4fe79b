/*
 * gpu_stub.c
 *	  The GPU faces of a build without CUDA: no device, and every GPU face
 *	  answers GPO_ERR_NO_DEVICE.  Compiled only when nvcc is absent or CUDA=0.
 */
#include <string.h>

#include "gpo_internal.h"

/* Text every stub face reports. */
static const char no_cuda[] = "built without CUDA";

/* Fills info: not compiled, not usable. */
void
gpo_gpu_info(gpo_device_info *info)
{
	if (info == NULL)
		return;
	memset(info, 0, sizeof(*info));
	info->compiled = false;
	info->usable = false;
	strncpy(info->error, no_cuda, sizeof(info->error) - 1);
}

/* This build has no CUDA. */
bool
gpo_gpu_compiled(void)
{
	return false;
}

/* No device to choose. */
bool
gpo_gpu_use_device(int index)
{
	(void) index;
	return false;
}

/* No device memory to copy to: nothing is locked. */
bool
gpo_host_register(void *p, size_t bytes)
{
	(void) p;
	(void) bytes;
	return false;
}

/* Nothing was registered. */
void
gpo_host_unregister(void *p)
{
	(void) p;
}

/* Scan GPU face: unavailable in this build. */
gpo_status
gpo_scan_gpu(gpo_ctx *ctx, const gpo_vector *in, const gpo_vector *heads,
			 bool inclusive, gpo_vector *out)
{
	(void) in;
	(void) heads;
	(void) inclusive;
	(void) out;
	if (ctx != NULL)
		gpo_set_detail(ctx, "%s", no_cuda);
	return GPO_ERR_NO_DEVICE;
}

/* Compaction GPU face: unavailable in this build. */
gpo_status
gpo_compact_gpu(gpo_ctx *ctx, const gpo_vector *mask, uint32_t flags,
				gpo_vector *index_map, int64_t *count)
{
	(void) mask;
	(void) flags;
	(void) index_map;
	(void) count;
	if (ctx != NULL)
		gpo_set_detail(ctx, "%s", no_cuda);
	return GPO_ERR_NO_DEVICE;
}

/* Run-length encoding GPU face: unavailable in this build. */
gpo_status
gpo_rle_gpu(gpo_ctx *ctx, const gpo_vector *in, gpo_vector *values,
			gpo_vector *starts, gpo_vector *lengths, int64_t *count)
{
	(void) in;
	(void) values;
	(void) starts;
	(void) lengths;
	(void) count;
	if (ctx != NULL)
		gpo_set_detail(ctx, "%s", no_cuda);
	return GPO_ERR_NO_DEVICE;
}

/* No device memory: nothing to bound. */
void
gpo_gpu_set_memory_limit(int64_t bytes)
{
	(void) bytes;
}

/* No device memory held. */
void
gpo_gpu_memory_use(int64_t *held, int64_t *peak)
{
	*held = 0;
	*peak = 0;
}
