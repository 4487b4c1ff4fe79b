/*
 * hashjoin.cu
 *	  Hash equi-join (build, probe, emit every matching row pair), the GPU
 *	  face.
 *
 * Build: one kernel inserts every non-NULL build key into an open-addressing
 * table in global memory (64-bit atomicCAS on the key; the key whose bits
 * equal the empty marker has slot cap), counts the rows of each slot and
 * records each row's slot (NULL rows get slot cap + 1, past every real
 * one).  An exclusive scan of the counts gives each slot's run, and a stable
 * radix sort of (slot, row) pairs, fed in row order, lists each run's rows
 * ascending: the same runs the CPU face builds.
 * Probe (size-then-fill): a kernel writes each probe row's match count, an
 * exclusive scan turns the counts into output positions (and the total), the
 * host checks capacity, and a second kernel writes each row's pairs at its
 * position.  Pairs come out ordered by probe row, then build row.
 * CUB is instantiated twice: one exclusive sum (int64, used three times) and
 * one radix sort of 64-bit key / 64-bit value pairs.  CUB has no hash table,
 * so the build and probe kernels are ours.
 */
#include <stdio.h>

#include <cub/cub.cuh>

#include "gpo_cuda.cuh"
#include "gpo_histjoin.cuh"

/* The gpo_type of a key's C type. */
template <typename T> struct gpo_key_type;
template <> struct gpo_key_type<int32_t> { static const gpo_type type = GPO_INT32; };
template <> struct gpo_key_type<int64_t> { static const gpo_type type = GPO_INT64; };
template <> struct gpo_key_type<float> { static const gpo_type type = GPO_FLOAT32; };
template <> struct gpo_key_type<double> { static const gpo_type type = GPO_FLOAT64; };

/* The join key of row i, or false when the row is NULL. */
template <typename T>
__device__ __forceinline__ bool
gpo_join_key_at(const T *d_keys, const uint8_t *d_valid, int64_t i,
				unsigned long long *k)
{
	T			v;

	if (d_valid != NULL && d_valid[i] == 0)
		return false;
	v = d_keys[i];
	*k = gpo_join_key(gpo_key_type<T>::type, &v);
	return true;
}

/* Slot of key k in t, or -1 when absent. */
__device__ __forceinline__ int64_t
gpo_join_find(const gpo_cuda_join_table t, unsigned long long k)
{
	unsigned long long mask = (unsigned long long) t.cap - 1;
	unsigned long long h;

	if (k == GPO_JOIN_EMPTY)
		return t.cap;
	h = gpo_join_hash(k) & mask;
	for (;;)
	{
		unsigned long long cur = t.d_slots[h];

		if (cur == k)
			return (int64_t) h;
		if (cur == GPO_JOIN_EMPTY)
			return -1;
		h = (h + 1) & mask;
	}
}

/* Build pass: insert, count per slot (into d_off[slot]), record row slots. */
template <typename T>
__global__ void
gpo_join_insert_kernel(const T *d_keys, const uint8_t *d_valid, int64_t m,
					   gpo_cuda_join_table t, unsigned long long *d_bslot,
					   long long *d_rows_in)
{
	unsigned long long mask = (unsigned long long) t.cap - 1;

	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < m;
		 i += (int64_t) gridDim.x * blockDim.x)
	{
		unsigned long long k;
		int64_t		s;

		d_rows_in[i] = i;
		if (!gpo_join_key_at(d_keys, d_valid, i, &k))
		{
			d_bslot[i] = (unsigned long long) t.cap + 1;
			continue;
		}
		if (k == GPO_JOIN_EMPTY)
			s = t.cap;
		else
		{
			unsigned long long h = gpo_join_hash(k) & mask;

			for (;;)
			{
				unsigned long long cur = atomicCAS(&t.d_slots[h], GPO_JOIN_EMPTY, k);

				if (cur == GPO_JOIN_EMPTY || cur == k)
					break;
				h = (h + 1) & mask;
			}
			s = (int64_t) h;
		}
		atomicAdd((unsigned long long *) &t.d_off[s], 1ull);
		d_bslot[i] = (unsigned long long) s;
	}
}

/* Probe size pass: each row's match count into d_pos[i]; d_pos[n] = 0. */
template <typename T>
__global__ void
gpo_join_count_kernel(const T *d_keys, const uint8_t *d_valid, int64_t n,
					  gpo_cuda_join_table t, gpo_join_kind kind,
					  long long *d_pos)
{
	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i <= n;
		 i += (int64_t) gridDim.x * blockDim.x)
	{
		unsigned long long k;
		int64_t		s;
		long long	c = 0;

		if (i < n && gpo_join_key_at(d_keys, d_valid, i, &k) &&
			(s = gpo_join_find(t, k)) >= 0)
			c = t.d_off[s + 1] - t.d_off[s];
		d_pos[i] = i < n ? gpo_join_emits(kind, c) : 0;
	}
}

/*
 * Probe fill pass: row i writes what a join of kind emits for it from
 * d_pos[i] (an unmatched row of an anti or left join: a NULL build row,
 * 0 in d_build_valid).
 */
template <typename T>
__global__ void
gpo_join_fill_kernel(const T *d_keys, const uint8_t *d_valid, int64_t n,
					 gpo_cuda_join_table t, gpo_join_kind kind,
					 const long long *d_pos, long long *d_build_rows,
					 uint8_t *d_build_valid, long long *d_probe_rows)
{
	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
		 i += (int64_t) gridDim.x * blockDim.x)
	{
		unsigned long long k;
		int64_t		s;
		long long	first = 0;
		long long	end = 0;
		long long	o = d_pos[i];

		if (gpo_join_key_at(d_keys, d_valid, i, &k) &&
			(s = gpo_join_find(t, k)) >= 0)
		{
			first = t.d_off[s];
			end = t.d_off[s + 1];
		}
		if (kind == GPO_JOIN_SEMI && end > first)
			end = first + 1;
		else if (kind == GPO_JOIN_ANTI && end > first)
			continue;
		if (end == first)
		{
			if (kind == GPO_JOIN_INNER || kind == GPO_JOIN_SEMI)
				continue;
			if (d_build_rows != NULL)
				d_build_rows[o] = 0;
			if (d_build_valid != NULL)
				d_build_valid[o] = 0;
			if (d_probe_rows != NULL)
				d_probe_rows[o] = i;
			continue;
		}
		for (long long r = first; r < end; r++, o++)
		{
			if (d_build_rows != NULL)
				d_build_rows[o] = t.d_rows[r];
			if (d_build_valid != NULL)
				d_build_valid[o] = 1;
			if (d_probe_rows != NULL)
				d_probe_rows[o] = i;
		}
	}
}

/* In-place exclusive sum of n int64 (the library's one CUB scan). */
static cudaError_t
gpo_join_scan(void *d_temp, size_t *temp_bytes, long long *d_data, int64_t n,
			  cudaStream_t stream)
{
	return cub::DeviceScan::ExclusiveSum(d_temp, *temp_bytes, d_data, d_data,
										 n, stream);
}

/* Bits a radix sort of slot numbers 0 .. cap + 1 needs. */
static int
gpo_join_slot_bits(int64_t cap)
{
	int			bits = 1;

	while (bits < 63 && ((int64_t) 1 << bits) <= cap + 1)
		bits++;
	return bits;
}

/* Typed build launch. */
template <typename T>
static cudaError_t
gpo_join_build_launch(const T *d_keys, const uint8_t *d_valid, int64_t m,
					  const gpo_cuda_join_table *t, void *d_temp,
					  size_t *temp_bytes, cudaStream_t stream)
{
	size_t		scan_bytes = 0;
	size_t		sort_bytes = 0;
	size_t		lay_bytes = 2 * sizeof(unsigned long long) * (size_t) m;
	unsigned long long *d_bslot;
	unsigned long long *d_bslot_sorted;
	long long  *d_rows_in;
	char	   *d_cub;
	cudaError_t err;

	/* temp = bslot (m) + sorted bslot (m) + rows_in (m) + CUB's own */
	if ((err = gpo_join_scan(NULL, &scan_bytes, t->d_off, t->cap + 2, stream)) != cudaSuccess)
		return err;
	if ((err = cub::DeviceRadixSort::SortPairs(NULL, sort_bytes,
											   (unsigned long long *) NULL,
											   (unsigned long long *) NULL,
											   (long long *) NULL,
											   (long long *) NULL, m, 0,
											   gpo_join_slot_bits(t->cap),
											   stream)) != cudaSuccess)
		return err;
	lay_bytes += sizeof(long long) * (size_t) m;
	lay_bytes = (lay_bytes + 255) & ~(size_t) 255;
	if (d_temp == NULL)
	{
		*temp_bytes = lay_bytes + (scan_bytes > sort_bytes ? scan_bytes : sort_bytes);
		return cudaSuccess;
	}
	d_bslot = (unsigned long long *) d_temp;
	d_bslot_sorted = d_bslot + m;
	d_rows_in = (long long *) (d_bslot_sorted + m);
	d_cub = (char *) d_temp + lay_bytes;

	if ((err = cudaMemsetAsync(t->d_slots, 0xff,
							   sizeof(unsigned long long) * (size_t) t->cap,
							   stream)) != cudaSuccess)
		return err;
	if ((err = cudaMemsetAsync(t->d_off, 0, sizeof(long long) * (size_t) (t->cap + 2),
							   stream)) != cudaSuccess)
		return err;
	if (m == 0)
		return cudaSuccess;
	gpo_join_insert_kernel<T><<<gpo_cuda_blocks(m), GPO_CUDA_THREADS, 0, stream>>>(
		d_keys, d_valid, m, *t, d_bslot, d_rows_in);
	if ((err = cudaPeekAtLastError()) != cudaSuccess)
		return err;
	if ((err = gpo_join_scan(d_cub, &scan_bytes, t->d_off, t->cap + 2, stream)) != cudaSuccess)
		return err;
	return cub::DeviceRadixSort::SortPairs(d_cub, sort_bytes, d_bslot,
										   d_bslot_sorted, d_rows_in, t->d_rows,
										   m, 0, gpo_join_slot_bits(t->cap),
										   stream);
}

/* Device build (see gpo_histjoin.cuh). */
cudaError_t
gpo_cuda_join_build(gpo_type type, const void *d_keys, const uint8_t *d_valid,
					int64_t m, const gpo_cuda_join_table *t, void *d_temp,
					size_t *temp_bytes, cudaStream_t stream)
{
	switch (type)
	{
		case GPO_INT32:
			return gpo_join_build_launch((const int32_t *) d_keys, d_valid, m, t,
										 d_temp, temp_bytes, stream);
		case GPO_INT64:
			return gpo_join_build_launch((const int64_t *) d_keys, d_valid, m, t,
										 d_temp, temp_bytes, stream);
		case GPO_FLOAT32:
			return gpo_join_build_launch((const float *) d_keys, d_valid, m, t,
										 d_temp, temp_bytes, stream);
		case GPO_FLOAT64:
			return gpo_join_build_launch((const double *) d_keys, d_valid, m, t,
										 d_temp, temp_bytes, stream);
		default:
			return cudaErrorInvalidValue;
	}
}

/* Device probe size pass (see gpo_histjoin.cuh). */
cudaError_t
gpo_cuda_join_count(gpo_type type, const void *d_keys, const uint8_t *d_valid,
					int64_t n, const gpo_cuda_join_table *t, gpo_join_kind kind,
					long long *d_pos, void *d_temp, size_t *temp_bytes,
					cudaStream_t stream)
{
	unsigned int blocks = gpo_cuda_blocks(n + 1);
	cudaError_t err;

	if (d_temp == NULL)
		return gpo_join_scan(NULL, temp_bytes, d_pos, n + 1, stream);
	switch (type)
	{
		case GPO_INT32:
			gpo_join_count_kernel<<<blocks, GPO_CUDA_THREADS, 0, stream>>>(
				(const int32_t *) d_keys, d_valid, n, *t, kind, d_pos);
			break;
		case GPO_INT64:
			gpo_join_count_kernel<<<blocks, GPO_CUDA_THREADS, 0, stream>>>(
				(const int64_t *) d_keys, d_valid, n, *t, kind, d_pos);
			break;
		case GPO_FLOAT32:
			gpo_join_count_kernel<<<blocks, GPO_CUDA_THREADS, 0, stream>>>(
				(const float *) d_keys, d_valid, n, *t, kind, d_pos);
			break;
		case GPO_FLOAT64:
			gpo_join_count_kernel<<<blocks, GPO_CUDA_THREADS, 0, stream>>>(
				(const double *) d_keys, d_valid, n, *t, kind, d_pos);
			break;
		default:
			return cudaErrorInvalidValue;
	}
	if ((err = cudaPeekAtLastError()) != cudaSuccess)
		return err;
	return gpo_join_scan(d_temp, temp_bytes, d_pos, n + 1, stream);
}

/* Device probe fill pass (see gpo_histjoin.cuh). */
cudaError_t
gpo_cuda_join_fill(gpo_type type, const void *d_keys, const uint8_t *d_valid,
				   int64_t n, const gpo_cuda_join_table *t, gpo_join_kind kind,
				   const long long *d_pos, long long *d_build_rows,
				   uint8_t *d_build_valid, long long *d_probe_rows,
				   cudaStream_t stream)
{
	unsigned int blocks = gpo_cuda_blocks(n);

	if (n == 0)
		return cudaSuccess;
	switch (type)
	{
		case GPO_INT32:
			gpo_join_fill_kernel<<<blocks, GPO_CUDA_THREADS, 0, stream>>>(
				(const int32_t *) d_keys, d_valid, n, *t, kind, d_pos, d_build_rows,
				d_build_valid, d_probe_rows);
			break;
		case GPO_INT64:
			gpo_join_fill_kernel<<<blocks, GPO_CUDA_THREADS, 0, stream>>>(
				(const int64_t *) d_keys, d_valid, n, *t, kind, d_pos, d_build_rows,
				d_build_valid, d_probe_rows);
			break;
		case GPO_FLOAT32:
			gpo_join_fill_kernel<<<blocks, GPO_CUDA_THREADS, 0, stream>>>(
				(const float *) d_keys, d_valid, n, *t, kind, d_pos, d_build_rows,
				d_build_valid, d_probe_rows);
			break;
		case GPO_FLOAT64:
			gpo_join_fill_kernel<<<blocks, GPO_CUDA_THREADS, 0, stream>>>(
				(const double *) d_keys, d_valid, n, *t, kind, d_pos, d_build_rows,
				d_build_valid, d_probe_rows);
			break;
		default:
			return cudaErrorInvalidValue;
	}
	return cudaPeekAtLastError();
}

/* Hash join GPU face (see gpo_join.h). */
extern "C" gpo_status
gpo_hash_join_gpu(gpo_ctx *ctx, gpo_join_kind kind,
				  const gpo_vector *build_keys,
				  const gpo_vector *probe_keys, gpo_vector *build_rows,
				  gpo_vector *probe_rows, int64_t *count)
{
	gpo_status	st = GPO_OK;
	sigset_t	old;
	bool		began = false;
	int64_t		m;
	int64_t		n;
	long long	total = 0;
	size_t		build_bytes = 0;
	size_t		scan_bytes = 0;
	gpo_cuda_join_table t = {0, NULL, NULL, NULL};
	void	   *d_bkeys = NULL;
	uint8_t    *d_bvalid = NULL;
	void	   *d_pkeys = NULL;
	uint8_t    *d_pvalid = NULL;
	long long  *d_pos = NULL;
	long long  *d_ob = NULL;
	uint8_t    *d_obvalid = NULL;
	long long  *d_op = NULL;
	void	   *d_temp = NULL;

	if (ctx == NULL)
		return GPO_ERR_INVALID;
	if ((st = gpo_hash_join_check(ctx, kind, build_keys, probe_keys,
								  build_rows, probe_rows, count)) != GPO_OK)
		return st;
	*count = 0;
	m = gpo_vector_rows(build_keys);
	n = gpo_vector_rows(probe_keys);
	if (n == 0 || (m == 0 && (kind == GPO_JOIN_INNER || kind == GPO_JOIN_SEMI)))
		return GPO_OK;
	if (m == 0)
	{
		/* an anti or left join with nothing to match: every probe row */
		*count = n;
		if ((build_rows && gpo_vector_rows(build_rows) < n) ||
			(probe_rows && gpo_vector_rows(probe_rows) < n))
		{
			snprintf(ctx->detail, sizeof(ctx->detail),
					 "join emits %lld pairs but an output holds fewer", (long long) n);
			return GPO_ERR_CAPACITY;
		}
		gpo_join_all_unmatched(build_rows, probe_rows, n);
		return GPO_OK;
	}

	st = gpo_cuda_begin(ctx, &old);
	began = true;				/* the signals are blocked even if it failed */
	if (st != GPO_OK)
		goto cleanup;

	/* build */
	t.cap = gpo_join_capacity(m);
	GPO_TRY(gpo_cuda_column_up(ctx, build_keys, m, "join build keys", &d_bkeys, &d_bvalid));
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &t.d_slots,
						   sizeof(unsigned long long) * (size_t) t.cap, "join table"));
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &t.d_off,
						   sizeof(long long) * (size_t) (t.cap + 2), "join runs"));
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &t.d_rows, sizeof(long long) * (size_t) m,
						   "join build rows"));
	GPO_CUDA_TRY(gpo_cuda_join_build(build_keys->type, d_bkeys, d_bvalid, m, &t,
									 NULL, &build_bytes, 0));
	GPO_CUDA_TRY(gpo_cuda_join_count(build_keys->type, d_pkeys, d_pvalid, n, &t,
									 kind, d_pos, NULL, &scan_bytes, 0));
	GPO_TRY(gpo_cuda_alloc(ctx, &d_temp,
						   build_bytes > scan_bytes ? build_bytes : scan_bytes,
						   "join temporary"));
	GPO_CUDA_TRY(gpo_cuda_join_build(build_keys->type, d_bkeys, d_bvalid, m, &t,
									 d_temp, &build_bytes, 0));
	gpo_cuda_free(d_bkeys);
	d_bkeys = NULL;

	/* probe: size */
	GPO_TRY(gpo_cuda_column_up(ctx, probe_keys, n, "join probe keys", &d_pkeys, &d_pvalid));
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_pos, sizeof(long long) * (size_t) (n + 1),
						   "join positions"));
	GPO_CUDA_TRY(gpo_cuda_join_count(probe_keys->type, d_pkeys, d_pvalid, n, &t,
									 kind, d_pos, d_temp, &scan_bytes, 0));
	GPO_CUDA_TRY(cudaMemcpy(&total, d_pos + n, sizeof(total), cudaMemcpyDeviceToHost));
	*count = total;
	if ((build_rows && gpo_vector_rows(build_rows) < total) ||
		(probe_rows && gpo_vector_rows(probe_rows) < total))
	{
		snprintf(ctx->detail, sizeof(ctx->detail),
				 "join emits %lld pairs but an output holds fewer", total);
		st = GPO_ERR_CAPACITY;
		goto cleanup;
	}
	if ((build_rows == NULL && probe_rows == NULL) || total == 0)
		goto cleanup;

	/* probe: fill */
	if (build_rows)
		GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_ob, sizeof(long long) * (size_t) total,
							   "join output build rows"));
	if (build_rows && (kind == GPO_JOIN_ANTI || kind == GPO_JOIN_LEFT))
		GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_obvalid, (size_t) total,
							   "join output build validity"));
	if (probe_rows)
		GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_op, sizeof(long long) * (size_t) total,
							   "join output probe rows"));
	GPO_CUDA_TRY(gpo_cuda_join_fill(probe_keys->type, d_pkeys, d_pvalid, n, &t,
									kind, d_pos, d_ob, d_obvalid, d_op, 0));
	if (build_rows)
	{
		GPO_TRY(gpo_cuda_download(ctx, build_rows, sizeof(long long), d_ob, total));
		GPO_TRY(gpo_cuda_download_valid(ctx, build_rows, d_obvalid, total));
	}
	if (probe_rows)
	{
		GPO_TRY(gpo_cuda_download(ctx, probe_rows, sizeof(long long), d_op, total));
		GPO_TRY(gpo_cuda_download_valid(ctx, probe_rows, NULL, total));
	}

cleanup:
	if (d_temp != NULL)
		gpo_cuda_free(d_temp);
	if (d_op != NULL)
		gpo_cuda_free(d_op);
	if (d_ob != NULL)
		gpo_cuda_free(d_ob);
	if (d_obvalid != NULL)
		gpo_cuda_free(d_obvalid);
	if (d_pos != NULL)
		gpo_cuda_free(d_pos);
	if (d_pvalid != NULL)
		gpo_cuda_free(d_pvalid);
	if (d_pkeys != NULL)
		gpo_cuda_free(d_pkeys);
	if (t.d_rows != NULL)
		gpo_cuda_free(t.d_rows);
	if (t.d_off != NULL)
		gpo_cuda_free(t.d_off);
	if (t.d_slots != NULL)
		gpo_cuda_free(t.d_slots);
	if (d_bvalid != NULL)
		gpo_cuda_free(d_bvalid);
	if (d_bkeys != NULL)
		gpo_cuda_free(d_bkeys);
	if (began)
		gpo_cuda_end(&old);
	return st;
}
