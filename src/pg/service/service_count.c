/*
 * service_count.c
 *	  How many GPU services the postmaster registers: one per GPU, counted at
 *	  preload without CUDA (a child forked from a postmaster that started
 *	  CUDA could not use it), or gpuops.debug_gpu_count for tests.
 *
 * The GPUs are those CUDA_VISIBLE_DEVICES names when it is set (the number
 * of its comma-separated entries: CUDA numbers them 0, 1, ... in each
 * service's process, which inherits the variable), else the driver's
 * entries under /proc/driver/nvidia/gpus (none without the driver).  At
 * least one service runs whenever the service is registered: where no GPU
 * is found it reports "no device" (or, under gpuops.debug_gpu_service,
 * serves on the CPU), as it always has.
 */
#include "service/service_int.h"

#include <dirent.h>
#include <stdlib.h>

/* Where the NVIDIA driver lists its GPUs, one entry each. */
#define GPUOPS_SVC_PROC_GPUS	"/proc/driver/nvidia/gpus"

/* Entries of a CUDA_VISIBLE_DEVICES value: its comma-separated, non-empty items. */
static int
gpuops_svc_count_list(const char *list)
{
	int			n = 0;
	bool		item = false;
	const char *p;

	for (p = list; *p != '\0'; p++)
	{
		if (*p == ',')
		{
			n += item ? 1 : 0;
			item = false;
		}
		else if (*p != ' ')
			item = true;
	}
	return n + (item ? 1 : 0);
}

/* Entries of the driver's GPU folder (0 when it is absent). */
static int
gpuops_svc_count_proc(void)
{
	DIR		   *dir = opendir(GPUOPS_SVC_PROC_GPUS);
	struct dirent *de;
	int			n = 0;

	if (dir == NULL)
		return 0;
	while ((de = readdir(dir)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

/*
 * The services to run: gpuops.debug_gpu_count when set, else the GPUs
 * counted without CUDA; at least 1, at most GPUOPS_SVC_MAX.
 */
int
gpuops_svc_count_gpus(void)
{
	const char *visible = getenv("CUDA_VISIBLE_DEVICES");
	int			n;

	if (gpuops_debug_gpu_count > 0)
		n = gpuops_debug_gpu_count;
	else if (visible != NULL)
		n = gpuops_svc_count_list(visible);
	else
		n = gpuops_svc_count_proc();
	if (n > GPUOPS_SVC_MAX)
		ereport(LOG,
				(errmsg("gpuops found %d GPUs; the GPU service runs on the first %d",
						n, GPUOPS_SVC_MAX)));
	return Max(1, Min(n, GPUOPS_SVC_MAX));
}
