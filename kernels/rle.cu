/*
 * rle.cu
 *	  Run-length encoding (and so adjacent-unique), the GPU face.
 *
 * Three steps over one contiguous column (chunk seams and empty chunks are
 * gone once the input is uploaded, so runs cross them by construction):
 *   1. boundary flags: head[i] = 1 when row i starts a run, by gpo_rle's
 *      equality (NULL equals NULL and nothing else; floats compare by a
 *      canonical key where every NaN is one value and -0.0 is 0.0; other
 *      types by bits), counting the runs on the way;
 *   2. the row numbers of the heads, in order, by the compaction's CUB
 *      selection (so CUB is instantiated once, not once per type);
 *   3. materialization: run k starts at starts[k], its length is
 *      starts[k + 1] - starts[k] (n - starts[k] for the last), its value and
 *      validity are those of row starts[k] (the raw bits of the first row).
 * The host face counts in step 1, publishes the count, checks capacities
 * and only then allocates the outputs (size, then fill).
 *
 * Step 1 is not cub::DeviceRunLengthEncode::Encode, which compares items
 * with operator== and takes no equality operator (gpo_rle puts every NaN in
 * one run, -0.0 with 0.0, NULL with NULL only), would return the canonical
 * key of a run rather than the raw bits of its first row, gives lengths but
 * not starts, and has no count-only pass for the size phase.  The flags and
 * count pass runs at 70% of copy bandwidth (0.140 ms over 1e8 int32 rows on
 * the H200, bench/RESULTS.md); step 2 is CUB's.
 */
#include <string.h>

#include "gpo_cuda.cuh"
#include "gpo_kernels.cuh"

/* Rounds bytes up to a multiple of 256 (keeps carved buffers aligned). */
static size_t
gpo_round256(size_t bytes)
{
	return (bytes + 255) & ~(size_t) 255;
}

/* Canonical equality keys: equal keys <=> equal values under gpo_rle. */
__device__ __forceinline__ uint32_t gpo_rle_key(int32_t x) { return (uint32_t) x; }
/* Canonical key of a uint32 (its bits). */
__device__ __forceinline__ uint32_t gpo_rle_key(uint32_t x) { return x; }
/* Canonical key of an int64 (its bits). */
__device__ __forceinline__ uint64_t gpo_rle_key(int64_t x) { return (uint64_t) x; }
/* Canonical key of a uint8 (its bits). */
__device__ __forceinline__ uint32_t gpo_rle_key(uint8_t x) { return x; }

/* Canonical key of a float32: one NaN, one zero, otherwise the bits. */
__device__ __forceinline__ uint32_t
gpo_rle_key(float x)
{
	if (x != x)
		return 0x7fc00000u;
	if (x == 0.0f)
		return 0u;
	return __float_as_uint(x);
}

/* Canonical key of a float64: one NaN, one zero, otherwise the bits. */
__device__ __forceinline__ uint64_t
gpo_rle_key(double x)
{
	if (x != x)
		return 0x7ff8000000000000ull;
	if (x == 0.0)
		return 0ull;
	return (uint64_t) __double_as_longlong(x);
}

/* Loads 4 consecutive values with vector loads (p aligned to 4 * sizeof(T), max 16). */
template <typename T>
__device__ __forceinline__ void
gpo_load4(const T *p, T x[4])
{
	if constexpr (sizeof(T) == 4)
	{
		uint4		u = *(const uint4 *) p;

		memcpy(x, &u, 16);
	}
	else if constexpr (sizeof(T) == 8)
	{
		uint4		a = ((const uint4 *) p)[0];
		uint4		b = ((const uint4 *) p)[1];

		memcpy(x, &a, 16);
		memcpy(x + 2, &b, 16);
	}
	else
	{
		uint32_t	u = *(const uint32_t *) p;

		memcpy(x, &u, 4);
	}
}

/* Alignment bits passed to the heads kernel. */
#define GPO_ALIGNED_IN		1
#define GPO_ALIGNED_VALID	2
#define GPO_ALIGNED_HEADS	4

/*
 * Boundary flags, four rows per thread and step: d_heads[i] = 1 when row i
 * starts a run.  Adds the number of heads to *d_count when it is not NULL
 * (the caller zeroed it).  aligned says which pointers allow vector access.
 */
template <typename T>
__global__ void
__launch_bounds__(GPO_CUDA_THREADS)
gpo_k_rle_heads(const T *d_in, const uint8_t *d_valid, int64_t n, int aligned,
				uint8_t *d_heads, unsigned long long *d_count)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;
	int64_t		groups = (n + 3) / 4;
	unsigned long long local = 0;

	for (int64_t g = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
		 g < groups; g += stride)
	{
		int64_t		i0 = g * 4;
		bool		full = i0 + 4 <= n;
		T			x[4];
		uint32_t	vb = 0x01010101u;	/* validity bytes of the 4 rows */
		uint32_t	flags = 0;
		bool		pv = false;
		decltype(gpo_rle_key(x[0])) pk = 0;

		if (full && (aligned & GPO_ALIGNED_IN))
			gpo_load4(d_in + i0, x);
		else
			for (int k = 0; k < 4; k++)
				x[k] = i0 + k < n ? d_in[i0 + k] : (T) 0;
		if (d_valid != NULL)
		{
			if (full && (aligned & GPO_ALIGNED_VALID))
				vb = *(const uint32_t *) (d_valid + i0);
			else
			{
				vb = 0;
				for (int k = 0; k < 4; k++)
					if (i0 + k < n && d_valid[i0 + k] != 0)
						vb |= 1u << (8 * k);
			}
		}
		if (i0 > 0)
		{
			pv = d_valid == NULL || d_valid[i0 - 1] != 0;
			pk = gpo_rle_key(d_in[i0 - 1]);
		}
		for (int k = 0; k < 4; k++)
		{
			bool		v = ((vb >> (8 * k)) & 0xffu) != 0;
			auto		key = gpo_rle_key(x[k]);
			bool		head;

			if (i0 + k >= n)
				break;
			head = (i0 + k == 0) || v != pv || (v && key != pk);
			flags |= (head ? 1u : 0u) << (8 * k);
			local += head ? 1 : 0;
			pv = v;
			pk = key;
		}
		if (full && (aligned & GPO_ALIGNED_HEADS))
			*(uint32_t *) (d_heads + i0) = flags;
		else
			for (int k = 0; k < 4 && i0 + k < n; k++)
				d_heads[i0 + k] = (uint8_t) ((flags >> (8 * k)) & 0xffu);
	}
	if (d_count != NULL)
		gpo_block_count_add(local, d_count);
}

/*
 * Materializes runs k < *d_count from their starts: value bits (E is the
 * raw type of elem bytes), validity byte and length; each output may be NULL.
 */
template <typename E>
__global__ void
__launch_bounds__(GPO_CUDA_THREADS)
gpo_k_rle_gather(const E *d_in, const uint8_t *d_valid, int64_t n,
				 const int64_t *d_starts, const int64_t *d_count,
				 E *d_values, uint8_t *d_values_valid, int64_t *d_lengths)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;
	int64_t		runs = *d_count;

	for (int64_t k = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
		 k < runs; k += stride)
	{
		int64_t		s = d_starts[k];

		if (d_lengths != NULL)
			d_lengths[k] = (k + 1 < runs ? d_starts[k + 1] : n) - s;
		if (d_values != NULL)
			d_values[k] = d_in[s];
		if (d_values_valid != NULL)
			d_values_valid[k] = d_valid == NULL ? 1 : (d_valid[s] != 0 ? 1 : 0);
	}
}

/* Launches the heads kernel for one value type. */
template <typename T>
static cudaError_t
gpo_rle_heads_typed(const T *d_in, const uint8_t *d_valid, int64_t n,
					uint8_t *d_heads, int64_t *d_count, cudaStream_t stream)
{
	size_t		vec_align = sizeof(T) * 4 < 16 ? sizeof(T) * 4 : 16;
	int			aligned = 0;

	if ((uintptr_t) d_in % vec_align == 0)
		aligned |= GPO_ALIGNED_IN;
	if ((uintptr_t) d_valid % 4 == 0)
		aligned |= GPO_ALIGNED_VALID;
	if ((uintptr_t) d_heads % 4 == 0)
		aligned |= GPO_ALIGNED_HEADS;
	gpo_k_rle_heads<T><<<gpo_cuda_blocks((n + 3) / 4), GPO_CUDA_THREADS, 0, stream>>>
		(d_in, d_valid, n, aligned, d_heads, (unsigned long long *) d_count);
	return cudaPeekAtLastError();
}

/* Run boundaries and the run count (see gpo_kernels.cuh). */
cudaError_t
gpo_cuda_rle_heads(gpo_type type, const void *d_in, const uint8_t *d_valid,
				   int64_t n, uint8_t *d_heads, int64_t *d_count,
				   cudaStream_t stream)
{
	cudaError_t err;

	if (d_count != NULL)
	{
		err = cudaMemsetAsync(d_count, 0, sizeof(int64_t), stream);
		if (err != cudaSuccess)
			return err;
	}
	if (n <= 0)
		return cudaSuccess;
	switch (type)
	{
		case GPO_INT32:
			return gpo_rle_heads_typed((const int32_t *) d_in, d_valid, n, d_heads, d_count, stream);
		case GPO_UINT32:
			return gpo_rle_heads_typed((const uint32_t *) d_in, d_valid, n, d_heads, d_count, stream);
		case GPO_INT64:
			return gpo_rle_heads_typed((const int64_t *) d_in, d_valid, n, d_heads, d_count, stream);
		case GPO_FLOAT32:
			return gpo_rle_heads_typed((const float *) d_in, d_valid, n, d_heads, d_count, stream);
		case GPO_FLOAT64:
			return gpo_rle_heads_typed((const double *) d_in, d_valid, n, d_heads, d_count, stream);
		case GPO_UINT8:
			return gpo_rle_heads_typed((const uint8_t *) d_in, d_valid, n, d_heads, d_count, stream);
	}
	return cudaErrorInvalidValue;
}

/* Materializes runs from their starts (see gpo_kernels.cuh). */
cudaError_t
gpo_cuda_rle_gather(size_t elem, const void *d_in, const uint8_t *d_valid,
					int64_t n, const int64_t *d_starts, const int64_t *d_count,
					void *d_values, uint8_t *d_values_valid,
					int64_t *d_lengths, cudaStream_t stream)
{
	unsigned int blocks = gpo_cuda_blocks(n);

	if (n <= 0 || (d_values == NULL && d_values_valid == NULL && d_lengths == NULL))
		return cudaSuccess;
	switch (elem)
	{
		case 1:
			gpo_k_rle_gather<uint8_t><<<blocks, GPO_CUDA_THREADS, 0, stream>>>
				((const uint8_t *) d_in, d_valid, n, d_starts, d_count,
				 (uint8_t *) d_values, d_values_valid, d_lengths);
			break;
		case 4:
			gpo_k_rle_gather<uint32_t><<<blocks, GPO_CUDA_THREADS, 0, stream>>>
				((const uint32_t *) d_in, d_valid, n, d_starts, d_count,
				 (uint32_t *) d_values, d_values_valid, d_lengths);
			break;
		case 8:
			gpo_k_rle_gather<uint64_t><<<blocks, GPO_CUDA_THREADS, 0, stream>>>
				((const uint64_t *) d_in, d_valid, n, d_starts, d_count,
				 (uint64_t *) d_values, d_values_valid, d_lengths);
			break;
		default:
			return cudaErrorInvalidValue;
	}
	return cudaPeekAtLastError();
}

/* The whole device-resident run-length encoding (see gpo_kernels.cuh). */
cudaError_t
gpo_cuda_rle(gpo_type type, const void *d_in, const uint8_t *d_valid,
			 int64_t n, void *d_values, uint8_t *d_values_valid,
			 int64_t *d_starts, int64_t *d_lengths, int64_t *d_count,
			 void *d_temp, size_t *temp_bytes, cudaStream_t stream)
{
	size_t		elem = gpo_type_size(type);
	size_t		heads_bytes = gpo_round256(n > 0 ? (size_t) n : 1);
	size_t		sel_bytes = 0;
	uint8_t    *d_heads;
	cudaError_t err;

	if (d_starts == NULL || elem == 0 || temp_bytes == NULL)
		return cudaErrorInvalidValue;
	/* the selection's temporary memory, sized (its pointers are not read) */
	err = gpo_cuda_compact(NULL, NULL, n, false, d_starts, d_count, NULL,
						   &sel_bytes, stream);
	if (err != cudaSuccess)
		return err;
	if (d_temp == NULL)
	{
		*temp_bytes = heads_bytes + sel_bytes;
		return cudaSuccess;
	}
	if (*temp_bytes < heads_bytes + sel_bytes)
		return cudaErrorInvalidValue;
	if (n <= 0)
		return cudaMemsetAsync(d_count, 0, sizeof(int64_t), stream);

	d_heads = (uint8_t *) d_temp;
	err = gpo_cuda_rle_heads(type, d_in, d_valid, n, d_heads, NULL, stream);
	if (err != cudaSuccess)
		return err;
	err = gpo_cuda_compact(d_heads, NULL, n, false, d_starts, d_count,
						   (char *) d_temp + heads_bytes, &sel_bytes, stream);
	if (err != cudaSuccess)
		return err;
	return gpo_cuda_rle_gather(elem, d_in, d_valid, n, d_starts, d_count,
							   d_values, d_values_valid, d_lengths, stream);
}

/* Checks an optional RLE output's type; sets detail if wrong. */
static bool
gpo_rle_out_ok(gpo_ctx *ctx, const gpo_vector *v, gpo_type want, const char *what)
{
	if (v == NULL)
		return true;
	if (gpo_cuda_check_vector(ctx, v, what) != GPO_OK)
		return false;
	if (v->type != want)
	{
		snprintf(ctx->detail, sizeof(ctx->detail), "rle %s has the wrong type", what);
		return false;
	}
	return true;
}

/* Sets GPO_ERR_CAPACITY's detail if an optional output holds fewer than runs rows. */
static bool
gpo_rle_fits(gpo_ctx *ctx, const gpo_vector *v, int64_t runs, const char *what)
{
	if (v == NULL || gpo_vector_rows(v) >= runs)
		return true;
	snprintf(ctx->detail, sizeof(ctx->detail), "rle %s holds %lld rows but there are %lld runs",
			 what, (long long) gpo_vector_rows(v), (long long) runs);
	return false;
}

/* Run-length encoding GPU face (see gpo.h). */
extern "C" gpo_status
gpo_rle_gpu(gpo_ctx *ctx, const gpo_vector *in, gpo_vector *values,
			gpo_vector *starts, gpo_vector *lengths, int64_t *count)
{
	gpo_status	st = GPO_OK;
	sigset_t	old;
	bool		began = false;
	int64_t		n;
	int64_t		runs = 0;
	size_t		elem;
	void	   *d_in = NULL;
	uint8_t    *d_valid = NULL;
	uint8_t    *d_heads = NULL;
	int64_t    *d_count = NULL;
	int64_t    *d_starts = NULL;
	void	   *d_values = NULL;
	uint8_t    *d_values_valid = NULL;
	int64_t    *d_lengths = NULL;
	void	   *d_temp = NULL;
	size_t		temp_bytes = 0;

	if (ctx == NULL || in == NULL || count == NULL)
		return GPO_ERR_INVALID;
	GPO_TRY(gpo_cuda_check_vector(ctx, in, "rle input"));
	if (!gpo_rle_out_ok(ctx, values, in->type, "values") ||
		!gpo_rle_out_ok(ctx, starts, GPO_INT64, "starts") ||
		!gpo_rle_out_ok(ctx, lengths, GPO_INT64, "lengths"))
		return GPO_ERR_INVALID;
	n = gpo_vector_rows(in);
	if (n == 0)
	{
		*count = 0;
		return GPO_OK;
	}
	elem = gpo_type_size(in->type);

	st = gpo_cuda_begin(ctx, &old);
	began = true;				/* gpo_cuda_end is harmless after a failure */
	if (st != GPO_OK)
		goto cleanup;

	GPO_TRY(gpo_cuda_column_up(ctx, in, n, "rle input", &d_in, &d_valid));
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_heads, (size_t) n, "rle boundary flags"));
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_count, sizeof(int64_t), "rle count"));

	/* size: flag the run heads and count them; publish the count */
	GPO_CUDA_TRY(gpo_cuda_rle_heads(in->type, d_in, d_valid, n, d_heads, d_count, 0));
	GPO_CUDA_TRY(cudaMemcpy(&runs, d_count, sizeof(int64_t), cudaMemcpyDeviceToHost));
	*count = runs;
	if (!gpo_rle_fits(ctx, values, runs, "values") ||
		!gpo_rle_fits(ctx, starts, runs, "starts") ||
		!gpo_rle_fits(ctx, lengths, runs, "lengths"))
	{
		st = GPO_ERR_CAPACITY;
		goto cleanup;
	}
	if (values == NULL && starts == NULL && lengths == NULL)
		goto cleanup;

	/* fill: the heads' row numbers, then values, validity and lengths */
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_starts, (size_t) runs * sizeof(int64_t),
						   "rle starts"));
	GPO_CUDA_TRY(gpo_cuda_compact(d_heads, NULL, n, false, d_starts, d_count,
								  NULL, &temp_bytes, 0));
	GPO_TRY(gpo_cuda_alloc(ctx, &d_temp, temp_bytes, "rle temporary"));
	GPO_CUDA_TRY(gpo_cuda_compact(d_heads, NULL, n, false, d_starts, d_count,
								  d_temp, &temp_bytes, 0));
	if (values != NULL)
	{
		GPO_TRY(gpo_cuda_alloc(ctx, &d_values, (size_t) runs * elem, "rle values"));
		if (d_valid != NULL && gpo_cuda_has_validity(values))
			GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_values_valid, (size_t) runs,
								   "rle values validity"));
	}
	if (lengths != NULL)
		GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_lengths,
							   (size_t) runs * sizeof(int64_t), "rle lengths"));
	GPO_CUDA_TRY(gpo_cuda_rle_gather(elem, d_in, d_valid, n, d_starts, d_count,
									 d_values, d_values_valid, d_lengths, 0));

	if (values != NULL)
	{
		GPO_TRY(gpo_cuda_download(ctx, values, elem, d_values, runs));
		GPO_TRY(gpo_cuda_download_valid(ctx, values, d_values_valid, runs));
	}
	if (starts != NULL)
		GPO_TRY(gpo_cuda_download(ctx, starts, sizeof(int64_t), d_starts, runs));
	if (lengths != NULL)
		GPO_TRY(gpo_cuda_download(ctx, lengths, sizeof(int64_t), d_lengths, runs));

cleanup:
	if (d_temp != NULL)
		gpo_cuda_free(d_temp);
	if (d_lengths != NULL)
		gpo_cuda_free(d_lengths);
	if (d_values_valid != NULL)
		gpo_cuda_free(d_values_valid);
	if (d_values != NULL)
		gpo_cuda_free(d_values);
	if (d_starts != NULL)
		gpo_cuda_free(d_starts);
	if (d_count != NULL)
		gpo_cuda_free(d_count);
	if (d_heads != NULL)
		gpo_cuda_free(d_heads);
	if (d_valid != NULL)
		gpo_cuda_free(d_valid);
	if (d_in != NULL)
		gpo_cuda_free(d_in);
	if (began)
		gpo_cuda_end(&old);
	return st;
}
