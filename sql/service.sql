-- The GPU service (gpuops.gpu_service): sessions hand the group aggregation
-- of their GPU batches to one service process, which owns the only CUDA
-- context.  The test server runs it under gpuops.debug_gpu_service (on the
-- CPU face where there is no GPU), so the output is the same on every
-- machine.  Results must equal PostgreSQL's own.
-- the service starts with the server (CUDA and page-locking take a moment);
-- there is one per GPU, so what follows sums or ands over every row
DO $$
BEGIN
  FOR i IN 1..600 LOOP
    EXIT WHEN NOT EXISTS (SELECT FROM gpuops.service() WHERE state = 'down');
    PERFORM pg_sleep(0.1);
  END LOOP;
END
$$;
SELECT bool_and(configured) AS configured,
       bool_and(state IN ('gpu', 'cpu')) AS serving, bool_and(pid > 0) AS has_pid,
       bool_and(arena_bytes > 0) AS has_arena
  FROM gpuops.service();
-- a service per GPU (one here without a GPU), numbered as CUDA numbers
-- them, from 0
SELECT count(*) >= 1 AS has_services, min(gpu) AS first_gpu,
       count(DISTINCT gpu) = max(gpu) + 1 AS numbered
  FROM gpuops.service();

CREATE TABLE svc_t (k int4, g int8, v float8, w int4, b float8);
INSERT INTO svc_t
  SELECT CASE WHEN i % 101 = 0 THEN NULL ELSE i % 97 END, i % 5003,
         CASE WHEN i % 11 = 0 THEN NULL ELSE i / 8.0 END, i,
         CASE WHEN i % 3 = 0 THEN 1.5e308 ELSE -1 END
    FROM generate_series(1, 300000) i;
VACUUM ANALYZE svc_t;

-- the EXPLAIN ANALYZE line of q that starts with what, trimmed ('none' if none)
CREATE FUNCTION svc_line(q text, what text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF btrim(line) LIKE what || '%' THEN RETURN btrim(line); END IF;
  END LOOP;
  RETURN 'none';
END
$$;

-- rows of q (a query text) that gpuops on and off disagree on, both ways
CREATE FUNCTION svc_diff(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
  m bigint;
BEGIN
  EXECUTE 'CREATE TEMP TABLE svc_on AS ' || q;
  SET LOCAL gpuops.enabled = off;
  EXECUTE 'CREATE TEMP TABLE svc_off AS ' || q;
  SET LOCAL gpuops.enabled = on;
  SELECT count(*) INTO n FROM (SELECT * FROM svc_on EXCEPT ALL SELECT * FROM svc_off) d;
  SELECT count(*) INTO m FROM (SELECT * FROM svc_off EXCEPT ALL SELECT * FROM svc_on) d;
  DROP TABLE svc_on;
  DROP TABLE svc_off;
  RETURN n + m;
END
$$;

SELECT sum(served) AS served_before FROM gpuops.service() \gset
SET gpuops.device = gpu;
-- the node whatever the planner's costs; and every batch to the service
-- (the running dense groups are the backend's CPU face's)
SET gpuops.running_groups = off;
SET gpuops.gpu_setup_cost = 0;
SET gpuops.cpu_setup_cost = 0;
-- one key, several aggregates, NULL keys and values (the sums of multiples
-- of 1/8 are exact in any order)
SELECT svc_diff('SELECT k, count(*) c, count(v) cv, sum(v) s, min(v) mn, max(v) mx, avg(w) a FROM svc_t GROUP BY k');
-- two keys, packed; more groups
SELECT svc_diff('SELECT k, g, count(*) c, sum(w) s, max(v) mx FROM svc_t GROUP BY k, g');
-- a WHERE on the backend's CPU, and a FILTER
SELECT svc_diff('SELECT g, count(*) FILTER (WHERE w % 2 = 0) c, sum(v) s FROM svc_t WHERE w < 250000 GROUP BY g');
SELECT sum(served) > :served_before AS served_some FROM gpuops.service();
SELECT svc_line('SELECT k, count(*), sum(w) FROM svc_t GROUP BY k', 'GPU Service Batches') ~ '^GPU Service Batches: [1-9]' AS through_the_service;
SELECT svc_line('SELECT k, count(*), sum(w) FROM svc_t GROUP BY k', 'GPU Service Fallbacks');

-- more groups than the planner expected: the service answers with the
-- count, and the batch is formed again with room for them
CREATE TABLE svc_u (k int8, v int4);
INSERT INTO svc_u VALUES (1, 1);
ANALYZE svc_u;
INSERT INTO svc_u SELECT i, i % 7 FROM generate_series(1, 200000) i;
SELECT svc_diff('SELECT k, count(*) c, sum(v) s FROM svc_u GROUP BY k');

-- errors raised over the service's results are PostgreSQL's (22003)
SELECT k, sum(b) FROM svc_t GROUP BY k;
SET gpuops.enabled = off;
SELECT k, sum(b) FROM svc_t GROUP BY k;
RESET gpuops.enabled;

-- auto sends batches of at least gpuops.gpu_min_rows rows
SET gpuops.device = auto;
SET gpuops.gpu_min_rows = 1000000;
SELECT svc_line('SELECT k, count(*) FROM svc_t GROUP BY k', 'GPU Service Batches');
SET gpuops.gpu_min_rows = 0;
SELECT svc_line('SELECT k, count(*) FROM svc_t GROUP BY k', 'GPU Service Batches') ~ '^GPU Service Batches: [1-9]' AS auto_served;
SELECT svc_diff('SELECT k, count(*) c, sum(v) s FROM svc_t GROUP BY k');
RESET gpuops.gpu_min_rows;
-- and cpu none
SET gpuops.device = cpu;
SELECT svc_line('SELECT k, count(*) FROM svc_t GROUP BY k', 'GPU Service Batches');
-- with the running dense groups, dense keys stay on this backend's CPU
SET gpuops.device = gpu;
RESET gpuops.running_groups;
SELECT svc_line('SELECT k, count(*) FROM svc_t GROUP BY k', 'Running Groups') ~ '\(cpu\)$' AS runs_on_the_cpu;
SELECT svc_line('SELECT k, count(*) FROM svc_t GROUP BY k', 'GPU Service Batches');
RESET gpuops.device;
RESET gpuops.gpu_setup_cost;
RESET gpuops.cpu_setup_cost;

-- every request answered and given back; the pool's device memory is
-- counted (0 on the CPU face)
SELECT sum(in_flight) AS in_flight, sum(arena_used) AS arena_used
  FROM gpuops.service();
SELECT bool_and(device_held >= 0 AND device_peak >= device_held) AS device_counted
  FROM gpuops.service();

-- only a superuser restarts it
CREATE ROLE svc_user;
SET ROLE svc_user;
SELECT gpuops.service_restart();
RESET ROLE;
DROP ROLE svc_user;
-- a service that doesn't exist (22023; the hint names the machine's count)
\set VERBOSITY terse
SELECT gpuops.service_restart(gpu => 16);
\set VERBOSITY default

DROP FUNCTION svc_line(text, text);
DROP FUNCTION svc_diff(text);
DROP TABLE svc_t;
DROP TABLE svc_u;
