/*
 * gpo_agg_internal.h
 *	  Pieces shared by the aggregation primitives' CPU faces and their
 *	  dispatchers: the per-group accumulator, result stores, the face choice
 *	  and the radix sort core.
 *
 * Plain C11; never includes postgres.h or CUDA headers.
 */
#ifndef GPO_AGG_INTERNAL_H
#define GPO_AGG_INTERNAL_H

#include "gpo_agg.h"
#include "gpo_agg_codes.h"
#include "gpo_internal.h"

/* One group's (or one partial group's) running aggregates. */
typedef struct gpo_acc
{
	int64_t		rows;			/* count(*) */
	int64_t		count;			/* non-NULL values */
	__int128	isum;			/* exact integer sum */
	double		fsum;			/* float sum */
	uint64_t	mn;				/* smallest value code (UINT64_MAX: none) */
	uint64_t	mx;				/* largest value code (0: none) */
	double		m2;				/* float values, when kept: the sum of squared
								 * deviations from the mean */
	uint32_t	fflags;			/* GPO_FF_* of the non-finite values */
} gpo_acc;

/* An empty accumulator. */
static inline void
gpo_acc_init(gpo_acc *a)
{
	a->rows = 0;
	a->count = 0;
	a->isum = 0;
	a->fsum = 0.0;
	a->mn = UINT64_MAX;
	a->mx = 0;
	a->m2 = 0.0;
	a->fflags = 0;
}

/*
 * Adds one row (vt: value type; valid: value not NULL; raw: its bits).
 * Float values: finite ones go into fsum (and, with m2, into m2 by
 * float8_accum's Youngs-Cramer update over count values and their sum, so
 * that one accumulator fed in PostgreSQL's row order rounds as PostgreSQL
 * does; meaningful while every value is finite, the only case where m2 is
 * reported), others set fflags.
 */
static inline void
gpo_acc_add(gpo_acc *a, gpo_type vt, bool has_values, bool valid, uint64_t raw,
			bool m2)
{
	uint64_t	code;

	a->rows++;
	if (!has_values || !valid)
		return;
	a->count++;
	if (gpo_type_is_int(vt))
		a->isum += gpo_int_of_raw(vt, raw);
	else if (gpo_raw_is_finite(vt, raw))
	{
		double		x = gpo_double_of_raw(vt, raw);

		a->fsum += x;
		if (m2 && a->count > 1)
		{
			double		n = (double) a->count;
			double		tmp = x * n - a->fsum;

			a->m2 += tmp * tmp / (n * (n - 1.0));
		}
	}
	else
		a->fflags |= gpo_raw_fflag(vt, raw);
	code = gpo_code_of_raw(vt, raw, 0);
	if (code < a->mn)
		a->mn = code;
	if (code > a->mx)
		a->mx = code;
}

/* Folds b into a. */
static inline void
gpo_acc_merge(gpo_acc *a, const gpo_acc *b)
{
	/* m2 by Chan's formula, the means from the sums */
	if (b->count > 0)
		a->m2 = gpo_m2_merged(a->m2, a->fsum, a->count, b->m2, b->fsum,
							  b->count);
	a->fflags |= b->fflags;
	a->rows += b->rows;
	a->count += b->count;
	a->isum += b->isum;
	a->fsum += b->fsum;
	if (b->mn < a->mn)
		a->mn = b->mn;
	if (b->mx > a->mx)
		a->mx = b->mx;
}

/* Writes accumulator a as entry g of out (vt: value type; see gpo_agg_out). */
extern void gpo_acc_store(gpo_agg_out *out, int64_t g, const gpo_acc *a,
						  gpo_type vt, bool has_values);
/* Writes key code (key type kt) or the NULL key as entry g of out. */
extern void gpo_key_store(gpo_agg_out *out, int64_t g, gpo_type kt,
						  bool valid, uint64_t code);

/* ---- argument checks (agg_common.c) ---- */

/* True for a key type of sort and group aggregation. */
extern bool gpo_agg_key_type_ok(gpo_type t);
/* True for a value type of the aggregates. */
extern bool gpo_agg_value_type_ok(gpo_type t);
/*
 * Checks grouping keys and their values (NULL: none): well-formed vectors
 * of supported types, as many values as keys; ctx->detail says what is wrong.
 */
extern gpo_status gpo_agg_check_inputs(gpo_ctx *ctx, const gpo_vector *keys,
									   const gpo_vector *values);

/* ---- key statistics (groupagg.c) ---- */

/*
 * The least and greatest of the valid values d[i] for i in lo .. hi - 1
 * (valid: the chunk's validity bits, NULL: all valid) folded into *rmn and
 * *rmx; returns their count.
 */
extern int64_t gpo_minmax_valid_i32(const int32_t *d, const uint8_t *valid,
									int64_t lo, int64_t hi, int64_t *rmn,
									int64_t *rmx);
extern int64_t gpo_minmax_valid_i64(const int64_t *d, const uint8_t *valid,
									int64_t lo, int64_t hi, int64_t *rmn,
									int64_t *rmx);

/* ---- radix sort core (sort.c) ---- */

/*
 * Sorts n (code, row) pairs by code, stably, with 8-bit LSD passes over the
 * bits [begin_bit, end_bit) only, skipping passes whose digit every key
 * shares.  Uses tmp_codes/tmp_rows (n each) as the second buffer; the
 * result ends in codes/rows.  hist holds nthreads * 256 entries.
 */
extern void gpo_radix_sort_codes(uint64_t *codes, int64_t *rows,
								 uint64_t *tmp_codes, int64_t *tmp_rows,
								 int64_t n, int begin_bit, int end_bit,
								 int nthreads, int64_t *hist);
/*
 * gpo_radix_sort_codes over only the bits in which the n codes vary, the
 * smallest code subtracted first when that saves a pass (codes restored).
 */
extern void gpo_radix_sort_varying(uint64_t *codes, int64_t *rows,
								   uint64_t *tmp_codes, int64_t *tmp_rows,
								   int64_t n, int nthreads, int64_t *hist);

/*
 * Fills codes[0 .. nvalid) with the key codes of keys' non-NULL rows and
 * rows with their logical rows (in order), then the NULL rows' numbers in
 * rows[nvalid .. n) (codes there set to 0).  Returns nvalid.
 */
extern int64_t gpo_keys_to_codes(const gpo_vector *keys, uint64_t *codes,
								 int64_t *rows, int nthreads);

/* ---- segmented reduction core (segreduce.c) ---- */

/*
 * Reduces rows [off[0], off[nsegs]) of values into nsegs segments and
 * stores every segment's results in out: the values are row r of the one
 * chunk ch when it is given, else raw holds their bits (NULL with ch NULL:
 * no values) and valid their validity bytes (NULL: all valid).
 */
extern gpo_status gpo_segreduce_rows(gpo_type vt, const uint64_t *raw,
									 const uint8_t *valid, const gpo_chunk *ch,
									 const int64_t *off, int64_t nsegs,
									 gpo_agg_out *out, int nthreads);

#endif							/* GPO_AGG_INTERNAL_H */
