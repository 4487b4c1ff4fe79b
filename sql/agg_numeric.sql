-- Custom Scan (GpuOpsAgg) over numeric(p, s) columns with p <= 18: the
-- reader holds each value as the integer value * 10^s, so grouping keys,
-- count, sum, avg, min and max and WHERE / FILTER comparisons with exact
-- constants run on the engine, each checked against PostgreSQL's own
-- answer: display scales, NaN (one group, above every number, and a NaN in
-- a group makes its sum and avg NaN), NULLs, negative values, the largest
-- values of each precision, values added by ALTER TABLE ... ADD COLUMN,
-- page batches and the slot path, small chunks, several strategies,
-- spilling and worker processes.  numeric without a typmod, with more than
-- 18 digits or a negative scale keep the native plan.  Expressions over
-- them (+ - *, unary minus, abs, casts from int2 / int4, comparisons, CASE,
-- COALESCE, NULLIF) run on the device with a scale known for every node.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql

-- EXPLAIN ANALYZE of q as JSON
CREATE FUNCTION pg_temp.explain_json(q text) RETURNS json LANGUAGE plpgsql AS $$
DECLARE
	j json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || q INTO j;
	RETURN j;
END
$$;

CREATE TABLE num_t (
	k int4,
	g numeric(6, 2),
	x numeric(15, 2),
	y numeric(18, 0),
	z numeric(10, 4),
	f numeric(5, 5),
	u numeric,
	w numeric(20, 2)
);
INSERT INTO num_t
SELECT i % 7,
	   (i % 13) / 4.0 - 1,
	   (i * 37 % 10007) / 100.0 - 30,
	   (i::int8 * 1000003) % 999999999999999,
	   CASE WHEN i % 11 = 0 THEN NULL ELSE (i % 97) / 1000.0 - 0.05 END,
	   (i % 1000) / 100000.0,
	   i / 3.0,
	   i / 7.0
FROM generate_series(1, 20000) i;
-- NaN, NULL, the extreme values of each precision, a group of NULLs only
INSERT INTO num_t VALUES
	(3, 'NaN', 'NaN', 1, 'NaN', 0.5, 'NaN', 'NaN'),
	(8, NULL, -9999999999999.99, -999999999999999999, 0.0001, -0.99999, 1, 1),
	(8, 9999.99, 9999999999999.99, 999999999999999999, 999999.9999, 0.99999, 1, 1),
	(9, 'NaN', 1, 1, 1, 0, 1, 1),
	(9, -9999.99, NULL, NULL, NULL, NULL, NULL, NULL),
	(10, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
	(11, 0, 0, 0, 0, 0, 0, 0),
	(11, -0.00, -0.00, -0, -0.0000, -0.00000, -0, -0);
VACUUM ANALYZE num_t;

-- the plan
SELECT * FROM pg_temp.plan('SELECT g, sum(x), avg(z) FROM num_t GROUP BY g');
SELECT * FROM pg_temp.table_read('SELECT g, sum(x), avg(z) FROM num_t GROUP BY g');

-- aggregates over numeric columns, grouped by an integer key
SELECT pg_temp.check('SELECT k, sum(x), avg(x), min(x), max(x), count(x) FROM num_t GROUP BY k');
SELECT pg_temp.check('SELECT k, sum(y), avg(y), min(y), max(y) FROM num_t GROUP BY k');
SELECT pg_temp.check('SELECT k, sum(z), avg(z), min(z), max(z), count(*) FROM num_t GROUP BY k');
SELECT pg_temp.check('SELECT k, sum(f), avg(f), min(f), max(f) FROM num_t GROUP BY k');
-- numeric keys, alone and with others
SELECT pg_temp.check('SELECT g, count(*), sum(x), avg(x), min(z), max(y) FROM num_t GROUP BY g');
SELECT pg_temp.check('SELECT g, k, count(*), sum(z) FROM num_t GROUP BY g, k');
SELECT pg_temp.check('SELECT z, count(*), sum(x) FROM num_t GROUP BY z');
SELECT pg_temp.check('SELECT y, count(*) FROM num_t GROUP BY y');
-- no GROUP BY; an empty input; HAVING
SELECT pg_temp.check('SELECT sum(x) AS sx, avg(x) AS ax, min(x), max(x), sum(y) AS sy, avg(z) AS az, sum(f) AS sf FROM num_t');
SELECT pg_temp.check('SELECT sum(x), avg(x), min(x), max(x) FROM num_t WHERE k > 100');
SELECT pg_temp.check('SELECT k, sum(x) FROM num_t GROUP BY k HAVING sum(x) > 0');
-- WHERE and FILTER comparisons with numeric constants, exact at the scale
SELECT pg_temp.check('SELECT k, sum(x), count(*) FROM num_t WHERE x < 24 GROUP BY k');
SELECT pg_temp.check('SELECT k, sum(x), count(*) FROM num_t WHERE z BETWEEN 0.0100 AND 0.03 GROUP BY k');
SELECT pg_temp.check('SELECT k, sum(x) FROM num_t WHERE g = 1.25 OR g >= 2 GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) FROM num_t WHERE g = ''NaN'' GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) FROM num_t WHERE x < ''NaN'' AND x <> 0 GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) FROM num_t WHERE y >= 999999999999999999 OR y IS NULL GROUP BY k');
SELECT pg_temp.check('SELECT g, sum(x) FILTER (WHERE z > 0), count(*) FILTER (WHERE x <= -1.5) FROM num_t GROUP BY g');
-- a constant that is not exact at the column's scale: compared as an
-- expression, exactly across the scales
SELECT * FROM pg_temp.plan('SELECT k, count(*) FROM num_t WHERE x < 1.005 GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) FROM num_t WHERE x < 1.005 GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) FROM num_t WHERE x IN (1.00, 2.50) GROUP BY k');
-- the strategies, small chunks
SET gpuops.agg_strategy = dense;
SELECT pg_temp.check('SELECT g, count(*), sum(x) FROM num_t GROUP BY g');
SET gpuops.agg_strategy = hash;
SELECT pg_temp.check('SELECT g, count(*), sum(x) FROM num_t GROUP BY g');
SET gpuops.agg_strategy = sort;
SELECT pg_temp.check('SELECT g, count(*), sum(x) FROM num_t GROUP BY g');
RESET gpuops.agg_strategy;
SET gpuops.debug_chunk_size = 512;
SELECT pg_temp.check('SELECT k, g, sum(x), avg(z), min(y), max(f) FROM num_t GROUP BY k, g');
RESET gpuops.debug_chunk_size;
-- ordered output: numeric keys come out in numeric's order, NaN last
SELECT pg_temp.check_order('SELECT g, count(*) FROM num_t GROUP BY g ORDER BY g');
-- spilled groups (a table without statistics: the estimate is small, the
-- groups many), then worker processes (where the core budget allows a
-- query 3 threads)
CREATE TABLE num_s AS SELECT * FROM num_t;
SET gpuops.max_group_memory = 64;
SELECT j->0->'Plan'->>'Custom Plan Provider' AS node,
       (j->0->'Plan'->>'Spilled Runs')::int > 0 AS spilled_runs
FROM pg_temp.explain_json('SELECT y, count(*) FROM num_s GROUP BY y') j;
SELECT pg_temp.check('SELECT y, count(*), sum(x), max(z) FROM num_s GROUP BY y');
SELECT pg_temp.check('SELECT y, sum(z), avg(x), min(g) FROM num_s GROUP BY y');
RESET gpuops.max_group_memory;
DROP TABLE num_s;
SET gpuops.parallel_workers = 2;
SET max_parallel_workers_per_gather = 2;
SET gpuops.cpu_row_cost = 0;
SET gpuops.threads = 4;
SET gpuops.debug_chunk_size = 16384;
SET parallel_setup_cost = 0;
SELECT ((j->0->'Plan'->>'Workers Launched')::int > 0) =
       ((SELECT max_threads FROM gpuops.budget()) >= 3) AS workers_as_budget_allows
FROM pg_temp.explain_json('SELECT g, count(*) FROM num_t GROUP BY g') j;
SELECT pg_temp.check('SELECT g, count(*), sum(x), avg(z), min(y), max(y) FROM num_t GROUP BY g');
SELECT pg_temp.check('SELECT sum(x) AS sx, avg(x) AS ax, min(z), max(z) FROM num_t WHERE x > 0');
RESET parallel_setup_cost;
RESET gpuops.debug_chunk_size;
RESET gpuops.threads;
RESET gpuops.cpu_row_cost;
RESET gpuops.parallel_workers;
SET max_parallel_workers_per_gather = 0;
-- the slot path (a CPU clause) and values a column added later holds
SELECT * FROM pg_temp.table_read('SELECT k, sum(x) FROM num_t WHERE x::text <> ''1.00'' GROUP BY k');
SELECT pg_temp.check('SELECT k, sum(x), max(g) FROM num_t WHERE x::text <> ''1.00'' GROUP BY k');
ALTER TABLE num_t ADD COLUMN m numeric(8, 3) DEFAULT 12.5;
INSERT INTO num_t (k, x, m) VALUES (1, 1, -7.125), (2, 2, NULL);
SELECT pg_temp.check('SELECT k, sum(m), avg(m), min(m), max(m), count(m) FROM num_t GROUP BY k');
SELECT pg_temp.check('SELECT m, count(*) FROM num_t GROUP BY m');
-- expressions over numeric: + - * (a product's scale is the sum of its
-- operands'), unary minus, abs, int2/int4 to numeric, exact comparisons
-- across scales, CASE / COALESCE / NULLIF whose results share one scale
-- (without the rows of the largest values, whose products pass 10^18: see
-- below)
SELECT * FROM pg_temp.plan('SELECT k, sum(x * (1 - z)) FROM num_t GROUP BY k');
SELECT pg_temp.check('SELECT k, sum(x * 2) AS a, sum(x * z) AS b, avg(x + y) AS c, min(-x) AS d, max(abs(x - 1.5)) AS e FROM num_t WHERE k <> 8 GROUP BY k');
SELECT pg_temp.check('SELECT k, sum(x * (1 - z) * (1 + f)) AS a, avg(x * (1 - z)) AS b, sum(k * x) AS c, sum(x - k) AS d FROM num_t WHERE k <> 8 GROUP BY k');
SELECT pg_temp.check('SELECT g * 2 AS g2, count(*), sum(z * z * z) AS z3 FROM num_t WHERE k <> 8 GROUP BY 1');
SELECT pg_temp.check('SELECT g + k AS gk, max(x + 0.001) AS m FROM num_t GROUP BY 1');
SELECT pg_temp.check('SELECT k, sum(CASE WHEN x > 0 THEN x ELSE -x END) AS a, sum(COALESCE(z, 0.0000)) AS b, max(NULLIF(g, 0.00)) AS c FROM num_t GROUP BY k');
SELECT pg_temp.check('SELECT CASE WHEN z * 100 >= 1 THEN 1 ELSE 0 END AS big, count(*), sum(x) FILTER (WHERE x * 2 > y) AS a FROM num_t GROUP BY 1');
SELECT pg_temp.check('SELECT sum(x * z) AS a, avg(-z) AS b, min(g * g) AS c, max(f + f) AS d FROM num_t WHERE k <> 8');
-- TPC-H Q1 and Q6 in the same shape (numeric(15, 2) prices, char(1) flags)
CREATE TABLE num_li (q numeric(15, 2), p numeric(15, 2), d numeric(15, 2),
					 t numeric(15, 2), rf char(1), ls char(1), sd date);
INSERT INTO num_li
SELECT 1 + i % 50, (1 + i % 50) * (900 + i % 1000) / 10.0, (i % 11) / 100.0,
	   (i % 9) / 100.0, (ARRAY['A', 'N', 'R'])[1 + i % 3],
	   (ARRAY['O', 'F'])[1 + i % 2], date '1992-01-01' + i % 2500
FROM generate_series(1, 30000) i;
VACUUM ANALYZE num_li;
SELECT pg_temp.check($$SELECT rf, ls, sum(q) AS sum_qty, sum(p) AS sum_base_price,
	sum(p * (1 - d)) AS sum_disc_price, sum(p * (1 - d) * (1 + t)) AS sum_charge,
	avg(q) AS avg_qty, avg(p) AS avg_price, avg(d) AS avg_disc, count(*) AS count_order
	FROM num_li WHERE sd <= date '1998-12-01' - interval '90' day GROUP BY rf, ls$$);
SELECT pg_temp.check($$SELECT sum(p * d) AS revenue FROM num_li
	WHERE sd >= date '1994-01-01' AND sd < date '1994-01-01' + interval '1' year
	AND d BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND q < 24$$);
-- numeric columns of different scales compared in WHERE: on the device,
-- exactly (numeric's comparisons never fail)
SELECT pg_temp.check($$SELECT rf, count(*) AS n, sum(q) AS s FROM num_li
	WHERE d < t AND p > q * 20 AND rf IN ('A', 'N') GROUP BY rf$$);
SELECT pg_temp.check($$SELECT ls, count(*) AS n FROM num_li WHERE d * 100 >= q OR t = d GROUP BY ls$$);
DROP TABLE num_li;
-- a value of 10^18 or more, which PostgreSQL holds but the engine's numerics
-- do not: an error that says so, never a wrong answer
SELECT pg_temp.try('SELECT k, sum(y * y) FROM num_t GROUP BY k');
SET gpuops.enabled = off;
SELECT pg_temp.try('SELECT k, sum(y * y) FROM num_t GROUP BY k');
RESET gpuops.enabled;
-- what keeps the native plan: no typmod, more than 18 digits, a division,
-- branches of other scales, an int8 cast to numeric, a scale past 18
SELECT * FROM pg_temp.plan('SELECT k, sum(u) FROM num_t GROUP BY k');
SELECT * FROM pg_temp.plan('SELECT k, sum(w) FROM num_t GROUP BY k');
SELECT * FROM pg_temp.plan('SELECT u, count(*) FROM num_t GROUP BY u');
SELECT * FROM pg_temp.plan('SELECT k, sum(x / 2) FROM num_t GROUP BY k');
SELECT * FROM pg_temp.plan('SELECT k, sum(COALESCE(x, 0)) FROM num_t GROUP BY k');
SELECT * FROM pg_temp.plan('SELECT k, sum(x + k::int8) FROM num_t GROUP BY k');
SELECT * FROM pg_temp.plan('SELECT k, sum(z * z * z * z * z) FROM num_t GROUP BY k');
-- a constant brought to its operand's scale is scaled as it is compiled; one
-- that would reach 10^18 there (every row would fail) keeps the native plan
SELECT * FROM pg_temp.plan('SELECT k, sum(x + 999999999999999999) FROM num_t GROUP BY k');
SELECT pg_temp.check('SELECT k, sum(x + 99999999999999) AS a, sum(1 - z) AS b, sum(z * (1 + g)) AS c FROM num_t GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) FROM num_t WHERE u > 100 GROUP BY k');
DROP TABLE num_t;
