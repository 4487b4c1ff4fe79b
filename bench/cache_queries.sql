-- The column cache: the same dashboard queries over one table, native
-- (parallel workers) vs CPU face vs GPU face, read from the heap (uncached,
-- gpuops.use_cache = off), from the cache, and from the cache with 1% of its
-- ranges stale.  Each run of bench/faces.psql prints, per query, the best
-- of 3 times after a warm-up, the speed-ups and whether each face returned
-- native's rows.  Then a new session's first query, from the cache.
--   psql -v rows=N -f bench/cache_queries.sql
-- rows defaults to 10000000; -v skip_heap=1 leaves out the uncached run.
-- Needs gpuops in shared_preload_libraries and gpuops.host_cache_memory
-- large enough (the table's 4 columns take about
-- 28 bytes a row).  It drops and recreates the table cache_bench.
\if :{?rows}
\else
\set rows 10000000
\endif
\ir setup.psql
DROP TABLE IF EXISTS cache_bench;
CREATE TABLE cache_bench (k int, v int8, w int, x float8);
INSERT INTO cache_bench
SELECT pg_temp.rnd(i, 1, 0, 999), i, pg_temp.rnd(i, 2, 0, 99), pg_temp.rnd(i, 3, 0, 100000) / 8.0
FROM generate_series(1, :rows) i;
VACUUM (FREEZE, ANALYZE) cache_bench;
SELECT gpuops.uncache_table('cache_bench') IS NOT NULL AS reset;

\ir cache_bq.psql

\if :{?skip_heap}
\else
\echo == from the heap (gpuops.use_cache = off)
SET gpuops.use_cache = off;
\ir faces.psql
\endif

\c
\ir setup.psql
\echo == from the cache
SELECT gpuops.cache_table('cache_bench', auto_refresh => false) AS ranges_cached;
SELECT ranges, ranges_cached, ranges_fresh, rows_cached, pg_size_pretty(host_bytes) AS host,
	   ranges_on_device, pg_size_pretty(device_bytes) AS device
FROM gpuops.cache_status() WHERE relation = 'cache_bench'::regclass;
\ir cache_bq.psql
\ir faces.psql
\echo == where the GPU face spent groups_1000
SET gpuops.device = gpu;
EXPLAIN (ANALYZE, COSTS OFF)
SELECT k, count(*), sum(v) FROM cache_bench WHERE w < 50 GROUP BY k;
RESET gpuops.device;

\c
\ir setup.psql
\echo == from the cache, 1% of the ranges stale
-- one row in every 100th range (of 1024 blocks) changes
UPDATE cache_bench SET w = w
WHERE ctid = ANY (SELECT format('(%s,1)', b * 1024)::tid
				  FROM generate_series(0, pg_relation_size('cache_bench') / 8192 / 1024, 100) b);
SELECT ranges, ranges_fresh, round(100.0 * (ranges - ranges_fresh) / ranges, 1) AS stale_pct
FROM gpuops.cache_status() WHERE relation = 'cache_bench'::regclass;
\ir cache_bq.psql
\ir faces.psql

\c
\echo == the first query of a new session, from the cache (CPU face), and its second
-- (count(s.*), not count(*): PostgreSQL drops a subquery's outputs the
-- outer query does not use, the aggregates among them)
SET gpuops.device = cpu;
\timing on
SELECT count(s.*) FROM (SELECT k, count(*), sum(v) FROM cache_bench WHERE w < 50 GROUP BY k) s;
SELECT count(s.*) FROM (SELECT k, count(*), sum(v) FROM cache_bench WHERE w < 50 GROUP BY k) s;
\timing off
SELECT gpuops.uncache_table('cache_bench');
