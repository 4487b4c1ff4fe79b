-- differential checks: gpuops against plain SQL on ~100k-element arrays of
-- several shapes and every element type; every query counts mismatches in
-- both directions (EXCEPT ALL), which must be 0

-- deterministic data: h is a multiplicative hash of i (its upper 16 bits)
CREATE TEMP TABLE d_gen AS
SELECT s.name, i, x.h,
       (CASE s.name
          WHEN 'few_values' THEN x.h % 3
          WHEN 'long_runs' THEN i / 997
          WHEN 'constant' THEN 7
          WHEN 'distinct' THEN i
          WHEN 'nulls' THEN CASE WHEN x.h % 7 = 0 THEN NULL ELSE x.h % 2 END
          WHEN 'null_runs' THEN CASE WHEN (i / 50) % 3 = 0 THEN NULL ELSE (i / 100) % 2 END
          WHEN 'all_null' THEN NULL
          WHEN 'rare_changes' THEN CASE WHEN x.h % 1000 = 0 THEN 1 ELSE 0 END
        END)::int AS v
  FROM (VALUES ('few_values', 100000), ('long_runs', 99991), ('constant', 100003),
               ('distinct', 100000), ('nulls', 99999), ('null_runs', 100001),
               ('all_null', 1001), ('rare_changes', 100000)) s(name, n),
       generate_series(1, s.n) i,
       LATERAL (SELECT ((i::bigint * 2654435761) % 4294967296) / 65536 AS h) x;

-- one row per shape, one array per element type, plus a keep mask
CREATE TEMP TABLE d AS
SELECT name, count(*) AS n,
       array_agg(v ORDER BY i) AS i4,
       array_agg((v % 30000)::int2 ORDER BY i) AS i2,
       array_agg(v::int8 * 4294967296 + v ORDER BY i) AS i8,
       array_agg((v / 4.0)::float4 ORDER BY i) AS f4,
       array_agg(CASE v % 5 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN '-0'::float8
                            WHEN 2 THEN '0'::float8 ELSE v / 8.0 END ORDER BY i) AS f8,
       array_agg('2000-01-01'::date + v ORDER BY i) AS dt,
       array_agg('2000-01-01 00:00'::timestamp + v * interval '1 microsecond' ORDER BY i) AS ts,
       array_agg('2000-01-01 00:00+00'::timestamptz + v * interval '1 hour' ORDER BY i) AS tz,
       array_agg(v % 2 = 0 ORDER BY i) AS b,
       array_agg('k' || v ORDER BY i) AS txt,
       array_agg(v::numeric / 4 ORDER BY i) AS num,
       array_agg(CASE WHEN h % 5 = 0 THEN NULL ELSE (h / 7) % 2 = 0 END ORDER BY i) AS keep,
       array_agg(v::int8 * 1000003 - 500000000 ORDER BY i) AS ps8,
       array_agg(v / 8.0 - 7 ORDER BY i)::float8[] AS psf
  FROM d_gen GROUP BY name;
SELECT name, n, cardinality(i4) = n AS sized FROM d ORDER BY name;

-- run-length encoding in plain SQL: gaps and islands over unnest WITH ORDINALITY
CREATE FUNCTION pg_temp.ref_rle(a anyarray)
RETURNS TABLE(value anyelement, start_pos bigint, run_length bigint)
LANGUAGE sql AS $$
  SELECT v, o, coalesce(lead(o) OVER (ORDER BY o), n + 1) - o
    FROM (SELECT v, o, count(*) OVER () AS n,
                 o = 1 OR v IS DISTINCT FROM lag(v) OVER (ORDER BY o) AS head
            FROM unnest(a) WITH ORDINALITY AS u(v, o)) f
   WHERE head
$$;

-- mismatches between gpuops.rle and the plain-SQL runs
CREATE FUNCTION pg_temp.diff_rle(a anyarray) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM (
    (SELECT * FROM gpuops.rle(a) EXCEPT ALL SELECT * FROM pg_temp.ref_rle(a))
    UNION ALL
    (SELECT * FROM pg_temp.ref_rle(a) EXCEPT ALL SELECT * FROM gpuops.rle(a))) x
$$;

-- mismatches between gpuops.unique (with its ordinality) and the plain-SQL run heads
CREATE FUNCTION pg_temp.diff_unique(a anyarray) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM (
    (SELECT v, o FROM gpuops.unique(a) WITH ORDINALITY AS u(v, o)
     EXCEPT ALL
     SELECT value, row_number() OVER (ORDER BY start_pos) FROM pg_temp.ref_rle(a))
    UNION ALL
    (SELECT value, row_number() OVER (ORDER BY start_pos) FROM pg_temp.ref_rle(a)
     EXCEPT ALL
     SELECT v, o FROM gpuops.unique(a) WITH ORDINALITY AS u(v, o))) x
$$;

-- mismatches between gpuops.compact and filtering unnest WITH ORDINALITY
CREATE FUNCTION pg_temp.diff_compact(a anyarray, keep bool[]) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM (
    (SELECT v, o FROM unnest(gpuops.compact(a, keep)) WITH ORDINALITY AS u(v, o)
     EXCEPT ALL
     SELECT v, row_number() OVER (ORDER BY o)
       FROM unnest(a, keep) WITH ORDINALITY AS u(v, k, o) WHERE k)
    UNION ALL
    (SELECT v, row_number() OVER (ORDER BY o)
       FROM unnest(a, keep) WITH ORDINALITY AS u(v, k, o) WHERE k
     EXCEPT ALL
     SELECT v, o FROM unnest(gpuops.compact(a, keep)) WITH ORDINALITY AS u(v, o))) x
$$;

-- mismatches between gpuops.prefix_sum and sum() OVER (ORDER BY ordinality)
CREATE FUNCTION pg_temp.diff_prefix_sum(a int8[], inclusive bool) RETURNS bigint LANGUAGE sql AS $$
  WITH g AS (SELECT s, o FROM unnest(gpuops.prefix_sum(a, inclusive)) WITH ORDINALITY AS u(s, o)),
       r AS (SELECT CASE WHEN v IS NOT NULL THEN
                      CASE WHEN inclusive
                           THEN sum(v) OVER (ORDER BY o ROWS UNBOUNDED PRECEDING)
                           ELSE coalesce(sum(v) OVER (ORDER BY o ROWS BETWEEN UNBOUNDED PRECEDING
                                                                       AND 1 PRECEDING), 0)
                      END
                    END::int8 AS s, o
               FROM unnest(a) WITH ORDINALITY AS u(v, o))
  SELECT count(*) FROM ((TABLE g EXCEPT ALL TABLE r) UNION ALL (TABLE r EXCEPT ALL TABLE g)) x
$$;
CREATE FUNCTION pg_temp.diff_prefix_sum(a float8[], inclusive bool) RETURNS bigint LANGUAGE sql AS $$
  WITH g AS (SELECT s, o FROM unnest(gpuops.prefix_sum(a, inclusive)) WITH ORDINALITY AS u(s, o)),
       r AS (SELECT CASE WHEN v IS NOT NULL THEN
                      CASE WHEN inclusive
                           THEN sum(v) OVER (ORDER BY o ROWS UNBOUNDED PRECEDING)
                           ELSE coalesce(sum(v) OVER (ORDER BY o ROWS BETWEEN UNBOUNDED PRECEDING
                                                                       AND 1 PRECEDING), 0)
                      END
                    END AS s, o
               FROM unnest(a) WITH ORDINALITY AS u(v, o))
  SELECT count(*) FROM ((TABLE g EXCEPT ALL TABLE r) UNION ALL (TABLE r EXCEPT ALL TABLE g)) x
$$;

-- the run counts (the same for every type where the mapping keeps neighbours
-- apart), then the mismatches of rle for every element type
SELECT name, (SELECT count(*) FROM pg_temp.ref_rle(i4)) AS runs,
       (SELECT count(*) FROM gpuops.rle(i4)) AS gpuops_runs,
       (SELECT count(*) FROM pg_temp.ref_rle(f8)) AS f8_runs
  FROM d ORDER BY name;
SELECT name, pg_temp.diff_rle(i2) AS int2, pg_temp.diff_rle(i4) AS int4,
       pg_temp.diff_rle(i8) AS int8, pg_temp.diff_rle(f4) AS float4,
       pg_temp.diff_rle(f8) AS float8, pg_temp.diff_rle(dt) AS date
  FROM d ORDER BY name;
SELECT name, pg_temp.diff_rle(ts) AS timestamp, pg_temp.diff_rle(tz) AS timestamptz,
       pg_temp.diff_rle(b) AS bool, pg_temp.diff_rle(txt) AS text,
       pg_temp.diff_rle(num) AS numeric
  FROM d ORDER BY name;

-- unique
SELECT name, pg_temp.diff_unique(i4) AS int4, pg_temp.diff_unique(i8) AS int8,
       pg_temp.diff_unique(f8) AS float8, pg_temp.diff_unique(b) AS bool,
       pg_temp.diff_unique(txt) AS text
  FROM d ORDER BY name;

-- compact
SELECT name, (SELECT count(*) FROM unnest(keep) k WHERE k) AS kept,
       pg_temp.diff_compact(i4, keep) AS int4, pg_temp.diff_compact(i2, keep) AS int2,
       pg_temp.diff_compact(f8, keep) AS float8, pg_temp.diff_compact(txt, keep) AS text,
       pg_temp.diff_compact(b, keep) AS bool
  FROM d ORDER BY name;
-- the keep mask itself (with NULLs) and masks of every shape
SELECT a.name AS data, m.name AS mask, pg_temp.diff_compact(a.i8, m.b) AS mismatches
  FROM d a JOIN d m ON a.n = m.n ORDER BY 1, 2;

-- prefix_sum, inclusive and exclusive
SELECT name, pg_temp.diff_prefix_sum(ps8, true) AS int8_incl,
       pg_temp.diff_prefix_sum(ps8, false) AS int8_excl,
       pg_temp.diff_prefix_sum(psf, true) AS float8_incl,
       pg_temp.diff_prefix_sum(psf, false) AS float8_excl
  FROM d ORDER BY name;
-- the last prefix equals the array's sum
SELECT name, (gpuops.prefix_sum(ps8))[n] = (SELECT sum(x) FROM unnest(ps8) x) AS int8_total,
       (gpuops.prefix_sum(psf))[n] = (SELECT sum(x) FROM unnest(psf) x) AS float8_total
  FROM d WHERE name NOT IN ('all_null', 'nulls', 'null_runs') ORDER BY name;
