-- query versions of histogram, rle, unique and group_agg: each equals the
-- array version over array_agg of the same query, at sizes of many chunks
-- (small chunks, gpuops.debug_chunk_size, so that runs and groups cross chunk seams) and
-- of one chunk; row-level security, privileges, and every error
\set SHOW_CONTEXT never

\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/try.psql

-- compares two set-returning calls row by row, in order (WITH ORDINALITY)
CREATE FUNCTION pg_temp.same(fa text, fb text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	n_a bigint;
	n_b bigint;
	n_diff bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM %s', fa) INTO n_a;
	EXECUTE format('SELECT count(*) FROM %s', fb) INTO n_b;
	EXECUTE format('SELECT count(*) FROM ((SELECT * FROM %1$s WITH ORDINALITY
	                  EXCEPT ALL SELECT * FROM %2$s WITH ORDINALITY)
	                 UNION ALL (SELECT * FROM %2$s WITH ORDINALITY
	                  EXCEPT ALL SELECT * FROM %1$s WITH ORDINALITY)) d', fa, fb)
		INTO n_diff;
	RETURN format('%s rows, %s rows, %s differ', n_a, n_b, n_diff);
END
$$;

-- deterministic pseudo-random data with runs, NULLs, NaN, -0.0 and infinities
CREATE TABLE qf_data AS
SELECT i,
       CASE WHEN i % 61 = 0 THEN NULL ELSE ((i / 3) * 7919 % 7 - 3)::int2 END AS c_i2,
       CASE WHEN i % 97 = 0 THEN NULL ELSE (i / 5) * 7919 % 11 END AS c_i4,
       ((i / 4) * 104729 % 6) * 1000000000000::int8 - 2500000000000 AS c_i8,
       CASE WHEN i % 83 = 0 THEN NULL ELSE (((i / 8) * 31 % 5)::float4 / 2)::float4 END AS c_f4,
       CASE i % 211 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN '-NaN' WHEN 2 THEN '-0'
                    WHEN 3 THEN 0 WHEN 4 THEN 'Infinity' WHEN 5 THEN '-Infinity'
                    WHEN 6 THEN NULL
                    ELSE ((i / 6) * 37 % 19)::float8 / 8 END AS c_f8,
       CASE WHEN i % 50 = 0 THEN NULL ELSE (i / 9) * 7 % 3 = 0 END AS c_b,
       date '2026-01-01' + ((i / 10) * 13 % 4) AS c_d,
       timestamptz '2026-01-01 00:00+00' + ((i / 11) * 17 % 3) * interval '1 hour' AS c_ts,
       CASE WHEN i % 89 = 0 THEN NULL
            ELSE (ARRAY['ok', 'warn', 'err'])[1 + (i / 4) * 5 % 3] END AS c_t,
       CASE WHEN i % 31 = 0 THEN NULL ELSE i * 7919 % 37 END AS g,
       CASE WHEN i % 29 = 0 THEN NULL
            WHEN i = 1500 THEN 'NaN'::float8
            WHEN i = 2222 THEN 'Infinity'
            ELSE (i * 13 % 81 - 40)::float8 / 4 END AS v
  FROM generate_series(1, 3000) i;

-- the columns and their types
CREATE TEMP TABLE qf_cols(col text, typ text);
INSERT INTO qf_cols VALUES ('c_i2', 'int2'), ('c_i4', 'int4'), ('c_i8', 'int8'),
  ('c_f4', 'float4'), ('c_f8', 'float8'), ('c_b', 'bool'), ('c_d', 'date'),
  ('c_ts', 'timestamptz'), ('c_t', 'text');

-- rle, unique and group_agg against the array versions, three chunk sizes
-- (16 bytes: 2 to 4 rows a chunk; 256 bytes; the default: one chunk)
CREATE FUNCTION pg_temp.compare_all() RETURNS TABLE(fn text, col text, result text)
LANGUAGE plpgsql AS $$
DECLARE
	c record;
BEGIN
	FOR c IN SELECT * FROM qf_cols ORDER BY col LOOP
		fn := 'rle'; col := c.col;
		result := pg_temp.same(
			format('gpuops.rle($q$SELECT %s FROM qf_data ORDER BY i$q$, NULL::%s)', c.col, c.typ),
			format('gpuops.rle((SELECT array_agg(%s ORDER BY i) FROM qf_data))', c.col));
		RETURN NEXT;
		fn := 'unique';
		result := pg_temp.same(
			format('gpuops.unique($q$SELECT %s FROM qf_data ORDER BY i$q$, NULL::%s)', c.col, c.typ),
			format('gpuops.unique((SELECT array_agg(%s ORDER BY i) FROM qf_data))', c.col));
		RETURN NEXT;
		IF c.typ <> 'text' THEN
			fn := 'group_agg';
			result := pg_temp.same(
				format('gpuops.group_agg($q$SELECT %s, v FROM qf_data$q$, NULL::%s)', c.col, c.typ),
				format('gpuops.group_agg((SELECT array_agg(%s ORDER BY i) FROM qf_data),
				                         (SELECT array_agg(v ORDER BY i) FROM qf_data))', c.col));
			RETURN NEXT;
		END IF;
		IF c.typ IN ('int2', 'int4', 'int8', 'float4', 'float8') THEN
			fn := 'histogram auto';
			result := pg_temp.same(
				format('gpuops.histogram($q$SELECT %s FROM qf_data$q$, 7)', c.col),
				format('gpuops.histogram((SELECT array_agg(%s) FROM qf_data), 7)', c.col));
			RETURN NEXT;
			fn := 'histogram given';
			result := pg_temp.same(
				format('gpuops.histogram($q$SELECT %s FROM qf_data$q$, 5, -1.5, 2.25)', c.col),
				format('gpuops.histogram((SELECT array_agg(%s) FROM qf_data), 5, -1.5, 2.25)', c.col));
			RETURN NEXT;
		END IF;
	END LOOP;
	-- group keys with more groups, and a group key of floats
	fn := 'group_agg'; col := 'g';
	result := pg_temp.same('gpuops.group_agg($q$SELECT g, v FROM qf_data$q$, NULL::int4)',
		'gpuops.group_agg((SELECT array_agg(g ORDER BY i) FROM qf_data),
		                  (SELECT array_agg(v ORDER BY i) FROM qf_data))');
	RETURN NEXT;
	col := 'i % 997';
	result := pg_temp.same('gpuops.group_agg($q$SELECT i % 997, v FROM qf_data$q$, NULL::int4)',
		'gpuops.group_agg((SELECT array_agg(i % 997 ORDER BY i) FROM qf_data),
		                  (SELECT array_agg(v ORDER BY i) FROM qf_data))');
	RETURN NEXT;
	fn := 'histogram auto'; col := 'v';
	result := pg_temp.same('gpuops.histogram($q$SELECT v FROM qf_data$q$, 10)',
		'gpuops.histogram((SELECT array_agg(v) FROM qf_data), 10)');
	RETURN NEXT;
END
$$;

SET gpuops.debug_chunk_size = 16;
SELECT * FROM pg_temp.compare_all();
SET gpuops.debug_chunk_size = 256;
SELECT * FROM pg_temp.compare_all();
RESET gpuops.debug_chunk_size;
SELECT * FROM pg_temp.compare_all();

-- small cases, checked by hand; 16-byte chunks hold 4 int4 rows or 2 text rows
SET gpuops.debug_chunk_size = 16;
SELECT * FROM gpuops.rle($$VALUES (1), (1), (1), (1), (1), (2), (2), (NULL), (NULL), (NULL), (2)$$, NULL::int4);
SELECT * FROM gpuops.rle($$SELECT x FROM unnest(ARRAY['a', 'a', 'a', NULL, NULL, 'b', 'b', 'b', 'a']) WITH ORDINALITY u(x, n) ORDER BY n DESC$$, NULL::text);
SELECT gpuops.unique($$VALUES ('NaN'::float8), ('-NaN'), ('NaN'), ('NaN'), ('-0'), (0), (0), (0), (1)$$, NULL::float8);
SELECT * FROM gpuops.rle($$VALUES (1::float8) LIMIT 0$$, NULL::float8);
SELECT * FROM gpuops.group_agg($$VALUES (2, 1.5::float8), (1, 2), (2, NULL), (NULL, 4), (1, 'NaN'), (2, -0.5), (3, NULL), (1, 7)$$, NULL::int4);
SELECT * FROM gpuops.group_agg($$VALUES (true, 1::float8) LIMIT 0$$, NULL::bool);
-- automatic domain: the maximum in the last bin, infinities outside
SELECT * FROM gpuops.histogram($$VALUES (0::float8), (1), (2), (3), ('Infinity'), ('-Infinity'), ('NaN'), (NULL), (3)$$, 3);
-- given domain: width_bucket's rule, 3 at or above hi
SELECT * FROM gpuops.histogram($$VALUES (0::float8), (1), (2), (3), ('Infinity'), ('-Infinity'), ('NaN'), (NULL), (3)$$, 3, 0, 3);
-- min = max: every finite value in bucket 1
SELECT * FROM gpuops.histogram($$VALUES (5::int8), (5), (5), (5), (5), (NULL), (5)$$, 2);
SELECT * FROM gpuops.histogram($$VALUES ('-0'::float8), (0), ('Infinity')$$, 2);
-- the same as the array version, bounds included
SELECT pg_temp.same($$gpuops.histogram('VALUES (''-0''::float8), (0), (''Infinity'')', 2)$$,
                    $$gpuops.histogram(ARRAY['-0', 0, 'Infinity']::float8[], 2)$$);
SELECT pg_temp.same($$gpuops.histogram('VALUES (5::int8), (5), (5), (5), (5), (NULL), (5)', 2)$$,
                    $$gpuops.histogram(ARRAY[5, 5, 5, 5, 5, NULL, 5]::int8[], 2)$$);
SELECT pg_temp.same($$gpuops.histogram('VALUES (''NaN''::float8), (''Infinity''), (NULL)', 2)$$,
                    $$gpuops.histogram(ARRAY['NaN', 'Infinity', NULL]::float8[], 2)$$);
-- no finite value: nothing counted, NULL bounds
SELECT * FROM gpuops.histogram($$VALUES ('NaN'::float8), ('Infinity'), (NULL)$$, 2);
SELECT * FROM gpuops.histogram($$SELECT 1 WHERE false$$, 2);
-- NULL query or bins: no rows
SELECT count(*) FROM gpuops.histogram(NULL::text, 3);
SELECT count(*) FROM gpuops.histogram($$SELECT 1$$, NULL);
SELECT count(*) FROM gpuops.rle(NULL::text, NULL::int);
SELECT count(*) FROM gpuops.unique(NULL::text, NULL::int);
SELECT count(*) FROM gpuops.group_agg(NULL::text, NULL::int);
RESET gpuops.debug_chunk_size;

-- gaps and islands: runs of the same status in time order
CREATE TABLE qf_events(ts timestamptz, status text);
INSERT INTO qf_events
SELECT timestamptz '2026-11-30 00:00+00' + n * interval '1 minute',
       CASE WHEN n BETWEEN 3 AND 5 OR n = 9 THEN 'down' ELSE 'up' END
  FROM generate_series(1, 10) n;
SELECT * FROM gpuops.rle($$SELECT status FROM qf_events ORDER BY ts$$, NULL::text);

-- row-level security: a restricted role gets only its rows
CREATE ROLE regress_gpuops_reader;
CREATE TABLE qf_rls(owner name, x int4, v float8);
INSERT INTO qf_rls
SELECT CASE WHEN n % 3 = 0 THEN 'regress_gpuops_reader' ELSE 'regress_gpuops_other' END,
       n % 4, n
  FROM generate_series(1, 30) n;
ALTER TABLE qf_rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY qf_rls_own ON qf_rls FOR SELECT USING (owner = current_user);
GRANT SELECT ON qf_rls TO regress_gpuops_reader;
GRANT USAGE ON SCHEMA gpuops TO regress_gpuops_reader;
CREATE TABLE qf_secret(x int4);
INSERT INTO qf_secret VALUES (1), (2);
SET ROLE regress_gpuops_reader;
SELECT count(*), sum(v) FROM qf_rls;
SELECT * FROM gpuops.group_agg($$SELECT x, v FROM qf_rls$$, NULL::int4);
SELECT * FROM gpuops.histogram($$SELECT v FROM qf_rls$$, 3);
SELECT * FROM gpuops.rle($$SELECT x FROM qf_rls ORDER BY v$$, NULL::int4);
SELECT gpuops.unique($$SELECT owner::text FROM qf_rls$$, NULL::text);
-- privileges: a table the role may not read is 42501
SELECT * FROM gpuops.histogram($$SELECT x FROM qf_secret$$, 2);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram('SELECT x FROM qf_secret', 2)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.rle('SELECT x FROM qf_secret', NULL::int4)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.unique('SELECT x FROM qf_secret', NULL::int4)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg('SELECT x, 1::float8 FROM qf_secret', NULL::int4)$$);
-- still usable
SELECT count(*) FROM gpuops.unique($$SELECT x FROM qf_rls$$, NULL::int4);
RESET ROLE;
-- the superuser sees every row (superusers bypass row-level security)
SELECT * FROM gpuops.group_agg($$SELECT x, v FROM qf_rls$$, NULL::int4);

-- errors, each with its SQLSTATE, and the session stays usable
-- wrong number of columns: 42804
SELECT * FROM gpuops.histogram($$SELECT 1, 2$$, 3);
SELECT gpuops.unique($$VALUES (1, 2)$$, NULL::int4);
SELECT count(*) FROM gpuops.unique($$SELECT i FROM qf_data$$, NULL::int4);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram('SELECT 1, 2', 3)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.rle('SELECT 1, 2', NULL::int4)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.unique('SELECT', NULL::int4)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg('SELECT 1', NULL::int4)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg('SELECT 1, 2::float8, 3', NULL::int4)$$);
-- a column type that does not match value_type / key_type: 42804
SELECT * FROM gpuops.rle($$SELECT c_i4 FROM qf_data$$, NULL::int8);
SELECT count(*) FROM gpuops.rle($$SELECT c_i4 FROM qf_data$$, NULL::int4);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram('SELECT c_t FROM qf_data', 3)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram('SELECT 1::numeric', 3)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.rle('SELECT c_i4 FROM qf_data', NULL::int8)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.unique('SELECT c_t FROM qf_data', NULL::varchar)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg('SELECT c_i8, v FROM qf_data', NULL::int4)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg('SELECT g, c_i4 FROM qf_data', NULL::int4)$$);
-- a key type group_agg does not group: 0A000, as the array version
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg('SELECT c_t, v FROM qf_data', NULL::text)$$);
-- not a single SELECT or VALUES: 42809
SELECT * FROM gpuops.histogram($$DELETE FROM qf_data RETURNING c_i4$$, 3);
SELECT count(*) FROM qf_data;
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram('INSERT INTO qf_secret VALUES (3) RETURNING x', 3)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.rle('UPDATE qf_secret SET x = 0 RETURNING x', NULL::int4)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.unique('WITH d AS (DELETE FROM qf_secret RETURNING x) SELECT x FROM d', NULL::int4)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.unique('SELECT x FROM qf_secret FOR UPDATE', NULL::int4)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg('SELECT 1, 2::float8; SELECT 1, 2::float8', NULL::int4)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram('CREATE TABLE qf_new AS SELECT 1 AS x', 3)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram('SELECT 1 AS x INTO qf_new', 3)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram('SHOW work_mem', 3)$$);
SELECT count(*) FROM qf_secret;
SELECT to_regclass('qf_new') IS NULL AS not_created;
-- syntax errors: 42601; unknown tables: 42P01
SELECT * FROM gpuops.rle($$SELEC 1$$, NULL::int4);
SELECT count(*) FROM gpuops.rle($$SELECT 1$$, NULL::int4);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram('SELECT FROM WHERE', 3)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.group_agg('SELECT 1, 2::float8 FROM', NULL::int4)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.unique('SELECT x FROM qf_missing', NULL::int4)$$);
-- bad histogram arguments, as the array version: 2201G, 22023
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram('SELECT 1', 0)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram('SELECT 1', 3, 1, 1)$$);
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram('SELECT 1', 3, 1, NULL)$$);
-- a query whose rows change when run again: the automatic domain runs it
-- once too (values 1 to 10, the sequence moved by 10)
CREATE TEMP SEQUENCE qf_seq;
SELECT * FROM gpuops.histogram($$SELECT nextval('qf_seq') FROM generate_series(1, 10)$$, 3);
SELECT currval('qf_seq');
-- a given domain runs the query once (values 11 to 20)
SELECT * FROM gpuops.histogram($$SELECT nextval('qf_seq') FROM generate_series(1, 10)$$, 3, 10, 40);
-- an error inside the query
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram('SELECT 1 / (i - 5) FROM generate_series(1, 10) i', 3)$$);
-- statement_timeout interrupts the stream
SET statement_timeout = '200ms';
SELECT * FROM gpuops.histogram($$SELECT length(pg_sleep(0.01)::text) FROM generate_series(1, 1000)$$, 3);
RESET statement_timeout;
SELECT * FROM gpuops.histogram($$VALUES (1), (2)$$, 2);

-- the automatic domain's temporary file, written by a helper thread while the
-- query runs: an error in the query, a cancel and temp_file_limit each leave
-- no file and a usable session
SET gpuops.debug_chunk_size = '8kB';
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram('SELECT 1.0::float8 / (i - 30000) FROM generate_series(1, 40000) i', 3)$$);
SET statement_timeout = '300ms';
SELECT * FROM gpuops.histogram($$SELECT i + length(CASE WHEN i % 1000 = 0 THEN pg_sleep(0.01)::text ELSE '' END) FROM generate_series(1, 1000000) i$$, 3);
RESET statement_timeout;
SET temp_file_limit = '64kB';
SELECT pg_temp.try($$SELECT * FROM gpuops.histogram('SELECT i::float8 FROM generate_series(1, 100000) i', 3)$$);
RESET temp_file_limit;
SELECT count(*) AS temp_files_left FROM pg_ls_tmpdir();
SELECT * FROM gpuops.histogram($$SELECT i::float8 FROM generate_series(1, 100000) i$$, 4);
RESET gpuops.debug_chunk_size;

-- the functions are volatile and parallel unsafe
SELECT p.oid::regprocedure AS function, provolatile, proparallel
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname = 'gpuops' AND pg_get_function_arguments(p.oid) LIKE 'query text%'
 ORDER BY p.oid::regprocedure::text COLLATE "C";

-- clean up
DROP TABLE qf_data, qf_events, qf_rls, qf_secret;
REVOKE USAGE ON SCHEMA gpuops FROM regress_gpuops_reader;
DROP ROLE regress_gpuops_reader;
