/*
 * gpuops.c
 *	  Module load: the OpenMP runtime, then each feature's settings and
 *	  hooks.
 *
 * _PG_init may run in the postmaster (shared_preload_libraries): it only
 * defines GUCs, asks for shared memory and registers the GPU service.  It
 * never touches CUDA and never starts threads; the engine initializes both
 * lazily in the backend that first needs them.
 */
#include "common/gpuops.h"
#include "aggnode/gpuops_agg.h"
#include "budget/gpuops_budget.h"
#include "budget/gpuops_omp.h"
#include "cache/gpuops_cache.h"
#include "heapscan/gpuops_scan.h"
#include "service/gpuops_service.h"

#include "fmgr.h"
#include "utils/guc.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* Load the OpenMP runtime, tune malloc, define the gpuops.* GUCs and reserve their prefix. */
void
_PG_init(void)
{
	const char *why = gpuops_omp_load();

	if (why != NULL)
		ereport(WARNING,
				(errcode(ERRCODE_UNDEFINED_FILE),
				 errmsg("gpuops could not load the OpenMP runtime: its CPU face runs on one thread"),
				 errdetail("%s", why)));
	gpuops_malloc_tune();
	gpuops_settings_init();
	gpuops_agg_settings_init();
	gpuops_scan_settings_init();
	gpuops_budget_init();
	gpuops_service_init();
	gpuops_cache_init();

	MarkGUCPrefixReserved("gpuops");
	gpuops_agg_register();
}
