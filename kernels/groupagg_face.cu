/*
 * groupagg_face.cu
 *	  The group aggregation GPU face: uploads the chunked columns, runs the
 *	  device-resident core (groupagg.cu), and finishes the accumulators into
 *	  gpo_agg_out's types on the device before copying them back.
 *
 * The float64 rendering of an exact integer sum is made on the host from
 * the 128-bit sum, so that it is rounded once and matches the CPU face.
 */
#include <string.h>

#include "agg_cuda.cuh"
#include "gpo_cuda.cuh"

/* Writes group g's results in gpo_agg_out's layout (device arrays). */
__global__ void
gpo_k_groups_finish(gpo_cuda_groups r, gpo_type kt, int vt, gpo_agg_out o)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;
	bool		kwide = kt == GPO_INT64 || kt == GPO_FLOAT64;
	bool		vwide = vt == GPO_INT64 || vt == GPO_FLOAT64;
	bool		vint = vt >= 0 && gpo_type_is_int((gpo_type) vt);

	for (int64_t g = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; g < r.ngroups; g += stride)
	{
		int64_t		slot = r.d_slot ? r.d_slot[g] : g;
		bool		keyed = g < r.nkeyed;
		gpo_lacc	a;
		bool		any;

		gpo_dacc_load(r.acc, slot, a);
		any = vt >= 0 && a.count > 0;
		if (o.keys)
		{
			unsigned long long raw = keyed ? gpo_raw_of_code(kt, r.d_code[g]) : 0;

			if (kwide)
				((unsigned long long *) o.keys)[g] = raw;
			else
				((unsigned int *) o.keys)[g] = (unsigned int) raw;
		}
		if (o.key_valid)
			o.key_valid[g] = keyed;
		if (o.rows)
			o.rows[g] = (int64_t) a.rows;
		if (o.count)
			o.count[g] = vt >= 0 ? (int64_t) a.count : 0;
		if (o.isum)
		{
			__int128	s = any && vint ? a.isum : 0;

			o.isum[g].lo = (uint64_t) s;
			o.isum[g].hi = (int64_t) (s >> 64);
		}
		if (o.fsum)
			o.fsum[g] = any && !vint ? a.fsum : 0.0;
		if (o.fflags)
			o.fflags[g] = any && !vint ? (uint8_t) a.fflags : 0;
		if (o.m2)
			o.m2[g] = !any || vint || r.acc.m2 == NULL ? 0.0 :
				a.fflags ? __longlong_as_double(0x7ff8000000000000LL) : r.acc.m2[slot];
		if (o.min)
		{
			unsigned long long raw = any ? gpo_raw_of_code((gpo_type) vt, a.mn) : 0;

			if (vwide)
				((unsigned long long *) o.min)[g] = raw;
			else
				((unsigned int *) o.min)[g] = (unsigned int) raw;
		}
		if (o.max)
		{
			unsigned long long raw = any ? gpo_raw_of_code((gpo_type) vt, a.mx) : 0;

			if (vwide)
				((unsigned long long *) o.max)[g] = raw;
			else
				((unsigned int *) o.max)[g] = (unsigned int) raw;
		}
	}
}

/* Finishes ngroups results into device arrays (see gpo_agg_kernels.cuh). */
gpo_status
gpo_cuda_groups_finish(gpo_ctx *ctx, const gpo_cuda_groups *res, gpo_type kt,
					   int vt, const gpo_agg_out *d_out)
{
	gpo_status	st = GPO_OK;

	if (res->ngroups <= 0)
		return GPO_OK;
	gpo_k_groups_finish<<<gpo_cuda_blocks(res->ngroups), GPO_CUDA_THREADS>>>
		(*res, kt, vt, *d_out);
	GPO_CUDA_TRY(GPO_LAUNCHED());
cleanup:
	return st;
}

/* Finishes device results into the host arrays of out (see agg_cuda.cuh). */
gpo_status
gpo_cuda_groups_download(gpo_ctx *ctx, const gpo_cuda_groups *res, gpo_type kt,
						 int vt, gpo_agg_out *out, gpo_dmem *mem)
{
	gpo_status	st = GPO_OK;
	int64_t		ng = res->ngroups;
	size_t		kw = gpo_type_size(kt);
	size_t		vw = vt >= 0 ? gpo_type_size((gpo_type) vt) : 0;
	bool		vint = vt >= 0 && gpo_type_is_int((gpo_type) vt);
	bool		int_fsum = out->fsum != NULL && vint;
	gpo_int128 *isum = out->isum;
	gpo_agg_out d = {};

	if (ng > out->capacity)
	{
		if (ctx != NULL)
			snprintf(ctx->detail, sizeof(ctx->detail), "output holds %lld groups, %lld found",
					 (long long) out->capacity, (long long) ng);
		return GPO_ERR_CAPACITY;
	}
	if (ng == 0)
		return GPO_OK;
	d.capacity = ng;
	if (out->keys)
		GPO_CUDA_TRY(gpo_dmem_alloc(mem, &d.keys, kw * ng));
	if (out->key_valid)
		GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d.key_valid, ng));
	if (out->rows)
		GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d.rows, 8 * ng));
	if (out->count)
		GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d.count, 8 * ng));
	if (out->isum || int_fsum)
		GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d.isum, sizeof(gpo_int128) * ng));
	if (out->fsum && !vint)
		GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d.fsum, 8 * ng));
	if (out->min && vw > 0)
		GPO_CUDA_TRY(gpo_dmem_alloc(mem, &d.min, vw * ng));
	if (out->max && vw > 0)
		GPO_CUDA_TRY(gpo_dmem_alloc(mem, &d.max, vw * ng));
	if (out->fflags)
		GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d.fflags, ng));
	if (out->m2)
		GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d.m2, 8 * ng));
	GPO_TRY(gpo_cuda_groups_finish(ctx, res, kt, vt, &d));

	if (d.keys)
		GPO_CUDA_TRY(cudaMemcpy(out->keys, d.keys, kw * ng, cudaMemcpyDeviceToHost));
	if (d.key_valid)
		GPO_CUDA_TRY(cudaMemcpy(out->key_valid, d.key_valid, ng, cudaMemcpyDeviceToHost));
	if (d.rows)
		GPO_CUDA_TRY(cudaMemcpy(out->rows, d.rows, 8 * ng, cudaMemcpyDeviceToHost));
	if (d.count)
		GPO_CUDA_TRY(cudaMemcpy(out->count, d.count, 8 * ng, cudaMemcpyDeviceToHost));
	if (d.isum)
	{
		if (isum == NULL)
		{
			isum = (gpo_int128 *) malloc(sizeof(gpo_int128) * ng);
			if (isum == NULL)
			{
				st = GPO_ERR_NOMEM;
				goto cleanup;
			}
		}
		GPO_CUDA_TRY(cudaMemcpy(isum, d.isum, sizeof(gpo_int128) * ng, cudaMemcpyDeviceToHost));
		if (int_fsum)
			for (int64_t g = 0; g < ng; g++)
				out->fsum[g] = (double) (__int128) (((unsigned __int128) (uint64_t) isum[g].hi << 64) |
													isum[g].lo);
	}
	if (d.fsum)
		GPO_CUDA_TRY(cudaMemcpy(out->fsum, d.fsum, 8 * ng, cudaMemcpyDeviceToHost));
	if (out->fsum && vt < 0)
		memset(out->fsum, 0, 8 * ng);
	if (d.min)
		GPO_CUDA_TRY(cudaMemcpy(out->min, d.min, vw * ng, cudaMemcpyDeviceToHost));
	if (d.max)
		GPO_CUDA_TRY(cudaMemcpy(out->max, d.max, vw * ng, cudaMemcpyDeviceToHost));
	if (d.fflags)
		GPO_CUDA_TRY(cudaMemcpy(out->fflags, d.fflags, ng, cudaMemcpyDeviceToHost));
	if (d.m2)
		GPO_CUDA_TRY(cudaMemcpy(out->m2, d.m2, 8 * ng, cudaMemcpyDeviceToHost));
cleanup:
	if (isum != NULL && isum != out->isum)
		free(isum);
	return st;
}

/* One column of n rows onto the device (see agg_cuda.cuh). */
gpo_status
gpo_cuda_column_in(gpo_ctx *ctx, const gpo_vector *v, int64_t n, gpo_dmem *mem,
				   void **d_data, uint8_t **d_valid)
{
	gpo_status	st = GPO_OK;
	size_t		w = gpo_type_size(v->type);

	GPO_CUDA_TRY(gpo_dmem_alloc(mem, d_data, w * (size_t) n));
	GPO_TRY(gpo_cuda_upload(ctx, v, w, *d_data, n));
	GPO_TRY(gpo_cuda_upload_valid(ctx, v, n, d_valid));
cleanup:
	return st;
}

/*
 * Group aggregation GPU face, several requests (see gpo_agg.h): the keys
 * go up once, every request's values after them, and one device call
 * groups the keys once for all requests.
 */
extern "C" gpo_status
gpo_groupagg_many_gpu(gpo_ctx *ctx, const gpo_vector *keys, int nreqs,
					  const gpo_agg_req *reqs, int64_t est_groups,
					  gpo_agg_strategy *strategy, gpo_agg_out *outs,
					  int64_t *ngroups)
{
	gpo_status	st = GPO_OK;
	sigset_t	old;
	gpo_dmem	mem = {};
	int64_t		n = gpo_vector_rows(keys);
	int			nr = nreqs > 0 ? nreqs : 1;
	void	   *d_keys = NULL;
	uint8_t    *d_kvalid = NULL;
	gpo_cuda_req dreq[GPO_AGG_MAX_REQS];
	uint8_t    *d_vvalid[GPO_AGG_MAX_REQS];
	gpo_cuda_groups res[GPO_AGG_MAX_REQS];

	memset(d_vvalid, 0, sizeof(d_vvalid));
	memset(res, 0, sizeof(res));
	st = gpo_cuda_begin(ctx, &old);
	if (st != GPO_OK)
		goto cleanup;
	if (n > INT32_MAX)
	{
		snprintf(ctx->detail, sizeof(ctx->detail), "the GPU group aggregation takes at most 2^31 - 1 rows");
		st = GPO_ERR_INVALID;
		goto cleanup;
	}
	GPO_TRY(gpo_cuda_column_in(ctx, keys, n, &mem, &d_keys, &d_kvalid));
	for (int r = 0; r < nr; r++)
	{
		const gpo_vector *v = nreqs > 0 ? reqs[r].values : NULL;
		gpo_agg_out o = outs[r];

		memset(&dreq[r], 0, sizeof(dreq[r]));
		dreq[r].vt = v ? (int) v->type : -1;
		if (v == NULL || !(reqs[r].aggs & GPO_AGG_WANT_M2))
			o.m2 = NULL;
		dreq[r].fields = gpo_cuda_fields(&o, dreq[r].vt);
		if (v != NULL)
		{
			void	   *d_vals = NULL;

			GPO_TRY(gpo_cuda_column_in(ctx, v, n, &mem, &d_vals, &d_vvalid[r]));
			dreq[r].d_vals = d_vals;
			dreq[r].d_vvalid = d_vvalid[r];
		}
	}
	GPO_TRY(gpo_cuda_groupagg_many(ctx, keys->type, d_keys, d_kvalid, n, nr, dreq,
								   est_groups, *strategy, &mem, res));
	*strategy = res[0].used;
	*ngroups = res[0].ngroups;
	for (int r = 0; r < nr; r++)
	{
		gpo_agg_out o = outs[r];

		if (dreq[r].vt < 0 || !(dreq[r].fields & GPO_DF_M2))
			o.m2 = NULL;
		GPO_TRY(gpo_cuda_groups_download(ctx, &res[r], keys->type, dreq[r].vt, &o, &mem));
	}
	GPO_CUDA_TRY(cudaStreamSynchronize(0));
cleanup:
	if (d_kvalid != NULL)
		gpo_cuda_free(d_kvalid);
	for (int r = 0; r < nr && r < GPO_AGG_MAX_REQS; r++)
		if (d_vvalid[r] != NULL)
			gpo_cuda_free(d_vvalid[r]);
	gpo_dmem_release(&mem);
	gpo_cuda_end(&old);
	return st;
}
