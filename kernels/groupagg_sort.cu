/*
 * groupagg_sort.cu
 *	  The sort GROUP BY strategy on the GPU: sorted key codes, run heads,
 *	  segments, the values gathered in sorted order and reduced per
 *	  segment (see groupagg.cu).
 */
#include "agg_cuda.cuh"
#include "gpo_cuda.cuh"
#include "groupagg_internal.cuh"

/* Run heads of sorted codes; the NULL tail (from nvalid) is one run. */
template <typename K>
__global__ void
gpo_k_run_heads(const K *d_codes, int64_t n, int64_t nvalid, uint32_t *d_flags)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		d_flags[i] = i == 0 || i == nvalid || (i < nvalid && d_codes[i] != d_codes[i - 1]);
}

/* Segment ids (in place over the exclusive scan), offsets and group codes. */
template <typename K>
__global__ void
gpo_k_run_segments(const K *d_codes, const uint32_t *d_flags, int64_t n,
				   int64_t nvalid, uint32_t *d_seg, int64_t *d_off,
				   unsigned long long *d_code)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
	{
		uint32_t	s = d_seg[i] + d_flags[i] - 1;

		d_seg[i] = s;
		if (d_flags[i])
		{
			d_off[s] = i;
			if (i < nvalid)
				d_code[s] = d_codes[i];
		}
		if (i == n - 1)
			d_off[s + 1] = n;
	}
}

/* Values (and validity) of the rows in sorted order. */
__global__ void
gpo_k_gather_values(int vt, const void *d_vals, const uint8_t *d_vvalid,
					const uint32_t *d_ids, int64_t n, void *d_out,
					uint8_t *d_out_valid)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;
	bool		wide = vt == GPO_INT64 || vt == GPO_FLOAT64;

	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
	{
		uint32_t	r = d_ids[i];

		if (wide)
			((unsigned long long *) d_out)[i] = ((const unsigned long long *) d_vals)[r];
		else
			((unsigned int *) d_out)[i] = ((const unsigned int *) d_vals)[r];
		if (d_out_valid)
			d_out_valid[i] = d_vvalid[r];
	}
}

/* Sort strategy into *res (see groupagg.cu). */
gpo_status
gpo_cuda_run_sort(gpo_ctx *ctx, gpo_type kt, const void *d_keys, const uint8_t *d_kvalid,
				  int64_t n, int nreq, const gpo_cuda_req *reqs, gpo_dmem *mem,
				  gpo_cuda_groups *res)
{
	gpo_status	st = GPO_OK;
	bool		wide = kt == GPO_INT64 || kt == GPO_FLOAT64;
	void	   *d_codes = NULL;
	uint32_t   *d_ids = NULL;
	uint32_t   *d_flags = NULL;
	uint32_t   *d_seg = NULL;
	int64_t    *d_off = NULL;
	void	   *d_vs = NULL;
	uint8_t    *d_vvs = NULL;
	uint32_t	last[2] = {0, 0};
	int64_t		nvalid = 0,
				ng = 0;
	unsigned int blocks = gpo_cuda_blocks(n);

	GPO_CUDA_TRY(gpo_cuda_key_codes(kt, d_keys, d_kvalid, n, &d_codes, &d_ids, &nvalid, mem));
	GPO_CUDA_TRY(gpo_cuda_sort_varying(wide, &d_codes, &d_ids, nvalid, n, mem));
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d_flags, 4 * (size_t) (n + 1)));
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d_seg, 4 * (size_t) (n + 1)));
	/*
	 * Run heads, then their exclusive sum: a segment id for every row.  Not
	 * cub::DeviceRunLengthEncode::Encode or DeviceReduce::ReduceByKey: those
	 * give each run's code and length (or one reduced value array per call)
	 * but no per-row segment id, which the row-parallel reduction of every
	 * request over the same segments (gpo_cuda_segreduce_rows) and the m2
	 * pass (gpo_cuda_m2_segments) read; and comparing codes alone would
	 * join a last run of code 0 to the NULL tail (codes 0 too).
	 */
	if (n > 0)
	{
		if (wide)
			gpo_k_run_heads<<<blocks, GPO_CUDA_THREADS>>>((const unsigned long long *) d_codes, n, nvalid, d_flags);
		else
			gpo_k_run_heads<<<blocks, GPO_CUDA_THREADS>>>((const unsigned int *) d_codes, n, nvalid, d_flags);
		GPO_CUDA_TRY(GPO_LAUNCHED());
		GPO_CUDA_TRY(gpo_cuda_exsum_u32(d_flags, d_seg, n, mem));
		GPO_CUDA_TRY(cudaMemcpy(&last[0], d_flags + n - 1, 4, cudaMemcpyDeviceToHost));
		GPO_CUDA_TRY(cudaMemcpy(&last[1], d_seg + n - 1, 4, cudaMemcpyDeviceToHost));
		ng = (int64_t) last[0] + last[1];
	}
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d_off, 8 * (size_t) (ng + 1)));
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &res->d_code, 8 * (size_t) (ng + 1)));
	res->d_slot = NULL;
	res->ngroups = ng;
	res->nkeyed = ng - (nvalid < n ? 1 : 0);
	for (int r = 1; r < nreq; r++)
		res[r] = res[0];
	for (int r = 0; r < nreq; r++)
		GPO_CUDA_TRY(gpo_dacc_alloc(mem, reqs[r].fields, ng, &res[r].acc));
	if (n == 0)
		goto cleanup;
	if (wide)
		gpo_k_run_segments<<<blocks, GPO_CUDA_THREADS>>>
			((const unsigned long long *) d_codes, d_flags, n, nvalid, d_seg, d_off, res->d_code);
	else
		gpo_k_run_segments<<<blocks, GPO_CUDA_THREADS>>>
			((const unsigned int *) d_codes, d_flags, n, nvalid, d_seg, d_off, res->d_code);
	GPO_CUDA_TRY(GPO_LAUNCHED());
	/* each request's values in sorted order, reduced over the same segments */
	for (int r = 0; r < nreq; r++)
	{
		const gpo_cuda_req *q = &reqs[r];

		d_vs = NULL;
		d_vvs = NULL;
		if (q->vt >= 0)
		{
			GPO_CUDA_TRY(gpo_dmem_alloc(mem, &d_vs, gpo_type_size((gpo_type) q->vt) * (size_t) n));
			if (q->d_vvalid != NULL)
				GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d_vvs, (size_t) n));
			gpo_k_gather_values<<<blocks, GPO_CUDA_THREADS>>>(q->vt, q->d_vals, q->d_vvalid,
															  d_ids, n, d_vs, d_vvs);
			GPO_CUDA_TRY(GPO_LAUNCHED());
		}
		GPO_CUDA_TRY(gpo_cuda_segreduce_rows(q->vt, d_vs, d_vvs, d_seg, d_off, n, &res[r].acc));
		if (q->fields & GPO_DF_M2)
			GPO_CUDA_TRY(gpo_cuda_m2_segments(q->vt, d_vs, d_vvs, d_seg, n, &res[r].acc));
	}
cleanup:
	return st;
}
