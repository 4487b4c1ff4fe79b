/*
 * gpuops_agg_exec.h
 *	  Executor state of the GpuOpsAgg custom scan, shared by agg_exec.c (the
 *	  node's life cycle), agg_table.c (reading one table), agg_parallel.c
 *	  (worker processes), agg_batch.c (the engine work of one batch), the
 *	  grouping policies (agg_policy.h), agg_job.c (a batch's group
 *	  aggregation on a helper thread) and agg_explain.c (EXPLAIN).
 */
#ifndef GPUOPS_AGG_EXEC_H
#define GPUOPS_AGG_EXEC_H

#include <pthread.h>

#include "aggnode/gpuops_agg.h"
#include "heapscan/gpuops_scan.h"
#include "service/gpuops_service.h"
#include "gpo_join.h"
#include "gpo_keypack.h"

#include "commands/explain.h"

/* A column a batch computes from the reader's (agg_eval.c). */
typedef struct GpuopsAggComputed
{
	GpuopsExprProgram prog;
	Expr	   *expr;			/* what it computes */
	int			filter;			/* the FILTER clause whose rows alone are
								 * evaluated, or -1 */
} GpuopsAggComputed;

/* How the node reads one of its tables. */
typedef struct GpuopsAggTableExec
{
	GpuopsAggTable *tab;
	Relation	rel;
	bool		opened;			/* opened here (partitions), to be closed */
	int			ncols;			/* batch columns: the reader's, then a star
								 * join's virtual ones */
	int			nread;			/* of them, those the reader extracts */
	GpuopsScanCol *cols;
	int			key_col[GPUOPS_AGG_MAX_KEYS];	/* batch column of each key */
	int		   *val_col;		/* batch column of each value column */
	int			ncomputed;		/* batch columns ncols ... computed here */
	GpuopsAggComputed *computed;	/* [nkeys + nvals] room */
	GpuopsExprProgram **fexpr;	/* [nfilters]: a FILTER clause the device
								 * evaluates as an expression, or NULL (its
								 * fprog) */
	uint8	  **fmasks;			/* [nfilters]: the batch's FILTER masks met
								 * so far (batch memory), or NULL */
	uint8	   *wmask;			/* the batch's WHERE byte mask where its
								 * failing rows were kept, given NULL keys
								 * (null_key_out), else NULL */
	gpo_pred   *prog;			/* device clauses, postfix */
	int			nprog;
	gpo_pred   *eprog;			/* of them, those without a text column
								 * (the reader's prefilter), postfix */
	int			neprog;
	GpuopsExprProgram *wexpr;	/* [nwexpr]: device clauses that are bool
								 * expressions (no row can make them fail) */
	int			nwexpr;
	gpo_pred  **fprog;			/* [nfilters]: FILTER clauses, postfix */
	int		   *fnprog;
	ExprState  *cpu_qual;
	GpuopsScanReader *reader;
	struct GpuopsCacheSource *cache_src;	/* the column cache's source of
											 * the reader, or NULL */
	int			nlen;			/* length columns (agg_length.c): reader
								 * columns len_col0 ... of the lengths of
								 * columns len_attnos[] of len_kinds[] */
	int			len_col0;
	AttrNumber *len_attnos;
	GpuopsTextLen *len_kinds;
	Const	  **len_patterns;	/* GPUOPS_LEN_LIKE: the pattern, else NULL */
	Oid		   *len_colls;		/* GPUOPS_LEN_LIKE: the clause's collation */
} GpuopsAggTableExec;

/*
 * One batch's group aggregation (agg_job.c): one gpo_groupagg_many call of
 * keys with every value column, run by a helper thread or by the backend.
 */
typedef struct GpuopsAggJob
{
	/* set before the start, untouched until the wait */
	const gpo_vector *keys;
	const gpo_vector *values;	/* [nvals], or NULL with nvals 0 */
	int			nvals;			/* 0: rows only, one call */
	int64		est_groups;
	gpo_agg_strategy strategy;	/* requested */
	gpo_agg_out *outs;			/* [max(nvals, 1)], cap groups each */
	/* results, once waited for */
	gpo_status	st;				/* of the last call made */
	int			calls;			/* calls made (the last one failed if st
								 * is not GPO_OK) */
	gpo_ctx    *ctx;			/* [max(nvals, 1)] each call's context */
	gpo_agg_strategy *used;		/* [max(nvals, 1)] each call's strategy */
	int64	   *ngroups;		/* [max(nvals, 1)] each call's groups */
	/* the helper thread */
	bool		running;
	pthread_t	thread;
	MemoryContextCallback cleanup;
	/* or the GPU service */
	bool		served;			/* the job goes to the service */
	gpo_device	want;			/* the device the query asked for */
	GpuopsServiceCall *call;	/* submitted, not yet waited for */
	bool		fell_back;		/* the service couldn't: ran on this CPU */
	double		service_ms;		/* the engine call's time in the service */
	double		service_copy_ms;	/* the batch into the arena, groups out */
} GpuopsAggJob;

/*
 * A batch's keys, one per row (the column itself, or packed for several),
 * and its value columns, as the keyed grouping policies take them.  Lives
 * in the batch's memory context.
 */
typedef struct GpuopsAggBatchKeys
{
	gpo_vector	keyv;
	gpo_keypack *pack;			/* several keys: their packing (malloc'd) */
	bool		pack_kept;		/* a policy keeps pack: the batch won't free it */
	gpo_vector *valvecs;		/* [nvals] */
	int64		n;
	bool		null_key_out;	/* drop the NULL-key group */
	MemoryContextCallback free_pack;
} GpuopsAggBatchKeys;

/* One dimension of a star join (agg_join.c). */
typedef struct GpuopsAggDim
{
	PlanState  *ps;				/* its child plan */
	int			key_resno;		/* its join column in the plan's output */
	AttrNumber	fk_attno;		/* the fact table's join column */
	gpo_join_kind kind;			/* inner, semi, anti or left */
	int			fk_col;			/* that column in the batches */
	/* a composite key's second column (32-bit types: packed into int64) */
	int			key_resno2;		/* 0 without one */
	AttrNumber	fk_attno2;
	int			fk_col2;
	/* its table, built once per scan in the join's memory */
	int64	   *keys;			/* the rows' join keys */
	int64		cap;			/* rows of room */
	int64		nrows;			/* rows with a key */
	gpo_vector	keyv;			/* the keys in the fact's join column type */
	gpo_chunk	keyc;
	gpo_join_table table;		/* built from them once (a worker: its own) */
	/* EXPLAIN ANALYZE */
	int64		build_rows;		/* rows its plan gave */
	int64		probed;			/* fact rows that looked for a match */
	int64		matched;		/* rows the join gave (batches) */
	bool		mapped;			/* the cached ranges were joined in place */
	int64		map_keys;		/* then: the keys its row map spanned */
} GpuopsAggDim;

/* A virtual column: a dimension's column gathered into the fact's batches. */
typedef struct GpuopsAggGather
{
	int			dim;			/* its dimension */
	int			resno;			/* its position in the child plan's output */
	Oid			typid;
	int32		typmod;
	Oid			collid;
	int			col;			/* its batch column (te->nread + its index) */
	gpo_type	type;
	GpuopsDecodeCol dc;			/* how a value becomes a batch value, and
								 * the dimension's rows' values (data,
								 * validity) */
	bool		unfit;			/* a value the batch type can't hold */
	gpo_vector	v;				/* the same as a vector */
	gpo_chunk	c;
} GpuopsAggGather;

/* A star join's executor state (agg_join.c). */
typedef struct GpuopsAggJoin
{
	int			fact_natts;		/* virtual columns are numbered after */
	int			ndims;
	GpuopsAggDim *dims;
	int			ngather;
	GpuopsAggGather *gathers;
	bool		built;			/* the dimensions' tables are built */
	MemoryContext cxt;			/* their memory */
	double		build_ms;
	double		probe_ms;
} GpuopsAggJoin;

struct GpuopsAggPolicy;

/* The node's executor state. */
typedef struct GpuopsAggScanState
{
	CustomScanState css;
	GpuopsAggSpec spec;
	GpuopsAggTableExec *tables; /* [spec.ntables] */
	GpuopsAggJoin *join;		/* a star join's, or NULL */
	ExprContext *qual_cxt;
	MemoryContext batch_cxt;	/* reset after each batch's merge */
	MemoryContext out_cxt;		/* one group's result values, reset at the
								 * next */
	struct GpuopsAggPolicy *policy; /* how batches become groups (agg_policy.h) */
	bool		overlap;		/* this table's batches may go to a helper
								 * thread (the reader double-buffers) */
	GpuopsAggState groups;
	bool		aggregated;		/* every batch merged */
	bool		rescanned;		/* read again: without workers */
	int			threads_cap;	/* the engine's OpenMP threads while workers
								 * read too; 0: gpuops.threads */
	int			workers_launched;	/* worker processes that read */
	int			workers_allowed;	/* of spec.parallel_workers, what the
									 * core budget leaves */
	int			threads_got;	/* engine threads of the last read, its
								 * workers' included (the budget's share) */
	struct GpuopsBudgetLease *lease;	/* that share while the read runs
										 * (kept for a rescan's) */
	int64		next_group;
	int64		dict_sent[GPUOPS_AGG_MAX_KEYS];	/* a worker: the strings of
												 * each text key sent */
	GpuopsAggState *piece;		/* spilled: the groups coming out */
	int64		piece_next;		/* its next group */
	struct GpuopsAggFold *fold; /* count(DISTINCT): the groups' folding */
	List	   *splits;			/* sums split by scale: PRIV_SPLITS */
	List	   *derived;		/* ExprStates of the keys other keys
								 * determine (PRIV_DERIVED), per group */
	int			nmapped;		/* functions of one text column as keys */
	struct GpuopsMappedKey *mapped; /* [nmapped] (agg_mapped.c) */
	bool		bounded;		/* only the groups of a top-N by a count
								 * come out (agg_bound.c) */
	bool		bound_desc;		/* the largest counts first */
	int			bound_agg;		/* the count's aggregate */
	int64		bound_count;	/* the N-th best count */
	int64		bound_skipped;	/* groups not emitted (EXPLAIN ANALYZE) */
	/* EXPLAIN ANALYZE */
	int64		rows_in;
	int64		rows_passed;
	int64		early_filtered; /* of rows_in, dropped before decoding in
								 * full (the reader's prefilter) */
	int64		batches;
	int64		bytes_in;
	int64		gpu_calls;
	int64		cpu_calls;
	int64		service_calls;	/* batches the GPU service aggregated */
	int64		service_fallbacks;	/* batches it could not take (CPU here) */
	double		service_ms;		/* its engine time over them */
	double		service_copy_ms;	/* copies into and out of its arena */
	int64		strategy_batches[4];	/* by gpo_agg_strategy */
	double		engine_ms;
	double		merge_ms;		/* of engine_ms: batches' groups into the running ones */
	double		read_ms;
	double		pin_ms;			/* of read_ms: the backend alone, page by page */
	int64		kept_ranges;	/* ranges the GPU service aggregated from
								 * its device copy (agg_kept.c) */
	int64		kept_rows;		/* their rows */
	int64		direct_ranges;	/* host cache ranges aggregated in place */
	double		kept_ms;		/* those calls, the request waited for */
	double		kept_device_ms; /* its engine call in the service */
	char		kept_why[128];	/* why kept ranges were not used, if so */
	int64		cached_rows;	/* rows the column cache served (worker
								 * processes' included) */
	bool		fast_read;		/* some table was read in page batches */
	bool		slot_read;		/* some table was read through slots */
} GpuopsAggScanState;

/*
 * True when the GPU face may take the node's batches: gpuops.device isn't
 * cpu, the query did not go without a GPU seat, and a GPU answers (the GPU
 * service's, where the server runs it, else this backend's own).
 */
static inline bool
gpuops_agg_gpu_possible(void)
{
	return gpuops_device_now() != GPO_DEVICE_CPU && gpuops_gpu_usable();
}

/*
 * True when batches' group aggregation goes to the GPU service: then
 * everything else the node runs is on this backend's CPU face, and the
 * backend never starts CUDA.
 */
static inline bool
gpuops_agg_served(void)
{
	return gpuops_service_configured() && gpuops_agg_gpu_possible();
}

/*
 * A context for the engine's calls on s's batches in this backend
 * (gpuops_ctx_init, with s's thread cap; the CPU face when the GPU's work
 * goes to the service).
 */
static inline void
gpuops_agg_ctx_init(const GpuopsAggScanState *s, gpo_ctx *ctx)
{
	gpuops_ctx_init(ctx);
	if (s->threads_cap > 0)
		ctx->threads = s->threads_cap;
	if (gpuops_agg_served())
		ctx->device = GPO_DEVICE_CPU;
}

/* ---- agg_bound.c: top-N bounds ---- */

/* Sets up the bound of the plan, if any, once every group is in memory. */
extern void gpuops_agg_bound_set(GpuopsAggScanState *s, CustomScan *cscan);
/* True if group g of st may be among the first N of the bound. */
extern bool gpuops_agg_bound_keeps(const GpuopsAggScanState *s,
								   const GpuopsAggState *st, int64 g);

/* ---- agg_mapped.c ---- */

/* A mapped key: a function of one text column (plan/agg_mapped.c). */
typedef struct GpuopsMappedKey
{
	int			key;			/* its position among the keys */
	ExprState  *expr;			/* the key over INDEX_VAR attribute 1 */
	TupleTableSlot *slot;		/* attribute 1: the column's value */
	GpuopsTextDict *source;		/* the dictionary the column is coded in */
	GpuopsTextDict *result;		/* the key's values, once grouped again */
	int32	   *map;			/* source code -> result code, while grouping */
	int64		nmap;
	int32		map_null;		/* the result code of a NULL column value */
} GpuopsMappedKey;

/* Sets up the mapped keys of PRIV_MAPPED (after the keys' dictionaries). */
extern void gpuops_agg_mapped_begin(GpuopsAggScanState *s, CustomScan *cscan);
/* True if key k is a mapped key. */
extern bool gpuops_agg_key_mapped(const GpuopsAggScanState *s, int k);
/* Groups the engine's groups again by the mapped keys' values. */
extern void gpuops_agg_mapped_regroup(GpuopsAggScanState *s);
/* Puts the mapped keys' column dictionaries back for a rescan. */
extern void gpuops_agg_mapped_rescan(GpuopsAggScanState *s);

/* ---- agg_batch.c ---- */

/*
 * Aggregates te's table's ranges that the GPU service keeps on its device
 * and makes the reader (and worker processes') pass over them
 * (agg_kept.c); *rest: the blocks left to read (0: none).  False when
 * nothing was done.
 */
extern bool gpuops_agg_kept_run(GpuopsAggScanState *s, GpuopsAggTableExec *te,
								int64 *rest);

struct GpuopsCacheKept;

/* The star join's gathered column of batch column c of te, or -1. */
extern int	gpuops_agg_kept_star_col(GpuopsAggScanState *s,
									 GpuopsAggTableExec *te, int c);
/* Whether te's star join has a shape the engine joins over kept ranges. */
extern bool gpuops_agg_kept_star_shape(GpuopsAggScanState *s,
									   GpuopsAggTableExec *te);
/*
 * The built star join of s as the engine's dimensions over kept's columns
 * into *star (in the current context); false where a dimension has no row
 * map.
 */
extern bool gpuops_agg_kept_star_build(GpuopsAggScanState *s,
									   GpuopsAggTableExec *te,
									   const struct GpuopsCacheKept *kept,
									   GpuopsServiceStar *star);

/*
 * Converts ngroups groups in outs (keys of type ktype, packed by pack when
 * there are several) into the running state's key codes and merges them
 * into s->groups; with null_key_out the NULL-key group (last) is dropped.
 */
extern void gpuops_agg_merge_outs(GpuopsAggScanState *s, int64 ngroups,
								  gpo_type ktype, const gpo_keypack *pack,
								  gpo_agg_out *outs, bool null_key_out);
/*
 * gpuops_agg_merge_outs of outs whose arrays are in s->groups.cxt (owned):
 * a running state without groups keeps them instead of a copy, else they
 * are freed.
 */
extern void gpuops_agg_merge_outs_owned(GpuopsAggScanState *s, int64 ngroups,
										gpo_type ktype,
										const gpo_keypack *pack,
										gpo_agg_out *outs, bool null_key_out,
										bool owned);
/*
 * Frees an output's arrays (gpuops_agg_out_alloc's) but the rows and the
 * value arrays where a running state took them.
 */
extern void gpuops_agg_out_free(gpo_agg_out *o, bool rows_taken,
								bool vals_taken);
/* A new vector of in's values at the n rows of index (gpo_gather). */
extern gpo_vector gpuops_agg_gather(GpuopsAggScanState *s, const gpo_vector *in,
									const gpo_vector *index, int64 n);
/* Result arrays with room for capacity groups (m2: the m2 array too). */
extern void gpuops_agg_out_alloc(gpo_agg_out *out, int64 capacity,
								 gpo_type ktype, gpo_type vtype,
								 bool with_keys, bool m2);
/*
 * The value columns of a batch of n rows, with each aggregate's FILTER
 * clause as validity.
 */
extern gpo_vector *gpuops_agg_value_vectors(GpuopsAggScanState *s,
											GpuopsAggTableExec *te,
											gpo_vector *vecs, int64 n);
/* A batch's keys, one per row, and value columns (see GpuopsAggBatchKeys). */
extern GpuopsAggBatchKeys *gpuops_agg_batch_keys(GpuopsAggScanState *s,
												 GpuopsAggTableExec *te,
												 gpo_vector *vecs, int64 n,
												 bool null_key_out);

/* The type of batch column i of te (read or computed). */
static inline gpo_type
gpuops_agg_col_type(const GpuopsAggTableExec *te, int i)
{
	return i < te->ncols ? te->cols[i].type :
		te->computed[i - te->ncols].prog.out_type;
}

/* ---- agg_eval.c ---- */

/* Raises the PostgreSQL error a row's gpo_xerr stands for (none: returns). */
extern void gpuops_agg_expr_raise(gpo_xerr code);
/* Counts an engine call's face (for EXPLAIN ANALYZE) and raises its error, if any. */
extern void gpuops_agg_checked(GpuopsAggScanState *s, gpo_status st,
							   gpo_ctx *ctx, const char *op);

/*
 * The byte mask (one byte a row, 1 where it holds) of FILTER clause f over
 * the batch's n rows, evaluated once per batch.
 */
/* ANDs the WHERE clauses evaluated as expressions into mask; the rows left. */
extern int64 gpuops_agg_where_exprs(GpuopsAggScanState *s,
									GpuopsAggTableExec *te, gpo_vector *vecs,
									int64 n, uint8 *mask);
extern uint8 *gpuops_agg_filter_mask(GpuopsAggScanState *s,
									 GpuopsAggTableExec *te,
									 gpo_vector *vecs, int64 n, int f);
/*
 * The batch's n rows as the policies take them: the reader's columns, then
 * the computed ones; raises the error of the lowest row that has one.
 */
extern gpo_vector *gpuops_agg_batch_columns(GpuopsAggScanState *s,
											GpuopsAggTableExec *te,
											gpo_vector *vecs, int64 n);
/* Adds expr as a computed column of te; returns its batch column. */
extern int	gpuops_agg_add_computed(GpuopsAggTableExec *te, Expr *expr,
									int filter, const int *attno_col,
									int natts);

/* ---- agg_table.c: reading one table (the backend's and each worker's) ---- */

/*
 * Rows a thread of a read's team is worth: each OpenMP region wakes every
 * thread of the team, and on 2 cores a table of 16,000 rows took as long
 * with one thread as with two in a warm session and less in a new one
 * (62,500 rows took 0.9 ms with two, 1.3 ms with one).
 */
#define GPUOPS_AGG_THREAD_ROWS 32768.0

/* The rows rel holds now, as the planner estimates them (estimate_rel_size). */
extern double gpuops_agg_table_rows(Relation rel);
/* Threads worth waking for rows rows (INT_MAX where gpuops.threads or workers decide). */
extern int	gpuops_agg_threads_worth(GpuopsAggScanState *s, double rows);
/* Sets up the reading of one table: its columns, device program and CPU qual. */
extern void gpuops_agg_begin_table(GpuopsAggScanState *s, GpuopsAggTableExec *te,
								   EState *estate, int eflags);
/* The running groups' key and value types (those of the first table). */
extern void gpuops_agg_state_types(GpuopsAggScanState *s);
/* The node's grouping policy (agg_policy.h). */
extern void gpuops_agg_policy_create(GpuopsAggScanState *s);
/* Reads every batch of one table and aggregates it into the running groups. */
extern void gpuops_agg_run_table(GpuopsAggScanState *s, GpuopsAggTableExec *te);

/* ---- agg_prefilter.c: the clauses tested before a batch is decoded ---- */

/* Compiles te's prefilter program (te->eprog) from its device clauses preds. */
extern void gpuops_agg_early_program(GpuopsAggTableExec *te, GpuopsAggTable *tab,
									 List *preds, const int *attno_col, int natts,
									 const gpo_type *col_types, AttrNumber first_len);
/* Lets te's reader test rows with the prefilter before decoding them in full. */
extern void gpuops_agg_set_prefilter(GpuopsAggScanState *s, GpuopsAggTableExec *te);

/* ---- agg_length.c: the lengths of text columns, read as columns ---- */

/*
 * te->tab, or a copy of it whose length calls are Vars of length columns
 * numbered from first (te->nlen of them).
 */
extern GpuopsAggTable *gpuops_agg_length_map(GpuopsAggTableExec *te, int nkeys,
											 int nvals, int nfilters,
											 AttrNumber first);
/* True if reader column i of te is a length column. */
static inline bool
gpuops_agg_is_length_col(const GpuopsAggTableExec *te, int i)
{
	return te->nlen > 0 && i >= te->len_col0 && i - te->len_col0 < te->nlen;
}
/* Appends te's length columns to the reader's (after every other one). */
extern void gpuops_agg_add_length_cols(GpuopsAggTableExec *te);
/* True if clause reads one of te's length columns (numbered from first). */
extern bool gpuops_agg_reads_length(GpuopsAggTableExec *te, Node *clause,
									AttrNumber first);

/* ---- agg_join.c: a star join ---- */

/*
 * Decodes the plan's star join, if any, and (children) starts the
 * dimensions' plans.
 */
extern void gpuops_agg_join_begin(GpuopsAggScanState *s, CustomScan *cscan,
								  EState *estate, int eflags, bool children);
/* Appends te's virtual columns after the reader's. */
extern void gpuops_agg_join_add_cols(GpuopsAggScanState *s,
									 GpuopsAggTableExec *te);
/* Builds the dimensions' tables, once per scan. */
extern void gpuops_agg_join_build(GpuopsAggScanState *s, GpuopsAggTableExec *te);
/* Builds a dimension's join table from its keys (in the join's memory). */
extern void gpuops_agg_dim_table(GpuopsAggScanState *s, GpuopsAggDim *dim);
/* The type of a dimension's keys: the fact's join column's, or int64 packed. */
extern gpo_type gpuops_agg_dim_key_type(GpuopsAggTableExec *te, GpuopsAggDim *dim);
/* True if the join's first dimension drops rows by their key alone (not left). */
extern bool gpuops_agg_join_filters(GpuopsAggScanState *s);
/* ANDs into keep (m rows of vecs) whether each row's key passes the first dimension. */
extern void gpuops_agg_join_prefilter(GpuopsAggScanState *s, gpo_vector *vecs,
									  int64 m, uint8 *keep);
/* Joins a batch of n fact rows to the dimensions; returns the rows joined. */
extern int64 gpuops_agg_join_batch(GpuopsAggScanState *s,
								   GpuopsAggTableExec *te, gpo_vector *vecs,
								   int64 n);
/* Rescan: the dimensions' tables are built anew. */
extern void gpuops_agg_join_rescan(GpuopsAggScanState *s);
/* End: the dimensions' plans end. */
extern void gpuops_agg_join_end(GpuopsAggScanState *s);

/* ---- agg_join_shared.c: the built tables for worker processes ---- */

/* Bytes the built tables take in shared memory (0 without a join). */
extern Size gpuops_agg_join_shared_size(const GpuopsAggScanState *s);
/* Copies the built tables into dst, for the worker processes. */
extern void gpuops_agg_join_shared_write(GpuopsAggScanState *s, char *dst);
/* A worker's tables: those the backend built, at src. */
extern void gpuops_agg_join_shared_attach(GpuopsAggScanState *s,
										  GpuopsAggTableExec *te, char *src);

/* ---- agg_parallel.c ---- */

/*
 * Reads the one table with spec.parallel_workers worker processes beside
 * the backend and merges their groups; false (nothing done) when it can't.
 */
extern bool gpuops_agg_parallel_run(GpuopsAggScanState *s, GpuopsAggTableExec *te);
/* Each process's share of threads OpenMP threads among the backend and nworkers workers. */
extern int	gpuops_agg_parallel_threads(int threads, int nworkers);

/* ---- agg_parallel_text.c (the rest: agg_parallel.h) ---- */

/* Sorts a state's first n groups again and combines equal keys; the groups left. */
extern int64 gpuops_parallel_sort_fold(GpuopsAggState *p, int64 n, int nthreads);

/* ---- agg_batch.c ---- */

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
 * Whether a batch of n rows goes to a helper thread (gpuops.overlap, and
 * the face that will aggregate it).
 */
extern bool gpuops_agg_overlaps(int64 n);

/* ---- agg_job.c ---- */

/*
 * A job aggregating values (nvals columns, or rows only when 0) by keys into
 * outs; everything lies in the current memory context, whose reset ends it.
 */
extern GpuopsAggJob *gpuops_agg_job_create(const gpo_vector *keys,
										   const gpo_vector *values, int nvals,
										   int64 est_groups,
										   gpo_agg_strategy strategy,
										   const gpo_ctx *ctx_init,
										   gpo_agg_out *outs);
/* Starts the job on a helper thread (or runs it here if none can be had). */
extern void gpuops_agg_job_start(GpuopsAggJob *job);
/* Runs the job's engine calls here (no PostgreSQL call: any thread). */
extern void gpuops_agg_job_run(GpuopsAggJob *job);
/* Waits for the job's thread or its GPU service request, if any. */
extern void gpuops_agg_job_wait(GpuopsAggJob *job);
/* Whether a batch of n rows goes to the GPU service. */
extern bool gpuops_agg_to_service(int64 n);

/* ---- agg_output.c: the groups coming out ---- */

/* The engine's next group, spilled or not, in key order; false at the end. */
extern bool gpuops_agg_next_engine_group(GpuopsAggScanState *s,
										 const GpuopsAggState **st, int64 *g);
/* Aggregates without GROUP BY over no rows: the one row Agg gives. */
extern void gpuops_agg_empty_row(GpuopsAggScanState *s, TupleTableSlot *slot);
/* Fills the scan tuple's sums split by scale from their parts. */
extern void gpuops_agg_add_splits(GpuopsAggScanState *s, TupleTableSlot *slot);
/* Each derived key of the group in slot (a stored virtual tuple), after the split sums. */
extern void gpuops_agg_add_derived(GpuopsAggScanState *s, TupleTableSlot *slot);

/* ---- agg_distinct.c ---- */

/*
 * count(DISTINCT x): the next group of the query's keys into slot's values,
 * folded from the engine's groups of (keys, x); false when all are out.
 */
extern bool gpuops_agg_next_folded(GpuopsAggScanState *s, TupleTableSlot *slot);

/* ---- agg_explain.c ---- */

/* ExplainCustomScan of the node. */
extern void gpuops_agg_explain(CustomScanState *node, List *ancestors,
							   ExplainState *es);

#endif							/* GPUOPS_AGG_EXEC_H */
