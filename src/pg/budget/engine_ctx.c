/*
 * engine_ctx.c
 *	  The engine context a backend's calls run under: the settings, on the
 *	  CPU while its query found no GPU seat free, and (for the SQL
 *	  functions) within a share of the core budget.
 */
#include "budget/gpuops_budget.h"

/* gpuops.device, or cpu while this backend's query found no GPU seat free (gpu_seats.c). */
gpo_device
gpuops_device_now(void)
{
	return gpuops_budget_cpu_only() ? GPO_DEVICE_CPU : (gpo_device) gpuops_device;
}

/*
 * Fill an engine context from the current GUC settings (the engine keeps
 * its teams within this backend's share of the core budget by itself).
 */
void
gpuops_ctx_init(gpo_ctx *ctx)
{
	gpo_ctx_init(ctx);
	ctx->device = gpuops_device_now();
	ctx->gpu_min_rows = gpuops_gpu_min_rows;
	ctx->threads = gpuops_threads;
	gpo_gpu_set_memory_limit((int64) gpuops_gpu_memory_limit * 1024 * 1024);
}

/*
 * Fills ctx from the settings and takes the calling SQL function's share of
 * the budget (given back when the function's memory context goes); without
 * a GPU seat free, ctx runs on the CPU.
 */
void
gpuops_ctx_init_budget(gpo_ctx *ctx)
{
	GpuopsBudgetLease *lease = NULL;

	gpuops_ctx_init(ctx);
	(void) gpuops_budget_acquire(gpo_threads(ctx), &lease);
	gpuops_ctx_init(ctx);
}
