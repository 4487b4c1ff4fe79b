/*
 * gpo_agg.h
 *	  The gpuops engine's aggregation primitives: stable radix sort of
 *	  key/row pairs, segment offsets, segmented reduction and GROUP BY
 *	  aggregation with three strategies (dense, hash, sort).
 *
 * Plain C11 (usable from C++ and nvcc); never includes postgres.h.  Same
 * conventions as gpo.h: every primitive has a dispatcher gpo_X that checks
 * its arguments, answers the two-phase scratch query (scratch == NULL: store
 * the host scratch bytes in *scratch_bytes and return GPO_OK) and runs
 * gpo_X_cpu (OpenMP) or gpo_X_gpu (CUDA).  AUTO falls back to the CPU face
 * when the GPU face fails with a device error.
 *
 * Key order is PostgreSQL's: integers by value; floats -Inf < ... < -0.0 ==
 * 0.0 < ... < Inf < NaN, every NaN equal to every NaN; NULL keys last.
 * Float keys are canonicalized (-0.0 -> +0.0, any NaN -> the quiet NaN
 * 0x7ff8... / 0x7fc00000) before they are ordered, grouped or returned.
 */
#ifndef GPO_AGG_H
#define GPO_AGG_H

#include "gpo.h"

#ifdef __cplusplus
extern "C"
{
#endif

/*
 * An exact signed 128-bit integer: hi * 2^64 + lo (two's complement over
 * both words).  Integer sums are accumulated and returned in this form.
 */
typedef struct gpo_int128
{
	uint64_t	lo;
	int64_t		hi;
} gpo_int128;

/* How gpo_groupagg forms its groups. */
typedef enum gpo_agg_strategy
{
	GPO_AGG_AUTO = 0,			/* let the chooser decide */
	GPO_AGG_DENSE,				/* one slot per key value of [min, max] */
	GPO_AGG_HASH,				/* open-addressing hash table */
	GPO_AGG_SORT				/* sort -> run boundaries -> segmented reduce */
} gpo_agg_strategy;

/* Dense is possible for integer keys whose max - min + 1 is at most this. */
#define GPO_AGG_DENSE_MAX_RANGE		(INT64_C(1) << 22)
/*
 * The chooser prefers hash up to this many (estimated) groups, then sort.
 * Measured (bench/RESULTS.md): hash beats sort at 1e3 groups on both faces
 * and loses at 1e6 on both; the crossover lies in between.
 */
#define GPO_AGG_HASH_MAX_GROUPS		(INT64_C(1) << 16)

/*
 * Per-group (per-segment) results, as caller-owned arrays of capacity
 * entries each.  Any array may be NULL (not wanted).  Entry g describes
 * group g:
 *   keys       group key (key type; gpo_groupagg only), canonical for
 *              floats; 0 for the NULL-key group
 *   key_valid  1 for a key, 0 for the NULL-key group (gpo_groupagg only)
 *   rows       rows in the group: count(*)
 *   count      non-NULL values: count(x)
 *   isum       exact sum of integer values; 0 for float values
 *   fsum       float64 sum of the FINITE float values only (it may overflow
 *              to an infinity, or to NaN when partial sums overflow both
 *              ways); for integer values the exact sum rounded once to
 *              float64
 *   fflags     the non-finite float values seen: GPO_FF_PINF, GPO_FF_NINF,
 *              GPO_FF_NAN (OR-combinable); 0 for integer values
 *   m2         float values: the sum of squared deviations from the mean,
 *              computed stably (float8_accum's Youngs-Cramer update and
 *              Chan's combination on the CPU face, two passes on
 *              the GPU face), 0 for one value, NaN when any value is not
 *              finite; 0 for integer values.  Only computed when asked for
 *              (m2 non-NULL): it costs a pass on the GPU face
 *   min, max   value type; PostgreSQL order for floats (a NaN value makes
 *              max NaN, and min NaN only when every value is NaN), with
 *              -0.0 ordered before 0.0 so that the result is deterministic
 * When count is 0 (no value, or no value vector) sum, min and max are NULL
 * in SQL terms; the arrays then hold 0.
 *
 * A float sum as PostgreSQL's float8pl would give it is then: an overflow
 * error when fsum is not finite, else fsum combined with fflags by IEEE
 * rules (+Inf with -Inf, or any NaN: NaN; +Inf: +Inf; -Inf: -Inf).
 */
typedef struct gpo_agg_out
{
	int64_t		capacity;
	void	   *keys;
	uint8_t    *key_valid;
	int64_t    *rows;
	int64_t    *count;
	gpo_int128 *isum;
	double	   *fsum;
	void	   *min;
	void	   *max;
	uint8_t    *fflags;
	double	   *m2;
} gpo_agg_out;

/* The non-finite float values a group holds (gpo_agg_out.fflags). */
#define GPO_FF_PINF		0x01
#define GPO_FF_NINF		0x02
#define GPO_FF_NAN		0x04

/* ---- order codes (agg_common.c) ----
 *
 * The order-preserving bit transforms every face uses.  A key code orders
 * keys as PostgreSQL does (floats canonicalized first), in the low 32 bits
 * for 4-byte types; a value code orders min/max values (NaN canonical,
 * -0.0 below 0.0).  *p points at one value of type.
 */
extern uint64_t gpo_key_code(gpo_type type, const void *p);
extern uint64_t gpo_value_code(gpo_type type, const void *p);
/* Writes the value (key type) whose key or value code is code into *p. */
extern void gpo_code_decode(gpo_type type, uint64_t code, void *p);

/*
 * The m2 of two sets of float values together (Chan's formula), from each
 * set's m2, sum and count (the sets' means are sum / count); a set of count
 * 0 adds nothing.
 */
extern double gpo_m2_merged(double m2_a, double sum_a, int64_t n_a,
							double m2_b, double sum_b, int64_t n_b);

/* ---- stable radix sort of key/row pairs (sort.c) ----
 *
 * Orders the rows of keys (INT32, UINT32, INT64, FLOAT32, FLOAT64) by key,
 * stably: equal keys keep their row order; NULL keys come last, in row
 * order.  Only the key bits that vary are sorted.  Outputs (each may be
 * NULL, capacity must cover keys' rows, spare capacity untouched):
 *   keys_out (keys' type): the sorted keys, floats canonicalized; where a
 *            chunk has a validity bitmap the NULL tail is marked invalid
 *            (its data is 0);
 *   rows_out (INT64): the 0-based logical row of each sorted key.
 * The GPU face handles up to 2^31 - 1 rows (AUTO takes the CPU above).
 */
extern gpo_status gpo_sort_pairs(gpo_ctx *ctx, const gpo_vector *keys,
								 gpo_vector *keys_out, gpo_vector *rows_out,
								 void *scratch, size_t *scratch_bytes);
extern gpo_status gpo_sort_pairs_cpu(gpo_ctx *ctx, const gpo_vector *keys,
									 gpo_vector *keys_out,
									 gpo_vector *rows_out, void *scratch);
extern gpo_status gpo_sort_pairs_gpu(gpo_ctx *ctx, const gpo_vector *keys,
									 gpo_vector *keys_out,
									 gpo_vector *rows_out);

/* ---- the order of groups by several keys (sort_groups.c) ----
 *
 * perm[i] = the group in place i when n groups are ordered by their nkeys
 * keys (codes[k][g]: gpo_key_code codes, compared unsigned; valid[k][g]: 0
 * is NULL, valid[k] or valid may be NULL: every key valid), stably, with
 * NULL after every value of its key: the order of the running groups.
 * CPU, with ctx's threads (ctx may be NULL: all).  GPO_ERR_INVALID,
 * GPO_ERR_NOMEM.
 */
extern gpo_status gpo_sort_groups(gpo_ctx *ctx, int nkeys,
								  const uint64_t *const *codes,
								  const uint8_t *const *valid, int64_t n,
								  int64_t *perm);

/* ---- segment offsets (segreduce.c) ----
 *
 * offsets[s] = lengths[0] + ... + lengths[s - 1] for s = 0 .. n, so
 * offsets holds n + 1 entries (the last is the total), and *total gets the
 * total.  lengths and offsets are INT64; a negative length or a NULL
 * length is GPO_ERR_INVALID; a total beyond INT64_MAX is GPO_ERR_OVERFLOW.
 * Built on gpo_scan; its scratch is gpo_scan's.
 */
extern gpo_status gpo_segment_offsets(gpo_ctx *ctx, const gpo_vector *lengths,
									  gpo_vector *offsets, int64_t *total,
									  void *scratch, size_t *scratch_bytes);

/* ---- segmented reduction (segreduce.c) ----
 *
 * Segment s is rows [offsets[s], offsets[s + 1]) of values; offsets (INT64)
 * holds nsegs + 1 nondecreasing entries from 0 to values' rows.  Fills
 * out's rows, count, isum, fsum, min and max (keys and key_valid are not
 * used) for every segment, empty ones included.  values (INT32, INT64,
 * FLOAT32, FLOAT64, with NULLs) may be NULL: then only rows is meaningful
 * and offsets must end at any total.  out->capacity < nsegs gives
 * GPO_ERR_CAPACITY.  Row-parallel on both faces: a few huge segments run as
 * fast as many small ones.
 */
extern gpo_status gpo_segreduce(gpo_ctx *ctx, const gpo_vector *values,
								const gpo_vector *offsets, int64_t nsegs,
								gpo_agg_out *out, void *scratch,
								size_t *scratch_bytes);
extern gpo_status gpo_segreduce_cpu(gpo_ctx *ctx, const gpo_vector *values,
									const gpo_vector *offsets, int64_t nsegs,
									gpo_agg_out *out, void *scratch);
extern gpo_status gpo_segreduce_gpu(gpo_ctx *ctx, const gpo_vector *values,
									const gpo_vector *offsets, int64_t nsegs,
									gpo_agg_out *out);

/* ---- group aggregation (groupagg.c) ----
 *
 * GROUP BY keys (INT32, UINT32, INT64, FLOAT32, FLOAT64) with aggregates of
 * values (as gpo_segreduce; NULL = count(*) only; same rows as keys, chunk
 * boundaries may differ).  One output entry per distinct key, ordered by
 * key; the NULL-key group (if any) is last.  *ngroups gets the number of
 * groups; if out->capacity is smaller, nothing is written but *ngroups,
 * and the call returns GPO_ERR_CAPACITY (retry with more room).
 *
 * *strategy says which strategy to use (GPO_AGG_AUTO: gpo_agg_choose on the
 * observed key range and est_groups, the planner's estimate of distinct
 * keys, <= 0 when unknown) and receives the one used.  Dense needs integer
 * keys with range at most GPO_AGG_DENSE_MAX_RANGE; forcing it otherwise is
 * GPO_ERR_INVALID.  Every strategy and face gives identical results except
 * fsum, whose rounding depends on the summation order.
 *
 * The working memory depends on the data (the groups found), so both faces
 * allocate it themselves: the scratch query answers 0 bytes, and scratch
 * may be any non-NULL pointer.
 */
extern gpo_status gpo_groupagg(gpo_ctx *ctx, const gpo_vector *keys,
							   const gpo_vector *values, int64_t est_groups,
							   gpo_agg_strategy *strategy, gpo_agg_out *out,
							   int64_t *ngroups, void *scratch,
							   size_t *scratch_bytes);
/*
 * GROUP BY with several aggregate requests (as cuDF's groupby takes them):
 * the keys are checked, counted, grouped (and on the GPU face uploaded)
 * once, and each request's value column is aggregated over the same groups
 * into its own output.  Request r has values (NULL: rows only; same rows as
 * keys, any chunking) and aggs, the GPO_AGG_WANT_* it needs; outs[r] (nreqs
 * entries, or one when nreqs is 0: then the rows alone) receives its
 * results as gpo_groupagg writes them (count, isum, fsum, fflags, min, max
 * and, with GPO_AGG_WANT_M2, m2, where its arrays are non-NULL), and the
 * keys, key_valid and rows arrays are filled in every output that has
 * them.  At most GPO_AGG_MAX_REQS requests.  Every output's capacity must
 * hold the groups (else
 * GPO_ERR_CAPACITY with *ngroups set).  Other arguments as gpo_groupagg,
 * which is this call with one request whose aggs are the arrays of out
 * that are non-NULL.
 */
#define GPO_AGG_WANT_COUNT	0x01u
#define GPO_AGG_WANT_SUM	0x02u
#define GPO_AGG_WANT_MIN	0x04u
#define GPO_AGG_WANT_MAX	0x08u
#define GPO_AGG_WANT_M2		0x10u

/* Most requests one call takes. */
#define GPO_AGG_MAX_REQS	64

typedef struct gpo_agg_req
{
	const gpo_vector *values;	/* NULL: no value column */
	unsigned	aggs;			/* GPO_AGG_WANT_* */
} gpo_agg_req;

extern gpo_status gpo_groupagg_many(gpo_ctx *ctx, const gpo_vector *keys,
									int nreqs, const gpo_agg_req *reqs,
									int64_t est_groups,
									gpo_agg_strategy *strategy,
									gpo_agg_out *outs, int64_t *ngroups,
									void *scratch, size_t *scratch_bytes);
extern gpo_status gpo_groupagg_many_cpu(gpo_ctx *ctx, const gpo_vector *keys,
										int nreqs, const gpo_agg_req *reqs,
										int64_t est_groups,
										gpo_agg_strategy *strategy,
										gpo_agg_out *outs, int64_t *ngroups);
extern gpo_status gpo_groupagg_many_gpu(gpo_ctx *ctx, const gpo_vector *keys,
										int nreqs, const gpo_agg_req *reqs,
										int64_t est_groups,
										gpo_agg_strategy *strategy,
										gpo_agg_out *outs, int64_t *ngroups);
/* The request gpo_groupagg makes of values and out (see gpo_groupagg_many). */
extern gpo_agg_req gpo_agg_req_of_out(const gpo_vector *values,
									  const gpo_agg_out *out);

/*
 * The chooser: the strategy for nvalid non-NULL keys of key_type whose key
 * codes span [min_code, max_code], given est_groups (<= 0 unknown).
 */
extern gpo_agg_strategy gpo_agg_choose(gpo_type key_type, int64_t nvalid,
									   uint64_t min_code, uint64_t max_code,
									   int64_t est_groups);
/*
 * want, except that dense becomes GPO_AGG_AUTO where it cannot apply:
 * keys that are not integers, or whose non-NULL codes span more than
 * GPO_AGG_DENSE_MAX_RANGE (one pass over the keys under ctx's threads).
 * For callers whose users ask for a strategy as a preference.
 */
extern gpo_agg_strategy gpo_agg_strategy_fit(const gpo_ctx *ctx,
											 const gpo_vector *keys,
											 gpo_agg_strategy want);
/* Name of a strategy, for EXPLAIN and messages. */
extern const char *gpo_agg_strategy_name(gpo_agg_strategy s);

/*
 * Running dense group aggregation: the groups of a sequence of batches kept
 * where the face computes them (the GPU face: in device memory, so that a
 * batch only uploads its rows and the groups come back once; the CPU face:
 * host slots), for callers that would otherwise merge every batch's groups.
 *
 * gpo_groupagg_run_add adds the rows of keys with values (NULL: rows only)
 * to *run.  With *run NULL it starts a run over the batch's key codes
 * [min, max] and the NULL key, when dense is the strategy: want is
 * GPO_AGG_DENSE, or GPO_AGG_AUTO and gpo_agg_choose picks dense for the
 * batch and est_groups; the keys must be integers whose codes span at most
 * GPO_AGG_DENSE_MAX_RANGE, and the batch must hold a non-NULL key.  The run
 * takes the face gpo_pick_face gives that batch (no fallback afterwards),
 * its key type, its value type and the fields of want_out (the arrays that
 * are non-NULL; later outputs may ask for no more).  *added says whether the
 * rows went in: false (GPO_OK, nothing changed) when no run could start, or
 * the batch has keys outside the run's range; the caller then aggregates the
 * batch another way, or finishes the run and starts another.  After an
 * error the run may only be freed.
 *
 * gpo_groupagg_run_finish writes the run's groups into out as gpo_groupagg
 * over all its rows would (key order, the NULL-key group last; float sums
 * within rounding); GPO_ERR_CAPACITY with *ngroups set when out is too
 * small (the run stays: call again).  gpo_groupagg_run_free frees a run
 * (NULL is fine); it never fails.
 */
typedef struct gpo_agg_run gpo_agg_run;

extern gpo_status gpo_groupagg_run_add(gpo_ctx *ctx, gpo_agg_run **run,
									   const gpo_vector *keys,
									   const gpo_vector *values,
									   int64_t est_groups,
									   gpo_agg_strategy want,
									   const gpo_agg_out *want_out,
									   bool *added);
/*
 * gpo_groupagg_run_add of one batch's keys into nruns runs at once, run r
 * taking values[r] (NULL: rows only) and want_outs[r]: the runs are all
 * new (*runs NULL; all start, or none) or all started by earlier calls of
 * this function, so that they take a batch or decline it together (*added).
 * The key statistics are taken once, and the CPU face adds every run's
 * rows in one pass over the batch where the runs' slots are few; each run
 * ends as gpo_groupagg_run_add would leave it.
 */
extern gpo_status gpo_groupagg_run_add_many(gpo_ctx *ctx, gpo_agg_run **runs,
											int nruns,
											const gpo_vector *keys,
											const gpo_vector *const *values,
											int64_t est_groups,
											gpo_agg_strategy want,
											const gpo_agg_out *want_outs,
											bool *added);
extern gpo_status gpo_groupagg_run_finish(gpo_ctx *ctx, gpo_agg_run *run,
										  gpo_agg_out *out, int64_t *ngroups);
extern void gpo_groupagg_run_free(gpo_agg_run *run);
/* The face a run computes on. */
extern gpo_device gpo_groupagg_run_face(const gpo_agg_run *run);

#ifdef __cplusplus
}
#endif

#endif							/* GPO_AGG_H */
