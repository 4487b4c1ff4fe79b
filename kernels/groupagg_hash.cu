/*
 * groupagg_hash.cu
 *	  The hash GROUP BY strategy on the GPU: open addressing in global
 *	  memory behind block-private shared-memory tables (see groupagg.cu),
 *	  the occupied slots then sorted by key code.
 */
#include "agg_cuda.cuh"
#include "gpo_cuda.cuh"
#include "groupagg_internal.cuh"

/* Slots of a block's shared-memory hash table (a power of two). */
#define HASH_SMEM_SLOTS		512
/* Probes in the shared table before a row goes to the global table. */
#define HASH_SMEM_PROBES	16

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

/* Selects the occupied slots of [0, cap] (slot cap: key code 2^64 - 1). */
struct gpo_hash_occupied
{
	const unsigned long long *tkeys;
	const unsigned long long *rows;
	int64_t		cap;

	/* True if slot i holds a group with a key. */
	__host__ __device__ __forceinline__ bool operator()(int64_t i) const
	{
		return i < cap ? tkeys[i] != GPO_HASH_EMPTY : rows[cap] > 0;
	}
};

/* Codes of the m occupied slots d_ids (slot cap: key code 2^64 - 1). */
template <typename K>
__global__ void
gpo_k_hash_codes(const unsigned long long *d_tkeys, int64_t cap,
				 const uint32_t *d_ids, int64_t m, K *d_codes)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t j = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; j < m; j += stride)
	{
		int64_t		i = d_ids[j];

		d_codes[j] = (K) (i < cap ? d_tkeys[i] : GPO_HASH_EMPTY);
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

/* Hash strategy into *res (see groupagg.cu); bound caps the groups. */
gpo_status
gpo_cuda_run_hash(gpo_ctx *ctx, gpo_type kt, const void *d_keys, const uint8_t *d_kvalid,
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
	void	   *d_codes = NULL;
	uint32_t   *d_ids = NULL;
	gpo_hash_occupied occupied;
	unsigned long long null_rows = 0;
	int64_t		m = 0;

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
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, (void **) &d_ids, 4 * (size_t) (cap + 1)));
	occupied.tkeys = d_tkeys;
	occupied.rows = res->acc.rows;
	occupied.cap = cap;
	GPO_CUDA_TRY(gpo_cuda_select_slots(occupied, cap + 1, d_ids, &m, mem));
	GPO_CUDA_TRY(gpo_dmem_alloc(mem, &d_codes, (wide ? 8 : 4) * (size_t) (m + 1)));
	if (m > 0)
	{
		if (wide)
			gpo_k_hash_codes<<<gpo_cuda_blocks(m), GPO_CUDA_THREADS>>>
				(d_tkeys, cap, d_ids, m, (unsigned long long *) d_codes);
		else
			gpo_k_hash_codes<<<gpo_cuda_blocks(m), GPO_CUDA_THREADS>>>
				(d_tkeys, cap, d_ids, m, (unsigned int *) d_codes);
		GPO_CUDA_TRY(GPO_LAUNCHED());
	}
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
