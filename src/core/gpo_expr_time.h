/*
 * gpo_expr_time.h
 *	  The calendar of the expression machine (gpo_expr.h), shared by its CPU
 *	  face (C) and its GPU face (CUDA): PostgreSQL's Julian-day routines
 *	  (date2j, j2date, j2day), timestamp2tm / tm2timestamp without a time
 *	  zone, ISO weeks, and the date/time operators built on them
 *	  (timestamp_part, extract_timestamp, extract_date, timestamp_trunc,
 *	  timestamp_pl_interval), computed as PostgreSQL 15's datetime.c,
 *	  timestamp.c and date.c compute them.  The fields a timestamp's
 *	  microseconds give without the calendar are gpo_expr_clock.h's.
 *
 * PostgreSQL is built with -fwrapv.  Where its int arithmetic can wrap on
 * some input, the sum is formed here in 64 bits and wrapped to 32 with
 * gpo_x_w32, so every input gives PostgreSQL's answer and no arithmetic is
 * undefined on either face.
 */
#ifndef GPO_EXPR_TIME_H
#define GPO_EXPR_TIME_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "gpo_expr.h"
#include "gpo_expr_clock.h"

/* A broken-down timestamp (struct pg_tm's fields that matter, and fsec). */
typedef struct gpo_xtm
{
	int32_t		year;			/* astronomical: 0 is 1 BC */
	int32_t		mon;			/* 1 .. 12 */
	int32_t		mday;
	int32_t		hour;
	int32_t		min;
	int32_t		sec;
	int32_t		fsec;			/* microseconds */
} gpo_xtm;

/* IEEE bits of a double or a float. */
typedef union gpo_xbits
{
	uint64_t	u64;
	double		d;
	uint32_t	u32;
	float		f;
} gpo_xbits;

/* The double whose IEEE bits are b (infinities and the canonical NaN). */
GPO_HD double
gpo_x_double_of(uint64_t b)
{
	gpo_xbits	x;

	x.u64 = b;
	return x.d;
}

/* The float whose IEEE bits are b. */
GPO_HD float
gpo_x_float_of(uint32_t b)
{
	gpo_xbits	x;

	x.u32 = b;
	return x.f;
}

/* x wrapped to 32 bits, as PostgreSQL's int arithmetic under -fwrapv. */
GPO_HD int32_t
gpo_x_w32(int64_t x)
{
	return (int32_t) (uint32_t) (uint64_t) x;
}

/* a + b into *r; true on int64 overflow (pg_add_s64_overflow). */
GPO_HD bool
gpo_x_add64(int64_t a, int64_t b, int64_t *r)
{
	int64_t		x = (int64_t) ((uint64_t) a + (uint64_t) b);

	*r = x;
	return ((a ^ x) & (b ^ x)) < 0;
}

/* a - b into *r; true on int64 overflow (pg_sub_s64_overflow). */
GPO_HD bool
gpo_x_sub64(int64_t a, int64_t b, int64_t *r)
{
	int64_t		x = (int64_t) ((uint64_t) a - (uint64_t) b);

	*r = x;
	return ((a ^ b) & (a ^ x)) < 0;
}

/* a * b into *r; true on int64 overflow (pg_mul_s64_overflow). */
GPO_HD bool
gpo_x_mul64(int64_t a, int64_t b, int64_t *r)
{
	int64_t		x = (int64_t) ((uint64_t) a * (uint64_t) b);

	*r = x;
	if (a >= INT32_MIN && a <= INT32_MAX && b >= INT32_MIN && b <= INT32_MAX)
		return false;
	if (a == 0)
		return false;
	if (a == -1)
		return b == INT64_MIN;
	return x / a != b;
}

/* Julian day of a date (date2j). */
GPO_HD int32_t
gpo_x_date2j(int32_t y, int32_t m, int32_t d)
{
	int64_t		yy = y;
	int64_t		mm = m;
	int64_t		century;
	int64_t		julian;

	if (mm > 2)
	{
		mm += 1;
		yy += 4800;
	}
	else
	{
		mm += 13;
		yy += 4799;
	}
	century = yy / 100;
	julian = yy * 365 - 32167;
	julian += yy / 4 - century + century / 4;
	julian += 7834 * mm / 256 + d;
	return gpo_x_w32(julian);
}

/* Date of a Julian day into tm's year, mon and mday (j2date). */
GPO_HD void
gpo_x_j2date(int32_t jd, gpo_xtm *tm)
{
	uint32_t	julian = (uint32_t) jd;
	uint32_t	quad;
	uint32_t	extra;
	int32_t		y;

	julian += 32044;
	quad = julian / 146097;
	extra = (julian - quad * 146097) * 4 + 3;
	julian += 60 + quad * 3 + extra / 146097;
	quad = julian / 1461;
	julian -= quad * 1461;
	y = (int32_t) (julian * 4 / 1461);
	julian = ((y != 0) ? ((julian + 305) % 365) : ((julian + 306) % 366)) + 123;
	y = (int32_t) ((uint32_t) y + quad * 4);
	tm->year = y - 4800;
	quad = julian * 2141 / 65536;
	tm->mday = (int32_t) (julian - 7834 * quad / 256);
	tm->mon = (int32_t) ((quad + 10) % 12 + 1);
}

/* Day of the week of a Julian day, Sunday = 0 (j2day). */
GPO_HD int32_t
gpo_x_j2day(int32_t jd)
{
	int32_t		d = gpo_x_w32((int64_t) jd + 1) % 7;

	return d < 0 ? d + 7 : d;
}

/* True for a leap year (isleap). */
GPO_HD bool
gpo_x_isleap(int32_t y)
{
	return (y % 4) == 0 && ((y % 100) != 0 || (y % 400) == 0);
}

/* Days of month m of year y (day_tab). */
GPO_HD int32_t
gpo_x_mdays(int32_t y, int32_t m)
{
	if (m == 2)
		return gpo_x_isleap(y) ? 29 : 28;
	return (m == 4 || m == 6 || m == 9 || m == 11) ? 30 : 31;
}

/* True for a timestamp of PostgreSQL's range (IS_VALID_TIMESTAMP). */
GPO_HD bool
gpo_x_valid_ts(int64_t t)
{
	return GPO_X_MIN_TS <= t && t < GPO_X_END_TS;
}

/* True for an infinite timestamp. */
GPO_HD bool
gpo_x_ts_inf(int64_t t)
{
	return t == INT64_MIN || t == INT64_MAX;
}

/* True for an infinite date. */
GPO_HD bool
gpo_x_date_inf(int64_t d)
{
	return d == INT32_MIN || d == INT32_MAX;
}

/*
 * Breaks a timestamp down (timestamp2tm without a time zone); false where
 * PostgreSQL's fails, a Julian day below 0.  *jd gets the Julian day.
 */
GPO_HD bool
gpo_x_ts2tm(int64_t ts, gpo_xtm *tm, int32_t *jd)
{
	int64_t		date = ts / GPO_X_USECS_DAY;
	int64_t		time = ts - date * GPO_X_USECS_DAY;

	if (time < 0)
	{
		time += GPO_X_USECS_DAY;
		date -= 1;
	}
	date += GPO_X_EPOCH_JDATE;
	if (date < 0 || date > INT32_MAX)
		return false;
	*jd = (int32_t) date;
	gpo_x_j2date((int32_t) date, tm);
	tm->hour = (int32_t) (time / GPO_X_USECS_HOUR);
	time -= tm->hour * GPO_X_USECS_HOUR;
	tm->min = (int32_t) (time / GPO_X_USECS_MIN);
	time -= tm->min * GPO_X_USECS_MIN;
	tm->sec = (int32_t) (time / GPO_X_USECS_SEC);
	tm->fsec = (int32_t) (time - tm->sec * GPO_X_USECS_SEC);
	return true;
}

/*
 * Builds a timestamp (tm2timestamp without a time zone); false where
 * PostgreSQL's fails: outside the Julian range, on overflow, or outside
 * the timestamp range.
 */
GPO_HD bool
gpo_x_tm2ts(const gpo_xtm *tm, int64_t *ts)
{
	int64_t		date;
	int64_t		time;
	int64_t		r;
	bool		julian_ok;

	julian_ok = (tm->year > -4713 || (tm->year == -4713 && tm->mon >= 11)) &&
		(tm->year < 5874898 || (tm->year == 5874898 && tm->mon < 6));
	if (!julian_ok)
		return false;
	date = (int64_t) gpo_x_date2j(tm->year, tm->mon, tm->mday) - GPO_X_EPOCH_JDATE;
	time = (((int64_t) tm->hour * 60 + tm->min) * 60 + tm->sec) * GPO_X_USECS_SEC +
		tm->fsec;
	if (gpo_x_mul64(date, GPO_X_USECS_DAY, &r) || gpo_x_add64(r, time, &r))
		return false;
	if (!gpo_x_valid_ts(r))
		return false;
	*ts = r;
	return true;
}

/*
 * ISO week (want_year false, date2isoweek) or ISO year (want_year true,
 * date2isoyear, with year 0 for 1 BC) of a date.
 */
GPO_HD int32_t
gpo_x_isoweek(int32_t year, int32_t mon, int32_t mday, bool want_year)
{
	int32_t		dayn = gpo_x_date2j(year, mon, mday);
	int32_t		day4 = gpo_x_date2j(year, 1, 4);
	int32_t		day0 = gpo_x_j2day(gpo_x_w32((int64_t) day4 - 1));
	int32_t		result;

	if (dayn < gpo_x_w32((int64_t) day4 - day0))
	{
		day4 = gpo_x_date2j(year - 1, 1, 4);
		day0 = gpo_x_j2day(gpo_x_w32((int64_t) day4 - 1));
		year--;
	}
	result = gpo_x_w32((int64_t) dayn - gpo_x_w32((int64_t) day4 - day0)) / 7 + 1;
	if (result >= 52)
	{
		day4 = gpo_x_date2j(year + 1, 1, 4);
		day0 = gpo_x_j2day(gpo_x_w32((int64_t) day4 - 1));
		if (dayn >= gpo_x_w32((int64_t) day4 - day0))
		{
			result = gpo_x_w32((int64_t) dayn - gpo_x_w32((int64_t) day4 - day0)) / 7 + 1;
			year++;
		}
	}
	return want_year ? year : result;
}

/* First Julian day of ISO week week of ISO year year (isoweek2j). */
GPO_HD int32_t
gpo_x_isoweek2j(int32_t year, int32_t week)
{
	int32_t		day4 = gpo_x_date2j(year, 1, 4);
	int32_t		day0 = gpo_x_j2day(gpo_x_w32((int64_t) day4 - 1));

	return gpo_x_w32(((int64_t) week - 1) * 7 + gpo_x_w32((int64_t) day4 - day0));
}

/* True for the fields that grow with time (+-Infinity on infinite input). */
GPO_HD bool
gpo_x_monotonic(int field)
{
	return field == GPO_XF_YEAR || field == GPO_XF_DECADE ||
		field == GPO_XF_CENTURY || field == GPO_XF_MILLENNIUM ||
		field == GPO_XF_JULIAN || field == GPO_XF_ISOYEAR ||
		field == GPO_XF_EPOCH;
}

/*
 * The integer result of field for a broken-down date and time whose Julian
 * day is jd: every field but MILLISECONDS, SECOND, JULIAN and EPOCH, as
 * timestamp_part and extract_date compute them.
 */
GPO_HD int64_t
gpo_x_tm_field(int field, const gpo_xtm *tm, int32_t jd)
{
	int32_t		y = tm->year;
	int64_t		r;

	switch (field)
	{
		case GPO_XF_MICROSECONDS:
			return tm->sec * INT64_C(1000000) + tm->fsec;
		case GPO_XF_MINUTE:
			return tm->min;
		case GPO_XF_HOUR:
			return tm->hour;
		case GPO_XF_DAY:
			return tm->mday;
		case GPO_XF_MONTH:
			return tm->mon;
		case GPO_XF_QUARTER:
			return (tm->mon - 1) / 3 + 1;
		case GPO_XF_WEEK:
			return gpo_x_isoweek(y, tm->mon, tm->mday, false);
		case GPO_XF_YEAR:
			return y > 0 ? y : (int64_t) y - 1;
		case GPO_XF_DECADE:
			return y >= 0 ? y / 10 : -((8 - ((int64_t) y - 1)) / 10);
		case GPO_XF_CENTURY:
			return y > 0 ? ((int64_t) y + 99) / 100 : -((99 - ((int64_t) y - 1)) / 100);
		case GPO_XF_MILLENNIUM:
			return y > 0 ? ((int64_t) y + 999) / 1000 : -((999 - ((int64_t) y - 1)) / 1000);
		case GPO_XF_ISOYEAR:
			r = gpo_x_isoweek(y, tm->mon, tm->mday, true);
			return r <= 0 ? r - 1 : r;
		case GPO_XF_DOW:
		case GPO_XF_ISODOW:
			r = gpo_x_j2day(jd);
			return (field == GPO_XF_ISODOW && r == 0) ? 7 : r;
		case GPO_XF_DOY:
			return gpo_x_w32((int64_t) gpo_x_date2j(y, tm->mon, tm->mday) -
							 gpo_x_date2j(y, 1, 1) + 1);
	}
	return 0;
}

/* date_part(field, ts) into *r or *isnull (timestamp_part); a gpo_xerr. */
GPO_HD int
gpo_x_ts_part(int field, int64_t ts, double *r, bool *isnull)
{
	gpo_xtm		tm;
	int32_t		jd;
	int64_t		clock;

	if (gpo_x_ts_inf(ts))
	{
		if (!gpo_x_monotonic(field))
			*isnull = true;
		else
			*r = gpo_x_double_of(ts < 0 ? UINT64_C(0xfff0000000000000) :
								   UINT64_C(0x7ff0000000000000));
		return GPO_XERR_NONE;
	}
	if (field == GPO_XF_EPOCH)
	{
		if (ts < INT64_MAX + GPO_X_UNIX_EPOCH_TS)
			*r = (double) (ts - GPO_X_UNIX_EPOCH_TS) / 1000000.0;
		else
			*r = ((double) ts - (double) GPO_X_UNIX_EPOCH_TS) / 1000000.0;
		return GPO_XERR_NONE;
	}
	if (gpo_x_ts_clock_field(field, ts, &clock))
	{
		*r = (double) clock;
		return GPO_XERR_NONE;
	}
	if (!gpo_x_ts2tm(ts, &tm, &jd))
		return GPO_XERR_TS_RANGE;
	/* sec * 1000.0 is exact, so a fused multiply-add rounds alike */
	if (field == GPO_XF_MILLISECONDS)
		*r = tm.sec * 1000.0 + tm.fsec / 1000.0;
	else if (field == GPO_XF_SECOND)
		*r = tm.sec + tm.fsec / 1000000.0;
	else if (field == GPO_XF_JULIAN)
		*r = gpo_x_date2j(tm.year, tm.mon, tm.mday) +
			((((tm.hour * 60) + tm.min) * 60) + tm.sec + (tm.fsec / 1000000.0)) /
			86400.0;
	else
		*r = (double) gpo_x_tm_field(field, &tm, jd);
	return GPO_XERR_NONE;
}

/*
 * extract(field FROM ts) as an integer scaled by 10^gpo_expr_extract_scale
 * (extract_timestamp's numeric); a gpo_xerr.
 */
GPO_HD int
gpo_x_ts_extract(int field, int64_t ts, int64_t *r, bool *isnull)
{
	gpo_xtm		tm;
	int32_t		jd;

	if (gpo_x_ts_inf(ts))
	{
		if (gpo_x_monotonic(field))
			return GPO_XERR_UNREPRESENTABLE;
		*isnull = true;
		return GPO_XERR_NONE;
	}
	if (field == GPO_XF_EPOCH)
	{
		/* past int64 the numeric has more digits than the engine holds */
		if (gpo_x_sub64(ts, GPO_X_UNIX_EPOCH_TS, r))
			return GPO_XERR_UNREPRESENTABLE;
		return GPO_XERR_NONE;
	}
	if (field == GPO_XF_MILLISECONDS || field == GPO_XF_SECOND)
		field = GPO_XF_MICROSECONDS;	/* the same digits at scale 3 or 6 */
	if (gpo_x_ts_clock_field(field, ts, r))
		return GPO_XERR_NONE;
	if (!gpo_x_ts2tm(ts, &tm, &jd))
		return GPO_XERR_TS_RANGE;
	*r = gpo_x_tm_field(field, &tm, jd);
	return GPO_XERR_NONE;
}

/* extract(field FROM date) (extract_date); a gpo_xerr. */
GPO_HD int
gpo_x_date_extract(int field, int64_t date, int64_t *r, bool *isnull)
{
	gpo_xtm		tm;
	int32_t		jd;

	if (gpo_x_date_inf(date))
	{
		if (gpo_x_monotonic(field))
			return GPO_XERR_UNREPRESENTABLE;
		*isnull = true;
		return GPO_XERR_NONE;
	}
	if (field == GPO_XF_EPOCH)
	{
		*r = (date + GPO_X_EPOCH_JDATE - GPO_X_UNIX_JDATE) * 86400;
		return GPO_XERR_NONE;
	}
	jd = gpo_x_w32(date + GPO_X_EPOCH_JDATE);
	gpo_x_j2date(jd, &tm);
	*r = gpo_x_tm_field(field, &tm, jd);
	return GPO_XERR_NONE;
}

/* Truncates tm's year to field's (DECADE, CENTURY, MILLENNIUM) first year. */
GPO_HD void
gpo_x_trunc_year(int field, gpo_xtm *tm)
{
	int32_t		y = tm->year;

	if (field == GPO_XF_MILLENNIUM)
		y = y > 0 ? ((y + 999) / 1000) * 1000 - 999 :
			-((999 - (y - 1)) / 1000) * 1000 + 1;
	/* timestamp_trunc falls from MILLENNIUM through CENTURY */
	if (field == GPO_XF_MILLENNIUM || field == GPO_XF_CENTURY)
		y = y > 0 ? ((y + 99) / 100) * 100 - 99 :
			-((99 - (y - 1)) / 100) * 100 + 1;
	if (field == GPO_XF_DECADE)
		y = y > 0 ? (y / 10) * 10 : -((8 - (y - 1)) / 10) * 10;
	tm->year = y;
}

/* date_trunc(field, ts) (timestamp_trunc); a gpo_xerr. */
GPO_HD int
gpo_x_ts_trunc(int field, int64_t ts, int64_t *r)
{
	gpo_xtm		tm;
	int32_t		jd;
	int32_t		woy;

	if (gpo_x_ts_inf(ts))
	{
		*r = ts;
		return GPO_XERR_NONE;
	}
	if (gpo_x_ts_trunc_clock(field, ts, r))
		return GPO_XERR_NONE;
	if (!gpo_x_ts2tm(ts, &tm, &jd))
		return GPO_XERR_TS_RANGE;
	if (field == GPO_XF_WEEK)
	{
		woy = gpo_x_isoweek(tm.year, tm.mon, tm.mday, false);
		if (woy >= 52 && tm.mon == 1)
			tm.year--;
		if (woy <= 1 && tm.mon == 12)
			tm.year++;
		gpo_x_j2date(gpo_x_isoweek2j(tm.year, woy), &tm);
		tm.hour = tm.min = tm.sec = tm.fsec = 0;
	}
	else if (field == GPO_XF_MILLISECONDS)
		tm.fsec = (tm.fsec / 1000) * 1000;
	else if (field != GPO_XF_MICROSECONDS)
	{
		/* the fall-through chain from the field down to SECOND */
		gpo_x_trunc_year(field, &tm);
		if (field >= GPO_XF_YEAR)
			tm.mon = 1;
		if (field >= GPO_XF_QUARTER)
			tm.mon = (3 * ((tm.mon - 1) / 3)) + 1;
		if (field >= GPO_XF_MONTH)
			tm.mday = 1;
		if (field >= GPO_XF_DAY)
			tm.hour = 0;
		if (field >= GPO_XF_HOUR)
			tm.min = 0;
		if (field >= GPO_XF_MINUTE)
			tm.sec = 0;
		tm.fsec = 0;
	}
	if (!gpo_x_tm2ts(&tm, r))
		return GPO_XERR_TS_RANGE;
	return GPO_XERR_NONE;
}

/* Adds months to tm with the end-of-month clamp (timestamp_pl_interval). */
GPO_HD void
gpo_x_add_months(gpo_xtm *tm, int32_t months)
{
	tm->mon = gpo_x_w32((int64_t) tm->mon + months);
	if (tm->mon > 12)
	{
		tm->year += (tm->mon - 1) / 12;
		tm->mon = ((tm->mon - 1) % 12) + 1;
	}
	else if (tm->mon < 1)
	{
		tm->year += tm->mon / 12 - 1;
		tm->mon = tm->mon % 12 + 12;
	}
	if (tm->mday > gpo_x_mdays(tm->year, tm->mon))
		tm->mday = gpo_x_mdays(tm->year, tm->mon);
}

/*
 * ts + interval (months, days, usecs) as timestamp_pl_interval: months,
 * then days, then microseconds; infinities unchanged; a gpo_xerr.
 */
GPO_HD int
gpo_x_ts_pl_interval(int64_t ts, int32_t months, int32_t days, int64_t usecs,
					 int64_t *r)
{
	gpo_xtm		tm;
	int32_t		jd;

	if (gpo_x_ts_inf(ts))
	{
		*r = ts;
		return GPO_XERR_NONE;
	}
	if (months != 0)
	{
		if (!gpo_x_ts2tm(ts, &tm, &jd))
			return GPO_XERR_TS_RANGE;
		gpo_x_add_months(&tm, months);
		if (!gpo_x_tm2ts(&tm, &ts))
			return GPO_XERR_TS_RANGE;
	}
	if (days != 0)
	{
		if (!gpo_x_ts2tm(ts, &tm, &jd))
			return GPO_XERR_TS_RANGE;
		jd = gpo_x_w32((int64_t) gpo_x_date2j(tm.year, tm.mon, tm.mday) + days);
		gpo_x_j2date(jd, &tm);
		if (!gpo_x_tm2ts(&tm, &ts))
			return GPO_XERR_TS_RANGE;
	}
	ts = (int64_t) ((uint64_t) ts + (uint64_t) usecs);
	if (!gpo_x_valid_ts(ts))
		return GPO_XERR_TS_RANGE;
	*r = ts;
	return GPO_XERR_NONE;
}

#endif							/* GPO_EXPR_TIME_H */
