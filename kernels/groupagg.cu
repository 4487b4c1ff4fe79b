/*
 * groupagg.cu
 *	  GROUP BY aggregation on the GPU: key statistics, the three strategies
 *	  and the finishing of results into gpo_agg_out's layout.
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

/* Slots of a block's shared-memory hash table (a power of two). */
#define HASH_SMEM_SLOTS		512
/* Probes in the shared table before a row goes to the global table. */
#define HASH_SMEM_PROBES	16
/*
 * Dense combines a warp's rows of one key first below this many keys.  Off:
 * on an H200 plain shared-memory atomics were faster (10 keys, 1e8 rows:
 * 1.5 ms against 2.0 ms with the warp combine); the hash kernel keeps it.
 */
#define DENSE_COMBINE_BELOW	0
/* Most dynamic shared memory a dense block may use. */
#define DENSE_SMEM_MAX		(96 * 1024)

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

/* Slot of code in the global table (inserted if new); -1 if it is full. */
__device__ int64_t
gpo_hash_insert(unsigned long long *d_tkeys, int64_t cap,
				unsigned long long code, unsigned int *d_full)
{
	int64_t		h = (int64_t) (gpo_dhash(code) & (unsigned long long) (cap - 1));

	for (int64_t p = 0; p < cap; p++)
	{
		unsigned long long k = d_tkeys[h];

		if (k == code)
			return h;
		if (k == GPO_HASH_EMPTY)
		{
			unsigned long long old = atomicCAS(&d_tkeys[h], GPO_HASH_EMPTY, code);

			if (old == GPO_HASH_EMPTY || old == code)
				return h;
		}
		h = (h + 1) & (cap - 1);
	}
	atomicExch(d_full, 1u);
	return -1;
}

/*
 * Hash: rows go to a block-private shared table when their key finds a
 * place there within HASH_SMEM_PROBES probes, else straight to the global
 * table.  Shared slots HASH_SMEM_SLOTS and + 1 (global cap and cap + 1)
 * hold the key code 2^64 - 1 and the NULL key.
 */
__global__ void
gpo_k_hash(gpo_type kt, const void *d_keys, const uint8_t *d_kvalid, int vt,
		   const void *d_vals, const uint8_t *d_vvalid, int64_t n,
		   unsigned long long *d_tkeys, int64_t cap, gpo_dacc g,
		   unsigned fields, unsigned int *d_full)
{
	__shared__ unsigned long long skeys[HASH_SMEM_SLOTS];
	extern __shared__ __align__(16) char gpo_hash_smem[];
	const int	nss = HASH_SMEM_SLOTS + 2;
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;
	bool		has_v = vt >= 0;
	gpo_type	t = has_v ? (gpo_type) vt : GPO_INT64;
	gpo_dacc	s;

	gpo_dacc_carve(&s, fields, nss, gpo_hash_smem);
	gpo_dacc_clear(s, 0, nss, threadIdx.x, blockDim.x);
	for (int k = threadIdx.x; k < HASH_SMEM_SLOTS; k += blockDim.x)
		skeys[k] = GPO_HASH_EMPTY;
	__syncthreads();

	for (int64_t base = (int64_t) blockIdx.x * blockDim.x + (threadIdx.x & ~31u);
		 base < n; base += stride)
	{
		int64_t		i = base + (threadIdx.x & 31);
		int			kind = 0;
		bool		vv = false;
		unsigned long long raw = 0;
		unsigned long long code = 0;
		int			h,
					found = -1;
		gpo_lacc	a;

		/* kind: 0 no row, 1 NULL key, 2 a key */
		if (i < n)
		{
			vv = !d_vvalid || d_vvalid[i];
			raw = has_v ? gpo_dload(t, d_vals, i) : 0;
			kind = 1;
			if (!d_kvalid || d_kvalid[i])
			{
				kind = 2;
				code = gpo_code_of_raw(kt, gpo_dload(kt, d_keys, i), 1);
			}
		}
		if (kind == 1)
		{
			gpo_dacc_add_row(s, HASH_SMEM_SLOTS + 1, t, has_v, vv, raw);
			kind = 0;
		}
		if (!gpo_warp_combine(kind == 2, code, t, has_v, vv, raw, fields, a))
			continue;
		if (code == GPO_HASH_EMPTY)
		{
			gpo_dacc_merge(s, HASH_SMEM_SLOTS, a);
			continue;
		}
		h = (int) (gpo_dhash(code) & (HASH_SMEM_SLOTS - 1));
		for (int p = 0; p < HASH_SMEM_PROBES; p++)
		{
			unsigned long long k = skeys[h];

			if (k == code)
			{
				found = h;
				break;
			}
			if (k == GPO_HASH_EMPTY)
			{
				unsigned long long old = atomicCAS(&skeys[h], GPO_HASH_EMPTY, code);

				if (old == GPO_HASH_EMPTY || old == code)
				{
					found = h;
					break;
				}
			}
			h = (h + 1) & (HASH_SMEM_SLOTS - 1);
		}
		if (found >= 0)
			gpo_dacc_merge(s, found, a);
		else
		{
			int64_t		gs = gpo_hash_insert(d_tkeys, cap, code, d_full);

			if (gs >= 0)
				gpo_dacc_merge(g, gs, a);
		}
	}
	__syncthreads();
	for (int k = threadIdx.x; k < nss; k += blockDim.x)
	{
		gpo_lacc	a;
		int64_t		gs;

		gpo_dacc_load(s, k, a);
		if (a.rows == 0)
			continue;
		if (k < HASH_SMEM_SLOTS)
			gs = gpo_hash_insert(d_tkeys, cap, skeys[k], d_full);
		else
			gs = cap + (k - HASH_SMEM_SLOTS);
		if (gs >= 0)
			gpo_dacc_merge(g, gs, a);
	}
}

/* Flags of occupied slots [0, cap] (slot cap: key code 2^64 - 1). */
__global__ void
gpo_k_hash_flags(const unsigned long long *d_tkeys, int64_t cap,
				 const unsigned long long *d_rows, uint32_t *d_flags)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i <= cap; i += stride)
		d_flags[i] = i < cap ? d_tkeys[i] != GPO_HASH_EMPTY : d_rows[cap] > 0;
}

/* Occupied slots' codes and slot numbers, packed. */
template <typename K>
__global__ void
gpo_k_hash_pack(const unsigned long long *d_tkeys, int64_t cap,
				const uint32_t *d_flags, const uint32_t *d_pos, K *d_codes,
				uint32_t *d_ids)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i <= cap; i += stride)
		if (d_flags[i])
		{
			d_codes[d_pos[i]] = (K) (i < cap ? d_tkeys[i] : GPO_HASH_EMPTY);
			d_ids[d_pos[i]] = (uint32_t) i;
		}
}

/* Flags of nonempty dense slots [0, range). */
__global__ void
gpo_k_dense_flags(const unsigned long long *d_rows, int64_t range,
				  uint32_t *d_flags)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < range; i += stride)
		d_flags[i] = d_rows[i] > 0;
}

/* Groups of nonempty dense slots: code and slot. */
__global__ void
gpo_k_dense_pack(const uint32_t *d_flags, const uint32_t *d_pos, int64_t range,
				 unsigned long long min_code, unsigned long long *d_code,
				 int64_t *d_slot)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < range; i += stride)
		if (d_flags[i])
		{
			d_code[d_pos[i]] = min_code + (unsigned long long) i;
			d_slot[d_pos[i]] = i;
		}
}

/* Sorted (code, id) pairs of m groups into the group arrays. */
template <typename K>
__global__ void
gpo_k_groups_from_pairs(const K *d_codes, const uint32_t *d_ids, int64_t m,
						unsigned long long *d_code, int64_t *d_slot)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < m; i += stride)
	{
		d_code[i] = d_codes[i];
		d_slot[i] = d_ids[i];
	}
}

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

/* Slot of code in the global table, -1 if absent. */
__device__ __forceinline__ int64_t
gpo_hash_find(const unsigned long long *d_tkeys, int64_t cap,
			  unsigned long long code)
{
	int64_t		h = (int64_t) (gpo_dhash(code) & (unsigned long long) (cap - 1));

	for (int64_t p = 0; p < cap; p++)
	{
		unsigned long long k = d_tkeys[h];

		if (k == code)
			return h;
		if (k == GPO_HASH_EMPTY)
			return -1;
		h = (h + 1) & (cap - 1);
	}
	return -1;
}

/* Hash m2 pass: slots found in the filled table (see gpo_k_hash's layout). */
__global__ void
gpo_k_hash_m2(gpo_type kt, const void *d_keys, const uint8_t *d_kvalid, int vt,
			  const void *d_vals, const uint8_t *d_vvalid, int64_t n,
			  const unsigned long long *d_tkeys, int64_t cap, gpo_dacc g)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;
	gpo_type	t = (gpo_type) vt;

	for (int64_t base = (int64_t) blockIdx.x * blockDim.x + (threadIdx.x & ~31u);
		 base < n; base += stride)
	{
		int64_t		i = base + (threadIdx.x & 31);
		int64_t		slot = -1;
		double		term = 0.0;
		bool		active = false;

		if (i < n)
		{
			slot = cap + 1;
			if (!d_kvalid || d_kvalid[i])
			{
				unsigned long long code = gpo_code_of_raw(kt, gpo_dload(kt, d_keys, i), 1);

				slot = code == GPO_HASH_EMPTY ? cap : gpo_hash_find(d_tkeys, cap, code);
			}
			active = slot >= 0 &&
				gpo_m2_term(g, slot, t, !d_vvalid || d_vvalid[i],
							gpo_dload(t, d_vals, i), &term);
		}
		gpo_warp_add_m2(g, active, active ? (unsigned long long) slot : ~0ULL, term);
	}
}

/*
 * Hash, requests after the first: each row's slot is found in the table
 * the first request filled (every key is there), its value merged there
 * (a warp's rows of one slot combined first).
 */
__global__ void
gpo_k_hash_add(gpo_type kt, const void *d_keys, const uint8_t *d_kvalid, int vt,
			   const void *d_vals, const uint8_t *d_vvalid, int64_t n,
			   const unsigned long long *d_tkeys, int64_t cap, gpo_dacc g,
			   unsigned fields)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;
	bool		has_v = vt >= 0;
	gpo_type	t = has_v ? (gpo_type) vt : GPO_INT64;

	for (int64_t base = (int64_t) blockIdx.x * blockDim.x + (threadIdx.x & ~31u);
		 base < n; base += stride)
	{
		int64_t		i = base + (threadIdx.x & 31);
		int64_t		slot = -1;
		bool		vv = false;
		unsigned long long raw = 0;
		gpo_lacc	a;

		if (i < n)
		{
			slot = cap + 1;
			if (!d_kvalid || d_kvalid[i])
			{
				unsigned long long code = gpo_code_of_raw(kt, gpo_dload(kt, d_keys, i), 1);

				slot = code == GPO_HASH_EMPTY ? cap : gpo_hash_find(d_tkeys, cap, code);
			}
			vv = !d_vvalid || d_vvalid[i];
			raw = has_v ? gpo_dload(t, d_vals, i) : 0;
		}
		if (gpo_warp_combine(slot >= 0, (unsigned long long) slot, t, has_v, vv, raw,
							 fields, a))
			gpo_dacc_merge(g, slot, a);
	}
}

/* Smallest power of two >= x (x >= 1). */
static int64_t
pow2_at_least(int64_t x)
{
	int64_t		p = 1;

	while (p < x)
		p <<= 1;
	return p;
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
	uint32_t   *d_flags = NULL;
	uint32_t   *d_pos = NULL;
	uint32_t	last[2] = {0, 0};
	unsigned long long null_rows = 0;

	res->used = GPO_AGG_DENSE;
	res->acc = *acc;
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &res->d_code, 8 * (size_t) (range + 1)));
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &res->d_slot, 8 * (size_t) (range + 1)));
	res->nkeyed = 0;
	if (range > 0)
	{
		GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d_flags, 4 * (size_t) range));
		GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d_pos, 4 * (size_t) range));
		gpo_k_dense_flags<<<gpo_cuda_blocks(range), GPO_CUDA_THREADS>>>(res->acc.rows, range, d_flags);
		GPO_CUDA_TRY(GPO_LAUNCHED());
		GPO_CUDA_TRY(gpo_cuda_exsum_u32(d_flags, d_pos, range, mem));
		gpo_k_dense_pack<<<gpo_cuda_blocks(range), GPO_CUDA_THREADS>>>
			(d_flags, d_pos, range, min_code, res->d_code, res->d_slot);
		GPO_CUDA_TRY(GPO_LAUNCHED());
		GPO_CUDA_TRY(cudaMemcpy(&last[0], d_flags + range - 1, 4, cudaMemcpyDeviceToHost));
		GPO_CUDA_TRY(cudaMemcpy(&last[1], d_pos + range - 1, 4, cudaMemcpyDeviceToHost));
		res->nkeyed = (int64_t) last[0] + last[1];
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
 * Dense strategy into res[0 .. nreq) (see the file header): a pass a
 * request over its own slots, the groups found once (every request counts
 * every row).
 */
static gpo_status
run_dense(gpo_ctx *ctx, gpo_type kt, const void *d_keys, const uint8_t *d_kvalid,
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

/* Hash strategy into *res (see the file header); bound caps the groups. */
static gpo_status
run_hash(gpo_ctx *ctx, gpo_type kt, const void *d_keys, const uint8_t *d_kvalid,
		 int64_t n, int nreq, const gpo_cuda_req *reqs, int64_t bound,
		 gpo_dmem *mem, gpo_cuda_groups *res)
{
	int			vt = reqs[0].vt;
	const void *d_vals = reqs[0].d_vals;
	const uint8_t *d_vvalid = reqs[0].d_vvalid;
	unsigned	fields = reqs[0].fields;
	gpo_status	st = GPO_OK;
	bool		wide = kt == GPO_INT64 || kt == GPO_FLOAT64;
	int64_t		cap = pow2_at_least(2 * bound > 1024 ? 2 * bound : 1024);
	size_t		smem = gpo_dacc_slot_bytes(fields) * (HASH_SMEM_SLOTS + 2);
	unsigned long long *d_tkeys = NULL;
	unsigned int *d_full = NULL;
	unsigned int full = 0;
	uint32_t   *d_flags = NULL;
	uint32_t   *d_pos = NULL;
	void	   *d_codes = NULL;
	uint32_t   *d_ids = NULL;
	uint32_t	last[2] = {0, 0};
	unsigned long long null_rows = 0;
	int64_t		m;

	GPO_CUDA_TRY(gpo_dacc_alloc(mem, fields, cap + 2, &res->acc));
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d_tkeys, 8 * (size_t) cap));
	GPO_CUDA_TRY(cudaMemset(d_tkeys, 0xff, 8 * (size_t) cap));
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d_full, sizeof(unsigned int)));
	GPO_CUDA_TRY(cudaMemset(d_full, 0, sizeof(unsigned int)));
	if (n > 0)
	{
		GPO_CUDA_TRY(cudaFuncSetAttribute(gpo_k_hash, cudaFuncAttributeMaxDynamicSharedMemorySize,
										  (int) smem));
		gpo_k_hash<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS, smem>>>
			(kt, d_keys, d_kvalid, vt, d_vals, d_vvalid, n, d_tkeys, cap, res->acc,
			 fields, d_full);
		GPO_CUDA_TRY(GPO_LAUNCHED());
		GPO_CUDA_TRY(cudaMemcpy(&full, d_full, sizeof(full), cudaMemcpyDeviceToHost));
		if (full)
		{
			if (ctx != NULL)
				snprintf(ctx->detail, sizeof(ctx->detail), "GPU hash table of %lld slots overflowed",
						 (long long) cap);
			st = GPO_ERR_DEVICE;
			goto cleanup;
		}
		if ((fields & GPO_DF_M2) && vt >= 0)
		{
			gpo_k_hash_m2<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS>>>
				(kt, d_keys, d_kvalid, vt, d_vals, d_vvalid, n, d_tkeys, cap, res->acc);
			GPO_CUDA_TRY(GPO_LAUNCHED());
		}
	}
	/*
	 * The other requests, over the table the first one filled.  Where there
	 * are few groups (at most 4 block tables' worth), each runs the
	 * shared-memory kernel again (it finds every key already in the table),
	 * whose block tables take most rows off the global slots: adding straight into
	 * the global slots contended on their atomics and made 3 and 6
	 * aggregates over 1,000 groups 0.72x and 0.68x one call per column (1e8
	 * rows, H200, bench/RESULTS.md 2026-12-02); at 1M groups the global add
	 * was even (1.02x).
	 */
	for (int r = 1; r < nreq; r++)
	{
		const gpo_cuda_req *q = &reqs[r];

		GPO_CUDA_TRY(gpo_dacc_alloc(mem, q->fields, cap + 2, &res[r].acc));
		if (n == 0)
			continue;
		if (bound <= 4 * HASH_SMEM_SLOTS)
		{
			size_t		qsmem = gpo_dacc_slot_bytes(q->fields) * (HASH_SMEM_SLOTS + 2);

			GPO_CUDA_TRY(cudaFuncSetAttribute(gpo_k_hash,
											  cudaFuncAttributeMaxDynamicSharedMemorySize,
											  (int) qsmem));
			gpo_k_hash<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS, qsmem>>>
				(kt, d_keys, d_kvalid, q->vt, q->d_vals, q->d_vvalid, n, d_tkeys, cap,
				 res[r].acc, q->fields, d_full);
		}
		else
			gpo_k_hash_add<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS>>>
				(kt, d_keys, d_kvalid, q->vt, q->d_vals, q->d_vvalid, n, d_tkeys, cap,
				 res[r].acc, q->fields);
		GPO_CUDA_TRY(GPO_LAUNCHED());
		if ((q->fields & GPO_DF_M2) && q->vt >= 0)
		{
			gpo_k_hash_m2<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS>>>
				(kt, d_keys, d_kvalid, q->vt, q->d_vals, q->d_vvalid, n, d_tkeys, cap,
				 res[r].acc);
			GPO_CUDA_TRY(GPO_LAUNCHED());
		}
	}

	/* occupied slots -> (code, slot) pairs -> sorted by code */
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d_flags, 4 * (size_t) (cap + 1)));
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d_pos, 4 * (size_t) (cap + 1)));
	gpo_k_hash_flags<<<gpo_cuda_blocks(cap + 1), GPO_CUDA_THREADS>>>(d_tkeys, cap, res->acc.rows, d_flags);
	GPO_CUDA_TRY(GPO_LAUNCHED());
	GPO_CUDA_TRY(gpo_cuda_exsum_u32(d_flags, d_pos, cap + 1, mem));
	GPO_CUDA_TRY(cudaMemcpy(&last[0], d_flags + cap, 4, cudaMemcpyDeviceToHost));
	GPO_CUDA_TRY(cudaMemcpy(&last[1], d_pos + cap, 4, cudaMemcpyDeviceToHost));
	m = (int64_t) last[0] + last[1];
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, &d_codes, (wide ? 8 : 4) * (size_t) (m + 1)));
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d_ids, 4 * (size_t) (m + 1)));
	if (wide)
		gpo_k_hash_pack<<<gpo_cuda_blocks(cap + 1), GPO_CUDA_THREADS>>>
			(d_tkeys, cap, d_flags, d_pos, (unsigned long long *) d_codes, d_ids);
	else
		gpo_k_hash_pack<<<gpo_cuda_blocks(cap + 1), GPO_CUDA_THREADS>>>
			(d_tkeys, cap, d_flags, d_pos, (unsigned int *) d_codes, d_ids);
	GPO_CUDA_TRY(GPO_LAUNCHED());
	GPO_CUDA_TRY(gpo_cuda_sort_varying(wide, &d_codes, &d_ids, m, m, mem));
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &res->d_code, 8 * (size_t) (m + 1)));
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &res->d_slot, 8 * (size_t) (m + 1)));
	if (m > 0)
	{
		if (wide)
			gpo_k_groups_from_pairs<<<gpo_cuda_blocks(m), GPO_CUDA_THREADS>>>
				((const unsigned long long *) d_codes, d_ids, m, res->d_code, res->d_slot);
		else
			gpo_k_groups_from_pairs<<<gpo_cuda_blocks(m), GPO_CUDA_THREADS>>>
				((const unsigned int *) d_codes, d_ids, m, res->d_code, res->d_slot);
		GPO_CUDA_TRY(GPO_LAUNCHED());
	}
	res->nkeyed = m;
	res->ngroups = m;
	GPO_CUDA_TRY(cudaMemcpy(&null_rows, res->acc.rows + cap + 1, 8, cudaMemcpyDeviceToHost));
	if (null_rows > 0)
	{
		int64_t		slot = cap + 1;

		GPO_CUDA_TRY(cudaMemcpy(res->d_slot + m, &slot, 8, cudaMemcpyHostToDevice));
		res->ngroups++;
	}
	for (int r = 1; r < nreq; r++)
	{
		gpo_dacc	acc = res[r].acc;

		res[r] = res[0];
		res[r].acc = acc;
	}
cleanup:
	return st;
}

/* Sort strategy into *res (see the file header). */
static gpo_status
run_sort(gpo_ctx *ctx, gpo_type kt, const void *d_keys, const uint8_t *d_kvalid,
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
		want = gpo_agg_choose(kt, nvalid, stats[0], stats[1], est_groups);
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
		st = run_dense(ctx, kt, d_keys, d_kvalid, n, nreq, reqs, stats[0],
					   nvalid > 0 ? (int64_t) span + 1 : 0, mem, res);
	else if (want == GPO_AGG_HASH)
	{
		bound = nvalid;
		if (gpo_type_is_int(kt) && span < (uint64_t) bound)
			bound = (int64_t) span + 1;
		st = run_hash(ctx, kt, d_keys, d_kvalid, n, nreq, reqs, bound, mem, res);
	}
	else
		st = run_sort(ctx, kt, d_keys, d_kvalid, n, nreq, reqs, mem, res);
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
