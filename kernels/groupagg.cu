/*
 * groupagg.cu
 *	  GROUP BY aggregation on the GPU: key statistics and the dispatchers,
 *	  which run one of three strategies (groupagg_dense.cu,
 *	  groupagg_hash.cu, groupagg_sort.cu); groupagg_face.cu finishes the
 *	  results into gpo_agg_out's layout.
 *
 *   dense  one slot per key code of [min, max] plus a NULL slot; block-
 *          private slots in shared memory when they fit, else global atomics
 *   hash   open addressing (linear probing) in global memory, sized to twice
 *          the most groups there can be; a small shared-memory table per
 *          block pre-aggregates hot keys; occupied slots are then sorted by
 *          key code
 *   sort   key codes -> radix sort -> run heads -> exclusive scan (segment
 *          ids and offsets) -> gather values -> row-parallel segmented
 *          reduction (segreduce.cu)
 * Every strategy yields groups in key order with the NULL-key group last.
 */
#include <string.h>

#include "agg_cuda.cuh"
#include "gpo_cuda.cuh"
#include "groupagg_internal.cuh"

/* min code, max code, non-NULL count of the keys into d_stats[0..2]. */
__global__ void
gpo_k_key_stats(gpo_type kt, const void *d_keys, const uint8_t *d_kvalid,
				int64_t n, unsigned long long *d_stats)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;
	unsigned long long mn = ~0ULL,
				mx = 0,
				cnt = 0;

	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
	{
		unsigned long long c;

		if (d_kvalid && !d_kvalid[i])
			continue;
		c = gpo_code_of_raw(kt, gpo_dload(kt, d_keys, i), 1);
		mn = c < mn ? c : mn;
		mx = c > mx ? c : mx;
		cnt++;
	}
	for (int o = 16; o > 0; o >>= 1)
	{
		unsigned long long a = __shfl_xor_sync(0xffffffffu, mn, o);
		unsigned long long b = __shfl_xor_sync(0xffffffffu, mx, o);

		mn = a < mn ? a : mn;
		mx = b > mx ? b : mx;
		cnt += __shfl_xor_sync(0xffffffffu, cnt, o);
	}
	if ((threadIdx.x & 31) == 0 && cnt > 0)
	{
		atomicMin(&d_stats[0], mn);
		atomicMax(&d_stats[1], mx);
		atomicAdd(&d_stats[2], cnt);
	}
}

/* Key statistics of n keys (see agg_cuda.cuh). */
cudaError_t
gpo_cuda_key_stats(gpo_type kt, const void *d_keys, const uint8_t *d_kvalid,
				   int64_t n, unsigned long long stats[3], gpo_dmem *mem)
{
	cudaError_t err;
	unsigned long long *d_stats = NULL;

	stats[0] = ~0ULL;
	stats[1] = 0;
	stats[2] = 0;
	if (n == 0)
		return cudaSuccess;
	if ((err = gpo_dmem_alloc(mem, (void **) &d_stats, 3 * sizeof(stats[0]))) != cudaSuccess ||
		(err = cudaMemcpy(d_stats, stats, 3 * sizeof(stats[0]), cudaMemcpyHostToDevice)) != cudaSuccess)
		return err;
	gpo_k_key_stats<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS>>>(kt, d_keys, d_kvalid, n, d_stats);
	if ((err = GPO_LAUNCHED()) != cudaSuccess)
		return err;
	return cudaMemcpy(stats, d_stats, 3 * sizeof(stats[0]), cudaMemcpyDeviceToHost);
}

/* Estimated groups that the hash strategy's shared-memory tables (512 slots) hold easily. */
#define GPO_CUDA_FEW_GROUPS	256

/* Device-resident group aggregation, several requests (see gpo_agg_kernels.cuh). */
gpo_status
gpo_cuda_groupagg_many(gpo_ctx *ctx, gpo_type kt, const void *d_keys,
					   const uint8_t *d_kvalid, int64_t n, int nreq,
					   const gpo_cuda_req *reqs, int64_t est_groups,
					   gpo_agg_strategy want, gpo_dmem *mem,
					   gpo_cuda_groups *res)
{
	gpo_status	st = GPO_OK;
	unsigned long long stats[3];
	int64_t		nvalid;
	uint64_t	span;
	int64_t		bound;

	memset(res, 0, sizeof(*res) * nreq);
	GPO_CUDA_TRY(gpo_cuda_key_stats(kt, d_keys, d_kvalid, n, stats, mem));
	nvalid = (int64_t) stats[2];
	span = nvalid > 0 ? stats[1] - stats[0] : 0;
	if (want == GPO_AGG_AUTO)
	{
		want = gpo_agg_choose(kt, nvalid, stats[0], stats[1], est_groups);

		/*
		 * A few groups spread over a range too wide for shared memory (TPC-H
		 * Q1's two char(1) keys packed: 4 groups over 10,212 codes): the
		 * hash strategy's block-private tables hold them, where dense slots
		 * would take every row's atomics in global memory.
		 */
		if (want == GPO_AGG_DENSE && est_groups > 0 &&
			est_groups <= GPO_CUDA_FEW_GROUPS &&
			!gpo_cuda_dense_in_smem(nreq, reqs, (int64_t) span + 1))
			want = GPO_AGG_HASH;
	}
	if (want == GPO_AGG_DENSE &&
		(!gpo_type_is_int(kt) || span >= (uint64_t) GPO_AGG_DENSE_MAX_RANGE))
	{
		if (ctx != NULL)
			snprintf(ctx->detail, sizeof(ctx->detail),
					 "dense aggregation needs integer keys whose range is at most %lld",
					 (long long) GPO_AGG_DENSE_MAX_RANGE);
		return GPO_ERR_INVALID;
	}
	if (want == GPO_AGG_DENSE)
		st = gpo_cuda_run_dense(ctx, kt, d_keys, d_kvalid, n, nreq, reqs, stats[0],
					   nvalid > 0 ? (int64_t) span + 1 : 0, mem, res);
	else if (want == GPO_AGG_HASH)
	{
		bound = nvalid;
		if (gpo_type_is_int(kt) && span < (uint64_t) bound)
			bound = (int64_t) span + 1;
		st = gpo_cuda_run_hash(ctx, kt, d_keys, d_kvalid, n, nreq, reqs, bound, mem, res);
	}
	else
		st = gpo_cuda_run_sort(ctx, kt, d_keys, d_kvalid, n, nreq, reqs, mem, res);
	for (int r = 0; r < nreq; r++)
		res[r].used = want;
cleanup:
	return st;
}

/* Device-resident group aggregation, one request (see gpo_agg_kernels.cuh). */
gpo_status
gpo_cuda_groupagg(gpo_ctx *ctx, gpo_type kt, const void *d_keys,
				  const uint8_t *d_kvalid, int vt, const void *d_vals,
				  const uint8_t *d_vvalid, int64_t n, int64_t est_groups,
				  gpo_agg_strategy want, unsigned fields, gpo_dmem *mem,
				  gpo_cuda_groups *res)
{
	gpo_cuda_req req;

	req.vt = vt;
	req.d_vals = d_vals;
	req.d_vvalid = d_vvalid;
	req.fields = vt >= 0 ? fields : 0;
	return gpo_cuda_groupagg_many(ctx, kt, d_keys, d_kvalid, n, 1, &req,
								  est_groups, want, mem, res);
}
