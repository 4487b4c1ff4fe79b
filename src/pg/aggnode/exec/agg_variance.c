/*
 * agg_variance.c
 *	  The results of var_pop, var_samp (variance), stddev_pop and
 *	  stddev_samp (stddev) from a group's engine results, as PostgreSQL's
 *	  final functions give them.
 *
 * Floats (float8 result): PostgreSQL keeps N, Sx and Sxx, the sum of
 * squared deviations from the mean (Youngs-Cramer); the engine's m2 is the
 * same quantity, by the same update on the CPU face, so the result is
 * Sxx / N or Sxx / (N - 1), and its square root.  Where rows are split
 * among threads, batches or workers (Chan's combination) or added on the
 * GPU (two passes), it equals PostgreSQL's up to rounding, as PostgreSQL's
 * own parallel plans do.  Any infinite or NaN value makes Sxx NaN; overflows raise as
 * gpuops_float_avg says.
 *
 * int2/int4 (numeric result): the exact sums of the values and of their
 * squares (a second value column, agg_spec.c) go through the arithmetic of
 * numeric_stddev_internal: N * sumX2 - sumX * sumX over N * (N - 1) or
 * N * N, divided at select_div_scale's scale by numeric_div, and the
 * square root correctly rounded at that same scale.  The results are
 * PostgreSQL's to the last digit.
 *
 * Citus's worker_partial_agg of such a float aggregate gives the state
 * itself, {N, Sx, Sxx}, as text, for the coordinator to combine.
 */
#include "aggnode/gpuops_agg.h"
#include "common/gpuops.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/float.h"
#include "utils/numeric.h"

/* True for the sample (N - 1) kinds. */
static bool
gpuops_variance_sample(GpuopsAggKind kind)
{
	return kind == GPUOPS_AGG_VAR_SAMP || kind == GPUOPS_AGG_STDDEV_SAMP;
}

/* True for the standard deviation kinds. */
static bool
gpuops_variance_root(GpuopsAggKind kind)
{
	return kind == GPUOPS_AGG_STDDEV_POP || kind == GPUOPS_AGG_STDDEV_SAMP;
}

/* The float8 result of kind from N, the finite values' sum, fflags and m2. */
static Datum
gpuops_float_variance(GpuopsAggKind kind, int64 n, float8 fsum, uint8 fflags,
					  float8 m2, bool *isnull)
{
	float8		sxx;
	float8		v;

	/* the accumulation's overflow errors come before any NULL result */
	(void) gpuops_float_avg(fsum, fflags, m2, n);
	if (gpuops_variance_sample(kind) && n <= 1)
	{
		*isnull = true;
		return (Datum) 0;
	}
	sxx = fflags != 0 ? get_float8_nan() : m2;
	v = sxx / (gpuops_variance_sample(kind) ? (float8) n - 1.0 : (float8) n);
	return Float8GetDatum(gpuops_variance_root(kind) ? sqrt(v) : v);
}

/*
 * float8_accum's state {N, Sx, Sxx} of a group (n values, none: the
 * initial {0,0,0}) as the text worker_partial_agg_ffunc gives: the
 * float8[]'s output function over it.  The accumulation's overflow errors
 * come first.
 */
Datum
gpuops_float_state_text(int64 n, float8 fsum, uint8 fflags, float8 m2)
{
	Datum		d[3];
	ArrayType  *arr;

	d[0] = Float8GetDatum((float8) n);
	d[1] = Float8GetDatum(n > 0 ? gpuops_float_accum_sum(fsum, fflags, m2) : 0.0);
	d[2] = Float8GetDatum(n == 0 ? 0.0 : fflags != 0 ? get_float8_nan() : m2);
	arr = construct_array(d, 3, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL,
						  TYPALIGN_DOUBLE);
	return CStringGetDatum(OidOutputFunctionCall(F_ARRAY_OUT,
												 PointerGetDatum(arr)));
}

/* A numeric from its text form (constants). */
static Numeric
gpuops_numeric_of(const char *text)
{
	return DatumGetNumeric(DirectFunctionCall3(numeric_in,
											   CStringGetDatum(text),
											   ObjectIdGetDatum(InvalidOid),
											   Int32GetDatum(-1)));
}

/* Shorthands for numeric arithmetic. */
#define NUM_ADD(a, b) DatumGetNumeric(DirectFunctionCall2(numeric_add, \
	NumericGetDatum(a), NumericGetDatum(b)))
#define NUM_SUB(a, b) DatumGetNumeric(DirectFunctionCall2(numeric_sub, \
	NumericGetDatum(a), NumericGetDatum(b)))
#define NUM_MUL(a, b) DatumGetNumeric(DirectFunctionCall2(numeric_mul, \
	NumericGetDatum(a), NumericGetDatum(b)))
#define NUM_CMP(a, b) DatumGetInt32(DirectFunctionCall2(numeric_cmp, \
	NumericGetDatum(a), NumericGetDatum(b)))

/*
 * The square root of v >= 0 correctly rounded (half up) at v's display
 * scale r, with scale r, as sqrt_var(v, rscale = r) gives it: the integer
 * square root of X = v * 10^2r, found from numeric_sqrt's approximation
 * and corrected exactly, rounded, and scaled back by 10^-r.
 */
static Numeric
gpuops_numeric_sqrt_at_scale(Numeric v)
{
	int32		r = DatumGetInt32(DirectFunctionCall1(numeric_scale,
													  NumericGetDatum(v)));
	char		buf[32];
	Numeric		one = int64_to_numeric(1);
	Numeric		x;
	Numeric		i;

	snprintf(buf, sizeof(buf), "1e%d", 2 * r);
	x = DatumGetNumeric(DirectFunctionCall2(numeric_trunc,
											NumericGetDatum(NUM_MUL(v, gpuops_numeric_of(buf))),
											Int32GetDatum(0)));
	i = DatumGetNumeric(DirectFunctionCall1(numeric_floor,
											DirectFunctionCall1(numeric_sqrt,
																NumericGetDatum(x))));
	/* floor(sqrt(X)) exactly: i * i <= X < (i + 1) * (i + 1) */
	while (NUM_CMP(NUM_MUL(i, i), x) > 0)
		i = NUM_SUB(i, one);
	while (NUM_CMP(NUM_MUL(NUM_ADD(i, one), NUM_ADD(i, one)), x) <= 0)
		i = NUM_ADD(i, one);
	/* round half up: sqrt(X) >= i + 1/2 exactly when X > i * i + i */
	if (NUM_CMP(x, NUM_ADD(NUM_MUL(i, i), i)) > 0)
		i = NUM_ADD(i, one);
	snprintf(buf, sizeof(buf), "1e%d", -r);
	return NUM_MUL(i, gpuops_numeric_of(buf));
}

/* The numeric result of kind from N and the exact sums of x and x * x. */
static Datum
gpuops_int_variance(GpuopsAggKind kind, int64 n, gpo_int128 sum,
					gpo_int128 sum2, bool *isnull)
{
	Numeric		vn;
	Numeric		vsum;
	Numeric		num;
	Numeric		den;
	Numeric		var;

	if (gpuops_variance_sample(kind) && n <= 1)
	{
		*isnull = true;
		return (Datum) 0;
	}
	vn = int64_to_numeric(n);
	vsum = DatumGetNumeric(gpuops_int128_to_numeric(sum));
	num = NUM_SUB(NUM_MUL(vn, DatumGetNumeric(gpuops_int128_to_numeric(sum2))),
				  NUM_MUL(vsum, vsum));
	/* no spread: numeric_stddev_internal's zero, of scale 0 */
	if (NUM_CMP(num, int64_to_numeric(0)) <= 0)
		return NumericGetDatum(int64_to_numeric(0));
	den = gpuops_variance_sample(kind) ?
		NUM_MUL(vn, int64_to_numeric(n - 1)) : NUM_MUL(vn, vn);
	var = DatumGetNumeric(DirectFunctionCall2(numeric_div, NumericGetDatum(num),
											  NumericGetDatum(den)));
	if (gpuops_variance_root(kind))
		var = gpuops_numeric_sqrt_at_scale(var);
	return NumericGetDatum(var);
}

/*
 * The variance or standard deviation agg of group g (some value counted):
 * from value column valcol's count, sums and m2, and for an integer
 * argument the sum of column sqcol (the squares).
 */
Datum
gpuops_aggstate_variance(const GpuopsAggState *st, const GpuopsAggCol *agg,
						 int64 g, bool *isnull)
{
	const gpo_agg_out *o = &st->vals[agg->valcol];

	*isnull = false;
	if (agg->sqcol < 0)
		return gpuops_float_variance(agg->kind, o->count[g], o->fsum[g],
									 o->fflags[g], o->m2[g], isnull);
	return gpuops_int_variance(agg->kind, o->count[g], o->isum[g],
							   st->vals[agg->sqcol].isum[g], isnull);
}
