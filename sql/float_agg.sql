-- sum and avg of float4/float8 with PostgreSQL's overflow errors, through
-- GpuOpsAgg, against PostgreSQL's own answer (gpuops.enabled = off).
-- PostgreSQL adds in row order and raises 22003 when a partial sum (or
-- avg's sum of squares) becomes infinite while no infinite value has come
-- yet; gpuops sums the finite values apart from the infinities and NaNs:
-- an overflow of the finite values is an error whatever the row order, and
-- otherwise the infinities and NaNs combine by IEEE rules.  The cases below
-- where the two differ are marked: there the order of the rows decides in
-- PostgreSQL.
\set SHOW_CONTEXT never
LOAD 'gpuops';
SET gpuops.cpu_setup_cost = 0;
SET gpuops.gpu_setup_cost = 0;
SET max_parallel_workers_per_gather = 0;

-- the rows of q as one line, or its SQLSTATE and message
CREATE FUNCTION pg_temp.run(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text;
BEGIN
	EXECUTE 'SELECT string_agg(t::text, '' '') FROM (' || q || ') t' INTO r;
	RETURN coalesce(r, '(no rows)');
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;

-- q through the node (which the plan must use) and natively
CREATE FUNCTION pg_temp.both(q text) RETURNS TABLE(gpuops text, native text)
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	used boolean := false;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		used := used OR line LIKE '%GpuOpsAgg%';
	END LOOP;
	IF NOT used THEN
		RAISE EXCEPTION 'GpuOpsAgg not used for: %', q;
	END IF;
	gpuops := pg_temp.run(q);
	PERFORM set_config('gpuops.enabled', 'off', true);
	native := pg_temp.run(q);
	PERFORM set_config('gpuops.enabled', 'on', true);
	RETURN NEXT;
END
$$;

-- ---- float8 ----
CREATE TABLE fa8 (g int, k int, v float8);
INSERT INTO fa8 VALUES
	-- the issue's avg: Sxx overflows (1e300 - 6.67e299 squared, 3 times)
	(1, 1, 1e300), (1, 1, 1e300), (1, 1, 1),
	-- a sum that overflows
	(2, 1, 1e308), (2, 1, 1e308),
	-- overflow, then an infinity
	(3, 1, 1e308), (3, 1, 1e308), (3, 1, 'Infinity'),
	-- large finite values and infinities of both signs; NaN
	(4, 1, 1e300), (4, 1, 'Infinity'), (4, 1, '-Infinity'),
	(5, 1, 1), (5, 1, 'NaN'), (5, 1, 2),
	(6, 1, 'Infinity'), (6, 1, 1), (6, 2, '-Infinity'), (6, 2, -1),
	-- near the maximum, no overflow
	(7, 1, 1.7e308), (7, 1, -1.7e308), (7, 1, 1e308), (7, 2, 8.9e307), (7, 2, 8.9e307),
	-- an infinity after large values whose squares overflow: avg is Inf
	(8, 1, 1e300), (8, 1, 1e300), (8, 1, 'Infinity'),
	-- -0.0 only
	(9, 1, '-0'), (9, 1, '-0'),
	-- order decides: the infinity first, then an overflow of the finite values
	(10, 1, 'Infinity'), (10, 1, 1e308), (10, 1, 1e308),
	-- order decides: the squares overflow before the infinity
	(11, 1, 1e300), (11, 1, 1e300), (11, 1, 1), (11, 1, 'Infinity');

SELECT g, b.* FROM generate_series(1, 11) g,
	LATERAL pg_temp.both(format('SELECT k, sum(v) FROM fa8 WHERE g = %s GROUP BY k ORDER BY k', g)) b
	ORDER BY g;
SELECT g, b.* FROM generate_series(1, 11) g,
	LATERAL pg_temp.both(format('SELECT k, avg(v) FROM fa8 WHERE g = %s GROUP BY k ORDER BY k', g)) b
	ORDER BY g;
-- without GROUP BY (one group), and several aggregates together
SELECT g, b.* FROM generate_series(1, 11) g,
	LATERAL pg_temp.both(format('SELECT sum(v), avg(v), count(v), min(v), max(v) FROM fa8 WHERE g = %s', g)) b
	ORDER BY g;
-- every group at once, with each strategy
SELECT * FROM pg_temp.both('SELECT g, k, sum(v) FROM fa8 WHERE g NOT IN (1, 2, 3, 10, 11) GROUP BY g, k ORDER BY g, k');
SELECT * FROM pg_temp.both('SELECT g, sum(v), avg(v) FROM fa8 WHERE g IN (4, 5, 6, 7, 8, 9) GROUP BY g ORDER BY g');
SET gpuops.agg_strategy = dense;
SELECT * FROM pg_temp.both('SELECT g, avg(v) FROM fa8 GROUP BY g ORDER BY g');
SELECT * FROM pg_temp.both('SELECT g, avg(v) FROM fa8 WHERE g > 1 AND g < 11 GROUP BY g ORDER BY g');
SET gpuops.agg_strategy = hash;
SELECT * FROM pg_temp.both('SELECT g, avg(v) FROM fa8 GROUP BY g ORDER BY g');
SELECT * FROM pg_temp.both('SELECT g, avg(v) FROM fa8 WHERE g > 1 AND g < 11 GROUP BY g ORDER BY g');
SET gpuops.agg_strategy = sort;
SELECT * FROM pg_temp.both('SELECT g, avg(v) FROM fa8 GROUP BY g ORDER BY g');
SELECT * FROM pg_temp.both('SELECT g, avg(v) FROM fa8 WHERE g > 1 AND g < 11 GROUP BY g ORDER BY g');
RESET gpuops.agg_strategy;
-- groups split across batches: the sums of squares combine (Chan)
SET gpuops.debug_chunk_size = 64;
SELECT * FROM pg_temp.both('SELECT g, avg(v) FROM fa8 GROUP BY g ORDER BY g');
SELECT * FROM pg_temp.both('SELECT g, sum(v), avg(v) FROM fa8 WHERE g > 3 AND g < 10 GROUP BY g ORDER BY g');
RESET gpuops.debug_chunk_size;

-- many rows of +-1e153 (each group's squares overflow) and +-1e150 (they
-- don't): the same answer however the rows are split into batches.  The GPU
-- adds in another order, which moves a finite answer by up to n * eps * 1e150
-- (as a native plan with other workers does), so those are compared in units
-- of 1e146 to six places
CREATE TABLE fa8big AS
	SELECT i % 3 AS k, (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END *
		CASE WHEN i % 3 = 2 THEN 1e153 ELSE 1e150 END)::float8 AS v
	FROM generate_series(1, 20000) i;
SELECT * FROM pg_temp.both('SELECT k, avg(v) FROM fa8big GROUP BY k ORDER BY k');
SELECT * FROM pg_temp.both('SELECT k, round((avg(v) / 1e146)::numeric, 6) FROM fa8big WHERE k <> 2 GROUP BY k ORDER BY k');
SELECT * FROM pg_temp.both('SELECT round((avg(v) / 1e146)::numeric, 6) FROM fa8big WHERE k <> 2');
SET gpuops.debug_chunk_size = 4096;
SELECT * FROM pg_temp.both('SELECT k, avg(v) FROM fa8big GROUP BY k ORDER BY k');
SELECT * FROM pg_temp.both('SELECT k, round((avg(v) / 1e146)::numeric, 6) FROM fa8big WHERE k <> 2 GROUP BY k ORDER BY k');
RESET gpuops.debug_chunk_size;

-- groups past gpuops.max_group_memory spill to sorted runs, and worker
-- processes send theirs: the non-finite flags and the sums of squared
-- deviations go with them.  Statistics are taken with 10 keys, so the plan
-- keeps the node; 30,000 rows of 5,000 keys then spill.  Key 1234's
-- deviations (+-1e154, six rows in six batches) overflow only combined.
CREATE TABLE fa8spill (k int, v float8) WITH (autovacuum_enabled = off);
INSERT INTO fa8spill SELECT i % 10, i FROM generate_series(1, 100) i;
ANALYZE fa8spill;
TRUNCATE fa8spill;
INSERT INTO fa8spill
	SELECT i % 5000, CASE
		WHEN i % 5000 = 1234 THEN CASE WHEN i % 3 = 0 THEN 1e154 ELSE -1e154 END
		WHEN i % 5000 = 77 AND i > 20000 THEN 'Infinity'
		WHEN i % 5000 = 78 AND i > 20000 THEN 'NaN'
		WHEN i % 5000 = 79 AND i > 20000 THEN -1e150
		ELSE ((i % 401) - 200) * 0.125 END
	FROM generate_series(1, 30000) i;
-- whether q spilled, with workers where asked for and the budget allows 3 threads
CREATE FUNCTION pg_temp.spilled(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	j json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || q INTO j;
	RETURN (j->0->'Plan'->>'Spilled Runs')::int > 0 AND
		(coalesce((j->0->'Plan'->>'Workers Launched')::int, 0) > 0) =
		(current_setting('gpuops.parallel_workers')::int > 0 AND
		 (SELECT max_threads FROM gpuops.budget()) >= 3);
END
$$;
SET gpuops.max_group_memory = 64;
SET gpuops.debug_chunk_size = 4096;
SELECT pg_temp.spilled('SELECT k, sum(v), avg(v) FROM fa8spill WHERE k <> 1234 GROUP BY k');
SELECT * FROM pg_temp.both('SELECT k, sum(v), avg(v) FROM fa8spill WHERE k IN (1234, 1235) GROUP BY k ORDER BY k');
SELECT * FROM pg_temp.both('SELECT k, sum(v), avg(v) FROM fa8spill GROUP BY k ORDER BY k');
SELECT * FROM pg_temp.both('SELECT count(*), sum(s), min(a), max(a) FROM (SELECT k, sum(v) AS s, avg(v) AS a FROM fa8spill WHERE k <> 1234 GROUP BY k) t');
SELECT * FROM pg_temp.both('SELECT k, sum(v), avg(v) FROM fa8spill WHERE k BETWEEN 70 AND 80 GROUP BY k ORDER BY k');
SET gpuops.parallel_workers = 2;
SET max_parallel_workers_per_gather = 2;
SET gpuops.cpu_row_cost = 0;
SET parallel_setup_cost = 0;
SET gpuops.threads = 4;
SELECT pg_temp.spilled('SELECT k, sum(v), avg(v) FROM fa8spill WHERE k <> 1234 GROUP BY k');
SELECT * FROM pg_temp.both('SELECT k, sum(v), avg(v) FROM fa8spill GROUP BY k ORDER BY k');
SELECT * FROM pg_temp.both('SELECT count(*), sum(s), min(a), max(a) FROM (SELECT k, sum(v) AS s, avg(v) AS a FROM fa8spill WHERE k <> 1234 GROUP BY k) t');
RESET gpuops.threads;
RESET parallel_setup_cost;
RESET gpuops.cpu_row_cost;
SET max_parallel_workers_per_gather = 0;
RESET gpuops.parallel_workers;
RESET gpuops.debug_chunk_size;
RESET gpuops.max_group_memory;
DROP TABLE fa8spill;

-- ---- float4: sum accumulates in float4 (float4pl), avg in float8 ----
CREATE TABLE fa4 (g int, k int, v float4);
INSERT INTO fa4 VALUES
	-- beyond float4's maximum: an overflow of sum, not of avg
	(1, 1, 3e38), (1, 1, 3e38),
	(2, 1, 3.4e38), (2, 1, 1e37),
	-- near the maximum, no overflow
	(3, 1, 3.4e38), (3, 1, -1e38), (3, 2, 1.7e38), (3, 2, 1.6e38),
	-- infinities and NaN
	(4, 1, 1), (4, 1, 'Infinity'), (4, 2, '-Infinity'), (4, 2, 'Infinity'),
	(5, 1, 3e38), (5, 1, 3e38), (5, 1, 'NaN'),
	(6, 1, '-0'), (6, 1, '-0'), (6, 2, '-0'), (6, 2, 0),
	-- order decides: float4pl overflows at the second row, the finite sum
	-- of the three fits
	(7, 1, 3e38), (7, 1, 3e38), (7, 1, -3e38),
	-- order decides: a NaN first, then an overflow of the finite values
	(8, 1, 'NaN'), (8, 1, 3e38), (8, 1, 3e38);
SELECT g, b.* FROM generate_series(1, 8) g,
	LATERAL pg_temp.both(format('SELECT k, sum(v), avg(v) FROM fa4 WHERE g = %s GROUP BY k ORDER BY k', g)) b
	ORDER BY g;
SELECT g, b.* FROM generate_series(1, 8) g,
	LATERAL pg_temp.both(format('SELECT sum(v) FROM fa4 WHERE g = %s', g)) b
	ORDER BY g;
SELECT g, b.* FROM generate_series(1, 8) g,
	LATERAL pg_temp.both(format('SELECT avg(v) FROM fa4 WHERE g = %s', g)) b
	ORDER BY g;
SELECT * FROM pg_temp.both('SELECT g, k, avg(v) FROM fa4 GROUP BY g, k ORDER BY g, k');
SELECT * FROM pg_temp.both('SELECT g, k, sum(v) FROM fa4 WHERE g IN (3, 4, 6) GROUP BY g, k ORDER BY g, k');
SELECT * FROM pg_temp.both('SELECT g, k, sum(v), avg(v) FROM fa4 WHERE g IN (1, 3, 4, 6) GROUP BY g, k ORDER BY g, k');

-- ---- gpuops.group_agg: avg raises as avg does ----
SELECT pg_temp.run($$SELECT * FROM gpuops.group_agg(ARRAY[1, 1, 1], ARRAY[1e300, 1e300, 1]::float8[])$$);
SELECT pg_temp.run($$SELECT k, avg(v) FROM unnest(ARRAY[1, 1, 1], ARRAY[1e300, 1e300, 1]::float8[]) u(k, v) GROUP BY k$$);
SELECT pg_temp.run($$SELECT * FROM gpuops.group_agg(ARRAY[1, 1, 2, 2], ARRAY[1e308, 1e308, 'Infinity', '-Infinity']::float8[])$$);
SELECT pg_temp.run($$SELECT * FROM gpuops.group_agg(ARRAY[1, 1, 2, 2], ARRAY[1e300, 1e300, 'Infinity', 1]::float8[])$$);
SELECT pg_temp.run($$SELECT * FROM gpuops.group_agg('SELECT k, v FROM fa8 WHERE g = 1', 0::int)$$);
SELECT pg_temp.run($$SELECT * FROM gpuops.group_agg('SELECT k, v FROM fa8 WHERE g IN (4, 6, 7)', 0::int)$$);

DROP TABLE fa8, fa8big, fa4;
