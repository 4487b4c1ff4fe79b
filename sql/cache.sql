-- The column cache (gpuops.cache_table): the decoded columns of a table's
-- all-visible block ranges in shared memory, served to Custom Scan
-- (GpuOpsAgg) instead of the heap while no change touched their blocks.
-- Every query is checked against PostgreSQL's own answer, and how many rows
-- came from the cache is shown: after caching; after updates, deletes,
-- inserts, an aborted update and TRUNCATE; inside the changing transaction;
-- after VACUUM and gpuops.cache_refresh; after VACUUM FULL; with the
-- triggers disabled and enabled again; after columns are dropped and added;
-- with worker processes and batches smaller than a page; the refresher
-- (gpuops.cache_refresh_interval), which reads stale ranges again by itself
-- after VACUUM; eviction of the least recently used ranges past
-- gpuops.host_cache_memory; and the errors.  (The tables other than the refresher's are
-- cached with auto_refresh off, so that it can't change what is shown.)
-- (An older snapshot against concurrent changes: specs/cache_mvcc.spec.)
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql

\i :abs_srcdir/sql/include/from_cache.psql

-- the cache's view of this database's tables
CREATE FUNCTION pg_temp.status() RETURNS TABLE (relation regclass, range_blocks int,
	ranges bigint, cached bigint, fresh bigint, rows_cached bigint, served boolean)
LANGUAGE sql AS $$
	SELECT relation, range_blocks, ranges, ranges_cached, ranges_fresh, rows_cached,
		   blocks_served > 0
	FROM gpuops.cache_status() ORDER BY relation::text
$$;

-- ranges of 4 blocks, so that a change leaves most of the table served
SET gpuops.cache_range_blocks = 4;
CREATE TABLE cc (id int, k int, v int8, x float8, n numeric(10, 2), b bool,
				 d date, ts timestamp, s int2, t text, c char(1), vc varchar(1));
INSERT INTO cc
SELECT i,
	   CASE WHEN i % 101 = 0 THEN NULL ELSE i % 37 END,
	   CASE WHEN i % 97 = 0 THEN NULL WHEN i = 17 THEN 9223372036854775807
			WHEN i = 18 THEN -9223372036854775807 ELSE i * 1000 END,
	   CASE i % 11 WHEN 0 THEN 'NaN' WHEN 1 THEN '-0' WHEN 2 THEN NULL
			ELSE i / 8.0 END,
	   CASE WHEN i % 89 = 0 THEN NULL ELSE (i % 5000) / 7.0 - 300 END,
	   CASE WHEN i % 13 = 0 THEN NULL ELSE i % 3 = 0 END,
	   date '2020-01-01' + i % 700,
	   timestamp '2021-06-01' + i * interval '37 minutes',
	   (i % 300)::int2,
	   'row' || i,
	   CASE WHEN i % 17 = 0 THEN NULL ELSE chr(65 + i % 5) END,
	   CASE WHEN i % 19 = 0 THEN NULL WHEN i % 23 = 0 THEN '' ELSE chr(97 + i % 7) END
FROM generate_series(1, 20000) i;
INSERT INTO cc VALUES (20001, 1, NULL, 'Infinity', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
	(20002, 1, 5, '-Infinity', -99999999.99, true, 'infinity', '-infinity', -32768, '', ' ', ' ');
VACUUM (FREEZE, ANALYZE) cc;
SELECT pg_relation_size('cc') / current_setting('block_size')::int AS blocks;
SELECT gpuops.cache_table('cc', auto_refresh => false) AS ranges_cached;
SELECT * FROM pg_temp.status();
SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'cc'::regclass ORDER BY 1;

-- served from the cache, the same as PostgreSQL's
SELECT pg_temp.check('SELECT k, count(*) AS c, sum(v) AS sv, min(x) AS lx, max(x) AS hx, sum(n) AS sn, avg(n) AS an, count(b) AS cb, min(d) AS ld, max(ts) AS hts, sum(s) AS ss FROM cc GROUP BY k');
SELECT pg_temp.from_cache('SELECT k, count(*) AS c, sum(v) AS sv, min(x) AS lx, max(x) AS hx, sum(n) AS sn, avg(n) AS an, count(b) AS cb, min(d) AS ld, max(ts) AS hts, sum(s) AS ss FROM cc GROUP BY k');
SELECT pg_temp.check('SELECT b, count(*) AS c, count(x) AS cx, sum(x) AS sx FROM cc WHERE v > 5000000 OR v IS NULL GROUP BY b');
SELECT pg_temp.check('SELECT d, count(*) FROM cc WHERE k IN (1, 2, 3) GROUP BY d');
SELECT pg_temp.check('SELECT count(*) AS c, count(n) AS cn, sum(v) AS sv FROM cc');
SELECT pg_temp.from_cache('SELECT count(*), count(n), sum(v) FROM cc');
-- char(n) and varchar(n) of at most 7 bytes (in the database's encoding) are
-- cached as codes
SELECT pg_temp.check('SELECT c, vc, count(*) AS n, sum(v) AS sv FROM cc GROUP BY c, vc');
SELECT pg_temp.from_cache('SELECT c, vc, count(*) AS n, sum(v) AS sv FROM cc GROUP BY c, vc');
SELECT pg_temp.check('SELECT c, count(*) AS n FROM cc WHERE vc IS NOT NULL GROUP BY c');
-- a text column is not cached: the heap is read
SELECT pg_temp.check('SELECT k, count(t) FROM cc GROUP BY k');
SELECT pg_temp.from_cache('SELECT k, count(t) FROM cc GROUP BY k');
-- gpuops.use_cache = off reads the heap
SET gpuops.use_cache = off;
SELECT pg_temp.from_cache('SELECT count(*), sum(v) FROM cc');
RESET gpuops.use_cache;

-- changes make their ranges stale: those blocks come from the heap
UPDATE cc SET v = v + 1 WHERE id = 5;
DELETE FROM cc WHERE id BETWEEN 10000 AND 10010;
INSERT INTO cc SELECT i, i % 37, i, i, i, true, date '2022-01-01', NULL, 1, 'new'
FROM generate_series(30001, 30500) i;
BEGIN;
UPDATE cc SET k = 99 WHERE id = 15000;
ROLLBACK;
SELECT relation, ranges, cached, fresh < cached AS some_stale, fresh > 0 AS some_fresh
FROM pg_temp.status();
SELECT pg_temp.check('SELECT k, count(*) AS c, sum(v) AS sv, min(x) AS lx, max(x) AS hx, sum(n) AS sn, avg(n) AS an, count(b) AS cb, min(d) AS ld, max(ts) AS hts, sum(s) AS ss FROM cc GROUP BY k');
SELECT pg_temp.from_cache('SELECT count(*) FROM cc') BETWEEN 1 AND 20000 AS partly_cached;
SELECT pg_temp.check('SELECT count(*) AS c, sum(v) AS sv, sum(n) AS sn FROM cc');

-- inside the changing transaction: its own changes are seen
BEGIN;
DELETE FROM cc WHERE k = 3;
UPDATE cc SET n = n + 1 WHERE k = 4;
SELECT pg_temp.check('SELECT k, count(*) AS c, sum(n) AS sn FROM cc GROUP BY k');
ROLLBACK;

-- VACUUM makes the changed pages all-visible again; cache_refresh reads them
VACUUM cc;
SELECT gpuops.cache_refresh('cc') > 0 AS refreshed;
SELECT relation, ranges, cached = ranges AS all_cached, fresh = cached AS all_fresh,
	   rows_cached = (SELECT count(*) FROM cc) AS every_row
FROM pg_temp.status();
SELECT pg_temp.check('SELECT k, count(*) AS c, sum(v) AS sv, min(x) AS lx, max(x) AS hx, sum(n) AS sn, avg(n) AS an, count(b) AS cb, min(d) AS ld, max(ts) AS hts, sum(s) AS ss FROM cc GROUP BY k');
SELECT pg_temp.from_cache('SELECT count(*) FROM cc') = (SELECT count(*) FROM cc) AS all_from_cache;

-- worker processes, and batches smaller than a page (a block larger than a
-- batch comes from the heap)
SET gpuops.parallel_workers = 2;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SELECT pg_temp.plan('SELECT k, count(*) FROM cc GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) AS c, sum(v) AS sv, sum(n) AS sn, max(x) AS hx FROM cc GROUP BY k');
-- (the rows the workers got from the cache count too)
SELECT pg_temp.from_cache('SELECT k, count(*) FROM cc GROUP BY k') = (SELECT count(*) FROM cc) AS all_from_cache;
RESET gpuops.parallel_workers;
RESET parallel_setup_cost;
SET max_parallel_workers_per_gather = 0;
SET gpuops.debug_chunk_size = 64;
-- (a FILTER: the reader's batches, not the ranges aggregated in place,
-- which a batch's size does not limit)
SELECT pg_temp.check('SELECT k, count(*) FILTER (WHERE v IS NOT NULL) AS c, sum(v) AS sv, sum(n) AS sn, max(x) AS hx FROM cc GROUP BY 1');
SELECT pg_temp.from_cache('SELECT k, count(*) FILTER (WHERE v IS NOT NULL) FROM cc GROUP BY 1');
SELECT pg_temp.check('SELECT k, count(*) AS c, sum(v) AS sv, sum(n) AS sn, max(x) AS hx FROM cc GROUP BY k');
SELECT pg_temp.from_cache('SELECT k, count(*) FROM cc GROUP BY k') = (SELECT count(*) FROM cc) AS all_from_cache;
RESET gpuops.debug_chunk_size;

-- VACUUM FULL rewrites the table: nothing is served until cache_refresh
VACUUM FULL cc;
SELECT pg_temp.from_cache('SELECT count(*) FROM cc');
SELECT pg_temp.check('SELECT k, count(*) AS c, sum(v) AS sv FROM cc GROUP BY k');
VACUUM cc;
SELECT gpuops.cache_refresh('cc') > 0 AS refreshed;
SELECT pg_temp.from_cache('SELECT count(*) FROM cc') = (SELECT count(*) FROM cc) AS all_from_cache;

-- a disabled trigger could miss changes: the table is not served again until
-- cache_table, even with the trigger enabled again
ALTER TABLE cc DISABLE TRIGGER gpuops_cache_mark;
DELETE FROM cc WHERE k = 7;
ALTER TABLE cc ENABLE ALWAYS TRIGGER gpuops_cache_mark;
SELECT pg_temp.from_cache('SELECT count(*) FROM cc');
SELECT pg_temp.check('SELECT k, count(*) AS c, sum(v) AS sv FROM cc GROUP BY k');
SELECT gpuops.cache_refresh('cc');
VACUUM cc;
SELECT gpuops.cache_table('cc', auto_refresh => false) > 0 AS cached;
SELECT pg_temp.from_cache('SELECT count(*) FROM cc') = (SELECT count(*) FROM cc) AS all_from_cache;
SELECT pg_temp.check('SELECT k, count(*) AS c, sum(v) AS sv FROM cc GROUP BY k');

-- columns dropped and added: the cached ones still serve, a new one reads the heap
ALTER TABLE cc DROP COLUMN s;
ALTER TABLE cc ADD COLUMN extra int DEFAULT 7;
SELECT pg_temp.check('SELECT k, count(*) AS c, sum(v) AS sv FROM cc GROUP BY k');
SELECT pg_temp.from_cache('SELECT k, count(*) AS c, sum(v) AS sv FROM cc GROUP BY k') > 0 AS served;
SELECT pg_temp.check('SELECT k, sum(extra) FROM cc GROUP BY k');
SELECT pg_temp.from_cache('SELECT k, sum(extra) FROM cc GROUP BY k');

-- TRUNCATE empties it: nothing is served, the new rows come from the heap
TRUNCATE cc;
INSERT INTO cc (id, k, v) SELECT i, i % 5, i FROM generate_series(1, 1000) i;
SELECT pg_temp.from_cache('SELECT count(*) FROM cc');
SELECT pg_temp.check('SELECT k, count(*) AS c, sum(v) AS sv FROM cc GROUP BY k');

-- the refresher reads the stale ranges again by itself once VACUUM made their
-- pages all-visible (here every second; by default every minute)
CREATE TABLE cr (k int, v int8);
INSERT INTO cr SELECT i % 10, i FROM generate_series(1, 5000) i;
VACUUM (FREEZE, ANALYZE) cr;
SELECT gpuops.cache_table('cr') > 0 AS cached;
UPDATE cr SET v = v + 1 WHERE k = 1;
VACUUM cr;
SELECT ranges_fresh < ranges AS stale, auto_refresh FROM gpuops.cache_status() WHERE relation = 'cr'::regclass;
ALTER SYSTEM SET gpuops.cache_refresh_interval = 1;
SELECT pg_reload_conf();
DO $$
BEGIN
	FOR i IN 1..600 LOOP
		EXIT WHEN (SELECT ranges_fresh = ranges FROM gpuops.cache_status()
				   WHERE relation = 'cr'::regclass);
		PERFORM pg_sleep(0.1);
	END LOOP;
END
$$;
ALTER SYSTEM RESET gpuops.cache_refresh_interval;
SELECT pg_reload_conf();
SELECT ranges_fresh = ranges AS refreshed FROM gpuops.cache_status() WHERE relation = 'cr'::regclass;
SELECT pg_temp.check('SELECT k, count(*) AS c, sum(v) AS sv FROM cr GROUP BY k');
SELECT pg_temp.from_cache('SELECT k, count(*) FROM cr GROUP BY k');
DROP TABLE cr;

-- past gpuops.host_cache_memory the least recently used ranges make room (the
-- ranges of cc's old file first, then e1's), but none the filling table used
ALTER SYSTEM SET gpuops.host_cache_memory = '1MB';
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
SHOW gpuops.host_cache_memory;
CREATE TABLE e1 (k int, v int8);
CREATE TABLE e2 (k int, v int8);
INSERT INTO e1 SELECT i % 7, i FROM generate_series(1, 60000) i;
INSERT INTO e2 SELECT i % 7, -i FROM generate_series(1, 60000) i;
VACUUM (FREEZE, ANALYZE) e1, e2;
SELECT gpuops.cache_table('e1', false) > 0 AS cached;
SELECT pg_temp.from_cache('SELECT k, sum(v) FROM e1 GROUP BY k') = 60000 AS all_from_cache;
SELECT gpuops.cache_table('e2', false) > 0 AS cached;
SELECT relation, cached = ranges AS all_cached, cached > 0 AS some_cached
FROM pg_temp.status() WHERE relation IN ('e1'::regclass, 'e2'::regclass);
SELECT sum(host_bytes) <= 1024 * 1024 AS within_limit FROM gpuops.cache_status();
SELECT pg_temp.check('SELECT k, count(*) AS c, sum(v) AS sv FROM e1 GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) AS c, sum(v) AS sv FROM e2 GROUP BY k');
SELECT pg_temp.from_cache('SELECT k, sum(v) FROM e2 GROUP BY k') = 60000 AS all_from_cache;
ALTER SYSTEM RESET gpuops.host_cache_memory;
SELECT pg_reload_conf();
DROP TABLE e1, e2;

-- errors
CREATE VIEW cc_view AS SELECT * FROM cc;
SELECT gpuops.cache_table('cc_view');
CREATE TEMP TABLE cc_temp (a int);
SELECT gpuops.cache_table('cc_temp');
CREATE TABLE cc_text (a text);
SELECT gpuops.cache_table('cc_text');
SELECT gpuops.cache_refresh('cc_text');
SELECT gpuops.uncache_table('cc_text');
CREATE ROLE regress_gpuops_cache;
GRANT SELECT ON cc TO regress_gpuops_cache;
SET ROLE regress_gpuops_cache;
SELECT gpuops.cache_table('cc');
SELECT gpuops.uncache_table('cc');
RESET ROLE;
SELECT gpuops.cache_mark();

-- uncache_table drops the table and its triggers
SELECT gpuops.uncache_table('cc');
SELECT * FROM pg_temp.status();
SELECT count(*) FROM pg_trigger WHERE tgrelid = 'cc'::regclass;
SELECT pg_temp.from_cache('SELECT count(*) FROM cc');
-- a dropped table leaves the cache
SELECT gpuops.cache_table('cc', false) AS ranges_cached;
DROP TABLE cc CASCADE;
SELECT * FROM pg_temp.status();
REVOKE ALL ON SCHEMA public FROM regress_gpuops_cache;
DROP ROLE regress_gpuops_cache;
DROP TABLE cc_text;
