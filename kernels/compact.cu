/*
 * compact.cu
 *	  Stream compaction, the GPU face: a keep/drop mask (with validity) to a
 *	  stable index map of the kept rows and their count.
 *
 * Row i is kept when it is valid and (mask[i] != 0) != drop.  The device
 * core is one CUB DeviceSelect::If over the row numbers 0 .. n-1 (64-bit
 * offsets) whose predicate reads the mask; counting alone is one pass of
 * 16-byte loads with a per-block reduction.  The run-length encoder reuses
 * the same selection on its boundary flags, so the two share one
 * instantiation of CUB's selection (the hash and dense GROUP BY strategies
 * select their occupied slots with predicates of their own).
 *
 * The host face sizes before it fills: it counts first, publishes the count,
 * and selects only when the index map is wanted and has room.
 *
 * The count stays a kernel of its own (CUB's would be DeviceReduce::Sum
 * over a transform of the bytes, with temporary memory that the count-only
 * call does not take): 0.031 ms over 1e8 mask bytes, 78% of copy bandwidth
 * on the H200 (bench/RESULTS.md), where the selection runs at 37%.
 */
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "gpo_cuda.cuh"
#include "gpo_kernels.cuh"

/* The compaction predicate on row numbers. */
struct gpo_keep_pred
{
	const uint8_t *mask;
	const uint8_t *valid;
	bool		drop;

	/* True if row i is kept. */
	__host__ __device__ __forceinline__ bool operator()(int64_t i) const
	{
		return (valid == NULL || valid[i] != 0) && ((mask[i] != 0) != drop);
	}
};

/* Kept rows among four mask bytes and their four validity bytes. */
__device__ __forceinline__ unsigned int
gpo_kept4(unsigned int m, unsigned int v, bool drop)
{
	unsigned int k = __vcmpne4(m, 0u);	/* 0xff in each set byte */

	if (drop)
		k = ~k;
	k &= __vcmpne4(v, 0u);
	return (unsigned int) __popc(k) >> 3;
}

/*
 * Counts kept rows into *d_count (which the caller zeroed).  With vec the
 * mask (and validity) are 16-byte aligned and read 16 rows at a time.
 */
__global__ void
__launch_bounds__(GPO_CUDA_THREADS)
gpo_k_count_kept(const uint8_t *d_mask, const uint8_t *d_valid, int64_t n,
				 bool drop, bool vec, unsigned long long *d_count)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;
	int64_t		tid = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
	int64_t		done = 0;
	unsigned long long local = 0;

	if (vec)
	{
		int64_t		nv = n / 16;
		const uint4 *m4 = (const uint4 *) d_mask;
		const uint4 *v4 = (const uint4 *) d_valid;

		for (int64_t g = tid; g < nv; g += stride)
		{
			uint4		m = m4[g];
			uint4		v = d_valid ? v4[g] : make_uint4(~0u, ~0u, ~0u, ~0u);

			local += gpo_kept4(m.x, v.x, drop) + gpo_kept4(m.y, v.y, drop) +
				gpo_kept4(m.z, v.z, drop) + gpo_kept4(m.w, v.w, drop);
		}
		done = nv * 16;
	}
	for (int64_t i = done + tid; i < n; i += stride)
		local += ((d_valid == NULL || d_valid[i] != 0) &&
				  ((d_mask[i] != 0) != drop)) ? 1 : 0;
	gpo_block_count_add(local, d_count);
}

/* Counts the kept rows of a compaction mask into *d_count. */
cudaError_t
gpo_cuda_count_kept(const uint8_t *d_mask, const uint8_t *d_valid, int64_t n,
					bool drop, int64_t *d_count, cudaStream_t stream)
{
	cudaError_t err;
	bool		vec;

	err = cudaMemsetAsync(d_count, 0, sizeof(int64_t), stream);
	if (err != cudaSuccess || n <= 0)
		return err;
	vec = ((uintptr_t) d_mask % 16 == 0) &&
		(d_valid == NULL || (uintptr_t) d_valid % 16 == 0);
	gpo_k_count_kept<<<gpo_cuda_blocks(vec ? n / 16 + 1 : n), GPO_CUDA_THREADS, 0, stream>>>
		(d_mask, d_valid, n, drop, vec, (unsigned long long *) d_count);
	return cudaPeekAtLastError();
}

/* Stable selection of the kept rows' numbers into d_map and their count. */
cudaError_t
gpo_cuda_compact(const uint8_t *d_mask, const uint8_t *d_valid, int64_t n,
				 bool drop, int64_t *d_map, int64_t *d_count, void *d_temp,
				 size_t *temp_bytes, cudaStream_t stream)
{
	gpo_keep_pred pred;
	thrust::counting_iterator<int64_t> rows(0);
	cudaError_t err;

	pred.mask = d_mask;
	pred.valid = d_valid;
	pred.drop = drop;
	if (d_map == NULL || n <= 0)
	{
		if (d_temp == NULL)
		{
			*temp_bytes = 16;	/* never 0: a NULL d_temp means "query" */
			return cudaSuccess;
		}
		return gpo_cuda_count_kept(d_mask, d_valid, n, drop, d_count, stream);
	}
	if (d_temp == NULL)
	{
		err = cub::DeviceSelect::If(NULL, *temp_bytes, rows, d_map, d_count,
									n, pred, stream);
		if (err == cudaSuccess && *temp_bytes < 16)
			*temp_bytes = 16;
		return err;
	}
	err = cub::DeviceSelect::If(d_temp, *temp_bytes, rows, d_map, d_count, n,
								pred, stream);
	if (err != cudaSuccess)
		return err;
	return cudaPeekAtLastError();
}

/* Compaction GPU face (see gpo.h). */
extern "C" gpo_status
gpo_compact_gpu(gpo_ctx *ctx, const gpo_vector *mask, uint32_t flags,
				gpo_vector *index_map, int64_t *count)
{
	gpo_status	st = GPO_OK;
	sigset_t	old;
	bool		began = false;
	bool		drop = (flags & GPO_COMPACT_DROP) != 0;
	int64_t		n;
	int64_t		kept = 0;
	uint8_t    *d_mask = NULL;
	uint8_t    *d_valid = NULL;
	int64_t    *d_map = NULL;
	int64_t    *d_count = NULL;
	void	   *d_temp = NULL;
	size_t		temp_bytes = 0;

	if (ctx == NULL || mask == NULL || count == NULL)
		return GPO_ERR_INVALID;
	GPO_TRY(gpo_cuda_check_vector(ctx, mask, "compaction mask"));
	if (mask->type != GPO_UINT8 ||
		(index_map != NULL && index_map->type != GPO_INT64))
	{
		snprintf(ctx->detail, sizeof(ctx->detail),
				 "compaction needs a uint8 mask and an int64 index map");
		return GPO_ERR_INVALID;
	}
	if (index_map != NULL)
		GPO_TRY(gpo_cuda_check_vector(ctx, index_map, "compaction index map"));
	n = gpo_vector_rows(mask);
	if (n == 0)
	{
		*count = 0;
		return GPO_OK;
	}

	st = gpo_cuda_begin(ctx, &old);
	began = true;				/* gpo_cuda_end is harmless after a failure */
	if (st != GPO_OK)
		goto cleanup;

	GPO_TRY(gpo_cuda_column_up(ctx, mask, n, "compaction mask", (void **) &d_mask, &d_valid));
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_count, sizeof(int64_t), "compaction count"));

	/* size: count the kept rows and publish the count */
	GPO_CUDA_TRY(gpo_cuda_count_kept(d_mask, d_valid, n, drop, d_count, 0));
	GPO_CUDA_TRY(cudaMemcpy(&kept, d_count, sizeof(int64_t), cudaMemcpyDeviceToHost));
	*count = kept;
	if (index_map == NULL || kept == 0)
		goto cleanup;
	if (gpo_vector_rows(index_map) < kept)
	{
		snprintf(ctx->detail, sizeof(ctx->detail),
				 "index map holds %lld rows but %lld are kept",
				 (long long) gpo_vector_rows(index_map), (long long) kept);
		st = GPO_ERR_CAPACITY;
		goto cleanup;
	}

	/* fill: select the kept row numbers */
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_map, (size_t) kept * sizeof(int64_t),
						   "compaction index map"));
	GPO_CUDA_TRY(gpo_cuda_compact(d_mask, d_valid, n, drop, d_map, d_count,
								  NULL, &temp_bytes, 0));
	GPO_TRY(gpo_cuda_alloc(ctx, &d_temp, temp_bytes, "compaction temporary"));
	GPO_CUDA_TRY(gpo_cuda_compact(d_mask, d_valid, n, drop, d_map, d_count,
								  d_temp, &temp_bytes, 0));
	GPO_TRY(gpo_cuda_download(ctx, index_map, sizeof(int64_t), d_map, kept));

cleanup:
	if (d_temp != NULL)
		gpo_cuda_free(d_temp);
	if (d_map != NULL)
		gpo_cuda_free(d_map);
	if (d_count != NULL)
		gpo_cuda_free(d_count);
	if (d_valid != NULL)
		gpo_cuda_free(d_valid);
	if (d_mask != NULL)
		gpo_cuda_free(d_mask);
	if (began)
		gpo_cuda_end(&old);
	return st;
}
