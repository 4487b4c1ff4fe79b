/*
 * transfer.cu
 *	  Moving chunked host vectors to and from contiguous device buffers.
 *
 * A vector is uploaded into one contiguous device buffer (each chunk at its
 * row offset), so the kernels see one logical column and chunk seams, empty
 * chunks included, vanish by construction.  The chunks travel as one staged
 * transfer (memory.cu): many small chunks share one copy, large ones are
 * split and double-buffered.  A chunk's validity bitmap starts at bit 0 of
 * the chunk's own first row; on the host the chunks' bitmaps are shifted
 * into (or out of) one bitmap of the whole column, whose bit r is row r,
 * and on the device validity is one byte per row (1 = valid), expanded from
 * or packed into that bitmap by one kernel.  Downloads write only the
 * published prefix of an output and leave its spare capacity, including the
 * spare bits of a shared last bitmap byte, untouched.
 */
#include <stdlib.h>
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

/*
 * Describes the data of the first rows rows of v (elem bytes each) as spans
 * of one contiguous range; *have gets the rows found (at most rows).  The
 * caller frees *spans.
 */
static gpo_status
gpo_vector_spans(gpo_ctx *ctx, const gpo_vector *v, size_t elem, int64_t rows,
				 gpo_span **spans, int64_t *nspans, int64_t *have)
{
	int64_t		off = 0;
	int64_t		ns = 0;

	*spans = NULL;
	*nspans = 0;
	*have = 0;
	if (rows <= 0 || v->nchunks <= 0)
		return GPO_OK;
	*spans = (gpo_span *) malloc(sizeof(gpo_span) * (size_t) v->nchunks);
	if (*spans == NULL)
	{
		if (ctx != NULL)
			snprintf(ctx->detail, sizeof(ctx->detail),
					 "out of host memory for a transfer of %d chunks",
					 (int) v->nchunks);
		return GPO_ERR_NOMEM;
	}
	for (int32_t c = 0; c < v->nchunks && off < rows; c++)
	{
		const gpo_chunk *ch = &v->chunks[c];
		int64_t		take = ch->n < rows - off ? ch->n : rows - off;

		if (take <= 0)
			continue;
		(*spans)[ns].host = (char *) ch->data;
		(*spans)[ns].off = (size_t) off * elem;
		(*spans)[ns].len = (size_t) take * elem;
		ns++;
		off += take;
	}
	*nspans = ns;
	*have = off;
	return GPO_OK;
}

/*
 * ORs nbits bits of src (all ones when src is NULL) into dst from bit at on;
 * src's bits past nbits are ignored.  dst's bits there must be 0.
 */
static void
gpo_bits_put(uint8_t *dst, int64_t at, const uint8_t *src, int64_t nbits)
{
	uint8_t    *base = dst + (at >> 3);
	int			s = (int) (at & 7);
	int64_t		full = nbits / 8;
	int			rem = (int) (nbits % 8);

	if (s == 0)
	{
		if (src != NULL)
			memcpy(base, src, (size_t) full);
		else
			memset(base, 0xff, (size_t) full);
		if (rem > 0)
			base[full] |= (uint8_t) ((src != NULL ? src[full] : 0xffu) & ((1u << rem) - 1));
		return;
	}
	for (int64_t j = 0; j < full + (rem > 0); j++)
	{
		unsigned int b = src != NULL ? src[j] : 0xffu;

		if (j == full)
			b &= (1u << rem) - 1;
		base[j] |= (uint8_t) (b << s);
		/* the high bits go to the next byte, which exists if any are set */
		if ((b >> (8 - s)) != 0)
			base[j + 1] |= (uint8_t) (b >> (8 - s));
	}
}

/* Merges the low nbits bits of src into *dst, keeping dst's other bits. */
static void
gpo_merge_bits(uint8_t *dst, uint8_t src, int nbits)
{
	uint8_t		mask = (uint8_t) ((1u << nbits) - 1);

	*dst = (uint8_t) ((*dst & ~mask) | (src & mask));
}

/*
 * Writes bits [at, at + nbits) of the column bitmap g into dst from bit 0
 * on; dst's bits past nbits (in its last byte) are kept.
 */
static void
gpo_bits_get(uint8_t *dst, const uint8_t *g, int64_t at, int64_t nbits)
{
	const uint8_t *base = g + (at >> 3);
	int			s = (int) (at & 7);
	int64_t		full = nbits / 8;
	int			rem = (int) (nbits % 8);

	if (s == 0)
	{
		memcpy(dst, base, (size_t) full);
		if (rem > 0)
			gpo_merge_bits(&dst[full], base[full], rem);
		return;
	}
	/* g holds every bit below at + nbits, so base[j + 1] exists here */
	for (int64_t j = 0; j < full; j++)
		dst[j] = (uint8_t) ((base[j] >> s) | (base[j + 1] << (8 - s)));
	if (rem > 0)
	{
		unsigned int b = base[full] >> s;

		if (s + rem > 8)
			b |= (unsigned int) base[full + 1] << (8 - s);
		gpo_merge_bits(&dst[full], (uint8_t) b, rem);
	}
}

/*
 * Moves the first rows rows of v (elem bytes each) between its chunks and
 * d_dev, every chunk at its row offset, as one staged transfer.  A vector
 * with fewer rows is malformed as an input (GPO_ERR_INVALID) and too small
 * as an output (GPO_ERR_CAPACITY).
 */
gpo_status
gpo_cuda_transfer(gpo_ctx *ctx, gpo_dir dir, const gpo_vector *v, size_t elem,
				  void *d_dev, int64_t rows)
{
	gpo_status	st = GPO_OK;
	gpo_span   *spans = NULL;
	int64_t		nspans = 0;
	int64_t		have = 0;

	GPO_TRY(gpo_vector_spans(ctx, v, elem, rows, &spans, &nspans, &have));
	GPO_TRY(gpo_cuda_stage(ctx, dir, d_dev, spans, nspans, (size_t) have * elem));
	if (have < rows)
	{
		if (ctx != NULL)
			snprintf(ctx->detail, sizeof(ctx->detail),
					 dir == GPO_TO_DEVICE ? "vector has %lld rows, %lld needed" :
					 "output holds %lld rows, %lld needed",
					 (long long) have, (long long) rows);
		st = dir == GPO_TO_DEVICE ? GPO_ERR_INVALID : GPO_ERR_CAPACITY;
	}
cleanup:
	free(spans);
	return st;
}

/*
 * Shifts the column bitmap g (bit r is row r) over the first rows rows of
 * v: to the device, every chunk's bitmap (all ones where a chunk has none)
 * is ORed into g, whose bits must be 0; to the host, g's bits (all ones
 * when g is NULL) go into the chunks that have a bitmap, whose bits past
 * their rows are kept.
 */
static void
gpo_chunk_bits(gpo_dir dir, const gpo_vector *v, int64_t rows, uint8_t *g)
{
	int64_t		off = 0;

	for (int32_t c = 0; c < v->nchunks && off < rows; c++)
	{
		const gpo_chunk *ch = &v->chunks[c];
		int64_t		take = ch->n < rows - off ? ch->n : rows - off;

		if (take <= 0)
			continue;
		if (dir == GPO_TO_DEVICE)
			gpo_bits_put(g, off, ch->validity, take);
		else if (ch->validity != NULL && g != NULL)
			gpo_bits_get(ch->validity, g, off, take);
		else if (ch->validity != NULL)
		{
			memset(ch->validity, 0xff, (size_t) (take / 8));
			if (take % 8 > 0)
				gpo_merge_bits(&ch->validity[take / 8], 0xff, (int) (take % 8));
		}
		off += take;
	}
}

/*
 * Moves the column bitmap bits of rows rows between the host and d_bytes,
 * one device byte per row: to the device it is staged up and expanded into
 * d_bytes, to the host d_bytes is packed on the device and staged down.
 */
static gpo_status
gpo_cuda_bits_move(gpo_ctx *ctx, gpo_dir dir, uint8_t *bits, int64_t rows,
				   uint8_t *d_bytes)
{
	gpo_status	st = GPO_OK;
	size_t		nbytes = (size_t) (rows + 7) / 8;
	uint8_t    *d_bits = NULL;
	gpo_span	span;

	span.host = (char *) bits;
	span.off = 0;
	span.len = nbytes;
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_bits, nbytes, "validity bitmap"));
	if (dir == GPO_TO_HOST)
	{
		gpo_k_bytes_to_bits<<<gpo_cuda_blocks((int64_t) nbytes), GPO_CUDA_THREADS>>>
			(d_bytes, rows, d_bits);
		GPO_CUDA_TRY(GPO_LAUNCHED());
	}
	GPO_TRY(gpo_cuda_stage(ctx, dir, d_bits, &span, 1, nbytes));
	if (dir == GPO_TO_DEVICE)
	{
		gpo_k_bits_to_bytes<<<gpo_cuda_blocks(rows), GPO_CUDA_THREADS>>>
			(d_bits, rows, d_bytes);
		GPO_CUDA_TRY(GPO_LAUNCHED());
	}
cleanup:
	/* a staged upload has copied bits out already; the free is stream-ordered */
	gpo_cuda_free(d_bits);
	return st;
}

/* A zeroed host bitmap of rows rows into *bits; sets detail if there is no memory. */
static gpo_status
gpo_bitmap_new(gpo_ctx *ctx, int64_t rows, uint8_t **bits)
{
	*bits = (uint8_t *) calloc((size_t) (rows + 7) / 8, 1);
	if (*bits != NULL)
		return GPO_OK;
	if (ctx != NULL)
		snprintf(ctx->detail, sizeof(ctx->detail),
				 "out of host memory for a validity bitmap of %lld rows",
				 (long long) rows);
	return GPO_ERR_NOMEM;
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
	uint8_t    *bits = NULL;

	*d_valid = NULL;
	if (rows <= 0 || !gpo_cuda_has_validity(v))
		return GPO_OK;
	/* one bitmap of the column on the host; rows past the vector stay 0 */
	GPO_TRY(gpo_bitmap_new(ctx, rows, &bits));
	gpo_chunk_bits(GPO_TO_DEVICE, v, rows, bits);
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_bytes, (size_t) rows, "validity bytes"));
	GPO_TRY(gpo_cuda_bits_move(ctx, GPO_TO_DEVICE, bits, rows, d_bytes));
	*d_valid = d_bytes;
	d_bytes = NULL;
cleanup:
	gpo_cuda_free(d_bytes);
	free(bits);
	return st;
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
	uint8_t    *bits = NULL;

	if (rows <= 0 || !gpo_cuda_has_validity(out))
		return GPO_OK;
	/* one bitmap of the column, packed on the device and staged down */
	if (d_valid != NULL)
	{
		GPO_TRY(gpo_bitmap_new(ctx, rows, &bits));
		GPO_TRY(gpo_cuda_bits_move(ctx, GPO_TO_HOST, bits, rows, (uint8_t *) d_valid));
	}
	gpo_chunk_bits(GPO_TO_HOST, out, rows, bits);
cleanup:
	free(bits);
	return st;
}

/* One input column onto the device: data and validity (see gpo_cuda.cuh). */
gpo_status
gpo_cuda_column_to(gpo_ctx *ctx, const gpo_vector *v, int64_t rows,
				   void *d_data, uint8_t **d_valid)
{
	gpo_status	st = GPO_OK;

	if (d_data != NULL)
		GPO_TRY(gpo_cuda_upload(ctx, v, gpo_type_size(v->type), d_data, rows));
	if (d_valid != NULL)
		GPO_TRY(gpo_cuda_upload_valid(ctx, v, rows, d_valid));
cleanup:
	return st;
}

/* The face prologue of one input column (see gpo_cuda.cuh). */
gpo_status
gpo_cuda_column_up(gpo_ctx *ctx, const gpo_vector *v, int64_t rows,
				   const char *what, void **d_data, uint8_t **d_valid)
{
	gpo_status	st = GPO_OK;
	void	   *d_new = NULL;

	if (d_valid != NULL)
		*d_valid = NULL;
	if (d_data != NULL)
	{
		*d_data = NULL;
		GPO_TRY(gpo_cuda_alloc(ctx, &d_new,
							   gpo_type_size(v->type) * (size_t) (rows > 0 ? rows : 0),
							   what));
	}
	GPO_TRY(gpo_cuda_column_to(ctx, v, rows, d_new, d_valid));
	if (d_data != NULL)
		*d_data = d_new;
	return GPO_OK;
cleanup:
	gpo_cuda_free(d_new);
	return st;
}
