/*
 * test_core.c
 *	  The engine's unit test program: runs every group and prints
 *	  "N passed, N failed, N skipped"; exits 1 if any case failed.
 *
 * Environment: GPO_TEST_QUICK=1 skips the cases above 10M rows;
 * GPO_TEST_SEED=n fixes the random seed (printed at the start);
 * GPO_TEST_ONLY=name runs only that group (dispatch, scan, compact, rle, agg,
 * histjoin, keypack, filter, transfer, expr, strdict, sort_groups or
 * resident).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_util.h"

/* The expression machine's group (test_expr.c). */
extern void test_expr(void);
/* The string dictionary's group (test_strdict.c). */
extern void test_strdict(void);
/* The order of groups by several keys (test_sort_groups.c). */
extern void test_sort_groups(void);
/* The kept column sets' group (test_resident.c). */
extern void test_resident(void);

/* Runs the groups and reports. */
int
main(void)
{
	const char *q = getenv("GPO_TEST_QUICK");
	const char *s = getenv("GPO_TEST_SEED");
	const char *only = getenv("GPO_TEST_ONLY");
	uint64_t	seed = s ? strtoull(s, NULL, 10) : (uint64_t) time(NULL);
	gpo_device_info info;

	quick = q != NULL && strcmp(q, "0") != 0;
	gpo_gpu_info(&info);
	have_gpu = gpo_gpu_available();
	snprintf(gpu_why, sizeof(gpu_why), "%s", info.error[0] ? info.error : "unknown");
	printf("gpuops core unit tests: seed %llu%s, GPU: %s\n",
		   (unsigned long long) seed, quick ? ", quick" : "",
		   have_gpu ? info.name : gpu_why);
	rng_seed(seed);

#define GROUP(name) \
	do { \
		if (only == NULL || strcmp(only, #name) == 0) \
			test_##name(); \
	} while (0)
	GROUP(dispatch);
	GROUP(scan);
	GROUP(compact);
	GROUP(rle);
	GROUP(agg);
	GROUP(histjoin);
	GROUP(keypack);
	GROUP(filter);
	GROUP(transfer);
	GROUP(expr);
	GROUP(strdict);
	GROUP(sort_groups);
	GROUP(resident);
#undef GROUP

	printf("%d passed, %d failed, %d skipped\n",
		   total_passed, total_failed, total_skipped);
	return total_failed > 0 ? 1 : 0;
}
