-- Expressions against plain columns in GpuOpsAgg: each query pair groups or
-- aggregates the same data once through plain columns and once through
-- expressions; native (parallel workers) vs CPU face vs GPU face, the best
-- of 3 runs each, in one session.  Run with psql -f (device-run.sh step sql);
-- psql -v rows=N sets the rows (default 1e7), PGOPTIONS='-c bench.faces=native,cpu'
-- leaves a face out.
\if :{?rows}
\else
\set rows 10000000
\endif
SET max_parallel_workers_per_gather = 15;
CREATE EXTENSION IF NOT EXISTS gpuops;
DROP TABLE IF EXISTS bx;
CREATE TABLE bx AS
SELECT i, (i % 1000)::int4 AS k, (i % 997)::int8 AS v, ((i % 1013) / 8.0)::float8 AS f,
       timestamp '2020-01-01' + (i % 100000) * interval '17 seconds' AS ts,
       date '2020-01-01' + (i % 1500) AS d
FROM generate_series(1, :rows) i;
VACUUM ANALYZE bx;
CREATE FUNCTION pg_temp.best(q text, reps int DEFAULT 3) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz;
	best numeric := NULL;
	ms numeric;
BEGIN
	EXECUTE 'SELECT count(s.*) FROM (' || q || ') s';	-- warm
	FOR r IN 1..reps LOOP
		t0 := clock_timestamp();
		EXECUTE 'SELECT count(s.*) FROM (' || q || ') s';
		ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
		best := least(coalesce(best, ms), ms);
	END LOOP;
	RETURN round(best, 1);
END
$$;
CREATE FUNCTION pg_temp.uses_node(q text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN ' || q LOOP
		IF line LIKE '%GpuOpsAgg%' THEN RETURN true; END IF;
	END LOOP;
	RETURN false;
END
$$;
CREATE TEMP TABLE bq (n int, q text);
INSERT INTO bq VALUES
 (1, 'SELECT k, count(*), sum(v) FROM bx GROUP BY k'),
 (2, 'SELECT k % 100 + 1, count(*), sum(v * 2 + 1) FROM bx GROUP BY 1'),
 (3, 'SELECT sum(v), avg(f) FROM bx'),
 (4, 'SELECT sum(v * (100 - k)), avg(f * 1.5::float8 + 1) FROM bx'),
 (5, 'SELECT d, count(*) FROM bx GROUP BY d'),
 (6, 'SELECT date_trunc(''day'', ts), count(*), max(v) FROM bx GROUP BY 1'),
 (7, 'SELECT date_part(''dow'', ts), CASE WHEN k < 500 THEN 0 ELSE 1 END, count(*) FROM bx GROUP BY 1, 2');
CREATE TEMP TABLE br (n int, face text, ms numeric, node bool);
DO $$
DECLARE
	r record;
	f text;
BEGIN
	FOR r IN SELECT * FROM bq ORDER BY n LOOP
		FOREACH f IN ARRAY string_to_array(coalesce(nullif(current_setting('bench.faces', true), ''),
													 'native,cpu,gpu'), ',') LOOP
			PERFORM set_config('gpuops.enabled', CASE WHEN f = 'native' THEN 'off' ELSE 'on' END, false);
			IF f <> 'native' THEN
				PERFORM set_config('gpuops.device', f, false);
			END IF;
			INSERT INTO br VALUES (r.n, f, pg_temp.best(r.q), pg_temp.uses_node(r.q));
		END LOOP;
	END LOOP;
END
$$;
\pset format unaligned
SELECT 'q' || n || ' native ' || max(ms) FILTER (WHERE face = 'native') ||
       ' cpu ' || max(ms) FILTER (WHERE face = 'cpu') ||
       ' gpu ' || coalesce(max(ms) FILTER (WHERE face = 'gpu')::text, '-') ||
       ' x_cpu ' || round(max(ms) FILTER (WHERE face = 'native') / nullif(max(ms) FILTER (WHERE face = 'cpu'), 0), 2) ||
       ' x_gpu ' || coalesce( round(max(ms) FILTER (WHERE face = 'native') / nullif(max(ms) FILTER (WHERE face = 'gpu'), 0), 2)::text, '-') ||
       ' node ' || bool_and(node) FILTER (WHERE face <> 'native') AS line
FROM br GROUP BY n ORDER BY n;
