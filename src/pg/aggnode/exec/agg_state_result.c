/*
 * agg_state_result.c
 *	  The groups of a GpuOpsAgg scan (agg_state.c) as scan tuples: keys and
 *	  each aggregate's result in PostgreSQL's result type (exact numeric
 *	  sums and averages from the 128-bit sums, float sums with their
 *	  non-finite values and overflow checks, variances).
 */
#include "aggnode/gpuops_agg.h"
#include "common/numeric_scaled.h"
#include "heapscan/gpuops_scan.h"

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/numeric.h"

/*
 * A value of the node's physical type as a Datum of typid: as an array
 * element (array.c), except bool, which the node holds as int32.
 */
static Datum
gpuops_aggstate_datum(Oid typid, int32 typmod, gpo_type type, const void *p)
{
	if (typid == BOOLOID)
		return BoolGetDatum(*(const int32 *) p != 0);
	if (typid == BPCHAROID || typid == VARCHAROID)
		return gpuops_scan_short_text_datum(*(const int64 *) p);	/* short text key */
	if (typid == NUMERICOID)
	{
		/* numeric(p, s) held as value * 10^s (numeric_scaled.h) */
		int64		v = *(const int64 *) p;
		gpo_int128	w;

		w.lo = (uint64) v;
		w.hi = v < 0 ? -1 : 0;
		return gpuops_scaled_to_numeric(w, gpuops_numeric_typmod_scale(typmod),
										true);
	}
	return gpuops_value_to_datum(typid, type, p, 0);
}

/*
 * sum or avg of numeric(p, s) values for group g, from the engine's exact
 * sum of the scaled values: NaN when the group holds a NaN (its largest
 * value is the NaN stand-in), else the sum with display scale s, and the
 * average as numeric_avg computes it (numeric_div of that sum by the count).
 */
static Datum
gpuops_aggstate_numeric_sum(const gpo_agg_out *o, int64 g, int32 typmod,
							bool avg)
{
	Datum		sum;
	gpo_int128	nan = {.lo = (uint64) GPUOPS_NUMERIC_NAN,.hi = 0};

	if (((const int64 *) o->max)[g] == GPUOPS_NUMERIC_NAN)
		return gpuops_scaled_to_numeric(nan, 0, true);
	sum = gpuops_scaled_to_numeric(o->isum[g],
								   gpuops_numeric_typmod_scale(typmod), false);
	if (!avg)
		return sum;
	return DirectFunctionCall2(numeric_div, sum,
							   NumericGetDatum(int64_to_numeric(o->count[g])));
}

/* A float value as a double (float4 or float8). */
static double
gpuops_aggstate_double(gpo_type type, const void *p)
{
	return type == GPO_FLOAT32 ? (double) *(const float4 *) p :
		*(const float8 *) p;
}

/*
 * The sum of float values of group g as float4pl or float8pl gives it
 * (gpuops_float_sum: the overflow rule), at float4's range for sum(float4).
 */
static double
gpuops_aggstate_fsum(const gpo_agg_out *o, gpo_type type, int64 g,
					 bool as_float4)
{
	size_t		w = gpo_type_size(type);
	double		mx = gpuops_aggstate_double(type, (const char *) o->max + w * g);

	return gpuops_float_sum(o->fsum[g], o->fflags[g], mx, as_float4);
}

/* Whether value column v needs the engine's m2 (see gpuops_agg.h). */
bool
gpuops_agg_val_m2(const GpuopsAggSpec *spec, int v)
{
	int			a;

	if (v < 0 || v >= spec->nvals ||
		(spec->val_types[v] != FLOAT8OID && spec->val_types[v] != FLOAT4OID))
		return false;
	for (a = 0; a < spec->naggs; a++)
		if (spec->aggs[a].valcol == v &&
			((spec->aggs[a].kind == GPUOPS_AGG_AVG &&
			  spec->val_types[v] == FLOAT8OID) ||
			 GPUOPS_AGG_IS_VARIANCE(spec->aggs[a].kind) ||
			 spec->aggs[a].kind == GPUOPS_AGG_FLOAT_STATE))
			return true;
	return false;
}

/*
 * Whether value column v is read for its NULLs alone: every aggregate of
 * it is a count (of a text column, say, whose values the reader doesn't
 * decode).
 */
bool
gpuops_agg_val_presence(const GpuopsAggSpec *spec, int v)
{
	int			a;

	for (a = 0; a < spec->naggs; a++)
		if ((spec->aggs[a].valcol == v && spec->aggs[a].kind != GPUOPS_AGG_COUNT) ||
			spec->aggs[a].sqcol == v)
			return false;
	return true;
}

/* The result of aggregate agg for group g (count > 0 where it matters). */
static Datum
gpuops_aggstate_result(const GpuopsAggState *st, const GpuopsAggCol *agg,
					   int64 g, bool *isnull)
{
	const gpo_agg_out *o;
	gpo_type	type;
	size_t		w;

	*isnull = false;
	if (agg->kind == GPUOPS_AGG_COUNT_STAR)
		return Int64GetDatum(st->rows[g]);
	/* count(DISTINCT x), min(x), max(x): set as groups fold (agg_distinct.c) */
	if (GPUOPS_AGG_IS_FOLDED(agg->kind))
	{
		*isnull = agg->kind != GPUOPS_AGG_COUNT_DISTINCT;
		return Int64GetDatum(0);
	}
	if (agg->kind == GPUOPS_AGG_FLOAT_STATE)
	{
		o = &st->vals[agg->valcol];
		return gpuops_float_state_text(o->count[g], o->fsum[g], o->fflags[g],
									   o->m2[g]);
	}
	o = &st->vals[agg->valcol];
	type = st->val_types[agg->valcol];
	w = gpo_type_size(type);
	if (agg->kind == GPUOPS_AGG_COUNT)
		return Int64GetDatum(o->count[g]);
	if (o->count[g] == 0)
	{
		*isnull = true;
		return (Datum) 0;
	}
	switch (agg->kind)
	{
		case GPUOPS_AGG_MIN:
			return gpuops_aggstate_datum(agg->argtype, agg->argtypmod, type,
										 (const char *) o->min + w * g);
		case GPUOPS_AGG_MAX:
			return gpuops_aggstate_datum(agg->argtype, agg->argtypmod, type,
										 (const char *) o->max + w * g);
		case GPUOPS_AGG_SUM:
			if (agg->argtype == NUMERICOID)
				return gpuops_aggstate_numeric_sum(o, g, agg->argtypmod, false);
			if (type == GPO_FLOAT32)
				return Float4GetDatum((float4) gpuops_aggstate_fsum(o, type, g, true));
			if (type == GPO_FLOAT64)
				return Float8GetDatum(gpuops_aggstate_fsum(o, type, g, false));
			if (agg->restype == INT8OID)
				return Int64GetDatum((int64) o->isum[g].lo);
			return gpuops_int128_to_numeric(o->isum[g]);
		case GPUOPS_AGG_AVG:
			if (agg->argtype == NUMERICOID)
				return gpuops_aggstate_numeric_sum(o, g, agg->argtypmod, true);
			if (type == GPO_FLOAT32 || type == GPO_FLOAT64)
				return Float8GetDatum(gpuops_float_avg(o->fsum[g], o->fflags[g],
													   o->m2[g], o->count[g]));
			return DirectFunctionCall2(numeric_div,
									   gpuops_int128_to_numeric(o->isum[g]),
									   NumericGetDatum(int64_to_numeric(o->count[g])));
		case GPUOPS_AGG_VAR_POP:
		case GPUOPS_AGG_VAR_SAMP:
		case GPUOPS_AGG_STDDEV_POP:
		case GPUOPS_AGG_STDDEV_SAMP:
			return gpuops_aggstate_variance(st, agg, g, isnull);
		default:
			break;
	}
	elog(ERROR, "GpuOpsAgg: unknown aggregate kind %d", (int) agg->kind);
	return (Datum) 0;
}

/*
 * Key k's value buf (decoded by gpo_code_decode from type) as a Datum: a
 * text key's string from its dictionary, else the value itself.
 */
Datum
gpuops_aggstate_key_value(const GpuopsAggSpec *spec, int k, gpo_type type,
						  const int64 *buf)
{
	if (spec->key_dicts[k] != NULL)
		return gpuops_dict_datum(spec->key_dicts[k], *(const int32 *) buf);
	return gpuops_aggstate_datum(spec->key_types[k], spec->key_typmods[k],
								 type, buf);
}

/* Fill values/isnull of the scan tuple of group g: keys, then aggregates. */
void
gpuops_aggstate_tuple(const GpuopsAggState *st, const GpuopsAggSpec *spec,
					  int64 g, Datum *values, bool *isnull)
{
	int			k;
	int			a;

	for (k = 0; k < st->nkeys; k++)
	{
		int64		buf = 0;

		if (!st->key_valid[k][g])
		{
			values[k] = (Datum) 0;
			isnull[k] = true;
			continue;
		}
		gpo_code_decode(st->key_types[k], st->key_codes[k][g], &buf);
		values[k] = gpuops_aggstate_key_value(spec, k, st->key_types[k], &buf);
		isnull[k] = false;
	}
	for (a = 0; a < spec->naggs; a++)
		values[st->nkeys + a] = gpuops_aggstate_result(st, &spec->aggs[a], g,
													   &isnull[st->nkeys + a]);
}
