/*
 * transfer.cu
 *	  Moving chunked host vectors to and from contiguous device buffers.
 *
 * A vector is uploaded into one contiguous device buffer (one copy per chunk
 * at its row offset), so the kernels see one logical column and chunk seams,
 * empty chunks included, vanish by construction.  A chunk's validity bitmap
 * starts at bit 0 of the chunk's own first row; on the device validity is
 * one byte per row (1 = valid), expanded from each chunk's bitmap by a
 * kernel and packed back into each output chunk's bitmap the same way.
 * Downloads write only the published prefix of an output and leave its
 * spare capacity, including the spare bits of a shared last bitmap byte,
 * untouched.
 */
#include <string.h>

#include "gpo_cuda.cuh"

/* Expands rows bits of a chunk bitmap into one byte per row. */
__global__ void
gpo_k_bits_to_bytes(const uint8_t *d_bits, int64_t rows, uint8_t *d_bytes)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
		 i < rows; i += stride)
		d_bytes[i] = (d_bits[i >> 3] >> (i & 7)) & 1;
}

/* Packs rows validity bytes into a bitmap; bits past rows are 0. */
__global__ void
gpo_k_bytes_to_bits(const uint8_t *d_bytes, int64_t rows, uint8_t *d_bits)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;
	int64_t		nbytes = (rows + 7) / 8;

	for (int64_t j = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
		 j < nbytes; j += stride)
	{
		unsigned int b = 0;

		for (int k = 0; k < 8; k++)
		{
			int64_t		r = j * 8 + k;

			if (r < rows && d_bytes[r] != 0)
				b |= 1u << k;
		}
		d_bits[j] = (uint8_t) b;
	}
}

/* True if some chunk of v has a validity bitmap. */
bool
gpo_cuda_has_validity(const gpo_vector *v)
{
	if (v == NULL || v->chunks == NULL)
		return false;
	for (int32_t c = 0; c < v->nchunks; c++)
		if (v->chunks[c].validity != NULL && v->chunks[c].n > 0)
			return true;
	return false;
}

/* Checks that every chunk with rows has data; sets detail if not. */
gpo_status
gpo_cuda_check_vector(gpo_ctx *ctx, const gpo_vector *v, const char *what)
{
	if (v == NULL || (v->nchunks > 0 && v->chunks == NULL) || v->nchunks < 0)
		goto bad;
	if (gpo_type_size(v->type) == 0)
		goto bad;
	for (int32_t c = 0; c < v->nchunks; c++)
		if (v->chunks[c].n < 0 || (v->chunks[c].n > 0 && v->chunks[c].data == NULL))
			goto bad;
	return GPO_OK;

bad:
	if (ctx != NULL)
		snprintf(ctx->detail, sizeof(ctx->detail), "malformed %s vector", what);
	return GPO_ERR_INVALID;
}

/* cudaMalloc of bytes (at least 1) into *d_ptr, with the status mapping. */
gpo_status
gpo_cuda_alloc(gpo_ctx *ctx, void **d_ptr, size_t bytes, const char *what)
{
	cudaError_t err;

	*d_ptr = NULL;
	err = cudaMalloc(d_ptr, bytes > 0 ? bytes : 1);
	if (err != cudaSuccess)
	{
		*d_ptr = NULL;
		return gpo_cuda_fail(ctx, err, what);
	}
	return GPO_OK;
}

/* Copies the first rows rows of v (elem bytes each) into d_dst, chunk by chunk. */
gpo_status
gpo_cuda_upload(gpo_ctx *ctx, const gpo_vector *v, size_t elem, void *d_dst,
				int64_t rows)
{
	gpo_status	st = GPO_OK;
	int64_t		off = 0;

	for (int32_t c = 0; c < v->nchunks && off < rows; c++)
	{
		const gpo_chunk *ch = &v->chunks[c];
		int64_t		take = ch->n < rows - off ? ch->n : rows - off;

		if (take <= 0)
			continue;
		GPO_CUDA_TRY(cudaMemcpy((char *) d_dst + off * elem, ch->data,
								(size_t) take * elem, cudaMemcpyHostToDevice));
		off += take;
	}
	if (off < rows)
	{
		if (ctx != NULL)
			snprintf(ctx->detail, sizeof(ctx->detail),
					 "vector has %lld rows, %lld needed",
					 (long long) off, (long long) rows);
		st = GPO_ERR_INVALID;
	}
cleanup:
	return st;
}

/*
 * Expands the validity of the first rows rows of v into a new device byte
 * array *d_valid, or leaves it NULL when no chunk has a bitmap.
 */
gpo_status
gpo_cuda_upload_valid(gpo_ctx *ctx, const gpo_vector *v, int64_t rows,
					  uint8_t **d_valid)
{
	gpo_status	st = GPO_OK;
	uint8_t    *d_bytes = NULL;
	uint8_t    *d_bits = NULL;
	size_t		nbits = 0;
	size_t		boff = 0;
	int64_t		off = 0;

	*d_valid = NULL;
	if (rows <= 0 || !gpo_cuda_has_validity(v))
		return GPO_OK;

	/* room for every chunk's bitmap, each starting on a byte */
	for (int32_t c = 0; c < v->nchunks && off < rows; c++)
	{
		int64_t		take = v->chunks[c].n < rows - off ? v->chunks[c].n : rows - off;

		if (take <= 0)
			continue;
		if (v->chunks[c].validity != NULL)
			nbits += (size_t) (take + 7) / 8;
		off += take;
	}
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_bytes, (size_t) rows, "validity bytes"));
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_bits, nbits, "validity bitmap"));

	off = 0;
	for (int32_t c = 0; c < v->nchunks && off < rows; c++)
	{
		const gpo_chunk *ch = &v->chunks[c];
		int64_t		take = ch->n < rows - off ? ch->n : rows - off;

		if (take <= 0)
			continue;
		if (ch->validity != NULL)
		{
			size_t		nb = (size_t) (take + 7) / 8;

			GPO_CUDA_TRY(cudaMemcpy(d_bits + boff, ch->validity, nb,
									cudaMemcpyHostToDevice));
			gpo_k_bits_to_bytes<<<gpo_cuda_blocks(take), GPO_CUDA_THREADS>>>
				(d_bits + boff, take, d_bytes + off);
			GPO_CUDA_TRY(GPO_LAUNCHED());
			boff += nb;
		}
		else
			GPO_CUDA_TRY(cudaMemset(d_bytes + off, 1, (size_t) take));
		off += take;
	}
	*d_valid = d_bytes;
	d_bytes = NULL;

cleanup:
	if (d_bits != NULL)
		cudaFree(d_bits);
	if (d_bytes != NULL)
		cudaFree(d_bytes);
	return st;
}

/* Copies rows rows of elem bytes from d_src into out's chunks, in order. */
gpo_status
gpo_cuda_download(gpo_ctx *ctx, gpo_vector *out, size_t elem,
				  const void *d_src, int64_t rows)
{
	gpo_status	st = GPO_OK;
	int64_t		off = 0;

	for (int32_t c = 0; c < out->nchunks && off < rows; c++)
	{
		gpo_chunk  *ch = &out->chunks[c];
		int64_t		take = ch->n < rows - off ? ch->n : rows - off;

		if (take <= 0)
			continue;
		GPO_CUDA_TRY(cudaMemcpy(ch->data, (const char *) d_src + off * elem,
								(size_t) take * elem, cudaMemcpyDeviceToHost));
		off += take;
	}
	if (off < rows)
	{
		if (ctx != NULL)
			snprintf(ctx->detail, sizeof(ctx->detail),
					 "output holds %lld rows, %lld needed",
					 (long long) off, (long long) rows);
		st = GPO_ERR_CAPACITY;
	}
cleanup:
	return st;
}

/* Merges the low nbits bits of src into *dst, keeping dst's other bits. */
static void
gpo_merge_bits(uint8_t *dst, uint8_t src, int nbits)
{
	uint8_t		mask = (uint8_t) ((1u << nbits) - 1);

	*dst = (uint8_t) ((*dst & ~mask) | (src & mask));
}

/*
 * Writes the validity of rows rows (device bytes, or all valid when d_valid
 * is NULL) into the bitmaps of out's chunks that have one.
 */
gpo_status
gpo_cuda_download_valid(gpo_ctx *ctx, gpo_vector *out, const uint8_t *d_valid,
						int64_t rows)
{
	gpo_status	st = GPO_OK;
	uint8_t    *d_bits = NULL;
	size_t		maxbits = 0;
	int64_t		off = 0;

	if (rows <= 0 || !gpo_cuda_has_validity(out))
		return GPO_OK;

	if (d_valid != NULL)
	{
		for (int32_t c = 0; c < out->nchunks && off < rows; c++)
		{
			int64_t		take = out->chunks[c].n < rows - off ? out->chunks[c].n : rows - off;

			if (take <= 0)
				continue;
			if (out->chunks[c].validity != NULL && (size_t) (take + 7) / 8 > maxbits)
				maxbits = (size_t) (take + 7) / 8;
			off += take;
		}
		GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_bits, maxbits, "validity bitmap"));
	}

	off = 0;
	for (int32_t c = 0; c < out->nchunks && off < rows; c++)
	{
		gpo_chunk  *ch = &out->chunks[c];
		int64_t		take = ch->n < rows - off ? ch->n : rows - off;
		size_t		full;
		int			rem;
		uint8_t		last = 0xff;

		if (take <= 0)
			continue;
		if (ch->validity == NULL)
		{
			off += take;
			continue;
		}
		full = (size_t) (take / 8);
		rem = (int) (take % 8);
		if (d_valid != NULL)
		{
			gpo_k_bytes_to_bits<<<gpo_cuda_blocks((take + 7) / 8), GPO_CUDA_THREADS>>>
				(d_valid + off, take, d_bits);
			GPO_CUDA_TRY(GPO_LAUNCHED());
			if (full > 0)
				GPO_CUDA_TRY(cudaMemcpy(ch->validity, d_bits, full,
										cudaMemcpyDeviceToHost));
			if (rem > 0)
				GPO_CUDA_TRY(cudaMemcpy(&last, d_bits + full, 1,
										cudaMemcpyDeviceToHost));
		}
		else if (full > 0)
			memset(ch->validity, 0xff, full);
		if (rem > 0)
			gpo_merge_bits(&ch->validity[full], last, rem);
		off += take;
	}

cleanup:
	if (d_bits != NULL)
		cudaFree(d_bits);
	return st;
}
