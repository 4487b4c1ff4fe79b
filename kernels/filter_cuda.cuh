/*
 * filter_cuda.cuh
 *	  The filter's device-pointer launcher (filter.cu), for the GPU faces
 *	  that evaluate a gpo_filter program over columns already on the device.
 */
#ifndef FILTER_CUDA_CUH
#define FILTER_CUDA_CUH

#include <stdint.h>

#include <cuda_runtime.h>

#include "gpo_filter.h"

/*
 * One column on the device: values (NULL when the program does not compare
 * it) and validity bytes (1 = valid; NULL = every row valid).
 */
struct gpo_filter_dcol
{
	const void *data;
	const uint8_t *valid;
	int32_t		type;			/* gpo_type */
};

/*
 * Evaluates d_prog (nnodes nodes, checked on the host) for rows [0, n) of
 * the columns d_cols into d_mask (1 where TRUE, else 0) and adds the 1s to
 * *d_count, which the caller zeroed; on stream 0, without waiting.
 */
extern cudaError_t gpo_cuda_filter_mask(const gpo_filter_dcol *d_cols,
										const gpo_pred *d_prog, int nnodes,
										int64_t n, uint8_t *d_mask,
										unsigned long long *d_count);
/*
 * The same over nsets column sets in one launch: set s has the nc columns
 * d_cols[s * nc ...] and the rows d_offsets[s] .. d_offsets[s + 1] - 1 of
 * the mask (d_offsets: nsets + 1 entries from 0, on the device).
 */
extern cudaError_t gpo_cuda_filter_masks(const gpo_filter_dcol *d_cols, int nc,
										 const int64_t *d_offsets, int nsets,
										 const gpo_pred *d_prog, int nnodes,
										 int64_t n, uint8_t *d_mask,
										 unsigned long long *d_count);

/*
 * The set of row g of sets laid end to end: the last s with
 * d_offsets[s] <= g (so an empty set is never the answer).
 */
__device__ __forceinline__ int
gpo_cuda_set_of(const int64_t *d_offsets, int nsets, int64_t g)
{
	int			lo = 0;
	int			hi = nsets;

	while (hi - lo > 1)
	{
		int			mid = (lo + hi) >> 1;

		if (d_offsets[mid] <= g)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

#endif							/* FILTER_CUDA_CUH */
