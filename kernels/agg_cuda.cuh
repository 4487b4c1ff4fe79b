/*
 * agg_cuda.cuh
 *	  Device pieces shared by the aggregation GPU faces: accumulator
 *	  arrays and their atomic updates (exact 128-bit integer sums), value
 *	  reads, and declarations of the cross-file launchers.
 *
 * Accumulators are a struct of device arrays (gpo_dacc); an array is NULL
 * when its aggregate is not wanted.  An empty slot holds rows = count =
 * sum = 0, mn = UINT64_MAX and mx = 0 (value order codes, as on the CPU).
 */
#ifndef AGG_CUDA_CUH
#define AGG_CUDA_CUH

#include "gpo_agg_kernels.cuh"

/* Empty slot marker of the hash tables (no 4-byte key code reaches it). */
#define GPO_HASH_EMPTY	0xffffffffffffffffULL

/* Mixes a key code into a well-spread hash (murmur3's finalizer). */
__device__ __forceinline__ unsigned long long
gpo_dhash(unsigned long long x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* Raw bits of row i of a column of type (4-byte types zero-extended). */
__device__ __forceinline__ unsigned long long
gpo_dload(gpo_type type, const void *d, int64_t i)
{
	if (type == GPO_INT64 || type == GPO_FLOAT64)
		return ((const unsigned long long *) d)[i];
	return ((const unsigned int *) d)[i];
}

/* One thread's partial aggregates, in registers. */
struct gpo_lacc
{
	unsigned long long rows;
	unsigned long long count;
	__int128	isum;
	double		fsum;
	unsigned long long mn;
	unsigned long long mx;
	unsigned int fflags;
};

/* An empty partial. */
__device__ __forceinline__ void
gpo_lacc_init(gpo_lacc &a)
{
	a.rows = 0;
	a.count = 0;
	a.isum = 0;
	a.fsum = 0.0;
	a.mn = ~0ULL;
	a.mx = 0;
	a.fflags = 0;
}

/* Adds one row to a partial (has_v: a value vector exists). */
__device__ __forceinline__ void
gpo_lacc_add(gpo_lacc &a, gpo_type vt, bool has_v, bool vvalid,
			 unsigned long long raw)
{
	unsigned long long code;

	a.rows++;
	if (!has_v || !vvalid)
		return;
	a.count++;
	if (gpo_type_is_int(vt))
		a.isum += gpo_int_of_raw(vt, raw);
	else if (gpo_raw_is_finite(vt, raw))
		a.fsum += gpo_double_of_raw(vt, raw);
	else
		a.fflags |= gpo_raw_fflag(vt, raw);
	code = gpo_code_of_raw(vt, raw, 0);
	a.mn = code < a.mn ? code : a.mn;
	a.mx = code > a.mx ? code : a.mx;
}

/* Folds b into a. */
__device__ __forceinline__ void
gpo_lacc_merge(gpo_lacc &a, const gpo_lacc &b)
{
	a.rows += b.rows;
	a.count += b.count;
	a.isum += b.isum;
	a.fsum += b.fsum;
	a.mn = b.mn < a.mn ? b.mn : a.mn;
	a.mx = b.mx > a.mx ? b.mx : a.mx;
	a.fflags |= b.fflags;
}

/* Atomically adds a 128-bit v to the (lo, hi) words of one slot. */
__device__ __forceinline__ void
gpo_atomic_add128(unsigned long long *lo, long long *hi, __int128 v)
{
	unsigned long long vlo = (unsigned long long) v;
	long long	vhi = (long long) (v >> 64);
	unsigned long long old = atomicAdd(lo, vlo);
	long long	h = vhi + ((old + vlo) < old ? 1 : 0);

	if (h != 0)
		atomicAdd((unsigned long long *) hi, (unsigned long long) h);
}

/* Atomically merges partial a into slot s of accumulators d (shared or global). */
__device__ __forceinline__ void
gpo_dacc_merge(const gpo_dacc &d, int64_t s, const gpo_lacc &a)
{
	if (a.rows == 0)
		return;
	atomicAdd(&d.rows[s], a.rows);
	if (a.count == 0)
		return;
	if (d.count)
		atomicAdd(&d.count[s], a.count);
	if (d.sum_lo)
		gpo_atomic_add128(&d.sum_lo[s], &d.sum_hi[s], a.isum);
	if (d.fsum)
		atomicAdd(&d.fsum[s], a.fsum);
	if (d.mn)
		atomicMin(&d.mn[s], a.mn);
	if (d.mx)
		atomicMax(&d.mx[s], a.mx);
	if (d.fflags && a.fflags)
		atomicOr(&d.fflags[s], a.fflags);
}

/* Lane src's partial, for every lane (fields: the GPO_DF_* in use). */
__device__ __forceinline__ gpo_lacc
gpo_lacc_shfl(const gpo_lacc &a, int src, unsigned fields)
{
	gpo_lacc	b;

	gpo_lacc_init(b);
	b.rows = __shfl_sync(0xffffffffu, a.rows, src);
	if (fields & GPO_DF_COUNT)
		b.count = __shfl_sync(0xffffffffu, a.count, src);
	if (fields & GPO_DF_ISUM)
	{
		unsigned long long lo = __shfl_sync(0xffffffffu, (unsigned long long) a.isum, src);
		unsigned long long hi = __shfl_sync(0xffffffffu, (unsigned long long) (a.isum >> 64), src);

		b.isum = (__int128) (((unsigned __int128) hi << 64) | lo);
	}
	if (fields & GPO_DF_FSUM)
		b.fsum = __shfl_sync(0xffffffffu, a.fsum, src);
	if (fields & GPO_DF_MIN)
		b.mn = __shfl_sync(0xffffffffu, a.mn, src);
	if (fields & GPO_DF_MAX)
		b.mx = __shfl_sync(0xffffffffu, a.mx, src);
	if (fields & GPO_DF_FFLAGS)
		b.fflags = __shfl_sync(0xffffffffu, a.fflags, src);
	return b;
}

/*
 * Warp aggregation: every lane of a warp calls this together (active: the
 * lane holds a row, of group key).  Active lanes with the same key are
 * combined, by pointer jumping along the lanes of each key (five shuffle
 * rounds), into *a of the lowest such lane, which gets true; so a hot key
 * costs one atomic merge per warp instead of one per row.  When all active
 * keys of the warp differ nothing is exchanged and each active lane gets
 * true with its own row.
 */
__device__ __forceinline__ bool
gpo_warp_combine(bool active, unsigned long long key, gpo_type vt, bool has_v,
				 bool vvalid, unsigned long long raw, unsigned fields,
				 gpo_lacc &a)
{
	unsigned	act = __ballot_sync(0xffffffffu, active);
	unsigned	peers = __match_any_sync(0xffffffffu, key) & act;
	int			lane = threadIdx.x & 31;
	unsigned	above;
	int			next;

	if (!active)
		peers = 0;
	gpo_lacc_init(a);
	if (active)
		gpo_lacc_add(a, vt, has_v, vvalid, raw);
	if (__all_sync(0xffffffffu, !active || peers == (1u << lane)))
		return active;
	above = peers & ~((2u << lane) - 1u);
	next = above ? __ffs(above) - 1 : -1;
	for (int step = 0; step < 5; step++)
	{
		int			src = next >= 0 ? next : lane;
		gpo_lacc	x = gpo_lacc_shfl(a, src, fields);
		int			nn = __shfl_sync(0xffffffffu, next, src);

		if (next >= 0)
		{
			gpo_lacc_merge(a, x);
			next = nn;
		}
	}
	return active && lane == __ffs(peers) - 1;
}

/* Stores partial a as slot s of d (the slot belongs to this thread alone). */
__device__ __forceinline__ void
gpo_dacc_store(const gpo_dacc &d, int64_t s, const gpo_lacc &a)
{
	d.rows[s] = a.rows;
	if (d.count)
		d.count[s] = a.count;
	if (d.sum_lo)
	{
		d.sum_lo[s] = (unsigned long long) a.isum;
		d.sum_hi[s] = (long long) (a.isum >> 64);
	}
	if (d.fsum)
		d.fsum[s] = a.fsum;
	if (d.mn)
		d.mn[s] = a.mn;
	if (d.mx)
		d.mx[s] = a.mx;
	if (d.fflags)
		d.fflags[s] = a.fflags;
}

/* Atomically adds one row to slot s of d (shared or global). */
__device__ __forceinline__ void
gpo_dacc_add_row(const gpo_dacc &d, int64_t s, gpo_type vt, bool has_v,
				 bool vvalid, unsigned long long raw)
{
	unsigned long long code;

	atomicAdd(&d.rows[s], 1ULL);
	if (!has_v || !vvalid)
		return;
	if (d.count)
		atomicAdd(&d.count[s], 1ULL);
	if (d.sum_lo)
		gpo_atomic_add128(&d.sum_lo[s], &d.sum_hi[s],
						  (__int128) gpo_int_of_raw(vt, raw));
	if (!gpo_type_is_int(vt) && !gpo_raw_is_finite(vt, raw))
	{
		if (d.fflags)
			atomicOr(&d.fflags[s], gpo_raw_fflag(vt, raw));
	}
	else if (d.fsum)
		atomicAdd(&d.fsum[s], gpo_double_of_raw(vt, raw));
	code = gpo_code_of_raw(vt, raw, 0);
	if (d.mn)
		atomicMin(&d.mn[s], code);
	if (d.mx)
		atomicMax(&d.mx[s], code);
}

/* Reads slot s of d into a partial (absent fields read as empty). */
__device__ __forceinline__ void
gpo_dacc_load(const gpo_dacc &d, int64_t s, gpo_lacc &a)
{
	gpo_lacc_init(a);
	a.rows = d.rows[s];
	if (d.count)
		a.count = d.count[s];
	if (d.sum_lo)
		a.isum = (__int128) (((unsigned __int128) (unsigned long long) d.sum_hi[s] << 64) |
							 d.sum_lo[s]);
	if (d.fsum)
		a.fsum = d.fsum[s];
	if (d.mn)
		a.mn = d.mn[s];
	if (d.mx)
		a.mx = d.mx[s];
	if (d.fflags)
		a.fflags = d.fflags[s];
}

/* Bytes one slot of accumulators with these fields takes. */
static inline size_t
gpo_dacc_slot_bytes(unsigned fields)
{
	size_t		b = 8;

	if (fields & GPO_DF_COUNT)
		b += 8;
	if (fields & GPO_DF_ISUM)
		b += 16;
	if (fields & GPO_DF_FSUM)
		b += 8;
	if (fields & GPO_DF_MIN)
		b += 8;
	if (fields & GPO_DF_MAX)
		b += 8;
	if (fields & GPO_DF_M2)
		b += 8;
	if (fields & GPO_DF_FFLAGS)
		b += 4;
	return b;
}

/* Lays out accumulators of these fields for nslots over memory at p (8-aligned). */
__host__ __device__ static inline void
gpo_dacc_carve(gpo_dacc *d, unsigned fields, int64_t nslots, char *p)
{
	d->rows = (unsigned long long *) p;
	p += 8 * nslots;
	d->count = NULL;
	d->sum_lo = NULL;
	d->sum_hi = NULL;
	d->fsum = NULL;
	d->mn = NULL;
	d->mx = NULL;
	d->m2 = NULL;
	d->fflags = NULL;
	if (fields & GPO_DF_COUNT)
	{
		d->count = (unsigned long long *) p;
		p += 8 * nslots;
	}
	if (fields & GPO_DF_ISUM)
	{
		d->sum_lo = (unsigned long long *) p;
		p += 8 * nslots;
		d->sum_hi = (long long *) p;
		p += 8 * nslots;
	}
	if (fields & GPO_DF_FSUM)
	{
		d->fsum = (double *) p;
		p += 8 * nslots;
	}
	if (fields & GPO_DF_MIN)
	{
		d->mn = (unsigned long long *) p;
		p += 8 * nslots;
	}
	if (fields & GPO_DF_MAX)
	{
		d->mx = (unsigned long long *) p;
		p += 8 * nslots;
	}
	if (fields & GPO_DF_M2)
	{
		d->m2 = (double *) p;
		p += 8 * nslots;
	}
	/* 4-byte words last, so that every 8-byte array stays aligned */
	if (fields & GPO_DF_FFLAGS)
		d->fflags = (unsigned int *) p;
}

/* Empties slots [lo, hi) of d, from thread t of nt. */
__device__ __forceinline__ void
gpo_dacc_clear(const gpo_dacc &d, int64_t lo, int64_t hi, int64_t t, int64_t nt)
{
	for (int64_t s = lo + t; s < hi; s += nt)
	{
		d.rows[s] = 0;
		if (d.count)
			d.count[s] = 0;
		if (d.sum_lo)
		{
			d.sum_lo[s] = 0;
			d.sum_hi[s] = 0;
		}
		if (d.fsum)
			d.fsum[s] = 0.0;
		if (d.mn)
			d.mn[s] = ~0ULL;
		if (d.mx)
			d.mx[s] = 0;
		if (d.m2)
			d.m2[s] = 0.0;
		if (d.fflags)
			d.fflags[s] = 0;
	}
}

/*
 * Warp-aggregated atomic add of v to d.m2[slot]: every lane of the warp
 * calls this together (active: the lane holds a term); lanes of one slot
 * are summed by pointer jumping (as gpo_warp_combine does) and their lowest
 * lane adds the sum, so a hot slot costs one atomic per warp.
 */
__device__ __forceinline__ void
gpo_warp_add_m2(const gpo_dacc &d, bool active, unsigned long long slot,
				double v)
{
	unsigned	act = __ballot_sync(0xffffffffu, active);
	unsigned	peers = __match_any_sync(0xffffffffu, slot) & act;
	int			lane = threadIdx.x & 31;
	unsigned	above;
	int			next;

	if (!active)
		peers = 0;
	if (__all_sync(0xffffffffu, !active || peers == (1u << lane)))
	{
		if (active)
			atomicAdd(&d.m2[slot], v);
		return;
	}
	above = peers & ~((2u << lane) - 1u);
	next = above ? __ffs(above) - 1 : -1;
	for (int step = 0; step < 5; step++)
	{
		int			src = next >= 0 ? next : lane;
		double		x = __shfl_sync(0xffffffffu, v, src);
		int			nn = __shfl_sync(0xffffffffu, next, src);

		if (next >= 0)
		{
			v += x;
			next = nn;
		}
	}
	if (active && lane == __ffs(peers) - 1)
		atomicAdd(&d.m2[slot], v);
}

/*
 * The squared deviation of a row's value from its slot's mean (fsum /
 * count, which is the mean whenever every value of the slot is finite, the
 * only case in which m2 is reported); false for no term (NULL, non-finite).
 */
__device__ __forceinline__ bool
gpo_m2_term(const gpo_dacc &d, int64_t slot, gpo_type vt, bool vvalid,
			unsigned long long raw, double *term)
{
	double		x,
				dev;

	if (!vvalid || !gpo_raw_is_finite(vt, raw))
		return false;
	x = gpo_double_of_raw(vt, raw);
	dev = x - d.fsum[slot] / (double) d.count[slot];
	*term = dev * dev;
	return true;
}

/* ---- launchers shared between the .cu files ---- */

/* Allocates accumulators of fields for nslots from mem and empties them. */
extern cudaError_t gpo_dacc_alloc(gpo_dmem *mem, unsigned fields,
								  int64_t nslots, gpo_dacc *d);

/*
 * Row-parallel segmented reduction (segreduce.cu): rows [0, n) of values
 * (vt, d_vals, d_vvalid; vt < 0 = no values) with segment ids d_seg and
 * offsets d_off into d (already emptied).
 */
extern cudaError_t gpo_cuda_segreduce_rows(int vt, const void *d_vals,
										   const uint8_t *d_vvalid,
										   const uint32_t *d_seg,
										   const int64_t *d_off, int64_t n,
										   const gpo_dacc *d);

/* Exclusive sum of n uint32 values (sort.cu; one CUB instantiation). */
extern cudaError_t gpo_cuda_exsum_u32(const uint32_t *d_in, uint32_t *d_out,
									  int64_t n, gpo_dmem *mem);

/*
 * Sorts the first n of n_total (code, row id) pairs by the code bits
 * [begin_bit, end_bit) (sort.cu): 4-byte codes when wide is false, else
 * 8-byte.  All n_total pairs (the unsorted tail after the sorted ones) end
 * in the buffers *d_codes and *d_ids then point to.
 */
extern cudaError_t gpo_cuda_sort_codes(bool wide, void **d_codes,
									   uint32_t **d_ids, int64_t n,
									   int64_t n_total, int begin_bit,
									   int end_bit, gpo_dmem *mem);

/*
 * Key codes of n keys (sort.cu): the non-NULL rows' codes (4-byte codes
 * unless kt is 8 bytes wide) and row ids first, in row order, then the NULL
 * rows' ids (codes 0); *nvalid gets the non-NULL count.  *d_codes and
 * *d_ids are allocated from mem.
 */
extern cudaError_t gpo_cuda_key_codes(gpo_type kt, const void *d_keys,
									  const uint8_t *d_valid, int64_t n,
									  void **d_codes, uint32_t **d_ids,
									  int64_t *nvalid, gpo_dmem *mem);

/*
 * gpo_cuda_sort_codes over only the bits in which the first n codes vary,
 * the smallest code subtracted first when that saves a pass (the codes are
 * restored) (sort.cu).
 */
extern cudaError_t gpo_cuda_sort_varying(bool wide, void **d_codes,
										 uint32_t **d_ids, int64_t n,
										 int64_t n_total, gpo_dmem *mem);

/*
 * Key statistics of n keys (groupagg.cu): stats[0] the smallest key code,
 * stats[1] the largest, stats[2] the non-NULL keys (~0, 0, 0 when none).
 */
extern cudaError_t gpo_cuda_key_stats(gpo_type kt, const void *d_keys,
									  const uint8_t *d_kvalid, int64_t n,
									  unsigned long long stats[3],
									  gpo_dmem *mem);

/*
 * Dense strategy (groupagg_dense.cu): adds rows [0, n) (keys with codes
 * in [min_code, min_code + range) or NULL; values vt < 0: none) into the
 * range + 1 slots of acc (the NULL key's last), which hold earlier rows or
 * are empty.
 */
extern cudaError_t gpo_cuda_dense_accumulate(gpo_type kt, const void *d_keys,
											 const uint8_t *d_kvalid, int vt,
											 const void *d_vals,
											 const uint8_t *d_vvalid, int64_t n,
											 unsigned long long min_code,
											 int64_t range, unsigned fields,
											 const gpo_dacc *acc);
/* The nonempty slots of dense accumulators as groups in *res (memory from mem). */
extern gpo_status gpo_cuda_dense_groups(gpo_ctx *ctx, unsigned long long min_code,
										int64_t range, const gpo_dacc *acc,
										gpo_dmem *mem, gpo_cuda_groups *res);

/*
 * Copies the n rows of v to the device (groupagg_face.cu): the data into
 * *d_data from mem, the validity into *d_valid (NULL when all valid; the
 * caller frees it with gpo_cuda_free).
 */
extern gpo_status gpo_cuda_column_in(gpo_ctx *ctx, const gpo_vector *v,
									 int64_t n, gpo_dmem *mem, void **d_data,
									 uint8_t **d_valid);

/* The accumulator fields out's arrays need for values of type vt (< 0: none). */
extern unsigned gpo_cuda_fields(const gpo_agg_out *out, int vt);

/*
 * The m2 pass over rows in segment order (segreduce.cu): rows [0, n) of
 * values (vt, d_vals, d_vvalid) whose slot in d is d_seg[i]; d holds the
 * slots' counts and finite sums.
 */
extern cudaError_t gpo_cuda_m2_segments(int vt, const void *d_vals,
										const uint8_t *d_vvalid,
										const uint32_t *d_seg, int64_t n,
										const gpo_dacc *d);

/*
 * Folds nslots slots of accumulators b into a (segreduce.cu), Chan's
 * combination for m2 (both hold the same fields).
 */
extern cudaError_t gpo_cuda_dacc_fold(const gpo_dacc *a, const gpo_dacc *b,
									  int64_t nslots);

/*
 * Finishes device results into the host arrays of out (groupagg_face.cu):
 * checks the capacity (GPO_ERR_CAPACITY if short), converts on the device,
 * copies back; kt is the key type (unused without keys), vt the value type.
 */
extern gpo_status gpo_cuda_groups_download(gpo_ctx *ctx,
										   const gpo_cuda_groups *res,
										   gpo_type kt, int vt,
										   gpo_agg_out *out, gpo_dmem *mem);

#endif							/* AGG_CUDA_CUH */
