/*
 * gpo_histjoin.cuh
 *	  Device-resident cores of the histogram, hash join and gather: they take
 *	  device pointers to contiguous columns, enqueue their work on a stream
 *	  and return the launch status, without host<->device copies or
 *	  synchronization.  The host faces (gpo_histogram_gpu, gpo_hash_join_gpu,
 *	  gpo_gather_gpu) are built on them; the benchmark times them.
 *
 * Conventions as gpo_kernels.cuh: n rows, 64-bit row numbers; a d_valid
 * argument is NULL (every row valid) or n bytes of 0 (NULL) / 1 (valid);
 * CUB's two-phase protocol for temporary memory (d_temp == NULL: only store
 * the bytes needed in *temp_bytes and return cudaSuccess).
 */
#ifndef GPO_HISTJOIN_CUH
#define GPO_HISTJOIN_CUH

#include <stdint.h>

#include <cuda_runtime.h>

#include "gpo_hist.h"
#include "gpo_join.h"

/*
 * Histogram of n values of type (INT32, INT64, FLOAT32, FLOAT64), as
 * gpo_histogram: a row counts when d_valid (if given) says valid, and, when
 * d_mask is given, d_mask[i] != 0 and d_mask_valid (if given) says valid.
 * d_counts: spec->bins + 2 counters, cleared here.  d_minmax: 2 int64 of
 * scratch that receive the order keys (gpo_hist_order_key) of the minimum
 * and maximum finite value when spec->auto_domain (min > max: no finite
 * value, all counts 0); unused otherwise.  Two passes for an automatic
 * domain (min/max reduction, then counting), one otherwise; bins live in
 * shared memory per block when spec->bins + 2 <= GPO_HIST_SHARED_BUCKETS.
 */
#define GPO_HIST_SHARED_BUCKETS 12288
extern cudaError_t gpo_cuda_histogram(gpo_type type, const void *d_values,
									  const uint8_t *d_valid,
									  const uint8_t *d_mask,
									  const uint8_t *d_mask_valid, int64_t n,
									  const gpo_hist_spec *spec,
									  int64_t *d_minmax,
									  unsigned long long *d_counts,
									  cudaStream_t stream);

/*
 * A join's build side on the device: an open-addressing table of cap join
 * keys (gpo_join_key; GPO_JOIN_EMPTY = free, the key with those bits has
 * slot cap) and, for slot s, its build rows d_rows[d_off[s] .. d_off[s+1])
 * in ascending order.  The caller allocates d_slots (cap), d_off (cap + 2),
 * d_rows (m) with cap = gpo_join_capacity(m).
 */
typedef struct gpo_cuda_join_table
{
	int64_t		cap;
	unsigned long long *d_slots;
	long long  *d_off;
	long long  *d_rows;
} gpo_cuda_join_table;

/*
 * Builds t from m build keys of type (NULL rows are left out): inserts with
 * compare-and-swap, counts per slot, prefix-sums the counts into d_off and
 * groups the rows by slot with a stable radix sort (rows ascending within a
 * key).
 */
extern cudaError_t gpo_cuda_join_build(gpo_type type, const void *d_keys,
									   const uint8_t *d_valid, int64_t m,
									   const gpo_cuda_join_table *t,
									   void *d_temp, size_t *temp_bytes,
									   cudaStream_t stream);

/*
 * Size pass of the probe: d_pos (n + 1) receives each probe row's first
 * output pair (the exclusive prefix of what a join of kind emits for it,
 * gpo_join_emits); d_pos[n] is the total.
 */
extern cudaError_t gpo_cuda_join_count(gpo_type type, const void *d_keys,
									   const uint8_t *d_valid, int64_t n,
									   const gpo_cuda_join_table *t,
									   gpo_join_kind kind, long long *d_pos, void *d_temp,
									   size_t *temp_bytes,
									   cudaStream_t stream);

/*
 * Fill pass: every probe row writes what a join of kind emits for it from
 * d_pos[i] on: build rows (ascending) to d_build_rows, 1 per row to
 * d_build_valid (0 for a NULL build row), its own row to d_probe_rows (any
 * may be NULL).
 */
extern cudaError_t gpo_cuda_join_fill(gpo_type type, const void *d_keys,
									  const uint8_t *d_valid, int64_t n,
									  const gpo_cuda_join_table *t,
									  gpo_join_kind kind,
									  const long long *d_pos,
									  long long *d_build_rows,
									  uint8_t *d_build_valid,
									  long long *d_probe_rows,
									  cudaStream_t stream);

/*
 * d_out[i] = d_in[d_index[i]] for i < n, elem bytes a value (1, 4 or 8).
 * d_out_valid (may be NULL) gets index valid && input valid; a NULL index
 * row writes a zero value.  A valid index outside [0, n_in) sets *d_bad to
 * 1 (the caller clears it first).
 */
extern cudaError_t gpo_cuda_gather(size_t elem, const void *d_in,
								   const uint8_t *d_in_valid, int64_t n_in,
								   const int64_t *d_index,
								   const uint8_t *d_index_valid, int64_t n,
								   void *d_out, uint8_t *d_out_valid,
								   unsigned int *d_bad, cudaStream_t stream);

#endif							/* GPO_HISTJOIN_CUH */
