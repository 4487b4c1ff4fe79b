/*
 * agg_parallel_merge.c
 *	  The backend's merge of its worker processes' groups (agg_parallel.c):
 *	  it sweeps the workers' queues, taking one whole piece from each queue
 *	  that has one, codes the strings of the pieces of one sweep in one
 *	  call (agg_parallel_text.c), and gathers the pieces; it sleeps on its
 *	  latch while no queue has a piece, so a worker's groups do not wait for
 *	  the workers before it.
 *
 * Threads: while workers read, the backend merges with its own share of
 * the query's threads; a worker that sent its last piece has ended, and
 * its threads code the strings of the sweep its last piece came in.  Most
 * workers end within a few milliseconds of each other, so most strings are
 * coded in one call with most of the threads (one piece a time on the
 * backend's one thread took 216.6 of t_url_top's 611.5 ms with 15 workers,
 * NVIDIA H100 machine, 4M rows).  The gathered pieces are sorted, combined
 * and merged into the backend's groups in one pass once they are as many,
 * and after the last piece with every thread (a merge a piece copied every
 * running group once a worker).
 */
#include "aggnode/exec/agg_parallel.h"

#include "access/parallel.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/latch.h"
#include "storage/shm_mq.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

/* Per text key, a worker's codes -> the backend's (agg_parallel_text.c). */
typedef struct GpuopsWorkerMaps
{
	MemoryContext cxt;			/* the maps' memory, for the worker's pieces */
	int32	   *map[GPUOPS_AGG_MAX_KEYS];
	int64		nmap[GPUOPS_AGG_MAX_KEYS];
} GpuopsWorkerMaps;

/*
 * Pieces gathered before they are merged at least (fewer groups than the
 * running ones count no more): each merge copies every running group, so
 * one merge a piece cost 15 workers' pieces 15 copies of the groups.
 */
#define GPUOPS_PARALLEL_PENDING_MIN 65536

/* Adds the milliseconds since *since to *ms and restarts *since. */
static void
gpuops_clock_lap(instr_time *since, double *ms)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	*ms += INSTR_TIME_GET_MILLISEC(now) - INSTR_TIME_GET_MILLISEC(*since);
	*since = now;
}

/*
 * Merges the pieces gathered so far into the backend's groups: sorted by
 * key with nthreads threads, equal neighbours combined, then one merge.
 */
static void
gpuops_parallel_merge_pending(GpuopsAggScanState *s, GpuopsWorkerMerge *wm,
							  int nthreads)
{
	GpuopsAggState *p = &wm->pending;
	instr_time	lap;
	int64		n;

	if (p->ngroups == 0)
		return;
	INSTR_TIME_SET_CURRENT(lap);
	n = gpuops_parallel_sort_fold(p, p->ngroups, nthreads);
	gpuops_clock_lap(&lap, &wm->sort_ms);
	gpuops_aggspill_merge(&s->groups, n, p->key_codes, p->key_valid, p->rows,
						  p->vals);
	gpuops_aggstate_clear(p);
	gpuops_clock_lap(&lap, &wm->fold_ms);
}

/* Adds a worker's EXPLAIN ANALYZE counts of a piece's header to s's. */
static void
gpuops_parallel_add_counts(GpuopsAggScanState *s, const GpuopsParallelHeader *h)
{
	GpuopsAggState *st = &s->groups;
	int			k;

	s->rows_in += h->rows_in;
	s->cached_rows += h->cached_rows;
	s->rows_passed += h->rows_passed;
	s->early_filtered += h->early_filtered;
	s->batches += h->batches;
	s->bytes_in += h->bytes_in;
	s->cpu_calls += h->cpu_calls;
	s->fast_read |= h->fast_read;
	s->slot_read |= h->slot_read;
	for (k = 0; s->join && k < s->join->ndims; k++)
		s->join->dims[k].matched += h->join_matched[k];
	st->spill_runs += h->spill_runs;
	st->spill_bytes += h->spill_bytes;
	st->spill_passes += h->spill_passes;
}

/*
 * Takes the pieces of one sweep (pieces[i] from worker owner[i], read into
 * the current memory context) towards the backend's groups: the strings of
 * each text key coded in one call with nthreads threads, the workers' codes
 * made the backend's (maps), the pieces gathered with the others (see
 * gpuops_parallel_merge_pending), merged once they are as many as the
 * running groups.
 */
static void
gpuops_parallel_merge_sweep(GpuopsAggScanState *s, GpuopsParallelPiece *pieces,
							const int *owner, int npieces,
							GpuopsWorkerMaps *maps, GpuopsWorkerMerge *wm,
							int nthreads)
{
	GpuopsAggState *st = &s->groups;
	GpuopsStringsMsg *msgs = palloc(sizeof(GpuopsStringsMsg) * npieces);
	instr_time	lap;
	int			i;
	int			k;

	INSTR_TIME_SET_CURRENT(lap);
	for (i = 0; i < npieces; i++)
		gpuops_parallel_add_counts(s, &pieces[i].h);
	for (k = 0; k < st->nkeys; k++)
	{
		int			nmsgs = 0;

		for (i = 0; i < npieces; i++)
		{
			GpuopsWorkerMaps *m = &maps[owner[i]];

			if (pieces[i].h.ngroups == 0 || pieces[i].strings[k] == NULL)
				continue;
			msgs[nmsgs].msg = pieces[i].strings[k];
			msgs[nmsgs].bytes = pieces[i].strings_bytes[k];
			msgs[nmsgs].cxt = m->cxt;
			msgs[nmsgs].map = &m->map[k];
			msgs[nmsgs].nmap = &m->nmap[k];
			nmsgs++;
		}
		if (nmsgs == 0)
			continue;
		/* the workers' codes: the backend's codes of their strings */
		wm->strings += gpuops_parallel_strings_map(s->spec.key_dicts[k],
												   nthreads, nmsgs, msgs);
		for (i = 0; i < npieces; i++)
			if (pieces[i].h.ngroups > 0 && pieces[i].strings[k] != NULL)
				gpuops_parallel_codes_map(maps[owner[i]].map[k],
										  maps[owner[i]].nmap[k],
										  pieces[i].codes[k],
										  pieces[i].valid[k],
										  pieces[i].h.ngroups);
	}
	pfree(msgs);
	gpuops_clock_lap(&lap, &wm->recode_ms);
	for (i = 0; i < npieces; i++)
	{
		GpuopsParallelPiece *p = &pieces[i];

		if (p->h.ngroups == 0)
			continue;
		gpuops_aggstate_append(&wm->pending, p->h.ngroups, p->codes, p->valid,
							   p->rows, p->vals);
		wm->groups += p->h.ngroups;
	}
	gpuops_clock_lap(&lap, &wm->fold_ms);
	if (wm->pending.ngroups >= Max(st->ngroups, GPUOPS_PARALLEL_PENDING_MIN) ||
		(st->limit_bytes > 0 &&
		 gpuops_aggstate_group_bytes(st) * (Size) wm->pending.ngroups >
		 st->limit_bytes / 4))
		gpuops_parallel_merge_pending(s, wm, nthreads);
}

/*
 * Reads the next message of a worker's queue into *piece (in the current
 * memory context, or in place: valid until the next message of the queue
 * is asked for), if a whole one is there; returns whether it took one.
 * If the worker is gone, its own ERROR (if it raised one) is raised here;
 * else a message of ours.
 */
static bool
gpuops_parallel_take(GpuopsAggScanState *s, ParallelContext *pcxt,
					 shm_mq_handle *mqh, GpuopsParallelPiece *piece,
					 GpuopsWorkerMerge *wm)
{
	GpuopsAggState *st = &s->groups;
	bool		own[GPUOPS_AGG_MAX_KEYS];
	Size		got;
	void	   *data;
	shm_mq_result res;
	instr_time	lap;
	int			k;

	INSTR_TIME_SET_CURRENT(lap);
	res = shm_mq_receive(mqh, &got, &data, true);
	if (res == SHM_MQ_WOULD_BLOCK)
	{
		gpuops_clock_lap(&lap, &wm->wait_ms);
		return false;
	}
	if (res == SHM_MQ_DETACHED)
		WaitForParallelWorkersToFinish(pcxt);
	if (res != SHM_MQ_SUCCESS)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("GpuOpsAgg lost the groups of a worker")));
	for (k = 0; k < st->nkeys; k++)
		own[k] = gpuops_agg_key_own_codes(s, &s->tables[0], k);
	/* a message past the queue's size is in the backend's own buffer */
	gpuops_parallel_read_piece(data, got, got > wm->queue_bytes, st->nkeys,
							   st->nvals, st->val_types, own, piece);
	gpuops_clock_lap(&lap, &wm->wait_ms);
	return true;
}

/* Sleeps on the backend's latch until a worker writes to its queue. */
static void
gpuops_parallel_wait(GpuopsWorkerMerge *wm)
{
	instr_time	lap;

	INSTR_TIME_SET_CURRENT(lap);
	(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH, -1,
					 WAIT_EVENT_MQ_RECEIVE);
	ResetLatch(MyLatch);
	gpuops_clock_lap(&lap, &wm->wait_ms);
	CHECK_FOR_INTERRUPTS();
}

/*
 * Merges every worker's groups into the backend's, a sweep of the queues
 * at a time (see the file header); wm holds the backend's threads and the
 * workers', and an empty pending state.
 */
void
gpuops_parallel_merge_workers(GpuopsAggScanState *s, ParallelContext *pcxt,
							  shm_mq_handle **mqh, int nworkers,
							  GpuopsWorkerMerge *wm)
{
	GpuopsWorkerMaps *maps = palloc0(sizeof(GpuopsWorkerMaps) * Max(nworkers, 1));
	GpuopsParallelPiece *pieces = palloc(sizeof(GpuopsParallelPiece) * Max(nworkers, 1));
	int		   *owner = palloc(sizeof(int) * Max(nworkers, 1));
	bool	   *done = palloc0(sizeof(bool) * Max(nworkers, 1));
	bool	   *taken = palloc(sizeof(bool) * Max(nworkers, 1));
	int			left = nworkers;
	int			i;

	for (i = 0; i < nworkers; i++)
		maps[i].cxt = AllocSetContextCreate(CurrentMemoryContext,
											"GpuOpsAgg worker text codes",
											ALLOCSET_DEFAULT_SIZES);
	while (left > 0)
	{
		MemoryContext old = MemoryContextSwitchTo(s->batch_cxt);
		int			npieces = 0;
		int			threads;

		memset(taken, 0, sizeof(bool) * Max(nworkers, 1));
		for (;;)
		{
			bool		all = true;

			for (i = 0; i < nworkers; i++)
			{
				if (done[i] || taken[i])
					continue;
				if (!gpuops_parallel_take(s, pcxt, mqh[i], &pieces[npieces], wm))
				{
					all = false;
					continue;
				}
				taken[i] = true;
				owner[npieces++] = i;
				if (pieces[npieces - 1].h.last)
				{
					done[i] = true;
					left--;
				}
			}
			/* gpuops.debug_worker_sweep: a piece of every worker reading */
			if (all || npieces == 0 || !gpuops_debug_worker_sweep)
				break;
			gpuops_parallel_wait(wm);
		}
		/* the backend's share, and the threads of every worker done */
		threads = Min(wm->threads + (nworkers - left) * wm->worker_threads,
					  wm->most_threads);
		if (npieces > 0)
			gpuops_parallel_merge_sweep(s, pieces, owner, npieces, maps, wm,
										Max(threads, 1));
		MemoryContextSwitchTo(old);
		MemoryContextReset(s->batch_cxt);
		if (npieces == 0 && left > 0)
			gpuops_parallel_wait(wm);
		CHECK_FOR_INTERRUPTS();
	}
	/* the workers are done: the last pieces with every thread */
	gpuops_parallel_merge_pending(s, wm, Max(wm->most_threads, 1));
	for (i = 0; i < nworkers; i++)
		MemoryContextDelete(maps[i].cxt);
	pfree(maps);
	pfree(pieces);
	pfree(owner);
	pfree(done);
	pfree(taken);
}
