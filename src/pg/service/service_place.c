/*
 * service_place.c
 *	  Where a backend's request goes: the placement rule over the GPU
 *	  services (one per GPU) and the claim of a slot and an arena range in
 *	  the chosen one, at once or, under gpuops.device = gpu, once room frees
 *	  up or a restarting service is back (service_client.c hands the
 *	  request over).
 *
 * The rule: the least loaded service that serves, round-robin among equals
 * (gpuops_svc_pick); when it has no room, the next least loaded, and so on.
 * With one service this is the one service, as it always was.
 */
#include "service/service_int.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "portability/instr_time.h"

/* Milliseconds since start. */
double
gpuops_svc_since(instr_time start)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	return INSTR_TIME_GET_MILLISEC(now);
}

/*
 * Says why no slot was had: no service is running, or none has room
 * (counted by first, the service the placement chose first).
 */
static void
gpuops_svc_no_room(GpuopsSvcShared *first, gpo_status *why, char *detail,
				   size_t len)
{
	*why = GPO_ERR_DEVICE;
	snprintf(detail, len, first == NULL ?
			 "the GPU service is not running" :
			 "the GPU service has no room for the batch");
	if (first != NULL)
	{
		SpinLockAcquire(&first->lock);
		first->no_room++;
		SpinLockRelease(&first->lock);
	}
}

/*
 * The placement rule: of the services that serve (READY or READY_CPU) and
 * are not in tried, the one holding the fewest requests (slots FILLING,
 * QUEUED or RUNNING, read without the locks: a hint); among equally loaded
 * ones, round-robin from a shared counter, so that one session's successive
 * requests spread over idle services.  -1 when none is left.
 */
static int
gpuops_svc_pick(const bool *tried)
{
	int			n = gpuops_svc_set->nservices;
	uint32		start;
	int			best = -1;
	int			best_load = INT_MAX;
	int			j;

	/* one service (one GPU): that one, as before there were several */
	if (n == 1)
		return !tried[0] && gpuops_svc_serving(gpuops_svc_at(0)) ? 0 : -1;
	start = pg_atomic_fetch_add_u32(&gpuops_svc_set->next_pick, 1);
	for (j = 0; j < n; j++)
	{
		int			i = (int) ((start + (uint32) j) % (uint32) n);
		int			load;

		if (tried[i] || !gpuops_svc_serving(gpuops_svc_at(i)))
			continue;
		load = gpuops_svc_load(gpuops_svc_at(i));
		if (load < best_load)
		{
			best = i;
			best_load = load;
		}
	}
	return best;
}

/*
 * Services counted by state: *serving take requests, *down are starting or
 * restarting (the rest found no GPU).
 */
static void
gpuops_svc_census(int *serving, int *down)
{
	int			i;

	*serving = 0;
	*down = 0;
	for (i = 0; i < gpuops_svc_set->nservices; i++)
	{
		GpuopsSvcShared *svc = gpuops_svc_at(i);

		if (gpuops_svc_serving(svc))
			(*serving)++;
		else if (pg_atomic_read_u32(&svc->state) == GPUOPS_SVC_DOWN)
			(*down)++;
	}
}

/*
 * Claims a slot with bytes of arena room in the serving services (only
 * service only, when >= 0), in the placement's order; -1 when none has room.  *svc: where it was claimed,
 * or NULL; *first: the first service tried (NULL when none serves).
 */
static int
gpuops_svc_claim_any(Size bytes, int only, GpuopsSvcShared **svc,
					 GpuopsSvcShared **first)
{
	bool		tried[GPUOPS_SVC_MAX];
	int			k;

	for (k = 0; k < GPUOPS_SVC_MAX; k++)
		tried[k] = only >= 0 && k != only;
	*svc = NULL;
	*first = NULL;
	while ((k = gpuops_svc_pick(tried)) >= 0)
	{
		int			i = gpuops_svc_claim(gpuops_svc_at(k), bytes);

		tried[k] = true;
		if (*first == NULL)
			*first = gpuops_svc_at(k);
		if (i >= 0)
		{
			*svc = gpuops_svc_at(k);
			return i;
		}
	}
	return -1;
}

/*
 * A slot with bytes of arena room in some service (*svc; service only when
 * only >= 0): at once, or (wait) once a service runs and room frees up; -1
 * with *why set when none is had.
 */
int
gpuops_svc_place(Size bytes, int only, bool wait, GpuopsSvcShared **svc,
				 gpo_status *why, char *detail, size_t len)
{
	instr_time	start;
	int			i = -1;

	INSTR_TIME_SET_CURRENT(start);
	*svc = NULL;
	/* every arena has the same size */
	if (bytes > gpuops_svc_at(0)->arena_size)
	{
		*why = GPO_ERR_DEVICE_NOMEM;
		snprintf(detail, len, "a batch of %zu kB is larger than gpuops.gpu_service_memory",
				 bytes / 1024);
		return -1;
	}
	if (wait)
		ConditionVariablePrepareToSleep(&gpuops_svc_set->room_cv);
	for (;;)
	{
		GpuopsSvcShared *first;
		int			serving;
		int			down;

		if ((i = gpuops_svc_claim_any(bytes, only, svc, &first)) >= 0)
			break;
		gpuops_svc_census(&serving, &down);
		if (serving == 0 && down == 0)
		{
			*why = GPO_ERR_NO_DEVICE;
			snprintf(detail, len, "the GPU service found no usable GPU");
			break;
		}
		if (!wait || (serving == 0 &&
					  gpuops_svc_since(start) > GPUOPS_SVC_DOWN_WAIT_MS))
		{
			gpuops_svc_no_room(first, why, detail, len);
			break;
		}

		/*
		 * Woken when a slot of any service frees up or a service's state
		 * changes; the timeout only bounds the wait for a service that is
		 * restarting.
		 */
		(void) ConditionVariableTimedSleep(&gpuops_svc_set->room_cv,
										   serving == 0 ? 100L : 1000L,
										   PG_WAIT_EXTENSION);
	}
	if (wait)
		ConditionVariableCancelSleep();
	return i;
}
