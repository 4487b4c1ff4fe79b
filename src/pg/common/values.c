/*
 * values.c
 *	  Engine values <-> PostgreSQL values: the physical type of an SQL type,
 *	  one-chunk vectors, Datums of physical values, and the Datums of group
 *	  results as PostgreSQL's aggregates give them (float sums and averages
 *	  with their overflow rules, exact 128-bit sums as numeric).
 */
#include "common/gpuops.h"
#include "common/numeric_scaled.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
#include "utils/timestamp.h"

/* True if elemtype maps onto an engine physical type; sets *type. */
bool
gpuops_device_type(Oid elemtype, gpo_type *type)
{
	switch (elemtype)
	{
		case INT2OID:
		case INT4OID:
		case DATEOID:
			*type = GPO_INT32;
			return true;
		case INT8OID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			*type = GPO_INT64;
			return true;
		case FLOAT4OID:
			*type = GPO_FLOAT32;
			return true;
		case FLOAT8OID:
			*type = GPO_FLOAT64;
			return true;
		case BOOLOID:
			*type = GPO_UINT8;
			return true;
		default:
			return false;
	}
}

/* A one-chunk vector v over n values at data (chunk c), validity optional. */
void
gpuops_one_chunk_vector(gpo_vector *v, gpo_chunk *c, gpo_type type,
						void *data, uint8 *validity, int64 n)
{
	c->data = data;
	c->validity = validity;
	c->n = n;
	v->type = type;
	v->nchunks = 1;
	v->chunks = c;
}

/* Convert row of a contiguous physical buffer back to a Datum of elemtype. */
Datum
gpuops_value_to_datum(Oid elemtype, gpo_type type, const void *data, int64 row)
{
	switch (elemtype)
	{
		case INT2OID:
			return Int16GetDatum((int16) ((const int32 *) data)[row]);
		case INT4OID:
			return Int32GetDatum(((const int32 *) data)[row]);
		case DATEOID:
			return DateADTGetDatum(((const int32 *) data)[row]);
		case INT8OID:
			return Int64GetDatum(((const int64 *) data)[row]);
		case TIMESTAMPOID:
			return TimestampGetDatum(((const int64 *) data)[row]);
		case TIMESTAMPTZOID:
			return TimestampTzGetDatum(((const int64 *) data)[row]);
		case FLOAT4OID:
			return Float4GetDatum(((const float4 *) data)[row]);
		case FLOAT8OID:
			return Float8GetDatum(((const float8 *) data)[row]);
		case BOOLOID:
			return BoolGetDatum(((const uint8 *) data)[row] != 0);
		default:
			elog(ERROR, "type %u is not a gpuops device type", elemtype);
	}
	return (Datum) 0;			/* keep compiler quiet */
}

/* An exact 128-bit integer as a numeric (through its decimal digits). */
Datum
gpuops_int128_to_numeric(gpo_int128 v)
{
	return gpuops_scaled_to_numeric(v, 0, false);
}

/*
 * The numeric of a scaled value v (value times 10^scale, 0 <= scale <= 38),
 * with display scale scale, through its decimal digits; NaN for
 * GPUOPS_NUMERIC_NAN when nan_sentinel is set.
 */
Datum
gpuops_scaled_to_numeric(gpo_int128 v, int scale, bool nan_sentinel)
{
	uint64		lo = v.lo;
	uint64		hi = (uint64) v.hi;
	bool		neg = v.hi < 0;
	uint32		limb[4];
	char		buf[48];
	char	   *p = buf + sizeof(buf) - 1;
	int			digits = scale > 0 ? scale : -1;
	int			i;

	if (neg)
	{
		/* two's complement negation across both words */
		lo = ~lo + 1;
		hi = ~hi + (lo == 0 ? 1 : 0);
	}
	limb[0] = (uint32) (hi >> 32);
	limb[1] = (uint32) hi;
	limb[2] = (uint32) (lo >> 32);
	limb[3] = (uint32) lo;

	if (nan_sentinel && v.hi == 0 && v.lo == (uint64) GPUOPS_NUMERIC_NAN)
		return DirectFunctionCall3(numeric_in, CStringGetDatum("NaN"),
								   ObjectIdGetDatum(InvalidOid),
								   Int32GetDatum(-1));
	*p = '\0';
	do
	{
		uint64		rem = 0;

		for (i = 0; i < 4; i++)
		{
			uint64		cur = (rem << 32) | limb[i];

			limb[i] = (uint32) (cur / 10);
			rem = cur % 10;
		}
		*--p = (char) ('0' + rem);
		/* the decimal point after the scale's digits, a 0 before it */
		if (--digits == 0)
			*--p = '.';
	} while ((limb[0] | limb[1] | limb[2] | limb[3]) != 0 || digits >= 0);
	if (neg)
		*--p = '-';

	return DirectFunctionCall3(numeric_in, CStringGetDatum(p),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/*
 * The IEEE combination of a finite sum with the non-finite values of its
 * group: +Inf and -Inf together, or any NaN, give NaN; else an infinity
 * wins.
 */
static float8
gpuops_float_with_flags(float8 sum, uint8 fflags)
{
	if ((fflags & GPO_FF_NAN) ||
		(fflags & (GPO_FF_PINF | GPO_FF_NINF)) == (GPO_FF_PINF | GPO_FF_NINF))
		return get_float8_nan();
	if (fflags & GPO_FF_PINF)
		return get_float8_infinity();
	if (fflags & GPO_FF_NINF)
		return -get_float8_infinity();
	return sum;
}

/*
 * A group's float sum as float8pl gives it, from the engine's sum of the
 * finite values (fsum), the flags of its non-finite values and its max.
 * PostgreSQL adds in row order and raises "value out of range: overflow"
 * when a partial sum becomes infinite while neither operand was, so its
 * outcome depends on where the infinities stand.  gpuops' rule: the finite
 * values are summed apart from the infinities and NaNs; if their sum
 * overflows (for sum(float4), beyond float4's range, as float4pl checks),
 * the error is raised, as PostgreSQL does whenever the overflow comes
 * before the first infinite value; otherwise the result is that sum
 * combined with the group's +Inf, -Inf and NaN by IEEE rules.  The sum of
 * a group whose values are all -0.0 is -0.0 (float8pl(-0, -0) is -0; any
 * +0.0 or any cancellation gives +0.0), which is when the largest value is
 * -0.0, as -0.0 orders before 0.0 in the engine's min/max.
 */
float8
gpuops_float_sum(float8 fsum, uint8 fflags, float8 mx, bool as_float4)
{
	if (!isfinite(fsum) || (as_float4 && isinf((float4) fsum)))
		float_overflow_error();
	if (as_float4)
		fsum = (float4) fsum;
	if (fflags != 0)
		return gpuops_float_with_flags(fsum, fflags);
	if (fsum == 0.0)
		fsum = (mx == 0.0 && signbit(mx)) ? -0.0 : 0.0;
	return fsum;
}

/*
 * A group's float avg as float8_accum and float8_avg give it.  PostgreSQL
 * keeps N, Sx and Sxx (Youngs-Cramer) and raises an overflow when Sx or
 * Sxx becomes infinite while neither the previous Sx nor the new value
 * was: again the order decides.  gpuops' rule, as for sum: an error when
 * the finite values' sum overflows, or when every value is finite and
 * their sum of squared deviations (m2) overflows (PostgreSQL may also
 * raise when an intermediate product of its update, N times a value's
 * distance from the running mean, squared, overflows while m2 does not);
 * otherwise the sum combined with the non-finite values, over count.
 * float8_accum's sum starts at +0, so its zero is +0.
 */
float8
gpuops_float_avg(float8 fsum, uint8 fflags, float8 m2, int64 count)
{
	return gpuops_float_accum_sum(fsum, fflags, m2) / (float8) count;
}

/*
 * The Sx that float8_accum keeps for a group (see gpuops_float_avg, whose
 * overflow errors it raises): the finite sum combined with the non-finite
 * values, +0 for a zero.
 */
float8
gpuops_float_accum_sum(float8 fsum, uint8 fflags, float8 m2)
{
	if (!isfinite(fsum) || (fflags == 0 && !isfinite(m2)))
		float_overflow_error();
	fsum = gpuops_float_with_flags(fsum, fflags);
	return fsum == 0.0 ? 0.0 : fsum;
}
