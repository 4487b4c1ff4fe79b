/*
 * gather.cu
 *	  Gather by index map (out[i] = in[index[i]]), the GPU face.
 *
 * The input and the index go to contiguous device buffers (chunk by chunk,
 * validity expanded to bytes), one grid-stride kernel per value width copies
 * the raw bits and the validity, and the result goes back chunk by chunk.
 * A valid index outside the input sets a device status word that the host
 * face turns into GPO_ERR_INVALID.
 */
#include <stdio.h>

#include "gpo_cuda.cuh"
#include "gpo_histjoin.cuh"

/* One value width's gather. */
template <typename T>
__global__ void
gpo_gather_kernel(const T *d_in, const uint8_t *d_in_valid, int64_t n_in,
				  const int64_t *d_index, const uint8_t *d_index_valid,
				  int64_t n, T *d_out, uint8_t *d_out_valid,
				  unsigned int *d_bad)
{
	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
		 i += (int64_t) gridDim.x * blockDim.x)
	{
		uint8_t		valid = 0;
		T			v = 0;

		if (d_index_valid == NULL || d_index_valid[i] != 0)
		{
			int64_t		src = d_index[i];

			if (src < 0 || src >= n_in)
			{
				*d_bad = 1;
				continue;
			}
			v = d_in[src];
			valid = d_in_valid == NULL ? 1 : d_in_valid[src];
		}
		d_out[i] = v;
		if (d_out_valid != NULL)
			d_out_valid[i] = valid;
	}
}

/* Device gather (see gpo_histjoin.cuh). */
cudaError_t
gpo_cuda_gather(size_t elem, const void *d_in, const uint8_t *d_in_valid,
				int64_t n_in, const int64_t *d_index,
				const uint8_t *d_index_valid, int64_t n, void *d_out,
				uint8_t *d_out_valid, unsigned int *d_bad, cudaStream_t stream)
{
	unsigned int blocks = gpo_cuda_blocks(n);

	if (n == 0)
		return cudaSuccess;
	switch (elem)
	{
		case 1:
			gpo_gather_kernel<uint8_t><<<blocks, GPO_CUDA_THREADS, 0, stream>>>(
				(const uint8_t *) d_in, d_in_valid, n_in, d_index, d_index_valid,
				n, (uint8_t *) d_out, d_out_valid, d_bad);
			break;
		case 4:
			gpo_gather_kernel<uint32_t><<<blocks, GPO_CUDA_THREADS, 0, stream>>>(
				(const uint32_t *) d_in, d_in_valid, n_in, d_index, d_index_valid,
				n, (uint32_t *) d_out, d_out_valid, d_bad);
			break;
		case 8:
			gpo_gather_kernel<uint64_t><<<blocks, GPO_CUDA_THREADS, 0, stream>>>(
				(const uint64_t *) d_in, d_in_valid, n_in, d_index, d_index_valid,
				n, (uint64_t *) d_out, d_out_valid, d_bad);
			break;
		default:
			return cudaErrorInvalidValue;
	}
	return cudaPeekAtLastError();
}

/* Gather GPU face (see gpo_join.h). */
extern "C" gpo_status
gpo_gather_gpu(gpo_ctx *ctx, const gpo_vector *in, const gpo_vector *index,
			   gpo_vector *out)
{
	gpo_status	st = GPO_OK;
	sigset_t	old;
	bool		began = false;
	int64_t		n_in;
	int64_t		n;
	size_t		elem;
	unsigned int bad = 0;
	void	   *d_in = NULL;
	uint8_t    *d_in_valid = NULL;
	int64_t    *d_index = NULL;
	uint8_t    *d_index_valid = NULL;
	void	   *d_out = NULL;
	uint8_t    *d_out_valid = NULL;
	unsigned int *d_bad = NULL;

	if (ctx == NULL)
		return GPO_ERR_INVALID;
	if ((st = gpo_gather_check(ctx, in, index, out)) != GPO_OK)
		return st;
	n_in = gpo_vector_rows(in);
	n = gpo_vector_rows(index);
	elem = gpo_type_size(in->type);
	if (n == 0)
		return GPO_OK;

	st = gpo_cuda_begin(ctx, &old);
	began = true;				/* the signals are blocked even if it failed */
	if (st != GPO_OK)
		goto cleanup;
	GPO_TRY(gpo_cuda_column_up(ctx, in, n_in, "gather input", &d_in, &d_in_valid));
	GPO_TRY(gpo_cuda_column_up(ctx, index, n, "gather index", (void **) &d_index,
							   &d_index_valid));
	GPO_TRY(gpo_cuda_alloc(ctx, &d_out, elem * (size_t) n, "gather output"));
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_bad, sizeof(unsigned int),
						   "gather status"));
	if (gpo_cuda_has_validity(out))
		GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_out_valid, (size_t) n,
							   "gather output validity"));
	GPO_CUDA_TRY(cudaMemset(d_bad, 0, sizeof(unsigned int)));
	GPO_CUDA_TRY(gpo_cuda_gather(elem, d_in, d_in_valid, n_in, d_index,
								 d_index_valid, n, d_out, d_out_valid, d_bad, 0));
	GPO_CUDA_TRY(cudaMemcpy(&bad, d_bad, sizeof(bad), cudaMemcpyDeviceToHost));
	if (bad)
	{
		snprintf(ctx->detail, sizeof(ctx->detail),
				 "a gather index is outside the input's %lld rows",
				 (long long) n_in);
		st = GPO_ERR_INVALID;
		goto cleanup;
	}
	GPO_TRY(gpo_cuda_download(ctx, out, elem, d_out, n));
	if (d_out_valid != NULL)
		GPO_TRY(gpo_cuda_download_valid(ctx, out, d_out_valid, n));

cleanup:
	if (d_bad != NULL)
		gpo_cuda_free(d_bad);
	if (d_out_valid != NULL)
		gpo_cuda_free(d_out_valid);
	if (d_out != NULL)
		gpo_cuda_free(d_out);
	if (d_index_valid != NULL)
		gpo_cuda_free(d_index_valid);
	if (d_index != NULL)
		gpo_cuda_free(d_index);
	if (d_in_valid != NULL)
		gpo_cuda_free(d_in_valid);
	if (d_in != NULL)
		gpo_cuda_free(d_in);
	if (began)
		gpo_cuda_end(&old);
	return st;
}
