-- The text-key queries of bench/wide_queries.sql with the worker processes
-- the node plans and with gpuops.parallel_workers forced to each count, on
-- the GPU face (bench.face, or -v face=cpu), best of 3 after a warm-up,
-- native (all parallel workers) first; then EXPLAIN ANALYZE of the first
-- query with the planned workers under client_min_messages = debug1, whose
-- lines tell where each worker's time and the backend's merge went.
--   psql -v rows=N [-v copies=4] [-v names=t_url_top,t_url_all]
--        [-v workers=0,2,4,8,15] [-v face=gpu] -f bench/wide_workers.sql
-- It generates the table hits as bench/wide_queries.sql does (and runs none
-- of that file's queries), and times with its harness's pg_temp.best
-- (bench/faces.psql).
\if :{?names}
\else
\set names 't_url_top,t_url_all,t_phrase_users,t_model_users,t_counter_urllen'
\endif
\if :{?workers}
\else
\set workers '0,2,4,8,15'
\endif
\if :{?face}
\else
\set face 'gpu'
\endif
\set only 'NOMATCH'
\ir wide_queries.sql
\pset format unaligned
\pset tuples_only on
-- One line per run of query qname: native, planned (with its workers), forced counts.
CREATE FUNCTION pg_temp.ww_sweep(qname text, counts int[], face text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	q text;
	w int;
	line text;
	planned text := '';
BEGIN
	SELECT bq.q INTO q FROM bq WHERE name = qname;
	PERFORM set_config('gpuops.enabled', 'off', false);
	RETURN NEXT qname || ' native ' || pg_temp.best(q, 3);
	PERFORM set_config('gpuops.enabled', 'on', false);
	PERFORM set_config('gpuops.device', face, false);
	PERFORM set_config('gpuops.parallel_workers', '-1', false);
	FOR line IN EXECUTE 'EXPLAIN ' || q LOOP
		IF line ~ 'Workers Planned' THEN
			planned := ' (' || trim(line) || ')';
		END IF;
	END LOOP;
	RETURN NEXT qname || ' planned ' || pg_temp.best(q, 3) || planned;
	FOREACH w IN ARRAY counts LOOP
		PERFORM set_config('gpuops.parallel_workers', w::text, false);
		RETURN NEXT qname || ' workers=' || w || ' ' || pg_temp.best(q, 3);
	END LOOP;
	PERFORM set_config('gpuops.parallel_workers', '-1', false);
END
$$;
SELECT pg_temp.ww_sweep(name, string_to_array(:'workers', ',')::int[], :'face')
FROM bq WHERE name = ANY (string_to_array(:'names', ',')) ORDER BY n;
\pset tuples_only off
\pset format aligned
SELECT set_config('gpuops.device', :'face', false) \g /dev/null
SET client_min_messages = debug1;
SELECT format('EXPLAIN (ANALYZE, COSTS OFF) %s', q) FROM bq
WHERE name = (string_to_array(:'names', ','))[1]
\gexec
RESET client_min_messages;
