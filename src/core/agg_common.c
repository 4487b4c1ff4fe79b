/*
 * agg_common.c
 *	  Shared parts of the aggregation primitives: order codes, result
 *	  stores, the strategy chooser, and the dispatchers' face choice.
 *
 * The face-choice helpers follow dispatch.c's rules exactly (device CPU /
 * GPU / AUTO with gpu_min_rows; AUTO falls back to the CPU on device
 * errors); dispatch.c keeps its own copies static.
 */
#include <string.h>

#include "gpo_agg_internal.h"

/* Key order code of the value at p. */
uint64_t
gpo_key_code(gpo_type type, const void *p)
{
	return gpo_code_of_raw(type, gpo_raw_at(type, p, 0), 1);
}

/* Value order code (min/max) of the value at p. */
uint64_t
gpo_value_code(gpo_type type, const void *p)
{
	return gpo_code_of_raw(type, gpo_raw_at(type, p, 0), 0);
}

/* Writes the value of type whose code is code into *p. */
void
gpo_code_decode(gpo_type type, uint64_t code, void *p)
{
	uint64_t	raw = gpo_raw_of_code(type, code);

	if (type == GPO_INT64 || type == GPO_FLOAT64)
		memcpy(p, &raw, 8);
	else
	{
		uint32_t	r32 = (uint32_t) raw;

		memcpy(p, &r32, 4);
	}
}

/* The m2 of two sets together (see gpo_agg.h). */
double
gpo_m2_merged(double m2_a, double sum_a, int64_t n_a, double m2_b,
			  double sum_b, int64_t n_b)
{
	double		mean_a;

	if (n_b <= 0)
		return m2_a;
	if (n_a <= 0)
		return m2_b;
	mean_a = sum_a / (double) n_a;
	gpo_m2_combine(&m2_a, &mean_a, (double) n_a, m2_b, sum_b / (double) n_b,
				   (double) n_b);
	return m2_a;
}

/* Writes accumulator a as entry g of out. */
void
gpo_acc_store(gpo_agg_out *out, int64_t g, const gpo_acc *a, gpo_type vt,
			  bool has_values)
{
	bool		any = has_values && a->count > 0;
	size_t		vsize = has_values ? gpo_type_size(vt) : 0;

	if (out->rows)
		out->rows[g] = a->rows;
	if (out->count)
		out->count[g] = has_values ? a->count : 0;
	if (out->isum)
	{
		__int128	s = (any && gpo_type_is_int(vt)) ? a->isum : 0;

		out->isum[g].lo = (uint64_t) s;
		out->isum[g].hi = (int64_t) (s >> 64);
	}
	if (out->fsum)
	{
		if (!any)
			out->fsum[g] = 0.0;
		else if (gpo_type_is_int(vt))
			out->fsum[g] = (double) a->isum;
		else
			out->fsum[g] = a->fsum;
	}
	if (out->fflags)
		out->fflags[g] = any && !gpo_type_is_int(vt) ? (uint8_t) a->fflags : 0;
	if (out->m2)
	{
		if (!any || gpo_type_is_int(vt))
			out->m2[g] = 0.0;
		else
			out->m2[g] = a->fflags ? __builtin_nan("") : a->m2;
	}
	if (out->min && vsize > 0)
	{
		char	   *dst = (char *) out->min + g * vsize;

		if (any)
			gpo_code_decode(vt, a->mn, dst);
		else
			memset(dst, 0, vsize);
	}
	if (out->max && vsize > 0)
	{
		char	   *dst = (char *) out->max + g * vsize;

		if (any)
			gpo_code_decode(vt, a->mx, dst);
		else
			memset(dst, 0, vsize);
	}
}

/* Writes key code (or the NULL key) as entry g of out. */
void
gpo_key_store(gpo_agg_out *out, int64_t g, gpo_type kt, bool valid,
			  uint64_t code)
{
	size_t		ksize = gpo_type_size(kt);

	if (out->keys)
	{
		char	   *dst = (char *) out->keys + g * ksize;

		if (valid)
			gpo_code_decode(kt, code, dst);
		else
			memset(dst, 0, ksize);
	}
	if (out->key_valid)
		out->key_valid[g] = valid ? 1 : 0;
}

/* True for a key type of sort and group aggregation. */
bool
gpo_agg_key_type_ok(gpo_type t)
{
	return t == GPO_INT32 || t == GPO_UINT32 || t == GPO_INT64 ||
		t == GPO_FLOAT32 || t == GPO_FLOAT64;
}

/* True for a value type of the aggregates. */
bool
gpo_agg_value_type_ok(gpo_type t)
{
	return t == GPO_INT32 || t == GPO_INT64 || t == GPO_FLOAT32 ||
		t == GPO_FLOAT64;
}

/* Checks grouping keys and their values (NULL: none) as arguments (see gpo_agg_internal.h). */
gpo_status
gpo_agg_check_inputs(gpo_ctx *ctx, const gpo_vector *keys,
					 const gpo_vector *values)
{
	gpo_status	st;

	if ((st = gpo_check_vector(ctx, keys, "keys")) != GPO_OK)
		return st;
	if (!gpo_agg_key_type_ok(keys->type))
	{
		gpo_set_detail(ctx, "group keys of type %s are not supported",
					   gpo_type_name(keys->type));
		return GPO_ERR_INVALID;
	}
	if (values == NULL)
		return GPO_OK;
	if ((st = gpo_check_vector(ctx, values, "values")) != GPO_OK)
		return st;
	if (!gpo_agg_value_type_ok(values->type))
	{
		gpo_set_detail(ctx, "values of type %s are not supported",
					   gpo_type_name(values->type));
		return GPO_ERR_INVALID;
	}
	if (gpo_vector_rows(values) != gpo_vector_rows(keys))
	{
		gpo_set_detail(ctx, "keys and values differ in rows");
		return GPO_ERR_INVALID;
	}
	return GPO_OK;
}

/*
 * Whether keys spanning span + 1 codes are too sparse for the dense
 * strategy: the estimated groups fill less than a sixteenth of the span
 * and the rows are fewer than four a code.  Its arrays (a thread's, zeroed
 * and merged) cost by the span where a hash table costs by the groups: on 2
 * cores, 60,000 rows of 3,033 keys spread over 0..99,999 took 3.0 ms dense
 * against 2.1 ms hashed, and 15 ms against 8.9 ms in a new session, whose
 * first touch of each page of the arrays faults.  Many rows a code (a large
 * batch) repay the arrays.
 */
static bool
gpo_agg_sparse(uint64_t span, int64_t nvalid, int64_t est_groups)
{
	return est_groups > 0 &&
		span >= 16 * (uint64_t) est_groups + 4096 &&
		span >= (uint64_t) nvalid / 4;
}

/* The chooser (see gpo_agg.h). */
gpo_agg_strategy
gpo_agg_choose(gpo_type key_type, int64_t nvalid, uint64_t min_code,
			   uint64_t max_code, int64_t est_groups)
{
	uint64_t	span = max_code - min_code;		/* range - 1 */
	int64_t		bound;

	if (nvalid <= 0)
		return GPO_AGG_SORT;
	if (gpo_type_is_int(key_type) && span < (uint64_t) GPO_AGG_DENSE_MAX_RANGE &&
		(int64_t) span < 2 * nvalid + 65536 &&
		!gpo_agg_sparse(span, nvalid, est_groups))
		return GPO_AGG_DENSE;
	bound = nvalid;
	if (gpo_type_is_int(key_type) && span < (uint64_t) bound)
		bound = (int64_t) span + 1;
	if (est_groups > 0 && est_groups < bound)
		bound = est_groups;
	return bound <= GPO_AGG_HASH_MAX_GROUPS ? GPO_AGG_HASH : GPO_AGG_SORT;
}

/* Name of a strategy. */
const char *
gpo_agg_strategy_name(gpo_agg_strategy s)
{
	switch (s)
	{
		case GPO_AGG_AUTO:
			return "auto";
		case GPO_AGG_DENSE:
			return "dense";
		case GPO_AGG_HASH:
			return "hash";
		case GPO_AGG_SORT:
			return "sort";
	}
	return "?";
}




