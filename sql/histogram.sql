-- gpuops.histogram: width_bucket(v::float8, lo, hi, bins) counts per bucket,
-- with a given domain or an automatic one (the minimum and maximum finite
-- value, the maximum counted in the last bin)
\set SHOW_CONTEXT never

\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/try.psql

-- 10 values, 4 bins over [0, 10): bins of width 2.5; 10 lies at hi, so in
-- bucket 5 (bins + 1), as width_bucket puts it
SELECT * FROM gpuops.histogram(ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 4, 0, 10);
SELECT width_bucket(v, 0, 10, 4) AS b, count(*)
  FROM unnest(ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) v GROUP BY b ORDER BY b;
-- values exactly at every edge, below lo and above hi: an edge belongs to
-- the bucket it opens; empty buckets are listed with count 0
SELECT * FROM gpuops.histogram(ARRAY[-1, 0, 2.5, 5, 7.5, 10, 10.5, 0]::float8[], 4, 0, 10);
SELECT * FROM gpuops.histogram(ARRAY[0, 0, 9.999]::float8[], 4, 0, 10);
SELECT * FROM gpuops.histogram(ARRAY[3, 3, 3]::float8[], 4, 0, 10);
-- one bin; negative domains; bins that are not exact in binary
SELECT * FROM gpuops.histogram(ARRAY[-5, 0, 1, 2], 1, 0, 2);
SELECT * FROM gpuops.histogram(ARRAY[-3.5, -2, -1, -0.5]::float8[], 3, -3, 0);
SELECT * FROM gpuops.histogram(ARRAY[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]::float8[], 3, 0.1, 0.7);
SELECT width_bucket(v, 0.1, 0.7, 3) AS b, count(*)
  FROM unnest(ARRAY[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]::float8[]) v GROUP BY b ORDER BY b;
-- multi-dimensional arrays are read in storage order; lower bounds do not matter
SELECT * FROM gpuops.histogram('[3:4][0:1]={{1,2},{3,4}}'::int[], 2, 1, 5);

-- NULL and NaN are not counted; -Infinity is below every domain (bucket 0),
-- Infinity above (bins + 1); -0.0 equals 0.0 (bucket 1 of [0, 1))
SELECT * FROM gpuops.histogram(ARRAY[NULL, 'NaN', '-NaN', '-Infinity', 'Infinity', '-0', 0, 0.5, NULL]::float8[], 2, 0, 1);
SELECT width_bucket(v, 0, 1, 2) AS b, count(*)
  FROM unnest(ARRAY[NULL, 'NaN', '-NaN', '-Infinity', 'Infinity', '-0', 0, 0.5, NULL]::float8[]) v
 WHERE v IS NOT NULL AND v <> 'NaN' GROUP BY b ORDER BY b;
SELECT * FROM gpuops.histogram(ARRAY['NaN', '-0', 'Infinity', '-Infinity', 0.25]::float4[], 2, 0, 1);
SELECT * FROM gpuops.histogram(ARRAY[NULL, NULL]::int[], 3, 0, 3);
SELECT * FROM gpuops.histogram(ARRAY['NaN', 'NaN']::float8[], 2, 0, 1);

-- empty array: every bucket 1..bins, count 0
SELECT * FROM gpuops.histogram('{}'::float8[], 3, 0, 3);
-- NULL array or NULL bins: no rows (as STRICT would give)
SELECT count(*) FROM gpuops.histogram(NULL::int[], 3, 0, 3);
SELECT count(*) FROM gpuops.histogram(ARRAY[1, 2], NULL, 0, 3);
SELECT count(*) FROM gpuops.histogram(NULL::int[], 3);

-- every value type, converted to float8 first (as v::float8): int8 above
-- 2^53 rounds (9007199254740993 becomes 9007199254740992, the lower edge of
-- bucket 2), float4 0.1 is 0.100000001490116 (above the float8 edge 0.1)
SELECT * FROM gpuops.histogram(ARRAY[-32768, -1, 0, 1, 32767]::int2[], 2, -32768, 32768);
SELECT * FROM gpuops.histogram(ARRAY[-2147483648, -1, 0, 1, 2147483647]::int4[], 2, -2147483648, 2147483648);
SELECT * FROM gpuops.histogram(ARRAY[9007199254740991, 9007199254740992, 9007199254740993]::int8[],
                               2, 9007199254740990, 9007199254740994);
SELECT width_bucket(v::float8, 9007199254740990, 9007199254740994, 2) AS b, count(*)
  FROM unnest(ARRAY[9007199254740991, 9007199254740992, 9007199254740993]::int8[]) v GROUP BY b ORDER BY b;
SELECT * FROM gpuops.histogram(ARRAY[-9223372036854775808, 9223372036854775807]::int8[], 2,
                               -9223372036854775808, 9223372036854775807);
SELECT * FROM gpuops.histogram(ARRAY[0.1, 0.05, 0.2]::float4[], 2, 0.1, 0.3);
SELECT width_bucket(v::float8, 0.1, 0.3, 2) AS b, count(*)
  FROM unnest(ARRAY[0.1, 0.05, 0.2]::float4[]) v GROUP BY b ORDER BY b;
SELECT * FROM gpuops.histogram(ARRAY[0.1, 0.05, 0.2]::float8[], 2, 0.1, 0.3);

-- domains too wide for width_bucket's own arithmetic (bins * (hi - lo)
-- overflows): the engine computes at half scale; the bounds likewise
SELECT * FROM gpuops.histogram(ARRAY[-1e308, 0, 0.99e308, 1e308, 'Infinity']::float8[], 4, -1e308, 1e308);
SELECT * FROM gpuops.histogram(ARRAY[0, 5e307, 1.7e308]::float8[], 10, 0, 1e308);

-- automatic domain: [min, max] of the finite values; the maximum is counted
-- in bucket bins, -Infinity in 0 and Infinity in bins + 1
SELECT * FROM gpuops.histogram(ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 4);
SELECT * FROM gpuops.histogram(ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 4, NULL, NULL);
SELECT * FROM gpuops.histogram(ARRAY[-3, 5, 'NaN', NULL, 'Infinity', '-Infinity', '-Infinity', 1]::float8[], 2);
SELECT * FROM gpuops.histogram(ARRAY[2.5, 0, 10, 7.5, 5]::float8[], 4);
-- the domain's minimum may be -0: the smallest finite value in float8 order
SELECT * FROM gpuops.histogram(ARRAY[0, '-0', 1]::float8[], 2);
-- all values equal: everything in bucket 1, every bound that value
SELECT * FROM gpuops.histogram(ARRAY[5, 5, 5], 3);
SELECT * FROM gpuops.histogram(ARRAY[5, 'Infinity', '-Infinity', 5]::float8[], 2);
SELECT * FROM gpuops.histogram(ARRAY[7]::int8[], 1);
-- no finite value (empty, all NULL, all NaN, only infinities): nothing is
-- counted, bounds are NULL
SELECT * FROM gpuops.histogram('{}'::int[], 3);
SELECT * FROM gpuops.histogram(ARRAY[NULL, NULL]::int2[], 2);
SELECT * FROM gpuops.histogram(ARRAY['NaN', NULL]::float4[], 2);
SELECT * FROM gpuops.histogram(ARRAY['Infinity', '-Infinity', 'NaN']::float8[], 2);
-- every value type
SELECT * FROM gpuops.histogram(ARRAY[-32768, 0, 32767]::int2[], 2);
SELECT * FROM gpuops.histogram(ARRAY[-2147483648, 0, 2147483647]::int4[], 2);
SELECT * FROM gpuops.histogram(ARRAY[-9223372036854775808, 0, 9223372036854775807]::int8[], 2);
SELECT * FROM gpuops.histogram(ARRAY[0.5, 0.25, 1.5, 'NaN']::float4[], 2);
SELECT * FROM gpuops.histogram(ARRAY[-1.7e308, 1.7e308, 0]::float8[], 4);

-- errors: a bad bucket count or domain is 2201G with width_bucket's messages
SELECT * FROM gpuops.histogram(ARRAY[1, 2], 0, 0, 1);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram(ARRAY[1, 2], 0, 0, 1)$$);
SELECT pg_temp.try($$SELECT width_bucket(1, 0, 1, 0)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram(ARRAY[1, 2], -1)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram(ARRAY[1, 2], 2, 1, 1)$$);
SELECT pg_temp.try($$SELECT width_bucket(1, 1, 1, 2)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram(ARRAY[1, 2], 2, 3, 1)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram(ARRAY[1, 2], 2, 'NaN', 1)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram(ARRAY[1, 2], 2, 0, 'NaN')$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram(ARRAY[1, 2], 2, '-Infinity', 1)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram(ARRAY[1, 2], 2, 0, 'Infinity')$$);
SELECT pg_temp.try($$SELECT width_bucket(1, 0, 'Infinity'::float8, 2)$$);
-- the count is checked first, as width_bucket does
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram(ARRAY[1, 2], 0, 'NaN', 1)$$);
-- only one of lo and hi: 22023
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram(ARRAY[1, 2], 2, 0)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram(ARRAY[1, 2], 2, NULL, 1)$$);
-- more bins than the counts' allocation allows: 54000
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram(ARRAY[1, 2], 134217726)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram(ARRAY[1, 2], 2147483647, 0, 1)$$);
-- other element types: 0A000 with a hint
SELECT * FROM gpuops.histogram(ARRAY[1.5, 2.5]::numeric[], 2);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram(ARRAY['a', 'b'], 2)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram(ARRAY['2024-01-01']::date[], 2)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram(ARRAY[true], 2)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram(ARRAY['2024-01-01']::timestamp[], 2)$$);
-- the numeric values cast as the hint says
SELECT * FROM gpuops.histogram(ARRAY[1.5, 2.5]::numeric[]::float8[], 2);
-- nothing is left behind by an error: the next call works
SELECT * FROM gpuops.histogram(ARRAY[1, 2], 2);

-- ---------------------------------------------------------------------------
-- differential checks against plain SQL on ~100k-element arrays

-- deterministic data: h is a multiplicative hash of i
CREATE TEMP TABLE h_gen AS
SELECT s.name, i,
       (CASE s.name
          WHEN 'uniform' THEN (x.h % 2000000) / 1000.0 - 1000
          WHEN 'ints' THEN (x.h % 121) - 60
          WHEN 'special' THEN CASE x.h % 10 WHEN 0 THEN NULL WHEN 1 THEN 'NaN'
                                            WHEN 2 THEN 'Infinity' WHEN 3 THEN '-Infinity'
                                            WHEN 4 THEN '-0' ELSE (x.h % 1000) / 10.0 - 50 END
          WHEN 'skewed' THEN power((x.h % 1000000) / 1000000.0, 4) * 1000000
          WHEN 'constant' THEN 42
        END)::float8 AS v
  FROM (VALUES ('uniform', 100000), ('ints', 100003), ('special', 99999),
               ('skewed', 100001), ('constant', 1000)) s(name, n),
       generate_series(1, s.n) i,
       LATERAL (SELECT (i::bigint * 2654435761) % 4294967296 AS h) x;

-- one row per shape, one array per value type
CREATE TEMP TABLE h AS
SELECT name, count(*) AS n,
       array_agg(v ORDER BY i) AS f8,
       array_agg(v::float4 ORDER BY i) AS f4,
       array_agg(CASE WHEN v BETWEEN -32768 AND 32767 THEN round(v) END::int2 ORDER BY i) AS i2,
       array_agg(CASE WHEN v BETWEEN -1e9 AND 1e9 THEN round(v) END::int4 ORDER BY i) AS i4,
       array_agg(CASE WHEN v BETWEEN -1e9 AND 1e9 THEN round(v * 1000) END::int8 ORDER BY i) AS i8
  FROM h_gen GROUP BY name;
SELECT name, n, cardinality(f8) = n AS sized FROM h ORDER BY name;

-- the full histogram in plain SQL: width_bucket over the non-NULL, non-NaN
-- values (automatic domain: the finite min/max, -Infinity -> 0,
-- Infinity -> bins + 1, the maximum in bucket bins), every bucket 1..bins,
-- and 0 and bins + 1 when not empty; bounds lo + e * (hi - lo) / bins
CREATE FUNCTION pg_temp.ref_hist(a anyarray, bins int, lo float8 DEFAULT NULL, hi float8 DEFAULT NULL)
RETURNS TABLE(bucket int, lower_bound float8, upper_bound float8, count bigint)
LANGUAGE sql AS $$
  WITH v AS (SELECT x::float8 AS x FROM unnest(a) x WHERE x IS NOT NULL AND x::float8 <> 'NaN'),
       d AS (SELECT coalesce(lo, min(x) FILTER (WHERE x NOT IN ('Infinity', '-Infinity'))) AS lo,
                    coalesce(hi, max(x) FILTER (WHERE x NOT IN ('Infinity', '-Infinity'))) AS hi
               FROM v),
       c AS (SELECT CASE WHEN $3 IS NOT NULL THEN width_bucket(x, d.lo, d.hi, bins)
                         WHEN x = '-Infinity' THEN 0
                         WHEN x = 'Infinity' THEN bins + 1
                         WHEN d.lo = d.hi THEN 1
                         ELSE least(width_bucket(x, d.lo, d.hi, bins), bins) END AS b,
                    count(*) AS n
               FROM v, d WHERE d.lo IS NOT NULL GROUP BY 1),
       e AS (SELECT g AS e, CASE WHEN g = 0 THEN d.lo WHEN g = bins THEN d.hi
                                 ELSE least(greatest(d.lo + (g::float8 * (d.hi - d.lo)) / bins, d.lo), d.hi)
                            END AS edge
               FROM d, generate_series(0, bins) g)
  SELECT g, el.edge, eu.edge, coalesce(c.n, 0)
    FROM generate_series(1, bins) g
         JOIN e el ON el.e = g - 1 JOIN e eu ON eu.e = g
         LEFT JOIN c ON c.b = g
  UNION ALL
  SELECT 0, '-Infinity', d.lo, c.n FROM c, d WHERE c.b = 0
  UNION ALL
  SELECT bins + 1, d.hi, 'Infinity', c.n FROM c, d WHERE c.b = bins + 1
$$;

-- mismatches between gpuops.histogram and ref_hist (every column, both
-- ways), plus rows out of bucket order
CREATE FUNCTION pg_temp.diff_hist(a anyarray, bins int, lo float8 DEFAULT NULL, hi float8 DEFAULT NULL)
RETURNS bigint LANGUAGE sql AS $$
  WITH g AS MATERIALIZED (SELECT * FROM gpuops.histogram(a, bins, lo, hi) WITH ORDINALITY
                                       AS h(bucket, lower_bound, upper_bound, count, o)),
       r AS MATERIALIZED (SELECT * FROM pg_temp.ref_hist(a, bins, lo, hi))
  SELECT (SELECT count(*) FROM ((SELECT bucket, lower_bound, upper_bound, count FROM g
                                 EXCEPT ALL TABLE r)
                                UNION ALL
                                (TABLE r EXCEPT ALL
                                 SELECT bucket, lower_bound, upper_bound, count FROM g)) x)
       + (SELECT count(*) FROM (SELECT bucket, lag(bucket) OVER (ORDER BY o) AS prev FROM g) y
           WHERE prev >= bucket)
$$;

-- mismatches of the non-empty buckets against the plain width_bucket query
CREATE FUNCTION pg_temp.diff_wb(a anyarray, bins int, lo float8, hi float8)
RETURNS bigint LANGUAGE sql AS $$
  WITH g AS MATERIALIZED (SELECT bucket AS b, count FROM gpuops.histogram(a, bins, lo, hi)
                           WHERE count > 0),
       r AS MATERIALIZED (SELECT width_bucket(v::float8, lo, hi, bins) AS b, count(*)
                            FROM unnest(a) v
                           WHERE v IS NOT NULL AND v::float8 <> 'NaN' GROUP BY b)
  SELECT count(*) FROM ((TABLE g EXCEPT ALL TABLE r) UNION ALL (TABLE r EXCEPT ALL TABLE g)) x
$$;

-- the specs: given domains, and automatic ones (lo, hi NULL)
CREATE TEMP TABLE h_spec(bins int, lo float8, hi float8);
INSERT INTO h_spec VALUES (7, -1000, 1000), (10, -50, 50), (1000, 0, 100), (3, 0.1, 0.7),
                          (1, -1, 1), (1, NULL, NULL), (10, NULL, NULL), (1000, NULL, NULL);

-- all 0
SELECT name, bins, lo, hi,
       pg_temp.diff_hist(f8, bins, lo, hi) AS f8, pg_temp.diff_hist(f4, bins, lo, hi) AS f4,
       pg_temp.diff_hist(i2, bins, lo, hi) AS i2, pg_temp.diff_hist(i4, bins, lo, hi) AS i4,
       pg_temp.diff_hist(i8, bins, lo, hi) AS i8
  FROM h, h_spec ORDER BY name, lo NULLS LAST, hi, bins;
SELECT name, bins, lo, hi,
       pg_temp.diff_wb(f8, bins, lo, hi) AS f8, pg_temp.diff_wb(f4, bins, lo, hi) AS f4,
       pg_temp.diff_wb(i2, bins, lo, hi) AS i2, pg_temp.diff_wb(i4, bins, lo, hi) AS i4,
       pg_temp.diff_wb(i8, bins, lo, hi) AS i8
  FROM h, h_spec WHERE lo IS NOT NULL ORDER BY name, lo, hi, bins;
-- many bins (as many as values)
SELECT name, pg_temp.diff_hist(f8, 100000, -1000, 1000) AS f8_given,
       pg_temp.diff_hist(f8, 99999) AS f8_auto, pg_temp.diff_hist(i4, 99999) AS i4_auto
  FROM h WHERE name IN ('uniform', 'special') ORDER BY name;

-- the counts are not trivially zero: buckets, non-empty buckets and values
-- counted for a few specs (hand-checkable totals: the non-NULL, non-NaN
-- elements, minus nothing; 'special' has 10% NULL and 10% NaN)
SELECT name, count(*) AS buckets, count(*) FILTER (WHERE count > 0) AS nonempty, sum(count) AS counted
  FROM h, gpuops.histogram(f8, 10) GROUP BY name ORDER BY name;
SELECT name, count(*) AS buckets, count(*) FILTER (WHERE count > 0) AS nonempty, sum(count) AS counted
  FROM h, gpuops.histogram(f8, 7, -1000, 1000) GROUP BY name ORDER BY name;

-- the same across chunk seams: 64-byte chunks (8 float8 or int8, 16 int4,
-- int2 or float4 values a chunk)
SET gpuops.debug_chunk_size = 64;
SELECT name, bins, lo, hi,
       pg_temp.diff_hist(f8, bins, lo, hi) AS f8, pg_temp.diff_hist(f4, bins, lo, hi) AS f4,
       pg_temp.diff_hist(i2, bins, lo, hi) AS i2, pg_temp.diff_hist(i4, bins, lo, hi) AS i4,
       pg_temp.diff_hist(i8, bins, lo, hi) AS i8
  FROM h, h_spec WHERE bins = 10 ORDER BY name, lo NULLS LAST, hi, bins;
SELECT name, bins, lo, hi,
       pg_temp.diff_wb(f8, bins, lo, hi) AS f8, pg_temp.diff_wb(i4, bins, lo, hi) AS i4
  FROM h, h_spec WHERE lo IS NOT NULL AND bins IN (7, 3) ORDER BY name, lo, hi, bins;
RESET gpuops.debug_chunk_size;
