/*
 * agg_job.c
 *	  A batch's group aggregation, run by a helper thread while the backend
 *	  reads the next batch.
 *
 * On the GPU face a batch's engine call is mostly waiting: for the staging
 * copies, the transfer, the kernels and the results.  GpuOpsAgg hands it to
 * a helper thread and reads the next batch meanwhile (the reader's second
 * set of arrays, gpuops_scan_double_buffer), then waits for the job before
 * it merges its groups.  The thread calls only the engine (src/core, plain
 * C: no PostgreSQL call), with every signal blocked, over inputs and
 * outputs the backend allocated in the batch's memory context before the
 * start and leaves alone until the wait.  The backend waits for the job
 * before it calls the engine itself, so the GPU face's staging buffers and
 * device memory serve one thread at a time.  A reset callback on the
 * batch's context waits for the thread before that memory goes, so an
 * ERROR or a cancel leaves no thread behind.
 *
 * Where the server runs the GPU service, a job for the GPU goes to it
 * instead (service_client.c): submitted at the start, waited for on the
 * backend's latch at the wait, with no thread of its own.  A job the
 * service can't take at once (no room, not running, or lost to a restart)
 * runs here on the CPU face under gpuops.device = auto; under gpu it waits
 * for room, and a lost one is an error.
 */
#include "aggnode/exec/gpuops_agg_exec.h"

#include "utils/memutils.h"

#include "common/gpuops.h"

/*
 * OpenMP threads of the helper's engine calls: one, with no team of its own.
 * The reader decodes with one thread fewer while jobs run, leaving that core
 * to the helper; with a team of 4 here, on 16 cores, the read of 1e8
 * rows took 1.7-2.1 s instead of 0.43-0.57 s (oversubscribed threads at
 * the decoders' barriers).
 */
#define GPUOPS_AGG_JOB_THREADS 1

static void gpuops_agg_job_run_here(GpuopsAggJob *job);

/*
 * Runs the job now: through the GPU service when it goes there, else with
 * the engine here (no PostgreSQL call then: any thread).
 */
void
gpuops_agg_job_run(GpuopsAggJob *job)
{
	if (job->served)
	{
		gpuops_agg_job_start(job);
		gpuops_agg_job_wait(job);
		return;
	}
	gpuops_agg_job_run_here(job);
}

/*
 * Runs the job's engine call in this process, one for all its value
 * columns; no PostgreSQL call (any thread).  Every column's context,
 * strategy and groups are the call's.
 */
static void
gpuops_agg_job_run_here(GpuopsAggJob *job)
{
	int			ncalls = Max(job->nvals, 1);
	int			v;

	job->used[0] = job->strategy;
	job->st = gpuops_groupagg_many_call(&job->ctx[0], job->keys, job->values,
										 job->nvals, job->est_groups,
										 &job->used[0], job->outs,
										 &job->ngroups[0]);
	for (v = 1; v < ncalls; v++)
	{
		job->ctx[v] = job->ctx[0];
		job->used[v] = job->used[0];
		job->ngroups[v] = job->ngroups[0];
	}
	job->calls = 1;
}

/* The helper thread's body. */
static void *
gpuops_agg_job_main(void *arg)
{
	gpuops_agg_job_run_here((GpuopsAggJob *) arg);
	return NULL;
}

/* Memory context callback: no thread may outlive the memory it uses. */
static void
gpuops_agg_job_cleanup(void *arg)
{
	GpuopsAggJob *job = (GpuopsAggJob *) arg;

	if (job->running)
	{
		pthread_join(job->thread, NULL);
		job->running = false;
	}
}

/*
 * A job aggregating values (nvals columns, or rows only when 0) by keys into
 * outs, each with room for cap groups; everything lies in the current memory
 * context, whose reset ends the job.  ctx_init is every call's context.
 */
GpuopsAggJob *
gpuops_agg_job_create(const gpo_vector *keys, const gpo_vector *values,
					  int nvals, int64 est_groups, gpo_agg_strategy strategy,
					  const gpo_ctx *ctx_init, gpo_agg_out *outs)
{
	GpuopsAggJob *job = palloc0(sizeof(GpuopsAggJob));
	int			ncalls = Max(nvals, 1);
	int			v;

	job->keys = keys;
	job->values = values;
	job->nvals = nvals;
	job->est_groups = est_groups;
	job->strategy = strategy;
	job->outs = outs;
	job->ctx = palloc(sizeof(gpo_ctx) * ncalls);
	job->used = palloc0(sizeof(gpo_agg_strategy) * ncalls);
	job->ngroups = palloc0(sizeof(int64) * ncalls);
	for (v = 0; v < ncalls; v++)
		job->ctx[v] = *ctx_init;
	job->want = gpuops_device_now();
	job->served = gpuops_agg_to_service(gpo_vector_rows(keys));
	job->cleanup.func = gpuops_agg_job_cleanup;
	job->cleanup.arg = job;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &job->cleanup);
	return job;
}

/* Whether a batch of n rows goes to the GPU service. */
bool
gpuops_agg_to_service(int64 n)
{
	return gpuops_agg_served() &&
		(gpuops_device_now() == GPO_DEVICE_GPU || n >= gpuops_gpu_min_rows);
}

/* Copies the first call's context, strategy and groups to every column's. */
static void
gpuops_agg_job_spread(GpuopsAggJob *job)
{
	int			v;

	for (v = 1; v < Max(job->nvals, 1); v++)
	{
		job->ctx[v] = job->ctx[0];
		job->used[v] = job->used[0];
		job->ngroups[v] = job->ngroups[0];
	}
	job->calls = 1;
}

/*
 * Hands the job to the GPU service; when it can't take it, runs it here on
 * the CPU face (auto) or records why (gpu).
 */
static void
gpuops_agg_job_submit(GpuopsAggJob *job)
{
	gpo_status	why = GPO_OK;

	job->call = gpuops_service_agg_submit(job->keys, job->values, job->nvals,
										  job->est_groups, job->strategy,
										  job->outs,
										  job->want == GPO_DEVICE_GPU, &why,
										  job->ctx[0].detail,
										  sizeof(job->ctx[0].detail));
	if (job->call != NULL)
		return;
	if (job->want == GPO_DEVICE_GPU)
	{
		job->st = why;
		job->ctx[0].used = GPO_DEVICE_GPU;
		gpuops_agg_job_spread(job);
		return;
	}
	job->fell_back = true;
	gpuops_agg_job_run_here(job);
}

/*
 * Starts the job: to the GPU service, or on a helper thread (with one
 * OpenMP thread, beside the backend's decoding); runs it here instead when
 * no thread can be had.
 */
void
gpuops_agg_job_start(GpuopsAggJob *job)
{
	int			ncalls = Max(job->nvals, 1);
	int			v;

	if (job->served)
	{
		gpuops_agg_job_submit(job);
		return;
	}
	for (v = 0; v < ncalls; v++)
		if (job->ctx[v].threads <= 0 ||
			job->ctx[v].threads > GPUOPS_AGG_JOB_THREADS)
			job->ctx[v].threads = GPUOPS_AGG_JOB_THREADS;
	if (gpuops_thread_start(&job->thread, gpuops_agg_job_main, job))
		job->running = true;
	else
		gpuops_agg_job_run_here(job);
}

/*
 * Waits for the job's GPU service request (a device failure or a lost
 * request runs the job here on the CPU face under auto) or for its thread
 * (no error raised: see job->st).
 */
void
gpuops_agg_job_wait(GpuopsAggJob *job)
{
	GpuopsServiceCall *call = job->call;
	gpo_status	st;
	bool		lost;

	if (call == NULL)
	{
		gpuops_agg_job_cleanup(job);
		return;
	}
	job->call = NULL;
	st = gpuops_service_agg_wait(call, &job->ctx[0], &job->used[0],
								 &job->ngroups[0], &job->service_ms,
								 &job->service_copy_ms, &lost);
	if (job->want != GPO_DEVICE_GPU &&
		(lost || st == GPO_ERR_DEVICE || st == GPO_ERR_DEVICE_NOMEM ||
		 st == GPO_ERR_NO_DEVICE))
	{
		job->fell_back = true;
		job->ctx[0].device = GPO_DEVICE_CPU;
		gpuops_agg_job_run_here(job);
		return;
	}
	if (lost)
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("the gpuops GPU service stopped before it answered the query"),
				 errdetail("%s.", job->ctx[0].detail),
				 errhint("The service starts again by itself: run the query again, or set gpuops.device to 'auto' to use the CPU meanwhile.")));
	job->st = st;
	gpuops_agg_job_spread(job);
}
