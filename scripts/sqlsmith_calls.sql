-- scripts/sqlsmith.sh's random calls of every gpuops function: random
-- element types (device types, text, numeric, composites, domains, records),
-- random arrays (NULLs, NaN, infinities, extremes, empty, multi-dimensional,
-- lower bounds), random other arguments (NULL, negative, huge, NaN bounds),
-- random chunk sizes and queries over the tables.  Errors are fine (counted
-- by SQLSTATE); a crash shows in the server log.
-- psql variables: calls, seed
\set ON_ERROR_STOP 0
SET statement_timeout = '60s';

-- a random element of a
CREATE FUNCTION pg_temp.pick(a text[]) RETURNS text LANGUAGE sql AS
$$ SELECT a[1 + floor(random() * cardinality(a))::int] $$;

-- a random literal of type typ (special values often), NULL sometimes
CREATE FUNCTION pg_temp.lit(typ text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	IF random() < 0.15 THEN
		RETURN 'NULL';
	END IF;
	RETURN CASE typ
		WHEN 'int2' THEN pg_temp.pick(ARRAY['-32768', '32767', '0', '1', '-1', '7'])
		WHEN 'int4' THEN pg_temp.pick(ARRAY['-2147483648', '2147483647', '0', '1', '3', (floor(random() * 20))::text])
		WHEN 'int8' THEN pg_temp.pick(ARRAY['-9223372036854775808', '9223372036854775807', '0', '5', (floor(random() * 1e6))::text])
		WHEN 'float4' THEN pg_temp.pick(ARRAY['''NaN''', '''Infinity''', '''-Infinity''', '''-0''', '0', '1.5', '3.4e38', (random() * 10)::text])
		WHEN 'float8' THEN pg_temp.pick(ARRAY['''NaN''', '''Infinity''', '''-Infinity''', '''-0''', '0', '2.5', '1e300', '-1e-300', (random() * 10)::text])
		WHEN 'date' THEN pg_temp.pick(ARRAY['''infinity''', '''-infinity''', '''2000-01-01''', '''4713-01-01 BC''', '''5874897-12-31'''])
		WHEN 'timestamp' THEN pg_temp.pick(ARRAY['''infinity''', '''-infinity''', '''2000-01-01 00:00''', '''294276-12-31 23:59:59''', '''4713-01-01 BC'''])
		WHEN 'timestamptz' THEN pg_temp.pick(ARRAY['''infinity''', '''-infinity''', '''2000-01-01 00:00+00''', '''1999-12-31 16:00-08'''])
		WHEN 'bool' THEN pg_temp.pick(ARRAY['true', 'false'])
		WHEN 'text' THEN pg_temp.pick(ARRAY['''''', '''a''', '''A''', '''Äpfel''', 'repeat(''x'', 3000)', '''b'''])
		WHEN 'numeric' THEN pg_temp.pick(ARRAY['1.0', '1.00', '''NaN''', '2', '-0.0'])
		WHEN 'pair' THEN pg_temp.pick(ARRAY['ROW(1, ''a'')', 'ROW(NULL, NULL)', 'ROW(2, repeat(''y'', 2500))'])
		WHEN 'posint' THEN pg_temp.pick(ARRAY['1', '2', '2147483647'])
		WHEN 'int4[]' THEN pg_temp.pick(ARRAY['''{1,2}''', '''{}''', '''{{1,2},{3,NULL}}'''])
		ELSE '1' END;
END
$$;

-- a random array of n elements of typ, with a random shape
CREATE FUNCTION pg_temp.arr(typ text, n int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	elems text[] := '{}';
	r float8 := random();
BEGIN
	IF r < 0.05 THEN
		RETURN format('NULL::%s[]', typ);
	ELSIF r < 0.12 THEN
		RETURN format('''{}''::%s[]', typ);
	END IF;
	FOR i IN 1 .. n LOOP
		elems := elems || pg_temp.lit(typ);
	END LOOP;
	IF r < 0.2 AND n % 2 = 0 AND n > 0 THEN
		-- two rows: a 2-D array
		RETURN format('ARRAY[[%s],[%s]]::%s[]',
					  array_to_string(elems[1 : n / 2], ','),
					  array_to_string(elems[n / 2 + 1 : n], ','), typ);
	ELSIF r < 0.25 THEN
		-- a long array of repeats, so that chunks and threads split it
		RETURN format('array_fill(%s::%s, ARRAY[%s])', coalesce(elems[1], pg_temp.lit(typ)), typ,
					  1 + floor(random() * CASE WHEN typ IN ('text', 'pair', 'numeric', 'int4[]')
												THEN 3000 ELSE 300000 END)::int);
	ELSIF r < 0.3 THEN
		RETURN format('(SELECT array_agg(x ORDER BY o) FROM (SELECT ((ARRAY[%s]::%s[])[1 + g %% %s]) x, g o FROM generate_series(1, %s) g) s)',
					  array_to_string(elems, ','), typ, n, floor(random() * 100000)::int);
	END IF;
	RETURN format('ARRAY[%s]::%s[]', array_to_string(elems, ','), typ);
END
$$;

-- a random keep mask of n flags
CREATE FUNCTION pg_temp.mask(n int) RETURNS text LANGUAGE sql AS $$
	SELECT CASE WHEN random() < 0.1 THEN 'ARRAY[true]'
	            ELSE format('(SELECT array_agg(CASE WHEN random() < 0.1 THEN NULL ELSE random() < 0.5 END) FROM generate_series(1, %s))', n) END
$$;

-- a random query of one or two columns over the tables
CREATE FUNCTION pg_temp.query(ncols int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	tab text := pg_temp.pick(ARRAY['t_all', 't_part', 't_upd', 't_nulls', 't_empty']);
	c1 text;
	c2 text;
BEGIN
	c1 := CASE tab
		WHEN 't_all' THEN pg_temp.pick(ARRAY['k2', 'k4', 'k8', 'f4', 'f8', 'd', 'ts', 'tz', 'b', 't', 'tc', 'v'])
		WHEN 't_part' THEN pg_temp.pick(ARRAY['k', 'g', 'v', 't', 'd'])
		WHEN 't_upd' THEN pg_temp.pick(ARRAY['k', 'g', 'v', 'n'])
		WHEN 't_nulls' THEN pg_temp.pick(ARRAY['k', 'k8', 'd', 't', 'w'])
		ELSE pg_temp.pick(ARRAY['k', 'v', 't', 'd']) END;
	c2 := CASE tab
		WHEN 't_all' THEN pg_temp.pick(ARRAY['f8', 'w', 'v::float8', 'f4::float8', 'k8'])
		WHEN 't_part' THEN 'v'
		WHEN 't_upd' THEN pg_temp.pick(ARRAY['v', 'n'])
		WHEN 't_nulls' THEN 'w'
		ELSE 'v' END;
	IF ncols = 1 THEN
		RETURN format('SELECT %s FROM %s%s', c1, tab,
					  CASE WHEN random() < 0.5 THEN ' ORDER BY 1' ELSE '' END);
	END IF;
	RETURN format('SELECT %s, %s FROM %s', c1, c2, tab);
END
$$;

-- the key column's type of a query, as a typed NULL
CREATE FUNCTION pg_temp.coltype(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	t text;
BEGIN
	EXECUTE format('SELECT pg_typeof(x)::text FROM (%s LIMIT 0) s(x) UNION ALL SELECT NULL LIMIT 1', q) INTO t;
	RETURN coalesce(t, 'int4');
EXCEPTION WHEN OTHERS THEN
	RETURN 'int4';
END
$$;

-- one random call's statement
CREATE FUNCTION pg_temp.call() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	typ text := pg_temp.pick(ARRAY['int2', 'int4', 'int8', 'float4', 'float8', 'date',
								   'timestamp', 'timestamptz', 'bool', 'text', 'numeric',
								   'pair', 'posint', 'int4[]']);
	n int := floor(random() * 12)::int;
	m int := CASE WHEN random() < 0.8 THEN n ELSE floor(random() * 12)::int END;
	f text := pg_temp.pick(ARRAY['rle', 'unique', 'compact', 'prefix_sum', 'histogram',
								 'hash_join', 'group_agg', 'rle_q', 'unique_q',
								 'group_agg_q', 'histogram_q', 'info', 'last_run']);
	q text := pg_temp.query(CASE WHEN f = 'group_agg_q' THEN 2 ELSE 1 END);
BEGIN
	RETURN CASE f
		WHEN 'rle' THEN format('SELECT count(*) FROM gpuops.rle(%s)', pg_temp.arr(typ, n))
		WHEN 'unique' THEN format('SELECT count(*) FROM (SELECT gpuops.unique(%s)) s', pg_temp.arr(typ, n))
		WHEN 'compact' THEN format('SELECT cardinality(gpuops.compact(%s, %s))', pg_temp.arr(typ, n), pg_temp.mask(m))
		WHEN 'prefix_sum' THEN format('SELECT cardinality(gpuops.prefix_sum(%s, %s))',
									  pg_temp.arr(pg_temp.pick(ARRAY['int8', 'float8']), n),
									  pg_temp.pick(ARRAY['true', 'false', 'NULL']))
		WHEN 'histogram' THEN format('SELECT sum(count) FROM gpuops.histogram(%s, %s, %s, %s)',
									 pg_temp.arr(pg_temp.pick(ARRAY['int2', 'int4', 'int8', 'float4', 'float8', typ]), n),
									 pg_temp.pick(ARRAY['1', '3', '0', '-1', 'NULL', '100000', '2147483647']),
									 pg_temp.pick(ARRAY['NULL', '0', '''NaN''', '''-Infinity''', '-1e308', '5']),
									 pg_temp.pick(ARRAY['NULL', '10', '''NaN''', '''Infinity''', '1e308', '0']))
		WHEN 'hash_join' THEN format('SELECT count(*) FROM gpuops.hash_join(%s, %s)',
									 pg_temp.arr(typ, n), pg_temp.arr(typ, m))
		WHEN 'group_agg' THEN format('SELECT count(*) FROM gpuops.group_agg(%s, %s)',
									 pg_temp.arr(typ, n), pg_temp.arr(pg_temp.pick(ARRAY['int8', 'float8']), m))
		WHEN 'rle_q' THEN format('SELECT count(*) FROM gpuops.rle(%L, NULL::%s)', q, pg_temp.coltype(q))
		WHEN 'unique_q' THEN format('SELECT count(*) FROM gpuops.unique(%L, NULL::%s)', q, pg_temp.coltype(q))
		WHEN 'group_agg_q' THEN format('SELECT count(*) FROM gpuops.group_agg(%L, NULL::%s)', q, pg_temp.coltype(q))
		WHEN 'histogram_q' THEN format('SELECT sum(count) FROM gpuops.histogram(%L, %s)', q,
									   pg_temp.pick(ARRAY['1', '4', '0', 'NULL']))
		WHEN 'info' THEN 'SELECT count(*) FROM gpuops.info()'
		ELSE 'SELECT count(*) FROM gpuops.last_run()' END;
END
$$;

-- run calls random calls, each under a random chunk size, thread count and
-- strategy; a call's error is caught and counted
CREATE FUNCTION pg_temp.run_calls(calls int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	stmt text;
BEGIN
	FOR i IN 1 .. calls LOOP
		stmt := pg_temp.call();
		BEGIN
			PERFORM set_config('gpuops.debug_chunk_size',
							   pg_temp.pick(ARRAY['0', '0', '16', '64', '1000', '4096']), true);
			PERFORM set_config('gpuops.threads', pg_temp.pick(ARRAY['0', '1', '3']), true);
			PERFORM set_config('gpuops.agg_strategy',
							   pg_temp.pick(ARRAY['auto', 'dense', 'hash', 'sort']), true);
			EXECUTE stmt;
			INSERT INTO call_results VALUES ('ok');
		EXCEPTION WHEN OTHERS THEN
			INSERT INTO call_results VALUES (SQLSTATE);
		END;
	END LOOP;
END
$$;

-- batches of 50 calls, each a statement of its own: statement_timeout
-- bounds a batch (one cancelled by it is reported by psql, its counts lost)
CREATE TEMP TABLE call_results (sqlstate text);
SELECT setseed((:'seed'::int % 1000) / 1000.0);
SELECT format('SELECT pg_temp.run_calls(%s)', least(50, :'calls'::int - 50 * (b - 1)))
  FROM generate_series(1, (:'calls'::int + 49) / 50) b \gexec
SELECT sqlstate, count(*) FROM call_results GROUP BY 1 ORDER BY 2 DESC, 1;
