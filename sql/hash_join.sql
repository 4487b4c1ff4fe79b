-- gpuops.hash_join: every (build_pos, probe_pos) pair of 1-based positions
-- whose keys are equal under PostgreSQL's =, ordered by probe_pos, then
-- build_pos; NULL keys never match
\set SHOW_CONTEXT never

\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/try.psql

-- the join in plain SQL, in the same order
CREATE FUNCTION pg_temp.ref_join(b anyarray, p anyarray)
RETURNS TABLE(build_pos bigint, probe_pos bigint) LANGUAGE sql AS $$
  SELECT bb.i, pp.j
    FROM unnest(b) WITH ORDINALITY bb(k, i) JOIN unnest(p) WITH ORDINALITY pp(k, j) ON bb.k = pp.k
   ORDER BY pp.j, bb.i
$$;

-- duplicates on both sides: every combination; probe 1 (key 2) matches
-- build 2 and 3, probe 3 (key 1) build 1, probe 4 (key 2) build 2 and 3
SELECT * FROM gpuops.hash_join(ARRAY[1, 2, 2, 3], ARRAY[2, 5, 1, 2]);
SELECT * FROM pg_temp.ref_join(ARRAY[1, 2, 2, 3], ARRAY[2, 5, 1, 2]);
SELECT * FROM gpuops.hash_join(ARRAY[7, 7, 7], ARRAY[7, 7]);
-- the build side need not be the smaller one
SELECT * FROM gpuops.hash_join(ARRAY[4], ARRAY[4, 3, 4, 4]);
-- no match, empty arrays, NULL arrays (STRICT: no rows)
SELECT * FROM gpuops.hash_join(ARRAY[1, 2, 3], ARRAY[4, 5, 6]);
SELECT * FROM gpuops.hash_join('{}'::int[], ARRAY[1, 2]);
SELECT * FROM gpuops.hash_join(ARRAY[1, 2], '{}'::int[]);
SELECT * FROM gpuops.hash_join('{}'::int[], '{}'::int[]);
SELECT count(*) FROM gpuops.hash_join(NULL::int[], ARRAY[1]);
SELECT count(*) FROM gpuops.hash_join(ARRAY[1], NULL::int[]);
-- NULL keys never match, not even each other
SELECT * FROM gpuops.hash_join(ARRAY[NULL, 1, NULL, 2]::int[], ARRAY[2, NULL, 1, NULL]::int[]);
SELECT * FROM gpuops.hash_join(ARRAY[NULL, NULL]::int[], ARRAY[NULL]::int[]);
-- multi-dimensional arrays are flattened in storage order; positions are
-- 1-based whatever the lower bounds, as unnest WITH ORDINALITY numbers them
SELECT * FROM gpuops.hash_join('[0:1][5:6]={{1,2},{3,1}}'::int[], '[-3:-1]={1,3,9}'::int[]);
SELECT * FROM pg_temp.ref_join('[0:1][5:6]={{1,2},{3,1}}'::int[], '[-3:-1]={1,3,9}'::int[]);

-- floats: PostgreSQL's = has NaN = NaN and -0 = 0
SELECT 'NaN'::float8 = 'NaN'::float8 AS nan_eq, '-0'::float8 = '0'::float8 AS zero_eq,
       '-NaN'::float8 = 'NaN'::float8 AS negnan_eq, 'NaN'::float4 = 'NaN'::float4 AS nan4_eq,
       '-0'::float4 = '0'::float4 AS zero4_eq;
SELECT * FROM gpuops.hash_join(ARRAY['NaN', '-0', 0, 1.5, 'Infinity', '-Infinity', NULL]::float8[],
                               ARRAY[0, 'NaN', '-NaN', '-Infinity', 1.5, 'Infinity', '-0']::float8[]);
SELECT * FROM pg_temp.ref_join(ARRAY['NaN', '-0', 0, 1.5, 'Infinity', '-Infinity', NULL]::float8[],
                               ARRAY[0, 'NaN', '-NaN', '-Infinity', 1.5, 'Infinity', '-0']::float8[]);
SELECT * FROM gpuops.hash_join(ARRAY['NaN', '-0', 0, 1.5, 'Infinity', NULL]::float4[],
                               ARRAY[0, '-NaN', 'Infinity', 1.5, '-0']::float4[]);
SELECT * FROM pg_temp.ref_join(ARRAY['NaN', '-0', 0, 1.5, 'Infinity', NULL]::float4[],
                               ARRAY[0, '-NaN', 'Infinity', 1.5, '-0']::float4[]);
-- distinct floats that are close stay distinct
SELECT * FROM gpuops.hash_join(ARRAY[0.1, 0.1::float4, 1e-320]::float8[], ARRAY[0.1, 1e-320, 0]::float8[]);

-- integer extremes; int8 -1 has all bits set (the engine's empty-slot
-- pattern), int4 -1 likewise in 32 bits
SELECT * FROM gpuops.hash_join(ARRAY[-32768, 32767, -1, 0]::int2[], ARRAY[0, -1, 32767, -32768]::int2[]);
SELECT * FROM gpuops.hash_join(ARRAY[-2147483648, 2147483647, -1, 0, -1]::int4[],
                               ARRAY[-1, 0, 2147483647, -2147483648]::int4[]);
SELECT * FROM gpuops.hash_join(ARRAY[-9223372036854775808, 9223372036854775807, -1, 0, -1, 4294967295]::int8[],
                               ARRAY[-1, 4294967295, 9223372036854775807, -9223372036854775808, 0]::int8[]);
SELECT * FROM pg_temp.ref_join(ARRAY[-9223372036854775808, 9223372036854775807, -1, 0, -1, 4294967295]::int8[],
                               ARRAY[-1, 4294967295, 9223372036854775807, -9223372036854775808, 0]::int8[]);

-- every other key type
SELECT * FROM gpuops.hash_join(ARRAY['2024-02-29', 'infinity', '-infinity', NULL, '2024-02-29']::date[],
                               ARRAY['-infinity', '2024-02-29', '2024-03-01', 'infinity']::date[]);
SELECT * FROM gpuops.hash_join(ARRAY['2024-02-29 01:02:03.000004', '2024-02-29 01:02:03.000005', 'infinity']::timestamp[],
                               ARRAY['infinity', '2024-02-29 01:02:03.000004']::timestamp[]);
-- timestamptz compares instants: the same instant written in two zones matches
SELECT * FROM gpuops.hash_join(ARRAY['2024-02-29 01:00:00+00', '2024-02-29 01:00:00+01']::timestamptz[],
                               ARRAY['2024-02-29 02:00:00+01', '2024-02-29 00:00:00+00', '-infinity']::timestamptz[]);
SELECT * FROM pg_temp.ref_join(ARRAY['2024-02-29 01:00:00+00', '2024-02-29 01:00:00+01']::timestamptz[],
                               ARRAY['2024-02-29 02:00:00+01', '2024-02-29 00:00:00+00', '-infinity']::timestamptz[]);
SELECT * FROM gpuops.hash_join(ARRAY[true, false, NULL, true], ARRAY[false, true, NULL]);
SELECT * FROM pg_temp.ref_join(ARRAY[true, false, NULL, true], ARRAY[false, true, NULL]);
-- text and varchar: a dictionary of the build keys, byte equality (text =
-- under a deterministic collation); a probe key absent from the build side
-- matches nothing
SELECT * FROM gpuops.hash_join(ARRAY['a', 'b', 'a', NULL, '', 'A', repeat('x', 3000)],
                               ARRAY['a', 'c', NULL, '', 'b', 'A', repeat('x', 3000), 'a ']);
SELECT * FROM pg_temp.ref_join(ARRAY['a', 'b', 'a', NULL, '', 'A', repeat('x', 3000)],
                               ARRAY['a', 'c', NULL, '', 'b', 'A', repeat('x', 3000), 'a ']);
SELECT * FROM gpuops.hash_join(ARRAY['é', 'e', 'ß']::varchar[], ARRAY['ß', 'é', 'ss']::varchar[]);
SELECT * FROM gpuops.hash_join(ARRAY['x' COLLATE "C", 'y'], ARRAY['y', 'x']);
SELECT * FROM gpuops.hash_join(ARRAY['x', 'y'] COLLATE "POSIX", ARRAY['y', 'x']);

-- errors
-- other key types: 0A000 with a hint
SELECT * FROM gpuops.hash_join(ARRAY[1.0, 2.0]::numeric[], ARRAY[1.0]::numeric[]);
SELECT pg_temp.try($$SELECT * FROM gpuops.hash_join(ARRAY['1 day']::interval[], ARRAY['24 hours']::interval[])$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.hash_join(ARRAY['a']::bpchar[], ARRAY['a ']::bpchar[])$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.hash_join(ARRAY[ROW(1, 2)], ARRAY[ROW(1, 2)])$$);
-- keys of two types: the resolver finds no function (cast one side)
SELECT pg_temp.try($$SELECT * FROM gpuops.hash_join(ARRAY[1]::int4[], ARRAY[1]::int8[])$$);
SELECT * FROM gpuops.hash_join(ARRAY[1]::int4[]::int8[], ARRAY[1]::int8[]);
-- a nondeterministic collation: 0A000 (byte equality would not be its =)
CREATE COLLATION pg_temp.ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT 'a' = 'A' COLLATE pg_temp.ci AS ci_equal;
SELECT pg_temp.try($$SELECT * FROM gpuops.hash_join(ARRAY['a'], ARRAY['A'] COLLATE pg_temp.ci)$$);
-- conflicting implicit collations: 42P22, as for text =
CREATE TEMP TABLE coll_t(a text COLLATE "C", b text COLLATE "POSIX");
INSERT INTO coll_t VALUES ('x', 'x');
SELECT pg_temp.try($$SELECT (SELECT count(*) FROM gpuops.hash_join(ARRAY[a], ARRAY[b])) FROM coll_t$$);
SELECT pg_temp.try($$SELECT a = b FROM coll_t$$);
-- a result too large: 12000 x 12000 equal keys are 144000000 pairs, more than
-- the 134217727 an output column can hold: 54000, after counting only
SELECT pg_temp.try($$SELECT count(*) FROM gpuops.hash_join(array_fill(1, ARRAY[12000]), array_fill(1, ARRAY[12000]))$$);
-- nothing is left behind by an error: the next call works
SELECT * FROM gpuops.hash_join(ARRAY[1, 2], ARRAY[2]);

-- ---------------------------------------------------------------------------
-- differential checks: gpuops against the plain-SQL join with its order
-- (the pair's rank by probe_pos, build_pos must be its ordinality), both
-- ways with EXCEPT ALL; 0 expected

CREATE FUNCTION pg_temp.diff_join(b anyarray, p anyarray) RETURNS bigint LANGUAGE sql AS $$
  WITH g AS MATERIALIZED (SELECT * FROM gpuops.hash_join(b, p) WITH ORDINALITY AS x(i, j, o)),
       r AS MATERIALIZED (SELECT i, j, row_number() OVER (ORDER BY j, i) AS o
                            FROM pg_temp.ref_join(b, p) AS y(i, j))
  SELECT count(*) FROM ((TABLE g EXCEPT ALL TABLE r) UNION ALL (TABLE r EXCEPT ALL TABLE g)) z
$$;

-- deterministic keys: h is a multiplicative hash of i.  dups: 1000 build
-- rows over at most 700 values, 100000 probe rows over 1000; nulls: 1 key in 9
-- NULL; hot: one key (3) on 1 build row in 50 and 1 probe row in 20; sparse:
-- 100000 build rows, 1000 probe rows, half of them equal to build row 97 i
CREATE TEMP TABLE j_gen AS
SELECT s.side, s.shape, i,
       CASE s.shape
         WHEN 'dups' THEN x.h % (CASE s.side WHEN 'b' THEN 700 ELSE 1000 END)
         WHEN 'nulls' THEN CASE WHEN x.h % 9 = 0 THEN NULL ELSE x.h % 500 END
         WHEN 'hot' THEN CASE WHEN x.h % (CASE s.side WHEN 'b' THEN 50 ELSE 20 END) = 0 THEN 3
                              ELSE x.h % 50000 END
         WHEN 'sparse' THEN x.h % 2000000000
       END AS k
  FROM (VALUES ('b', 'dups', 1000), ('p', 'dups', 100000),
               ('b', 'nulls', 1000), ('p', 'nulls', 99999),
               ('b', 'hot', 1003), ('p', 'hot', 100001),
               ('b', 'sparse', 100000), ('p', 'sparse', 1000)) s(side, shape, n),
       generate_series(1, s.n) i,
       LATERAL (SELECT (CASE WHEN s.shape <> 'sparse' THEN i::bigint * 2654435761 +
                                  CASE s.side WHEN 'b' THEN 0 ELSE 12345 END
                             WHEN s.side = 'b' THEN i::bigint * 2654435761
                             WHEN i % 2 = 0 THEN i::bigint * 97 * 2654435761
                             ELSE (i::bigint * 97 + 200000) * 2654435761 END)
                       % 4294967296 AS h) x;

CREATE TEMP TABLE j AS
SELECT shape, side, count(*) AS n,
       array_agg(k::int4 ORDER BY i) AS i4,
       array_agg((k % 30000)::int2 ORDER BY i) AS i2,
       array_agg(k::int8 * 4294967296 - k ORDER BY i) AS i8,
       array_agg((k / 4.0)::float4 ORDER BY i) AS f4,
       array_agg(CASE k % 1000 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN '-0'::float8
                               WHEN 2 THEN '0'::float8 ELSE k / 8.0 END ORDER BY i) AS f8,
       array_agg('2000-01-01'::date + (k % 1000000)::int ORDER BY i) AS dt,
       array_agg('2000-01-01 00:00'::timestamp + k * interval '1 microsecond' ORDER BY i) AS ts,
       array_agg('2000-01-01 00:00+00'::timestamptz + k * interval '1 second' ORDER BY i) AS tz,
       array_agg(k % 3 = 0 ORDER BY i) AS bo,
       array_agg('k' || k ORDER BY i) AS tx
  FROM j_gen GROUP BY shape, side;

-- the shapes: sizes and pair counts (from plain SQL)
SELECT b.shape, b.n AS build_n, p.n AS probe_n,
       (SELECT count(*) FROM pg_temp.ref_join(b.i4, p.i4)) AS pairs,
       (SELECT count(*) FROM gpuops.hash_join(b.i4, p.i4)) AS gpuops_pairs
  FROM j b JOIN j p ON p.shape = b.shape AND b.side = 'b' AND p.side = 'p' ORDER BY b.shape;

-- all 0
SELECT b.shape,
       pg_temp.diff_join(b.i4, p.i4) AS i4, pg_temp.diff_join(b.i2, p.i2) AS i2,
       pg_temp.diff_join(b.i8, p.i8) AS i8, pg_temp.diff_join(b.f4, p.f4) AS f4,
       pg_temp.diff_join(b.f8, p.f8) AS f8, pg_temp.diff_join(b.dt, p.dt) AS dt,
       pg_temp.diff_join(b.ts, p.ts) AS ts, pg_temp.diff_join(b.tz, p.tz) AS tz,
       pg_temp.diff_join(b.tx, p.tx) AS tx
  FROM j b JOIN j p ON p.shape = b.shape AND b.side = 'b' AND p.side = 'p' ORDER BY b.shape;
-- bool keys: few distinct values make big results; 300 x 1000 elements
SELECT b.shape, pg_temp.diff_join(b.bo[1:300], p.bo[1:1000]) AS bo,
       (SELECT count(*) FROM gpuops.hash_join(b.bo[1:300], p.bo[1:1000])) AS pairs
  FROM j b JOIN j p ON p.shape = b.shape AND b.side = 'b' AND p.side = 'p'
 WHERE b.shape <> 'sparse' ORDER BY b.shape;
-- a side joined with itself, and the sides swapped
SELECT b.shape, pg_temp.diff_join(b.i4, b.i4) AS self, pg_temp.diff_join(p.f8, b.f8) AS swapped
  FROM j b JOIN j p ON p.shape = b.shape AND b.side = 'b' AND p.side = 'p' ORDER BY b.shape;

-- the same across chunk seams: 64-byte chunks (16 int4, 8 int8 keys a
-- chunk; the outputs are cut the same way)
SET gpuops.debug_chunk_size = 64;
SELECT b.shape,
       pg_temp.diff_join(b.i4, p.i4) AS i4, pg_temp.diff_join(b.i8, p.i8) AS i8,
       pg_temp.diff_join(b.f8, p.f8) AS f8, pg_temp.diff_join(b.tx, p.tx) AS tx,
       CASE WHEN b.shape <> 'sparse' THEN pg_temp.diff_join(b.bo[1:300], p.bo[1:1000]) END AS bo
  FROM j b JOIN j p ON p.shape = b.shape AND b.side = 'b' AND p.side = 'p' ORDER BY b.shape;
RESET gpuops.debug_chunk_size;
