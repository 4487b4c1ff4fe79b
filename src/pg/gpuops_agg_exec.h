/*
 * gpuops_agg_exec.h
 *	  Executor state of the GpuOpsAgg custom scan, shared by agg_exec.c (the
 *	  node's life cycle), agg_batch.c (the engine work of one batch) and
 *	  agg_explain.c (EXPLAIN).
 */
#ifndef GPUOPS_AGG_EXEC_H
#define GPUOPS_AGG_EXEC_H

#include "gpuops_agg.h"
#include "gpuops_scan.h"

#include "commands/explain.h"

/* How the node reads one of its tables. */
typedef struct GpuopsAggTableExec
{
	GpuopsAggTable *tab;
	Relation	rel;
	bool		opened;			/* opened here (partitions), to be closed */
	int			ncols;			/* columns the reader extracts */
	GpuopsScanCol *cols;
	int			key_col[GPUOPS_AGG_MAX_KEYS];	/* reader column of each key */
	int		   *val_col;		/* reader column of each value column */
	gpo_pred   *prog;			/* device clauses, postfix */
	int			nprog;
	gpo_pred  **fprog;			/* [nfilters]: FILTER clauses, postfix */
	int		   *fnprog;
	ExprState  *cpu_qual;
	GpuopsScanReader *reader;
} GpuopsAggTableExec;

/* The node's executor state. */
typedef struct GpuopsAggScanState
{
	CustomScanState css;
	GpuopsAggSpec spec;
	GpuopsAggTableExec *tables; /* [spec.ntables] */
	ExprContext *qual_cxt;
	MemoryContext batch_cxt;	/* reset after each batch */
	GpuopsAggState groups;
	bool		aggregated;		/* every batch merged */
	int64		next_group;
	/* EXPLAIN ANALYZE */
	int64		rows_in;
	int64		rows_passed;
	int64		batches;
	int64		bytes_in;
	int64		gpu_calls;
	int64		cpu_calls;
	int64		strategy_batches[4];	/* by gpo_agg_strategy */
	double		engine_ms;
	double		read_ms;
	double		pin_ms;			/* of read_ms: the backend alone, page by page */
	bool		fast_read;		/* some table was read in page batches */
	bool		slot_read;		/* some table was read through slots */
} GpuopsAggScanState;

/* ---- agg_batch.c ---- */

/* A one-chunk vector over n values at data, validity optional. */
extern void gpuops_agg_vec(gpo_vector *v, gpo_chunk *c, gpo_type type,
						   void *data, uint8 *validity, int64 n);
/*
 * Runs the device clauses over a batch of *n rows and either compacts it
 * (*n becomes the rows left) or, when most rows pass and the one key has no
 * NULL, marks the failing rows' keys NULL instead (*null_key_out set: the
 * NULL group is dropped); returns the rows that passed.
 */
extern int64 gpuops_agg_filter(GpuopsAggScanState *s, GpuopsAggTableExec *te,
							   gpo_vector *vecs, gpo_chunk *chunks, int64 *n,
							   bool *null_key_out);
/*
 * Aggregates one batch of n rows (vecs: one per reader column) and merges
 * it; null_key_out: the NULL-key group holds rows the WHERE removed.
 */
extern void gpuops_agg_batch(GpuopsAggScanState *s, GpuopsAggTableExec *te,
							 gpo_vector *vecs, int64 n, bool null_key_out);

/* ---- agg_explain.c ---- */

/* ExplainCustomScan of the node. */
extern void gpuops_agg_explain(CustomScanState *node, List *ancestors,
							   ExplainState *es);

#endif							/* GPUOPS_AGG_EXEC_H */
