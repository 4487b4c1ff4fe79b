-- GpuOpsAgg past gpuops.max_group_memory: the groups spill to temporary files
-- as sorted runs and are merged back.  The planner's estimate is wrong on
-- purpose (statistics of a small table, then many distinct keys), so the
-- node is planned and finds out at run time.  Every answer is checked
-- against PostgreSQL's with EXCEPT ALL both ways; float values are dyadic
-- fractions, so no summation order changes a sum.
\set SHOW_CONTEXT never
LOAD 'gpuops';
SET gpuops.cpu_setup_cost = 0;
SET gpuops.gpu_setup_cost = 0;
SET max_parallel_workers_per_gather = 0;

-- q with gpuops on (the node must be in the plan) against gpuops off
CREATE FUNCTION pg_temp.check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	used boolean := false;
	n bigint;
	d1 bigint;
	d2 bigint;
BEGIN
	PERFORM set_config('gpuops.enabled', 'on', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		used := used OR line LIKE '%GpuOpsAgg%';
	END LOOP;
	IF NOT used THEN
		RETURN 'NODE NOT USED';
	END IF;
	EXECUTE 'CREATE TEMP TABLE chk_on AS ' || q;
	PERFORM set_config('gpuops.enabled', 'off', true);
	EXECUTE 'CREATE TEMP TABLE chk_off AS ' || q;
	PERFORM set_config('gpuops.enabled', 'on', true);
	SELECT count(*) INTO n FROM chk_on;
	SELECT count(*) INTO d1 FROM (TABLE chk_on EXCEPT ALL TABLE chk_off) x;
	SELECT count(*) INTO d2 FROM (TABLE chk_off EXCEPT ALL TABLE chk_on) x;
	DROP TABLE chk_on;
	DROP TABLE chk_off;
	RETURN CASE WHEN d1 = 0 AND d2 = 0 THEN 'same, ' || n || ' rows'
		ELSE format('DIFFERENT: %s rows, %s only with gpuops, %s only without', n, d1, d2) END;
END
$$;

-- q's rows in the order they come out, with gpuops on (node required) and off
CREATE FUNCTION pg_temp.check_order(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	used boolean := false;
	sorted boolean := false;
	r_on text;
	r_off text;
BEGIN
	PERFORM set_config('gpuops.enabled', 'on', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		used := used OR line LIKE '%GpuOpsAgg%';
		sorted := sorted OR line LIKE '%Sort%';
	END LOOP;
	IF NOT used THEN
		RETURN 'NODE NOT USED';
	END IF;
	EXECUTE 'SELECT md5(string_agg(s::text, '';'')) FROM (' || q || ') s' INTO r_on;
	PERFORM set_config('gpuops.enabled', 'off', true);
	EXECUTE 'SELECT md5(string_agg(s::text, '';'')) FROM (' || q || ') s' INTO r_off;
	PERFORM set_config('gpuops.enabled', 'on', true);
	RETURN CASE WHEN r_on IS NOT DISTINCT FROM r_off THEN 'same order' ELSE 'DIFFERENT ORDER' END ||
		CASE WHEN sorted THEN ', sorted above the node' ELSE ', no sort' END;
END
$$;

-- what EXPLAIN ANALYZE of q says about the groups and the spill (the
-- figures depend on the face's batch sizes, so only whether they are there)
CREATE FUNCTION pg_temp.spill(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF line LIKE '%Groups: %' AND line NOT LIKE '%Running%' THEN
			RETURN NEXT btrim(line);
		ELSIF line LIKE '%Spilled Runs:%' OR line LIKE '%Spilled Bytes:%' OR
			  line LIKE '%Spill Merge Passes:%' THEN
			RETURN NEXT regexp_replace(btrim(line), ': .*', ': (some)');
		END IF;
	END LOOP;
END
$$;

-- EXPLAIN (ANALYZE, FORMAT JSON) of q
CREATE FUNCTION pg_temp.explain_json(q text) RETURNS json LANGUAGE plpgsql AS $$
DECLARE
	j json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || q INTO j;
	RETURN j;
END
$$;

\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/try.psql

-- the same, with a cancel caught too
CREATE FUNCTION pg_temp.try_cancel(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS OR query_canceled THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;

-- the temporary files of the cluster's default tablespace
CREATE FUNCTION pg_temp.temp_files() RETURNS bigint LANGUAGE sql AS
$$ SELECT count(*) FROM pg_ls_tmpdir() $$;

-- statistics taken with 10 distinct keys, then 120,000 rows of ~100,000
CREATE TABLE spill_t (i int4, k int4, k8 int8, kt text, v int4, w int8,
                      f float8, f4 float4) WITH (autovacuum_enabled = off);
INSERT INTO spill_t
SELECT i, i % 10, i % 10, 'a' || (i % 10), i, i, i * 0.5, i * 0.25
FROM generate_series(1, 1000) i;
ANALYZE spill_t;
INSERT INTO spill_t
SELECT i,
       CASE WHEN i % 997 = 0 THEN NULL ELSE (i * 7919) % 100000 END,
       CASE WHEN i % 991 = 0 THEN NULL ELSE ((i::int8 * 104729) % 90000) * 1000000007::int8 - 4000000000000 END,
       CASE WHEN i % 983 = 0 THEN NULL ELSE 'key ' || ((i * 31) % 30011) END,
       CASE WHEN i % 13 = 0 THEN NULL ELSE (i % 1000) - 500 END,
       (i::int8 * 2654435761) % 9000000000000000,
       CASE WHEN i % 17 = 0 THEN NULL ELSE ((i % 401) - 200) * 0.125 END,
       ((i % 203) - 101) * 0.5
FROM generate_series(1001, 121000) i;

SET gpuops.max_group_memory = 64;
SHOW gpuops.max_group_memory;
-- the estimate is small, the groups many; structured EXPLAIN has the spill
SELECT j->0->'Plan'->>'Custom Plan Provider' AS node,
       (j->0->'Plan'->>'Plan Rows')::float8 < 100 AS estimated_small,
       j->0->'Plan'->>'Groups' AS groups,
       (j->0->'Plan'->>'Spilled Runs')::int > 0 AS spilled_runs,
       (j->0->'Plan'->>'Spilled Bytes')::int > 0 AS spilled_bytes
FROM pg_temp.explain_json('SELECT k, count(*) FROM spill_t GROUP BY k') j;
SELECT pg_temp.spill('SELECT k, count(*) FROM spill_t GROUP BY k');
SELECT pg_temp.check('SELECT k, count(*) AS n, count(v) AS nv, sum(v) AS s, min(v) AS lo, max(v) AS hi, avg(v) AS a FROM spill_t GROUP BY k');
SELECT pg_temp.check('SELECT k, sum(w) AS s, avg(w) AS a, sum(f) AS sf, min(f) AS lf, max(f) AS hf, avg(f) AS af, sum(f4) AS s4, min(f4) AS l4 FROM spill_t GROUP BY k');
-- int8 keys (no dense strategy: each chunk's groups merge and spill)
SELECT pg_temp.spill('SELECT k8, count(*) FROM spill_t GROUP BY k8');
SELECT pg_temp.check('SELECT k8, count(*) AS n, sum(v) AS s, min(f) AS lo, max(w) AS hi FROM spill_t GROUP BY k8');
-- text keys: dictionary codes spill within the query
SELECT pg_temp.spill('SELECT kt, count(*) FROM spill_t GROUP BY kt');
SELECT pg_temp.check('SELECT kt, count(*) AS n, sum(v) AS s, avg(f) AS a, max(w) AS hi FROM spill_t GROUP BY kt');
-- several keys (packed), FILTER, WHERE on the device, HAVING
SELECT pg_temp.check('SELECT k, kt, count(*) AS n, sum(v) AS s FROM spill_t GROUP BY k, kt');
SELECT pg_temp.check('SELECT k8, k, count(*) FILTER (WHERE v > 0) AS np, sum(f) FILTER (WHERE f < 3) AS sf FROM spill_t WHERE i > 5000 GROUP BY k8, k');
SELECT pg_temp.check('SELECT k, count(*) AS n FROM spill_t GROUP BY k HAVING count(*) > 1');
-- many small chunks: many runs, merged in passes before the last merge
SET gpuops.debug_chunk_size = 4096;
SELECT pg_temp.spill('SELECT k8, count(*) FROM spill_t GROUP BY k8');
SELECT pg_temp.check('SELECT k8, count(*) AS n, sum(w) AS s, min(v) AS lo FROM spill_t GROUP BY k8');
SELECT pg_temp.check('SELECT kt, k, count(*) AS n, max(f4) AS hi FROM spill_t GROUP BY kt, k');
-- the groups still come out in key order: no Sort above the node
SELECT pg_temp.check_order('SELECT k8, count(*) AS n, sum(v) AS s FROM spill_t GROUP BY k8 ORDER BY k8');
SELECT pg_temp.check_order('SELECT k, k8, count(*) AS n FROM spill_t GROUP BY k, k8 ORDER BY k, k8');
RESET gpuops.debug_chunk_size;

-- worker processes spill their groups too, and send them piece by piece
-- (workers_on.psql gives the query a budget of 6 threads on any machine;
-- the workers read every block, so the backend merges spilled pieces)
\i :abs_srcdir/sql/include/workers_on.psql
SET gpuops.cpu_row_cost = 0;
SET gpuops.threads = 4;
SET gpuops.debug_chunk_size = 16384;
SELECT ((j->0->'Plan'->>'Workers Launched')::int > 0) =
       ((SELECT max_threads FROM gpuops.budget()) >= 3) AS workers_as_budget_allows,
       (j->0->'Plan'->>'Spilled Runs')::int > 0 AS spilled_runs
FROM pg_temp.explain_json('SELECT k, count(*) FROM spill_t GROUP BY k') j;
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s, min(f) AS lo, max(f) AS hi FROM spill_t GROUP BY k');
SELECT pg_temp.check('SELECT k8, k, count(*) AS n, sum(w) AS s, avg(v) AS a FROM spill_t GROUP BY k8, k');
RESET gpuops.debug_chunk_size;
RESET gpuops.cpu_row_cost;
\i :abs_srcdir/sql/include/workers_off.psql

-- a rescan forgets the spilled groups and reads again
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT pg_temp.check('SELECT g, s.n, s.sv FROM generate_series(1, 3) g LEFT JOIN (SELECT k, count(*) n, sum(v) sv FROM spill_t GROUP BY k) s ON s.k = g');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- errors while spilling: a clean error, and no temporary file left behind
SELECT pg_temp.temp_files() AS temp_files_before;
SELECT pg_temp.try('SELECT k8, count(*) FROM spill_t WHERE 1 / (i - 90000) > -1 GROUP BY k8');
SELECT pg_temp.temp_files() AS temp_files_after_error;
SET temp_file_limit = '100kB';
SELECT pg_temp.try('SELECT k8, count(*), sum(w) FROM spill_t GROUP BY k8');
RESET temp_file_limit;
SELECT pg_temp.temp_files() AS temp_files_after_limit;
BEGIN;
DECLARE c CURSOR FOR SELECT k8, count(*) FROM spill_t GROUP BY k8;
FETCH 2 FROM c;
SELECT pg_temp.temp_files() > 0 AS temp_files_while_open;
ROLLBACK;
SELECT pg_temp.temp_files() AS temp_files_after_rollback;
-- a cancel while the node spills or merges leaves no file either
SET statement_timeout = '30ms';
SELECT CASE WHEN r IN ('ok', '57014: canceling statement due to statement timeout')
            THEN 'ok or canceled' ELSE r END AS cancel
FROM pg_temp.try_cancel('SELECT k8, k, count(*) FROM spill_t GROUP BY k8, k') r;
RESET statement_timeout;
SELECT pg_temp.temp_files() AS temp_files_after_cancel;

-- under the limit nothing spills
RESET gpuops.max_group_memory;
SELECT pg_temp.spill('SELECT k8, count(*) FROM spill_t GROUP BY k8');

DROP TABLE spill_t;
