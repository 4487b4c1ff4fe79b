/*
 * func_info.c
 *	  gpuops.info(): what this build and this backend's GPU can do;
 *	  gpuops.last_run(): which face ran this backend's last engine call.
 *
 * Every key is always present; a value that does not apply (no GPU, built
 * without CUDA) is NULL.
 */
#include "functions/gpuops_functions.h"
#include "budget/gpuops_omp.h"

#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

PG_FUNCTION_INFO_V1(gpuops_info);
PG_FUNCTION_INFO_V1(gpuops_last_run_sql);

/* Append one (key, value) row; value NULL means not applicable. */
static void
gpuops_info_row(ReturnSetInfo *rsinfo, const char *key, const char *value)
{
	Datum		values[2];
	bool		nulls[2] = {false, false};

	values[0] = CStringGetTextDatum(key);
	if (value != NULL)
		values[1] = CStringGetTextDatum(value);
	else
	{
		values[1] = (Datum) 0;
		nulls[1] = true;
	}
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* A CUDA version number (1000 * major + 10 * minor) as "major.minor". */
static char *
gpuops_cuda_version(int version)
{
	if (version <= 0)
		return NULL;
	return psprintf("%d.%d", version / 1000, (version % 1000) / 10);
}

/* gpuops.info(): one row per key. */
Datum
gpuops_info(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	gpo_device_info info;
	gpo_ctx		ctx;
	char	   *memory = NULL;

	InitMaterializedSRF(fcinfo, 0);

	memset(&info, 0, sizeof(info));
	gpo_gpu_info(&info);
	info.name[sizeof(info.name) - 1] = '\0';
	info.error[sizeof(info.error) - 1] = '\0';
	gpuops_ctx_init(&ctx);

	if (info.usable && info.total_mem > 0)
		memory = TextDatumGetCString(DirectFunctionCall1(pg_size_pretty,
														 Int64GetDatum(info.total_mem)));

	gpuops_info_row(rsinfo, "extension_version", GPUOPS_VERSION);
	gpuops_info_row(rsinfo, "build", info.compiled ? "cuda" : "cpu-only");
	gpuops_info_row(rsinfo, "cuda_runtime", gpuops_cuda_version(info.runtime_version));
	gpuops_info_row(rsinfo, "cuda_driver", gpuops_cuda_version(info.driver_version));
	gpuops_info_row(rsinfo, "gpu_usable", info.usable ? "true" : "false");
	gpuops_info_row(rsinfo, "gpu_name",
					info.usable && info.name[0] != '\0' ? info.name : NULL);
	gpuops_info_row(rsinfo, "gpu_memory", memory);
	gpuops_info_row(rsinfo, "gpu_error",
					info.usable ? NULL :
					info.error[0] != '\0' ? info.error : "no usable GPU");
	gpuops_info_row(rsinfo, "openmp_threads", psprintf("%d", gpo_threads(&ctx)));
	gpuops_info_row(rsinfo, "openmp_wait", gpuops_omp_wait());
	gpuops_info_row(rsinfo, "malloc_thresholds", gpuops_malloc_describe());
	gpuops_info_row(rsinfo, "device_setting", gpuops_device_name());

	return (Datum) 0;
}

/* gpuops.last_run(): the operation, face and detail of this backend's last engine call (no row before the first). */
Datum
gpuops_last_run_sql(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const char *op;
	const char *face;
	const char *detail;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	InitMaterializedSRF(fcinfo, 0);
	if (!gpuops_last_run(&op, &face, &detail))
		return (Datum) 0;
	values[0] = CStringGetTextDatum(op);
	values[1] = CStringGetTextDatum(face);
	if (detail != NULL)
		values[2] = CStringGetTextDatum(detail);
	else
		nulls[2] = true;
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return (Datum) 0;
}
