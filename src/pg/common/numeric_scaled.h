/*
 * numeric_scaled.h
 *	  numeric(p, s) values as scaled 64-bit integers: the value times 10^s.
 *
 * A column of numeric(p, s) with 0 <= s <= p <= 18 holds only values below
 * 10^(p - s) in magnitude, every one stored with display scale s (numeric's
 * typmod coercion rounds to s digits and sets the display scale to s), and
 * NaN, but no infinity (a typmod rejects it).  So v * 10^s is an exact
 * int64 below 10^18, and NaN gets GPUOPS_NUMERIC_NAN, the largest int64,
 * which orders above every number as numeric's NaN does.  Sums of such
 * values are exact in 128 bits and have display scale s, as numeric_sum's.
 *
 * gpuops_numeric_scaled reads numeric's stored form (the on-disk format,
 * which pg_upgrade keeps stable) with plain memory reads, so the page
 * decoder's threads may call it.
 */
#ifndef GPUOPS_NUMERIC_SCALED_H
#define GPUOPS_NUMERIC_SCALED_H

#include "common/gpuops.h"

/* The scaled value that stands for NaN. */
#define GPUOPS_NUMERIC_NAN PG_INT64_MAX

/* Most digits of a numeric the engine holds as a scaled int64. */
#define GPUOPS_NUMERIC_MAX_PRECISION 18

/* What gpuops_numeric_scaled found. */
typedef enum GpuopsNumericRead
{
	GPUOPS_NUMERIC_OK,			/* a number, exact at the scale */
	GPUOPS_NUMERIC_IS_NAN,		/* NaN (*out = GPUOPS_NUMERIC_NAN) */
	GPUOPS_NUMERIC_UNFIT		/* an infinity, a value not exact at the
								 * scale or too large, or a compressed or
								 * external datum */
} GpuopsNumericRead;

/*
 * The scale of a numeric typmod when the engine can hold the type's values
 * as scaled int64 (0 <= scale <= precision <= 18), else -1.
 */
static inline int
gpuops_numeric_typmod_scale(int32 typmod)
{
	int32		precision;
	int32		scale;

	if (typmod < (int32) VARHDRSZ)
		return -1;
	precision = ((typmod - VARHDRSZ) >> 16) & 0xffff;
	/* the scale is an 11-bit signed field (numeric.c's typmod layout) */
	scale = (((typmod - VARHDRSZ) & 0x7ff) ^ 1024) - 1024;
	if (precision < 1 || precision > GPUOPS_NUMERIC_MAX_PRECISION ||
		scale < 0 || scale > precision)
		return -1;
	return scale;
}

/* 10^e for 0 <= e <= 18. */
static inline int64
gpuops_pow10_int64(int e)
{
	static const int64 pow10[19] = {
		INT64CONST(1), INT64CONST(10), INT64CONST(100), INT64CONST(1000),
		INT64CONST(10000), INT64CONST(100000), INT64CONST(1000000),
		INT64CONST(10000000), INT64CONST(100000000),
		INT64CONST(1000000000), INT64CONST(10000000000),
		INT64CONST(100000000000), INT64CONST(1000000000000),
		INT64CONST(10000000000000), INT64CONST(100000000000000),
		INT64CONST(1000000000000000), INT64CONST(10000000000000000),
		INT64CONST(100000000000000000), INT64CONST(1000000000000000000)
	};

	return pow10[e];
}

/*
 * The header of the numeric datum at p (any varlena header: short or 4-byte,
 * not compressed nor external): its sign, display scale, weight, and its
 * base-10000 digits at *digits (unaligned), *ndigits of them.  Returns
 * GPUOPS_NUMERIC_IS_NAN for NaN, GPUOPS_NUMERIC_UNFIT for an infinity or a
 * datum it can't read.  Only memory reads: safe on any thread.
 */
static inline GpuopsNumericRead
gpuops_numeric_header(const void *p, bool *negative, int *dscale, int *weight,
					  const char **digits, int *ndigits)
{
	const char *data;
	int			len;
	uint16		header;
	int			hdr;

	if (VARATT_IS_EXTERNAL(p) || VARATT_IS_COMPRESSED(p))
		return GPUOPS_NUMERIC_UNFIT;
	data = VARDATA_ANY(p);
	len = (int) VARSIZE_ANY_EXHDR(p);
	if (len < (int) sizeof(uint16))
		return GPUOPS_NUMERIC_UNFIT;
	memcpy(&header, data, sizeof(uint16));
	if ((header & 0xC000) == 0xC000)
	{
		/* special: NaN is 0xC000, the infinities 0xD000 and 0xF000 */
		*dscale = 0;
		return header == 0xC000 ? GPUOPS_NUMERIC_IS_NAN : GPUOPS_NUMERIC_UNFIT;
	}
	if (header & 0x8000)
	{
		/* short format: sign 0x2000, dscale 0x1F80, weight 0x007F */
		*negative = (header & 0x2000) != 0;
		*dscale = (header & 0x1F80) >> 7;
		*weight = (header & 0x0040) ? (int) (~0x003F | (header & 0x003F)) :
			(int) (header & 0x003F);
		hdr = sizeof(uint16);
	}
	else
	{
		int16		w;

		if (len < (int) (2 * sizeof(uint16)))
			return GPUOPS_NUMERIC_UNFIT;
		*negative = (header & 0xC000) == 0x4000;
		*dscale = header & 0x3FFF;
		memcpy(&w, data + sizeof(uint16), sizeof(int16));
		*weight = w;
		hdr = 2 * sizeof(uint16);
	}
	*digits = data + hdr;
	*ndigits = (len - hdr) / (int) sizeof(int16);
	return GPUOPS_NUMERIC_OK;
}

/*
 * The value of the numeric datum at p times 10^scale into *out, exact and
 * below 10^18 in magnitude; with same_dscale, only when its display scale
 * is scale (a column's value, whose sums must show that scale).  NaN gives
 * GPUOPS_NUMERIC_NAN.  Only memory reads: safe on any thread.
 */
static inline GpuopsNumericRead
gpuops_numeric_scaled_any(const void *p, int scale, bool same_dscale,
						  int64 *out)
{
	bool		negative = false;
	int			dscale;
	int			weight = 0;
	const char *digits = NULL;
	int			ndigits = 0;
	__int128	acc = 0;
	GpuopsNumericRead r;
	int			i;

	*out = 0;
	r = gpuops_numeric_header(p, &negative, &dscale, &weight, &digits, &ndigits);
	if (r == GPUOPS_NUMERIC_IS_NAN)
		*out = GPUOPS_NUMERIC_NAN;
	if (r != GPUOPS_NUMERIC_OK)
		return r;
	if (same_dscale && dscale != scale)
		return GPUOPS_NUMERIC_UNFIT;
	/* digit i (base 10000) is worth 10000^(weight - i), times 10^scale */
	for (i = 0; i < ndigits; i++)
	{
		int16		d;
		int			e = 4 * (weight - i) + scale;

		memcpy(&d, digits + i * sizeof(int16), sizeof(int16));
		if (d == 0)
			continue;
		if (e < 0)
		{
			int64		div;

			if (e < -4)
				return GPUOPS_NUMERIC_UNFIT;
			div = gpuops_pow10_int64(-e);
			if (d % div != 0)
				return GPUOPS_NUMERIC_UNFIT;
			acc += d / div;
		}
		else if (e > GPUOPS_NUMERIC_MAX_PRECISION)
			return GPUOPS_NUMERIC_UNFIT;
		else
			acc += (__int128) d * gpuops_pow10_int64(e);
		if (acc >= (__int128) 1000000000000000000LL)
			return GPUOPS_NUMERIC_UNFIT;
	}
	*out = negative ? -(int64) acc : (int64) acc;
	return GPUOPS_NUMERIC_OK;
}

/*
 * The display scale of the numeric datum at p, 0 for NaN, -1 for an
 * infinity or a datum it can't read.
 */
static inline int
gpuops_numeric_dscale(const void *p)
{
	bool		negative;
	int			dscale = -1;
	int			weight;
	const char *digits;
	int			ndigits;

	if (gpuops_numeric_header(p, &negative, &dscale, &weight, &digits,
							  &ndigits) == GPUOPS_NUMERIC_UNFIT)
		return -1;
	return dscale;
}

/*
 * A column value of numeric(p, s) as value * 10^s (scale = s).  The usual
 * stored form (a 1-byte varlena header, numeric's short format, display
 * scale s, a leading digit worth below 10^18) is read here in int64 with
 * no check a digit; anything else, or a digit that would not be exact at
 * the scale, goes the general way, which decides.  Measured on 2 cores over
 * TPC-H's lineitem (four numeric(15,2) columns), the general way alone was
 * 18% of Q6's time.
 */
static inline GpuopsNumericRead
gpuops_numeric_scaled(const void *p, int scale, int64 *out)
{
	const uint8 *b = (const uint8 *) p;
	uint16		h;
	int			nd;
	int			e;
	int64		acc = 0;
	bool		exact = true;
	int			i;

	if (!VARATT_IS_SHORT(p) || VARSIZE_SHORT(p) < VARHDRSZ_SHORT + 2)
		return gpuops_numeric_scaled_any(p, scale, true, out);
	memcpy(&h, b + VARHDRSZ_SHORT, sizeof(uint16));
	/* short format, not special, display scale s */
	if ((h & 0xC000) != 0x8000 || (int) ((h & 0x1F80) >> 7) != scale)
		return gpuops_numeric_scaled_any(p, scale, true, out);
	/* digit i is worth 10000^(weight - i) * 10^s = 10^(e - 4 i) */
	e = 4 * ((h & 0x0040) ? (int) (~0x003F | (h & 0x003F)) : (int) (h & 0x003F)) +
		scale;
	if (e > GPUOPS_NUMERIC_MAX_PRECISION - 4)
		return gpuops_numeric_scaled_any(p, scale, true, out);
	nd = (int) (VARSIZE_SHORT(p) - VARHDRSZ_SHORT - sizeof(uint16)) / (int) sizeof(int16);
	for (i = 0; i < nd; i++, e -= 4)
	{
		int16		d;

		memcpy(&d, b + VARHDRSZ_SHORT + sizeof(uint16) + i * sizeof(int16),
			   sizeof(int16));
		if (e >= 0)
			acc += d * gpuops_pow10_int64(e);	/* below 10^18 in all */
		else if (e > -4)
		{
			/* constant divisors: a multiply, not a division instruction */
			int			q = e == -1 ? d / 10 : e == -2 ? d / 100 : d / 1000;

			exact &= q * (int) gpuops_pow10_int64(-e) == d;
			acc += q;
		}
		else
			exact &= d == 0;
	}
	if (!exact)
		return gpuops_numeric_scaled_any(p, scale, true, out);
	*out = (h & 0x2000) ? -acc : acc;
	return GPUOPS_NUMERIC_OK;
}

/* ---- values.c ---- */

/*
 * The numeric of a scaled value v (value times 10^scale), with display
 * scale scale; NaN for GPUOPS_NUMERIC_NAN when nan_sentinel is set.
 */
extern Datum gpuops_scaled_to_numeric(gpo_int128 v, int scale,
									  bool nan_sentinel);

#endif							/* GPUOPS_NUMERIC_SCALED_H */
