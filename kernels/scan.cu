/*
 * scan.cu
 *	  Prefix sums (inclusive or exclusive, optionally segmented), the GPU
 *	  face.
 *
 * One CUB DeviceScan::InclusiveScan (decoupled look-back, one pass over the
 * data) over partial sums made on the fly from the input, its validity (a
 * NULL row contributes 0) and the segment heads.  A segmented scan combines
 * (sum, head) pairs with the classic operator
 *   (a, fa) + (b, fb) = (fb ? b : a + b, fa | fb);
 * a 64-bit scan without heads uses plain sums (a primitive word for CUB's
 * look-back).  The results go through a tabulate-output functor that writes
 * the output directly:
 *   inclusive: out[i] = P(i)
 *   exclusive: out[i] = 0 where row i starts a segment, and
 *              out[i + 1] = P(i) where row i + 1 does not,
 * so every row is written exactly once and no intermediate array exists.
 *
 * Exact overflow (every inclusive prefix P(i) is tested, as the CPU face
 * does, exclusive scans included; a device flag reports it):
 *   int32 sums modulo 2^63 (packed with the head flag in one 64-bit word).
 *   The tree order only regroups a sum, so the computed prefix is the true
 *   prefix modulo 2^63: a prefix within the int32 range is exact, and the
 *   first prefix outside it (an in-range prefix plus one value, at most 2^32
 *   in magnitude) is exact too, so the range test is exact.
 *   int64 sums modulo 2^64 and tests, at each row, whether adding the row's
 *   own value x to the previous prefix P(i) - x overflowed (signs).  Before
 *   the first true overflow every wrapped prefix is the true one, so the
 *   first overflow is seen where it happens, and without one no row's add
 *   overflows: exact, and no 128-bit arithmetic is needed.
 *   (A flag in the combine operator would not be exact: a subtree's partial
 *   sum may leave the range while every prefix stays inside.)
 * uint32 wraps modulo 2^32 by contract; float64 is summed in tree order
 * (within rounding of the CPU face's sequential order).
 *
 * The segmented scan stays this operator inside CUB's DeviceScan rather
 * than DeviceScan::InclusiveScanByKey: that segments by runs of equal keys,
 * and head flags would first have to be scanned into n segment keys (one
 * more pass and n keys of memory), where the (sum, head) pair needs none.
 */
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/tabulate_output_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "gpo_cuda.cuh"
#include "gpo_kernels.cuh"

/* A partial segmented sum: the sum since the last head, and whether one was seen. */
template <typename W>
struct gpo_seg
{
	W			v;
	uint32_t	head;
};

/* Head bit and value bits of the packed 64-bit partial sum of 32-bit types. */
#define GPO_SEG_HEAD	(1ull << 63)
#define GPO_SEG_SUM		(GPO_SEG_HEAD - 1)

/*
 * Per-type policy, for segmented (Seg) or plain scans: the partial-sum type
 * A, the partial sum of one row, the operator on A, the sum's value in the
 * type, and the overflow test of the inclusive prefix of a row given the
 * row's own contribution x.
 *
 * int32 and uint32 pack a partial sum into one uint64 (bit 63: a head was
 * seen; bits 0..62: the sum modulo 2^63), which CUB's look-back treats as a
 * primitive word; the same code serves plain scans (only row 0 is a head).
 */
template <typename T, bool Seg>
struct gpo_scan_traits;

/* int32: packed, sign-extended; a prefix is checked against the int32 range. */
template <bool Seg>
struct gpo_scan_traits<int32_t, Seg>
{
	typedef uint64_t A;
	/* The partial sum of one row. */
	__host__ __device__ static A make(int32_t x, bool valid, bool head)
	{
		return ((valid ? (uint64_t) (int64_t) x : 0) & GPO_SEG_SUM) | (head ? GPO_SEG_HEAD : 0);
	}
	/* a (earlier rows) combined with b (later rows). */
	__host__ __device__ static A add(A a, A b)
	{
		return (b & GPO_SEG_HEAD) ? b : (((a + b) & GPO_SEG_SUM) | (a & GPO_SEG_HEAD));
	}
	/* True when the prefix s is outside the type's range. */
	__host__ __device__ static bool overflows(A s, int32_t)
	{
		int64_t		x = (int64_t) (s << 1) >> 1;

		return x < INT32_MIN || x > INT32_MAX;
	}
	/* The sum as a value (meaningful when in range). */
	__host__ __device__ static int32_t narrow(A s) { return (int32_t) (uint32_t) s; }
	static const bool needs_x = false;
};

/* uint32: packed, wraps modulo 2^32 by contract. */
template <bool Seg>
struct gpo_scan_traits<uint32_t, Seg>
{
	typedef uint64_t A;
	/* The partial sum of one row. */
	__host__ __device__ static A make(uint32_t x, bool valid, bool head)
	{
		return (valid ? (uint64_t) x : 0) | (head ? GPO_SEG_HEAD : 0);
	}
	/* a (earlier rows) combined with b (later rows). */
	__host__ __device__ static A add(A a, A b)
	{
		return (b & GPO_SEG_HEAD) ? b : (((a + b) & GPO_SEG_SUM) | (a & GPO_SEG_HEAD));
	}
	/* Never out of range. */
	__host__ __device__ static bool overflows(A, uint32_t) { return false; }
	/* The sum modulo 2^32. */
	__host__ __device__ static uint32_t narrow(A s) { return (uint32_t) s; }
	static const bool needs_x = false;
};

/*
 * True if the wrapped int64 prefix s = p + x (p the previous prefix, x the
 * row's contribution) overflowed: p and x have one sign and s the other.
 */
__host__ __device__ __forceinline__ bool
gpo_int64_add_overflows(uint64_t s, int64_t x)
{
	uint64_t	p = s - (uint64_t) x;

	return (int64_t) ((p ^ s) & ((uint64_t) x ^ s)) < 0;
}

/* int64, plain: wrapping 64-bit sums; overflow seen where a row's add overflows. */
template <>
struct gpo_scan_traits<int64_t, false>
{
	typedef uint64_t A;
	/* The partial sum of one row. */
	__host__ __device__ static A make(int64_t x, bool valid, bool)
	{
		return valid ? (uint64_t) x : 0;
	}
	/* a (earlier rows) combined with b (later rows). */
	__host__ __device__ static A add(A a, A b) { return a + b; }
	/* True if adding x to the previous prefix overflowed. */
	__host__ __device__ static bool overflows(A s, int64_t x)
	{
		return gpo_int64_add_overflows(s, x);
	}
	/* The sum as a value. */
	__host__ __device__ static int64_t narrow(A s) { return (int64_t) s; }
	static const bool needs_x = true;
};

/* int64, segmented: as plain, with the head flag beside the sum. */
template <>
struct gpo_scan_traits<int64_t, true>
{
	typedef gpo_seg<uint64_t> A;
	/* The partial sum of one row. */
	__host__ __device__ static A make(int64_t x, bool valid, bool head)
	{
		A			r;

		r.v = valid ? (uint64_t) x : 0;
		r.head = head ? 1u : 0u;
		return r;
	}
	/* a (earlier rows) combined with b (later rows). */
	__host__ __device__ static A add(const A &a, const A &b)
	{
		A			r;

		r.v = b.head ? b.v : a.v + b.v;
		r.head = a.head | b.head;
		return r;
	}
	/* True if adding x to the previous prefix overflowed. */
	__host__ __device__ static bool overflows(const A &s, int64_t x)
	{
		return gpo_int64_add_overflows(s.v, x);
	}
	/* The sum as a value. */
	__host__ __device__ static int64_t narrow(const A &s) { return (int64_t) s.v; }
	static const bool needs_x = true;
};

/* float64, plain: IEEE sums. */
template <>
struct gpo_scan_traits<double, false>
{
	typedef double A;
	/* The partial sum of one row. */
	__host__ __device__ static A make(double x, bool valid, bool)
	{
		return valid ? x : -0.0;	/* -0.0 is IEEE's additive identity: sum({-0}) = -0, as in PostgreSQL */
	}
	/* a (earlier rows) combined with b (later rows). */
	__host__ __device__ static A add(A a, A b) { return a + b; }
	/* Never out of range. */
	__host__ __device__ static bool overflows(A, double) { return false; }
	/* The sum as a value. */
	__host__ __device__ static double narrow(A s) { return s; }
	static const bool needs_x = false;
};

/* float64, segmented: IEEE sums with the head flag beside them. */
template <>
struct gpo_scan_traits<double, true>
{
	typedef gpo_seg<double> A;
	/* The partial sum of one row. */
	__host__ __device__ static A make(double x, bool valid, bool head)
	{
		A			r;

		r.v = valid ? x : -0.0;		/* the additive identity, as above */
		r.head = head ? 1u : 0u;
		return r;
	}
	/* a (earlier rows) combined with b (later rows). */
	__host__ __device__ static A add(const A &a, const A &b)
	{
		A			r;

		r.v = b.head ? b.v : a.v + b.v;
		r.head = a.head | b.head;
		return r;
	}
	/* Never out of range. */
	__host__ __device__ static bool overflows(const A &, double) { return false; }
	/* The sum as a value. */
	__host__ __device__ static double narrow(const A &s) { return s.v; }
	static const bool needs_x = false;
};

/* The scan operator (associative) for CUB. */
template <typename T, bool Seg>
struct gpo_scan_op
{
	typedef typename gpo_scan_traits<T, Seg>::A A;

	/* Combines a (earlier rows) with b (later rows). */
	__host__ __device__ __forceinline__ A operator()(const A &a, const A &b) const
	{
		return gpo_scan_traits<T, Seg>::add(a, b);
	}
};

/* Makes the partial sum of row i: its value (0 if NULL) and whether it starts a segment. */
template <typename T, bool Seg>
struct gpo_scan_load
{
	typedef typename gpo_scan_traits<T, Seg>::A A;
	const T    *in;
	const uint8_t *valid;
	const uint8_t *heads;

	/* The partial sum of row i. */
	__host__ __device__ __forceinline__ A operator()(int64_t i) const
	{
		return gpo_scan_traits<T, Seg>::make(in[i], valid == NULL || valid[i] != 0,
											 i == 0 || (heads != NULL && heads[i] != 0));
	}
};

/* Receives P(i) for row i: checks for overflow and writes the output row(s). */
template <typename T, bool Seg>
struct gpo_scan_store
{
	typedef gpo_scan_traits<T, Seg> Tr;
	typedef typename Tr::A A;
	T		   *out;
	const T    *in;
	const uint8_t *valid;
	const uint8_t *heads;
	int64_t		n;
	uint32_t   *overflow;
	bool		inclusive;

	/* True if row i starts a segment. */
	__host__ __device__ __forceinline__ bool starts(int64_t i) const
	{
		return i == 0 || (heads != NULL && heads[i] != 0);
	}

	/* Handles the inclusive prefix p of row i. */
	__host__ __device__ __forceinline__ void
	operator()(int64_t i, const A &p) const
	{
		T			x = (T) 0;

		if (Tr::needs_x && (valid == NULL || valid[i] != 0))
			x = in[i];
		if (Tr::overflows(p, x))
			*overflow = 1;
		if (inclusive)
			out[i] = Tr::narrow(p);
		else
		{
			if (starts(i))
				out[i] = (T) -0.0;	/* the empty sum: -0.0 for float64, as in scan.c */
			if (i + 1 < n && !starts(i + 1))
				out[i + 1] = Tr::narrow(p);
		}
	}
};

/* The scan of one value type, segmented or plain; see gpo_cuda_scan. */
template <typename T, bool Seg>
static cudaError_t
gpo_scan_typed(const T *d_in, const uint8_t *d_valid, const uint8_t *d_heads,
			   int64_t n, bool inclusive, T *d_out, uint32_t *d_overflow,
			   void *d_temp, size_t *temp_bytes, cudaStream_t stream)
{
	gpo_scan_load<T, Seg> load;
	gpo_scan_store<T, Seg> store;
	cudaError_t err;

	load.in = d_in;
	load.valid = d_valid;
	load.heads = d_heads;
	store.out = d_out;
	store.in = d_in;
	store.valid = d_valid;
	store.heads = d_heads;
	store.n = n;
	store.overflow = d_overflow;
	store.inclusive = inclusive;

	auto		in_it = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), load);
	auto		out_it = thrust::make_tabulate_output_iterator(store);

	if (d_temp == NULL)
		return cub::DeviceScan::InclusiveScan(NULL, *temp_bytes, in_it, out_it,
											  gpo_scan_op<T, Seg>(), n, stream);
	err = cudaMemsetAsync(d_overflow, 0, sizeof(uint32_t), stream);
	if (err != cudaSuccess || n <= 0)
		return err;
	err = cub::DeviceScan::InclusiveScan(d_temp, *temp_bytes, in_it, out_it,
										 gpo_scan_op<T, Seg>(), n, stream);
	if (err != cudaSuccess)
		return err;
	return cudaPeekAtLastError();
}

/*
 * The scan of one value type: 32-bit types always take the packed
 * segmented form (plain scans have one head, row 0); 64-bit types take the
 * plain form without heads, which CUB's look-back carries as one word.
 */
template <typename T>
static cudaError_t
gpo_scan_of(const void *d_in, const uint8_t *d_valid, const uint8_t *d_heads,
			int64_t n, bool inclusive, void *d_out, uint32_t *d_overflow,
			void *d_temp, size_t *temp_bytes, cudaStream_t stream)
{
	if constexpr (sizeof(T) == 8)
	{
		if (d_heads == NULL)
			return gpo_scan_typed<T, false>((const T *) d_in, d_valid, NULL, n,
											inclusive, (T *) d_out, d_overflow,
											d_temp, temp_bytes, stream);
	}
	return gpo_scan_typed<T, true>((const T *) d_in, d_valid, d_heads, n,
								   inclusive, (T *) d_out, d_overflow,
								   d_temp, temp_bytes, stream);
}

/* Prefix scan of n values of type on the device (see gpo_kernels.cuh). */
cudaError_t
gpo_cuda_scan(gpo_type type, const void *d_in, const uint8_t *d_valid,
			  const uint8_t *d_heads, int64_t n, bool inclusive, void *d_out,
			  uint32_t *d_overflow, void *d_temp, size_t *temp_bytes,
			  cudaStream_t stream)
{
	switch (type)
	{
		case GPO_INT32:
			return gpo_scan_of<int32_t>(d_in, d_valid, d_heads, n, inclusive, d_out,
										d_overflow, d_temp, temp_bytes, stream);
		case GPO_UINT32:
			return gpo_scan_of<uint32_t>(d_in, d_valid, d_heads, n, inclusive, d_out,
										 d_overflow, d_temp, temp_bytes, stream);
		case GPO_INT64:
			return gpo_scan_of<int64_t>(d_in, d_valid, d_heads, n, inclusive, d_out,
										d_overflow, d_temp, temp_bytes, stream);
		case GPO_FLOAT64:
			return gpo_scan_of<double>(d_in, d_valid, d_heads, n, inclusive, d_out,
									   d_overflow, d_temp, temp_bytes, stream);
		default:
			return cudaErrorInvalidValue;
	}
}

/* Scan GPU face (see gpo.h). */
extern "C" gpo_status
gpo_scan_gpu(gpo_ctx *ctx, const gpo_vector *in, const gpo_vector *heads,
			 bool inclusive, gpo_vector *out)
{
	gpo_status	st = GPO_OK;
	sigset_t	old;
	bool		began = false;
	int64_t		n;
	size_t		elem;
	uint32_t	overflow = 0;
	void	   *d_in = NULL;
	void	   *d_out = NULL;
	uint8_t    *d_valid = NULL;
	uint8_t    *d_heads = NULL;
	uint32_t   *d_overflow = NULL;
	void	   *d_temp = NULL;
	size_t		temp_bytes = 0;

	if (ctx == NULL || in == NULL || out == NULL)
		return GPO_ERR_INVALID;
	GPO_TRY(gpo_cuda_check_vector(ctx, in, "scan input"));
	GPO_TRY(gpo_cuda_check_vector(ctx, out, "scan output"));
	if (heads != NULL)
		GPO_TRY(gpo_cuda_check_vector(ctx, heads, "scan heads"));
	if ((in->type != GPO_INT32 && in->type != GPO_UINT32 &&
		 in->type != GPO_INT64 && in->type != GPO_FLOAT64) ||
		out->type != in->type || (heads != NULL && heads->type != GPO_UINT8))
	{
		snprintf(ctx->detail, sizeof(ctx->detail), "scan types not supported");
		return GPO_ERR_INVALID;
	}
	n = gpo_vector_rows(in);
	if (heads != NULL && gpo_vector_rows(heads) != n)
	{
		snprintf(ctx->detail, sizeof(ctx->detail), "scan heads and input differ in rows");
		return GPO_ERR_INVALID;
	}
	if (gpo_vector_rows(out) < n)
	{
		snprintf(ctx->detail, sizeof(ctx->detail), "scan output is smaller than its input");
		return GPO_ERR_CAPACITY;
	}
	if (n == 0)
		return GPO_OK;
	elem = gpo_type_size(in->type);

	st = gpo_cuda_begin(ctx, &old);
	began = true;				/* gpo_cuda_end is harmless after a failure */
	if (st != GPO_OK)
		goto cleanup;

	GPO_TRY(gpo_cuda_column_up(ctx, in, n, "scan input", &d_in, &d_valid));
	if (heads != NULL)		/* the heads' validity is not read */
		GPO_TRY(gpo_cuda_column_up(ctx, heads, n, "scan heads", (void **) &d_heads, NULL));
	GPO_TRY(gpo_cuda_alloc(ctx, &d_out, (size_t) n * elem, "scan output"));
	GPO_TRY(gpo_cuda_alloc(ctx, (void **) &d_overflow, sizeof(uint32_t), "scan flag"));

	GPO_CUDA_TRY(gpo_cuda_scan(in->type, d_in, d_valid, d_heads, n, inclusive,
							   d_out, d_overflow, NULL, &temp_bytes, 0));
	GPO_TRY(gpo_cuda_alloc(ctx, &d_temp, temp_bytes, "scan temporary"));
	GPO_CUDA_TRY(gpo_cuda_scan(in->type, d_in, d_valid, d_heads, n, inclusive,
							   d_out, d_overflow, d_temp, &temp_bytes, 0));
	GPO_CUDA_TRY(cudaMemcpy(&overflow, d_overflow, sizeof(uint32_t),
							cudaMemcpyDeviceToHost));
	if (overflow != 0)
	{
		snprintf(ctx->detail, sizeof(ctx->detail), "%s scan result out of range",
				 in->type == GPO_INT32 ? "int32" : "int64");
		st = GPO_ERR_OVERFLOW;
		goto cleanup;
	}
	GPO_TRY(gpo_cuda_download(ctx, out, elem, d_out, n));
	GPO_TRY(gpo_cuda_download_valid(ctx, out, d_valid, n));

cleanup:
	if (d_temp != NULL)
		gpo_cuda_free(d_temp);
	if (d_overflow != NULL)
		gpo_cuda_free(d_overflow);
	if (d_out != NULL)
		gpo_cuda_free(d_out);
	if (d_heads != NULL)
		gpo_cuda_free(d_heads);
	if (d_valid != NULL)
		gpo_cuda_free(d_valid);
	if (d_in != NULL)
		gpo_cuda_free(d_in);
	if (began)
		gpo_cuda_end(&old);
	return st;
}
