-- count(DISTINCT x) through Custom Scan (GpuOpsAgg): x becomes the engine's
-- last grouping key, and the groups of (keys, x) fold back into the query's
-- groups, counting those whose x is not NULL (with a FILTER, those where a
-- row passed it); the other aggregates combine as batches do.  Checked
-- against PostgreSQL's own answer for x of every key type (NULLs, -0 and
-- NaN, short and long text, numeric), with and without GROUP BY, FILTER,
-- HAVING, ORDER BY, each strategy, small batches, spilled groups, worker
-- processes and partitions.  DISTINCT over two arguments, or past the keys'
-- limit, keeps the native plan.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql

CREATE TABLE dist_t (k int4, k2 int2, x int4, f float8, s varchar(6),
					 t text, n numeric(8, 2), d date, b bool, v int8);
INSERT INTO dist_t
SELECT i % 9,
	   (i % 4)::int2,
	   CASE WHEN i % 17 = 0 THEN NULL ELSE (i * 7919) % 1201 END,
	   CASE i % 11 WHEN 0 THEN NULL WHEN 1 THEN '-0' WHEN 2 THEN 'NaN'
			ELSE (i % 37) / 4.0 END,
	   CASE WHEN i % 13 = 0 THEN NULL ELSE 'v' || (i % 53) END,
	   CASE WHEN i % 19 = 0 THEN NULL ELSE repeat('w', i % 7) || (i % 301) END,
	   CASE WHEN i % 23 = 0 THEN NULL ELSE (i % 401) / 4.0 END,
	   date '2020-01-01' + (i % 97),
	   CASE WHEN i % 29 = 0 THEN NULL ELSE i % 3 = 0 END,
	   i
FROM generate_series(1, 30000) i;
ANALYZE dist_t;

-- EXPLAIN ANALYZE of q as JSON
CREATE FUNCTION pg_temp.explain_json(q text) RETURNS json LANGUAGE plpgsql AS $$
DECLARE
	j json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || q INTO j;
	RETURN j;
END
$$;

-- the plan: the query's keys, and x
SELECT * FROM pg_temp.plan('SELECT k, count(DISTINCT x) FROM dist_t GROUP BY k');
SELECT * FROM pg_temp.plan('SELECT count(DISTINCT x) FROM dist_t');

-- with GROUP BY, beside other aggregates
SELECT pg_temp.check('SELECT k, count(DISTINCT x) AS cd, count(*) AS n, count(x) AS nx, sum(v), min(f),
	max(d), avg(v), stddev(x)::text AS sd FROM dist_t GROUP BY k');
SELECT pg_temp.check('SELECT k, k2, count(DISTINCT x) AS cd, sum(x) FROM dist_t GROUP BY k, k2');
-- without GROUP BY, and over no rows
SELECT pg_temp.check('SELECT count(DISTINCT x) AS cd, count(*), sum(v), min(x) FROM dist_t');
SELECT pg_temp.check('SELECT count(DISTINCT x) AS cd, count(*), sum(v) FROM dist_t WHERE v < 0');
SELECT pg_temp.check('SELECT k, count(DISTINCT x) AS cd FROM dist_t WHERE v < 0 GROUP BY k');
-- every key type as x: NULLs are not counted; -0 = 0, NaN = NaN
SELECT pg_temp.check('SELECT k, count(DISTINCT f) AS cd FROM dist_t GROUP BY k');
SELECT pg_temp.check('SELECT k, count(DISTINCT s) AS cd FROM dist_t GROUP BY k');
SELECT pg_temp.check('SELECT k, count(DISTINCT t) AS cd FROM dist_t GROUP BY k');
SELECT pg_temp.check('SELECT k, count(DISTINCT n) AS cd FROM dist_t GROUP BY k');
SELECT pg_temp.check('SELECT k, count(DISTINCT d) AS cd FROM dist_t GROUP BY k');
SELECT pg_temp.check('SELECT k2, count(DISTINCT b) AS cd FROM dist_t GROUP BY k2');
SELECT pg_temp.check('SELECT count(DISTINCT v) AS cd FROM dist_t');
-- x as an expression, as one of the keys, and a key of text
SELECT pg_temp.check('SELECT k, count(DISTINCT x % 10) AS cd, count(DISTINCT x % 10) FILTER (WHERE k2 > 1) AS cf
	FROM dist_t GROUP BY k');
SELECT pg_temp.check('SELECT k, count(DISTINCT k) AS cd FROM dist_t GROUP BY k');
SELECT pg_temp.check('SELECT s, count(DISTINCT k2) AS cd FROM dist_t GROUP BY s');
-- FILTER: the key groups where some row passed
SELECT pg_temp.check('SELECT k, count(DISTINCT x) FILTER (WHERE v % 2 = 0) AS ce,
	count(DISTINCT x) FILTER (WHERE f > 3) AS cf, count(DISTINCT x) AS cd,
	sum(v) FILTER (WHERE k2 = 1) AS sf FROM dist_t GROUP BY k');
-- WHERE on the device and on the CPU
SELECT pg_temp.check('SELECT k, count(DISTINCT x) AS cd FROM dist_t WHERE k2 <> 2 AND x > 100 GROUP BY k');
SELECT pg_temp.check('SELECT k, count(DISTINCT x) AS cd FROM dist_t WHERE t LIKE ''w%'' GROUP BY k');
-- HAVING and ORDER BY ... LIMIT on it
SELECT pg_temp.check_order('SELECT k, count(DISTINCT x) FROM dist_t GROUP BY k
	HAVING count(DISTINCT x) > 100 ORDER BY count(DISTINCT x) DESC, k LIMIT 5');
SELECT pg_temp.check_order('SELECT k, k2, count(DISTINCT x) FROM dist_t GROUP BY k, k2 ORDER BY k, k2');

-- each strategy, small batches, spilled groups
SET gpuops.agg_strategy = dense;
SELECT pg_temp.check('SELECT k, count(DISTINCT x) AS cd, sum(v) FROM dist_t GROUP BY k');
SET gpuops.agg_strategy = hash;
SELECT pg_temp.check('SELECT k, count(DISTINCT x) AS cd, sum(v) FROM dist_t GROUP BY k');
SET gpuops.agg_strategy = sort;
SELECT pg_temp.check('SELECT k, count(DISTINCT x) AS cd, sum(v) FROM dist_t GROUP BY k');
RESET gpuops.agg_strategy;
SET gpuops.debug_chunk_size = 64;
SELECT pg_temp.check('SELECT k, count(DISTINCT x) AS cd, avg(f) FROM dist_t GROUP BY k');
SELECT pg_temp.check('SELECT count(DISTINCT t) AS cd FROM dist_t');
RESET gpuops.debug_chunk_size;
-- (the planner is told of few distinct values, so that it expects few groups)
CREATE TABLE dist_s AS SELECT * FROM dist_t;
ALTER TABLE dist_s ALTER COLUMN v SET (n_distinct = 10);
ANALYZE dist_s;
SET gpuops.max_group_memory = 64;
SELECT j->0->'Plan'->>'Custom Plan Provider' AS node,
       (j->0->'Plan'->>'Spilled Runs')::int > 0 AS spilled_runs
FROM pg_temp.explain_json('SELECT k2, count(DISTINCT v) FROM dist_s GROUP BY k2') j;
SELECT pg_temp.check('SELECT k2, count(DISTINCT v) AS cd, sum(x) FROM dist_s GROUP BY k2');
SELECT pg_temp.check('SELECT count(DISTINCT v) AS cd, count(*) FROM dist_s');
RESET gpuops.max_group_memory;
DROP TABLE dist_s;
-- worker processes (where the core budget allows a query 3 threads)
SET gpuops.parallel_workers = 2;
SET max_parallel_workers_per_gather = 2;
SET gpuops.cpu_row_cost = 0;
SET gpuops.threads = 4;
SET gpuops.debug_chunk_size = 4096;
SET parallel_setup_cost = 0;
SELECT pg_temp.check('SELECT k, count(DISTINCT x) AS cd, sum(v) FROM dist_t GROUP BY k');
SELECT pg_temp.check('SELECT count(DISTINCT s) AS cd FROM dist_t');
RESET parallel_setup_cost;
RESET gpuops.debug_chunk_size;
RESET gpuops.threads;
RESET gpuops.cpu_row_cost;
RESET gpuops.parallel_workers;
SET max_parallel_workers_per_gather = 0;

-- partitions: x of each, with its own column numbers
CREATE TABLE dist_p (k int, x int, pad int) PARTITION BY RANGE (k);
CREATE TABLE dist_p1 PARTITION OF dist_p FOR VALUES FROM (0) TO (5);
CREATE TABLE dist_p2 (pad int, x int, k int);
ALTER TABLE dist_p ATTACH PARTITION dist_p2 FOR VALUES FROM (5) TO (10);
INSERT INTO dist_p SELECT i % 10, i % 77, 0 FROM generate_series(1, 5000) i;
ANALYZE dist_p;
SELECT pg_temp.check('SELECT k, count(DISTINCT x) AS cd FROM dist_p GROUP BY k');
SELECT pg_temp.check('SELECT count(DISTINCT x) AS cd FROM dist_p');
DROP TABLE dist_p;

-- native plans: two DISTINCT arguments, sum(DISTINCT), more keys than fit
SELECT * FROM pg_temp.plan('SELECT k, count(DISTINCT x), count(DISTINCT f) FROM dist_t GROUP BY k');
SELECT * FROM pg_temp.plan('SELECT k, sum(DISTINCT x) FROM dist_t GROUP BY k');
SELECT pg_temp.check('SELECT k, k2, d, b, f, s, n, v, count(DISTINCT x) AS cd FROM dist_t GROUP BY 1, 2, 3, 4, 5, 6, 7, 8');
SELECT pg_temp.check('SELECT k, k2, d, b, f, s, n, count(DISTINCT x) AS cd FROM dist_t GROUP BY 1, 2, 3, 4, 5, 6, 7');

DROP TABLE dist_t;
