-- The column cache's ranges kept by the GPU service on its device: a cached
-- table's fresh ranges are handed to the service when they are filled, and
-- GpuOpsAgg sends the service its WHERE program, key and value columns
-- instead of the rows; the service filters and groups the kept ranges, and
-- the reader reads only the rest.  Every query is checked against
-- PostgreSQL's own answer, with the ranges the service aggregated shown:
-- all of them; after updates (stale ranges from the heap, the rest from the
-- device); inside the changing transaction; after VACUUM and
-- gpuops.cache_refresh (kept again); after TRUNCATE; and what keeps a query
-- off the kept ranges.  (In CI the service runs on the CPU face:
-- gpuops.debug_gpu_service.)
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql

-- the ranges the GPU service aggregated from its device when q ran
CREATE FUNCTION pg_temp.on_device(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	line text;
	n bigint := 0;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF line LIKE '%Ranges On Device:%' THEN
			n := split_part(line, ':', 2)::bigint;
		END IF;
	END LOOP;
	RETURN n;
END
$$;

-- the worker processes launched when q ran, and whether the service
-- aggregated some ranges from its device
CREATE FUNCTION pg_temp.workers(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	w text := '0';
	d bigint := 0;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF line LIKE '%Workers Launched:%' THEN
			w := btrim(split_part(line, ':', 2));
		ELSIF line LIKE '%Ranges On Device:%' THEN
			d := split_part(line, ':', 2)::bigint;
		END IF;
	END LOOP;
	RETURN format('%s workers, ranges on device: %s', w, d > 0);
END
$$;

-- the lines of q's EXPLAIN ANALYZE that start with one of names
CREATE FUNCTION pg_temp.lines(q text, names text[]) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF split_part(btrim(line), ':', 1) = ANY (names) THEN
			RETURN NEXT btrim(line);
		END IF;
	END LOOP;
END
$$;

-- what the service keeps of this database's cached tables
CREATE FUNCTION pg_temp.kept() RETURNS TABLE (relation regclass, ranges bigint,
	fresh bigint, on_device bigint, has_bytes boolean)
LANGUAGE sql AS $$
	SELECT relation, ranges, ranges_fresh, ranges_on_device, device_bytes > 0
	FROM gpuops.cache_status() ORDER BY relation::text
$$;

SET gpuops.cache_range_blocks = 4;
-- (room for worker processes on a machine of 2 cores)
ALTER SYSTEM SET gpuops.max_threads = 6;
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
CREATE TABLE kd (id int, k int, v int8, w int4, x float8, s int2, d date);
INSERT INTO kd
SELECT i,
	   CASE WHEN i % 101 = 0 THEN NULL ELSE i % 37 END,
	   CASE WHEN i % 97 = 0 THEN NULL WHEN i = 17 THEN 9223372036854775807
			WHEN i = 18 THEN -9223372036854775807 ELSE i * 1000 END,
	   i % 100,
	   CASE WHEN i % 89 = 0 THEN NULL WHEN i = 5 THEN 'NaN'::float8
			WHEN i = 6 THEN '-Infinity' WHEN i = 7 THEN '-0' ELSE (i % 50) * 0.5 END,
	   (i % 7)::int2,
	   date '2020-01-01' + i % 400
FROM generate_series(1, 20000) i;
VACUUM (FREEZE, ANALYZE) kd;
SELECT gpuops.cache_table('kd', auto_refresh => false) > 0 AS cached;
SELECT * FROM pg_temp.kept();

-- the GPU face, through the service (which keeps the ranges)
SET gpuops.device = gpu;
SELECT pg_temp.on_device('SELECT k, count(*), sum(v) FROM kd GROUP BY k') AS ranges_on_device;
SELECT pg_temp.check('SELECT k, count(*), sum(v), min(v), max(v), avg(w) FROM kd GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*), sum(v) FROM kd WHERE w < 50 GROUP BY k');
SELECT pg_temp.check('SELECT s, count(x), min(x), max(x), sum(x) FROM kd WHERE x > 3 OR x IS NULL GROUP BY s');
SELECT pg_temp.check('SELECT d, count(*), max(id) FROM kd WHERE NOT (w BETWEEN 10 AND 80) GROUP BY d');
SELECT pg_temp.check('SELECT w, sum(s), count(k) FROM kd WHERE k IS NULL OR v IS NULL GROUP BY w');
SELECT pg_temp.check('SELECT x, count(*) FROM kd GROUP BY x');
SELECT pg_temp.check('SELECT count(*), sum(v), min(d), max(x), avg(w) FROM kd');
SELECT pg_temp.check('SELECT count(*), sum(w) FROM kd WHERE w BETWEEN 10 AND 12');
SELECT pg_temp.check('SELECT variance(w), stddev(s) FROM kd WHERE k = 3');
-- nothing passes: no group, and one row without GROUP BY
SELECT pg_temp.check('SELECT k, count(*) FROM kd WHERE w > 1000 GROUP BY k');
SELECT pg_temp.check('SELECT count(*), sum(v) FROM kd WHERE w > 1000');
SELECT pg_temp.on_device('SELECT count(*), sum(v) FROM kd WHERE w > 1000') AS ranges_on_device;

-- stale ranges come from the heap, the others from the device
UPDATE kd SET w = w + 1 WHERE id % 1000 = 1;
SELECT fresh < ranges AS some_stale, on_device = fresh AS fresh_ones_kept FROM pg_temp.kept();
SELECT pg_temp.on_device('SELECT k, count(*) FROM kd GROUP BY k') BETWEEN 1 AND
	   (SELECT fresh FROM pg_temp.kept()) AS some_on_device;
SELECT pg_temp.check('SELECT k, count(*), sum(v), max(w) FROM kd GROUP BY k');
SELECT pg_temp.check('SELECT count(*), sum(w) FROM kd WHERE w < 50');
-- worker processes read the stale ranges beside the backend, passing over
-- the blocks the service aggregated
SET gpuops.threads = 6;
SET gpuops.parallel_workers = 2;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET gpuops.gpu_row_cost = 0;
SELECT pg_temp.workers('SELECT k, count(*) FROM kd GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*), sum(v), max(w) FROM kd GROUP BY k');
SELECT pg_temp.check('SELECT count(*), sum(v), min(x) FROM kd WHERE w BETWEEN 20 AND 70');
RESET gpuops.parallel_workers;
RESET gpuops.threads;
RESET parallel_setup_cost;
RESET gpuops.gpu_row_cost;
SET max_parallel_workers_per_gather = 0;
-- a rescan aggregates the kept ranges again
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT pg_temp.check('SELECT g, s.n, s.sv FROM generate_series(1, 3) g LEFT JOIN (SELECT k, count(*) n, sum(v) sv FROM kd GROUP BY k) s ON s.k = g');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
-- inside the changing transaction: its own change is seen
BEGIN;
DELETE FROM kd WHERE id % 500 = 7;
SELECT pg_temp.check('SELECT k, count(*), sum(v) FROM kd GROUP BY k');
ROLLBACK;
-- VACUUM and cache_refresh: the ranges are fresh and kept again
VACUUM kd;
SELECT gpuops.cache_refresh('kd') > 0 AS refreshed;
SELECT fresh = ranges AS all_fresh, on_device = fresh AS all_kept FROM pg_temp.kept();
SELECT pg_temp.check('SELECT k, count(*), sum(v), max(w) FROM kd GROUP BY k');
SELECT pg_temp.on_device('SELECT k, count(*) FROM kd GROUP BY k') =
	   (SELECT ranges FROM pg_temp.kept()) AS all_on_device;
-- the whole table kept: no worker process starts
SET gpuops.threads = 6;
SET gpuops.parallel_workers = 2;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET gpuops.gpu_row_cost = 0;
SELECT pg_temp.workers('SELECT k, count(*) FROM kd GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*), sum(v), max(w) FROM kd GROUP BY k');
RESET gpuops.parallel_workers;
RESET gpuops.threads;
RESET parallel_setup_cost;
RESET gpuops.gpu_row_cost;
SET max_parallel_workers_per_gather = 0;

-- row level security: the policy's clause joins the WHERE program, so the
-- kept ranges give what the role may see
CREATE ROLE regress_gpuops_kd;
GRANT SELECT ON kd TO regress_gpuops_kd;
ALTER TABLE kd ENABLE ROW LEVEL SECURITY;
CREATE POLICY kd_low ON kd FOR SELECT TO regress_gpuops_kd USING (w < 50);
SET ROLE regress_gpuops_kd;
SELECT pg_temp.check('SELECT k, count(*), sum(v), max(w) FROM kd GROUP BY k');
SELECT pg_temp.on_device('SELECT k, count(*) FROM kd GROUP BY k') > 0 AS policy_on_device;
SELECT max(w) < 50 AS policy_held FROM kd;
SET gpuops.device = cpu;
SELECT pg_temp.check('SELECT k, count(*), sum(v), max(w) FROM kd GROUP BY k');
SET gpuops.device = gpu;
RESET ROLE;
DROP POLICY kd_low ON kd;
ALTER TABLE kd DISABLE ROW LEVEL SECURITY;
REVOKE SELECT ON kd FROM regress_gpuops_kd;
DROP ROLE regress_gpuops_kd;

-- expressions in the key and the aggregates: the service computes them over
-- the kept ranges' passing rows, on either face; a passing row's error is
-- raised as PostgreSQL raises it, a failing row's is not
SELECT pg_temp.on_device('SELECT k % 5, count(*) FROM kd GROUP BY 1') > 0 AS expression_key;
SELECT pg_temp.on_device('SELECT sum(w * s) FROM kd WHERE w < 50') > 0 AS expression_value;
SELECT pg_temp.check('SELECT k % 5, count(*), sum(v) FROM kd GROUP BY 1');
SELECT pg_temp.check('SELECT k, sum(w * 2 + s), avg(x * 2), max(w - k), min(v / 3) FROM kd WHERE w < 60 GROUP BY k');
SELECT pg_temp.check('SELECT sum(w * s) a, sum(w * s + 1) b, count(*) FROM kd WHERE w BETWEEN 10 AND 40');
SELECT pg_temp.check('SELECT d + 1, count(*), sum(x * x) FROM kd WHERE k = 4 GROUP BY 1');
SELECT pg_temp.check('SELECT sum(v * 2) FROM kd WHERE id > 100');
SET gpuops.enabled = off;
SELECT sum(v * 2) FROM kd WHERE id < 20;
SELECT k, sum(w / (k - 3)) FROM kd WHERE k BETWEEN 1 AND 5 GROUP BY k;
SET gpuops.enabled = on;
SELECT sum(v * 2) FROM kd WHERE id < 20;
SELECT k, sum(w / (k - 3)) FROM kd WHERE k BETWEEN 1 AND 5 GROUP BY k;
SET gpuops.device = cpu;
SELECT line FROM pg_temp.lines('SELECT k % 5, sum(w * s) FROM kd GROUP BY 1',
							   ARRAY['Ranges Aggregated In Cache']) line;
SELECT pg_temp.check('SELECT k % 5, count(*), sum(w * s), avg(x * 2) FROM kd WHERE w < 70 GROUP BY 1');
SELECT sum(v * 2) FROM kd WHERE id < 20;
SET gpuops.device = gpu;
-- numeric(15,2) columns (scaled integers) and TPC-H's expressions over them
CREATE TABLE kn (k int, p numeric(15,2), dsc numeric(15,2), q numeric(15,2));
INSERT INTO kn SELECT i % 5, (i % 1000) * 1.25 + 0.01, (i % 11) / 100.0, i % 50
FROM generate_series(1, 20000) i;
VACUUM (FREEZE, ANALYZE) kn;
SELECT gpuops.cache_table('kn', auto_refresh => false) > 0 AS cached;
SELECT pg_temp.on_device('SELECT sum(p * dsc) FROM kn WHERE q < 24') > 0 AS numeric_expression;
SELECT pg_temp.check('SELECT sum(p * dsc) FROM kn WHERE dsc BETWEEN 0.05 AND 0.07 AND q < 24');
SELECT pg_temp.check('SELECT k, sum(p * (1 - dsc)) a, sum(p * (1 - dsc) * (1 + dsc)) b, avg(p - q), count(*) FROM kn GROUP BY k');
SET gpuops.device = cpu;
SELECT pg_temp.check('SELECT k, sum(p * (1 - dsc)), avg(q * 2) FROM kn WHERE q > 3 GROUP BY k');
SET gpuops.device = gpu;
SELECT gpuops.uncache_table('kn');
DROP TABLE kn;

-- several integer keys: the GPU service packs them into one from the
-- ranges' bounds (NULL keys included); the CPU face reads them in batches
SELECT pg_temp.on_device('SELECT k, s, count(*) FROM kd GROUP BY k, s') > 0 AS two_keys;
SELECT pg_temp.check('SELECT k, s, count(*), sum(v), max(x) FROM kd GROUP BY k, s');
SELECT pg_temp.check('SELECT s, d, k, count(*), sum(w * 2) FROM kd WHERE w < 40 GROUP BY s, d, k');
SELECT pg_temp.check_order('SELECT k, s, count(*) FROM kd GROUP BY k, s ORDER BY k, s');
-- (v's range is all of int8's: too wide to pack, read from the host copy)
SELECT pg_temp.on_device('SELECT v, k, count(*) FROM kd GROUP BY v, k') AS too_wide;
SELECT pg_temp.check('SELECT v, k, count(*) FROM kd GROUP BY v, k');
-- char(1) keys (their short text codes) as TPC-H Q1 groups, NULLs included
CREATE TABLE kc (f char(1), s char(1), q numeric(15,2), d date);
INSERT INTO kc SELECT chr(65 + i % 3), CASE WHEN i % 17 = 0 THEN NULL ELSE chr(70 + i % 2) END,
	(i % 50) + 0.25, date '1998-01-01' + i % 300
FROM generate_series(1, 20000) i;
VACUUM (FREEZE, ANALYZE) kc;
SELECT gpuops.cache_table('kc', auto_refresh => false) > 0 AS cached;
SELECT pg_temp.on_device('SELECT f, s, count(*) FROM kc GROUP BY f, s') > 0 AS short_text_keys;
SELECT pg_temp.check_order('SELECT f, s, sum(q), sum(q * (1 - q)), avg(q), count(*) FROM kc WHERE d <= date ''1998-09-02'' GROUP BY f, s ORDER BY f, s');
SET gpuops.device = cpu;
SELECT pg_temp.check_order('SELECT f, s, sum(q), sum(q * (1 - q)), avg(q), count(*) FROM kc WHERE d <= date ''1998-09-02'' GROUP BY f, s ORDER BY f, s');
SET gpuops.device = gpu;
SELECT gpuops.uncache_table('kc');
DROP TABLE kc;
SET gpuops.device = cpu;
SELECT pg_temp.check('SELECT k, s, count(*), sum(v), max(x) FROM kd WHERE w > 10 GROUP BY k, s');
SELECT line FROM pg_temp.lines('SELECT k, s, count(*) FROM kd GROUP BY k, s',
							   ARRAY['Rows From Cache', 'Ranges Aggregated In Cache']) line;
SET gpuops.device = gpu;

-- what keeps a query off the kept ranges: FILTER, the CPU face
SELECT pg_temp.on_device('SELECT k, count(*) FILTER (WHERE w > 3) FROM kd GROUP BY k') AS filter;
SET gpuops.device = cpu;
SELECT pg_temp.on_device('SELECT k, count(*) FROM kd GROUP BY k') AS cpu_face;
-- (which aggregates the host cache's ranges in place)
SELECT line FROM pg_temp.lines('SELECT k, count(*) FROM kd GROUP BY k',
							   ARRAY['Ranges Aggregated In Cache']) line;
SELECT pg_temp.check('SELECT k, count(*), sum(v), max(w) FROM kd WHERE w < 90 GROUP BY k');
SET gpuops.device = gpu;
-- gpuops.use_cache off: nothing from the cache at all
SET gpuops.use_cache = off;
SELECT pg_temp.on_device('SELECT k, count(*) FROM kd GROUP BY k') AS use_cache_off;
RESET gpuops.use_cache;

-- VACUUM FULL rewrites the table, whose ranges start their change counts
-- again: the copies of the old file's ranges are never taken for the new
-- file's, whose are handed over by cache_refresh
SELECT sum(kept_ranges) AS kept0,
	   (SELECT on_device FROM pg_temp.kept() WHERE relation = 'kd'::regclass) AS kd0
FROM gpuops.service() \gset
DELETE FROM kd WHERE id <= 2000;
VACUUM FULL kd;
SELECT pg_temp.on_device('SELECT k, count(*) FROM kd GROUP BY k') AS after_rewrite;
SELECT pg_temp.check('SELECT k, count(*), sum(v), max(w) FROM kd GROUP BY k');
VACUUM kd;
SELECT gpuops.cache_refresh('kd') > 0 AS refreshed;
SELECT fresh = ranges AS all_fresh, on_device = fresh AS all_kept FROM pg_temp.kept()
WHERE relation = 'kd'::regclass;
SELECT pg_temp.check('SELECT k, count(*), sum(v), max(w) FROM kd GROUP BY k');
SELECT pg_temp.check('SELECT count(*), sum(v), min(x) FROM kd WHERE w < 30');
SELECT pg_temp.on_device('SELECT k, count(*) FROM kd GROUP BY k') =
	   (SELECT ranges FROM pg_temp.kept() WHERE relation = 'kd'::regclass) AS all_on_device;
-- the service dropped the old file's copies when the new file's came
SELECT :kd0 > 0 AS were_kept,
	   sum(kept_ranges) = :kept0 - :kd0 +
	   (SELECT on_device FROM pg_temp.kept() WHERE relation = 'kd'::regclass) AS old_copies_gone
FROM gpuops.service();

-- gpuops.cache_memory_limit: past it the least recently used ranges go, and
-- a query aggregates those still kept and reads the others
ALTER SYSTEM SET gpuops.cache_memory_limit = '1MB';
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
CREATE TABLE ke (k int, v int8, w int8, x float8);
INSERT INTO ke SELECT i % 13, i, i % 1000, i * 0.25 FROM generate_series(1, 100000) i;
VACUUM (FREEZE, ANALYZE) ke;
SELECT gpuops.cache_table('ke', auto_refresh => false) > 0 AS cached;
SELECT on_device BETWEEN 1 AND fresh - 1 AS some_dropped FROM pg_temp.kept()
WHERE relation = 'ke'::regclass;
SELECT pg_temp.on_device('SELECT k, count(*) FROM ke GROUP BY k') BETWEEN 1 AND
	   (SELECT fresh - 1 FROM pg_temp.kept() WHERE relation = 'ke'::regclass) AS some_on_device;
SELECT pg_temp.check('SELECT k, count(*), sum(v), min(w), max(x) FROM ke GROUP BY k');
SELECT pg_temp.check('SELECT count(*), sum(v) FROM ke WHERE w < 500');
-- uncache_table drops the service's copies too
SELECT sum(kept_ranges) AS kept1,
	   (SELECT on_device FROM pg_temp.kept() WHERE relation = 'ke'::regclass) AS ke1
FROM gpuops.service() \gset
SELECT gpuops.uncache_table('ke');
SELECT :ke1 > 0 AS were_kept, sum(kept_ranges) = :kept1 - :ke1 AS copies_gone
FROM gpuops.service();
DROP TABLE ke;
ALTER SYSTEM RESET gpuops.cache_memory_limit;
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);

-- DROP TABLE of a cached table drops the service's copies too
CREATE TABLE kz (k int, v int8) WITH (autovacuum_enabled = off);
INSERT INTO kz SELECT i % 7, i FROM generate_series(1, 20000) i;
VACUUM (FREEZE, ANALYZE) kz;
SELECT gpuops.cache_table('kz', auto_refresh => false) > 0 AS cached;
SELECT sum(kept_ranges) AS kept2,
	   (SELECT on_device FROM pg_temp.kept() WHERE relation = 'kz'::regclass) AS kz2
FROM gpuops.service() \gset
DROP TABLE kz;
SELECT :kz2 > 0 AS were_kept, sum(kept_ranges) = :kept2 - :kz2 AS copies_gone
FROM gpuops.service();

-- TRUNCATE: nothing is kept fresh, every row from the heap
TRUNCATE kd;
INSERT INTO kd SELECT i, i % 3, i, i, i, 1, date '2020-01-01' FROM generate_series(1, 100) i;
SELECT pg_temp.on_device('SELECT k, count(*) FROM kd GROUP BY k') AS after_truncate;
SELECT pg_temp.check('SELECT k, count(*), sum(v) FROM kd GROUP BY k');
SELECT gpuops.uncache_table('kd');
DROP TABLE kd;
RESET gpuops.device;
RESET gpuops.cache_range_blocks;
ALTER SYSTEM RESET gpuops.max_threads;
SELECT pg_reload_conf();

-- DROP DATABASE frees its cached tables' slots and the service's copies of
-- their ranges (no table's drop is seen then)
SELECT current_database() AS origdb \gset
CREATE DATABASE gpuops_cache_dropped;
\c gpuops_cache_dropped
SET client_min_messages = warning;
CREATE EXTENSION gpuops;
CREATE TABLE kq (k int, v int8) WITH (autovacuum_enabled = off);
INSERT INTO kq SELECT i % 7, i FROM generate_series(1, 20000) i;
VACUUM (FREEZE, ANALYZE) kq;
SET gpuops.cache_range_blocks = 4;
SELECT gpuops.cache_table('kq', auto_refresh => false) > 0 AS cached;
SELECT ranges_on_device AS kq3 FROM gpuops.cache_status() WHERE relation = 'kq'::regclass \gset
SELECT sum(kept_ranges) AS kept3 FROM gpuops.service() \gset
\c :origdb
DROP DATABASE gpuops_cache_dropped;
SELECT :kq3 > 0 AS were_kept, sum(kept_ranges) = :kept3 - :kq3 AS copies_gone
FROM gpuops.service();
