-- gpuops.gpu_memory_limit bounds the device memory of the GPU service's
-- pool: a batch whose working memory does not fit fails with 53200 under
-- gpuops.device = gpu and runs on the CPU under auto.  On the CPU face (the
-- service under gpuops.debug_gpu_service, no GPU) there is no device memory
-- and nothing fails: that output is gpu_memory_1.out, and the state line
-- tells which one a run must match.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql
DO $$
BEGIN
  FOR i IN 1..600 LOOP
    EXIT WHEN NOT EXISTS (SELECT FROM gpuops.service() WHERE state = 'down');
    PERFORM pg_sleep(0.1);
  END LOOP;
END
$$;
-- (one row per GPU: the same state on every one)
SELECT DISTINCT state FROM gpuops.service();

-- the first line of q's EXPLAIN ANALYZE that starts with what, or 'none'
CREATE FUNCTION pg_temp.line(q text, what text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF btrim(line) LIKE what || '%' THEN RETURN btrim(line); END IF;
  END LOOP;
  RETURN 'none';
END
$$;

CREATE TABLE gm_t AS
  SELECT (i % 1000)::int4 AS k, (i % 17)::float8 AS v
    FROM generate_series(1, 300000) i;
ANALYZE gm_t;
SET gpuops.gpu_min_rows = 0;
SET gpuops.running_groups = off;

-- 1 MB: no batch fits
ALTER SYSTEM SET gpuops.gpu_memory_limit = '1MB';
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
SHOW gpuops.gpu_memory_limit;
SET gpuops.device = gpu;
\set VERBOSITY sqlstate
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s FROM gm_t GROUP BY k');
\set VERBOSITY default
SET gpuops.device = auto;
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s FROM gm_t GROUP BY k');
SELECT pg_temp.line('SELECT k, count(*) AS n, sum(v) AS s FROM gm_t GROUP BY k',
                    'GPU Service Fallbacks') ~ ': [1-9]' AS fell_back_to_the_cpu;

-- no limit: the GPU takes the batches again
ALTER SYSTEM RESET gpuops.gpu_memory_limit;
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
SET gpuops.device = gpu;
SELECT pg_temp.check('SELECT k, count(*) AS n, sum(v) AS s FROM gm_t GROUP BY k');
SELECT pg_temp.line('SELECT k, count(*) AS n, sum(v) AS s FROM gm_t GROUP BY k',
                    'GPU Service Batches') ~ ': [1-9]' AS through_the_service;
SELECT sum(in_flight) AS in_flight, sum(arena_used) AS arena_used,
       bool_and(device_peak >= device_held) AS device_counted
  FROM gpuops.service();
RESET gpuops.device;
DROP TABLE gm_t;
