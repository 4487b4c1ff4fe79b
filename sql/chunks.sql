-- gpuops.debug_chunk_size (gpuops.chunk_size below its minimum) cuts arrays into chunks of at most that many bytes:
-- results must not depend on where the chunk seams fall (runs continue
-- across seams, scans carry across them, NULL bitmaps are cut at rows that
-- are not multiples of 8)

-- small arrays printed under 16-byte chunks (4 int4 or float4, 2 int8 or
-- float8, 16 bool per chunk)
SET gpuops.debug_chunk_size = 16;
SELECT * FROM gpuops.rle(ARRAY[2, 2, 2, 5, 5, 9, 9, 9, 9]);
SELECT * FROM gpuops.rle(ARRAY[2, 2, 5, 2]);
SELECT * FROM gpuops.rle(ARRAY[1, 1, 1, 1, 1, NULL, NULL, NULL, NULL, NULL, 1, 1]::int8[]);
SELECT * FROM gpuops.rle(ARRAY['NaN', 'NaN', 'NaN', '-0', '0', '0', '-0', 1]::float8[]);
SELECT * FROM gpuops.unique(ARRAY[7, 7, 7, 7, 7, 7, 7, 8, 8, 7]::int2[]);
SELECT gpuops.prefix_sum(ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]::int8[]);
SELECT gpuops.prefix_sum(ARRAY[1, NULL, 3, 4, NULL, 6, 7, 8, NULL, 10, 11]::int8[], false);
SELECT gpuops.prefix_sum(ARRAY[0.5, 0.25, NULL, 1, 2, 4, NULL]::float8[]);
SELECT gpuops.compact(ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20],
                      ARRAY[true, NULL, false, true, true, true, false, false, NULL, true,
                            true, false, true, NULL, true, false, false, true, true, true]);
-- reaching the largest bigint in a later chunk is fine, passing it is not
SELECT gpuops.prefix_sum(ARRAY[1, 1, 1, 1, 1, 9223372036854775800, 1, 1]::int8[]);
SELECT gpuops.prefix_sum(ARRAY[1, 1, 1, 1, 1, 9223372036854775801, 1, 1]::int8[]);
SELECT gpuops.prefix_sum(ARRAY[1, 1, 1, 1, 1, 9223372036854775801, 1, 1]::int8[], false);
RESET gpuops.debug_chunk_size;

-- arrays of a few thousand elements, with NULLs, of every device type and text
CREATE TEMP TABLE c_gen AS
SELECT s.name, i,
       (CASE s.name
          WHEN 'short_runs' THEN h % 3
          WHEN 'runs' THEN i / 37
          WHEN 'nulls' THEN CASE WHEN h % 5 = 0 THEN NULL ELSE h % 2 END
          WHEN 'null_runs' THEN CASE WHEN (i / 13) % 3 = 0 THEN NULL ELSE (i / 29) % 2 END
          WHEN 'single' THEN 1
        END)::int AS v,
       CASE WHEN h % 11 = 0 THEN NULL ELSE (h / 3) % 2 = 0 END AS k
  FROM (VALUES ('short_runs', 3001), ('runs', 2999), ('nulls', 3000),
               ('null_runs', 2047), ('single', 1)) s(name, n),
       generate_series(1, s.n) i,
       LATERAL (SELECT ((i::bigint * 2654435761) % 4294967296) / 65536 AS h) x;
CREATE TEMP TABLE c AS
SELECT name,
       array_agg(v ORDER BY i) AS i4,
       array_agg(v::int2 ORDER BY i) AS i2,
       array_agg(v::int8 * 4294967296 - v ORDER BY i) AS i8,
       array_agg(v::float4 / 2 ORDER BY i) AS f4,
       array_agg(CASE v WHEN 0 THEN '-0' WHEN 1 THEN '0' ELSE 'NaN' END::float8 ORDER BY i) AS f8,
       array_agg('2020-01-01'::date + v ORDER BY i) AS dt,
       array_agg('2020-01-01'::timestamp + v * interval '1 day' ORDER BY i) AS ts,
       array_agg('2020-01-01 00:00+00'::timestamptz + v * interval '1 second' ORDER BY i) AS tz,
       array_agg(v = 1 ORDER BY i) AS b,
       array_agg(repeat('t', v) ORDER BY i) AS txt,
       array_agg(k ORDER BY i) AS keep,
       array_agg(v::int8 * 3 - 1 ORDER BY i) AS ps8,
       array_agg(v::float8 / 4 - 0.125 ORDER BY i) AS psf
  FROM c_gen GROUP BY name;

-- every operation on every column, as text rows
CREATE FUNCTION pg_temp.c_results()
RETURNS TABLE(name text, op text, pos bigint, r text) LANGUAGE sql AS $$
  SELECT name, 'rle int2', start_pos, x::text FROM c, gpuops.rle(i2) x
  UNION ALL SELECT name, 'rle int4', start_pos, x::text FROM c, gpuops.rle(i4) x
  UNION ALL SELECT name, 'rle int8', start_pos, x::text FROM c, gpuops.rle(i8) x
  UNION ALL SELECT name, 'rle float4', start_pos, x::text FROM c, gpuops.rle(f4) x
  UNION ALL SELECT name, 'rle float8', start_pos, x::text FROM c, gpuops.rle(f8) x
  UNION ALL SELECT name, 'rle date', start_pos, x::text FROM c, gpuops.rle(dt) x
  UNION ALL SELECT name, 'rle timestamp', start_pos, x::text FROM c, gpuops.rle(ts) x
  UNION ALL SELECT name, 'rle timestamptz', start_pos, x::text FROM c, gpuops.rle(tz) x
  UNION ALL SELECT name, 'rle bool', start_pos, x::text FROM c, gpuops.rle(b) x
  UNION ALL SELECT name, 'rle text', start_pos, x::text FROM c, gpuops.rle(txt) x
  UNION ALL SELECT name, 'unique int4', o, v::text FROM c, gpuops.unique(i4) WITH ORDINALITY u(v, o)
  UNION ALL SELECT name, 'unique int8', o, v::text FROM c, gpuops.unique(i8) WITH ORDINALITY u(v, o)
  UNION ALL SELECT name, 'unique float8', o, v::text FROM c, gpuops.unique(f8) WITH ORDINALITY u(v, o)
  UNION ALL SELECT name, 'unique bool', o, v::text FROM c, gpuops.unique(b) WITH ORDINALITY u(v, o)
  UNION ALL SELECT name, 'unique text', o, v::text FROM c, gpuops.unique(txt) WITH ORDINALITY u(v, o)
  UNION ALL SELECT name, 'compact int4', 0, gpuops.compact(i4, keep)::text FROM c
  UNION ALL SELECT name, 'compact int8', 0, gpuops.compact(i8, keep)::text FROM c
  UNION ALL SELECT name, 'compact bool', 0, gpuops.compact(b, keep)::text FROM c
  UNION ALL SELECT name, 'compact text', 0, gpuops.compact(txt, keep)::text FROM c
  UNION ALL SELECT name, 'prefix_sum int8', 1, gpuops.prefix_sum(ps8)::text FROM c
  UNION ALL SELECT name, 'prefix_sum int8', 0, gpuops.prefix_sum(ps8, false)::text FROM c
  UNION ALL SELECT name, 'prefix_sum float8', 1, gpuops.prefix_sum(psf)::text FROM c
  UNION ALL SELECT name, 'prefix_sum float8', 0, gpuops.prefix_sum(psf, false)::text FROM c
$$;
-- the results under the default chunk size (64MB: one chunk per array)
CREATE TEMP TABLE c_default AS SELECT * FROM pg_temp.c_results();
SELECT op, count(*) AS result_rows FROM c_default GROUP BY op ORDER BY op;
-- the run counts, in plain SQL
SELECT sum(runs) FILTER (WHERE col = 'i4') AS int4_runs,
       sum(runs) FILTER (WHERE col = 'b') AS bool_runs,
       sum(runs) FILTER (WHERE col = 'f8') AS float8_runs
  FROM (SELECT 'i4' AS col, count(*) FILTER (WHERE o = 1 OR v IS DISTINCT FROM p) AS runs
          FROM c, LATERAL (SELECT v, o, lag(v) OVER (ORDER BY o) AS p
                             FROM unnest(i4) WITH ORDINALITY u(v, o)) x
        UNION ALL
        SELECT 'b', count(*) FILTER (WHERE o = 1 OR v IS DISTINCT FROM p)
          FROM c, LATERAL (SELECT v, o, lag(v) OVER (ORDER BY o) AS p
                             FROM unnest(b) WITH ORDINALITY u(v, o)) x
        UNION ALL
        SELECT 'f8', count(*) FILTER (WHERE o = 1 OR v IS DISTINCT FROM p)
          FROM c, LATERAL (SELECT v, o, lag(v) OVER (ORDER BY o) AS p
                             FROM unnest(f8) WITH ORDINALITY u(v, o)) x) r;
CREATE TEMP VIEW c_now AS SELECT * FROM pg_temp.c_results();
CREATE TEMP VIEW c_mismatches AS
  SELECT count(*) AS mismatches FROM ((TABLE c_default EXCEPT ALL TABLE c_now)
                                      UNION ALL (TABLE c_now EXCEPT ALL TABLE c_default)) x;

-- the same under chunk sizes that put seams at every few rows, at rows that
-- are and are not multiples of 8, and for each physical width
SET gpuops.debug_chunk_size = 16;
TABLE c_mismatches;
SET gpuops.debug_chunk_size = 24;
TABLE c_mismatches;
SET gpuops.debug_chunk_size = 40;
TABLE c_mismatches;
SET gpuops.debug_chunk_size = 64;
TABLE c_mismatches;
SET gpuops.debug_chunk_size = 100;
TABLE c_mismatches;
SET gpuops.debug_chunk_size = 1000;
TABLE c_mismatches;
SET gpuops.debug_chunk_size = 4096;
TABLE c_mismatches;
-- one thread, many chunks
SET gpuops.threads = 1;
SET gpuops.debug_chunk_size = 24;
TABLE c_mismatches;
RESET gpuops.threads;
RESET gpuops.debug_chunk_size;
TABLE c_mismatches;
