-- gpuops.group_agg: GROUP BY over two arrays, checked by hand and against
-- plain SQL (GROUP BY over unnest); every float8 value is a small dyadic
-- fraction or a special value, so no summation order changes a result
\set SHOW_CONTEXT never

\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/try.psql

-- ---- small examples ----

-- key 1: rows 2, 4; key 2: row 3; key 3: rows 1, 6 (NULL value), 7; NULL key: row 5
SELECT * FROM gpuops.group_agg(ARRAY[3, 1, 2, 1, NULL, 3, 3],
                               ARRAY[1, 2, 3, 4, 5, NULL, 7]::float8[]);
SELECT * FROM gpuops.group_agg(ARRAY[3, 1, 2, 1, NULL, 3, 3],
                               ARRAY[1, 2, 3, 4, 5, NULL, 7]::int8[]);
-- fractions; a group whose values are all NULL has count 0 and NULL aggregates
SELECT * FROM gpuops.group_agg(ARRAY[5, 5, 9, 9, 7, 5],
                               ARRAY[0.5, -1.25, NULL, NULL, 0.125, 3]::float8[]);
SELECT * FROM gpuops.group_agg(ARRAY[5, 5, 9, 9, 7, 5],
                               ARRAY[-1, 2, NULL, NULL, 0, 4]::int8[]);
-- every value NULL; every key NULL
SELECT * FROM gpuops.group_agg(ARRAY[2, 1, 2], ARRAY[NULL, NULL, NULL]::float8[]);
SELECT * FROM gpuops.group_agg(ARRAY[NULL, NULL, NULL]::int[], ARRAY[1, NULL, 2]::int8[]);
-- one element; empty arrays and NULL arrays (STRICT) give no rows
SELECT * FROM gpuops.group_agg(ARRAY[42], ARRAY[-2.5]::float8[]);
SELECT * FROM gpuops.group_agg('{}'::int[], '{}'::float8[]);
SELECT * FROM gpuops.group_agg('{}'::int8[], '{}'::int8[]);
SELECT * FROM gpuops.group_agg(NULL::int[], ARRAY[1]::float8[]);
SELECT * FROM gpuops.group_agg(ARRAY[1], NULL::int8[]);
-- multi-dimensional arrays are read in storage order, whatever their shapes
-- and lower bounds: keys 1, 2, 2, 1 with values 10, 20, 30, 40
SELECT * FROM gpuops.group_agg(ARRAY[[1, 2], [2, 1]], '[0:3]={10,20,30,40}'::float8[]);
-- the columns are named; the key has the keys' element type
SELECT key, pg_typeof(key), rows, count, sum, pg_typeof(sum), avg
  FROM gpuops.group_agg(ARRAY[1, 1]::int2[], ARRAY[1, 2]::int8[]);
SELECT key, pg_typeof(key), sum, pg_typeof(sum), pg_typeof(min)
  FROM gpuops.group_agg(ARRAY[1, 1]::int8[], ARRAY[1, 2]::float8[]);

-- ---- NaN, infinities, -0.0 ----

-- values: NaN makes max and sum NaN, min ignores it unless every value is NaN;
-- Infinity + -Infinity is NaN; an infinite value gives an infinite sum
SELECT * FROM gpuops.group_agg(
  ARRAY[1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6],
  ARRAY[1, 'NaN', -2, 'NaN', '-NaN', 'Infinity', '-Infinity', 'Infinity', 5,
        '-Infinity', -7, 'NaN']::float8[]);
-- the same in plain SQL
SELECT k, count(*), count(v), sum(v), min(v), max(v), avg(v)
  FROM unnest(ARRAY[1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6],
              ARRAY[1, 'NaN', -2, 'NaN', '-NaN', 'Infinity', '-Infinity', 'Infinity', 5,
                    '-Infinity', -7, 'NaN']::float8[]) AS u(k, v)
 GROUP BY k ORDER BY k;
-- -0.0 values: a sum of -0.0 alone is -0 (as sum() gives), with any +0.0 it
-- is 0; avg's zero is 0 (as avg() gives); min orders -0 before 0
SELECT * FROM gpuops.group_agg(ARRAY[1, 1, 2, 2, 3, 4, 4],
                               ARRAY['-0', '-0', '-0', '0', '0', '-0', 1]::float8[]);
SELECT k, sum(v), avg(v)
  FROM unnest(ARRAY[1, 1, 2, 2, 3, 4, 4],
              ARRAY['-0', '-0', '-0', '0', '0', '-0', 1]::float8[]) AS u(k, v)
 GROUP BY k ORDER BY k;
-- float keys: -0.0 and 0.0 are one group (key 0), every NaN is one group,
-- ordered -Infinity < ... < Infinity < NaN < NULL
SELECT * FROM gpuops.group_agg(
  ARRAY['NaN', '-0', 'Infinity', NULL, '0', '-NaN', '-Infinity', '-1.5', 'NaN', '1e300']::float8[],
  ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]::float8[]);
SELECT * FROM gpuops.group_agg(
  ARRAY['NaN', '-0', 'Infinity', NULL, '0', '-NaN', '-Infinity', '-1.5', 'NaN', '3e38']::float4[],
  ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]::int8[]);
-- the same groups in plain SQL
SELECT k, count(*), sum(v)
  FROM unnest(ARRAY['NaN', '-0', 'Infinity', NULL, '0', '-NaN', '-Infinity', '-1.5', 'NaN', '1e300']::float8[],
              ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]::float8[]) AS u(k, v)
 GROUP BY k ORDER BY k NULLS LAST;

-- ---- every key type ----

SELECT * FROM gpuops.group_agg(ARRAY[-32768, 32767, 0, NULL, 32767, -1]::int2[],
                               ARRAY[1, 2, 3, 4, 5, 6]::float8[]);
SELECT * FROM gpuops.group_agg(ARRAY[-2147483648, 2147483647, 0, NULL, 2147483647, -2147483648]::int4[],
                               ARRAY[1, 2, 3, 4, 5, 6]::int8[]);
SELECT * FROM gpuops.group_agg(ARRAY[-9223372036854775808, 9223372036854775807, 0, NULL,
                                     9223372036854775807, -9223372036854775807]::int8[],
                               ARRAY[1, 2, 3, 4, 5, 6]::int8[]);
SELECT * FROM gpuops.group_agg(ARRAY[0.25, -3.5, 0.25, NULL, 1e30, -3.5]::float4[],
                               ARRAY[1, 2, 3, 4, 5, 6]::float8[]);
SELECT * FROM gpuops.group_agg(ARRAY[0.25, -3.5, 0.25, NULL, 1e300, -3.5]::float8[],
                               ARRAY[1, 2, 3, 4, 5, 6]::float8[]);
SELECT * FROM gpuops.group_agg(ARRAY['2024-02-29', 'infinity', '-infinity', NULL,
                                     '2024-02-29', '1999-12-31']::date[],
                               ARRAY[1, 2, 3, 4, 5, 6]::int8[]);
SELECT * FROM gpuops.group_agg(ARRAY['2024-02-29 12:00', 'infinity', '-infinity', NULL,
                                     '2024-02-29 12:00', '2024-02-29 12:00:00.000001']::timestamp[],
                               ARRAY[1, 2, 3, 4, 5, 6]::float8[]);
-- timestamptz groups instants: the same instant written in two time zones
SELECT * FROM gpuops.group_agg(ARRAY['2024-02-29 12:00+00', '2024-02-29 14:00+02', 'infinity',
                                     NULL, '-infinity', '2024-02-29 12:00:01+00']::timestamptz[],
                               ARRAY[1, 2, 3, 4, 5, 6]::int8[]);
SELECT * FROM gpuops.group_agg(ARRAY[true, false, NULL, true, false, true],
                               ARRAY[1, 2, 3, 4, 5, 6]::float8[]);
SELECT * FROM gpuops.group_agg(ARRAY[true, true]::bool[], ARRAY[1, 2]::int8[]);

-- ---- int8 values: exact sums beyond the bigint range ----

-- 3 * 9e18, and sums at the int8 limits, against sum() and avg() over unnest
CREATE TEMP TABLE big(k int, v int8);
INSERT INTO big
SELECT 1, 9000000000000000000 FROM generate_series(1, 3)
UNION ALL SELECT 2, 9223372036854775807 FROM generate_series(1, 1000)
UNION ALL SELECT 3, -9223372036854775808 FROM generate_series(1, 1001)
UNION ALL SELECT 4, v FROM unnest(ARRAY[9223372036854775807, -9223372036854775808, 9223372036854775807, 1]::int8[]) v
UNION ALL SELECT 5, v FROM unnest(ARRAY[9223372036854775807, 9223372036854775807, 9223372036854775807, -1, NULL]::int8[]) v
UNION ALL SELECT 6, v FROM unnest(ARRAY[-9223372036854775808, -9223372036854775808, 7]::int8[]) v
UNION ALL SELECT 7, v FROM unnest(ARRAY[9223372036854775807, -9223372036854775807]::int8[]) v;
SELECT * FROM gpuops.group_agg((SELECT array_agg(k ORDER BY k, v) FROM big),
                               (SELECT array_agg(v ORDER BY k, v) FROM big));
SELECT k, count(*), count(v), sum(v), min(v), max(v), avg(v)
  FROM big GROUP BY k ORDER BY k;
-- 100000 values near 2^63 in one group, 100000 of both signs near 2^63 in the other
SELECT g.key, g.sum = r.sum AS sum_ok, g.avg::text = r.avg::text AS avg_ok, g.sum
  FROM gpuops.group_agg((SELECT array_agg(i % 2) FROM generate_series(1, 200000) i),
                        (SELECT array_agg(CASE WHEN i % 2 = 0 THEN 9223372036854775807 - i
                                               ELSE (CASE WHEN i % 3 = 0 THEN -1 ELSE 1 END) * (9223372036854575000 + i) END)
                           FROM generate_series(1, 200000) i)) g
  JOIN (SELECT i % 2 AS k, sum(v), avg(v)
          FROM generate_series(1, 200000) i,
               LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 9223372036854775807 - i
                                    ELSE (CASE WHEN i % 3 = 0 THEN -1 ELSE 1 END) * (9223372036854575000 + i) END AS v) x
         GROUP BY 1) r ON r.k = g.key
 ORDER BY g.key;

-- ---- errors ----

-- arrays of different element counts: 22023, naming both counts
SELECT * FROM gpuops.group_agg(ARRAY[1, 2, 3], ARRAY[1, 2]::float8[]);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg(ARRAY[1, 2, 3], ARRAY[1, 2]::float8[])$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg('{}'::int[], ARRAY[1]::int8[])$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg(ARRAY[[1, 2], [3, 4]], ARRAY[1, 2, 3]::int8[])$$);
-- keys of another type: 0A000, with a hint to use GROUP BY
SELECT * FROM gpuops.group_agg(ARRAY['a', 'b'], ARRAY[1, 2]::float8[]);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg(ARRAY['a', 'b'], ARRAY[1, 2]::float8[])$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg(ARRAY[1.5, 2]::numeric[], ARRAY[1, 2]::int8[])$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg(ARRAY['1 day']::interval[], ARRAY[1]::int8[])$$);
-- finite values whose sum overflows: 22003, as sum(float8) raises
SELECT * FROM gpuops.group_agg(ARRAY[1, 2, 2], ARRAY[1, 1e308, 1e308]::float8[]);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg(ARRAY[1, 2, 2], ARRAY[1, 1e308, 1e308]::float8[])$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg(ARRAY[1, 1, NULL], ARRAY[-1e308, -1e308, 5]::float8[])$$);
SELECT pg_temp.try($$SELECT sum(v) FROM unnest(ARRAY[1e308, 1e308]::float8[]) v$$);
-- the finite values' sum overflowing is the error wherever the infinities
-- and NaNs stand (README: float overflow; natively the row order decides)
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg(ARRAY[1, 1, 1, 2, 2, 2], ARRAY[1e308, 1e308, 'Infinity', 1e308, 'NaN', 1e308]::float8[])$$);
SELECT pg_temp.try($$SELECT sum(v) FROM unnest(ARRAY[1e308, 1e308, 'Infinity']::float8[]) v$$);
-- finite values that fit: infinities and NaN propagate, no error
SELECT * FROM gpuops.group_agg(ARRAY[1, 1, 1, 2, 2, 2], ARRAY[5, 'Infinity', 7, 1e300, 'NaN', 1]::float8[]);
-- values are float8[] or int8[]: int4[] values are ambiguous (cast them),
-- numeric[] values take the float8 variant (numeric casts to float8 implicitly)
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg(ARRAY[1], ARRAY[1]::int4[])$$);
SELECT key, sum, pg_typeof(sum) FROM gpuops.group_agg(ARRAY[1, 1], ARRAY[1.5, 2]::numeric[]);
-- nothing is left behind by an error: the next call works
SELECT * FROM gpuops.group_agg(ARRAY[1, 2, 1], ARRAY[1, 2, 3]::int8[]);

-- ---- strategies ----

-- gpuops.agg_strategy forces one; dense needs integer keys of a small range
-- and otherwise falls back to auto's choice.  DEBUG2 names the strategy used
SET client_min_messages = debug2;
SET gpuops.agg_strategy = 'dense';
SELECT * FROM gpuops.group_agg(ARRAY[3, 1, 3, NULL], ARRAY[1, 2, 3, 4]::float8[]);
SET gpuops.agg_strategy = 'hash';
SELECT * FROM gpuops.group_agg(ARRAY[3, 1, 3, NULL], ARRAY[1, 2, 3, 4]::float8[]);
SET gpuops.agg_strategy = 'sort';
SELECT * FROM gpuops.group_agg(ARRAY[3, 1, 3, NULL], ARRAY[1, 2, 3, 4]::float8[]);
SET gpuops.agg_strategy = 'hash';
SELECT * FROM gpuops.group_agg(ARRAY[0.5, -0.5]::float8[], ARRAY[1, 2]::int8[]);
SET gpuops.agg_strategy = 'sort';
SELECT * FROM gpuops.group_agg(ARRAY[0.5, -0.5]::float8[], ARRAY[1, 2]::int8[]);
RESET client_min_messages;
SET gpuops.agg_strategy = 'dense';
-- float keys, and integer keys spanning more than 2^22: auto's choice
SELECT * FROM gpuops.group_agg(ARRAY[0.5, -0.5]::float8[], ARRAY[1, 2]::int8[]);
SELECT * FROM gpuops.group_agg(ARRAY[0, 4194304, 0], ARRAY[1, 2, 3]::int8[]);
SELECT * FROM gpuops.group_agg(ARRAY[-9223372036854775808, 9223372036854775807]::int8[], ARRAY[1, 2]::int8[]);
SET gpuops.agg_strategy = 'fastest';
RESET gpuops.agg_strategy;
SHOW gpuops.agg_strategy;

-- ---- differential checks against plain SQL ----

-- deterministic data: h is a multiplicative hash of i (its upper 16 bits)
CREATE TEMP TABLE ga_gen AS
SELECT s.name, i, x.h,
       (CASE s.name
          WHEN 'one_group' THEN 7
          WHEN 'groups_1000' THEN x.h % 1000
          WHEN 'distinct' THEN i
          WHEN 'skew' THEN CASE WHEN x.h % 10 < 9 THEN 0 ELSE x.h % 5000 END
          WHEN 'sparse' THEN (x.h % 50) * 1000003 - 25000000
          WHEN 'nulls' THEN CASE WHEN x.h % 7 = 0 THEN NULL ELSE x.h % 300 END
          WHEN 'extremes' THEN (ARRAY[-2147483648, 2147483647, 0, -1, 1, NULL])[1 + x.h % 6]
        END)::int AS k,
       (CASE WHEN x.h % 11 = 0 THEN NULL
             WHEN s.name = 'extremes' AND x.h % 13 = 0 THEN (ARRAY['NaN', 'Infinity', '-Infinity', '-0'])[1 + i % 4]::float8
             ELSE ((x.h * 7 + i) % 2001 - 1000) / 8.0 END)::float8 AS vf,
       (CASE WHEN x.h % 11 = 0 THEN NULL
             WHEN s.name = 'extremes' THEN (ARRAY[9223372036854775807, -9223372036854775808, 9223372036854775000, 0])[1 + (x.h + i) % 4]
             ELSE (x.h * 7 + i) % 2001 - 1000 END)::int8 AS vi
  FROM (VALUES ('one_group', 10000), ('groups_1000', 100000), ('distinct', 70000),
               ('skew', 50000), ('sparse', 20000), ('nulls', 30001), ('extremes', 20011)) s(name, n),
       generate_series(1, s.n) i,
       LATERAL (SELECT ((i::bigint * 2654435761) % 4294967296) / 65536 AS h) x;

-- one row per shape: the keys as every key type, and both value arrays
CREATE TEMP TABLE ga AS
SELECT name, count(*) AS n,
       array_agg(k ORDER BY i) AS i4,
       array_agg((k % 30000)::int2 ORDER BY i) AS i2,
       array_agg(CASE k WHEN 2147483647 THEN 9223372036854775807
                        WHEN -2147483648 THEN -9223372036854775808
                        ELSE k::int8 * 4294967311 END ORDER BY i) AS i8,
       array_agg((k / 4.0)::float4 ORDER BY i) AS f4,
       array_agg(CASE k % 5 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN '-0'::float8
                            WHEN 2 THEN '0'::float8 ELSE k / 8.0 END ORDER BY i) AS f8,
       array_agg('2000-01-01'::date + k % 1000000 ORDER BY i) AS dt,
       array_agg('2000-01-01 00:00'::timestamp + k * interval '1 microsecond' ORDER BY i) AS ts,
       array_agg('2000-01-01 00:00+00'::timestamptz + k * interval '1 second' ORDER BY i) AS tz,
       array_agg(k % 2 = 0 ORDER BY i) AS b,
       array_agg(vf ORDER BY i) AS vf,
       array_agg(vi ORDER BY i) AS vi
  FROM ga_gen GROUP BY name;
SELECT name, n, cardinality(i4) = n AS sized, cardinality(vi) = n AS sized_vi FROM ga ORDER BY name;

-- mismatches between group_agg(k, vf) and GROUP BY over unnest, both ways
CREATE FUNCTION pg_temp.diff_f8(k anyarray, v float8[]) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM (
    (SELECT * FROM gpuops.group_agg(k, v)
     EXCEPT ALL
     SELECT u.k, count(*), count(u.v), sum(u.v), min(u.v), max(u.v), avg(u.v)
       FROM unnest(k, v) AS u(k, v) GROUP BY u.k)
    UNION ALL
    (SELECT u.k, count(*), count(u.v), sum(u.v), min(u.v), max(u.v), avg(u.v)
       FROM unnest(k, v) AS u(k, v) GROUP BY u.k
     EXCEPT ALL
     SELECT * FROM gpuops.group_agg(k, v))) x
$$;

-- the same for group_agg(k, vi); numeric results compare as text (scale too)
CREATE FUNCTION pg_temp.diff_i8(k anyarray, v int8[]) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM (
    (SELECT key, rows, count, sum::text, min, max, avg::text FROM gpuops.group_agg(k, v)
     EXCEPT ALL
     SELECT u.k, count(*), count(u.v), sum(u.v)::text, min(u.v), max(u.v), avg(u.v)::text
       FROM unnest(k, v) AS u(k, v) GROUP BY u.k)
    UNION ALL
    (SELECT u.k, count(*), count(u.v), sum(u.v)::text, min(u.v), max(u.v), avg(u.v)::text
       FROM unnest(k, v) AS u(k, v) GROUP BY u.k
     EXCEPT ALL
     SELECT key, rows, count, sum::text, min, max, avg::text FROM gpuops.group_agg(k, v))) x
$$;

-- rows of group_agg(k, vi) that are not where ORDER BY key NULLS LAST puts them
CREATE FUNCTION pg_temp.misordered(k anyarray, v int8[]) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM (
    SELECT o, row_number() OVER (ORDER BY key NULLS LAST) AS r
      FROM gpuops.group_agg(k, v) WITH ORDINALITY AS g(key, rows, count, sum, min, max, avg, o)) x
   WHERE o <> r
$$;

-- groups, and mismatches of both variants and misplaced rows (all 0), for
-- keys of type kt
CREATE FUNCTION pg_temp.check_keys(kt text)
RETURNS TABLE(name text, key_type text, groups bigint, f8_mismatches bigint,
              i8_mismatches bigint, misordered bigint)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format(
		'SELECT name, %L, (SELECT count(*) FROM gpuops.group_agg(%I, vi)),
		        pg_temp.diff_f8(%I, vf), pg_temp.diff_i8(%I, vi), pg_temp.misordered(%I, vi)
		   FROM ga', kt, kt, kt, kt, kt);
END
$$;

-- every key type under the default settings
SELECT c.* FROM unnest(ARRAY['i4', 'i2', 'i8', 'f4', 'f8', 'dt', 'ts', 'tz', 'b']) kt,
       LATERAL pg_temp.check_keys(kt) c
 ORDER BY c.name, c.key_type;

-- the group counts above, from plain SQL
SELECT name, (SELECT count(DISTINCT k) + max(CASE WHEN k IS NULL THEN 1 ELSE 0 END)
                FROM unnest(i4) k) AS i4_groups
  FROM ga ORDER BY name;

-- every strategy, and chunks of 64 bytes (8 to 16 rows, so chunk seams fall
-- inside groups and runs, and keys and values are cut differently); all 0
CREATE FUNCTION pg_temp.check_all() RETURNS TABLE(f8_mismatches bigint, i8_mismatches bigint,
                                                  misordered bigint)
LANGUAGE sql AS $$
  SELECT sum(f8_mismatches), sum(i8_mismatches), sum(misordered)
    FROM unnest(ARRAY['i4', 'i2', 'i8', 'f4', 'f8', 'dt', 'ts', 'tz', 'b']) kt,
         LATERAL pg_temp.check_keys(kt) c
$$;
SET gpuops.agg_strategy = 'dense';
SELECT 'dense' AS strategy, * FROM pg_temp.check_all();
SET gpuops.agg_strategy = 'hash';
SELECT 'hash' AS strategy, * FROM pg_temp.check_all();
SET gpuops.agg_strategy = 'sort';
SELECT 'sort' AS strategy, * FROM pg_temp.check_all();
RESET gpuops.agg_strategy;
SET gpuops.debug_chunk_size = 64;
SELECT 'auto, 64 B chunks' AS strategy, * FROM pg_temp.check_all();
SET gpuops.agg_strategy = 'dense';
SELECT 'dense, 64 B chunks' AS strategy, * FROM pg_temp.check_all();
SET gpuops.agg_strategy = 'hash';
SELECT 'hash, 64 B chunks' AS strategy, * FROM pg_temp.check_all();
SET gpuops.agg_strategy = 'sort';
SELECT 'sort, 64 B chunks' AS strategy, * FROM pg_temp.check_all();
RESET gpuops.agg_strategy;
RESET gpuops.debug_chunk_size;

-- every strategy gives the same rows, to the bit (float8 results as text)
CREATE TEMP TABLE ga_by_strategy(strategy text, name text, r text);
DO $$
DECLARE
	s text;
BEGIN
	FOREACH s IN ARRAY ARRAY['auto', 'dense', 'hash', 'sort'] LOOP
		PERFORM set_config('gpuops.agg_strategy', s, true);
		INSERT INTO ga_by_strategy
		SELECT s, ga.name, g::text FROM ga, LATERAL gpuops.group_agg(i4, vf) g;
		INSERT INTO ga_by_strategy
		SELECT s, ga.name, g::text FROM ga, LATERAL gpuops.group_agg(f8, vi) g;
	END LOOP;
END
$$;
SELECT s.strategy, count(*) AS rows,
       (SELECT count(*) FROM ((SELECT name, r FROM ga_by_strategy WHERE strategy = s.strategy
                               EXCEPT ALL SELECT name, r FROM ga_by_strategy WHERE strategy = 'auto')
                              UNION ALL
                              (SELECT name, r FROM ga_by_strategy WHERE strategy = 'auto'
                               EXCEPT ALL SELECT name, r FROM ga_by_strategy WHERE strategy = s.strategy)) x)
         AS differ_from_auto
  FROM ga_by_strategy s GROUP BY s.strategy ORDER BY s.strategy;
