/*
 * agg_parallel.h
 *	  What the worker-process files share (agg_parallel.c, the backend's
 *	  merge in agg_parallel_merge.c, the messages of agg_parallel_msg.c and
 *	  the text codes of agg_parallel_text.c): the rest of the executor sees
 *	  gpuops_agg_exec.h alone.
 */
#ifndef GPUOPS_AGG_PARALLEL_H
#define GPUOPS_AGG_PARALLEL_H

#include "aggnode/exec/gpuops_agg_exec.h"

/* ---- agg_parallel_merge.c: the backend's merge of its workers' groups ---- */

/*
 * The backend's merge of its workers' groups: its threads, the pieces it
 * gathered and not yet merged, and where its time went (DEBUG1).
 */
typedef struct GpuopsWorkerMerge
{
	double		wait_ms;		/* waiting for, taking and copying messages */
	double		recode_ms;		/* coding the workers' strings */
	double		sort_ms;		/* sorting recoded pieces again */
	double		fold_ms;		/* folding pieces into the running groups */
	int64		groups;			/* the groups the workers sent */
	int64		strings;		/* the strings the workers sent */
	int			threads;		/* the backend's share of the threads: the
								 * workers still read beside the merge */
	int			worker_threads; /* each worker's threads, free once it is
								 * done */
	int			most_threads;	/* the query's threads */
	Size		queue_bytes;	/* each worker's queue */
	GpuopsAggState pending;		/* recoded pieces, appended in no order */
} GpuopsWorkerMerge;

struct ParallelContext;
struct shm_mq_handle;

/* Merges every worker's groups into the backend's (wm set up by the caller). */
extern void gpuops_parallel_merge_workers(GpuopsAggScanState *s,
										  struct ParallelContext *pcxt,
										  struct shm_mq_handle **mqh,
										  int nworkers, GpuopsWorkerMerge *wm);

/* ---- agg_parallel_msg.c: a piece of a worker's groups as one message ---- */

/* The header of a piece of a worker's groups. */
typedef struct GpuopsParallelHeader
{
	int64		ngroups;
	int32		nkeys;
	int32		nvals;
	/* the worker's EXPLAIN ANALYZE counts, added to the backend's */
	int64		rows_in;
	int64		cached_rows;
	int64		rows_passed;
	int64		early_filtered;
	int64		batches;
	int64		bytes_in;
	int64		cpu_calls;
	int64		join_matched[GPUOPS_AGG_MAX_DIMS];	/* a star join's rows */
	bool		fast_read;		/* it read page batches */
	bool		slot_read;		/* it read through slots */
	/* its spilling, for EXPLAIN ANALYZE */
	int64		spill_runs;
	int64		spill_bytes;
	int64		spill_passes;
	bool		last;			/* no more groups follow */
} GpuopsParallelHeader;

/* A piece of a worker's groups as the backend reads it. */
typedef struct GpuopsParallelPiece
{
	GpuopsParallelHeader h;
	uint64	   *codes[GPUOPS_AGG_MAX_KEYS];
	uint8	   *valid[GPUOPS_AGG_MAX_KEYS];
	char	   *strings[GPUOPS_AGG_MAX_KEYS];	/* the worker's own text
												 * codes: its strings
												 * message, else NULL */
	Size		strings_bytes[GPUOPS_AGG_MAX_KEYS];
	int64	   *rows;
	gpo_agg_out *vals;
} GpuopsParallelPiece;

/* Sends st's groups to the backend as one message or several. */
extern void gpuops_parallel_send_piece(struct shm_mq_handle *mqh,
									   GpuopsAggScanState *s,
									   const GpuopsAggState *st, Size most,
									   bool first, bool last);
/* Reads a piece from a message, in place or a copy in the current context. */
extern void gpuops_parallel_read_piece(void *data, Size bytes, bool in_place,
									   int nkeys, int nvals,
									   const gpo_type *val_types,
									   const bool *own,
									   GpuopsParallelPiece *p);

/* ---- agg_parallel_text.c: text keys with worker processes ---- */

/* True if key k of te holds this process's own dictionary codes. */
extern bool gpuops_agg_key_own_codes(const GpuopsAggScanState *s,
									 const GpuopsAggTableExec *te, int k);
/* The strings d gained since *sent, as one message of *bytes bytes. */
extern char *gpuops_parallel_strings_pack(const GpuopsTextDict *d,
										  int64 *sent, Size *bytes);
/* A strings message of a worker, and its codes map in the backend. */
typedef struct GpuopsStringsMsg
{
	const char *msg;			/* the message */
	Size		bytes;			/* its size */
	MemoryContext cxt;			/* the map's memory */
	int32	  **map;			/* the worker's codes -> the backend's */
	int64	   *nmap;			/* entries of *map */
} GpuopsStringsMsg;

/* Codes several strings messages' strings in d in one call, each appending to its map. */
extern int64 gpuops_parallel_strings_map(GpuopsTextDict *d, int nthreads,
										 int nmsgs, const GpuopsStringsMsg *msgs);
/* Turns n groups' key codes of a worker's codes into the backend's. */
extern void gpuops_parallel_codes_map(const int32 *map, int64 nmap,
									  uint64 *codes, const uint8 *valid,
									  int64 n);
/* Sorts a piece of n groups by key again (after recoding). */
extern void gpuops_parallel_sort_piece(int nkeys, int nvals,
									   const gpo_type *val_types,
									   int nthreads, int64 n,
									   uint64 **codes, uint8 **valid,
									   int64 *rows, gpo_agg_out *vals);

#endif							/* GPUOPS_AGG_PARALLEL_H */
