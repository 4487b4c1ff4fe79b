-- Custom Scan (GpuOpsAgg): plain SQL GROUP BY through gpuops, checked
-- against PostgreSQL's own answer.  pg_temp.check runs a query with the node
-- (and fails loudly if the planner did not use it) and without it, and
-- counts the rows of EXCEPT ALL both ways.  Every float value is a small
-- dyadic fraction or a special value, so no summation order changes a sum.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql

SELECT setseed(0.42);
CREATE TABLE agg_t (i int4, k int4, k2 int8, ks int2, kb bool, kd date,
                    kts timestamp, ktz timestamptz, kf4 float4, kf8 float8,
                    v float8, v4 float4, w int4, w2 int2, w8 int8, txt text);
INSERT INTO agg_t
SELECT i,
       CASE WHEN r1 < 0.02 THEN NULL ELSE (r2 * 1000)::int END,
       CASE WHEN i % 997 = 0 THEN 9223372036854775807
            WHEN i % 991 = 0 THEN -9223372036854775808
            ELSE (r3 * 1e12)::int8 % 40000 END,
       CASE WHEN i % 101 = 0 THEN NULL WHEN i % 103 = 0 THEN -32768
            WHEN i % 107 = 0 THEN 32767 ELSE (i % 50)::int2 END,
       CASE i % 3 WHEN 0 THEN NULL WHEN 1 THEN true ELSE false END,
       CASE WHEN i % 89 = 0 THEN NULL ELSE date '2020-01-01' + i % 400 END,
       timestamp '2020-01-01' + (i % 5000) * interval '1 hour',
       timestamptz '2020-01-01 00:00+00' + (i % 7000) * interval '1 minute',
       CASE i % 41 WHEN 0 THEN 'NaN' WHEN 1 THEN 'Infinity' WHEN 2 THEN '-Infinity'
            WHEN 3 THEN '-0' WHEN 4 THEN NULL ELSE (i % 37) / 4.0 END,
       CASE i % 43 WHEN 0 THEN 'NaN' WHEN 1 THEN '-0' WHEN 2 THEN NULL
            ELSE (i % 29 - 14) / 8.0 END,
       CASE WHEN r4 < 0.03 THEN NULL
            WHEN i % 5003 = 0 THEN 'NaN'
            WHEN i % 4999 = 0 THEN 'Infinity'
            WHEN i % 4993 = 0 THEN '-Infinity'
            ELSE (i % 2001 - 1000) / 8.0 END,
       CASE WHEN i % 17 = 0 THEN NULL ELSE (i % 41 - 20) / 4.0 END,
       CASE WHEN i % 19 = 0 THEN NULL WHEN i % 23 = 0 THEN 2147483647
            WHEN i % 29 = 0 THEN -2147483648 ELSE i % 1000 - 500 END,
       CASE WHEN i % 31 = 0 THEN NULL WHEN i % 37 = 0 THEN 32767
            ELSE (i % 200 - 100)::int2 END,
       CASE WHEN i % 13 = 0 THEN NULL
            ELSE 4611686018427387904 + i::int8 * 1000000007 END,
       CASE WHEN i % 7 = 0 THEN NULL ELSE md5(i::text) END
FROM (SELECT i, random() r1, random() r2, random() r3, random() r4
      FROM generate_series(1, 100000) i) s;
ANALYZE agg_t;

-- ---- plans ----

-- eligible: one or several plain keys, or none; WHERE split into device
-- and CPU clauses; HAVING, ORDER BY and LIMIT on top
SELECT pg_temp.plan('SELECT k, count(*), sum(v), avg(v), min(v), max(v) FROM agg_t GROUP BY k');
SELECT pg_temp.plan('SELECT k, kb, count(w) FROM agg_t WHERE w > 0 AND (v < 10 OR kb) AND txt ILIKE ''a%'' GROUP BY k, kb');
SELECT pg_temp.plan('SELECT count(*), sum(w8) FROM agg_t WHERE k IN (1, 2, 3) AND kd BETWEEN ''2020-02-01'' AND ''2020-03-01''');
SELECT pg_temp.plan('SELECT k, sum(v) FROM agg_t GROUP BY k HAVING count(*) > 90 ORDER BY 2 DESC LIMIT 3');
-- an expression key is computed on the device (sql/agg_expr.sql has more)
SELECT pg_temp.plan('SELECT k + 1, count(*) FROM agg_t GROUP BY k + 1');
-- up to 8 grouping keys (packed into one engine key, ranked where wide),
-- or 7 and a count(DISTINCT); 9 keep the native plan
SELECT pg_temp.check('SELECT k, k2, ks, kb, kd, kts, kf4, kf8, count(*) AS n, sum(w) AS s
	FROM agg_t GROUP BY 1, 2, 3, 4, 5, 6, 7, 8');
SELECT pg_temp.check('SELECT ks, kb, kd, w2, kf8, k, count(*) AS n, min(v) AS m FROM agg_t GROUP BY 1, 2, 3, 4, 5, 6');
SELECT pg_temp.check('SELECT ks, kb, kd, w2, kf8, k, kf4, count(DISTINCT w) AS c, count(*) AS n
	FROM agg_t GROUP BY 1, 2, 3, 4, 5, 6, 7');
SELECT pg_temp.check_order('SELECT ks, kb, w2, kd, k, kf8, count(*) FROM agg_t
	GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6');
SELECT pg_temp.check('SELECT k, k2, ks, kb, kd, kts, kf4, kf8, w2, count(*) AS n
	FROM agg_t GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9');
SELECT pg_temp.check('SELECT k, k2, ks, kb, kd, kts, kf4, kf8, count(DISTINCT w2) AS n
	FROM agg_t GROUP BY 1, 2, 3, 4, 5, 6, 7, 8');
-- not eligible: a DISTINCT sum, a FILTER the engine can't evaluate,
-- numeric input, a full join (star joins: agg_star), a subquery in WHERE,
-- grouping sets
SELECT pg_temp.plan('SELECT sum(DISTINCT k) FROM agg_t');
SELECT pg_temp.plan('SELECT sum(v) FILTER (WHERE txt ILIKE ''a%'') FROM agg_t');
SELECT pg_temp.plan('SELECT sum(v::numeric) FROM agg_t');
SELECT pg_temp.plan('SELECT a.k, count(*) FROM agg_t a FULL JOIN agg_t b ON a.i = b.i GROUP BY a.k');
SELECT pg_temp.plan('SELECT count(*) FROM agg_t WHERE v > (SELECT avg(v) FROM agg_t)');
SELECT pg_temp.plan('SELECT k, kb, count(*) FROM agg_t GROUP BY ROLLUP (k, kb)');
-- switched off
SET gpuops.enabled = off;
SELECT pg_temp.plan('SELECT k, count(*) FROM agg_t GROUP BY k');
RESET gpuops.enabled;

-- ---- results equal PostgreSQL's ----

-- every key type; aggregates over every value type
SELECT pg_temp.check('SELECT k, count(*) AS count_all, count(v) AS count_v, sum(v) AS sum_v, avg(v) AS avg_v, min(v) AS min_v, max(v) AS max_v FROM agg_t GROUP BY k');
SELECT pg_temp.check('SELECT k2, count(*) AS count_all, sum(w8) AS sum_w8, avg(w8) AS avg_w8, min(w8) AS min_w8, max(w8) AS max_w8 FROM agg_t GROUP BY k2');
SELECT pg_temp.check('SELECT ks, sum(w2) AS sum_w2, avg(w2) AS avg_w2, min(w2) AS min_w2, max(w2) AS max_w2, sum(w) AS sum_w, avg(w) AS avg_w, count(w) AS count_w FROM agg_t GROUP BY ks');
SELECT pg_temp.check('SELECT kb, count(*) AS count_all, sum(v4) AS sum_v4, avg(v4) AS avg_v4, min(v4) AS min_v4, max(v4) AS max_v4 FROM agg_t GROUP BY kb');
SELECT pg_temp.check('SELECT kd, count(kd) AS count_kd, min(kts) AS min_kts, max(ktz) AS max_ktz, min(kd) AS min_kd, max(kd) AS max_kd FROM agg_t GROUP BY kd');
SELECT pg_temp.check('SELECT kts, count(*) AS count_all, sum(w) AS sum_w FROM agg_t GROUP BY kts');
SELECT pg_temp.check('SELECT ktz, count(*) AS count_all, max(v) AS max_v FROM agg_t GROUP BY ktz');
SELECT pg_temp.check('SELECT kf4, count(*) AS count_all, sum(w) AS sum_w, min(kf8) AS min_kf8, max(kf8) AS max_kf8 FROM agg_t GROUP BY kf4');
SELECT pg_temp.check('SELECT kf8, count(*) AS count_all, sum(v) AS sum_v, min(kf4) AS min_kf4, max(kf4) AS max_kf4, avg(kf4) AS avg_kf4 FROM agg_t GROUP BY kf8');
-- several keys: packed, ranked and combined
SELECT pg_temp.check('SELECT k, kb, count(*) AS count_all, sum(v) AS sum_v FROM agg_t GROUP BY k, kb');
SELECT pg_temp.check('SELECT ks, kf8, kd, count(*) AS count_all, min(w) AS min_w, max(w) AS max_w FROM agg_t GROUP BY ks, kf8, kd');
SELECT pg_temp.check('SELECT k2, k, ks, kb, count(*) AS count_all, sum(w8) AS sum_w8 FROM agg_t GROUP BY k2, k, ks, kb');
SELECT pg_temp.check('SELECT kts, ktz, kf4, count(*) AS count_all FROM agg_t GROUP BY kts, ktz, kf4');
-- text and varchar keys (dictionary codes), NULLs and long compressed values
CREATE TABLE agg_txt (s text, c varchar(10), k int, v float8, b char(3));
INSERT INTO agg_txt SELECT CASE WHEN i % 17 = 0 THEN NULL ELSE 'key' || (i % 37) END,
                           'c' || (i % 3), i % 5, i / 4.0, 'x'
                    FROM generate_series(1, 20000) i;
INSERT INTO agg_txt SELECT repeat('long', 1000) || (i % 2), NULL, 1, 1, 'y'
                    FROM generate_series(1, 10) i;
ANALYZE agg_txt;
SELECT pg_temp.plan('SELECT s, count(*) FROM agg_txt WHERE k > 1 GROUP BY s');
SELECT pg_temp.check('SELECT s, count(*) AS n, sum(v) AS sv FROM agg_txt GROUP BY s');
SELECT pg_temp.check('SELECT s, c, k, count(*) AS n, sum(v) AS sv, max(v) AS mv FROM agg_txt WHERE k > 1 GROUP BY s, c, k');
SELECT pg_temp.check('SELECT c, count(*) AS n FROM agg_txt WHERE s LIKE ''key1%'' GROUP BY c');
SELECT pg_temp.check('SELECT txt, count(*) AS n, max(i) AS mi FROM agg_t GROUP BY txt');
SELECT length(s), count(*) FROM agg_txt WHERE length(s) > 100 GROUP BY s ORDER BY 1;
-- count of a column of any type: read for its NULLs alone, in page batches
-- (long and toasted values too), with a key of it or not, a column added
-- later with a default, and FILTER
SELECT pg_temp.check('SELECT k, count(s) AS ns, count(c) AS nc, count(b) AS nb, count(*) AS n FROM agg_txt GROUP BY k');
SELECT pg_temp.check('SELECT count(s) AS ns, count(c) FILTER (WHERE k > 2) AS nc FROM agg_txt');
SELECT pg_temp.check('SELECT s, count(s) AS ns, count(c) AS nc FROM agg_txt GROUP BY s');
SELECT pg_temp.check('SELECT c, count(c) AS nc, count(s) AS ns FROM agg_txt GROUP BY c');
SELECT pg_temp.table_read('SELECT k, count(s) FROM agg_txt GROUP BY k');
ALTER TABLE agg_txt ADD COLUMN later text DEFAULT 'x', ADD COLUMN js jsonb;
UPDATE agg_txt SET js = '{"a": 1}' WHERE k = 3;
SELECT pg_temp.check('SELECT k, count(later) AS nl, count(js) AS nj FROM agg_txt GROUP BY k');
ALTER TABLE agg_txt DROP COLUMN later, DROP COLUMN js;
-- char(n) keys: every value is padded to n characters, so byte equality
-- is bpchar's; a bpchar without a length compares ignoring trailing
-- blanks, and a nondeterministic collation groups unequal bytes: both keep
-- the native plan
SELECT pg_temp.plan('SELECT b, count(*) FROM agg_txt GROUP BY b');
CREATE TABLE agg_bp (c3 char(3), c1 character, cb bpchar, k int);
INSERT INTO agg_bp SELECT CASE WHEN i % 11 = 0 THEN NULL WHEN i % 7 = 0 THEN ''
                               ELSE chr(97 + i % 5) || CASE WHEN i % 3 = 0 THEN ' ' ELSE 'z' END END,
                          chr(65 + i % 4), repeat(' ', i % 3), i % 4
                   FROM generate_series(1, 3000) i;
ANALYZE agg_bp;
SELECT pg_temp.check('SELECT c3, count(*) AS n, sum(k) AS s FROM agg_bp GROUP BY c3');
SELECT pg_temp.check('SELECT c1, c3, k, count(*) AS n FROM agg_bp WHERE k > 0 GROUP BY c1, c3, k');
SELECT c3, length(c3), octet_length(c3), count(*) FROM agg_bp GROUP BY c3 ORDER BY c3;
SELECT pg_temp.plan('SELECT cb, count(*) FROM agg_bp GROUP BY cb');
DROP TABLE agg_bp;
CREATE COLLATION agg_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT pg_temp.plan('SELECT s COLLATE agg_ci, count(*) FROM agg_txt GROUP BY 1');
ALTER TABLE agg_txt ADD COLUMN sci text COLLATE agg_ci;
SELECT pg_temp.plan('SELECT sci, count(*) FROM agg_txt GROUP BY sci');
-- FILTER clauses: evaluated as masks per batch, shared by the aggregates
-- that repeat them; count(*) FILTER counts the rows where they hold
SELECT pg_temp.plan('SELECT k, count(*) FILTER (WHERE w > 5), sum(v) FILTER (WHERE w > 5) FROM agg_t GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) FILTER (WHERE w > 5) AS c1, sum(v) FILTER (WHERE w > 5) AS s1, sum(v) AS s2, avg(v) FILTER (WHERE w < 3 OR v IS NULL) AS a1, count(v) FILTER (WHERE kb) AS c2, min(kf8) FILTER (WHERE kf8 <> ''NaN'') AS m1, max(w8) FILTER (WHERE w8 IS NULL) AS m2 FROM agg_t WHERE k > 2 GROUP BY k');
SELECT pg_temp.check('SELECT count(*) FILTER (WHERE k IN (1, 2)) AS c1, count(*) FILTER (WHERE k IS NULL) AS c2, sum(w) FILTER (WHERE NOT kb) AS s FROM agg_t');
SELECT pg_temp.check('SELECT kb, ks, count(*) FILTER (WHERE v > 0) AS c FROM agg_t GROUP BY kb, ks');
-- no GROUP BY
SELECT pg_temp.check('SELECT count(*) AS count_all, count(v) AS count_v, sum(v) AS sum_v, avg(w8) AS avg_w8, min(kf8) AS min_kf8, max(kd) AS max_kd, sum(w2) AS sum_w2 FROM agg_t');
SELECT pg_temp.check('SELECT count(*) AS count_all FROM agg_t');
-- keys outside the target list, expressions over aggregates, HAVING
SELECT pg_temp.check('SELECT count(*) AS count_all FROM agg_t GROUP BY k');
SELECT pg_temp.check('SELECT k, sum(v) / count(*) AS mean, count(*) + 1 AS n1, max(w)::int8 - min(w) AS spread FROM agg_t GROUP BY k');
SELECT pg_temp.check('SELECT k, sum(v) AS sum_v FROM agg_t GROUP BY k HAVING count(*) > 100 AND max(v) > 50');
SELECT pg_temp.check('SELECT ks, count(*) AS count_all FROM agg_t GROUP BY ks HAVING ks > 10');
SELECT * FROM (SELECT k, sum(v), count(*) FROM agg_t GROUP BY k HAVING count(*) > 90
               ORDER BY 3 DESC, 1 LIMIT 4) s;

-- groups come out in key order (NULLs last), so ORDER BY the keys needs no
-- Sort; any other order, or text keys, get one
SELECT pg_temp.plan('SELECT k, count(*) FROM agg_t GROUP BY k ORDER BY k');
SELECT pg_temp.check_order('SELECT k, count(*) AS n, sum(v) AS s FROM agg_t GROUP BY k ORDER BY k');
SELECT pg_temp.check_order('SELECT kf8, ks, count(*) AS n FROM agg_t GROUP BY kf8, ks ORDER BY kf8, ks');
SELECT pg_temp.check_order('SELECT kd, kb, k2, count(*) AS n FROM agg_t GROUP BY kd, kb, k2 ORDER BY kd, kb, k2');
SELECT pg_temp.check_order('SELECT kts, count(*) AS n FROM agg_t WHERE k < 10 GROUP BY kts ORDER BY kts LIMIT 20');
SELECT pg_temp.check_order('SELECT k, count(*) AS n FROM agg_t GROUP BY k ORDER BY k DESC');
SELECT pg_temp.check_order('SELECT k, count(*) AS n FROM agg_t GROUP BY k ORDER BY k NULLS FIRST');
SELECT pg_temp.check_order('SELECT ks, k, count(*) AS n FROM agg_t GROUP BY ks, k ORDER BY k, ks');
SELECT pg_temp.check_order('SELECT txt, count(*) AS n FROM agg_t WHERE k = 7 GROUP BY txt ORDER BY txt');

-- WHERE on the device, on the CPU, and both
SELECT q, pg_temp.check('SELECT k, count(*) AS count_all, sum(v) AS sum_v, count(w) AS count_w FROM agg_t WHERE ' || q || ' GROUP BY k') FROM (VALUES
  ('w > 0 AND v < 10'),
  ('k IN (1, 2, 3, NULL)'),
  ('k NOT IN (5, 6)'),
  ('k NOT IN (5, NULL)'),
  ('kf8 = ''NaN'''),
  ('kf8 > ''Infinity'''),
  ('kf8 <> ''NaN'' AND kf8 >= 0'),
  ('kf4 = 0'),
  ('kf4 < ''-Infinity''::float8'),
  ('v BETWEEN -5 AND 5'),
  ('v NOT BETWEEN -5 AND 5'),
  ('NOT (k < 500)'),
  ('kb'),
  ('NOT kb'),
  ('kb IS NULL OR v IS NULL'),
  ('k IS NOT NULL AND ks <> 3'),
  ('k2 >= 9223372036854775807'),
  ('k2 = -9223372036854775808 OR k2 < 10'),
  ('w2 < 10::int8 AND w8 > 4611686018427387904'),
  ('ks = 32767 OR ks = -32768'),
  ('kd >= ''2020-06-01'''),
  ('kts < ''2020-03-01'' AND ktz > ''2020-01-02 00:00+00'''),
  ('(k > 10 OR v IS NULL) AND ks <> 3'),
  ('w > 0 AND length(txt) > 3 AND txt < ''8'''),
  ('txt LIKE ''a%'''),
  ('k > 100000')
) q(q);
SELECT pg_temp.check('SELECT count(*) AS count_all, sum(v) AS sum_v, min(k) AS min_k FROM agg_t WHERE k > 100000');
SELECT count(*), sum(v), min(k), avg(w) FROM agg_t WHERE k > 100000;
-- most rows pass and the one key has no NULL: the failing rows' keys become
-- NULL instead of being compacted away, and that NULL group is dropped (the
-- key also as a value, a FILTER on it, extreme keys, 64-row batches); a key
-- with NULLs, or few rows passing, still compacts
SELECT q, pg_temp.check(q) FROM (VALUES
  ('SELECT kts, count(*) AS n, sum(v) AS s, count(kts) AS nk, max(kts) AS mk, max(w) AS mw FROM agg_t WHERE w > -400 GROUP BY kts'),
  ('SELECT k2, count(*) AS n, sum(w) FILTER (WHERE k2 > 100) AS f, min(k2) AS m FROM agg_t WHERE v IS NOT NULL GROUP BY k2'),
  ('SELECT ktz, count(*) AS n, avg(w8) AS a FROM agg_t WHERE kf8 <> ''NaN'' OR kf8 IS NULL GROUP BY ktz'),
  ('SELECT kts, count(*) AS n FROM agg_t WHERE w < -400 GROUP BY kts'),
  ('SELECT k, count(*) AS n, sum(v) AS s FROM agg_t WHERE w > -400 GROUP BY k')
) t(q);
SET gpuops.debug_chunk_size = 512;
SELECT pg_temp.check('SELECT kts, count(*) AS n, sum(v) AS s, max(w) AS mw FROM agg_t WHERE w > -400 GROUP BY kts');
SELECT pg_temp.check('SELECT k2, count(*) AS n, min(k2) AS m FROM agg_t WHERE v IS NOT NULL GROUP BY k2');
RESET gpuops.debug_chunk_size;

-- a rescan: the node on the inner side of a nested loop, once per outer row
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT pg_temp.plan('SELECT g, s.n FROM generate_series(1, 3) g LEFT JOIN (SELECT k, count(*) n FROM agg_t GROUP BY k) s ON s.k = g');
SELECT pg_temp.check('SELECT g, s.n, s.sv FROM generate_series(1, 3) g LEFT JOIN (SELECT k, count(*) n, sum(v) sv FROM agg_t GROUP BY k) s ON s.k = g');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- every strategy, and batches of a few rows (gpuops.debug_chunk_size) so that
-- groups meet across batch seams
SET gpuops.agg_strategy = dense;
SELECT pg_temp.check('SELECT k, count(*) AS count_all, sum(v) AS sum_v, min(v) AS min_v, max(w) AS max_w FROM agg_t GROUP BY k');
-- dense where it cannot apply (int8 keys over the whole range, float keys,
-- two keys whose packed range is wide): the node groups as under auto
SELECT pg_temp.check('SELECT k2, count(*) AS count_all, sum(w) AS sum_w FROM agg_t GROUP BY k2');
SELECT pg_temp.check('SELECT kf8, count(*) AS count_all, min(v) AS min_v FROM agg_t GROUP BY kf8');
SELECT pg_temp.check('SELECT k, k2, count(*) AS count_all FROM agg_t GROUP BY k, k2');
SET gpuops.agg_strategy = hash;
SELECT pg_temp.check('SELECT k, count(*) AS count_all, sum(v) AS sum_v, min(v) AS min_v, max(w) AS max_w FROM agg_t GROUP BY k');
SELECT pg_temp.check('SELECT k, kf8, count(*) AS count_all, sum(w8) AS sum_w8 FROM agg_t GROUP BY k, kf8');
SET gpuops.agg_strategy = sort;
SELECT pg_temp.check('SELECT k, count(*) AS count_all, sum(v) AS sum_v, min(v) AS min_v, max(w) AS max_w FROM agg_t GROUP BY k');
SELECT pg_temp.check('SELECT k, kf8, count(*) AS count_all, sum(w8) AS sum_w8 FROM agg_t GROUP BY k, kf8');
RESET gpuops.agg_strategy;
SET gpuops.debug_chunk_size = 4096;
SELECT pg_temp.check('SELECT k, count(*) AS count_all, sum(v) AS sum_v, avg(w8) AS avg_w8, min(kf8) AS min_kf8, max(ktz) AS max_ktz FROM agg_t GROUP BY k');
SELECT pg_temp.check('SELECT kb, ks, count(*) AS count_all, sum(w) AS sum_w FROM agg_t WHERE v > 0 GROUP BY kb, ks');
SELECT pg_temp.check('SELECT count(*) AS count_all, sum(v) AS sum_v FROM agg_t WHERE kf8 = ''NaN''');
SET gpuops.debug_chunk_size = 64;
SELECT pg_temp.check('SELECT k, count(*) AS count_all, sum(v) AS sum_v, max(kd) AS max_kd FROM agg_t WHERE i <= 3000 GROUP BY k');
RESET gpuops.debug_chunk_size;

-- an empty table; a table whose tuples predate added columns; deleted rows
CREATE TABLE agg_empty (k int, v float8);
SELECT pg_temp.check('SELECT k, count(*) AS count_all, sum(v) AS sum_v FROM agg_empty GROUP BY k');
SELECT pg_temp.check('SELECT count(*) AS count_all, sum(v) AS sum_v, max(k) AS max_k FROM agg_empty');
SELECT count(*), sum(v), max(k) FROM agg_empty;
CREATE TABLE agg_old AS SELECT i % 10 AS k FROM generate_series(1, 1000) i;
ALTER TABLE agg_old ADD COLUMN v float8 DEFAULT 2.5, ADD COLUMN w int;
INSERT INTO agg_old SELECT i % 10, i / 4.0, i FROM generate_series(1, 500) i;
DELETE FROM agg_old WHERE k = 3;
UPDATE agg_old SET v = -1 WHERE k = 4;
SELECT pg_temp.check('SELECT k, count(*) AS count_all, count(w) AS count_w, sum(v) AS sum_v, sum(w) AS sum_w, min(v) AS min_v FROM agg_old GROUP BY k');
BEGIN;
DELETE FROM agg_old WHERE k = 5;
INSERT INTO agg_old VALUES (42, 1, 1);
SELECT pg_temp.check('SELECT k, count(*) AS count_all, sum(v) AS sum_v FROM agg_old GROUP BY k');
ROLLBACK;
SELECT pg_temp.check('SELECT k, count(*) AS count_all, sum(v) AS sum_v FROM agg_old GROUP BY k');
-- after VACUUM the pages are all-visible, unused and dead line pointers
-- among the normal ones (the reader copies them and skips those)
UPDATE agg_old SET w = -w WHERE k = 6;
VACUUM agg_old;
SELECT pg_temp.check('SELECT k, count(*) AS count_all, count(w) AS count_w, sum(w) AS sum_w, min(v) AS min_v FROM agg_old GROUP BY k');
SELECT pg_temp.table_read('SELECT k, count(*) FROM agg_old GROUP BY k');

-- ---- partitions and inheritance: every table left after pruning ----

CREATE TABLE agg_p (k int, d date, v float8, w int) PARTITION BY RANGE (d);
CREATE TABLE agg_p1 PARTITION OF agg_p FOR VALUES FROM ('2020-01-01') TO ('2020-07-01');
-- another column order, and a dropped column: other attribute numbers
CREATE TABLE agg_p2 (junk text, w int, v float8, d date, k int);
ALTER TABLE agg_p2 DROP COLUMN junk;
ALTER TABLE agg_p ATTACH PARTITION agg_p2 FOR VALUES FROM ('2020-07-01') TO ('2021-01-01');
CREATE TABLE agg_p3 PARTITION OF agg_p FOR VALUES FROM ('2021-01-01') TO ('2022-01-01')
  PARTITION BY LIST (k);
CREATE TABLE agg_p3a PARTITION OF agg_p3 FOR VALUES IN (1, 2, 3);
CREATE TABLE agg_p3b PARTITION OF agg_p3 DEFAULT;
INSERT INTO agg_p SELECT CASE WHEN i % 50 = 0 THEN NULL ELSE i % 20 END,
                         date '2020-01-01' + i % 700, (i % 101) / 4.0,
                         CASE WHEN i % 9 = 0 THEN NULL ELSE i % 1000 END
                  FROM generate_series(1, 20000) i;
ANALYZE agg_p;
SELECT pg_temp.plan('SELECT k, count(*), sum(v) FROM agg_p WHERE w > 10 GROUP BY k');
SELECT pg_temp.plan('SELECT k, count(*) FROM agg_p WHERE d < ''2020-03-01'' GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s, avg(w) AS a, min(d) AS lo, max(d) AS hi FROM agg_p GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s FROM agg_p WHERE w > 10 AND d >= ''2020-05-01'' GROUP BY k');
SELECT pg_temp.check_order('SELECT d, k, count(*) AS n FROM agg_p GROUP BY d, k ORDER BY d, k');
SELECT pg_temp.check('SELECT d, k, count(*) AS n FROM agg_p WHERE k IN (2, 7) GROUP BY d, k');
SELECT pg_temp.check('SELECT count(*) AS n, max(w) AS m FROM agg_p WHERE d >= ''2021-01-01''');
SELECT pg_temp.check('SELECT k, count(*) FILTER (WHERE w > 500) AS n, sum(v) FILTER (WHERE d < ''2020-09-01'') AS s FROM agg_p GROUP BY k');
-- plain inheritance: the parent's own rows and its child's
CREATE TABLE agg_parent (k int, v float8);
CREATE TABLE agg_child (extra text) INHERITS (agg_parent);
INSERT INTO agg_parent SELECT i % 7, i FROM generate_series(1, 500) i;
INSERT INTO agg_child SELECT i % 5, -i, 'x' FROM generate_series(1, 300) i;
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s FROM agg_parent GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s FROM ONLY agg_parent GROUP BY k');

-- SERIALIZABLE reads through slots (the table AM takes the predicate locks)
SELECT pg_temp.table_read('SELECT k, count(*) FROM agg_old GROUP BY k');
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT pg_temp.table_read('SELECT k, count(*) FROM agg_old GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s FROM agg_old GROUP BY k');
COMMIT;
-- a clause PostgreSQL must evaluate reads through slots; a text key is read
-- in page batches (the backend codes its strings while the pages are pinned)
SELECT pg_temp.table_read('SELECT k, count(*) FROM agg_t WHERE txt ILIKE ''a%'' GROUP BY k');
SELECT pg_temp.table_read('SELECT s, count(*) FROM agg_txt GROUP BY s');

-- ---- errors ----

-- float sums that overflow raise as float8pl does, with or without the node
CREATE TABLE agg_big (k int, v float8, f float4);
INSERT INTO agg_big VALUES (1, 1e308, 3e38), (1, 1e308, 3e38), (2, 1, 1);
SELECT pg_temp.try('SELECT k, sum(v) FROM agg_big GROUP BY k');
SELECT pg_temp.try('SELECT k, sum(f) FROM agg_big GROUP BY k');
SELECT pg_temp.try('SELECT avg(v) FROM agg_big');
SET gpuops.enabled = off;
SELECT pg_temp.try('SELECT k, sum(v) FROM agg_big GROUP BY k');
SELECT pg_temp.try('SELECT k, sum(f) FROM agg_big GROUP BY k');
SELECT pg_temp.try('SELECT avg(v) FROM agg_big');
RESET gpuops.enabled;
-- cancel between batches
SET gpuops.debug_chunk_size = 64;
SET statement_timeout = '10ms';
SELECT pg_temp.try('SELECT k2, count(*) FROM agg_t a GROUP BY k2');
RESET statement_timeout;
RESET gpuops.debug_chunk_size;
SELECT pg_temp.check('SELECT kb, count(*) AS count_all FROM agg_t GROUP BY kb');

-- ---- privileges and row-level security ----

CREATE ROLE agg_reader;
CREATE TABLE agg_rls (owner text, k int, v float8);
INSERT INTO agg_rls SELECT CASE WHEN i % 3 = 0 THEN 'agg_reader' ELSE 'other' END,
                           i % 10, i / 2.0 FROM generate_series(1, 3000) i;
ALTER TABLE agg_rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY agg_own ON agg_rls FOR SELECT USING (owner = current_user);
GRANT SELECT ON agg_rls TO agg_reader;
SET ROLE agg_reader;
-- every clause runs in PostgreSQL, the policy's first
SELECT pg_temp.plan('SELECT k, count(*) FROM agg_rls WHERE v > 10 GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) AS count_all, sum(v) AS sum_v FROM agg_rls WHERE v > 10 GROUP BY k');
SELECT count(*), sum(v) FROM agg_rls;
SELECT pg_temp.try('SELECT count(*) FROM agg_t');
RESET ROLE;
DROP TABLE agg_rls;
DROP ROLE agg_reader;

-- the node serves only databases that have the extension
DROP EXTENSION gpuops;
SELECT pg_temp.plan('SELECT k, count(*) FROM agg_t GROUP BY k');
CREATE EXTENSION gpuops;
SELECT pg_temp.plan('SELECT k, count(*) FROM agg_t GROUP BY k');
