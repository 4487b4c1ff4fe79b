-- Custom Scan (GpuOpsAgg): how batches stream through the node: a helper
-- thread aggregating one batch while the next is read, errors and cancels
-- with a batch in flight, tables of several page batches (needs agg_node's
-- tables).
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql
\i :abs_srcdir/sql/include/agg_fuzz.psql

-- a helper thread aggregates each batch while the next is read (what the
-- GPU face does under gpuops.overlap = auto; on: either face)
SET gpuops.overlap = on;
CREATE TEMP TABLE fz3 AS SELECT * FROM pg_temp.fuzz(60, 0.31);
SELECT res, count(*) FROM fz3 GROUP BY res ORDER BY res;
SELECT q, res FROM fz3 WHERE res <> 'same';
SET gpuops.debug_chunk_size = 512;
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s, min(v4) AS lo, max(w8) AS hi FROM agg_t GROUP BY k');
SELECT pg_temp.check('SELECT k2, count(*) AS n, avg(w) AS a FROM agg_t WHERE w >= 0 GROUP BY k2');
SELECT pg_temp.check('SELECT ks, kb, count(*) AS n, sum(w2) FILTER (WHERE kb) AS s FROM agg_t GROUP BY ks, kb');
-- partitions (each table's last batch merged before the next is read), a
-- text key and SERIALIZABLE (read through slots)
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s, avg(w) AS a, min(d) AS lo, max(d) AS hi FROM agg_p GROUP BY k');
SELECT pg_temp.check('SELECT d, k, count(*) AS n FROM agg_p WHERE k IN (2, 7) GROUP BY d, k');
SELECT pg_temp.check('SELECT s, c, k, count(*) AS n, sum(v) AS sv FROM agg_txt WHERE k > 1 GROUP BY s, c, k');
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s FROM agg_old GROUP BY k');
COMMIT;
-- rescans (the reader keeps its two sets of arrays)
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT pg_temp.check('SELECT g, s.n, s.sv FROM generate_series(1, 3) g LEFT JOIN (SELECT k, count(*) n, sum(v) sv FROM agg_t GROUP BY k) s ON s.k = g');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
-- an error while a batch is in flight: raised by the read of a later batch
-- (a clause PostgreSQL evaluates), by the merge (a float sum overflowing),
-- or a cancel; each leaves the session usable
SELECT pg_temp.try('SELECT k, count(*) FROM agg_t WHERE 1 / (i - 9000) > -1 GROUP BY k');
CREATE TABLE agg_huge AS SELECT i % 10 AS k, 1e306::float8 AS v FROM generate_series(1, 20000) i;
ANALYZE agg_huge;
SELECT pg_temp.plan('SELECT k, sum(v) FROM agg_huge GROUP BY k');
SELECT pg_temp.try('SELECT k, sum(v) FROM agg_huge GROUP BY k');
DROP TABLE agg_huge;
SET gpuops.debug_chunk_size = 64;
SET statement_timeout = '10ms';
SELECT pg_temp.try('SELECT k2, count(*) FROM agg_t a GROUP BY k2');
RESET statement_timeout;
SELECT pg_temp.check('SELECT k, count(*) AS n FROM agg_t GROUP BY k');
-- off: the backend aggregates each batch between reads
SET gpuops.overlap = off;
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s, min(v4) AS lo, max(w8) AS hi FROM agg_t GROUP BY k');
RESET gpuops.debug_chunk_size;
RESET gpuops.overlap;

-- a table of several page batches (at most 2048 pages, fewer with small
-- shared_buffers): the backend pins the next one while the threads decode,
-- also on pages that are not all-visible (deleted and updated rows)
CREATE TABLE agg_pages AS SELECT i, (i::int8 * 7919 % 500)::int4 AS k,
	CASE WHEN i % 97 = 0 THEN NULL ELSE (i % 1000)::float8 / 8 END AS v
	FROM generate_series(1, 600000) i;
VACUUM (FREEZE, ANALYZE) agg_pages;
DELETE FROM agg_pages WHERE i % 10 = 3 AND i > 400000;
UPDATE agg_pages SET v = -v WHERE i % 1000 = 7;
SELECT pg_temp.check('SELECT k, count(*) AS n, count(v) AS nv, sum(v) AS s, min(v) AS lo, max(v) AS hi FROM agg_pages GROUP BY k');
SET gpuops.pin_ahead = off;
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s FROM agg_pages GROUP BY k');
RESET gpuops.pin_ahead;
SET gpuops.overlap = on;
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s, max(v) AS hi FROM agg_pages WHERE i > 1000 GROUP BY k');
RESET gpuops.overlap;
SELECT pg_temp.check('SELECT count(*) AS n, sum(v) AS s, avg(k) AS a FROM agg_pages');
