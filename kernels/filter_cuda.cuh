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

#endif							/* FILTER_CUDA_CUH */
