/*
 * filter.cu
 *	  WHERE-clause predicate evaluation into a keep mask, the GPU face.
 *
 * The host face uploads the columns the program reads (values of compared
 * columns, validity of compared and null-tested ones) and the program, and
 * one grid-stride kernel runs the whole program per row: the evaluation
 * stack is 2-bit truth values packed into one 64-bit register (depth is at
 * most GPO_FILTER_MAX_DEPTH = 32, checked on the host), and the program
 * sits in shared memory when it fits.  Each thread counts its 1s and the
 * block adds them with one atomic.  gpo_cuda_filter_mask launches it over
 * device columns, for this face and for the kept sets' (resident.cu).
 * Comparisons follow the same rules as the CPU face (filter.c): the
 * expression machine's three-way compare in PostgreSQL's float order and
 * its operator test (gpo_expr_eval.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "filter_cuda.cuh"
#include "gpo_cuda.cuh"
#include "gpo_expr_eval.h"
#include "gpo_filter.h"

/* Truth values on the device stack. */
#define GPO_FV_FALSE	0u
#define GPO_FV_TRUE		1u
#define GPO_FV_NULL		2u

/* Programs up to this many bytes are staged in shared memory. */
#define GPO_FILTER_SHARED_PROG	16384

/* The truth value of a (non-NULL-constant) CMP node at row. */
__device__ __forceinline__ unsigned int
gpo_filter_cmp_row(const gpo_filter_dcol &c, int64_t row, const gpo_pred *p)
{
	int			cmp;
	int64_t		x = 0;

	if (c.valid != NULL && c.valid[row] == 0)
		return GPO_FV_NULL;
	switch (c.type)
	{
		case GPO_FLOAT32:
			cmp = gpo_x_fcmp3((double) ((const float *) c.data)[row], p->fval);
			return gpo_x_holds(cmp, p->op) ? GPO_FV_TRUE : GPO_FV_FALSE;
		case GPO_FLOAT64:
			cmp = gpo_x_fcmp3(((const double *) c.data)[row], p->fval);
			return gpo_x_holds(cmp, p->op) ? GPO_FV_TRUE : GPO_FV_FALSE;
		case GPO_INT32:
			x = ((const int32_t *) c.data)[row];
			break;
		case GPO_UINT32:
			x = ((const uint32_t *) c.data)[row];
			break;
		case GPO_INT64:
			x = ((const int64_t *) c.data)[row];
			break;
		default:
			x = ((const uint8_t *) c.data)[row];
			break;
	}
	cmp = (x > p->ival) - (x < p->ival);
	return gpo_x_holds(cmp, p->op) ? GPO_FV_TRUE : GPO_FV_FALSE;
}

/* Truth value number k (0 = bottom) of a packed stack. */
__device__ __forceinline__ unsigned int
gpo_filter_get(unsigned long long stk, int k)
{
	return (unsigned int) (stk >> (2 * k)) & 3u;
}

/* The packed stack with value v at position k. */
__device__ __forceinline__ unsigned long long
gpo_filter_put(unsigned long long stk, int k, unsigned int v)
{
	return (stk & ~(3ull << (2 * k))) | ((unsigned long long) v << (2 * k));
}

/* The program's truth value at row. */
__device__ unsigned int
gpo_filter_row(const gpo_filter_dcol *d_cols, const gpo_pred *prog,
			   int nnodes, int64_t row)
{
	unsigned long long stk = 0;
	int			sp = 0;

	for (int i = 0; i < nnodes; i++)
	{
		const gpo_pred *p = &prog[i];
		unsigned int v;

		switch (p->kind)
		{
			case GPO_PRED_CMP:
				v = p->const_null ? GPO_FV_NULL :
					gpo_filter_cmp_row(d_cols[p->column], row, p);
				stk = gpo_filter_put(stk, sp++, v);
				break;
			case GPO_PRED_NULLTEST:
				{
					const uint8_t *valid = d_cols[p->column].valid;
					bool		isnull = valid != NULL && valid[row] == 0;

					v = (isnull != p->is_not) ? GPO_FV_TRUE : GPO_FV_FALSE;
					stk = gpo_filter_put(stk, sp++, v);
				}
				break;
			case GPO_PRED_CONST:
				v = p->const_null ? GPO_FV_NULL :
					p->const_bool ? GPO_FV_TRUE : GPO_FV_FALSE;
				stk = gpo_filter_put(stk, sp++, v);
				break;
			case GPO_PRED_AND:
			case GPO_PRED_OR:
				{
					bool		is_and = p->kind == GPO_PRED_AND;
					unsigned int dom = is_and ? GPO_FV_FALSE : GPO_FV_TRUE;
					bool		any_dom = false;
					bool		any_null = false;

					for (int k = sp - p->nargs; k < sp; k++)
					{
						unsigned int a = gpo_filter_get(stk, k);

						any_dom |= a == dom;
						any_null |= a == GPO_FV_NULL;
					}
					sp -= p->nargs;
					v = any_dom ? dom : any_null ? GPO_FV_NULL :
						(is_and ? GPO_FV_TRUE : GPO_FV_FALSE);
					stk = gpo_filter_put(stk, sp++, v);
				}
				break;
			case GPO_PRED_NOT:
				v = gpo_filter_get(stk, sp - 1);
				if (v != GPO_FV_NULL)
					stk = gpo_filter_put(stk, sp - 1, v ^ 1u);
				break;
		}
	}
	return gpo_filter_get(stk, 0);
}

/*
 * Writes d_mask[row] (1 where TRUE) for every row and adds the 1s to
 * *d_count; with d_offsets, row belongs to set gpo_cuda_set_of(...), whose
 * columns are d_cols[set * nc ...], at its row row - d_offsets[set].
 */
__global__ void
__launch_bounds__(GPO_CUDA_THREADS)
gpo_k_filter(const gpo_filter_dcol *d_cols, int nc, const int64_t *d_offsets,
			 int nsets, const gpo_pred *d_prog, int nnodes, bool shared_prog,
			 int64_t n, uint8_t *d_mask, unsigned long long *d_count)
{
	extern __shared__ unsigned long long s_raw[];
	const gpo_pred *prog = d_prog;
	unsigned long long local = 0;

	if (shared_prog)
	{
		gpo_pred   *s_prog = (gpo_pred *) s_raw;

		for (int i = threadIdx.x; i < nnodes; i += blockDim.x)
			s_prog[i] = d_prog[i];
		__syncthreads();
		prog = s_prog;
	}
	for (int64_t row = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; row < n;
		 row += (int64_t) gridDim.x * blockDim.x)
	{
		const gpo_filter_dcol *cols = d_cols;
		int64_t		at = row;
		uint8_t		r;

		if (d_offsets != NULL)
		{
			int			set = gpo_cuda_set_of(d_offsets, nsets, row);

			cols = d_cols + (size_t) set * nc;
			at = row - d_offsets[set];
		}
		r = gpo_filter_row(cols, prog, nnodes, at) == GPO_FV_TRUE;
		d_mask[row] = r;
		local += r;
	}
	gpo_block_count_add(local, d_count);
}

/* The program over the rows of several sets of device columns (see filter_cuda.cuh). */
cudaError_t
gpo_cuda_filter_masks(const gpo_filter_dcol *d_cols, int nc,
					  const int64_t *d_offsets, int nsets,
					  const gpo_pred *d_prog, int nnodes, int64_t n,
					  uint8_t *d_mask, unsigned long long *d_count)
{
	size_t		prog_bytes = sizeof(gpo_pred) * (size_t) nnodes;
	bool		shared_prog = prog_bytes <= GPO_FILTER_SHARED_PROG;

	if (n <= 0)
		return cudaSuccess;
	gpo_k_filter<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS,
		shared_prog ? prog_bytes : 0>>>(d_cols, nc, d_offsets, nsets, d_prog,
										nnodes, shared_prog, n, d_mask, d_count);
	return GPO_LAUNCHED();
}

/* The program over rows [0, n) of device columns into a mask (see filter_cuda.cuh). */
cudaError_t
gpo_cuda_filter_mask(const gpo_filter_dcol *d_cols, const gpo_pred *d_prog,
					 int nnodes, int64_t n, uint8_t *d_mask,
					 unsigned long long *d_count)
{
	return gpo_cuda_filter_masks(d_cols, 0, NULL, 1, d_prog, nnodes, n, d_mask,
								 d_count);
}

/* Filter GPU face (see gpo_filter.h). */
extern "C" gpo_status
gpo_filter_gpu(gpo_ctx *ctx, int ncols, const gpo_vector *columns,
			   const gpo_pred *prog, int nnodes, gpo_vector *mask,
			   int64_t *count)
{
	gpo_status	st = GPO_OK;
	sigset_t	old;
	bool		began = false;
	int64_t		n;
	unsigned long long h_count = 0;
	uint8_t    *need = NULL;	/* per column: 1 values, 2 validity */
	gpo_filter_dcol *h_cols = NULL;
	gpo_filter_dcol *d_cols = NULL;
	gpo_pred   *d_prog = NULL;
	uint8_t    *d_mask = NULL;
	unsigned long long *d_count = NULL;
	size_t		prog_bytes = sizeof(gpo_pred) * (size_t) (nnodes > 0 ? nnodes : 1);

	if (ctx == NULL)
		return GPO_ERR_INVALID;
	if ((st = gpo_filter_check(ctx, ncols, columns, prog, nnodes, mask)) != GPO_OK)
		return st;
	for (int c = 0; c < ncols; c++)
		if ((st = gpo_cuda_check_vector(ctx, &columns[c], "filter column")) != GPO_OK)
			return st;
	if ((st = gpo_cuda_check_vector(ctx, mask, "filter mask")) != GPO_OK)
		return st;
	n = gpo_filter_rows(ncols, columns, mask);
	if (n == 0)
	{
		if (count != NULL)
			*count = 0;
		return GPO_OK;
	}

	need = (uint8_t *) calloc(ncols > 0 ? ncols : 1, 1);
	h_cols = (gpo_filter_dcol *) calloc(ncols > 0 ? ncols : 1, sizeof(gpo_filter_dcol));
	if (need == NULL || h_cols == NULL)
	{
		snprintf(ctx->detail, sizeof(ctx->detail), "could not allocate filter columns");
		st = GPO_ERR_NOMEM;
		goto cleanup;
	}
	for (int i = 0; i < nnodes; i++)
	{
		if (prog[i].kind == GPO_PRED_CMP && !prog[i].const_null)
			need[prog[i].column] |= 3;
		else if (prog[i].kind == GPO_PRED_NULLTEST)
			need[prog[i].column] |= 2;
	}
	for (int c = 0; c < ncols; c++)
		h_cols[c].type = (int32_t) columns[c].type;

	st = gpo_cuda_begin(ctx, &old);
	began = true;				/* gpo_cuda_end is harmless after a failure */
	if (st != GPO_OK)
		goto cleanup;

	for (int c = 0; c < ncols; c++)
	{
		void	   *d_data = NULL;
		uint8_t    *d_valid = NULL;

		if (need[c] == 0)
			continue;
		GPO_TRY(gpo_cuda_column_up(ctx, &columns[c], n, "filter column",
								   (need[c] & 1) ? &d_data : NULL,
								   (need[c] & 2) ? &d_valid : NULL));
		h_cols[c].data = d_data;
		h_cols[c].valid = d_valid;
	}
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_cols,
						   sizeof(gpo_filter_dcol) * (size_t) (ncols > 0 ? ncols : 1),
						   "filter column table"));
	GPO_CUDA_TRY(cudaMemcpy(d_cols, h_cols,
							sizeof(gpo_filter_dcol) * (size_t) (ncols > 0 ? ncols : 1),
							cudaMemcpyHostToDevice));
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_prog, prog_bytes, "filter program"));
	GPO_CUDA_TRY(cudaMemcpy(d_prog, prog, sizeof(gpo_pred) * (size_t) nnodes,
							cudaMemcpyHostToDevice));
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_mask, (size_t) n, "filter mask"));
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_count, sizeof(unsigned long long),
						   "filter count"));
	GPO_CUDA_TRY(cudaMemset(d_count, 0, sizeof(unsigned long long)));

	GPO_CUDA_TRY(gpo_cuda_filter_mask(d_cols, d_prog, nnodes, n, d_mask, d_count));
	GPO_CUDA_TRY(cudaMemcpy(&h_count, d_count, sizeof(h_count),
							cudaMemcpyDeviceToHost));
	GPO_TRY(gpo_cuda_download(ctx, mask, 1, d_mask, n));
	GPO_TRY(gpo_cuda_download_valid(ctx, mask, NULL, n));
	if (count != NULL)
		*count = (int64_t) h_count;

cleanup:
	if (d_count != NULL)
		gpo_cuda_free(d_count);
	if (d_mask != NULL)
		gpo_cuda_free(d_mask);
	if (d_prog != NULL)
		gpo_cuda_free(d_prog);
	if (d_cols != NULL)
		gpo_cuda_free(d_cols);
	if (h_cols != NULL)
		for (int c = 0; c < ncols; c++)
		{
			if (h_cols[c].data != NULL)
				gpo_cuda_free((void *) h_cols[c].data);
			if (h_cols[c].valid != NULL)
				gpo_cuda_free((void *) h_cols[c].valid);
		}
	if (began)
		gpo_cuda_end(&old);
	free(h_cols);
	free(need);
	return st;
}
