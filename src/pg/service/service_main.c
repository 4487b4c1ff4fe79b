/*
 * service_main.c
 *	  A GPU service's supervisor: the background worker that forks the
 *	  executor (service_exec.c, which owns the only CUDA context on its GPU
 *	  and runs the requests), publishes the settings the executor needs, frees
 *	  the slots their owners gave up, and replaces an executor that died.
 *
 * Faults: an executor that ends for any reason (gpuops.service_restart()
 * sends it SIGTERM, which lets the request it runs finish; immediate =>
 * true sends SIGKILL; a crash in a GPU library) is reaped here: the request
 * it was running is answered as lost (its backend raises 58000 under
 * gpuops.device = gpu and runs the batch on the CPU under auto), queued
 * ones wait, and a new executor starts at once (a second later when the
 * last one lived less than a second).  Since the executor is the
 * supervisor's child, not the postmaster's, none of this restarts other
 * processes.  The supervisor itself runs no GPU code; a SIGTERM
 * (shutdown) ends it and its executor.
 *
 * There is one supervisor per GPU (service_shmem.c registers them), each
 * with its own control block and executor: what happens to one service
 * does not touch the others.
 */
#include "service/service_int.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "portability/instr_time.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "utils/guc.h"

PGDLLEXPORT void gpuops_service_main(Datum arg);

static volatile sig_atomic_t got_sigterm = false;
/* The service this process supervises (its bgw_main_arg: its number). */
static GpuopsSvcShared *svc = NULL;
/* The executor's pid, 0 when none runs. */
static pid_t exec_pid = 0;
/* When it started. */
static instr_time exec_started;

/* SIGTERM: stop the executor and leave. */
static void
gpuops_svc_sigterm(SIGNAL_ARGS)
{
	int			save_errno = errno;

	got_sigterm = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

/* SIGCHLD: the executor ended; the loop reaps it. */
static void
gpuops_svc_sigchld(SIGNAL_ARGS)
{
	int			save_errno = errno;

	SetLatch(MyLatch);
	errno = save_errno;
}

/* Answers slot i's request as lost (no executor runs it any more). */
static void
gpuops_svc_mark_lost(int i, const char *why)
{
	GpuopsSvcSlot *sl = &svc->slots[i];
	GpuopsSvcAggReq *req = (GpuopsSvcAggReq *) (gpuops_svc_arena(svc) + sl->off);

	req->status = GPO_ERR_DEVICE;
	req->lost = 1;
	strlcpy(req->detail, why, sizeof(req->detail));
	gpuops_svc_answer(svc, i);
	SpinLockAcquire(&svc->lock);
	svc->lost++;
	SpinLockRelease(&svc->lock);
}

/*
 * No executor any more: its running request is lost, the service is down
 * until the next one is ready, and its page-locking went with it.
 */
static void
gpuops_svc_executor_gone(const char *why)
{
	int			i;

	pg_atomic_write_u32(&svc->state, GPUOPS_SVC_DOWN);
	SpinLockAcquire(&svc->lock);
	svc->pid = 0;
	SpinLockRelease(&svc->lock);
	svc->pinned = false;
	for (i = 0; i < GPUOPS_SVC_SLOTS; i++)
		if (pg_atomic_read_u32(&svc->slots[i].state) == GPUOPS_SVC_RUNNING)
			gpuops_svc_mark_lost(i, why);
	ConditionVariableBroadcast(&gpuops_svc_set->room_cv);
}

/* Exit callback: the executor goes too, and what it ran is lost. */
static void
gpuops_svc_exit(int code, Datum arg)
{
	if (exec_pid > 0)
	{
		(void) kill(exec_pid, SIGKILL);
		(void) waitpid(exec_pid, NULL, 0);
		exec_pid = 0;
	}
	gpuops_svc_executor_gone("the GPU service stopped while running this request");
	SpinLockAcquire(&svc->lock);
	svc->latch = NULL;
	SpinLockRelease(&svc->lock);
}

/* Publishes the settings the executor reads (it reads no GUC itself). */
static void
gpuops_svc_publish_settings(void)
{
	pg_atomic_write_u32(&svc->memory_limit_mb,
						(uint32) gpuops_gpu_memory_limit);
	pg_atomic_write_u32(&svc->delay_ms,
						(uint32) gpuops_debug_gpu_service_delay);
	pg_atomic_write_u32(&svc->cache_limit_mb,
						(uint32) gpuops_cache_memory_limit);
}

/* Forks a new executor. */
static void
gpuops_svc_fork(void)
{
	pid_t		pid;

	pg_atomic_fetch_add_u64(&svc->generation, 1);
	pid = fork();
	if (pid == 0)
		gpuops_svc_exec_main(svc, getppid());
	if (pid < 0)
	{
		ereport(LOG,
				(errmsg("gpuops GPU service could not start its executor: %m")));
		return;
	}
	exec_pid = pid;
	INSTR_TIME_SET_CURRENT(exec_started);
	SpinLockAcquire(&svc->lock);
	svc->pid = (int) pid;
	SpinLockRelease(&svc->lock);
}

/* Reaps an executor that ended and says why; false while it runs. */
static bool
gpuops_svc_reaped(void)
{
	int			status;
	char		why[128];

	if (exec_pid <= 0 || waitpid(exec_pid, &status, WNOHANG) != exec_pid)
		return exec_pid <= 0;
	if (WIFSIGNALED(status))
		snprintf(why, sizeof(why),
				 "the GPU service's executor was terminated by signal %d while running this request",
				 WTERMSIG(status));
	else
		snprintf(why, sizeof(why),
				 "the GPU service's executor stopped while running this request");
	if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL)
		ereport(LOG,
				(errmsg("gpuops GPU service executor (PID %d) was terminated by signal %d; starting a new one",
						(int) exec_pid, WTERMSIG(status))));
	exec_pid = 0;
	gpuops_svc_executor_gone(why);
	return true;
}

/*
 * Frees the slots that nobody else will: DONE ones whose owner gave them up
 * while the executor ran them, and those of backends that are gone without
 * giving them up (they do at exit; this covers the rest).
 */
static void
gpuops_svc_reap_slots(void)
{
	int			i;

	for (i = 0; i < GPUOPS_SVC_SLOTS; i++)
	{
		GpuopsSvcSlot *sl = &svc->slots[i];
		uint32		st = pg_atomic_read_u32(&sl->state);
		uint64		ticket = sl->ticket;
		int			pid = sl->owner_pid;

		if (st == GPUOPS_SVC_DONE && pg_atomic_read_u32(&sl->abandoned) != 0)
		{
			gpuops_svc_release(svc, i, ticket, st);
			continue;
		}
		if ((st != GPUOPS_SVC_QUEUED && st != GPUOPS_SVC_DONE) || pid <= 0 ||
			kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		pg_atomic_write_u32(&sl->abandoned, 1);
		gpuops_svc_release(svc, i, ticket, st);
	}
}

/* Whether the last executor lived long enough to start the next one now. */
static bool
gpuops_svc_may_fork(void)
{
	instr_time	now;

	if (INSTR_TIME_IS_ZERO(exec_started))
		return true;
	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, exec_started);
	return INSTR_TIME_GET_MILLISEC(now) >= 1000.0;
}

/* A service's main function (registered by service_shmem.c; arg: its number). */
void
gpuops_service_main(Datum arg)
{
	uint32		state = GPUOPS_SVC_DOWN;
	int			index = DatumGetInt32(arg);

	pqsignal(SIGTERM, gpuops_svc_sigterm);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGCHLD, gpuops_svc_sigchld);
	BackgroundWorkerUnblockSignals();
	if (gpuops_svc_set == NULL || index < 0 ||
		index >= gpuops_svc_set->nservices)
		proc_exit(0);
	svc = gpuops_svc_at(index);
	before_shmem_exit(gpuops_svc_exit, (Datum) 0);
	/* what an earlier service left running is lost */
	gpuops_svc_executor_gone("the GPU service restarted while running this request");
	SpinLockAcquire(&svc->lock);
	svc->latch = MyLatch;
	SpinLockRelease(&svc->lock);
	INSTR_TIME_SET_ZERO(exec_started);
	gpuops_svc_publish_settings();
	for (;;)
	{
		uint32		now;

		ResetLatch(MyLatch);
		if (got_sigterm)
			proc_exit(1);
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			gpuops_svc_publish_settings();
		}
		if (gpuops_svc_reaped() && gpuops_svc_may_fork())
			gpuops_svc_fork();
		/* backends waiting for the service to come up sleep on room_cv */
		now = pg_atomic_read_u32(&svc->state);
		if (now != state)
		{
			state = now;
			ConditionVariableBroadcast(&gpuops_svc_set->room_cv);
			if (state == GPUOPS_SVC_NO_DEVICE && gpuops_svc_set->nservices == 1)
				ereport(LOG,
						(errmsg("gpuops GPU service found no usable GPU: sessions use the CPU face")));
			else if (state == GPUOPS_SVC_NO_DEVICE)
				ereport(LOG,
						(errmsg("gpuops GPU service %d found no usable GPU: sessions use the other services",
								svc->index)));
		}
		gpuops_svc_reap_slots();
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 exec_pid > 0 && state != GPUOPS_SVC_DOWN ? 1000L : 50L,
						 PG_WAIT_EXTENSION);
	}
}
