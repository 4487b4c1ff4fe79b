/*
 * segreduce.cu
 *	  Row-parallel segmented reduction on the GPU, and the accumulator
 *	  helpers the group aggregation shares.
 *
 * Each block takes tiles of SR_THREADS * SR_ITEMS rows whatever the
 * segments are.  A tile inside one segment (the common case with a few huge
 * segments) is read coalesced, reduced in the block and merged with one set
 * of atomics.  Otherwise each thread walks its SR_ITEMS consecutive rows:
 * a segment that starts and ends among them is stored directly, a segment
 * it shares with other threads is merged atomically (exact: 128-bit integer
 * sums carry between words, min/max are order codes).
 */
#include "agg_cuda.cuh"
#include "gpo_cuda.cuh"

#define SR_THREADS	256
#define SR_ITEMS	8

/* Empties nslots accumulator slots. */
__global__ void
gpo_k_dacc_clear(gpo_dacc d, int64_t nslots)
{
	gpo_dacc_clear(d, 0, nslots, (int64_t) blockIdx.x * blockDim.x + threadIdx.x,
				   (int64_t) gridDim.x * blockDim.x);
}

/* Allocates accumulators of fields for nslots from mem and empties them. */
cudaError_t
gpo_dacc_alloc(gpo_dmem *mem, unsigned fields, int64_t nslots, gpo_dacc *d)
{
	void	   *p = NULL;
	cudaError_t err;

	err = gpo_dmem_alloc(mem, &p, gpo_dacc_slot_bytes(fields) * (size_t) (nslots + 1));
	if (err != cudaSuccess)
		return err;
	gpo_dacc_carve(d, fields, nslots + 1, (char *) p);
	if (nslots <= 0)
		return cudaSuccess;
	gpo_k_dacc_clear<<<gpo_cuda_blocks(nslots), GPO_CUDA_THREADS>>>(*d, nslots);
	return cudaPeekAtLastError();
}

/* A partial shifted down a warp by o lanes. */
__device__ __forceinline__ gpo_lacc
lacc_shfl_down(const gpo_lacc &a, int o)
{
	gpo_lacc	b;
	unsigned long long lo = (unsigned long long) a.isum;
	unsigned long long hi = (unsigned long long) (a.isum >> 64);

	b.rows = __shfl_down_sync(0xffffffffu, a.rows, o);
	b.count = __shfl_down_sync(0xffffffffu, a.count, o);
	lo = __shfl_down_sync(0xffffffffu, lo, o);
	hi = __shfl_down_sync(0xffffffffu, hi, o);
	b.isum = (__int128) (((unsigned __int128) hi << 64) | lo);
	b.fsum = __shfl_down_sync(0xffffffffu, a.fsum, o);
	b.mn = __shfl_down_sync(0xffffffffu, a.mn, o);
	b.mx = __shfl_down_sync(0xffffffffu, a.mx, o);
	b.fflags = __shfl_down_sync(0xffffffffu, a.fflags, o);
	return b;
}

/* Merges a segment's partial: stored if it lies within [r0, r1), else atomic. */
__device__ __forceinline__ void
seg_flush(const gpo_dacc &d, const int64_t *d_off, uint32_t seg,
		  const gpo_lacc &a, int64_t r0, int64_t r1)
{
	if (d_off[seg] >= r0 && d_off[seg + 1] <= r1)
		gpo_dacc_store(d, seg, a);
	else
		gpo_dacc_merge(d, seg, a);
}

/* The row-parallel segmented reduction (see the file header). */
__global__ void __launch_bounds__(SR_THREADS)
gpo_k_segreduce(int vt, const void *d_vals, const uint8_t *d_vvalid,
				const uint32_t *d_seg, const int64_t *d_off, int64_t n,
				gpo_dacc d)
{
	__shared__ gpo_lacc warp_part[SR_THREADS / 32];
	const int64_t tile = (int64_t) SR_THREADS * SR_ITEMS;
	bool		has_v = vt >= 0;
	gpo_type	t = has_v ? (gpo_type) vt : GPO_INT64;
	int			lane = threadIdx.x & 31;
	int			warp = threadIdx.x >> 5;

	for (int64_t base = (int64_t) blockIdx.x * tile; base < n;
		 base += (int64_t) gridDim.x * tile)
	{
		int64_t		end = base + tile < n ? base + tile : n;
		uint32_t	s0 = d_seg[base];
		gpo_lacc	a;

		gpo_lacc_init(a);
		if (s0 == d_seg[end - 1])
		{
			/* one segment: striped (coalesced) rows, block reduction */
			for (int k = 0; k < SR_ITEMS; k++)
			{
				int64_t		r = base + (int64_t) k * SR_THREADS + threadIdx.x;

				if (r < end)
					gpo_lacc_add(a, t, has_v, !d_vvalid || d_vvalid[r],
								 has_v ? gpo_dload(t, d_vals, r) : 0);
			}
			for (int o = 16; o > 0; o >>= 1)
			{
				gpo_lacc	b = lacc_shfl_down(a, o);

				gpo_lacc_merge(a, b);
			}
			if (lane == 0)
				warp_part[warp] = a;
			__syncthreads();
			if (threadIdx.x == 0)
			{
				for (int w = 1; w < SR_THREADS / 32; w++)
					gpo_lacc_merge(a, warp_part[w]);
				gpo_dacc_merge(d, s0, a);
			}
			__syncthreads();
		}
		else
		{
			/* several segments: each thread walks its consecutive rows */
			int64_t		r0 = base + (int64_t) threadIdx.x * SR_ITEMS;
			int64_t		r1 = r0 + SR_ITEMS < end ? r0 + SR_ITEMS : end;
			uint32_t	cur = r0 < r1 ? d_seg[r0] : 0;

			for (int64_t r = r0; r < r1; r++)
			{
				uint32_t	s = d_seg[r];

				if (s != cur)
				{
					seg_flush(d, d_off, cur, a, r0, r1);
					gpo_lacc_init(a);
					cur = s;
				}
				gpo_lacc_add(a, t, has_v, !d_vvalid || d_vvalid[r],
							 has_v ? gpo_dload(t, d_vals, r) : 0);
			}
			if (r0 < r1)
				seg_flush(d, d_off, cur, a, r0, r1);
		}
	}
}

/* Row-parallel segmented reduction launcher (see agg_cuda.cuh). */
cudaError_t
gpo_cuda_segreduce_rows(int vt, const void *d_vals, const uint8_t *d_vvalid,
						const uint32_t *d_seg, const int64_t *d_off,
						int64_t n, const gpo_dacc *d)
{
	int64_t		tiles = (n + SR_THREADS * SR_ITEMS - 1) / (SR_THREADS * SR_ITEMS);
	unsigned int blocks = gpo_cuda_blocks(tiles * GPO_CUDA_THREADS);

	if (n <= 0)
		return cudaSuccess;
	if (blocks > tiles)
		blocks = (unsigned int) tiles;
	gpo_k_segreduce<<<blocks, SR_THREADS>>>(vt, d_vals, d_vvalid, d_seg, d_off, n, *d);
	return cudaPeekAtLastError();
}

/* The m2 pass over rows in segment order (see agg_cuda.cuh). */
__global__ void
gpo_k_m2_segments(int vt, const void *d_vals, const uint8_t *d_vvalid,
				  const uint32_t *d_seg, int64_t n, gpo_dacc d)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;
	gpo_type	t = (gpo_type) vt;

	for (int64_t base = (int64_t) blockIdx.x * blockDim.x + (threadIdx.x & ~31u);
		 base < n; base += stride)
	{
		int64_t		i = base + (threadIdx.x & 31);
		double		term = 0.0;
		unsigned long long slot = ~0ULL;
		bool		active = false;

		if (i < n)
		{
			slot = d_seg[i];
			active = gpo_m2_term(d, (int64_t) slot, t, !d_vvalid || d_vvalid[i],
								 gpo_dload(t, d_vals, i), &term);
		}
		gpo_warp_add_m2(d, active, active ? slot : ~0ULL, term);
	}
}

/* The m2 pass launcher (see agg_cuda.cuh). */
cudaError_t
gpo_cuda_m2_segments(int vt, const void *d_vals, const uint8_t *d_vvalid,
					 const uint32_t *d_seg, int64_t n, const gpo_dacc *d)
{
	if (n <= 0 || vt < 0 || d->m2 == NULL)
		return cudaSuccess;
	gpo_k_m2_segments<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS>>>(vt, d_vals, d_vvalid, d_seg, n, *d);
	return cudaPeekAtLastError();
}

/* Folds slot s of b into slot s of a, for every slot (one thread a slot). */
__global__ void
gpo_k_dacc_fold(gpo_dacc a, gpo_dacc b, int64_t nslots)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t s = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; s < nslots; s += stride)
	{
		gpo_lacc	x;
		gpo_lacc	y;

		gpo_dacc_load(b, s, y);
		if (y.rows == 0)
			continue;
		gpo_dacc_load(a, s, x);
		if (a.m2 && y.count > 0)
		{
			if (x.count == 0)
				a.m2[s] = b.m2[s];
			else
			{
				double		m2 = a.m2[s];
				double		mean = x.fsum / (double) x.count;

				gpo_m2_combine(&m2, &mean, (double) x.count, b.m2[s],
							   y.fsum / (double) y.count, (double) y.count);
				a.m2[s] = m2;
			}
		}
		gpo_lacc_merge(x, y);
		gpo_dacc_store(a, s, x);
	}
}

/* Fold launcher (see agg_cuda.cuh). */
cudaError_t
gpo_cuda_dacc_fold(const gpo_dacc *a, const gpo_dacc *b, int64_t nslots)
{
	if (nslots <= 0)
		return cudaSuccess;
	gpo_k_dacc_fold<<<gpo_cuda_blocks(nslots), GPO_CUDA_THREADS>>>(*a, *b, nslots);
	return cudaPeekAtLastError();
}

/* Marks the first row of every nonempty segment. */
__global__ void
gpo_k_seg_heads(const int64_t *d_off, int64_t nsegs, uint32_t *d_flags)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t s = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; s < nsegs; s += stride)
		if (d_off[s] < d_off[s + 1])
			d_flags[d_off[s]] = 1;
}

/* The segment of each nonempty-segment rank. */
__global__ void
gpo_k_seg_list(const int64_t *d_off, int64_t nsegs, const uint32_t *d_rank,
			   uint32_t *d_list)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t s = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; s < nsegs; s += stride)
		if (d_off[s] < d_off[s + 1])
			d_list[d_rank[d_off[s]]] = (uint32_t) s;
}

/* Segment id of each row from the ranks and heads. */
__global__ void
gpo_k_seg_ids(const uint32_t *d_flags, const uint32_t *d_list, int64_t n,
			  uint32_t *d_rank_to_seg)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		d_rank_to_seg[i] = d_list[d_rank_to_seg[i] + d_flags[i] - 1];
}

/* The fields the outputs of out need for values of type vt (< 0: none). */
unsigned
gpo_cuda_fields(const gpo_agg_out *out, int vt)
{
	unsigned	f = 0;

	if (vt < 0)
		return 0;
	f |= GPO_DF_COUNT;
	if (gpo_type_is_int((gpo_type) vt) && (out->isum || out->fsum))
		f |= GPO_DF_ISUM;
	if (!gpo_type_is_int((gpo_type) vt) && (out->fsum || out->fflags || out->m2))
		f |= GPO_DF_FSUM | GPO_DF_FFLAGS;
	if (!gpo_type_is_int((gpo_type) vt) && out->m2)
		f |= GPO_DF_M2;
	if (out->min)
		f |= GPO_DF_MIN;
	if (out->max)
		f |= GPO_DF_MAX;
	return f;
}

/* Segmented reduction GPU face (see gpo_agg.h). */
extern "C" gpo_status
gpo_segreduce_gpu(gpo_ctx *ctx, const gpo_vector *values,
				  const gpo_vector *offsets, int64_t nsegs, gpo_agg_out *out)
{
	gpo_status	st = GPO_OK;
	sigset_t	old;
	gpo_dmem	mem = {};
	int64_t		n = gpo_vector_rows(values);
	int			vt = values->type;
	size_t		w = gpo_type_size(values->type);
	void	   *d_vals = NULL;
	uint8_t    *d_vvalid = NULL;
	int64_t    *d_off = NULL;
	uint32_t   *d_flags = NULL;
	uint32_t   *d_rank = NULL;
	uint32_t   *d_list = NULL;
	gpo_cuda_groups res;
	gpo_agg_out seg_out;
	unsigned	fields = gpo_cuda_fields(out, vt);

	st = gpo_cuda_begin(ctx, &old);
	if (st != GPO_OK)
		goto cleanup;
	if (n > INT32_MAX || nsegs > INT32_MAX)
	{
		snprintf(ctx->detail, sizeof(ctx->detail),
				 "the GPU segmented reduction takes at most 2^31 - 1 rows and segments");
		st = GPO_ERR_INVALID;
		goto cleanup;
	}
	GPO_CUDA_TRY(gpo_dmem_alloc(&mem, &d_vals, w * (size_t) n));
	GPO_TRY(gpo_cuda_upload(ctx, values, w, d_vals, n));
	GPO_TRY(gpo_cuda_upload_valid(ctx, values, n, &d_vvalid));
	GPO_CUDA_TRY(gpo_dmem_alloc(&mem, (void **) &d_off, 8 * (size_t) (nsegs + 1)));
	GPO_TRY(gpo_cuda_upload(ctx, offsets, 8, d_off, nsegs + 1));

	memset(&res, 0, sizeof(res));
	res.ngroups = nsegs;
	res.nkeyed = nsegs;
	GPO_CUDA_TRY(gpo_dacc_alloc(&mem, fields, nsegs, &res.acc));
	if (n > 0)
	{
		GPO_CUDA_TRY(gpo_dmem_alloc(&mem, (void **) &d_flags, 4 * (size_t) n));
		GPO_CUDA_TRY(gpo_dmem_alloc(&mem, (void **) &d_rank, 4 * (size_t) n));
		GPO_CUDA_TRY(gpo_dmem_alloc(&mem, (void **) &d_list, 4 * (size_t) (nsegs + 1)));
		GPO_CUDA_TRY(cudaMemset(d_flags, 0, 4 * (size_t) n));
		gpo_k_seg_heads<<<gpo_cuda_blocks(nsegs), GPO_CUDA_THREADS>>>(d_off, nsegs, d_flags);
		GPO_CUDA_TRY(GPO_LAUNCHED());
		GPO_CUDA_TRY(gpo_cuda_exsum_u32(d_flags, d_rank, n, &mem));
		gpo_k_seg_list<<<gpo_cuda_blocks(nsegs), GPO_CUDA_THREADS>>>(d_off, nsegs, d_rank, d_list);
		GPO_CUDA_TRY(GPO_LAUNCHED());
		gpo_k_seg_ids<<<gpo_cuda_blocks(n), GPO_CUDA_THREADS>>>(d_flags, d_list, n, d_rank);
		GPO_CUDA_TRY(GPO_LAUNCHED());
		GPO_CUDA_TRY(gpo_cuda_segreduce_rows(vt, d_vals, d_vvalid, d_rank, d_off, n, &res.acc));
		GPO_CUDA_TRY(gpo_cuda_m2_segments(vt, d_vals, d_vvalid, d_rank, n, &res.acc));
	}
	/* segments have no keys: keys and key_valid are left alone */
	seg_out = *out;
	seg_out.keys = NULL;
	seg_out.key_valid = NULL;
	GPO_TRY(gpo_cuda_groups_download(ctx, &res, GPO_INT64, vt, &seg_out, &mem));

cleanup:
	if (d_vvalid != NULL)
		gpo_cuda_free(d_vvalid);
	gpo_dmem_release(&mem);
	gpo_cuda_end(&old);
	return st;
}
