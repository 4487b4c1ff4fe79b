-- Custom Scan (GpuOpsAgg): grouping keys, aggregate arguments and FILTER
-- clauses that are expressions over the table's columns (arithmetic over
-- every integer and float width and their mixes, comparisons, AND / OR /
-- NOT, IS [NOT] NULL / TRUE / FALSE, CASE, COALESCE, NULLIF, casts, date and
-- timestamp arithmetic with constant intervals, date_part and date_trunc),
-- each checked against PostgreSQL's own answer: NULLs, NaN, infinities,
-- -0, integer extremes, dates before the common era and fractional seconds
-- included.  Errors are PostgreSQL's (SQLSTATE and message), raised by the
-- row PostgreSQL would raise them for, and never for rows that WHERE or
-- FILTER removes, CASE branches not taken or the right side of an AND / OR
-- that is already decided.  Expressions the node cannot run keep the native
-- plan.  Every float value is a small dyadic fraction or a special value,
-- and floats that are not (quotients, epochs, seconds) are only grouped on
-- or compared, so no summation order changes an answer.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql

\i :abs_srcdir/sql/include/check_error.psql

-- x2, x4, x8: ordinary integers (zeros, negatives, NULLs); e2, e4, e8: small
-- integers but each width's extremes in a few rows; f4, f8: dyadic floats,
-- zeros, -0, NaN, +-Infinity, NULLs; g8: finite dyadic floats (.5 steps for
-- rounding casts); d, ts: a few years around 2000, +-infinity, dates and
-- times before the common era, a leap day of year 0, fractional seconds
CREATE TABLE agg_ex (i int4, x2 int2, x4 int4, x8 int8, e2 int2, e4 int4, e8 int8,
                     f4 float4, f8 float8, g8 float8, b bool, d date, ts timestamp,
                     tz timestamptz, t text);
INSERT INTO agg_ex
SELECT i,
       CASE WHEN i % 29 = 0 THEN NULL ELSE i % 201 - 100 END,
       CASE WHEN i % 31 = 0 THEN NULL ELSE i % 2001 - 1000 END,
       CASE WHEN i % 37 = 0 THEN NULL ELSE (i % 5001 - 2500)::int8 * 100003 END,
       CASE WHEN i % 41 = 0 THEN NULL WHEN i % 1009 = 0 THEN 32767
            WHEN i % 1013 = 0 THEN -32768 ELSE i % 7 - 3 END,
       CASE WHEN i % 43 = 0 THEN NULL WHEN i % 1019 = 0 THEN 2147483647
            WHEN i % 1021 = 0 THEN -2147483648 ELSE i % 11 - 5 END,
       CASE WHEN i % 47 = 0 THEN NULL WHEN i % 1031 = 0 THEN 9223372036854775807
            WHEN i % 1033 = 0 THEN -9223372036854775808
            ELSE (i % 13 - 6) * 1000000000000 END,
       CASE i % 53 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN 'Infinity'
            WHEN 3 THEN '-Infinity' WHEN 4 THEN '-0' ELSE (i % 83 - 41) / 8.0 END,
       CASE i % 59 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN 'Infinity'
            WHEN 3 THEN '-Infinity' WHEN 4 THEN '-0' ELSE (i % 97 - 48) / 4.0 END,
       CASE WHEN i % 61 = 0 THEN NULL ELSE (i % 1001 - 500) / 16.0 END,
       CASE i % 5 WHEN 0 THEN NULL WHEN 1 THEN false ELSE i % 3 = 0 END,
       CASE WHEN i % 67 = 0 THEN NULL WHEN i % 1039 = 0 THEN 'infinity'
            WHEN i % 1049 = 0 THEN '-infinity' WHEN i % 1051 = 0 THEN '0044-03-15 BC'
            WHEN i % 1061 = 0 THEN '0001-02-29 BC'
            ELSE date '2000-01-01' + (i % 3001 - 1500) END,
       ts,
       ts,                               -- tz: ts in the session's time zone
       'k' || i % 10
FROM generate_series(1, 20000) i,
     LATERAL (SELECT CASE WHEN i % 71 = 0 THEN NULL WHEN i % 1063 = 0 THEN 'infinity'
                          WHEN i % 1069 = 0 THEN '-infinity'
                          WHEN i % 1087 = 0 THEN '0044-03-15 12:34:56.789 BC'
                          WHEN i % 1091 = 0 THEN '1969-12-31 23:59:59.999999'
                          ELSE timestamp '2000-01-01' + (i % 4999 - 2500)
                               * interval '5 hours 17 minutes 3.000123 seconds' END AS ts) s;
ANALYZE agg_ex;

-- ---- plans ----

-- expression keys, arguments and FILTERs run in the node
SELECT pg_temp.plan($$SELECT x4 % 10, date_trunc('month', ts), count(*), sum(x4 * 2), avg(f8 + f4) FROM agg_ex GROUP BY 1, 2$$);
SELECT pg_temp.plan($$SELECT b, sum(10 / x4) FILTER (WHERE x4 <> 0), max(CASE WHEN x2 > 0 THEN x2 END) FROM agg_ex WHERE x8 > 0 GROUP BY b$$);
SELECT pg_temp.plan($$SELECT date_part('dow', d), COALESCE(x2, -1)::int8, count(*) FROM agg_ex GROUP BY 1, 2 HAVING sum(x4::int8 * x4) > 0$$);

-- ---- expression keys ----

-- arithmetic at every width and their mixes, casts, booleans, CASE,
-- COALESCE and NULLIF: NULL keys where an input is NULL
SELECT n, k, pg_temp.check(format($$SELECT %s AS k, count(*) AS n, count(x4) AS nx, sum(x4) AS s, min(i) AS lo FROM agg_ex GROUP BY 1$$, k)) AS result
FROM unnest(ARRAY[
  -- int2, int4, int8 and mixed widths
  $$x2 + x2$$, $$x2 * 3::int2$$, $$x2 - x4$$, $$x2 + x8$$, $$x4 * 3 - 7$$, $$x4 / 7$$,
  $$x4 % 7$$, $$-x4$$, $$abs(x4)$$, $$abs(x2)$$, $$-x2$$, $$x8 / 1000003$$, $$x8 % 10$$,
  $$x4 * x8 / 100003$$, $$x2 % (x4 + 1001)::int2$$,
  -- the extremes, where nothing overflows
  $$e4 / 3$$, $$e2 % 100$$, $$e8 / 1000000007$$, $$e8 % 1000$$, $$abs(e4::int8)$$,
  $$-e4::int8$$, $$e2::int4 * e2$$, $$e4::int8 * 2$$, $$e2 % -1::int2$$, $$e4 % -1$$, $$e8 % -1::int8$$,
  -- floats: -0, NaN and the infinities, float4 against float8
  $$f8 * 2$$, $$f8 + f4$$, $$f4 * 2::float4$$, $$f4 - f4$$, $$f8 - f8$$, $$-f8$$, $$abs(f8)$$,
  $$abs(f4)$$, $$-f4$$, $$f8 / 4$$, $$x4 * f8$$, $$f4 * x2$$, $$x4 / 8::float8$$,
  $$x4::float4 / 3::float4$$, $$x8 / 7::float8$$, $$f4 / 3::float4$$,
  -- casts: rounding to even, int8 to float4, float8 to float4, bool to int
  $$g8::int$$, $$g8::int2$$, $$g8::int8$$, $$(g8 * 10)::bigint$$, $$(x4 * 0.25::float8)::int$$,
  $$CASE WHEN f4 BETWEEN -100 AND 100 THEN f4::int END$$, $$x4::float4$$, $$x8::float4$$,
  $$x8::float8$$, $$e8::float4$$, $$e4::float4$$, $$e2::float8$$, $$e8::float8$$,
  $$(x8 / 100003)::int2$$, $$x4::int2$$, $$x2::int8$$, $$f8::float4$$, $$g8::float4$$,
  $$(g8 / 3)::float4$$, $$f4::float8$$, $$(f4 / 3::float4)::float8$$, $$(g8 / 3)::float4::int$$,
  $$b::int$$, $$b::int + x2$$,
  -- comparisons, AND / OR / NOT, IS [NOT] NULL / TRUE / FALSE
  $$x4 > 0$$, $$x4 > 0 AND b$$, $$x4 > 0 OR b$$, $$NOT b$$, $$NOT (x4 > 0 OR b)$$,
  $$b IS TRUE$$, $$b IS NOT FALSE$$, $$(x4 > 0) IS NOT TRUE$$, $$(x4 < 0) IS FALSE$$,
  $$x4 IS NULL$$, $$f8 IS NOT NULL$$, $$x2 < x8$$, $$f4 = f8$$, $$x4 <= f8$$, $$f4 <> f4$$,
  $$x2 >= e2$$, $$f8 > 'NaN'$$, $$x2 = x4 % 10 AND f4 < f8 OR b$$,
  -- CASE (with and without an operand), COALESCE, NULLIF
  $$CASE WHEN x4 < 0 THEN -1 WHEN x4 = 0 THEN 0 ELSE 1 END$$,
  $$CASE x4 % 4 WHEN 0 THEN x2 WHEN 1 THEN -x2 ELSE 100 END$$,
  $$CASE WHEN b THEN f8 ELSE x4 END$$, $$CASE x4 % 3 WHEN 0 THEN true WHEN 1 THEN false END$$,
  $$CASE WHEN x4 > 0 THEN x4 % 3 END$$, $$CASE WHEN f8 > 0 THEN d + 1 ELSE d - 1 END$$,
  $$CASE WHEN b IS NULL THEN ts END$$, $$CASE x2 WHEN x4 % 10 THEN 1 WHEN NULL THEN 2 ELSE 3 END$$,
  $$COALESCE(x4, x2, -1)$$, $$COALESCE(f4, f8, 0)$$, $$COALESCE(x2, x8)$$,
  $$COALESCE(d, date '2000-01-01')$$, $$COALESCE(ts, d::timestamp)$$, $$COALESCE(b, x4 > 0)$$,
  $$NULLIF(x4 % 5, 0)$$, $$NULLIF(f8, 'NaN')$$, $$NULLIF(x2, x4 % 10)$$, $$NULLIF(b, true)$$,
  $$NULLIF(f4, 0)$$, $$NULLIF(d, date '2000-01-01')$$
]) WITH ORDINALITY AS t(k, n) ORDER BY n;

-- dates and timestamps: date +- int, date - date, constant intervals with
-- months, days and time, conversions both ways
SELECT n, k, pg_temp.check(format($$SELECT %s AS k, count(*) AS n, max(i) AS hi FROM agg_ex GROUP BY 1$$, k)) AS result
FROM unnest(ARRAY[
  $$d + 30$$, $$d - 7$$, $$d + x2$$, $$d - x4 % 37$$, $$d + interval '1 month'$$,
  $$d - interval '1 month'$$, $$d + interval '1 year 2 days 03:00'$$,
  $$d - interval '-13 months 40 days -1 hour'$$, $$d::timestamp$$, $$ts::date$$,
  $$(ts + interval '12 hours')::date$$, $$ts + interval '1 month'$$, $$ts - interval '1 month'$$,
  $$ts + interval '1 year 2 days 03:00:00.5'$$, $$ts - interval '1 year 2 days 03:00'$$,
  $$ts + interval '-13 months 40 days -1 hour'$$, $$ts - interval '1 microsecond'$$,
  $$ts + interval '29 days 23:59:59.999999'$$, $$ts::date = d$$,
  $$d + 1 > date '2000-01-01'$$, $$ts < d::timestamp + interval '1 day'$$,
  $$(ts::date + 1)::timestamp$$
]) WITH ORDINALITY AS t(k, n) ORDER BY n;
-- date - date gives an integer (an infinite date would be an error)
SELECT pg_temp.check($$SELECT d - date '2000-01-01' AS k, count(*) AS n FROM agg_ex WHERE d > '-infinity' AND d < 'infinity' GROUP BY 1$$);
SELECT pg_temp.check($$SELECT (d - ts::date) / 7 AS k, count(*) AS n, sum(x4) AS s FROM agg_ex WHERE d > '-infinity' AND d < 'infinity' AND ts > '-infinity' AND ts < 'infinity' GROUP BY 1$$);
SELECT pg_temp.check($$SELECT date '2000-03-01' - d AS k, count(*) AS n FROM agg_ex WHERE d BETWEEN '1999-01-01' AND '2001-01-01' GROUP BY 1$$);

-- every field of date_part over a timestamp and over a date (a date goes
-- through timestamp), and of date_trunc; the infinities give +-Infinity or
-- NULL for date_part and themselves for date_trunc
SELECT f, pg_temp.check(format($$SELECT date_part(%L, ts) AS k, count(*) AS n, min(i) AS lo FROM agg_ex GROUP BY 1$$, f)) AS ts_part,
       pg_temp.check(format($$SELECT date_part(%L, d) AS k, count(*) AS n, min(i) AS lo FROM agg_ex GROUP BY 1$$, f)) AS date_part
FROM (VALUES ('year'), ('quarter'), ('month'), ('week'), ('day'), ('hour'), ('minute'),
             ('second'), ('dow'), ('isodow'), ('doy'), ('epoch'), ('isoyear'), ('decade'),
             ('century'), ('millennium'), ('milliseconds'), ('microseconds')) fs(f)
ORDER BY f COLLATE "C";
SELECT f, pg_temp.check(format($$SELECT date_trunc(%L, ts) AS k, count(*) AS n, min(i) AS lo FROM agg_ex GROUP BY 1$$, f)) AS ts_trunc,
       pg_temp.check(format($$SELECT date_trunc(%L, d::timestamp) AS k, count(*) AS n, min(i) AS lo FROM agg_ex GROUP BY 1$$, f)) AS date_trunc
FROM (VALUES ('microseconds'), ('milliseconds'), ('second'), ('minute'), ('hour'), ('day'),
             ('week'), ('month'), ('quarter'), ('year'), ('decade'), ('century'),
             ('millennium')) fs(f)
ORDER BY f COLLATE "C";
-- every field of extract (numeric, at the field's scale: 6 for second and
-- epoch of a timestamp, 3 for milliseconds), over a timestamp and a date,
-- on the rows that are finite; the infinities give NULL for the fields
-- that are not monotonic
SELECT f, pg_temp.check(format($$SELECT extract(%s FROM ts) AS k, count(*) AS n, min(i) AS lo FROM agg_ex WHERE ts > '-infinity' AND ts < 'infinity' GROUP BY 1$$, f)) AS ts_extract,
       CASE WHEN f IN ('hour', 'minute', 'second', 'milliseconds', 'microseconds') THEN '(not of a date)'
            ELSE pg_temp.check(format($$SELECT extract(%s FROM d) AS k, count(*) AS n, min(i) AS lo FROM agg_ex WHERE d > '-infinity' AND d < 'infinity' GROUP BY 1$$, f)) END AS date_extract
FROM (VALUES ('year'), ('quarter'), ('month'), ('week'), ('day'), ('hour'), ('minute'),
             ('second'), ('dow'), ('isodow'), ('doy'), ('epoch'), ('isoyear'), ('decade'),
             ('century'), ('millennium'), ('milliseconds'), ('microseconds')) fs(f)
ORDER BY f COLLATE "C";
SELECT f, pg_temp.check(format($$SELECT extract(%s FROM ts) AS k, count(*) AS n FROM agg_ex GROUP BY 1$$, f)) AS ts_extract,
       pg_temp.check(format($$SELECT extract(%s FROM d) AS k, count(*) AS n FROM agg_ex GROUP BY 1$$, f)) AS date_extract
FROM (VALUES ('month'), ('dow'), ('week')) fs(f)
ORDER BY f COLLATE "C";
SELECT pg_temp.check($$SELECT extract(year FROM d) AS k, extract(month FROM ts) AS m, count(*) AS n,
	sum(extract(second FROM ts)) AS s, avg(extract(doy FROM d)) AS a, max(extract(epoch FROM ts)) AS e
	FROM agg_ex WHERE d > '-infinity' AND d < 'infinity' AND ts > '-infinity' AND ts < 'infinity' GROUP BY 1, 2$$);
SELECT pg_temp.check($$SELECT count(*) AS n FROM agg_ex WHERE extract(year FROM d) > 2000$$);
-- an infinity where PostgreSQL's extract gives +-Infinity: numeric's
-- infinities are not held, so the query fails (0A000) rather than answer
SELECT pg_temp.try($$SELECT extract(year FROM d) AS k, count(*) AS n FROM agg_ex GROUP BY 1$$);
SET gpuops.enabled = off;
SELECT k, n FROM (SELECT extract(year FROM d) AS k, count(*) AS n FROM agg_ex GROUP BY 1) s WHERE k IN ('Infinity', '-Infinity') ORDER BY 1;
SET gpuops.enabled = on;
-- date_part and date_trunc over expressions, and as a key of another type
SELECT pg_temp.check($$SELECT date_part('dow', d + 3) AS k, date_part('hour', ts + interval '90 minutes') AS h, count(*) AS n FROM agg_ex GROUP BY 1, 2$$);
SELECT pg_temp.check($$SELECT date_trunc('month', ts - interval '1 month')::date AS k, count(*) AS n FROM agg_ex GROUP BY 1$$);
SELECT pg_temp.check($$SELECT date_part('year', ts)::int AS k, count(*) AS n FROM agg_ex WHERE ts > '-infinity' AND ts < 'infinity' GROUP BY 1$$);
SELECT pg_temp.check($$SELECT date_part('month', d) * 100 + date_part('day', d) AS k, count(*) AS n FROM agg_ex GROUP BY 1$$);

-- ---- expression arguments ----

-- integers: sums of every width (int8 and numeric results), avg, min, max
-- and count over expressions
SELECT pg_temp.check($$SELECT x2, sum(x4 * 2) AS s1, avg(x4 % 7) AS a1, min(x4 - x2) AS m1, max(-x8) AS m2, count(x4 / 3 + x2) AS c1 FROM agg_ex GROUP BY x2$$);
SELECT pg_temp.check($$SELECT b, sum(x2 * 2::int2) AS s2, sum(x4 + x2) AS s4, sum(x8 * 3) AS s8, avg(x8 - x4) AS a8, avg(x2 * x2) AS a2, sum(x4 * x4) AS sq FROM agg_ex GROUP BY b$$);
SELECT pg_temp.check($$SELECT x4 % 10 AS k, sum(e4::int8 * 2) AS s1, sum(e8 / 4) AS s2, max(e2 % 10) AS m1, min(abs(e8 / 2)) AS m2, avg(e2::int4 * e2) AS a1, sum(e4 % -1) AS z FROM agg_ex GROUP BY 1$$);
-- floats: float8 and float4 arithmetic, mixes, quotients only in min / max
SELECT pg_temp.check($$SELECT x2 % 5 AS k, sum(f8 * 2) AS s1, sum(f4 + f8) AS s2, avg(f8 * x4) AS a1, min(f8 / 3) AS m1, max(-f4) AS m2, sum(abs(f8)) AS s3, sum(f4 * 2::float4) AS s4, avg(f4 * f4) AS a2 FROM agg_ex GROUP BY 1$$);
SELECT pg_temp.check($$SELECT b, sum(x4 * f8) AS s1, sum(f8 * g8) AS s2, min(x4 / (g8 + 0.03125)) AS m1, max(x8 / 3::float4) AS m2, avg(g8 - f4) AS a1, count(f8 - f8) AS c1, max(f4 / 3::float4) AS m3 FROM agg_ex GROUP BY b$$);
-- casts
SELECT pg_temp.check($$SELECT x2 % 3 AS k, sum(g8::int) AS s1, sum((g8 * 10)::bigint) AS s2, avg(g8::float4) AS a1, sum(x4::float8 / 4) AS s3, max(x8::float4) AS m1, sum(b::int) AS s4, min(g8::int2) AS m2, max((g8 / 3)::float4) AS m3 FROM agg_ex GROUP BY 1$$);
-- CASE, COALESCE, NULLIF, booleans
SELECT pg_temp.check($$SELECT x4 % 6 AS k, sum(CASE WHEN b THEN x4 ELSE 0 END) AS s1, count(CASE WHEN x4 > 0 THEN 1 END) AS c1, max(COALESCE(d, date '1999-01-01')) AS m1, min(NULLIF(x4, 0)) AS m2, sum(COALESCE(f8, 0)) AS s2, sum(CASE x4 % 3 WHEN 0 THEN f8 WHEN 1 THEN f4 END) AS s3, count(NULLIF(b, false)) AS c2, sum((x4 > 0 AND b)::int) AS s4 FROM agg_ex GROUP BY 1$$);
-- dates and timestamps
SELECT pg_temp.check($$SELECT x2 % 4 AS k, min(d + 30) AS m1, max(d - x2) AS m2, min(ts + interval '1 month') AS m3, max(ts - interval '1 year 2 days 03:00') AS m4, min(date_trunc('week', ts)) AS m5, max(date_part('doy', ts)) AS m6, sum(date_part('hour', ts)) AS s1, avg(date_part('dow', d)) AS a1, count(date_part('epoch', ts)) AS c1, min(d::timestamp) AS m7, max(ts::date) AS m8, max(date_part('second', ts)) AS m9, min(d + interval '1 month') AS m10 FROM agg_ex GROUP BY 1$$);
SELECT pg_temp.check($$SELECT b, sum(d - date '2000-01-01') AS s1, max(date_part('epoch', ts)) AS m1, min(date_part('epoch', ts)) AS m2, sum(date_part('microseconds', ts)) AS s2 FROM agg_ex WHERE d > '-infinity' AND d < 'infinity' GROUP BY b$$);
-- no GROUP BY
SELECT pg_temp.check($$SELECT count(*) AS n, sum(x4 * x4) AS s1, avg(x8 / 7) AS a1, sum(f8 * 4) AS s2, max(d + 1) AS m1, min(ts - interval '1 day') AS m2, count(x4 + x2) AS c1 FROM agg_ex$$);
SELECT pg_temp.check($$SELECT sum(x4 - 1) AS s1, max(abs(x2)) AS m1 FROM agg_ex WHERE x4 > 100$$);

-- ---- FILTER clauses that are expressions ----

SELECT pg_temp.check($$SELECT x2 % 5 AS k, sum(x4) FILTER (WHERE x4 % 3 = 0) AS s1, count(*) FILTER (WHERE x2 + x4 > 0) AS c1, sum(f8 * 2) FILTER (WHERE f4 > f8) AS s2, avg(x8 / 3) FILTER (WHERE b IS NOT TRUE) AS a1, max(d + 1) FILTER (WHERE date_part('dow', d) = 0) AS m1, min(ts) FILTER (WHERE date_trunc('month', ts) = timestamp '2000-02-01') AS m2 FROM agg_ex GROUP BY 1$$);
SELECT pg_temp.check($$SELECT b, count(x4) FILTER (WHERE CASE WHEN b THEN x4 > 0 ELSE x4 < 0 END) AS c1, sum(x4) FILTER (WHERE COALESCE(b, false)) AS s1, count(*) FILTER (WHERE NULLIF(x4, 0) IS NULL) AS c2, sum(x4 * 2) FILTER (WHERE x4 * 2 > 100) AS s2, count(*) FILTER (WHERE NOT (x4 > 0 OR b)) AS c3, count(*) FILTER (WHERE (f8 > 0) IS NOT FALSE OR f8 IS NULL) AS c4 FROM agg_ex GROUP BY b$$);
SELECT pg_temp.check($$SELECT count(*) FILTER (WHERE ts + interval '1 month' > timestamp '2000-06-01') AS c1, count(*) FILTER (WHERE d - 10 < date '1999-01-01') AS c2, sum(g8::int) FILTER (WHERE g8::int % 2 = 0) AS s1, max(f4::float8) FILTER (WHERE f4 * 2 < 5) AS m1 FROM agg_ex$$);

-- ---- WHERE, several keys, HAVING, ORDER BY ----

-- WHERE clauses with expression keys and arguments
SELECT pg_temp.check($$SELECT x4 % 10 AS k, count(*) AS n, sum(x2 * 2) AS s FROM agg_ex WHERE x4 > 0 GROUP BY 1$$);
SELECT pg_temp.check($$SELECT date_trunc('month', ts) AS k, count(*) AS n, max(x4 - x2) AS m FROM agg_ex WHERE b AND d > '2000-01-01' GROUP BY 1$$);
SELECT pg_temp.check($$SELECT b, count(*) AS n, sum(x4) AS s FROM agg_ex WHERE x4 % 3 = 0 AND f8 * 2 > 1 GROUP BY b$$);
SELECT pg_temp.check($$SELECT x2 % 3 AS k, count(*) AS n FROM agg_ex WHERE t LIKE 'k1%' GROUP BY 1$$);
-- WHERE clauses that are expressions no row can make fail (comparisons of
-- columns, CASE, COALESCE, boolean and NULL tests) run on the device, before
-- the other clauses; one that can fail (a division, a cast that can
-- overflow) stays a CPU clause, and so does a device clause that PostgreSQL
-- evaluates before it (x2 <> 0 before x4 / x2), so errors are PostgreSQL's
SELECT pg_temp.plan($$SELECT b, count(*) FROM agg_ex WHERE x4 < x2 AND f4 <> f8 AND t = 'k1' GROUP BY b$$);
SELECT pg_temp.plan($$SELECT b, count(*) FROM agg_ex WHERE x2 <> 0 AND x4 / x2 > 1 GROUP BY b$$);
SELECT pg_temp.check($$SELECT b, count(*) AS n, sum(x4) AS s FROM agg_ex WHERE x4 < x2 GROUP BY b$$);
SELECT pg_temp.check($$SELECT x2 % 3 AS k, count(*) AS n FROM agg_ex WHERE x8 >= e4 AND e8 <> x8 AND e2 <= x2 GROUP BY 1$$);
SELECT pg_temp.check($$SELECT b, count(*) AS n FROM agg_ex WHERE f4 > f8 OR f8 = g8 GROUP BY b$$);
SELECT pg_temp.check($$SELECT b, count(*) AS n FROM agg_ex WHERE f4 <= f8 AND NOT (f8 < g8) GROUP BY b$$);
SELECT pg_temp.check($$SELECT x2 % 3 AS k, count(*) AS n FROM agg_ex WHERE d < d + 0 OR ts >= ts GROUP BY 1$$);
SELECT pg_temp.check($$SELECT x2 % 3 AS k, count(*) AS n, max(d) AS m FROM agg_ex WHERE CASE WHEN b THEN x4 > x2 ELSE f4 < f8 END GROUP BY 1$$);
SELECT pg_temp.check($$SELECT b, count(*) AS n FROM agg_ex WHERE COALESCE(x4 > x2, b) AND (x2 < e2) IS NOT TRUE GROUP BY b$$);
SELECT pg_temp.check($$SELECT b, count(*) AS n FROM agg_ex WHERE NULLIF(x4, x2) IS NULL OR x8 = e8 GROUP BY b$$);
SELECT pg_temp.check($$SELECT b, count(*) AS n FROM agg_ex WHERE x4 > x4 GROUP BY b$$);
SELECT pg_temp.check($$SELECT x4 % 10 AS k, sum(x2 * 2) AS s FROM agg_ex WHERE x4 > x2 AND t = 'k3' AND x8 > 0 GROUP BY 1$$);
SELECT pg_temp.check($$SELECT x2 % 3 AS k, count(*) AS n FROM agg_ex WHERE x4 > x2 AND t LIKE 'k1%' GROUP BY 1$$);
SELECT pg_temp.check($$SELECT count(*) AS n, sum(x4) FILTER (WHERE x2 > e2) AS s FROM agg_ex WHERE x4 <> e4$$);
SELECT pg_temp.check_error($$SELECT b, count(*) FROM agg_ex WHERE x4 / x2 > 1 GROUP BY b$$);
SELECT pg_temp.check_error($$SELECT b, count(*) FROM agg_ex WHERE x2 <> 0 AND x4 / x2 > 1 GROUP BY b$$);
SELECT pg_temp.check_error($$SELECT b, count(*) FROM agg_ex WHERE x4 < x2 AND e4 + 1 > 0 GROUP BY b$$);
-- integer division and modulo by a constant other than 0 and -1 cannot fail
SELECT pg_temp.plan($$SELECT b, count(*) FROM agg_ex WHERE x4 % 5 = 0 AND e4 / 3 > x2 GROUP BY b$$);
SELECT pg_temp.check($$SELECT b, count(*) AS n FROM agg_ex WHERE x4 % 5 = 0 AND e4 / 3 > x2 AND e8 % 7 <> 1 GROUP BY b$$);
SELECT pg_temp.check_error($$SELECT b, count(*) FROM agg_ex WHERE x4 % 5 = 0 AND x4 % 0 = 1 GROUP BY b$$);
SELECT pg_temp.check_error($$SELECT b, count(*) FROM agg_ex WHERE x2 > 0 AND e4 / -1 > 0 GROUP BY b$$);
SET gpuops.debug_chunk_size = 512;
SELECT pg_temp.check($$SELECT x4 % 10 AS k, count(*) AS n FROM agg_ex WHERE x4 < x8 OR f4 > g8 GROUP BY 1$$);
RESET gpuops.debug_chunk_size;
-- plain columns and expressions together
SELECT pg_temp.check($$SELECT b, x4 % 5 AS k, count(*) AS n, sum(f8) AS s FROM agg_ex GROUP BY b, x4 % 5$$);
SELECT pg_temp.check($$SELECT x2, date_trunc('month', ts) AS m, f8 * 2 AS f, count(*) AS n FROM agg_ex GROUP BY x2, date_trunc('month', ts), f8 * 2$$);
SELECT pg_temp.check($$SELECT d, d + 1 AS d1, count(*) AS n, max(x4) AS m FROM agg_ex GROUP BY d, d + 1$$);
SELECT pg_temp.check($$SELECT x4 % 3 AS k3, x4 % 5 AS k5, x4 % 7 AS k7, b, count(*) AS n, sum(x8) AS s FROM agg_ex GROUP BY 1, 2, 3, b$$);
SELECT pg_temp.check($$SELECT ts::date AS day, date_part('hour', ts) AS h, e2, count(*) AS n FROM agg_ex GROUP BY 1, 2, 3$$);
SELECT pg_temp.check($$SELECT x8 / 1000003 AS k, f4 * 2::float4 AS f, x4 IS NULL AS nx, count(*) AS n FROM agg_ex GROUP BY 1, 2, 3$$);
-- a key only in GROUP BY; expressions over a key and over aggregates above
-- the node
SELECT pg_temp.check($$SELECT count(*) AS n, sum(x4) AS s FROM agg_ex GROUP BY x4 % 10$$);
SELECT pg_temp.check($$SELECT (x4 % 10) * 2 AS k2, count(*) + 1 AS n1, sum(x4 * 2) / count(*) AS mean FROM agg_ex GROUP BY x4 % 10$$);
-- HAVING on aggregates of expressions
SELECT pg_temp.check($$SELECT x4 % 10 AS k, count(*) AS n FROM agg_ex GROUP BY 1 HAVING sum(x4 * 2) > 0$$);
SELECT pg_temp.check($$SELECT x2 % 7 AS k, min(d) AS lo FROM agg_ex GROUP BY 1 HAVING max(d + 1) > date '2002-01-01' AND count(*) FILTER (WHERE x4 % 2 = 0) > 10$$);
SELECT pg_temp.check($$SELECT date_part('dow', d) AS k, count(*) AS n FROM agg_ex GROUP BY 1 HAVING max(date_part('hour', ts)) = 23 AND date_part('dow', d) > 2$$);
-- ORDER BY expression keys
SELECT pg_temp.check_order($$SELECT x4 % 10 AS k, count(*) AS n, sum(x4) AS s FROM agg_ex GROUP BY x4 % 10 ORDER BY x4 % 10$$);
SELECT pg_temp.check_order($$SELECT x4 / 100 AS k, count(*) AS n FROM agg_ex GROUP BY 1 ORDER BY 1 DESC$$);
SELECT pg_temp.check_order($$SELECT date_trunc('month', ts) AS k, count(*) AS n FROM agg_ex GROUP BY 1 ORDER BY 1 NULLS FIRST$$);
SELECT pg_temp.check_order($$SELECT d + 1 AS k, x2 % 3 AS k2, count(*) AS n FROM agg_ex GROUP BY 1, 2 ORDER BY 1, 2 LIMIT 40$$);
SELECT pg_temp.check_order($$SELECT x2 % 4 AS k, count(*) AS n FROM agg_ex GROUP BY 1 ORDER BY sum(x4 * 3), 1$$);

-- ---- the same expression twice; constant subexpressions ----

SELECT pg_temp.check($$SELECT x4 % 7 AS k, sum(x4 % 7) AS s, max(x4 % 7) AS m, count(*) FILTER (WHERE x4 % 7 = 0) AS z FROM agg_ex GROUP BY x4 % 7$$);
SELECT pg_temp.check($$SELECT b, sum(x4 * 2) AS s, avg(x4 * 2) AS a, max(x4 * 2) AS m, min(x4 * 2) FILTER (WHERE x4 * 2 > 0) AS lo FROM agg_ex GROUP BY b$$);
SELECT pg_temp.check($$SELECT date_trunc('month', ts) AS k, min(date_trunc('month', ts)) AS lo, count(date_trunc('month', ts)) AS n FROM agg_ex GROUP BY 1$$);
-- folded at plan time: x4 + (2 * 3), 10 / 4, 7 * 2, interval * 2, abs(-5),
-- a CASE whose first test is always true, a COALESCE with a NULL first
-- argument; x4 + 1 + 2 is (x4 + 1) + 2 and is not folded
SELECT pg_temp.check($$SELECT x4 + (2 * 3) AS k, sum(x4 * (10 / 4)) AS s, max(d + (7 * 2)) AS m1, min(ts + interval '1 day' * 2) AS m2, sum(abs(-5) * x4) AS s2, sum(f8 * (1.0 / 4)) AS s3 FROM agg_ex GROUP BY 1$$);
SELECT pg_temp.check($$SELECT CASE WHEN 1 = 1 THEN x4 ELSE x2 END AS k, sum(COALESCE(NULL::int, x4)) AS s, sum(x4 + 1 + 2) AS s2, count(*) FILTER (WHERE x4 > 2 * 50) AS n FROM agg_ex GROUP BY 1$$);
-- a subexpression that folds to NULL: the whole argument is a NULL constant
SELECT pg_temp.check($$SELECT x2 % 3 AS k, count(x4 + NULL::int) AS c, sum(x4 + NULL::int) AS s, count(*) AS n FROM agg_ex GROUP BY 1$$);

-- ---- strategies and batches ----

SET gpuops.agg_strategy = dense;
SELECT pg_temp.check($$SELECT x4 % 10 AS k, x2 % 3 AS k2, count(*) AS n, sum(x4 * 2) AS s FROM agg_ex GROUP BY 1, 2$$);
SET gpuops.agg_strategy = hash;
SELECT pg_temp.check($$SELECT x4 % 10 AS k, date_trunc('day', ts) AS k2, count(*) AS n, sum(x4 * 2) AS s FROM agg_ex GROUP BY 1, 2$$);
SET gpuops.agg_strategy = sort;
SELECT pg_temp.check($$SELECT f8 * 2 AS k, d + 1 AS k2, count(*) AS n, sum(x4 * 2) AS s FROM agg_ex GROUP BY 1, 2$$);
RESET gpuops.agg_strategy;
SET gpuops.debug_chunk_size = 512;
SELECT pg_temp.check($$SELECT x4 % 10 AS k, count(*) AS n, sum(10 / x4) FILTER (WHERE x4 <> 0) AS s, max(CASE WHEN x2 = 0 THEN 0 ELSE 100 / x2 END) AS m FROM agg_ex GROUP BY 1$$);
SELECT pg_temp.check($$SELECT date_part('dow', d) AS k, count(*) AS n, min(ts + interval '1 month') AS m FROM agg_ex WHERE x4 > -500 GROUP BY 1$$);
RESET gpuops.debug_chunk_size;

-- a part of an expression that an earlier key or argument computes is read
-- from its column (for every row the later one is evaluated on): in the
-- same aggregate kind, another one, a key, under the same FILTER and under
-- another (computed again), NULLs and a CASE around it, floats (agg_numeric
-- has TPC-H Q1's numeric shape)
SELECT pg_temp.check($$SELECT x2 % 3 AS k, sum(x4 * 2) AS s1, sum(x4 * 2 + x8) AS s2, max((x4 * 2) * (x4 * 2)) AS m1, avg(CASE WHEN b THEN x4 * 2 END) AS a1 FROM agg_ex GROUP BY 1$$);
SELECT pg_temp.check($$SELECT x4 - x2 AS k, sum(x4 - x2) AS s1, sum((x4 - x2) * 3) AS s2, count(*) FILTER (WHERE b) AS c1 FROM agg_ex GROUP BY 1$$);
SELECT pg_temp.check($$SELECT b, sum(x8 + 1) FILTER (WHERE x4 > 0) AS s1, sum((x8 + 1) * 2) FILTER (WHERE x4 > 0) AS s2, sum((x8 + 1) * 3) FILTER (WHERE x4 < 0) AS s3, sum((x8 + 1) * 4) AS s4 FROM agg_ex GROUP BY b$$);
SELECT pg_temp.check($$SELECT x2 % 4 AS k, sum(f8 * 2) AS s1, sum(f8 * 2 - g8) AS s2, sum(g8 * 4 * (1 - g8)) AS s3, sum(g8 * 4 * (1 - g8) * (1 + g8)) AS s4 FROM agg_ex GROUP BY 1$$);
-- the shared part's errors are the row's, as PostgreSQL raises them
SELECT pg_temp.check_error($$SELECT sum(e4 * 2), sum(e4 * 2 + 1) FROM agg_ex$$);
SELECT pg_temp.check_error($$SELECT sum(x4 + 1) FILTER (WHERE x4 > 0), sum(100 / (x4 + 1)) FROM agg_ex$$);

-- ---- errors ----

-- each error as PostgreSQL raises it: division by zero (integer, float,
-- modulo; in a key, an argument, a FILTER, a CASE branch taken), integer
-- overflow at every width in + - * / unary minus, abs and casts, float
-- overflow and underflow (also in float8 -> float4), date and timestamp
-- out of range, infinite dates subtracted
CREATE TEMP TABLE agg_ex_errors (n int, q text);
INSERT INTO agg_ex_errors
SELECT n, q FROM unnest(ARRAY[
  -- 22012
  $$SELECT sum(100 / x4) FROM agg_ex$$,
  $$SELECT x2, sum(x8 / x2) FROM agg_ex GROUP BY x2$$,
  $$SELECT count(x2 / x2) FROM agg_ex$$,
  $$SELECT sum(x4 % x2) FROM agg_ex$$,
  $$SELECT max(x8 % x4::int8) FROM agg_ex$$,
  $$SELECT sum(x2 % (x2 - x2)) FROM agg_ex$$,
  $$SELECT sum(f8 / x4) FROM agg_ex$$,
  $$SELECT min(g8 / f8) FROM agg_ex$$,
  $$SELECT max(f4 / (f4 - f4)) FROM agg_ex$$,
  $$SELECT 10 / x4 AS k, count(*) FROM agg_ex GROUP BY 1$$,
  $$SELECT count(*) FILTER (WHERE 10 / x4 > 1) FROM agg_ex$$,
  $$SELECT sum(CASE WHEN x4 >= 0 THEN 10 / x4 ELSE 0 END) FROM agg_ex$$,
  $$SELECT b, max(x4 / CASE WHEN b THEN 0 ELSE 1 END) FROM agg_ex GROUP BY b$$,
  -- 22003 smallint
  $$SELECT sum(e2 + e2) FROM agg_ex$$,
  $$SELECT max(e2 - 1::int2) FROM agg_ex$$,
  $$SELECT max(e2 * e2) FROM agg_ex$$,
  $$SELECT max(-e2) FROM agg_ex$$,
  $$SELECT max(abs(e2)) FROM agg_ex$$,
  $$SELECT max(e2 / -1::int2) FROM agg_ex$$,
  $$SELECT e4::int2 AS k, count(*) FROM agg_ex GROUP BY 1$$,
  $$SELECT max((x4 * 100)::int2) FROM agg_ex$$,
  $$SELECT max(e8::int2) FROM agg_ex$$,
  $$SELECT max(f4::int2) FROM agg_ex$$,
  $$SELECT max((g8 * 2000)::int2) FROM agg_ex$$,
  -- 22003 integer
  $$SELECT sum(e4 + 1) FROM agg_ex$$,
  $$SELECT sum(e4 - 1) FROM agg_ex$$,
  $$SELECT sum(e4 * 2) FROM agg_ex$$,
  $$SELECT max(-e4) FROM agg_ex$$,
  $$SELECT max(abs(e4)) FROM agg_ex$$,
  $$SELECT max(e4 / -1) FROM agg_ex$$,
  $$SELECT max(e2 + e4) FROM agg_ex$$,
  $$SELECT sum((x8 * 10)::int) FROM agg_ex$$,
  $$SELECT e8::int AS k, count(*) FROM agg_ex GROUP BY 1$$,
  $$SELECT max(f8::int) FROM agg_ex$$,
  $$SELECT max((g8 * 1e8)::int) FROM agg_ex$$,
  $$SELECT count(*) FILTER (WHERE x4 * 3000000 > 0) FROM agg_ex$$,
  -- 22003 bigint
  $$SELECT sum(e8 + 1) FROM agg_ex$$,
  $$SELECT sum(e8 - 1) FROM agg_ex$$,
  $$SELECT sum(e8 * 2) FROM agg_ex$$,
  $$SELECT max(-e8) FROM agg_ex$$,
  $$SELECT max(abs(e8)) FROM agg_ex$$,
  $$SELECT max(e8 / -1::int8) FROM agg_ex$$,
  $$SELECT max(e4 * e8) FROM agg_ex$$,
  $$SELECT max(x8 * x8 * x8) FROM agg_ex$$,
  $$SELECT max(f8::int8) FROM agg_ex$$,
  $$SELECT max((g8 * 1e18)::int8) FROM agg_ex$$,
  -- 22003 float overflow and underflow
  $$SELECT sum(f8 * 1e308) FROM agg_ex$$,
  $$SELECT max(g8 + 1.7e308 + 1.7e308) FROM agg_ex$$,
  $$SELECT max(g8 / 1e-307) FROM agg_ex$$,
  $$SELECT sum(f4 * '1e38'::float4) FROM agg_ex$$,
  $$SELECT max((g8 * 1e300)::float4) FROM agg_ex$$,
  $$SELECT sum(f8 * 1e-300 * 1e-300) FROM agg_ex$$,
  $$SELECT min(g8 * 1e-300 / 1e300) FROM agg_ex$$,
  $$SELECT sum(f4 * '1e-30'::float4 * '1e-30'::float4) FROM agg_ex$$,
  $$SELECT max((g8 * 1e-300)::float4) FROM agg_ex$$,
  $$SELECT f8 * 1e308 AS k, count(*) FROM agg_ex GROUP BY 1$$,
  -- 22008 dates and timestamps
  $$SELECT max(d + 2147483000) FROM agg_ex$$,
  $$SELECT min(d - 2147483000) FROM agg_ex$$,
  $$SELECT d - date '2000-01-01' AS k, count(*) FROM agg_ex GROUP BY 1$$,
  $$SELECT max((d + 110000000)::timestamp) FROM agg_ex$$,
  $$SELECT max(d + interval '300000 years') FROM agg_ex$$,
  $$SELECT max(ts + interval '300000 years') FROM agg_ex$$,
  $$SELECT max(ts + interval '110000000 days') FROM agg_ex$$,
  $$SELECT min(ts - interval '2147483647 hours') FROM agg_ex$$,
  $$SELECT date_trunc('year', ts - interval '10000 years') AS k, count(*) FROM agg_ex GROUP BY 1$$,
  -- two failing rows: the earlier row's error, whichever expression it is
  -- in (row 5000 overflows, row 15000 divides by zero)
  $$SELECT sum(CASE WHEN i = 15000 THEN x4 / 0 END) AS a, sum(CASE WHEN i = 5000 THEN i + 2147483647 END) AS b FROM agg_ex$$,
  $$SELECT sum(CASE WHEN i = 5000 THEN i + 2147483647 END) AS b, sum(CASE WHEN i = 15000 THEN x4 / 0 END) AS a FROM agg_ex$$,
  $$SELECT CASE WHEN i = 15000 THEN i / 0 END AS k, sum(CASE WHEN i = 5000 THEN i * 2147483647 END) AS s FROM agg_ex GROUP BY 1$$,
  -- two failures in one row: PostgreSQL computes the keys first, then each
  -- aggregate's FILTER and then its argument, aggregates in the order of
  -- the select list
  $$SELECT CASE WHEN i = 7000 THEN i / 0 END AS k, sum(CASE WHEN i = 7000 THEN i * 2147483647 END) AS s FROM agg_ex GROUP BY 1$$,
  $$SELECT sum(CASE WHEN i = 7000 THEN i * 2147483647 END) FILTER (WHERE CASE WHEN i = 7000 THEN i / 0 > 0 ELSE true END) AS s FROM agg_ex$$,
  $$SELECT sum(CASE WHEN i = 7000 THEN i * 2147483647 END) AS a, sum(CASE WHEN i = 7000 THEN i / 0 END) AS b FROM agg_ex$$,
  $$SELECT sum(CASE WHEN i = 7000 THEN i / 0 END) AS b, sum(CASE WHEN i = 7000 THEN i * 2147483647 END) AS a FROM agg_ex$$
]) WITH ORDINALITY AS t(q, n);
SELECT n, q, pg_temp.check_error(q) AS result FROM agg_ex_errors ORDER BY n;

-- no error: rows that WHERE or FILTER removes, CASE branches not taken,
-- the right side of a decided AND / OR, COALESCE arguments not reached;
-- the operations PostgreSQL does not fail (x % -1, NaN / 0, infinite
-- inputs, denormal results, infinite dates and timestamps moved)
CREATE TEMP TABLE agg_ex_safe (n int, q text);
INSERT INTO agg_ex_safe
SELECT n, q FROM unnest(ARRAY[
  $$SELECT x2 % 5 AS k, sum(10 / x4) FILTER (WHERE x4 <> 0) AS s, count(*) AS n FROM agg_ex GROUP BY 1$$,
  $$SELECT b, sum(CASE WHEN x4 = 0 THEN 0 ELSE 10 / x4 END) AS s FROM agg_ex GROUP BY b$$,
  $$SELECT count(*) FILTER (WHERE x4 <> 0 AND 10 / x4 > 1) AS c1, count(*) FILTER (WHERE x4 = 0 OR 10 / x4 > 1) AS c2 FROM agg_ex$$,
  $$SELECT b, sum(CASE WHEN x4 <> 0 AND 10 / x4 > 1 THEN 1 ELSE 0 END) AS s, sum((x4 IS NULL OR x4 = 0 OR 100 / x4 > 5)::int) AS s2 FROM agg_ex GROUP BY b$$,
  $$SELECT sum(10 / NULLIF(x4, 0)) AS s, max(g8 / NULLIF(f8, 0)) AS m FROM agg_ex$$,
  $$SELECT sum(10 / x4) AS s FROM agg_ex WHERE x4 <> 0$$,
  $$SELECT x2 % 3 AS k, sum(1000 / x4) AS s, max(f8 / x4) AS m FROM agg_ex WHERE x4 > 0 GROUP BY 1$$,
  $$SELECT 1000 / x4 AS k, count(*) AS n FROM agg_ex WHERE x4 <> 0 GROUP BY 1$$,
  $$SELECT CASE WHEN x2 = 0 THEN -1 ELSE 100 / x2 END AS k, count(*) AS n FROM agg_ex GROUP BY 1$$,
  $$SELECT sum(COALESCE(x2 + 1, 10 / x2)) AS s FROM agg_ex$$,
  $$SELECT sum(CASE WHEN x4 = 0 THEN NULL WHEN 100 / x4 > 5 THEN 1 ELSE 0 END) AS s FROM agg_ex$$,
  $$SELECT sum(CASE x4 WHEN 0 THEN 0 ELSE 10 / x4 END) AS s, sum(CASE x2 WHEN 0 THEN 0 ELSE x8 / x2 END) AS s2 FROM agg_ex$$,
  $$SELECT b, count(*) FILTER (WHERE x4 <> 0 AND 10 / x4 > 1) AS c, sum(100 / x4) FILTER (WHERE x4 > 0 AND b) AS s FROM agg_ex GROUP BY b$$,
  $$SELECT sum(CASE WHEN e4 > 0 THEN e4 - 1 ELSE e4 + 1 END) AS s1, sum(CASE WHEN e2 > 0 THEN e2 - 1::int2 ELSE e2 + 1::int2 END) AS s2, sum(CASE WHEN e8 > 0 THEN e8 - 1 ELSE e8 + 1 END) AS s3 FROM agg_ex$$,
  $$SELECT sum(e2 % -1::int2) AS s1, sum(e4 % -1) AS s2, sum(e8 % -1::int8) AS s3 FROM agg_ex$$,
  $$SELECT sum(-e4) AS s, max(abs(e2)) AS m, sum(e8 + 1) AS s8 FROM agg_ex WHERE e4 > -2147483648 AND e2 > -32768 AND e8 < 9223372036854775807$$,
  $$SELECT sum(e4::int8 + 1) AS s, max(-e8::float8) AS m, max(abs(e2::int4)) AS m2 FROM agg_ex$$,
  $$SELECT sum(f8 * 1e308) FILTER (WHERE f8 IN ('Infinity', '-Infinity', 'NaN', 0)) AS s, max(f8 / 0::float8) FILTER (WHERE f8 = 'NaN') AS m FROM agg_ex$$,
  $$SELECT count(f8 - f8) AS c, max(f8 * f8) AS m, count(*) FILTER (WHERE f8 - f8 = 'NaN') AS nan FROM agg_ex$$,
  $$SELECT min(g8 * 1e-310) AS lo, max(g8 * 1e-310) AS hi, max(g8 / 1e308) AS q, count(*) FILTER (WHERE g8 * 1e-310 = 0) AS z, min(f4 * '1e-30'::float4 * '1e-8'::float4) AS lo4 FROM agg_ex$$,
  $$SELECT max(f8::int) AS m FROM agg_ex WHERE f8 BETWEEN -100 AND 100$$,
  $$SELECT max(d + 2147483000) AS m, min(d - 2147483000) AS m2 FROM agg_ex WHERE d = 'infinity' OR d = '-infinity'$$,
  $$SELECT max(ts + interval '300000 years') AS m, min(ts - interval '2147483647 hours') AS m2 FROM agg_ex WHERE ts IN ('infinity', '-infinity')$$,
  $$SELECT max(CASE WHEN d > '-infinity' AND d < 'infinity' THEN d - date '2000-01-01' END) AS m FROM agg_ex$$,
  $$SELECT count(*) FILTER (WHERE d > '-infinity' AND d < 'infinity' AND d - date '2000-01-01' > 0) AS c FROM agg_ex$$,
  $$SELECT x4 % 10 AS k, sum(10 / x4) FILTER (WHERE x4 <> 0) AS a, sum(10 / x4) FILTER (WHERE x4 > 0) AS b, count(*) FILTER (WHERE x4 = 0) AS z FROM agg_ex GROUP BY 1$$,
  $$SELECT i, count(*) FILTER (WHERE 10 / x4 > 0) AS c FROM agg_ex WHERE x4 <> 0 GROUP BY i$$
]) WITH ORDINALITY AS t(q, n);
SELECT n, q, pg_temp.check(q) AS result FROM agg_ex_safe ORDER BY n;

-- the same in batches of 1000 rows (errors in later batches, failing rows
-- in different batches) and on the GPU where there is one
SET gpuops.debug_chunk_size = 1000;
SELECT n, pg_temp.check_error(q) AS in_batches FROM agg_ex_errors ORDER BY n;
SELECT n, pg_temp.check(q) AS in_batches FROM agg_ex_safe ORDER BY n;
RESET gpuops.debug_chunk_size;
SET gpuops.gpu_min_rows = 0;
SELECT n, pg_temp.check_error(q) AS gpu FROM agg_ex_errors ORDER BY n;
SELECT n, pg_temp.check(q) AS gpu FROM agg_ex_safe ORDER BY n;
SELECT pg_temp.check($$SELECT x4 % 10 AS k, date_trunc('month', ts) AS m, count(*) AS n, sum(x4 * 2) AS s, avg(f8 + f4) AS a, min(d + interval '1 month') AS lo, max(g8::int) AS hi FROM agg_ex GROUP BY 1, 2$$);
RESET gpuops.gpu_min_rows;
DROP TABLE agg_ex_errors;
DROP TABLE agg_ex_safe;

-- bool_and / every (the least of 0/1) and bool_or (the largest), of bool
-- columns and expressions; NULL for a group without a non-NULL value
SELECT pg_temp.check($$SELECT x4 % 10 AS k, bool_and(b) AS a, bool_or(b) AS o, every(b) AS e FROM agg_ex GROUP BY 1$$);
SELECT pg_temp.check($$SELECT bool_and(x4 > -990) AS a, bool_or(x2 IS NULL) AS o, every(b OR x4 > 0) AS e FROM agg_ex$$);
SELECT pg_temp.check($$SELECT x2, bool_or(b) FILTER (WHERE x4 > 900) AS o, bool_and(b) FILTER (WHERE x4 < -990) AS a FROM agg_ex GROUP BY 1$$);

-- int4 to numeric and numeric products run on the device (sql/agg_numeric.sql)
SELECT pg_temp.check($$SELECT sum(x4::numeric) AS s FROM agg_ex$$);
SELECT pg_temp.check($$SELECT x4 * 1.5 AS k, count(*) AS n FROM agg_ex GROUP BY 1$$);

-- ---- expressions the node cannot run keep the native plan ----

-- volatile functions, numeric results the device does not hold (extract's
-- julian, int8 or float cast to numeric, numeric division), text functions
-- (but as a text key, a function of one text column: agg_mapped.sql),
-- timestamptz (date_trunc of a date resolves to timestamptz), interval
-- results and non-constant intervals, subqueries
SELECT n, q, pg_temp.check(q) AS result
FROM unnest(ARRAY[
  $$SELECT sum(x4 * random()) AS s FROM agg_ex$$,
  $$SELECT (random() * 10)::int AS k, count(*) AS n FROM agg_ex GROUP BY 1$$,
  $$SELECT count(*) FILTER (WHERE random() < 0.5) AS n FROM agg_ex$$,
  $$SELECT sum(x8::numeric) AS s FROM agg_ex$$,
  $$SELECT x4 / 1.5 AS k, count(*) AS n FROM agg_ex GROUP BY 1$$,
  $$SELECT extract(julian FROM ts) AS k, count(*) AS n FROM agg_ex GROUP BY 1$$,
  $$SELECT max(extract(julian FROM d)) AS m FROM agg_ex$$,
  $$SELECT lower(t) > 'k' AS k, count(*) AS n FROM agg_ex GROUP BY 1$$,
  $$SELECT sum(length(lower(t))) AS s FROM agg_ex$$,
  $$SELECT x4::text AS k, count(*) AS n FROM agg_ex GROUP BY 1$$,
  $$SELECT date_trunc('month', d) AS k, count(*) AS n FROM agg_ex GROUP BY 1$$,
  $$SELECT tz + interval '1 day' AS k, count(*) AS n FROM agg_ex GROUP BY 1$$,
  $$SELECT date_trunc('day', tz) AS k, count(*) AS n FROM agg_ex GROUP BY 1$$,
  $$SELECT max(ts::timestamptz) AS m FROM agg_ex$$,
  $$SELECT max(ts - timestamp '2000-01-01') AS m FROM agg_ex WHERE ts > '-infinity' AND ts < 'infinity'$$,
  $$SELECT max(ts + x4 * interval '1 day') AS m FROM agg_ex$$,
  $$SELECT sum(x4 + (SELECT 1)) AS s FROM agg_ex$$,
  $$SELECT x4 % 10 AS k, count(*) FILTER (WHERE x2 IN (SELECT generate_series(1, 5))) AS n FROM agg_ex GROUP BY 1$$
]) WITH ORDINALITY AS t(q, n) ORDER BY n;

DROP TABLE agg_ex;
