-- var_pop, var_samp (variance), stddev_pop and stddev_samp (stddev) through
-- Custom Scan (GpuOpsAgg), against PostgreSQL's own answer.  Of int2 and
-- int4 (numeric results) the node keeps the exact sums of the values and of
-- their squares, and the results equal PostgreSQL's to the last digit and
-- display scale (compared as text).  Of float4 and float8 (float8 results)
-- it keeps the sum of squared deviations as PostgreSQL does, in another
-- order: results match up to rounding (compared to 12 significant digits),
-- NaN where a value is infinite or NaN, and the same overflow errors.
-- int8 and numeric arguments keep the native plan.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql

-- q (key k, one float8 v per row) with gpuops on and off: the rows whose
-- values differ beyond 12 significant digits (NaN and NULL must match)
CREATE FUNCTION pg_temp.check_close(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	used boolean := false;
	n bigint;
	bad bigint;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		used := used OR line LIKE '%GpuOpsAgg%';
	END LOOP;
	IF NOT used THEN
		RETURN 'NODE NOT USED';
	END IF;
	EXECUTE 'CREATE TEMP TABLE cl_on AS ' || q;
	PERFORM set_config('gpuops.enabled', 'off', true);
	EXECUTE 'CREATE TEMP TABLE cl_off AS ' || q;
	PERFORM set_config('gpuops.enabled', 'on', true);
	SELECT count(*) INTO n FROM cl_on;
	SELECT count(*) INTO bad
	FROM cl_on a FULL JOIN cl_off b ON a.k IS NOT DISTINCT FROM b.k
	WHERE NOT (a.v IS NOT DISTINCT FROM b.v OR
			   abs(a.v - b.v) <= 1e-12 * greatest(abs(a.v), abs(b.v)));
	DROP TABLE cl_on;
	DROP TABLE cl_off;
	RETURN CASE WHEN bad = 0 THEN 'close, ' || n || ' rows'
		ELSE format('DIFFERENT: %s of %s rows', bad, n) END;
END
$$;

CREATE TABLE var_t (k int4, g int4, a int4, b int2, f float8, r float4);
INSERT INTO var_t
SELECT i % 7,
	   i % 1000,
	   CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 7919) % 2000003 - 1000001 END,
	   ((i * 104729) % 65536 - 32768)::int2,
	   CASE WHEN i % 13 = 0 THEN NULL ELSE ((i * 37) % 10007) / 7.0 - 700 END,
	   ((i * 31) % 1009 / 3.0)::float4
FROM generate_series(1, 20000) i;
-- the extremes of each type, one key each
INSERT INTO var_t VALUES
	(100, 0, 2147483647, 32767, 1e15, 3.4e38),
	(100, 0, -2147483648, -32768, -1e15, -3.4e38),
	(100, 0, 2147483647, 32767, 1e15, 3.4e38),
	(101, 0, 5, 5, 5, 5),
	(102, 0, NULL, NULL, NULL, NULL),
	(103, 0, 3, 3, 3, 3), (103, 0, 3, 3, 3, 3);
ANALYZE var_t;

-- the plan
SELECT * FROM pg_temp.plan('SELECT k, stddev(a), var_pop(f) FROM var_t GROUP BY k');

-- integers: every kind, exact to the last digit
SELECT pg_temp.check('SELECT k, var_pop(a)::text, var_samp(a)::text, variance(a)::text,
	stddev_pop(a)::text, stddev_samp(a)::text, stddev(a)::text FROM var_t GROUP BY k');
SELECT pg_temp.check('SELECT k, var_pop(b)::text, variance(b)::text, stddev_pop(b)::text,
	stddev(b)::text FROM var_t GROUP BY k');
-- many small groups: every scale the division picks, every rounding of the root
SELECT pg_temp.check('SELECT g, variance(a)::text, stddev(a)::text, var_pop(b)::text,
	stddev_pop(b)::text FROM var_t GROUP BY g');
SELECT pg_temp.check('SELECT g, stddev(a % 10)::text, variance(a % 97)::text,
	stddev_pop(b / 1000)::text FROM var_t GROUP BY g');
-- no GROUP BY, an empty input, one row (sample: NULL), FILTER, expressions
SELECT pg_temp.check('SELECT stddev(a)::text, var_pop(b)::text FROM var_t');
SELECT pg_temp.check('SELECT stddev(a)::text, var_pop(b)::text, stddev_pop(f), var_samp(r) FROM var_t WHERE k < 0');
SELECT pg_temp.check('SELECT k, stddev(a)::text, var_pop(a)::text, stddev_samp(b)::text, var_pop(b)::text AS vb
	FROM var_t WHERE k >= 100 GROUP BY k');
SELECT pg_temp.check_close('SELECT 0 AS k, stddev_pop(f) AS v FROM var_t');
SELECT pg_temp.check_close('SELECT k, var_samp(r) AS v FROM var_t WHERE k >= 100 GROUP BY k');
SELECT pg_temp.check_close('SELECT k, stddev_samp(f) AS v FROM var_t WHERE k >= 100 GROUP BY k');
SELECT pg_temp.check('SELECT k, stddev(a) FILTER (WHERE b > 0)::text,
	variance(b) FILTER (WHERE a % 3 = 0)::text FROM var_t GROUP BY k');
SELECT pg_temp.check('SELECT k, stddev(a / 7 + b)::text, var_pop(CASE WHEN b > 0 THEN b END)::text
	FROM var_t GROUP BY k');
-- with other aggregates of the same argument
SELECT pg_temp.check('SELECT k, sum(a), avg(a), stddev(a)::text, count(a), min(b), stddev_pop(b)::text
	FROM var_t GROUP BY k');
-- HAVING and ORDER BY on a variance
SELECT pg_temp.check_order('SELECT k, variance(b) FROM var_t GROUP BY k
	HAVING variance(b) > 0 ORDER BY variance(b) DESC, k');

-- floats: close to PostgreSQL's rounding
SELECT pg_temp.check_close('SELECT k, stddev(f) AS v FROM var_t GROUP BY k');
SELECT pg_temp.check_close('SELECT k, var_pop(f) AS v FROM var_t GROUP BY k');
SELECT pg_temp.check_close('SELECT g AS k, variance(f) AS v FROM var_t GROUP BY g');
SELECT pg_temp.check_close('SELECT g AS k, stddev_pop(r) AS v FROM var_t GROUP BY g');
SELECT pg_temp.check_close('SELECT k, var_samp(r) AS v FROM var_t GROUP BY k');
SELECT pg_temp.check_close('SELECT k, stddev(f * 2 + r) AS v FROM var_t GROUP BY k');
SELECT pg_temp.check_close('SELECT k, stddev(a::float8) AS v FROM var_t GROUP BY k');

-- each strategy, batches that split the groups, spilled groups
SET gpuops.agg_strategy = dense;
SELECT pg_temp.check('SELECT g, stddev(a)::text, var_pop(b)::text FROM var_t GROUP BY g');
SELECT pg_temp.check_close('SELECT g AS k, stddev(f) AS v FROM var_t GROUP BY g');
SET gpuops.agg_strategy = hash;
SELECT pg_temp.check('SELECT g, stddev(a)::text, var_pop(b)::text FROM var_t GROUP BY g');
SELECT pg_temp.check_close('SELECT g AS k, stddev(f) AS v FROM var_t GROUP BY g');
SET gpuops.agg_strategy = sort;
SELECT pg_temp.check('SELECT g, stddev(a)::text, var_pop(b)::text FROM var_t GROUP BY g');
SELECT pg_temp.check_close('SELECT g AS k, stddev(f) AS v FROM var_t GROUP BY g');
RESET gpuops.agg_strategy;
SET gpuops.debug_chunk_size = 64;
SELECT pg_temp.check('SELECT k, stddev(a)::text, variance(b)::text FROM var_t GROUP BY k');
SELECT pg_temp.check_close('SELECT k, stddev(f) AS v FROM var_t GROUP BY k');
RESET gpuops.debug_chunk_size;
CREATE TABLE var_s AS SELECT * FROM var_t;
SET gpuops.max_group_memory = 64;
SELECT pg_temp.check('SELECT g, stddev(a)::text, var_pop(b)::text FROM var_s GROUP BY g');
SELECT pg_temp.check_close('SELECT g AS k, var_samp(f) AS v FROM var_s GROUP BY g');
RESET gpuops.max_group_memory;
DROP TABLE var_s;
-- worker processes (where the core budget allows a query 3 threads)
SET gpuops.parallel_workers = 2;
SET max_parallel_workers_per_gather = 2;
SET gpuops.cpu_row_cost = 0;
SET gpuops.threads = 4;
SET gpuops.debug_chunk_size = 4096;
SET parallel_setup_cost = 0;
SELECT pg_temp.check('SELECT k, stddev(a)::text, var_pop(b)::text FROM var_t GROUP BY k');
SELECT pg_temp.check_close('SELECT k, stddev(f) AS v FROM var_t GROUP BY k');
RESET parallel_setup_cost;
RESET gpuops.debug_chunk_size;
RESET gpuops.threads;
RESET gpuops.cpu_row_cost;
RESET gpuops.parallel_workers;
SET max_parallel_workers_per_gather = 0;

-- floats: infinities and NaN make the variance NaN; one value: the sample
-- kinds are NULL; squares that overflow raise 22003, as PostgreSQL does
CREATE TABLE var_f (g int, v float8);
INSERT INTO var_f VALUES
	(1, 1), (1, 2), (1, 4),
	(2, 1), (2, 'Infinity'),
	(3, 'NaN'), (3, 5),
	(4, '-Infinity'),
	(5, 7),
	(6, '-0'), (6, '0'),
	(7, 1e300), (7, -1e300),
	(8, 1e308), (8, 1e308);
CREATE FUNCTION pg_temp.both(q text) RETURNS TABLE(gpuops text, native text)
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	used boolean := false;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		used := used OR line LIKE '%GpuOpsAgg%';
	END LOOP;
	IF NOT used THEN
		RAISE EXCEPTION 'GpuOpsAgg not used for: %', q;
	END IF;
	BEGIN
		EXECUTE 'SELECT string_agg(t::text, '' '') FROM (' || q || ') t' INTO gpuops;
	EXCEPTION WHEN OTHERS THEN
		gpuops := SQLSTATE || ': ' || SQLERRM;
	END;
	PERFORM set_config('gpuops.enabled', 'off', true);
	BEGIN
		EXECUTE 'SELECT string_agg(t::text, '' '') FROM (' || q || ') t' INTO native;
	EXCEPTION WHEN OTHERS THEN
		native := SQLSTATE || ': ' || SQLERRM;
	END;
	PERFORM set_config('gpuops.enabled', 'on', true);
	RETURN NEXT;
END
$$;
-- (to 12 places: the GPU face adds in another order)
SELECT g, b.* FROM generate_series(1, 8) g,
	LATERAL pg_temp.both(format('SELECT round(var_pop(v)::numeric, 12), round(var_samp(v)::numeric, 12),
		round(stddev_pop(v)::numeric, 12), round(stddev_samp(v)::numeric, 12) FROM var_f WHERE g = %s', g)) b
	ORDER BY g;
SELECT * FROM pg_temp.both('SELECT g, round(variance(v)::numeric, 12), round(stddev_pop(v)::numeric, 12)
	FROM var_f WHERE g < 7 GROUP BY g ORDER BY g');
SELECT * FROM pg_temp.both('SELECT g, round(variance(v::float4)::numeric, 12) FROM var_f WHERE g < 7 GROUP BY g ORDER BY g');

-- what keeps the native plan: int8 and numeric arguments, DISTINCT
CREATE TABLE var_n (k int, x int8, y numeric(10, 2));
INSERT INTO var_n SELECT i % 3, i, i / 10.0 FROM generate_series(1, 100) i;
ANALYZE var_n;
SELECT * FROM pg_temp.plan('SELECT k, stddev(x) FROM var_n GROUP BY k');
SELECT * FROM pg_temp.plan('SELECT k, variance(y) FROM var_n GROUP BY k');
SELECT * FROM pg_temp.plan('SELECT k, stddev(DISTINCT k) FROM var_n GROUP BY k');

DROP TABLE var_t;
DROP TABLE var_f;
DROP TABLE var_n;
