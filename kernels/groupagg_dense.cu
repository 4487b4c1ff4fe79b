/*
 * groupagg_dense.cu
 *	  The dense GROUP BY strategy on the GPU: one slot per key code of
 *	  [min, max] plus a NULL slot (see groupagg.cu), its kernels, and the
 *	  accumulate and groups steps that groupagg_run.cu shares.
 */
#include "agg_cuda.cuh"
#include "gpo_cuda.cuh"
#include "groupagg_internal.cuh"

/*
 * Dense combines a warp's rows of one key first below this many keys.  Off:
 * on an H200 plain shared-memory atomics were faster (10 keys, 1e8 rows:
 * 1.5 ms against 2.0 ms with the warp combine); the hash kernel keeps it.
 */
#define DENSE_COMBINE_BELOW	0
/* Most dynamic shared memory a dense block may use. */
#define DENSE_SMEM_MAX		(96 * 1024)

/* Dense: slot code - min_code per key, slot range for NULL keys. */
__global__ void
gpo_k_dense(gpo_type kt, const void *d_keys, const uint8_t *d_kvalid, int vt,
			const void *d_vals, const uint8_t *d_vvalid, int64_t n,
			unsigned long long min_code, int64_t range, gpo_dacc g,
			unsigned fields, bool use_smem, bool combine)
{
	extern __shared__ __align__(16) char gpo_dense_smem[];
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;
	int64_t		nslots = range + 1;
	bool		has_v = vt >= 0;
	gpo_type	t = has_v ? (gpo_type) vt : GPO_INT64;
	gpo_dacc	s = g;

	if (use_smem)
	{
		gpo_dacc_carve(&s, fields, nslots, gpo_dense_smem);
		gpo_dacc_clear(s, 0, nslots, threadIdx.x, blockDim.x);
		__syncthreads();
	}
	for (int64_t base = (int64_t) blockIdx.x * blockDim.x + (threadIdx.x & ~31u);
		 base < n; base += stride)
	{
		int64_t		i = base + (threadIdx.x & 31);
		int64_t		slot = range;
		bool		vv = false;
		unsigned long long raw = 0;
		gpo_lacc	a;

		if (i < n)
		{
			if (!d_kvalid || d_kvalid[i])
				slot = (int64_t) (gpo_code_of_raw(kt, gpo_dload(kt, d_keys, i), 1) - min_code);
			vv = !d_vvalid || d_vvalid[i];
			raw = has_v ? gpo_dload(t, d_vals, i) : 0;
		}
		if (!combine)
		{
			if (i < n)
				gpo_dacc_add_row(s, slot, t, has_v, vv, raw);
		}
		else if (gpo_warp_combine(i < n, (unsigned long long) slot, t, has_v, vv, raw,
								  fields, a))
			gpo_dacc_merge(s, slot, a);
	}
	if (use_smem)
	{
		__syncthreads();
		for (int64_t k = threadIdx.x; k < nslots; k += blockDim.x)
		{
			gpo_lacc	a;

			gpo_dacc_load(s, k, a);
			gpo_dacc_merge(g, k, a);
		}
	}
}

/* Selects the nonempty dense slots (rows reached them). */
struct gpo_dense_nonempty
{
	const unsigned long long *rows;

	/* True if slot i has rows. */
	__host__ __device__ __forceinline__ bool operator()(int64_t i) const
	{
		return rows[i] > 0;
	}
};

/* Codes of the nkeyed groups from their dense slots: min_code + slot. */
__global__ void
gpo_k_dense_codes(const int64_t *d_slot, int64_t nkeyed,
				  unsigned long long min_code, unsigned long long *d_code)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t j = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; j < nkeyed; j += stride)
		d_code[j] = min_code + (unsigned long long) d_slot[j];
}

/* Dense m2 pass: each row's squared deviation into its slot's m2. */
__global__ void
gpo_k_dense_m2(gpo_type kt, const void *d_keys, const uint8_t *d_kvalid, int vt,
			   const void *d_vals, const uint8_t *d_vvalid, int64_t n,
			   unsigned long long min_code, int64_t range, gpo_dacc g)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;
	gpo_type	t = (gpo_type) vt;

	for (int64_t base = (int64_t) blockIdx.x * blockDim.x + (threadIdx.x & ~31u);
		 base < n; base += stride)
	{
		int64_t		i = base + (threadIdx.x & 31);
		int64_t		slot = range;
		double		term = 0.0;
		bool		active = false;

		if (i < n)
		{
			if (!d_kvalid || d_kvalid[i])
				slot = (int64_t) (gpo_code_of_raw(kt, gpo_dload(kt, d_keys, i), 1) - min_code);
			active = gpo_m2_term(g, slot, t, !d_vvalid || d_vvalid[i],
								 gpo_dload(t, d_vals, i), &term);
		}
		gpo_warp_add_m2(g, active, active ? (unsigned long long) slot : ~0ULL, term);
	}
}

/* Dense slots in shared memory (see groupagg_internal.cuh). */
bool
gpo_cuda_dense_in_smem(int nreq, const gpo_cuda_req *reqs, int64_t range)
{
	for (int r = 0; r < nreq; r++)
		if (gpo_dacc_slot_bytes(reqs[r].fields) * (size_t) (range + 1) > DENSE_SMEM_MAX)
			return false;
	return true;
}

/* Adds n rows into dense accumulators (see agg_cuda.cuh). */
cudaError_t
gpo_cuda_dense_accumulate(gpo_type kt, const void *d_keys,
						  const uint8_t *d_kvalid, int vt, const void *d_vals,
						  const uint8_t *d_vvalid, int64_t n,
						  unsigned long long min_code, int64_t range,
						  unsigned fields, const gpo_dacc *acc)
{
	cudaError_t err;
	size_t		smem = gpo_dacc_slot_bytes(fields) * (size_t) (range + 1);
	bool		use_smem = smem <= DENSE_SMEM_MAX;
	unsigned int blocks = gpo_cuda_blocks(n);

	if (n == 0)
		return cudaSuccess;
	if (use_smem)
	{
		int			dev = 0,
					sms = 0,
					per_sm = 0;

		if ((err = cudaFuncSetAttribute(gpo_k_dense, cudaFuncAttributeMaxDynamicSharedMemorySize,
										DENSE_SMEM_MAX)) != cudaSuccess ||
			(err = cudaGetDevice(&dev)) != cudaSuccess ||
			(err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
			(err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gpo_k_dense,
																 GPO_CUDA_THREADS, smem)) != cudaSuccess)
			return err;
		if (per_sm < 1)
			per_sm = 1;
		if ((int64_t) sms * per_sm < blocks)
			blocks = (unsigned int) (sms * per_sm);
	}
	gpo_k_dense<<<blocks, GPO_CUDA_THREADS, use_smem ? smem : 0>>>
		(kt, d_keys, d_kvalid, vt, d_vals, d_vvalid, n, min_code, range,
		 *acc, fields, use_smem, range < DENSE_COMBINE_BELOW);
	if ((err = GPO_LAUNCHED()) != cudaSuccess || !(fields & GPO_DF_M2) || vt < 0)
		return err;
	/* the second pass: the means are known now */
	gpo_k_dense_m2<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS>>>
		(kt, d_keys, d_kvalid, vt, d_vals, d_vvalid, n, min_code, range, *acc);
	return GPO_LAUNCHED();
}

/* The groups of dense accumulators into *res (see agg_cuda.cuh). */
gpo_status
gpo_cuda_dense_groups(gpo_ctx *ctx, unsigned long long min_code, int64_t range,
					  const gpo_dacc *acc, gpo_dmem *mem, gpo_cuda_groups *res)
{
	gpo_status	st = GPO_OK;
	unsigned long long null_rows = 0;
	gpo_dense_nonempty nonempty;

	res->used = GPO_AGG_DENSE;
	res->acc = *acc;
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &res->d_code, 8 * (size_t) (range + 1)));
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &res->d_slot, 8 * (size_t) (range + 1)));
	res->nkeyed = 0;
	if (range > 0)
	{
		nonempty.rows = res->acc.rows;
		GPO_CUDA_TRY(gpo_cuda_select_slots(nonempty, range, res->d_slot,
										   &res->nkeyed, mem));
		if (res->nkeyed > 0)
		{
			gpo_k_dense_codes<<<gpo_cuda_blocks(res->nkeyed), GPO_CUDA_THREADS>>>
				(res->d_slot, res->nkeyed, min_code, res->d_code);
			GPO_CUDA_TRY(GPO_LAUNCHED());
		}
	}
	GPO_CUDA_TRY(cudaMemcpy(&null_rows, res->acc.rows + range, 8, cudaMemcpyDeviceToHost));
	res->ngroups = res->nkeyed;
	if (null_rows > 0)
	{
		int64_t		slot = range;

		GPO_CUDA_TRY(cudaMemcpy(res->d_slot + res->nkeyed, &slot, 8, cudaMemcpyHostToDevice));
		res->ngroups++;
	}
cleanup:
	return st;
}

/*
 * Dense strategy into res[0 .. nreq) (see groupagg.cu): a pass a
 * request over its own slots, the groups found once (every request counts
 * every row).
 */
gpo_status
gpo_cuda_run_dense(gpo_ctx *ctx, gpo_type kt, const void *d_keys, const uint8_t *d_kvalid,
				   int64_t n, int nreq, const gpo_cuda_req *reqs,
				   unsigned long long min_code, int64_t range, gpo_dmem *mem,
				   gpo_cuda_groups *res)
{
	gpo_status	st = GPO_OK;
	gpo_dacc	acc;

	for (int r = nreq - 1; r >= 0; r--)
	{
		const gpo_cuda_req *q = &reqs[r];

		GPO_CUDA_TRY(gpo_dacc_alloc(mem, q->fields, range + 1, &acc));
		GPO_CUDA_TRY(gpo_cuda_dense_accumulate(kt, d_keys, d_kvalid, q->vt, q->d_vals,
											   q->d_vvalid, n, min_code, range,
											   q->fields, &acc));
		res[r].acc = acc;
	}
	GPO_TRY(gpo_cuda_dense_groups(ctx, min_code, range, &res[0].acc, mem, &res[0]));
	for (int r = 1; r < nreq; r++)
	{
		acc = res[r].acc;
		res[r] = res[0];
		res[r].acc = acc;
	}
cleanup:
	return st;
}
