-- gpuops without shared_preload_libraries (scripts/test.sh): CREATE
-- EXTENSION and LOAD must not end the session (no server-start setting may
-- be defined then), the functions work, and after LOAD the node runs and
-- gives native's answer.  Any failure stops psql with a non-zero exit.
\set ON_ERROR_STOP 1
CREATE EXTENSION gpuops;
LOAD 'gpuops';
SHOW gpuops.gpu_service;
SET gpuops.device = cpu;
SET gpuops.cpu_setup_cost = 0;
CREATE TABLE np (k int4, v numeric(12, 2));
INSERT INTO np SELECT i % 10, i / 8.0 FROM generate_series(1, 50000) i;
VACUUM ANALYZE np;
DO $$
DECLARE
	line text;
	used boolean := false;
	d bigint;
BEGIN
	IF (SELECT string_agg(format('%s:%s', value, run_length), ',')
		FROM gpuops.rle(ARRAY[1, 1, 2, 2, 2, 3])) <> '1:2,2:3,3:1' THEN
		RAISE EXCEPTION 'gpuops.rle gave a wrong answer without the preload';
	END IF;
	FOR line IN EXECUTE 'EXPLAIN SELECT k, sum(v), count(*) FROM np GROUP BY k' LOOP
		used := used OR line LIKE '%GpuOpsAgg%';
	END LOOP;
	IF NOT used THEN
		RAISE EXCEPTION 'GpuOpsAgg not used after LOAD without the preload';
	END IF;
	CREATE TEMP TABLE on_t AS SELECT k, sum(v) AS s, count(*) AS n FROM np GROUP BY k;
	SET LOCAL gpuops.enabled = off;
	CREATE TEMP TABLE off_t AS SELECT k, sum(v) AS s, count(*) AS n FROM np GROUP BY k;
	SELECT count(*) INTO d FROM ((TABLE on_t EXCEPT ALL TABLE off_t)
								 UNION ALL (TABLE off_t EXCEPT ALL TABLE on_t)) x;
	IF d <> 0 THEN
		RAISE EXCEPTION 'GpuOpsAgg without the preload differs from native in % rows', d;
	END IF;
	RAISE NOTICE 'without the preload: CREATE EXTENSION, LOAD, a function and the node work';
END
$$;
