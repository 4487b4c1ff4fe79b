/*
 * resident_dims.cu
 *	  The star join of a gpo_resident_groupagg call on the GPU face
 *	  (gpo_resident.h): each dimension's row map drops the rows its join
 *	  does not keep from the sets' mask, and a dimension column's values are
 *	  read at the passing rows' dimension rows; as resident_dims.c does on
 *	  the CPU face.
 *
 * Both kernels take the sets as laid end to end (resident.cu): a row finds
 * its set by a binary search of the offsets, and its key of each dimension
 * in that set's key column, where the set keeps it (values, and one
 * validity byte a row or none).  The caller's row maps, dimension columns
 * and their validity bytes are in host memory: gpo_resident_dims_device
 * copies them to the device once a call.  They, and the small tables the
 * kernels read, come from the run's working memory (gpo_dmem).
 */
#include <stdlib.h>
#include <string.h>

#include "filter_cuda.cuh"
#include "gpo_agg_kernels.cuh"
#include "gpo_cuda.cuh"
#include "gpo_resident_internal.h"

/* One set's key column of one dimension. */
struct gpo_resident_dkey
{
	const void *data;			/* INT32 or INT64 values */
	const uint8_t *valid;		/* validity bytes; NULL: all valid */
	int32_t		wide;			/* 1: INT64 */
};

/* One dimension: its row map and join. */
struct gpo_resident_ddim
{
	const int32_t *row_of;		/* [span] */
	int64_t		lo;
	int64_t		span;
	int32_t		kind;			/* gpo_resident_join */
	int32_t		read;			/* 1: some dimension column reads it */
};

/* One dimension column, to its gathered column. */
struct gpo_resident_dmove
{
	const void *src;			/* values of the dimension's rows */
	const uint8_t *src_valid;	/* their validity bytes; NULL: all valid */
	void	   *dst;			/* the gathered column */
	uint8_t    *dst_valid;		/* NULL: the gathered column is never NULL */
	int32_t		dim;
	int32_t		width;			/* bytes a value: 4 or 8 */
};

/* The dimension row that row r's key k of dimension d matches, -1 for none. */
__device__ __forceinline__ int64_t
gpo_dim_row(const gpo_resident_dkey *k, const gpo_resident_ddim *d, int64_t r)
{
	int64_t		key;
	uint64_t	off;

	if (k->valid != NULL && k->valid[r] == 0)
		return -1;
	key = k->wide ? ((const int64_t *) k->data)[r] :
		(int64_t) ((const int32_t *) k->data)[r];
	off = (uint64_t) key - (uint64_t) d->lo;
	return off < (uint64_t) d->span ? (int64_t) d->row_of[off] : -1;
}

/* Whether row r (whose dimension keys are keys[0 .. ndims)) passes every join. */
__device__ __forceinline__ bool
gpo_dims_keep(const gpo_resident_dkey *keys, const gpo_resident_ddim *d_dims,
			  int ndims, int64_t r)
{
	for (int d = 0; d < ndims; d++)
	{
		int64_t		row;

		if (d_dims[d].kind == GPO_RESIDENT_LEFT)
			continue;
		row = gpo_dim_row(&keys[d], &d_dims[d], r);
		if (d_dims[d].kind == GPO_RESIDENT_ANTI ? row >= 0 : row < 0)
			return false;
	}
	return true;
}

/*
 * Clears d_mask[g] (fresh: sets it first) for the rows g < n of the sets
 * end to end that a join drops, and adds the bytes left set to *d_count;
 * set s's keys are d_keys[s * ndims ...].
 */
__global__ void
__launch_bounds__(GPO_CUDA_THREADS)
gpo_k_resident_dims_mask(const gpo_resident_dkey *d_keys,
						 const gpo_resident_ddim *d_dims, int ndims,
						 const int64_t *d_offsets, int nsets, int64_t n,
						 bool fresh, uint8_t *d_mask,
						 unsigned long long *d_count)
{
	unsigned long long local = 0;

	for (int64_t g = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; g < n;
		 g += (int64_t) gridDim.x * blockDim.x)
	{
		bool		keep = fresh || d_mask[g] != 0;

		if (keep)
		{
			int			set = gpo_cuda_set_of(d_offsets, nsets, g);

			keep = gpo_dims_keep(d_keys + (size_t) set * ndims, d_dims, ndims,
								 g - d_offsets[set]);
		}
		d_mask[g] = keep;
		local += keep;
	}
	gpo_block_count_add(local, d_count);
}

/*
 * Writes row j < total of each gathered dimension column: the value at the
 * dimension row of row g = d_map[j] (NULL: j) of the sets end to end, 0
 * and not valid where it has none or its value is NULL.
 */
__global__ void
gpo_k_resident_dims_gather(const gpo_resident_dkey *d_keys,
						   const gpo_resident_ddim *d_dims, int ndims,
						   const gpo_resident_dmove *d_moves, int nmoves,
						   const int64_t *d_offsets, int nsets,
						   const int64_t *d_map, int64_t total)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t j = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; j < total;
		 j += stride)
	{
		int64_t		g = d_map != NULL ? d_map[j] : j;
		int			set = gpo_cuda_set_of(d_offsets, nsets, g);
		const gpo_resident_dkey *keys = d_keys + (size_t) set * ndims;
		int64_t		rows[GPO_RESIDENT_MAX_DIMS];

		for (int d = 0; d < ndims; d++)
			rows[d] = d_dims[d].read ?
				gpo_dim_row(&keys[d], &d_dims[d], g - d_offsets[set]) : -1;
		for (int k = 0; k < nmoves; k++)
		{
			const gpo_resident_dmove *m = &d_moves[k];
			int64_t		row = rows[m->dim];
			bool		valid = row >= 0 && (m->src_valid == NULL || m->src_valid[row]);

			if (m->width == 8)
				((unsigned long long *) m->dst)[j] = valid ?
					((const unsigned long long *) m->src)[row] : 0ULL;
			else
				((unsigned int *) m->dst)[j] = valid ?
					((const unsigned int *) m->src)[row] : 0u;
			if (m->dst_valid != NULL)
				m->dst_valid[j] = valid;
		}
	}
}

/* Copies bytes of host src into new device memory from mem (*d_dst). */
static gpo_status
gpo_dims_upload(gpo_ctx *ctx, gpo_dmem *mem, const void *src, size_t bytes,
				void **d_dst)
{
	gpo_status	st = GPO_OK;

	GPO_CUDA_TRY(gpo_dmem_alloc(mem, d_dst, bytes));
	GPO_CUDA_TRY(cudaMemcpy(*d_dst, src, bytes, cudaMemcpyHostToDevice));
cleanup:
	return st;
}

/*
 * q's dimensions (d_dims) and every set's key column of each (d_keys, set
 * s's at s * ndims) on the device, from mem.
 */
static gpo_status
gpo_dims_tables(gpo_ctx *ctx, int nsets, gpo_resident *const *sets,
				const gpo_resident_query *q, gpo_dmem *mem,
				gpo_resident_dkey **d_keys, gpo_resident_ddim **d_dims)
{
	gpo_status	st = GPO_OK;
	gpo_resident_ddim h_dims[GPO_RESIDENT_MAX_DIMS];
	size_t		nkeys = (size_t) nsets * q->ndims;
	gpo_resident_dkey *h_keys = (gpo_resident_dkey *) malloc(sizeof(*h_keys) * nkeys);

	if (h_keys == NULL)
	{
		snprintf(ctx->detail, sizeof(ctx->detail), "could not allocate the join table");
		return GPO_ERR_NOMEM;
	}
	memset(h_dims, 0, sizeof(h_dims));
	for (int d = 0; d < q->ndims; d++)
	{
		h_dims[d].row_of = q->dims[d].row_of;
		h_dims[d].lo = q->dims[d].lo;
		h_dims[d].span = q->dims[d].span;
		h_dims[d].kind = (int32_t) q->dims[d].kind;
		for (int s = 0; s < nsets; s++)
		{
			const gpo_resident_col *rc = &sets[s]->cols[q->dims[d].key_col];

			h_keys[(size_t) s * q->ndims + d].data = rc->data;
			h_keys[(size_t) s * q->ndims + d].valid = rc->valid;
			h_keys[(size_t) s * q->ndims + d].wide = rc->type == GPO_INT64;
		}
	}
	for (int c = 0; c < q->ndimcols; c++)
		h_dims[q->dimcols[c].dim].read = 1;
	GPO_TRY(gpo_dims_upload(ctx, mem, h_keys, sizeof(*h_keys) * nkeys, (void **) d_keys));
	GPO_TRY(gpo_dims_upload(ctx, mem, h_dims, sizeof(*h_dims) * q->ndims, (void **) d_dims));
cleanup:
	free(h_keys);
	return st;
}

/* Dims to the device (see gpo_resident_internal.h). */
extern "C" gpo_status
gpo_resident_dims_device(gpo_ctx *ctx, const gpo_resident_query *q,
						 struct gpo_dmem *mem, gpo_resident_query *dq,
						 gpo_resident_dim *dims, gpo_resident_dimcol *dimcols)
{
	gpo_status	st = GPO_OK;

	*dq = *q;
	for (int d = 0; d < q->ndims; d++)
	{
		dims[d] = q->dims[d];
		if (q->dims[d].span > 0)
			GPO_TRY(gpo_dims_upload(ctx, mem, q->dims[d].row_of,
									sizeof(int32_t) * (size_t) q->dims[d].span,
									(void **) &dims[d].row_of));
	}
	for (int c = 0; c < q->ndimcols; c++)
	{
		size_t		rows = (size_t) q->dims[q->dimcols[c].dim].rows;

		dimcols[c] = q->dimcols[c];
		if (rows == 0)
			continue;
		GPO_TRY(gpo_dims_upload(ctx, mem, q->dimcols[c].data,
								gpo_type_size(q->dimcols[c].type) * rows,
								(void **) &dimcols[c].data));
		if (q->dimcols[c].valid != NULL)
			GPO_TRY(gpo_dims_upload(ctx, mem, q->dimcols[c].valid, rows,
									(void **) &dimcols[c].valid));
	}
	dq->dims = dims;
	dq->dimcols = dimcols;
cleanup:
	return st;
}

/* Dims mask GPU face (see gpo_resident_internal.h). */
extern "C" gpo_status
gpo_resident_dims_mask_gpu(gpo_ctx *ctx, int nsets, gpo_resident *const *sets,
						   const gpo_resident_query *q,
						   const int64_t *d_offsets, int64_t all, bool fresh,
						   uint8_t *d_masks, struct gpo_dmem *mem,
						   int64_t *kept)
{
	gpo_status	st = GPO_OK;
	gpo_resident_dkey *d_keys = NULL;
	gpo_resident_ddim *d_dims = NULL;
	unsigned long long *d_count = NULL;
	unsigned long long count = 0;

	GPO_TRY(gpo_dims_tables(ctx, nsets, sets, q, mem, &d_keys, &d_dims));
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d_count, sizeof(*d_count)));
	GPO_CUDA_TRY(cudaMemsetAsync(d_count, 0, sizeof(*d_count), 0));
	gpo_k_resident_dims_mask<<<gpo_cuda_blocks(all), GPO_CUDA_THREADS>>>
		(d_keys, d_dims, q->ndims, d_offsets, nsets, all, fresh, d_masks, d_count);
	GPO_CUDA_TRY(GPO_LAUNCHED());
	GPO_CUDA_TRY(cudaMemcpy(&count, d_count, sizeof(count), cudaMemcpyDeviceToHost));
	*kept = (int64_t) count;
cleanup:
	return st;
}

/*
 * The moves of q's dimension columns into new gathered columns of total
 * rows from mem (d_out, d_vout get them): validity bytes unless a column
 * can't be NULL (an inner join's, whose values are all valid).
 */
static gpo_status
gpo_dims_moves(gpo_ctx *ctx, const gpo_resident_query *q, int64_t total,
			   gpo_dmem *mem, gpo_resident_dmove *moves, const void **d_out,
			   const uint8_t **d_vout)
{
	gpo_status	st = GPO_OK;

	for (int c = 0; c < q->ndimcols; c++)
	{
		const gpo_resident_dimcol *dc = &q->dimcols[c];
		size_t		w = gpo_type_size(dc->type);

		moves[c].src = dc->data;
		moves[c].src_valid = dc->valid;
		moves[c].dim = dc->dim;
		moves[c].width = (int32_t) w;
		moves[c].dst_valid = NULL;
		GPO_CUDA_TRY(gpo_dmem_alloc(mem, &moves[c].dst, w * (size_t) total));
		if (dc->valid != NULL || q->dims[dc->dim].kind != GPO_RESIDENT_MATCH)
			GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &moves[c].dst_valid,
										(size_t) total));
		d_out[c] = moves[c].dst;
		d_vout[c] = moves[c].dst_valid;
	}
cleanup:
	return st;
}

/* Dims gather GPU face (see gpo_resident_internal.h). */
extern "C" gpo_status
gpo_resident_dims_gather_gpu(gpo_ctx *ctx, int nsets,
							 gpo_resident *const *sets,
							 const gpo_resident_query *q,
							 const int64_t *d_offsets, const int64_t *d_map,
							 int64_t total, struct gpo_dmem *mem,
							 const void **d_out, const uint8_t **d_vout)
{
	gpo_status	st = GPO_OK;
	gpo_resident_dkey *d_keys = NULL;
	gpo_resident_ddim *d_dims = NULL;
	gpo_resident_dmove h_moves[GPO_RESIDENT_MAX_DIM_COLS];
	gpo_resident_dmove *d_moves = NULL;

	if (q->ndimcols == 0 || total == 0)
		return GPO_OK;
	GPO_TRY(gpo_dims_tables(ctx, nsets, sets, q, mem, &d_keys, &d_dims));
	GPO_TRY(gpo_dims_moves(ctx, q, total, mem, h_moves, d_out, d_vout));
	GPO_TRY(gpo_dims_upload(ctx, mem, h_moves, sizeof(*h_moves) * q->ndimcols,
							(void **) &d_moves));
	gpo_k_resident_dims_gather<<<gpo_cuda_blocks(total), GPO_CUDA_THREADS>>>
		(d_keys, d_dims, q->ndims, d_moves, q->ndimcols, d_offsets, nsets, d_map,
		 total);
	GPO_CUDA_TRY(GPO_LAUNCHED());
cleanup:
	return st;
}
