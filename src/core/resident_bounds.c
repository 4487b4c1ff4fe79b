/*
 * resident_bounds.c
 *	  The bounds of a kept set's integer columns: found once where the data
 *	  is kept (a put, or the caller's own store for a view) and told to the
 *	  set, so that a dense aggregation need not read its key column for the
 *	  key range at every call.  On 2 cores that pass was a third of a cached
 *	  10M-row, 1,000-group aggregation.
 */
#include "gpo_agg_internal.h"
#include "gpo_resident_internal.h"

/* The bounds of an integer column's valid values (see gpo_resident.h). */
bool
gpo_int_bounds(const gpo_vector *col, int64_t *lo, int64_t *hi)
{
	int64_t		mn = INT64_MAX,
				mx = INT64_MIN,
				nv = 0;

	if (col == NULL || (col->type != GPO_INT32 && col->type != GPO_INT64))
		return false;
	for (int32_t k = 0; k < col->nchunks; k++)
	{
		const gpo_chunk *ch = &col->chunks[k];

		nv += col->type == GPO_INT32 ?
			gpo_minmax_valid_i32((const int32_t *) ch->data, ch->validity, 0,
								 ch->n, &mn, &mx) :
			gpo_minmax_valid_i64((const int64_t *) ch->data, ch->validity, 0,
								 ch->n, &mn, &mx);
	}
	if (nv == 0)
		return false;
	*lo = mn;
	*hi = mx;
	return true;
}

/* Tells a set the bounds of a column (see gpo_resident.h). */
gpo_status
gpo_resident_set_bounds(gpo_resident *set, int c, int64_t lo, int64_t hi)
{
	if (set == NULL || c < 0 || c >= set->ncols ||
		(set->cols[c].type != GPO_INT32 && set->cols[c].type != GPO_INT64))
		return GPO_ERR_INVALID;
	set->cols[c].bounded = true;
	set->cols[c].lo = lo;
	set->cols[c].hi = hi;
	return GPO_OK;
}

/* Keeps the bounds of set column c found over v, its rows (lo > hi: none valid). */
static void
keep_bounds(gpo_resident *set, int c, const gpo_vector *v)
{
	int64_t		lo = INT64_MAX,
				hi = INT64_MIN;

	if (v->type != GPO_INT32 && v->type != GPO_INT64)
		return;
	if (!gpo_int_bounds(v, &lo, &hi))
	{
		lo = INT64_MAX;
		hi = INT64_MIN;
	}
	gpo_resident_set_bounds(set, c, lo, hi);
}

/* A kept column's bounds, from its own values (see gpo_resident_internal.h). */
void
gpo_resident_find_bounds(gpo_resident *set, int c)
{
	gpo_resident_col *rc = &set->cols[c];
	gpo_chunk	ch = {rc->data, rc->valid, set->rows};
	gpo_vector	v = {rc->type, 1, &ch};

	keep_bounds(set, c, &v);
}

/* Keeps the bounds of set's integer columns from cols (see gpo_resident_internal.h). */
void
gpo_resident_bounds_of(gpo_resident *set, const gpo_vector *cols)
{
	for (int c = 0; c < set->ncols; c++)
		keep_bounds(set, c, &cols[c]);
}
