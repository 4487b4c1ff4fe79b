-- the gpuops.* settings (the output is the same whatever gpuops.device the
-- session starts with, and whether a GPU is usable or not)
\set SHOW_CONTEXT never

-- the settings exist once the library is loaded
LOAD 'gpuops';
SELECT name, unit, vartype, context, min_val, max_val, enumvals, boot_val
  FROM pg_settings WHERE name LIKE 'gpuops.%' ORDER BY name COLLATE "C";
SHOW gpuops.chunk_size;

-- gpuops.device
SET gpuops.device = 'cpu';
SELECT * FROM gpuops.rle(ARRAY[2, 2, 5, 2]);
SET gpuops.device = 'auto';
SELECT * FROM gpuops.rle(ARRAY[2, 2, 5, 2]);
SET gpuops.device = 'AUTO';
SHOW gpuops.device;
SET gpuops.device = 'fast';
-- gpuops.device = 'gpu' runs on the GPU when info() says one is usable, and
-- otherwise fails with 55000 and a hint (the same output on every machine)
SET gpuops.device = 'gpu';
DO $$
DECLARE
	usable bool := (SELECT value::bool FROM gpuops.info() WHERE key = 'gpu_usable');
	q text;
	expect text;
	got text;
	st text;
	msg text;
	hint text;
BEGIN
	FOREACH q IN ARRAY ARRAY[
		'SELECT gpuops.prefix_sum(ARRAY[1, 2, NULL, 3]::int8[])::text',
		'SELECT gpuops.prefix_sum(ARRAY[0.5, 2]::float8[], false)::text',
		'SELECT array_agg(r::text ORDER BY start_pos)::text FROM gpuops.rle(ARRAY[2, 2, 5, 2]) r',
		'SELECT array_agg(u::text)::text FROM gpuops.unique(ARRAY[''a'', ''a'', ''b'']) u',
		'SELECT gpuops.compact(ARRAY[1, 2, 3], ARRAY[false, true, true])::text']
	LOOP
		SET LOCAL gpuops.device = 'cpu';
		EXECUTE q INTO expect;
		SET LOCAL gpuops.device = 'gpu';
		BEGIN
			EXECUTE q INTO got;
			IF usable AND got IS NOT DISTINCT FROM expect THEN
				RAISE NOTICE 'ok: %', expect;
			ELSE
				RAISE NOTICE 'unexpected: % gave % (cpu: %, gpu usable: %)', q, got, expect, usable;
			END IF;
		EXCEPTION WHEN OTHERS THEN
			GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
				hint = PG_EXCEPTION_HINT;
			IF NOT usable AND st = '55000'
				AND msg = 'gpuops.device is "gpu" but no usable GPU was found'
				AND hint = 'Set gpuops.device to ''auto'' or ''cpu''.' THEN
				RAISE NOTICE 'ok: %', expect;
			ELSE
				RAISE NOTICE 'unexpected: % raised % % (hint %, gpu usable: %)', q, st, msg, hint, usable;
			END IF;
		END;
	END LOOP;
END
$$;
RESET gpuops.device;

-- gpuops.gpu_min_rows, gpuops.threads
SET gpuops.gpu_min_rows = 0;
SET gpuops.gpu_min_rows = -1;
SET gpuops.threads = 1;
SELECT * FROM gpuops.rle(ARRAY[2, 2, 5, 2]);
SELECT gpuops.prefix_sum(ARRAY[1, 2, 3]::int8[]);
SET gpuops.threads = 1025;
SET gpuops.threads = 0;
RESET gpuops.gpu_min_rows;
RESET gpuops.threads;

-- gpuops.max_threads belongs to the server (postgresql.conf and a reload):
-- 0 (the default) and -1 mean one thread per core
SHOW gpuops.max_threads;
SET gpuops.max_threads = 4;
SELECT max_threads >= 1 AS cap_positive FROM gpuops.budget();

-- gpuops.overlap (agg_node tests what it does)
SET gpuops.overlap = on;
SET gpuops.overlap = 'OFF';
SHOW gpuops.overlap;
SET gpuops.overlap = 'sometimes';
RESET gpuops.overlap;

-- gpuops.chunk_size takes byte units, from 1MB (smaller chunks made the
-- node's cost grow with the number of batches) to 1GB
SET gpuops.chunk_size = '1MB';
SHOW gpuops.chunk_size;
SET gpuops.chunk_size = 1048577;
SHOW gpuops.chunk_size;
SET gpuops.chunk_size = '1GB';
SHOW gpuops.chunk_size;
SET gpuops.chunk_size = '1023kB';
SET gpuops.chunk_size = 256;
SET gpuops.chunk_size = '2GB';
RESET gpuops.chunk_size;
SHOW gpuops.chunk_size;
-- gpuops.debug_chunk_size, for tests of the chunk seams: 0 (off), or 16
-- bytes and up, which override gpuops.chunk_size while set
SHOW gpuops.debug_chunk_size;
SET gpuops.debug_chunk_size = 16;
SHOW gpuops.debug_chunk_size;
SHOW gpuops.chunk_size;
SET gpuops.debug_chunk_size = 15;
SET gpuops.debug_chunk_size = -1;
SET gpuops.debug_chunk_size = '1kB';
SHOW gpuops.debug_chunk_size;
-- the override is in force: GpuOpsAgg reads 10,000 rows in batches of at
-- most 1kB of a column, so in more than one chunk, and in one without it
CREATE TABLE guc_t AS SELECT i % 3 AS k, i::int8 AS v FROM generate_series(1, 10000) i;
ANALYZE guc_t;
CREATE FUNCTION pg_temp.node_chunks() RETURNS int8 LANGUAGE plpgsql AS $$
DECLARE
	j jsonb;
BEGIN
	SET LOCAL gpuops.cpu_setup_cost = 0;
	SET LOCAL gpuops.cpu_row_cost = 0;
	SET LOCAL gpuops.gpu_setup_cost = 0;
	SET LOCAL gpuops.gpu_row_cost = 0;
	SET LOCAL max_parallel_workers_per_gather = 0;
	EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON)
	         SELECT k, sum(v) FROM guc_t GROUP BY k' INTO j;
	RETURN jsonb_path_query_first(j, 'strict $.**."Chunks"')::int8;
END
$$;
SELECT pg_temp.node_chunks() > 1 AS many_chunks;
RESET gpuops.debug_chunk_size;
SHOW gpuops.debug_chunk_size;
SELECT pg_temp.node_chunks() AS chunks;
DROP TABLE guc_t;

-- the prefix is reserved
SET gpuops.no_such_setting = 1;
