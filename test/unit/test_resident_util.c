/*
 * test_resident_util.c
 *	  Helpers shared by the kept column set tests (test_resident.c and
 *	  test_resident_dims.c).
 */
#include <math.h>
#include <string.h>

#include "test_resident_util.h"
#include "test_util.h"

/* PostgreSQL's float8_cmp_internal. */
int
tres_pg_fcmp(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) ? 0 : isnan(a) ? 1 : -1;
	return a > b ? 1 : a < b ? -1 : 0;
}

/* True for the float types. */
bool
tres_is_float(gpo_type t)
{
	return t == GPO_FLOAT32 || t == GPO_FLOAT64;
}

/* The value of raw bits of a float type, widened. */
double
tres_dbl_of(gpo_type t, uint64_t r)
{
	if (t == GPO_FLOAT32)
	{
		uint32_t	u = (uint32_t) r;
		float		f;

		memcpy(&f, &u, 4);
		return f;
	}
	else
	{
		double		d;

		memcpy(&d, &r, 8);
		return d;
	}
}

/* Raw bits of a double as type t (float or double). */
uint64_t
tres_raw_of_dbl(gpo_type t, double d)
{
	uint64_t	r = 0;

	if (t == GPO_FLOAT32)
	{
		float		f = (float) d;
		uint32_t	u;

		memcpy(&u, &f, 4);
		return u;
	}
	memcpy(&r, &d, 8);
	return r;
}

/* Value g of an out array of w-byte entries, as raw bits. */
uint64_t
tres_raw_at(const void *arr, size_t w, int64_t g)
{
	uint64_t	r = 0;

	memcpy(&r, (const char *) arr + g * w, w);
	return r;
}

/* A random strategy that applies to keys of type kt spanning span codes. */
gpo_agg_strategy
tres_rand_strategy(gpo_type kt, uint64_t span)
{
	gpo_agg_strategy s = (gpo_agg_strategy) rng_below(4);

	if (s == GPO_AGG_DENSE &&
		(tres_is_float(kt) || span >= (uint64_t) GPO_AGG_DENSE_MAX_RANGE))
		s = GPO_AGG_AUTO;
	return s;
}
