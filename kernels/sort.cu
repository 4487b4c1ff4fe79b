/*
 * sort.cu
 *	  Stable radix sort of key/row pairs on the GPU: key codes (NULL keys
 *	  set aside stably by CUB's DevicePartition::Flagged), the varying bit
 *	  range (CUB's DeviceReduce), and CUB's DeviceRadixSort::SortPairs over
 *	  only those bits.
 *
 * CUB instantiations are kept few: SortPairs of (uint32, uint32) and
 * (uint64, uint32) pairs, ExclusiveSum of uint32, the partition of uint32
 * row ids by validity bytes and the reduction of 32- and 64-bit codes to
 * their span; the other aggregation files reach them through the
 * launchers here.
 */
#include <cub/device/device_partition.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "agg_cuda.cuh"
#include "gpo_cuda.cuh"

/* Codes and ids of rows without NULL keys: code[i], id i. */
template <typename K>
__global__ void
gpo_k_codes_all(gpo_type kt, const void *d_keys, int64_t n, K *d_codes,
				uint32_t *d_ids)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
	{
		d_codes[i] = (K) gpo_code_of_raw(kt, gpo_dload(kt, d_keys, i), 1);
		d_ids[i] = (uint32_t) i;
	}
}

/*
 * Codes and ids from the partitioned row ids d_part: the non-NULL rows' ids
 * in row order at [0, nvalid), then the NULL rows' ids in reverse row order
 * (as CUB's DevicePartition leaves them), which are turned around here so
 * that the NULL rows too follow in row order (their codes are 0).
 */
template <typename K>
__global__ void
gpo_k_codes_part(gpo_type kt, const void *d_keys, const uint32_t *d_part,
				 int64_t n, int64_t nvalid, K *d_codes, uint32_t *d_ids)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t p = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; p < n; p += stride)
	{
		uint32_t	id = d_part[p];

		if (p < nvalid)
		{
			d_codes[p] = (K) gpo_code_of_raw(kt, gpo_dload(kt, d_keys, id), 1);
			d_ids[p] = id;
		}
		else
		{
			int64_t		at = nvalid + (n - 1 - p);

			d_codes[at] = 0;
			d_ids[at] = id;
		}
	}
}

/* What a sort needs to know of its codes: which bits vary, and their range. */
struct gpo_code_span
{
	unsigned long long acc;		/* OR of code[i] ^ code[0] */
	unsigned long long mn;		/* smallest code */
	unsigned long long mx;		/* largest code */
};

/* Combines two spans (the reduction's operator). */
struct gpo_code_span_op
{
	/* The span of a's codes and b's together. */
	__host__ __device__ __forceinline__ gpo_code_span
	operator()(const gpo_code_span &a, const gpo_code_span &b) const
	{
		gpo_code_span r;

		r.acc = a.acc | b.acc;
		r.mn = a.mn < b.mn ? a.mn : b.mn;
		r.mx = a.mx > b.mx ? a.mx : b.mx;
		return r;
	}
};

/* The span of code i alone. */
template <typename K>
struct gpo_code_span_of
{
	const K    *codes;

	/* Code i's span. */
	__host__ __device__ __forceinline__ gpo_code_span operator()(int64_t i) const
	{
		gpo_code_span r;

		r.mn = r.mx = codes[i];
		r.acc = r.mn ^ (unsigned long long) codes[0];
		return r;
	}
};

/* The span of n >= 1 codes into *span, by CUB's DeviceReduce (temp from mem). */
template <typename K>
static cudaError_t
code_span_t(const K *d_codes, int64_t n, gpo_code_span *span, gpo_dmem *mem)
{
	gpo_code_span_of<K> of = {d_codes};
	auto		in = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), of);
	gpo_code_span init = {0, ~0ULL, 0};
	gpo_code_span *d_span = NULL;
	void	   *d_temp = NULL;
	size_t		temp_bytes = 0;
	cudaError_t err;

	err = cub::DeviceReduce::Reduce(NULL, temp_bytes, in, d_span, (int) n,
									gpo_code_span_op(), init);
	/* the result sits before the temporary memory, in one allocation */
	if (err == cudaSuccess)
		err = gpo_dmem_alloc(mem, (void **) &d_span, 256 + temp_bytes);
	if (err != cudaSuccess)
		return err;
	d_temp = (char *) d_span + 256;
	err = cub::DeviceReduce::Reduce(d_temp, temp_bytes, in, d_span, (int) n,
									gpo_code_span_op(), init);
	if (err == cudaSuccess)
		err = cudaMemcpy(span, d_span, sizeof(*span), cudaMemcpyDeviceToHost);
	return err;
}

/* Adds delta to each of n codes (modulo the code width). */
template <typename K>
__global__ void
gpo_k_code_shift(K *d_codes, int64_t n, K delta)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		d_codes[i] += delta;
}

/* Keys of kt from sorted codes; rows from nvalid on are NULL (zeroed). */
template <typename K>
__global__ void
gpo_k_decode_keys(gpo_type kt, const K *d_codes, int64_t n, int64_t nvalid,
				  void *d_keys_out)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;
	bool		wide = kt == GPO_INT64 || kt == GPO_FLOAT64;

	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
	{
		unsigned long long raw = i < nvalid ? gpo_raw_of_code(kt, d_codes[i]) : 0;

		if (wide)
			((unsigned long long *) d_keys_out)[i] = raw;
		else
			((unsigned int *) d_keys_out)[i] = (unsigned int) raw;
	}
}

/* Widens 32-bit row ids to 64-bit row numbers. */
__global__ void
gpo_k_widen_ids(const uint32_t *d_ids, int64_t n, int64_t *d_rows)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		d_rows[i] = d_ids[i];
}

/* Validity bytes of sorted keys: 1 below nvalid, else 0. */
__global__ void
gpo_k_sorted_valid(int64_t n, int64_t nvalid, uint8_t *d_valid)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		d_valid[i] = i < nvalid;
}

/* Exclusive sum of n uint32 values. */
cudaError_t
gpo_cuda_exsum_u32(const uint32_t *d_in, uint32_t *d_out, int64_t n,
				   gpo_dmem *mem)
{
	void	   *d_temp = NULL;
	size_t		temp_bytes = 0;
	cudaError_t err;

	if (n <= 0)
		return cudaSuccess;
	err = cub::DeviceScan::ExclusiveSum(NULL, temp_bytes, d_in, d_out, (int) n);
	if (err == cudaSuccess)
		err = gpo_dmem_alloc(mem, &d_temp, temp_bytes);
	if (err == cudaSuccess)
		err = cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_in, d_out, (int) n);
	return err;
}

/*
 * Sorts the first n of n_total (code, id) pairs by code bits [begin_bit,
 * end_bit) with CUB; the unsorted tail follows them into whichever buffers
 * hold the result.
 */
template <typename K>
static cudaError_t
sort_codes_t(K **d_codes, uint32_t **d_ids, int64_t n, int64_t n_total,
			 int begin_bit, int end_bit, gpo_dmem *mem)
{
	K		   *d_alt_codes = NULL;
	uint32_t   *d_alt_ids = NULL;
	void	   *d_temp = NULL;
	size_t		temp_bytes = 0;
	cudaError_t err;

	if (n <= 1 || begin_bit >= end_bit)
		return cudaSuccess;
	err = gpo_dmem_alloc(mem, (void **) &d_alt_codes, sizeof(K) * n_total);
	if (err == cudaSuccess)
		err = gpo_dmem_alloc(mem, (void **) &d_alt_ids, sizeof(uint32_t) * n_total);
	if (err != cudaSuccess)
		return err;
	{
		cub::DoubleBuffer<K> keys(*d_codes, d_alt_codes);
		cub::DoubleBuffer<uint32_t> vals(*d_ids, d_alt_ids);

		err = cub::DeviceRadixSort::SortPairs(NULL, temp_bytes, keys, vals, (int) n,
											  begin_bit, end_bit);
		if (err == cudaSuccess)
			err = gpo_dmem_alloc(mem, &d_temp, temp_bytes);
		if (err == cudaSuccess)
			err = cub::DeviceRadixSort::SortPairs(d_temp, temp_bytes, keys, vals, (int) n,
												  begin_bit, end_bit);
		if (err == cudaSuccess && keys.Current() != *d_codes && n_total > n)
			err = cudaMemcpy(keys.Current() + n, *d_codes + n, sizeof(K) * (n_total - n),
							 cudaMemcpyDeviceToDevice);
		if (err == cudaSuccess && vals.Current() != *d_ids && n_total > n)
			err = cudaMemcpy(vals.Current() + n, *d_ids + n, sizeof(uint32_t) * (n_total - n),
							 cudaMemcpyDeviceToDevice);
		*d_codes = keys.Current();
		*d_ids = vals.Current();
	}
	return err;
}

/* Sorts the first n of n_total (code, id) pairs by code bits. */
cudaError_t
gpo_cuda_sort_codes(bool wide, void **d_codes, uint32_t **d_ids, int64_t n,
					int64_t n_total, int begin_bit, int end_bit, gpo_dmem *mem)
{
	if (wide)
		return sort_codes_t<unsigned long long>((unsigned long long **) d_codes, d_ids,
												n, n_total, begin_bit, end_bit, mem);
	return sort_codes_t<unsigned int>((unsigned int **) d_codes, d_ids, n, n_total,
									  begin_bit, end_bit, mem);
}

/* Adds delta to the first n codes. */
static cudaError_t
code_shift(bool wide, void *d_codes, int64_t n, unsigned long long delta)
{
	if (n <= 0)
		return cudaSuccess;
	if (wide)
		gpo_k_code_shift<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS>>>
			((unsigned long long *) d_codes, n, delta);
	else
		gpo_k_code_shift<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS>>>
			((unsigned int *) d_codes, n, (unsigned int) delta);
	return cudaPeekAtLastError();
}

/*
 * Sorts the first n of n_total (code, id) pairs by code over only the bits
 * that vary (see agg_cuda.cuh), as gpo_sort_bit_range chooses them; shifted
 * codes are restored.
 */
cudaError_t
gpo_cuda_sort_varying(bool wide, void **d_codes, uint32_t **d_ids, int64_t n,
					  int64_t n_total, gpo_dmem *mem)
{
	gpo_code_span span;
	int			bb,
				eb;
	cudaError_t err;

	if (n <= 1)
		return cudaSuccess;
	if (wide)
		err = code_span_t((const unsigned long long *) *d_codes, n, &span, mem);
	else
		err = code_span_t((const unsigned int *) *d_codes, n, &span, mem);
	if (err != cudaSuccess)
		return err;
	if (span.acc == 0)
		return cudaSuccess;
	if (!gpo_sort_bit_range(span.acc, span.mn, span.mx, &bb, &eb))
		return gpo_cuda_sort_codes(wide, d_codes, d_ids, n, n_total, bb, eb, mem);
	if ((err = code_shift(wide, *d_codes, n, 0ULL - span.mn)) != cudaSuccess)
		return err;
	err = gpo_cuda_sort_codes(wide, d_codes, d_ids, n, n_total, bb, eb, mem);
	if (err == cudaSuccess)
		err = code_shift(wide, *d_codes, n, span.mn);
	return err;
}

/*
 * Stable partition of the row ids 0 .. n-1 (0 < n < 2^31) by their validity
 * bytes with CUB: into d_part the valid rows' ids in order, then the NULL
 * rows' ids in reverse order; their number into *nvalid.
 */
static cudaError_t
partition_valid(const uint8_t *d_valid, int64_t n, uint32_t **d_part,
				int64_t *nvalid, gpo_dmem *mem)
{
	thrust::counting_iterator<uint32_t> rows(0);
	size_t		part_bytes = (4 * (size_t) n + 7) & ~(size_t) 7;
	int64_t    *d_count;
	void	   *d_temp = NULL;
	size_t		temp_bytes = 0;
	cudaError_t err;

	/* the count sits behind the ids, in the same allocation */
	err = gpo_dmem_alloc(mem, (void **) d_part, part_bytes + sizeof(int64_t));
	if (err != cudaSuccess)
		return err;
	d_count = (int64_t *) ((char *) *d_part + part_bytes);
	err = cub::DevicePartition::Flagged(NULL, temp_bytes, rows, d_valid, *d_part,
										d_count, (int) n);
	if (err == cudaSuccess)
		err = gpo_dmem_alloc(mem, &d_temp, temp_bytes);
	if (err == cudaSuccess)
		err = cub::DevicePartition::Flagged(d_temp, temp_bytes, rows, d_valid, *d_part,
											d_count, (int) n);
	if (err == cudaSuccess)
		err = cudaMemcpy(nvalid, d_count, sizeof(int64_t), cudaMemcpyDeviceToHost);
	return err;
}

/* Key codes and ids, non-NULL rows first (see agg_cuda.cuh). */
cudaError_t
gpo_cuda_key_codes(gpo_type kt, const void *d_keys, const uint8_t *d_valid,
				   int64_t n, void **d_codes, uint32_t **d_ids,
				   int64_t *nvalid, gpo_dmem *mem)
{
	bool		wide = kt == GPO_INT64 || kt == GPO_FLOAT64;
	uint32_t   *d_part = NULL;
	cudaError_t err;

	*nvalid = n;
	err = gpo_dmem_alloc(mem, d_codes, (wide ? 8 : 4) * (size_t) (n + 1));
	if (err == cudaSuccess)
		err = gpo_dmem_alloc(mem, (void **) d_ids, 4 * (size_t) (n + 1));
	if (err != cudaSuccess || n == 0)
		return err;
	if (d_valid == NULL)
	{
		if (wide)
			gpo_k_codes_all<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS>>>
				(kt, d_keys, n, (unsigned long long *) *d_codes, *d_ids);
		else
			gpo_k_codes_all<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS>>>
				(kt, d_keys, n, (unsigned int *) *d_codes, *d_ids);
		return cudaPeekAtLastError();
	}
	if ((err = partition_valid(d_valid, n, &d_part, nvalid, mem)) != cudaSuccess)
		return err;
	if (wide)
		gpo_k_codes_part<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS>>>
			(kt, d_keys, d_part, n, *nvalid, (unsigned long long *) *d_codes, *d_ids);
	else
		gpo_k_codes_part<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS>>>
			(kt, d_keys, d_part, n, *nvalid, (unsigned int *) *d_codes, *d_ids);
	return cudaPeekAtLastError();
}

/* Device-resident stable pair sort (see gpo_agg_kernels.cuh). */
gpo_status
gpo_cuda_sort_pairs(gpo_ctx *ctx, gpo_type kt, const void *d_keys,
					const uint8_t *d_valid, int64_t n, void *d_keys_out,
					uint32_t *d_ids_out, int64_t *nvalid, gpo_dmem *mem)
{
	bool		wide = kt == GPO_INT64 || kt == GPO_FLOAT64;
	void	   *d_codes = NULL;
	uint32_t   *d_ids = NULL;
	gpo_status	st = GPO_OK;

	GPO_CUDA_TRY(gpo_cuda_key_codes(kt, d_keys, d_valid, n, &d_codes, &d_ids, nvalid, mem));
	GPO_CUDA_TRY(gpo_cuda_sort_varying(wide, &d_codes, &d_ids, *nvalid, n, mem));
	if (d_keys_out != NULL && n > 0)
	{
		if (wide)
			gpo_k_decode_keys<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS>>>
				(kt, (const unsigned long long *) d_codes, n, *nvalid, d_keys_out);
		else
			gpo_k_decode_keys<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS>>>
				(kt, (const unsigned int *) d_codes, n, *nvalid, d_keys_out);
		GPO_CUDA_TRY(GPO_LAUNCHED());
	}
	if (d_ids_out != NULL && n > 0)
		GPO_CUDA_TRY(cudaMemcpy(d_ids_out, d_ids, 4 * (size_t) n, cudaMemcpyDeviceToDevice));
	GPO_CUDA_TRY(cudaStreamSynchronize(0));
cleanup:
	return st;
}

/* Sort GPU face (see gpo_agg.h). */
extern "C" gpo_status
gpo_sort_pairs_gpu(gpo_ctx *ctx, const gpo_vector *keys, gpo_vector *keys_out,
				   gpo_vector *rows_out)
{
	gpo_status	st = GPO_OK;
	sigset_t	old;
	gpo_dmem	mem = {};
	int64_t		n = gpo_vector_rows(keys);
	size_t		w = gpo_type_size(keys->type);
	void	   *d_keys = NULL;
	uint8_t    *d_valid = NULL;
	void	   *d_kout = NULL;
	uint32_t   *d_ids = NULL;
	int64_t    *d_rows = NULL;
	uint8_t    *d_vout = NULL;
	int64_t		nvalid = 0;

	if ((st = gpo_cuda_begin(ctx, &old)) != GPO_OK)
		goto done;
	if (n > INT32_MAX)
	{
		snprintf(ctx->detail, sizeof(ctx->detail), "the GPU sort takes at most 2^31 - 1 rows");
		st = GPO_ERR_INVALID;
		goto cleanup;
	}
	GPO_CUDA_TRY(gpo_dmem_alloc(&mem, &d_keys, w * (size_t) n));
	GPO_TRY(gpo_cuda_column_to(ctx, keys, n, d_keys, &d_valid));
	GPO_CUDA_TRY(gpo_dmem_alloc(&mem, &d_kout, w * (size_t) n));
	GPO_CUDA_TRY(gpo_dmem_alloc(&mem, (void **) &d_ids, 4 * (size_t) n));
	GPO_TRY(gpo_cuda_sort_pairs(ctx, keys->type, d_keys, d_valid, n, d_kout, d_ids,
								&nvalid, &mem));
	if (keys_out != NULL && n > 0)
	{
		GPO_CUDA_TRY(gpo_dmem_alloc(&mem, (void **) &d_vout, (size_t) n));
		gpo_k_sorted_valid<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS>>>(n, nvalid, d_vout);
		GPO_CUDA_TRY(GPO_LAUNCHED());
		GPO_TRY(gpo_cuda_download(ctx, keys_out, w, d_kout, n));
		GPO_TRY(gpo_cuda_download_valid(ctx, keys_out, d_vout, n));
	}
	if (rows_out != NULL && n > 0)
	{
		GPO_CUDA_TRY(gpo_dmem_alloc(&mem, (void **) &d_rows, 8 * (size_t) n));
		gpo_k_widen_ids<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS>>>(d_ids, n, d_rows);
		GPO_CUDA_TRY(GPO_LAUNCHED());
		GPO_TRY(gpo_cuda_download(ctx, rows_out, 8, d_rows, n));
	}
cleanup:
	if (d_valid != NULL)
		gpo_cuda_free(d_valid);
	gpo_dmem_release(&mem);
	gpo_cuda_end(&old);
done:
	return st;
}
