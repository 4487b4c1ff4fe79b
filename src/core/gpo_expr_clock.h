/*
 * gpo_expr_clock.h
 *	  PostgreSQL's timestamp constants and the fields of a timestamp (without
 *	  a time zone) that its count of microseconds gives without the calendar
 *	  (hour, minute, microseconds, day of the week; date_trunc below a
 *	  month): the shortcuts gpo_expr_time.h's operators take before
 *	  gpo_x_ts2tm, with the same results.  Shared by the CPU face (C) and
 *	  the GPU face (CUDA), where the shortcuts are off for now.
 */
#ifndef GPO_EXPR_CLOCK_H
#define GPO_EXPR_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "gpo_expr.h"

/* Inline on both faces (the same definition as gpo_agg_codes.h's). */
#ifndef GPO_HD
#ifdef __CUDACC__
#define GPO_HD __host__ __device__ __forceinline__
#else
#define GPO_HD static inline
#endif
#endif

/* PostgreSQL's constants (datatype/timestamp.h, utils/date.h). */
#define GPO_X_EPOCH_JDATE	2451545 /* POSTGRES_EPOCH_JDATE */
#define GPO_X_UNIX_JDATE	2440588 /* UNIX_EPOCH_JDATE */
#define GPO_X_USECS_DAY		INT64_C(86400000000)
#define GPO_X_USECS_HOUR	INT64_C(3600000000)
#define GPO_X_USECS_MIN		INT64_C(60000000)
#define GPO_X_USECS_SEC		INT64_C(1000000)
#define GPO_X_MIN_TS		INT64_C(-211813488000000000)
#define GPO_X_END_TS		INT64_C(9223371331200000000)
#define GPO_X_TS_END_JULIAN 109203528	/* date2j(294277, 1, 1) */
#define GPO_X_DATE_END_JULIAN 2147483494	/* date2j(5874898, 1, 1) */
#define GPO_X_UNIX_EPOCH_TS (-INT64_C(946684800000000))	/* SetEpochTimestamp */

/* A valid timestamp ts down to a multiple of unit microseconds (unit > 0). */
GPO_HD int64_t
gpo_x_floor_to(int64_t ts, int64_t unit)
{
	int64_t		m = ts % unit;

	return ts - (m < 0 ? m + unit : m);
}

/*
 * Whether ts's fields may come from its microseconds: a valid timestamp, on
 * the host (the GPU face keeps the calendar until this has run there).
 */
GPO_HD bool
gpo_x_clock_ok(int64_t ts)
{
#if defined(__CUDA_ARCH__)
	return false;
#else
	return ts >= GPO_X_MIN_TS && ts < GPO_X_END_TS;
#endif
}

/*
 * The fields of ts that its count of microseconds gives without the
 * calendar (a timestamp counts every day as 86,400 s): into *v, true; false
 * for another field or where gpo_x_clock_ok says no, which take
 * gpo_x_ts2tm.  The same values as gpo_x_tm_field's.  2M rows of
 * date_part('dow', ts) on 2 cores spent most of their time in the calendar.
 */
GPO_HD bool
gpo_x_ts_clock_field(int field, int64_t ts, int64_t *v)
{
	int64_t		jd;

	if (!gpo_x_clock_ok(ts))
		return false;
	switch (field)
	{
		case GPO_XF_MICROSECONDS:
			*v = ts - gpo_x_floor_to(ts, GPO_X_USECS_MIN);
			return true;
		case GPO_XF_MINUTE:
			*v = (ts - gpo_x_floor_to(ts, GPO_X_USECS_HOUR)) / GPO_X_USECS_MIN;
			return true;
		case GPO_XF_HOUR:
			*v = (ts - gpo_x_floor_to(ts, GPO_X_USECS_DAY)) / GPO_X_USECS_HOUR;
			return true;
		case GPO_XF_DOW:
		case GPO_XF_ISODOW:
			/* j2day of the Julian day, which is positive here */
			jd = gpo_x_floor_to(ts, GPO_X_USECS_DAY) / GPO_X_USECS_DAY + GPO_X_EPOCH_JDATE;
			*v = (jd + 1) % 7;
			if (field == GPO_XF_ISODOW && *v == 0)
				*v = 7;
			return true;
	}
	return false;
}

/*
 * date_trunc(field, ts) for the fields below a month, where that is a
 * floor to their length: into *r, true; else (or where gpo_x_clock_ok says
 * no) false.
 */
GPO_HD bool
gpo_x_ts_trunc_clock(int field, int64_t ts, int64_t *r)
{
	int64_t		unit;

	if (!gpo_x_clock_ok(ts))
		return false;
	switch (field)
	{
		case GPO_XF_MICROSECONDS:
			unit = 1;
			break;
		case GPO_XF_MILLISECONDS:
			unit = 1000;
			break;
		case GPO_XF_SECOND:
			unit = GPO_X_USECS_SEC;
			break;
		case GPO_XF_MINUTE:
			unit = GPO_X_USECS_MIN;
			break;
		case GPO_XF_HOUR:
			unit = GPO_X_USECS_HOUR;
			break;
		case GPO_XF_DAY:
			unit = GPO_X_USECS_DAY;
			break;
		default:
			return false;
	}
	*r = gpo_x_floor_to(ts, unit);
	return true;
}

#endif							/* GPO_EXPR_CLOCK_H */
