-- the core budget shared by every session (gpuops.max_threads, budget.c): a
-- query takes its engine threads when it starts, at most what is free and at
-- least one, and gives them back at the end, after an error and after a
-- cancel; gpuops.budget() shows the counter
\set SHOW_CONTEXT never
SET gpuops.device = 'cpu';
SET gpuops.cpu_setup_cost = 0;
SET gpuops.cpu_row_cost = 0;
SET gpuops.parallel_workers = 0;
CREATE TABLE budget_t AS
  SELECT i % 10 AS k, i::float8 AS v, i AS w FROM generate_series(1, 50000) i;
ANALYZE budget_t;

-- preloaded (as the tests run): a shared budget, nothing in use, capped at
-- the cores (gpuops.max_threads = 0)
SHOW gpuops.max_threads;
SELECT shared, threads_in_use, threads_held,
       max_threads = (SELECT value::int FROM gpuops.info() WHERE key = 'openmp_threads')
         AS cap_is_cores
  FROM gpuops.budget();
-- a session cannot change the cap
SET gpuops.max_threads = 1;

-- the Threads line of EXPLAIN ANALYZE q, and whether q ran on the node
CREATE FUNCTION budget_threads(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	on_node bool := false;
	threads text := 'no Threads line';
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF line LIKE '%GpuOpsAgg%' THEN on_node := true; END IF;
		IF line ~ '^\s*Threads: ' THEN threads := substring(line from 'Threads: (\d+)'); END IF;
	END LOOP;
	RETURN CASE WHEN on_node THEN threads ELSE 'not on the node' END;
END
$$;

-- whether q's plan has the node (for queries that fail)
CREATE FUNCTION budget_on_node(q text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF line LIKE '%GpuOpsAgg%' THEN RETURN true; END IF;
	END LOOP;
	RETURN false;
END
$$;

-- alone, a query gets what it asks for: gpuops.threads, or every core
SET gpuops.threads = 1;
SELECT budget_threads('SELECT k, count(*), sum(v) FROM budget_t WHERE w < 40000 GROUP BY k');
RESET gpuops.threads;
-- (every core the rows are worth: one thread a 32,768 rows, so 2 for 50,000)
SELECT budget_threads('SELECT k, count(*), sum(v) FROM budget_t GROUP BY k')::int =
       least(2, (SELECT max_threads FROM gpuops.budget())) AS every_core_worth;
SELECT threads_in_use, threads_held FROM gpuops.budget();

-- while the node reads, its backend holds the threads (a clause PostgreSQL
-- evaluates looks at the budget for every row)
CREATE FUNCTION budget_held() RETURNS int LANGUAGE sql VOLATILE
  AS 'SELECT threads_held FROM gpuops.budget()';
SET gpuops.threads = 1;
SELECT budget_threads('SELECT k, count(*) FROM budget_t WHERE budget_held() = 1 GROUP BY k');
SELECT k, count(*) FROM budget_t WHERE budget_held() = 1 GROUP BY k ORDER BY k;
RESET gpuops.threads;
SELECT threads_in_use, threads_held FROM gpuops.budget();

-- an error while the node reads gives them back
SELECT budget_on_node('SELECT k, count(*) FROM budget_t WHERE 1 / (w - 25000) > 0 GROUP BY k');
SELECT k, count(*) FROM budget_t WHERE 1 / (w - 25000) > 0 GROUP BY k;
SELECT threads_in_use, threads_held FROM gpuops.budget();

-- so does a cancel (statement_timeout) while the node reads
SELECT budget_on_node('SELECT k, count(*) FROM budget_t WHERE pg_sleep(0.001) IS NOT NULL GROUP BY k');
SET statement_timeout = '300ms';
SELECT k, count(*) FROM budget_t WHERE pg_sleep(0.001) IS NOT NULL GROUP BY k;
RESET statement_timeout;
SELECT threads_in_use, threads_held FROM gpuops.budget();

-- and an error in a transaction that goes on in a savepoint
BEGIN;
SAVEPOINT a;
SELECT k, count(*) FROM budget_t WHERE 1 / (w - 25000) > 0 GROUP BY k;
ROLLBACK TO a;
SELECT threads_in_use, threads_held FROM gpuops.budget();
COMMIT;

-- and an error caught in PL/pgSQL (a subtransaction), before the next query
DO $$
DECLARE
	n int;
	h int;
BEGIN
	BEGIN
		SELECT count(*) INTO n
		  FROM (SELECT k, count(*) FROM budget_t WHERE 1 / (w - 25000) > 0 GROUP BY k) s;
	EXCEPTION WHEN division_by_zero THEN
		SELECT threads_held, threads_in_use INTO h, n FROM gpuops.budget();
		RAISE NOTICE 'in the handler: held %, in use %', h, n;
	END;
	SELECT count(*) INTO n FROM (SELECT k, count(*) FROM budget_t GROUP BY k) s;
	SELECT threads_held INTO h FROM gpuops.budget();
	RAISE NOTICE 'after the next query: % groups, held %', n, h;
END
$$;

-- the SQL functions take threads too (held while the row is formed), and
-- give them back when they end
SET gpuops.threads = 1;
SELECT gpuops.prefix_sum(a), (gpuops.budget()).threads_held AS held_in_the_row
  FROM (VALUES (ARRAY[1, 2]::int8[]), (ARRAY[3]::int8[])) v(a);
RESET gpuops.threads;
SELECT threads_in_use, threads_held FROM gpuops.budget();
SELECT gpuops.prefix_sum(ARRAY[1, 2, 3]::int8[]);
SELECT * FROM gpuops.rle(ARRAY[2, 2, 5]);
SELECT count(*) FROM gpuops.group_agg(ARRAY[1, 1, 2], ARRAY[1.5, 2.5, 4]::float8[]);
SELECT threads_in_use, threads_held FROM gpuops.budget();
SELECT * FROM gpuops.histogram(ARRAY[1, 2, 3]::float8[], 0);
SELECT threads_in_use, threads_held FROM gpuops.budget();

-- the answers are PostgreSQL's with one thread
SET gpuops.threads = 1;
CREATE TEMP TABLE budget_on AS
  SELECT k, count(*) AS n, sum(v) AS s FROM budget_t WHERE w < 40000 GROUP BY k;
RESET gpuops.threads;
SET gpuops.enabled = off;
CREATE TEMP TABLE budget_off AS
  SELECT k, count(*) AS n, sum(v) AS s FROM budget_t WHERE w < 40000 GROUP BY k;
RESET gpuops.enabled;
SELECT (SELECT count(*) FROM (SELECT * FROM budget_on EXCEPT ALL SELECT * FROM budget_off) a) AS only_on,
       (SELECT count(*) FROM (SELECT * FROM budget_off EXCEPT ALL SELECT * FROM budget_on) b) AS only_off,
       (SELECT count(*) FROM budget_on) AS groups;

-- the GPU's seats (gpuops.max_gpu_queries, gpu_seats.c): a query that may
-- use the GPU holds one while it reads and gives it back at the end, after
-- an error and after a cancel.  gpuops.debug_gpu_seats takes them where no
-- GPU answers, so the output is the same on every machine; the queries then
-- run on the CPU.  Other sessions' seats: specs/gpu_seats.spec.
SHOW gpuops.max_gpu_queries;
SET gpuops.max_gpu_queries = 1;
SELECT max_gpu_queries, gpu_queries_in_use FROM gpuops.budget();
CREATE FUNCTION budget_seats() RETURNS int LANGUAGE sql VOLATILE
  AS 'SELECT gpu_queries_in_use FROM gpuops.budget()';
SET gpuops.debug_gpu_seats = on;
SET gpuops.device = 'auto';
SELECT k, count(*) FROM budget_t WHERE budget_seats() = 1 GROUP BY k ORDER BY k LIMIT 3;
SELECT budget_seats();
SELECT k, count(*) FROM budget_t WHERE 1 / (w - 25000) > 0 GROUP BY k;
SELECT budget_seats();
SET statement_timeout = '300ms';
SELECT k, count(*) FROM budget_t WHERE pg_sleep(0.001) IS NOT NULL GROUP BY k;
RESET statement_timeout;
SELECT budget_seats();
-- the SQL functions hold one while the row is formed
SELECT gpuops.prefix_sum(a), budget_seats() AS held_in_the_row
  FROM (VALUES (ARRAY[1, 2]::int8[]), (ARRAY[3]::int8[])) v(a);
SELECT budget_seats();
-- gpuops.device = cpu takes none
SET gpuops.device = 'cpu';
SELECT k, count(*) FROM budget_t WHERE budget_seats() = 0 GROUP BY k ORDER BY k LIMIT 3;
RESET gpuops.debug_gpu_seats;
DROP FUNCTION budget_seats();

DROP FUNCTION budget_held();
DROP FUNCTION budget_on_node(text);
DROP FUNCTION budget_threads(text);
DROP TABLE budget_t;
