/*
 * gpo_agg_codes.h
 *	  Order-preserving bit transforms shared by the CPU faces (C) and the
 *	  GPU faces (CUDA): one definition of key order, value order and the
 *	  decoding back, so that every face groups and orders alike.
 *
 * Key codes: INT32 -> bits ^ 2^31, UINT32 -> bits, INT64 -> bits ^ 2^63
 * (4-byte types in the low 32 bits).  Floats: canonicalize (-0.0 -> +0.0,
 * any NaN -> the positive quiet NaN), then flip every bit of a negative
 * value and only the sign bit of a positive one, so that unsigned order is
 * -Inf < ... < 0.0 < ... < Inf < NaN.  Value codes (for min/max) are the
 * same but leave -0.0 alone, so that -0.0 orders just below 0.0.
 */
#ifndef GPO_AGG_CODES_H
#define GPO_AGG_CODES_H

#include <stdint.h>
#include <string.h>

#include "gpo.h"

#ifdef __CUDACC__
#define GPO_HD __host__ __device__ __forceinline__
#else
#define GPO_HD static inline
#endif

/* The canonical quiet NaNs every face reports. */
#define GPO_NAN64_BITS	UINT64_C(0x7ff8000000000000)
#define GPO_NAN32_BITS	UINT32_C(0x7fc00000)

/* Order code of float64 bits; canonical_zero folds -0.0 into +0.0. */
GPO_HD uint64_t
gpo_f64_code(uint64_t bits, int canonical_zero)
{
	if ((bits & UINT64_C(0x7fffffffffffffff)) > UINT64_C(0x7ff0000000000000))
		bits = GPO_NAN64_BITS;
	else if (canonical_zero && bits == UINT64_C(0x8000000000000000))
		bits = 0;
	return (bits >> 63) ? ~bits : bits | UINT64_C(0x8000000000000000);
}

/* Order code of float32 bits; canonical_zero folds -0.0 into +0.0. */
GPO_HD uint32_t
gpo_f32_code(uint32_t bits, int canonical_zero)
{
	if ((bits & UINT32_C(0x7fffffff)) > UINT32_C(0x7f800000))
		bits = GPO_NAN32_BITS;
	else if (canonical_zero && bits == UINT32_C(0x80000000))
		bits = 0;
	return (bits >> 31) ? ~bits : bits | UINT32_C(0x80000000);
}

/* Float64 bits of an order code. */
GPO_HD uint64_t
gpo_f64_uncode(uint64_t code)
{
	return (code >> 63) ? code ^ UINT64_C(0x8000000000000000) : ~code;
}

/* Float32 bits of an order code. */
GPO_HD uint32_t
gpo_f32_uncode(uint32_t code)
{
	return (code >> 31) ? code ^ UINT32_C(0x80000000) : ~code;
}

/* Code of raw value bits (4-byte types in the low 32 bits of raw). */
GPO_HD uint64_t
gpo_code_of_raw(gpo_type type, uint64_t raw, int canonical_zero)
{
	switch (type)
	{
		case GPO_INT32:
			return (uint32_t) raw ^ UINT32_C(0x80000000);
		case GPO_UINT32:
			return (uint32_t) raw;
		case GPO_INT64:
			return raw ^ UINT64_C(0x8000000000000000);
		case GPO_FLOAT32:
			return gpo_f32_code((uint32_t) raw, canonical_zero);
		case GPO_FLOAT64:
			return gpo_f64_code(raw, canonical_zero);
		default:
			return raw;
	}
}

/* Raw value bits of a code (inverse of gpo_code_of_raw). */
GPO_HD uint64_t
gpo_raw_of_code(gpo_type type, uint64_t code)
{
	switch (type)
	{
		case GPO_INT32:
			return (uint32_t) code ^ UINT32_C(0x80000000);
		case GPO_UINT32:
			return (uint32_t) code;
		case GPO_INT64:
			return code ^ UINT64_C(0x8000000000000000);
		case GPO_FLOAT32:
			return gpo_f32_uncode((uint32_t) code);
		case GPO_FLOAT64:
			return gpo_f64_uncode(code);
		default:
			return code;
	}
}

/* Raw bits of value i of a column of type (4-byte types zero-extended). */
GPO_HD uint64_t
gpo_raw_at(gpo_type type, const void *data, int64_t i)
{
	if (type == GPO_INT64 || type == GPO_FLOAT64)
		return ((const uint64_t *) data)[i];
	return ((const uint32_t *) data)[i];
}

/* True for the integer value and key types. */
GPO_HD int
gpo_type_is_int(gpo_type type)
{
	return type == GPO_INT32 || type == GPO_UINT32 || type == GPO_INT64;
}

/* Signed integer value of raw bits of an integer type. */
GPO_HD int64_t
gpo_int_of_raw(gpo_type type, uint64_t raw)
{
	if (type == GPO_INT32)
		return (int64_t) (int32_t) (uint32_t) raw;
	if (type == GPO_UINT32)
		return (int64_t) (uint32_t) raw;
	return (int64_t) raw;
}

/* Float64 value of raw bits of a float type. */
GPO_HD double
gpo_double_of_raw(gpo_type type, uint64_t raw)
{
	if (type == GPO_FLOAT32)
	{
		uint32_t	b = (uint32_t) raw;
		float		f;

		memcpy(&f, &b, sizeof(f));
		return (double) f;
	}
	else
	{
		double		d;

		memcpy(&d, &raw, sizeof(d));
		return d;
	}
}

/* True when raw bits of a float type hold a finite value. */
GPO_HD int
gpo_raw_is_finite(gpo_type type, uint64_t raw)
{
	if (type == GPO_FLOAT32)
		return ((uint32_t) raw & UINT32_C(0x7f800000)) != UINT32_C(0x7f800000);
	return (raw & UINT64_C(0x7ff0000000000000)) != UINT64_C(0x7ff0000000000000);
}

/* The GPO_FF_* flag of raw bits of a non-finite float value. */
GPO_HD unsigned
gpo_raw_fflag(gpo_type type, uint64_t raw)
{
	int			nan;
	int			neg;

	if (type == GPO_FLOAT32)
	{
		nan = ((uint32_t) raw & UINT32_C(0x007fffff)) != 0;
		neg = ((uint32_t) raw >> 31) != 0;
	}
	else
	{
		nan = (raw & UINT64_C(0x000fffffffffffff)) != 0;
		neg = (raw >> 63) != 0;
	}
	return nan ? 0x04u : neg ? 0x02u : 0x01u;
}

/*
 * Chan's combination of two sets' sums of squared deviations: set a (na
 * values, mean *mean_a, *m2_a) absorbs set b; the mean moves too.  The
 * cross term is formed as (d * w) * d, which overflows only when the
 * result does.
 */
GPO_HD void
gpo_m2_combine(double *m2_a, double *mean_a, double na, double m2_b,
			   double mean_b, double nb)
{
	double		n = na + nb;
	double		d = mean_b - *mean_a;
	double		w = na * (nb / n);

	*mean_a += d * (nb / n);
	*m2_a += m2_b + (d * w) * d;
}

/*
 * The key-code bits a radix sort must cover (host only): diff is the OR of
 * every code XOR the first, [mn, mx] the codes' range (diff != 0).  The
 * bits below the lowest one in which two codes differ are skipped; above,
 * the sort stops at the highest bit of the span mx - mn when the smallest
 * code is subtracted first, if that saves an 8-bit pass (codes on both
 * sides of a sign flip differ in every bit but may span only a few).  Sets
 * [*begin, *end); true when the codes are to be shifted down by mn.
 */
static inline bool
gpo_sort_bit_range(uint64_t diff, uint64_t mn, uint64_t mx, int *begin,
				   int *end)
{
	int			bb = __builtin_ctzll(diff);
	int			eb = 64 - __builtin_clzll(diff);
	int			span_eb = 64 - __builtin_clzll(mx - mn);

	*begin = bb;
	if ((span_eb - bb + 7) / 8 >= (eb - bb + 7) / 8)
	{
		*end = eb;
		return false;
	}
	*end = span_eb;
	return true;
}

#endif							/* GPO_AGG_CODES_H */
