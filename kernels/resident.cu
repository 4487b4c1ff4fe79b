/*
 * resident.cu
 *	  Column sets kept between calls, the GPU face: device copies, and the
 *	  filtered group aggregation over several of them.
 *
 * A kept column is its values, contiguous, and, when some row is NULL, one
 * validity byte a row (the device convention of transfer.cu); both come
 * from cudaMalloc, outside the engine's pool, so that
 * gpo_gpu_set_memory_limit bounds only the working memory of calls.  A put
 * waits for its copies, so that any thread's stream may read the set at
 * once.
 *
 * An aggregation takes the sets as laid end to end (each row finds its
 * set by a binary search of their offsets), so that its work is a few
 * launches however many sets (a table of 1e8 rows is 640 ranges): the
 * program over every set's rows into one mask (filter.cu's kernel), the
 * passing rows' numbers by one CUB selection over it (as compact.cu), and
 * one gather of the passing rows of the columns read (key, values, their
 * validity) into contiguous buffers.  Without a program the gather takes
 * every row, and one set whose rows all pass is read where it is kept.
 * A star join (resident_dims.cu) clears the rows its dimensions drop from
 * the mask before the selection, and reads the dimension columns at the
 * passing rows' dimension rows after the gather.  The device group
 * aggregation (groupagg.cu) then runs over the gathered rows, and its
 * groups are downloaded into the outputs.  Working memory comes from the
 * pool (gpo_dmem); the work runs on stream 0, which the build makes the
 * calling thread's own stream (--default-stream per-thread), so that
 * several threads may aggregate the same sets at once.
 */
#include <stdlib.h>
#include <string.h>

#include "agg_cuda.cuh"
#include "expr_cuda.cuh"
#include "filter_cuda.cuh"
#include "gpo_cuda.cuh"
#include "gpo_kernels.cuh"
#include "gpo_resident_internal.h"

/* Rows of validity bytes one staged piece of a put carries. */
#define GPO_RESIDENT_PIECE	((int64_t) 1 << 24)

/* Set columns an aggregation reads at most. */
#define GPO_RESIDENT_NEED	GPO_RESIDENT_MAX_COLS

/* One column's rows of one set, to the place they take in the gathered column. */
struct gpo_resident_move
{
	const void *src;			/* the set's values */
	const uint8_t *src_valid;	/* its validity bytes; NULL: all valid */
	void	   *dst;			/* the set's first row in the gathered column */
	uint8_t    *dst_valid;		/* NULL: the gathered column keeps no validity */
	int			width;			/* bytes a value: 4 or 8 */
};

/* The state of one aggregation over GPU sets. */
struct gpo_resident_run
{
	int			nsets;
	gpo_resident *const *sets;
	const gpo_resident_query *q;
	gpo_resident_plan plan;
	int64_t    *offsets;		/* [nsets + 1]: each set's first row, end to end */
	int64_t    *d_offsets;		/* the same on the device */
	int64_t		all;			/* rows of all sets */
	int64_t		total;			/* passing rows of all sets */
	uint8_t    *d_masks;		/* every set's mask bytes, set after set
								 * (NULL: every row passes) */
	const void *d_data[GPO_RESIDENT_MAX_INPUTS];	/* the plan's inputs: the
													 * gathered set columns,
													 * the dimension columns,
													 * then the computed */
	const uint8_t *d_valid[GPO_RESIDENT_MAX_INPUTS];
	gpo_dmem	mem;			/* masks and gathered columns */
};

/*
 * Copies rows g = d_map[j] (NULL: j) of the sets laid end to end, for
 * j < total, into row j of the gathered columns: set s's nmoves columns
 * are d_moves[s * nmoves ...], whose dst is the gathered column's start.
 */
__global__ void
gpo_k_resident_gather(const gpo_resident_move *d_moves, int nmoves,
					  const int64_t *d_offsets, int nsets,
					  const int64_t *d_map, int64_t total)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t j = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; j < total;
		 j += stride)
	{
		int64_t		g = d_map != NULL ? d_map[j] : j;
		int			set = gpo_cuda_set_of(d_offsets, nsets, g);
		int64_t		r = g - d_offsets[set];
		const gpo_resident_move *m = d_moves + (size_t) set * nmoves;

		for (int k = 0; k < nmoves; k++)
		{
			if (m[k].width == 8)
				((unsigned long long *) m[k].dst)[j] = ((const unsigned long long *) m[k].src)[r];
			else
				((unsigned int *) m[k].dst)[j] = ((const unsigned int *) m[k].src)[r];
			if (m[k].dst_valid != NULL)
				m[k].dst_valid[j] = m[k].src_valid != NULL ? m[k].src_valid[r] : 1;
		}
	}
}

/* Frees the device memory of a set's columns (cudaFree waits for their users). */
static void
gpo_resident_release(gpo_resident *set)
{
	for (int c = 0; c < set->ncols; c++)
	{
		if (set->cols[c].data != NULL)
			(void) cudaFree(set->cols[c].data);
		if (set->cols[c].valid != NULL)
			(void) cudaFree(set->cols[c].valid);
		set->cols[c].data = NULL;
		set->cols[c].valid = NULL;
	}
	(void) cudaGetLastError();
}

/* Uploads the validity of v's first rows rows into d_valid, a byte a row, in pieces. */
static gpo_status
gpo_resident_valid_up(gpo_ctx *ctx, const gpo_vector *v, int64_t rows,
					  uint8_t *d_valid)
{
	gpo_status	st = GPO_OK;
	int64_t		piece = rows < GPO_RESIDENT_PIECE ? rows : GPO_RESIDENT_PIECE;
	uint8_t    *buf = (uint8_t *) malloc((size_t) piece);

	if (buf == NULL)
	{
		snprintf(ctx->detail, sizeof(ctx->detail),
				 "could not allocate validity bytes of a kept column");
		return GPO_ERR_NOMEM;
	}
	for (int64_t off = 0; off < rows; off += piece)
	{
		int64_t		len = rows - off < piece ? rows - off : piece;
		gpo_span	span;

		gpo_resident_valid_bytes(v, off, len, buf);
		span.host = (char *) buf;
		span.off = 0;
		span.len = (size_t) len;
		/* a staged upload has taken the bytes when it returns */
		GPO_TRY(gpo_cuda_stage(ctx, GPO_TO_DEVICE, d_valid + off, &span, 1,
							   (size_t) len));
	}
cleanup:
	free(buf);
	return st;
}

/* Put GPU face (see gpo_resident_internal.h). */
extern "C" gpo_status
gpo_resident_put_gpu(gpo_ctx *ctx, const gpo_vector *cols, gpo_resident *set)
{
	gpo_status	st = GPO_OK;
	sigset_t	old;
	bool		began = false;
	int64_t		n = set->rows;

	if ((st = gpo_cuda_begin(ctx, &old)) != GPO_OK)
		goto cleanup;
	began = true;
	for (int c = 0; c < set->ncols && n > 0; c++)
	{
		gpo_resident_col *rc = &set->cols[c];
		size_t		w = gpo_type_size(rc->type);
		void	   *d_new = NULL;

		GPO_CUDA_TRY(cudaMalloc(&d_new, w * (size_t) n));
		rc->data = d_new;
		GPO_TRY(gpo_cuda_upload(ctx, &cols[c], w, rc->data, n));
		set->bytes += w * (size_t) n;
		if (!gpo_resident_has_null(&cols[c]))
			continue;
		GPO_CUDA_TRY(cudaMalloc(&d_new, (size_t) n));
		rc->valid = (uint8_t *) d_new;
		GPO_TRY(gpo_resident_valid_up(ctx, &cols[c], n, rc->valid));
		set->bytes += (size_t) n;
	}
	/* whole before any other thread's stream reads it */
	GPO_CUDA_TRY(cudaStreamSynchronize(0));
cleanup:
	if (st != GPO_OK && began)
	{
		(void) cudaStreamSynchronize(0);
		gpo_resident_release(set);
		set->bytes = 0;
	}
	gpo_cuda_end(&old);
	return st;
}

/* Frees a GPU set's device memory (see gpo_resident_internal.h). */
extern "C" void
gpo_resident_free_gpu(gpo_resident *set)
{
	sigset_t	old;

	if (gpo_cuda_begin(NULL, &old) == GPO_OK)
		gpo_resident_release(set);
	gpo_cuda_end(&old);
}

/*
 * The program's mask over every set at once into run->d_masks, and its
 * count of passing rows into run->total.
 */
static gpo_status
gpo_resident_filter(gpo_ctx *ctx, gpo_resident_run *run)
{
	gpo_status	st = GPO_OK;
	const gpo_resident_query *q = run->q;
	int			nc = run->sets[0]->ncols;
	gpo_filter_dcol *h_cols = NULL;
	gpo_filter_dcol *d_cols = NULL;
	gpo_pred   *d_prog = NULL;
	unsigned long long *d_count = NULL;
	unsigned long long count = 0;
	size_t		ncells = (size_t) run->nsets * nc;

	if ((h_cols = (gpo_filter_dcol *) malloc(sizeof(*h_cols) * ncells)) == NULL)
	{
		snprintf(ctx->detail, sizeof(ctx->detail), "could not allocate the column table");
		st = GPO_ERR_NOMEM;
		goto cleanup;
	}
	for (int s = 0; s < run->nsets; s++)
		for (int c = 0; c < nc; c++)
		{
			h_cols[(size_t) s * nc + c].data = run->sets[s]->cols[c].data;
			h_cols[(size_t) s * nc + c].valid = run->sets[s]->cols[c].valid;
			h_cols[(size_t) s * nc + c].type = (int32_t) run->sets[s]->cols[c].type;
		}
	GPO_CUDA_TRY(gpo_dmem_alloc(&run->mem, (void **) &d_cols, sizeof(*h_cols) * ncells));
	GPO_CUDA_TRY(cudaMemcpy(d_cols, h_cols, sizeof(*h_cols) * ncells, cudaMemcpyHostToDevice));
	GPO_CUDA_TRY(gpo_dmem_alloc(&run->mem, (void **) &d_prog, sizeof(gpo_pred) * q->nnodes));
	GPO_CUDA_TRY(cudaMemcpy(d_prog, q->prog, sizeof(gpo_pred) * q->nnodes, cudaMemcpyHostToDevice));
	GPO_CUDA_TRY(gpo_dmem_alloc(&run->mem, (void **) &run->d_masks, (size_t) run->all));
	GPO_CUDA_TRY(gpo_dmem_alloc(&run->mem, (void **) &d_count, sizeof(*d_count)));
	GPO_CUDA_TRY(cudaMemsetAsync(d_count, 0, sizeof(*d_count), 0));
	GPO_CUDA_TRY(gpo_cuda_filter_masks(d_cols, nc, run->d_offsets, run->nsets, d_prog,
									   q->nnodes, run->all, run->d_masks, d_count));
	GPO_CUDA_TRY(cudaMemcpy(&count, d_count, sizeof(count), cudaMemcpyDeviceToHost));
	run->total = (int64_t) count;
cleanup:
	free(h_cols);
	return st;
}

/*
 * The sets' row offsets (on the host and the device), and their passing
 * rows into run->total: all rows without a program or a join, else the
 * count of the mask (run->d_masks) of the program, then of the joins,
 * over every set at once.
 */
static gpo_status
gpo_resident_masks(gpo_ctx *ctx, gpo_resident_run *run)
{
	gpo_status	st = GPO_OK;
	const gpo_resident_query *q = run->q;

	run->offsets[0] = 0;
	for (int s = 0; s < run->nsets; s++)
		run->offsets[s + 1] = run->offsets[s] + run->sets[s]->rows;
	run->all = run->offsets[run->nsets];
	run->total = run->all;
	GPO_CUDA_TRY(gpo_dmem_alloc(&run->mem, (void **) &run->d_offsets,
								sizeof(int64_t) * (run->nsets + 1)));
	GPO_CUDA_TRY(cudaMemcpy(run->d_offsets, run->offsets,
							sizeof(int64_t) * (run->nsets + 1), cudaMemcpyHostToDevice));
	if ((q->nnodes == 0 && q->ndims == 0) || run->all == 0)
		goto cleanup;
	if (q->nnodes > 0)
		GPO_TRY(gpo_resident_filter(ctx, run));
	else
		GPO_CUDA_TRY(gpo_dmem_alloc(&run->mem, (void **) &run->d_masks, (size_t) run->all));
	/* the joins drop rows from the program's mask (or make one) */
	if (q->ndims > 0 && run->total > 0)
		GPO_TRY(gpo_resident_dims_mask_gpu(ctx, run->nsets, run->sets, q, run->d_offsets,
										   run->all, q->nnodes == 0, run->d_masks,
										   &run->mem, &run->total));
cleanup:
	return st;
}

/* The moves of set s into the gathered columns (d_out, d_vout: their starts). */
static void
gpo_resident_moves_of(const gpo_resident_run *run, int s, void *const *d_out,
					  uint8_t *const *d_vout, gpo_resident_move *moves)
{
	for (int k = 0; k < run->plan.nneed; k++)
	{
		const gpo_resident_col *rc = &run->sets[s]->cols[run->plan.need[k]];

		moves[k].src = rc->data;
		moves[k].src_valid = rc->valid;
		moves[k].dst = d_out[k];
		moves[k].dst_valid = d_vout[k];
		moves[k].width = (int) gpo_type_size(rc->type);
	}
}

/* The gathered columns' buffers (validity where some set has a NULL). */
static gpo_status
gpo_resident_gathered(gpo_ctx *ctx, gpo_resident_run *run, void **d_out,
					  uint8_t **d_vout)
{
	gpo_status	st = GPO_OK;

	for (int k = 0; k < run->plan.nneed; k++)
	{
		int			c = run->plan.need[k];
		bool		nulls = false;

		for (int s = 0; s < run->nsets; s++)
			nulls |= run->sets[s]->rows > 0 && run->sets[s]->cols[c].valid != NULL;
		GPO_CUDA_TRY(gpo_dmem_alloc(&run->mem, &d_out[k],
									gpo_type_size(run->sets[0]->cols[c].type) *
									(size_t) run->total));
		d_vout[k] = NULL;
		if (nulls)
			GPO_CUDA_TRY(gpo_dmem_alloc(&run->mem, (void **) &d_vout[k],
										(size_t) run->total));
		run->d_data[k] = d_out[k];
		run->d_valid[k] = d_vout[k];
	}
cleanup:
	return st;
}

/*
 * The passing rows' numbers (of the sets end to end) into *d_map, by CUB's
 * selection over every set's mask at once; NULL when every row passes.
 */
static gpo_status
gpo_resident_select(gpo_ctx *ctx, gpo_resident_run *run, int64_t **d_map)
{
	gpo_status	st = GPO_OK;
	int64_t    *d_count = NULL;
	void	   *d_temp = NULL;
	size_t		temp_bytes = 0;

	*d_map = NULL;
	if (run->d_masks == NULL || run->total == run->all)
		return GPO_OK;
	GPO_CUDA_TRY(gpo_dmem_alloc(&run->mem, (void **) d_map, sizeof(int64_t) * run->total));
	GPO_CUDA_TRY(gpo_dmem_alloc(&run->mem, (void **) &d_count, sizeof(int64_t)));
	GPO_CUDA_TRY(gpo_cuda_compact(run->d_masks, NULL, run->all, false, *d_map, d_count,
								  NULL, &temp_bytes, 0));
	GPO_CUDA_TRY(gpo_dmem_alloc(&run->mem, &d_temp, temp_bytes));
	GPO_CUDA_TRY(gpo_cuda_compact(run->d_masks, NULL, run->all, false, *d_map, d_count,
								  d_temp, &temp_bytes, 0));
cleanup:
	return st;
}

/*
 * The passing rows (d_map, NULL: every row) of the set columns read into
 * run->d_data and run->d_valid: one gather over every set, or, for one set
 * whose rows all pass, where it is kept.
 */
static gpo_status
gpo_resident_gather_sets(gpo_ctx *ctx, gpo_resident_run *run,
						 const int64_t *d_map)
{
	gpo_status	st = GPO_OK;
	int			nn = run->plan.nneed;
	void	   *d_out[GPO_RESIDENT_NEED];
	uint8_t    *d_vout[GPO_RESIDENT_NEED];
	gpo_resident_move *h_moves = NULL;
	gpo_resident_move *d_moves = NULL;

	if (run->nsets == 1 && run->total == run->all)
	{
		for (int k = 0; k < nn; k++)
		{
			run->d_data[k] = run->sets[0]->cols[run->plan.need[k]].data;
			run->d_valid[k] = run->sets[0]->cols[run->plan.need[k]].valid;
		}
		return GPO_OK;
	}
	GPO_TRY(gpo_resident_gathered(ctx, run, d_out, d_vout));
	if ((h_moves = (gpo_resident_move *) malloc(sizeof(*h_moves) * nn * run->nsets)) == NULL)
	{
		snprintf(ctx->detail, sizeof(ctx->detail), "could not allocate the gather table");
		st = GPO_ERR_NOMEM;
		goto cleanup;
	}
	for (int s = 0; s < run->nsets; s++)
		gpo_resident_moves_of(run, s, d_out, d_vout, h_moves + (size_t) s * nn);
	GPO_CUDA_TRY(gpo_dmem_alloc(&run->mem, (void **) &d_moves, sizeof(*h_moves) * nn * run->nsets));
	GPO_CUDA_TRY(cudaMemcpy(d_moves, h_moves, sizeof(*h_moves) * nn * run->nsets,
							cudaMemcpyHostToDevice));
	gpo_k_resident_gather<<<gpo_cuda_blocks(run->total), GPO_CUDA_THREADS>>>
		(d_moves, nn, run->d_offsets, run->nsets, d_map, run->total);
	GPO_CUDA_TRY(GPO_LAUNCHED());
cleanup:
	free(h_moves);
	return st;
}

/*
 * The passing rows of the columns read into run->d_data and run->d_valid:
 * the set columns (gpo_resident_gather_sets), then the dimension columns
 * at the passing rows' dimension rows (inputs nneed + d).
 */
static gpo_status
gpo_resident_gather(gpo_ctx *ctx, gpo_resident_run *run)
{
	gpo_status	st = GPO_OK;
	int			nn = run->plan.nneed;
	int64_t    *d_map = NULL;

	if (nn == 0 && run->q->ndimcols == 0)
		return GPO_OK;
	GPO_TRY(gpo_resident_select(ctx, run, &d_map));
	if (nn > 0)
		GPO_TRY(gpo_resident_gather_sets(ctx, run, d_map));
	if (run->q->ndimcols > 0)
		GPO_TRY(gpo_resident_dims_gather_gpu(ctx, run->nsets, run->sets, run->q,
											 run->d_offsets, d_map, run->total,
											 &run->mem, run->d_data + nn,
											 run->d_valid + nn));
cleanup:
	return st;
}

/*
 * The computed columns over the gathered rows, into run->d_data and
 * run->d_valid after the set and dimension columns (input nneed +
 * ndimcols + e); the lowest erring row's error (an earlier
 * column's on a tie) into *run->q->xerr.
 */
static gpo_status
gpo_resident_exprs(gpo_ctx *ctx, gpo_resident_run *run)
{
	gpo_status	st = GPO_OK;
	const gpo_resident_query *q = run->q;
	int			nx = run->plan.nneed + run->plan.ndimcols;	/* the first computed */
	gpo_xcol	h_cols[GPO_RESIDENT_MAX_INPUTS];
	gpo_xnode  *prog = (gpo_xnode *) malloc(sizeof(gpo_xnode) * GPO_EXPR_MAX_NODES);

	if (prog == NULL)
	{
		snprintf(ctx->detail, sizeof(ctx->detail), "could not allocate a program");
		return GPO_ERR_NOMEM;
	}
	for (int k = 0; k < nx + q->nexprs; k++)
	{
		h_cols[k].data = run->d_data[k];
		h_cols[k].valid = run->d_valid[k];
		h_cols[k].type = (int32_t) gpo_resident_input_type(run->sets[0], q, &run->plan, k);
	}
	for (int e = 0; e < q->nexprs; e++)
	{
		void	   *d_out = NULL;
		uint8_t    *d_valid = NULL;
		gpo_expr_error err;

		GPO_CUDA_TRY(gpo_dmem_alloc(&run->mem, &d_out,
									gpo_type_size(q->exprs[e].type) * (size_t) run->total));
		GPO_CUDA_TRY(gpo_dmem_alloc(&run->mem, (void **) &d_valid, (size_t) run->total));
		gpo_resident_expr_prog(q, &run->plan, e, prog);
		GPO_TRY(gpo_cuda_expr_columns(ctx, h_cols, nx + e, prog, q->exprs[e].nnodes,
									  run->total, q->exprs[e].type, d_out, d_valid,
									  &run->mem, &err));
		/* the lowest row's; a later column errs only past it if at all */
		gpo_resident_lower_error(q->xerr, &err);
		run->d_data[nx + e] = h_cols[nx + e].data = d_out;
		run->d_valid[nx + e] = h_cols[nx + e].valid = d_valid;
	}
cleanup:
	free(prog);
	return st;
}

/* Groups the gathered rows and downloads the groups into outs. */
static gpo_status
gpo_resident_aggregate(gpo_ctx *ctx, gpo_resident_run *run,
					   gpo_agg_strategy *strategy, gpo_agg_out *outs,
					   int64_t *ngroups)
{
	gpo_status	st = GPO_OK;
	const gpo_resident_query *q = run->q;
	int			nr = q->nreqs > 0 ? q->nreqs : 1;
	gpo_type	kt = gpo_resident_key_type(run->sets[0], q);
	const void *d_keys = NULL;
	const uint8_t *d_kvalid = NULL;
	void	   *d_zero = NULL;
	gpo_dmem	mem = {};
	gpo_dmem	dl = {};
	gpo_cuda_req dreq[GPO_AGG_MAX_REQS];
	gpo_cuda_groups res[GPO_AGG_MAX_REQS];

	if (run->plan.key >= 0)
	{
		d_keys = run->d_data[run->plan.key];
		d_kvalid = run->d_valid[run->plan.key];
	}
	else
	{
		GPO_CUDA_TRY(gpo_dmem_alloc(&mem, &d_zero, sizeof(int32_t) * run->total));
		GPO_CUDA_TRY(cudaMemsetAsync(d_zero, 0, sizeof(int32_t) * run->total, 0));
		d_keys = d_zero;
	}
	for (int r = 0; r < nr; r++)
	{
		int			k = q->nreqs > 0 ? run->plan.req[r] : -1;
		gpo_agg_out o = outs[r];

		memset(&dreq[r], 0, sizeof(dreq[r]));
		dreq[r].vt = k >= 0 ? (int) gpo_resident_input_type(run->sets[0], q, &run->plan, k) : -1;
		if (k < 0 || !(q->aggs[r] & GPO_AGG_WANT_M2))
			o.m2 = NULL;
		dreq[r].fields = gpo_cuda_fields(&o, dreq[r].vt);
		dreq[r].d_vals = k >= 0 ? run->d_data[k] : NULL;
		dreq[r].d_vvalid = k >= 0 ? run->d_valid[k] : NULL;
	}
	GPO_TRY(gpo_cuda_groupagg_many(ctx, kt, d_keys, d_kvalid, run->total, nr, dreq,
								   q->est_groups, *strategy, &mem, res));
	*strategy = res[0].used;
	*ngroups = res[0].ngroups;
	for (int r = 0; r < nr; r++)
		if (outs[r].capacity < res[0].ngroups)
		{
			snprintf(ctx->detail, sizeof(ctx->detail), "output %d holds %lld groups, %lld found",
					 r, (long long) outs[r].capacity, (long long) res[0].ngroups);
			st = GPO_ERR_CAPACITY;
			goto cleanup;
		}
	for (int r = 0; r < nr; r++)
	{
		gpo_agg_out o = outs[r];

		if (dreq[r].vt < 0 || !(dreq[r].fields & GPO_DF_M2))
			o.m2 = NULL;
		GPO_TRY(gpo_cuda_groups_download(ctx, &res[r], kt, dreq[r].vt, &o, &dl));
		gpo_dmem_release(&dl);
	}
	GPO_CUDA_TRY(cudaStreamSynchronize(0));
cleanup:
	gpo_dmem_release(&dl);
	gpo_dmem_release(&mem);
	return st;
}

/* Aggregation GPU face (see gpo_resident_internal.h). */
extern "C" gpo_status
gpo_resident_groupagg_gpu(gpo_ctx *ctx, int nsets, gpo_resident *const *sets,
						  const gpo_resident_query *q,
						  gpo_agg_strategy *strategy, gpo_agg_out *outs,
						  int64_t *ngroups)
{
	gpo_status	st = GPO_OK;
	sigset_t	old;
	gpo_resident_run *run = NULL;
	gpo_resident_query dq;
	gpo_resident_dim ddims[GPO_RESIDENT_MAX_DIMS];
	gpo_resident_dimcol dcols[GPO_RESIDENT_MAX_DIM_COLS];

	if ((st = gpo_cuda_begin(ctx, &old)) != GPO_OK)
		goto cleanup;
	/* gpo_dmem is large: the run lives on the heap */
	run = (gpo_resident_run *) calloc(1, sizeof(*run));
	if (run == NULL ||
		(run->offsets = (int64_t *) malloc(sizeof(int64_t) * (nsets + 1))) == NULL)
	{
		snprintf(ctx->detail, sizeof(ctx->detail), "could not allocate an aggregation");
		st = GPO_ERR_NOMEM;
		goto cleanup;
	}
	run->nsets = nsets;
	run->sets = sets;
	/* a star join's row maps and dimension columns, to the device */
	if (q->ndims > 0)
	{
		GPO_TRY(gpo_resident_dims_device(ctx, q, &run->mem, &dq, ddims, dcols));
		q = &dq;
	}
	run->q = q;
	gpo_resident_plan_of(q, &run->plan);
	GPO_TRY(gpo_resident_masks(ctx, run));
	if (run->total > INT32_MAX)
	{
		snprintf(ctx->detail, sizeof(ctx->detail),
				 "the GPU face aggregates at most 2^31 - 1 passing rows, not %lld",
				 (long long) run->total);
		st = GPO_ERR_INVALID;
		goto cleanup;
	}
	if (run->total == 0)
	{
		gpo_resident_no_rows(gpo_resident_key_type(sets[0], q), strategy, ngroups);
		goto cleanup;
	}
	GPO_TRY(gpo_resident_gather(ctx, run));
	if (q->nexprs > 0)
	{
		GPO_TRY(gpo_resident_exprs(ctx, run));
		if (q->xerr->code != GPO_XERR_NONE)
			goto cleanup;
	}
	GPO_TRY(gpo_resident_aggregate(ctx, run, strategy, outs, ngroups));
cleanup:
	if (run != NULL)
	{
		gpo_dmem_release(&run->mem);
		free(run->offsets);
		free(run);
	}
	gpo_cuda_end(&old);
	return st;
}
