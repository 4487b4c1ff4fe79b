-- Custom Scan (GpuOpsAgg): worker processes reading beside the backend
-- (needs agg_node's tables and agg_stream's agg_pages).
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql

-- worker processes read beside the backend (gpuops.parallel_workers): the
-- plan says how many, and every answer is PostgreSQL's
SET gpuops.parallel_workers = 2;
SET max_parallel_workers_per_gather = 2;
SELECT pg_temp.plan('SELECT k, count(*) FROM agg_pages GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) AS n, count(v) AS nv, sum(v) AS s, min(v) AS lo, max(v) AS hi FROM agg_pages GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) AS n, avg(v) AS a FROM agg_pages WHERE v > 10 OR v IS NULL GROUP BY k');
SELECT pg_temp.check('SELECT v, k, count(*) AS n FROM agg_pages WHERE k < 20 GROUP BY v, k');
SELECT pg_temp.check('SELECT k, count(*) FILTER (WHERE v < 50) AS n, sum(i) AS s FROM agg_pages WHERE i > 123 GROUP BY k');
SELECT pg_temp.check('SELECT count(*) AS n, sum(v) AS s, min(i) AS lo, max(i) AS hi FROM agg_pages');
SELECT pg_temp.check('SELECT count(*) AS n, sum(v) AS s FROM agg_pages WHERE i < 0');
-- a rescan reads in the backend alone
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT pg_temp.check('SELECT g, s.n, s.sv FROM generate_series(1, 3) g LEFT JOIN (SELECT k, count(*) n, sum(v) sv FROM agg_pages GROUP BY k) s ON s.k = g');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
-- a cancel while the workers read leaves the session usable
SET gpuops.debug_chunk_size = 64;
SET statement_timeout = '5ms';
SELECT pg_temp.try('SELECT k, count(*) FROM agg_pages GROUP BY k');
RESET statement_timeout;
RESET gpuops.debug_chunk_size;
-- no workers where the query may not run in parallel, or with a CPU clause
SET max_parallel_workers_per_gather = 0;
SELECT pg_temp.plan('SELECT k, count(*) FROM agg_pages GROUP BY k');
SET max_parallel_workers_per_gather = 2;
SET gpuops.cpu_setup_cost = 0;
SET gpuops.cpu_row_cost = 0;
SELECT pg_temp.plan('SELECT k, count(*) FROM agg_pages WHERE i::text < ''5'' GROUP BY k');
RESET gpuops.cpu_setup_cost;
RESET gpuops.cpu_row_cost;
-- -1, the default: as many as PostgreSQL would give a parallel scan of the
-- table (here its parallel_workers option), at most one a thread of
-- gpuops.threads, none with fewer than 3 threads
RESET gpuops.parallel_workers;
SHOW gpuops.parallel_workers;
ALTER TABLE agg_pages SET (parallel_workers = 3);
SET max_parallel_workers_per_gather = 8;
SET gpuops.threads = 2;
SELECT pg_temp.plan('SELECT k, count(*) FROM agg_pages GROUP BY k');
SET gpuops.threads = 3;
SELECT pg_temp.plan('SELECT k, count(*) FROM agg_pages GROUP BY k');
SET gpuops.threads = 16;
SELECT pg_temp.plan('SELECT k, count(*) FROM agg_pages GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s, min(v) AS lo, max(v) AS hi FROM agg_pages GROUP BY k');
SET max_parallel_workers_per_gather = 1;
SELECT pg_temp.plan('SELECT k, count(*) FROM agg_pages GROUP BY k');
-- none where each process would see most of the groups (the backend merges
-- every worker's groups alone): a group sent costs as many rows read as
-- there are threads
SET max_parallel_workers_per_gather = 8;
SELECT pg_temp.plan('SELECT i, count(*) FROM agg_pages GROUP BY i');
-- but a worker sends no more groups than its rows the WHERE clause passes:
-- where few pass, workers read the table, however many the groups
SELECT pg_temp.plan('SELECT i, count(*) FROM agg_pages WHERE k < 5 GROUP BY i');
SELECT pg_temp.check('SELECT i, count(*) AS n, sum(v) AS s FROM agg_pages WHERE k < 5 GROUP BY i');
SELECT pg_temp.plan('SELECT k, v, count(*) FROM agg_pages GROUP BY k, v');
-- a short text key (char(1)) travels as an integer code, not a string: its
-- groups cost what an integer key's do, where a long one's cost more (the
-- backend codes every worker's strings again)
CREATE TABLE agg_chars AS SELECT i, chr(256 + i % 10000)::char(1) AS c1,
	chr(256 + i % 10000)::varchar(40) AS c40
	FROM generate_series(1, 600000) i;
ALTER TABLE agg_chars SET (parallel_workers = 3);
VACUUM (FREEZE, ANALYZE) agg_chars;
SELECT pg_temp.plan('SELECT c1, count(*) FROM agg_chars GROUP BY c1');
SELECT pg_temp.plan('SELECT c40, count(*) FROM agg_chars GROUP BY c40');
SELECT pg_temp.check('SELECT c1, count(*) AS n, max(i) AS hi FROM agg_chars GROUP BY c1');
DROP TABLE agg_chars;
RESET gpuops.threads;
SET max_parallel_workers_per_gather = 0;
DROP TABLE agg_pages;
