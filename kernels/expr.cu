/*
 * expr.cu
 *	  The expression machine's GPU face (gpo_expr.h).
 *
 * The host face uploads the columns the program reads (values and
 * validity bytes, each into one contiguous buffer), the mask and the
 * program, and one grid-stride kernel runs the shared interpreter
 * (gpo_expr_eval.h, the same code as the CPU face) once per row, with the
 * program staged in shared memory (at most GPO_EXPR_MAX_NODES nodes, so it
 * always fits).  A row that raises an error lowers one 64-bit word with
 * atomicMin: the row in the high bits, the gpo_xerr in the low 8, so the
 * word's least value is the lowest erroring row and its error; a thread
 * skips rows past the lowest error it saw (it looks every
 * GPO_EXPR_ERR_POLL rows).  Without an error the results
 * and their validity are copied back into out's chunks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr_cuda.cuh"
#include "gpo_cuda.cuh"
#include "gpo_expr_eval.h"

/* Bits of the error word below the row. */
#define GPO_EXPR_ERR_SHIFT	8
/* The error word before any row raised one. */
#define GPO_EXPR_NO_ERR		(~0ull)
/* Rows of a thread between two reads of the error word (a power of 2). */
#define GPO_EXPR_ERR_POLL	32

/* Evaluates every row into d_out (out_type) and d_valid; errors into *d_err. */
__global__ void
__launch_bounds__(GPO_CUDA_THREADS)
gpo_k_expr(const gpo_xcol *d_cols, const gpo_xnode *d_prog, int nnodes,
		   const uint8_t *d_mask, const uint8_t *d_mask_valid, int64_t n,
		   int out_type, void *d_out, uint8_t *d_valid,
		   unsigned long long *d_err)
{
	extern __shared__ unsigned long long s_raw[];
	gpo_xnode  *s_prog = (gpo_xnode *) s_raw;
	volatile unsigned long long *err_word = d_err;

	for (int i = threadIdx.x; i < nnodes; i += blockDim.x)
		s_prog[i] = d_prog[i];
	__syncthreads();
	int			k = 0;

	for (int64_t row = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; row < n;
		 row += (int64_t) gridDim.x * blockDim.x, k++)
	{
		gpo_xval	res;
		bool		isnull = true;
		int			e = GPO_XERR_NONE;

		/*
		 * A lower row already failed: stop.  The word is read past L1 (an
		 * L2 round trip the row waits for), so only every few rows; the
		 * check saves work, the atomicMin alone decides the error.
		 */
		if ((k & (GPO_EXPR_ERR_POLL - 1)) == 0 &&
			(*err_word >> GPO_EXPR_ERR_SHIFT) < (unsigned long long) row)
			break;
		res.i = 0;
		if ((d_mask == NULL || d_mask[row] != 0) &&
			(d_mask_valid == NULL || d_mask_valid[row] != 0))
			e = gpo_expr_row(s_prog, nnodes, d_cols, row, &res, &isnull);
		if (e != GPO_XERR_NONE)
		{
			atomicMin(d_err, ((unsigned long long) row << GPO_EXPR_ERR_SHIFT) |
					  (unsigned long long) e);
			break;
		}
		gpo_x_store(out_type, d_out, row, res, isnull);
		d_valid[row] = !isnull;
	}
}

/* Device buffers of one call, freed at its end. */
typedef struct gpo_expr_dev
{
	gpo_xcol   *h_cols;			/* host copy of the column table */
	gpo_xcol   *d_cols;
	gpo_xnode  *d_prog;
	uint8_t    *d_mask;
	uint8_t    *d_mask_valid;
	void	   *d_out;
	uint8_t    *d_valid;
	unsigned long long *d_err;
} gpo_expr_dev;

/* Frees what gpo_expr_up took. */
static void
gpo_expr_free(gpo_expr_dev *d, int ncols)
{
	gpo_cuda_free(d->d_err);
	gpo_cuda_free(d->d_valid);
	gpo_cuda_free(d->d_out);
	gpo_cuda_free(d->d_mask_valid);
	gpo_cuda_free(d->d_mask);
	gpo_cuda_free(d->d_prog);
	gpo_cuda_free(d->d_cols);
	if (d->h_cols != NULL)
		for (int c = 0; c < ncols; c++)
		{
			gpo_cuda_free((void *) d->h_cols[c].data);
			gpo_cuda_free((void *) d->h_cols[c].valid);
		}
	free(d->h_cols);
}

/* Uploads the columns the program reads, the mask and the program. */
static gpo_status
gpo_expr_up(gpo_ctx *ctx, int ncols, const gpo_vector *columns,
			const gpo_xnode *prog, int nnodes, const gpo_vector *mask,
			int64_t n, gpo_expr_dev *d)
{
	gpo_status	st = GPO_OK;
	size_t		table = sizeof(gpo_xcol) * (size_t) (ncols > 0 ? ncols : 1);
	uint8_t    *need = (uint8_t *) calloc(ncols > 0 ? ncols : 1, 1);

	d->h_cols = (gpo_xcol *) calloc(ncols > 0 ? ncols : 1, sizeof(gpo_xcol));
	if (need == NULL || d->h_cols == NULL)
	{
		snprintf(ctx->detail, sizeof(ctx->detail), "could not allocate expression columns");
		st = GPO_ERR_NOMEM;
		goto cleanup;
	}
	gpo_expr_needs(prog, nnodes, ncols, need);
	for (int c = 0; c < ncols; c++)
	{
		void	   *d_data = NULL;
		uint8_t    *d_valid = NULL;

		d->h_cols[c].type = (int32_t) columns[c].type;
		if (!need[c])
			continue;
		GPO_TRY(gpo_cuda_column_up(ctx, &columns[c], n, "expression column",
								   &d_data, &d_valid));
		d->h_cols[c].data = d_data;
		d->h_cols[c].valid = d_valid;
	}
	if (mask != NULL)
		GPO_TRY(gpo_cuda_column_up(ctx, mask, n, "expression mask",
								   (void **) &d->d_mask, &d->d_mask_valid));
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d->d_cols, table, "expression column table"));
	GPO_CUDA_TRY(cudaMemcpy(d->d_cols, d->h_cols, table, cudaMemcpyHostToDevice));
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d->d_prog,
						   sizeof(gpo_xnode) * (size_t) nnodes, "expression program"));
	GPO_CUDA_TRY(cudaMemcpy(d->d_prog, prog, sizeof(gpo_xnode) * (size_t) nnodes,
							cudaMemcpyHostToDevice));
cleanup:
	free(need);
	return st;
}

/* Runs the kernel; the lowest error into *err, else the results into out. */
static gpo_status
gpo_expr_run(gpo_ctx *ctx, int nnodes, gpo_vector *out, int64_t n,
			 gpo_expr_dev *d, gpo_expr_error *err)
{
	gpo_status	st = GPO_OK;
	size_t		elem = gpo_type_size(out->type);
	unsigned long long word = GPO_EXPR_NO_ERR;

	GPO_TRY(gpo_cuda_alloc(ctx, &d->d_out, elem * (size_t) n, "expression output"));
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d->d_valid, (size_t) n,
						   "expression output validity"));
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d->d_err, sizeof(word), "expression error"));
	GPO_CUDA_TRY(cudaMemcpy(d->d_err, &word, sizeof(word), cudaMemcpyHostToDevice));
	gpo_k_expr<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS,
		sizeof(gpo_xnode) * (size_t) nnodes>>>(d->d_cols, d->d_prog, nnodes,
											   d->d_mask, d->d_mask_valid, n,
											   (int) out->type, d->d_out,
											   d->d_valid, d->d_err);
	GPO_CUDA_TRY(GPO_LAUNCHED());
	GPO_CUDA_TRY(cudaMemcpy(&word, d->d_err, sizeof(word), cudaMemcpyDeviceToHost));
	if (word != GPO_EXPR_NO_ERR)
	{
		err->code = (gpo_xerr) (word & ((1u << GPO_EXPR_ERR_SHIFT) - 1));
		err->row = (int64_t) (word >> GPO_EXPR_ERR_SHIFT);
		goto cleanup;			/* out's rows are undefined */
	}
	GPO_TRY(gpo_cuda_download(ctx, out, elem, d->d_out, n));
	GPO_TRY(gpo_cuda_download_valid(ctx, out, d->d_valid, n));
cleanup:
	return st;
}

/* Evaluates prog over device columns (see expr_cuda.cuh). */
gpo_status
gpo_cuda_expr_columns(gpo_ctx *ctx, const gpo_xcol *h_cols, int ncols,
					  const gpo_xnode *prog, int nnodes, int64_t n,
					  gpo_type out_type, void *d_out, uint8_t *d_valid,
					  gpo_dmem *mem, gpo_expr_error *err)
{
	gpo_status	st = GPO_OK;
	gpo_xcol   *d_cols = NULL;
	gpo_xnode  *d_prog = NULL;
	unsigned long long *d_err = NULL;
	unsigned long long word = GPO_EXPR_NO_ERR;

	err->code = GPO_XERR_NONE;
	err->row = 0;
	if (n == 0)
		return GPO_OK;
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d_cols,
								sizeof(gpo_xcol) * (size_t) (ncols > 0 ? ncols : 1)));
	if (ncols > 0)
		GPO_CUDA_TRY(cudaMemcpy(d_cols, h_cols, sizeof(gpo_xcol) * (size_t) ncols,
								cudaMemcpyHostToDevice));
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d_prog, sizeof(gpo_xnode) * (size_t) nnodes));
	GPO_CUDA_TRY(cudaMemcpy(d_prog, prog, sizeof(gpo_xnode) * (size_t) nnodes,
							cudaMemcpyHostToDevice));
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d_err, sizeof(word)));
	GPO_CUDA_TRY(cudaMemcpy(d_err, &word, sizeof(word), cudaMemcpyHostToDevice));
	gpo_k_expr<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS,
		sizeof(gpo_xnode) * (size_t) nnodes>>>(d_cols, d_prog, nnodes, NULL, NULL,
											   n, (int) out_type, d_out,
											   d_valid, d_err);
	GPO_CUDA_TRY(GPO_LAUNCHED());
	GPO_CUDA_TRY(cudaMemcpy(&word, d_err, sizeof(word), cudaMemcpyDeviceToHost));
	if (word != GPO_EXPR_NO_ERR)
	{
		err->code = (gpo_xerr) (word & ((1u << GPO_EXPR_ERR_SHIFT) - 1));
		err->row = (int64_t) (word >> GPO_EXPR_ERR_SHIFT);
	}
cleanup:
	return st;
}

/* The expression GPU face (see gpo_expr.h). */
extern "C" gpo_status
gpo_expr_eval_gpu(gpo_ctx *ctx, int ncols, const gpo_vector *columns,
				  const gpo_xnode *prog, int nnodes, bool out_double,
				  const gpo_vector *mask, gpo_vector *out, gpo_expr_error *err)
{
	gpo_status	st = GPO_OK;
	sigset_t	old;
	bool		began = false;
	int64_t		n;
	gpo_expr_dev d;

	if (ctx == NULL)
		return GPO_ERR_INVALID;
	if ((st = gpo_expr_check_args(ctx, ncols, columns, prog, nnodes, out_double,
								  mask, out, err)) != GPO_OK)
		return st;
	for (int c = 0; c < ncols; c++)
		if ((st = gpo_cuda_check_vector(ctx, &columns[c], "expression column")) != GPO_OK)
			return st;
	err->code = GPO_XERR_NONE;
	err->row = 0;
	n = gpo_expr_rows(ncols, columns, mask, out);
	if (n == 0)
	{
		ctx->used = GPO_DEVICE_GPU;
		return GPO_OK;
	}
	memset(&d, 0, sizeof(d));
	st = gpo_cuda_begin(ctx, &old);
	began = true;				/* gpo_cuda_end is harmless after a failure */
	if (st != GPO_OK)
		goto cleanup;
	GPO_TRY(gpo_expr_up(ctx, ncols, columns, prog, nnodes, mask, n, &d));
	GPO_TRY(gpo_expr_run(ctx, nnodes, out, n, &d, err));
	ctx->used = GPO_DEVICE_GPU;
cleanup:
	gpo_expr_free(&d, ncols);
	if (began)
		gpo_cuda_end(&old);
	return st;
}
