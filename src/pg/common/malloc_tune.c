/*
 * malloc_tune.c
 *	  glibc's malloc thresholds for the page batches' memory.
 *
 * Each page batch decodes its columns into fresh memory and frees it when
 * the batch is merged.  With glibc's default, adaptive thresholds, blocks
 * of a few MB come from the top of the heap and go back to the kernel as
 * soon as they are freed (the trim threshold is twice the largest block
 * freed so far), so every batch faults its pages in again: the kernel's
 * page clearing and the mm lock were a fifth of TPC-H Q1's time on 2
 * cores (600K rows: 88 ms, against 62 ms with the thresholds below).
 *
 * The thresholds set here are the largest glibc's adaptive ones reach on
 * their own (blocks up to 32 MB from the heap, up to 64 MB of free heap
 * kept at its top), fixed from the start.  A DBA who sets malloc's
 * thresholds in the server's environment keeps them.
 */
#include "common/gpuops.h"

#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* Blocks up to this size come from the heap (glibc: DEFAULT_MMAP_THRESHOLD_MAX). */
#define GPUOPS_MMAP_THRESHOLD	(32 * 1024 * 1024)
/* Free memory kept at the heap's top: what the adaptive rule keeps at most. */
#define GPUOPS_TRIM_THRESHOLD	(2 * GPUOPS_MMAP_THRESHOLD)

static const char *gpuops_malloc_state = "glibc defaults";

/* True if the server's environment already tunes malloc's thresholds. */
static bool
gpuops_malloc_env_set(void)
{
	const char *tunables = getenv("GLIBC_TUNABLES");

	return getenv("MALLOC_MMAP_THRESHOLD_") != NULL ||
		getenv("MALLOC_TRIM_THRESHOLD_") != NULL ||
		getenv("MALLOC_TOP_PAD_") != NULL ||
		(tunables != NULL && strstr(tunables, "glibc.malloc.") != NULL);
}

/* Sets malloc's mmap and trim thresholds for the page batches (from _PG_init). */
void
gpuops_malloc_tune(void)
{
#ifdef __GLIBC__
	if (gpuops_malloc_env_set())
	{
		gpuops_malloc_state = "set by the server's environment";
		return;
	}
	if (mallopt(M_MMAP_THRESHOLD, GPUOPS_MMAP_THRESHOLD) == 1 &&
		mallopt(M_TRIM_THRESHOLD, GPUOPS_TRIM_THRESHOLD) == 1)
		gpuops_malloc_state = "mmap 32 MB, trim 64 MB (gpuops default)";
#else
	gpuops_malloc_state = "not glibc: untouched";
#endif
}

/* How malloc's thresholds were set, for gpuops.info(). */
const char *
gpuops_malloc_describe(void)
{
	return gpuops_malloc_state;
}
