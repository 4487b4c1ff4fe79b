/*
 * gpo_kernels.cuh
 *	  Device-resident cores of the GPU primitives: they take device pointers
 *	  to contiguous columns, enqueue their work on a stream and return the
 *	  launch status, without host<->device copies or synchronization.  The
 *	  host faces (gpo_*_gpu) are built on them; the benchmark times them.
 *
 * Conventions: n rows, 64-bit row numbers throughout.  d_valid, where a
 * function takes it, is NULL (every row valid) or n bytes holding exactly
 * 0 (NULL) or 1 (valid).  Functions that need temporary device memory use
 * CUB's two-phase protocol: with d_temp == NULL they only store the bytes
 * they need in *temp_bytes and return cudaSuccess.  Output buffers must hold
 * the worst case the caller allows (n rows, or a count learned beforehand).
 */
#ifndef GPO_KERNELS_CUH
#define GPO_KERNELS_CUH

#include <stdint.h>

#include <cuda_runtime.h>

#include "gpo.h"

/*
 * Prefix scan of n values of type (INT32, UINT32, INT64 or FLOAT64), as
 * gpo_scan: d_heads (NULL or n bytes, nonzero = segment start) segments it,
 * NULL rows add nothing.  *d_overflow is set to 1 (it is cleared first)
 * when some true inclusive prefix of an INT32 or INT64 scan leaves the
 * type's range; d_out is then unspecified.
 */
extern cudaError_t gpo_cuda_scan(gpo_type type, const void *d_in,
								 const uint8_t *d_valid,
								 const uint8_t *d_heads, int64_t n,
								 bool inclusive, void *d_out,
								 uint32_t *d_overflow, void *d_temp,
								 size_t *temp_bytes, cudaStream_t stream);

/*
 * Counts the kept rows of a compaction mask into *d_count: row i is kept
 * when d_valid[i] (if given) and (d_mask[i] != 0) != drop.
 */
extern cudaError_t gpo_cuda_count_kept(const uint8_t *d_mask,
									   const uint8_t *d_valid, int64_t n,
									   bool drop, int64_t *d_count,
									   cudaStream_t stream);

/*
 * Stable selection of the kept rows (as gpo_cuda_count_kept): their 0-based
 * row numbers go to d_map in order and their number to *d_count.  d_map
 * must hold the kept count; with d_map == NULL only the count is produced
 * (the two-phase protocol still applies: the query answers a token size).
 */
extern cudaError_t gpo_cuda_compact(const uint8_t *d_mask,
									const uint8_t *d_valid, int64_t n,
									bool drop, int64_t *d_map,
									int64_t *d_count, void *d_temp,
									size_t *temp_bytes, cudaStream_t stream);

/*
 * Run boundaries: d_heads[i] = 1 when row i starts a run (row 0, or row i
 * differs from row i - 1 under gpo_rle's equality), else 0; *d_count gets
 * the number of runs.  d_heads holds n bytes.
 */
extern cudaError_t gpo_cuda_rle_heads(gpo_type type, const void *d_in,
									  const uint8_t *d_valid, int64_t n,
									  uint8_t *d_heads, int64_t *d_count,
									  cudaStream_t stream);

/*
 * Materializes runs from their start rows d_starts[0 .. *d_count): the
 * first value of each run (raw bits, elem bytes: 1, 4 or 8) into d_values,
 * its validity byte into d_values_valid (1 when d_valid is NULL), its length
 * into d_lengths.  Each output may be NULL.
 */
extern cudaError_t gpo_cuda_rle_gather(size_t elem, const void *d_in,
									   const uint8_t *d_valid, int64_t n,
									   const int64_t *d_starts,
									   const int64_t *d_count,
									   void *d_values,
									   uint8_t *d_values_valid,
									   int64_t *d_lengths,
									   cudaStream_t stream);

/*
 * The whole run-length encoding of n rows of type: boundary flags, the
 * selection of run starts into d_starts (required, n rows of capacity),
 * then values, their validity and lengths (each may be NULL; n rows of
 * capacity) and the run count in *d_count.
 */
extern cudaError_t gpo_cuda_rle(gpo_type type, const void *d_in,
								const uint8_t *d_valid, int64_t n,
								void *d_values, uint8_t *d_values_valid,
								int64_t *d_starts, int64_t *d_lengths,
								int64_t *d_count, void *d_temp,
								size_t *temp_bytes, cudaStream_t stream);

#endif							/* GPO_KERNELS_CUH */
