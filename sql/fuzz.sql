-- differential fuzz of GpuOpsAgg: random GROUP BY queries (fixed seeds) with
-- gpuops on against gpuops off over adversarial data: the integer extremes,
-- NaN, +-Infinity, -0.0, all-NULL columns, infinite dates and timestamps,
-- empty and long text under the C collation and the default one, a
-- partitioned table, a table after UPDATE and DELETE, and label keys (CASE
-- and COALESCE of text), derived keys (expressions of other keys) and
-- mapped keys (functions of one text column) over the first.  Each query's rows
-- are compared with EXCEPT ALL both ways; every count shown must be 0.
--
-- Float sums round differently in another order (documented), so every
-- float column that is summed or averaged holds small dyadic fractions
-- (exact in any order), NaN, infinities and -0.0 only: the comparison is
-- exact by construction.  No float sum comes near overflowing.
\set SHOW_CONTEXT never
SET gpuops.cpu_setup_cost = 0;
SET gpuops.cpu_row_cost = 0;
SET gpuops.gpu_setup_cost = 0;
SET gpuops.gpu_row_cost = 0;

-- the data: every key and value type, special values spread over the rows
CREATE TABLE fz_t AS
SELECT i AS id,
       (CASE i % 7 WHEN 0 THEN NULL WHEN 1 THEN -32768 WHEN 2 THEN 32767 ELSE i % 40 END)::int2 AS i2,
       CASE i % 11 WHEN 0 THEN NULL WHEN 1 THEN -2147483648 WHEN 2 THEN 2147483647
            ELSE i % 97 - 40 END AS i4,
       CASE i % 13 WHEN 0 THEN NULL WHEN 1 THEN -9223372036854775808
            WHEN 2 THEN 9223372036854775807 ELSE (i % 61)::int8 * 1000000007 END AS i8,
       (CASE i % 10 WHEN 0 THEN 'NaN' WHEN 1 THEN 'Infinity' WHEN 2 THEN '-Infinity'
                    WHEN 3 THEN '-0' WHEN 4 THEN NULL ELSE ((i % 33) - 16) / 2.0 END)::float4 AS f4,
       CASE i % 17 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN 'Infinity' WHEN 2 THEN '-Infinity'
                   WHEN 3 THEN '-0' WHEN 4 THEN NULL WHEN 5 THEN '-NaN'
                   ELSE ((i % 45) - 22) / 4.0 END AS f8,
       CASE i % 19 WHEN 0 THEN 'infinity'::date WHEN 1 THEN '-infinity' WHEN 2 THEN NULL
                   ELSE date '2000-02-28' + (i % 30) END AS d,
       CASE i % 23 WHEN 0 THEN 'infinity'::timestamp WHEN 1 THEN '-infinity' WHEN 2 THEN NULL
                   WHEN 3 THEN '294276-12-31 23:59:59.999999' WHEN 4 THEN '4713-01-01 00:00 BC'
                   ELSE timestamp '2020-02-29 12:00' + (i % 24) * interval '1 hour' END AS ts,
       CASE i % 29 WHEN 0 THEN 'infinity'::timestamptz WHEN 1 THEN '-infinity' WHEN 2 THEN NULL
                   ELSE timestamptz '1999-12-31 23:00+00' + (i % 20) * interval '1 minute' END AS tz,
       CASE i % 3 WHEN 0 THEN NULL WHEN 1 THEN true ELSE false END AS b,
       CASE i % 9 WHEN 0 THEN NULL WHEN 1 THEN '' WHEN 2 THEN repeat('long', 1000)
                  WHEN 3 THEN (SELECT string_agg(md5((i % 4 + g)::text), '') FROM generate_series(1, 100) g)
                  WHEN 4 THEN 'Äpfel' WHEN 5 THEN 'apfel' WHEN 6 THEN 'B'
                  ELSE 'k' || (i % 25) END AS t,
       (CASE i % 9 WHEN 0 THEN NULL WHEN 1 THEN '' WHEN 2 THEN repeat('z', 3000)
                   WHEN 3 THEN 'b' WHEN 4 THEN 'B' WHEN 5 THEN 'a'
                   ELSE 'c' || (i % 15) END) COLLATE "C" AS tc,
       NULL::int4 AS n4,
       NULL::float8 AS nf,
       NULL::text AS nt,
       CASE WHEN i % 8 = 0 THEN NULL WHEN i % 8 = 1 THEN 2147483647
            WHEN i % 8 = 2 THEN -2147483648 ELSE i % 1000 - 500 END AS v4,
       CASE WHEN i % 6 = 0 THEN NULL WHEN i % 6 = 1 THEN 9223372036854775807
            WHEN i % 6 = 2 THEN -9223372036854775808 ELSE i * 7919 % 100003 END AS v8,
       CASE i % 31 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN 'Infinity' WHEN 2 THEN '-Infinity'
                   WHEN 3 THEN '-0' WHEN 4 THEN NULL
                   ELSE (i * 37 % 2001 - 1000) / 8.0 END AS w8,
       (CASE i % 37 WHEN 0 THEN 'NaN' WHEN 1 THEN '-0' WHEN 2 THEN NULL
                    ELSE (i % 129 - 64) / 2.0 END)::float4 AS w4
  FROM generate_series(1, 6000) i;
ANALYZE fz_t;

-- partitions: ranges, an empty one, a default one; NULL keys in the default
CREATE TABLE fz_p (k int4, g int8, d date, t text, v int4, w float8) PARTITION BY RANGE (k);
CREATE TABLE fz_p_lo PARTITION OF fz_p FOR VALUES FROM (MINVALUE) TO (0);
CREATE TABLE fz_p_mid PARTITION OF fz_p FOR VALUES FROM (0) TO (50);
CREATE TABLE fz_p_hi PARTITION OF fz_p FOR VALUES FROM (50) TO (1000);
CREATE TABLE fz_p_empty PARTITION OF fz_p FOR VALUES FROM (1000) TO (2000);
CREATE TABLE fz_p_def PARTITION OF fz_p DEFAULT;
INSERT INTO fz_p
SELECT CASE WHEN i % 10 = 0 THEN NULL WHEN i % 10 = 1 THEN 2147483647
            WHEN i % 10 = 2 THEN -2147483648 ELSE i * 37 % 1100 - 50 END,
       CASE WHEN i % 7 = 0 THEN NULL ELSE i % 23 END,
       CASE i % 11 WHEN 0 THEN 'infinity'::date WHEN 1 THEN '-infinity' ELSE date '2010-01-01' + i % 9 END,
       CASE i % 5 WHEN 0 THEN NULL WHEN 1 THEN '' ELSE 'p' || (i % 12) END,
       CASE WHEN i % 4 = 0 THEN NULL ELSE i % 1000 END,
       CASE i % 13 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN '-0' ELSE (i % 77) / 4.0 END
  FROM generate_series(1, 9000) i;
ANALYZE fz_p;

-- after UPDATE and DELETE: dead tuples and HOT chains, not vacuumed
CREATE TABLE fz_u (k int4, g text, v int8, w float8, d date) WITH (fillfactor = 60);
INSERT INTO fz_u SELECT i % 100, 'g' || (i % 10), i, (i % 40) / 4.0, date '2024-01-01' + i % 5
  FROM generate_series(1, 10000) i;
UPDATE fz_u SET v = -v, w = -w WHERE k % 3 = 0;
DELETE FROM fz_u WHERE k % 7 = 0;
UPDATE fz_u SET k = NULL, g = NULL WHERE k = 5;
UPDATE fz_u SET w = 'NaN' WHERE k = 8;
DELETE FROM fz_u WHERE v BETWEEN 2000 AND 2999;
INSERT INTO fz_u VALUES (NULL, '', 9223372036854775807, 'Infinity', 'infinity'),
                        (1, NULL, -9223372036854775808, '-0', '-infinity');
ANALYZE fz_u;

-- q with gpuops on against gpuops off: whether the node ran it, the rows,
-- and the rows only in one of the two results (EXCEPT ALL both ways)
CREATE FUNCTION pg_temp.compare(q text, OUT used bool, OUT n bigint, OUT only_on bigint,
                                OUT only_off bigint) LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	used := false;
	PERFORM set_config('gpuops.enabled', 'on', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		used := used OR line LIKE '%GpuOpsAgg%';
	END LOOP;
	EXECUTE 'CREATE TEMP TABLE fz_on AS ' || q;
	PERFORM set_config('gpuops.enabled', 'off', true);
	EXECUTE 'CREATE TEMP TABLE fz_off AS ' || q;
	PERFORM set_config('gpuops.enabled', 'on', true);
	SELECT count(*) INTO n FROM fz_on;
	SELECT count(*) INTO only_on FROM (TABLE fz_on EXCEPT ALL TABLE fz_off) x;
	SELECT count(*) INTO only_off FROM (TABLE fz_off EXCEPT ALL TABLE fz_on) x;
	DROP TABLE fz_on;
	DROP TABLE fz_off;
END
$$;

-- a random element of a
CREATE FUNCTION pg_temp.pick(a text[]) RETURNS text LANGUAGE sql AS
$$ SELECT a[1 + floor(random() * cardinality(a))::int] $$;

-- n random GROUP BY queries over tab: 0 to 4 keys, 1 to 4 aggregates (sum
-- and avg over exact columns only, some with FILTER), WHERE clauses, under
-- random chunk sizes, strategies, thread counts and parallel plans
CREATE FUNCTION pg_temp.fuzz(tab text, n int, seed float8, keys text[], sums text[],
                             others text[], conds text[])
RETURNS TABLE(q text, used bool, nrows bigint, only_on bigint, only_off bigint, err text)
LANGUAGE plpgsql AS $$
DECLARE
	sel text;
	grp text;
	wh text;
	a text;
	f text;
BEGIN
	PERFORM setseed(seed);
	FOR i IN 1 .. n LOOP
		sel := '';
		grp := '';
		FOR j IN 1 .. floor(random() * 5)::int LOOP
			a := pg_temp.pick(keys);
			sel := sel || a || ' AS g' || j || ', ';
			grp := grp || CASE WHEN grp = '' THEN '' ELSE ', ' END || a;
		END LOOP;
		FOR j IN 1 .. 1 + floor(random() * 4)::int LOOP
			f := pg_temp.pick(ARRAY['count', 'count', 'sum', 'avg', 'min', 'max']);
			a := CASE WHEN f IN ('sum', 'avg') THEN pg_temp.pick(sums)
					  WHEN f = 'count' AND random() < 0.4 THEN '*'
					  ELSE pg_temp.pick(sums || others) END;
			sel := sel || f || '(' || a || ')' ||
				CASE WHEN random() < 0.2 THEN ' FILTER (WHERE ' || pg_temp.pick(conds) || ')' ELSE '' END ||
				' AS a' || j || ', ';
		END LOOP;
		wh := CASE WHEN random() < 0.5 THEN ' WHERE ' || pg_temp.pick(conds) ||
			CASE WHEN random() < 0.3 THEN pg_temp.pick(ARRAY[' AND ', ' OR ']) || pg_temp.pick(conds) ELSE '' END
			ELSE '' END;
		q := 'SELECT ' || left(sel, length(sel) - 2) || ' FROM ' || tab || wh ||
			CASE WHEN grp <> '' THEN ' GROUP BY ' || grp ELSE '' END;
		PERFORM set_config('gpuops.debug_chunk_size', pg_temp.pick(ARRAY['0', '0', '0', '64', '1000', '8192']), true);
		-- dense included: where it cannot apply (a key range above 2^22, keys
		-- that are not integers) the node uses auto
		PERFORM set_config('gpuops.agg_strategy', pg_temp.pick(ARRAY['auto', 'dense', 'hash', 'sort']), true);
		PERFORM set_config('gpuops.threads', pg_temp.pick(ARRAY['0', '1', '3']), true);
		PERFORM set_config('max_parallel_workers_per_gather', pg_temp.pick(ARRAY['0', '2']), true);
		PERFORM set_config('parallel_setup_cost', '0', true);
		PERFORM set_config('parallel_tuple_cost', '0', true);
		PERFORM set_config('min_parallel_table_scan_size', '0', true);
		BEGIN
			SELECT c.used, c.n, c.only_on, c.only_off INTO used, nrows, only_on, only_off
			  FROM pg_temp.compare(q) c;
			err := NULL;
		EXCEPTION WHEN OTHERS THEN
			used := NULL; nrows := NULL; only_on := NULL; only_off := NULL;
			err := SQLSTATE || ': ' || SQLERRM;
		END;
		RETURN NEXT;
	END LOOP;
END
$$;

-- every type and special value
CREATE TEMP TABLE fz_r1 AS SELECT * FROM pg_temp.fuzz('fz_t', 150, 0.125,
	ARRAY['i2', 'i4', 'i8', 'f4', 'f8', 'd', 'ts', 'tz', 'b', 't', 'tc', 'n4', 'nf', 'nt'],
	ARRAY['i2', 'i4', 'i8', 'v4', 'v8', 'w8', 'w4', 'n4', 'nf'],
	ARRAY['f4', 'f8', 'd', 'ts', 'tz', 'id'],
	ARRAY['i4 > 0', 'i2 < 10', 'i8 IN (0, 1000000007, NULL)', 'f8 = ''NaN''', 'f8 > 1',
		  'f4 = ''-Infinity''', 'f8 = 0', 'b', 'NOT b', 'b IS NULL', 'd > ''2000-03-10''',
		  'd = ''infinity''', 'ts < ''2020-03-01''', 'tz IS NOT NULL', 't = ''''',
		  'tc > ''a''', 't LIKE ''k1%''', 'v4 BETWEEN -100 AND 100', 'v8 > 50000',
		  'w8 <> ''NaN''', 'n4 IS NULL', 'nf > 0', 'id % 5 = 0', 'i4 IS NULL OR v4 < 0']);
SELECT count(*) AS queries, count(*) FILTER (WHERE used) AS used_node,
       count(*) FILTER (WHERE err IS NOT NULL) AS errors,
       sum(only_on) AS only_on, sum(only_off) AS only_off FROM fz_r1;
-- the queries that differ or fail, if any
SELECT q, only_on, only_off, err FROM fz_r1 WHERE only_on <> 0 OR only_off <> 0 OR err IS NOT NULL;

-- a partitioned table
CREATE TEMP TABLE fz_r2 AS SELECT * FROM pg_temp.fuzz('fz_p', 60, 0.5,
	ARRAY['k', 'g', 'd', 't'],
	ARRAY['k', 'g', 'v', 'w'],
	ARRAY['d'],
	ARRAY['k > 100', 'k < 0', 'k IS NULL', 'g = 3', 'd = ''-infinity''', 't <> ''''',
		  'v > 500', 'w = ''NaN''', 'k BETWEEN 1000 AND 1999', 'k IN (1, 2147483647)']);
SELECT count(*) AS queries, count(*) FILTER (WHERE used) AS used_node,
       count(*) FILTER (WHERE err IS NOT NULL) AS errors,
       sum(only_on) AS only_on, sum(only_off) AS only_off FROM fz_r2;
SELECT q, only_on, only_off, err FROM fz_r2 WHERE only_on <> 0 OR only_off <> 0 OR err IS NOT NULL;

-- a table after UPDATE and DELETE
CREATE TEMP TABLE fz_r3 AS SELECT * FROM pg_temp.fuzz('fz_u', 50, 0.75,
	ARRAY['k', 'g', 'd'],
	ARRAY['k', 'v', 'w'],
	ARRAY['d'],
	ARRAY['k > 50', 'k IS NULL', 'g = ''g3''', 'v < 0', 'w = ''NaN''', 'd = ''infinity''']);
SELECT count(*) AS queries, count(*) FILTER (WHERE used) AS used_node,
       count(*) FILTER (WHERE err IS NOT NULL) AS errors,
       sum(only_on) AS only_on, sum(only_off) AS only_off FROM fz_r3;
SELECT q, only_on, only_off, err FROM fz_r3 WHERE only_on <> 0 OR only_off <> 0 OR err IS NOT NULL;

-- label keys: CASE and COALESCE of text over constants and a text column
CREATE TEMP TABLE fz_r4 AS SELECT * FROM pg_temp.fuzz('fz_t', 60, 0.375,
	ARRAY['CASE WHEN i4 < 0 THEN ''neg'' WHEN i4 > 100 THEN ''big'' END',
		  'CASE i2 % 3 WHEN 0 THEN ''a'' WHEN 1 THEN '''' ELSE ''a'' END',
		  'COALESCE(t, ''k1'')', 'CASE WHEN b THEN t ELSE ''none'' END',
		  'CASE WHEN d > ''2000-03-10'' THEN tc END', 'i2', 'd'],
	ARRAY['i2', 'i4', 'v8', 'w4'],
	ARRAY['f8', 'ts'],
	ARRAY['i4 > 0', 'b', 'NOT b', 't = ''''', 't LIKE ''k1%''', 'v8 > 50000', 'id % 5 = 0']);
SELECT count(*) AS queries, count(*) FILTER (WHERE used) AS used_node,
       count(*) FILTER (WHERE err IS NOT NULL) AS errors,
       sum(only_on) AS only_on, sum(only_off) AS only_off FROM fz_r4;
SELECT q, only_on, only_off, err FROM fz_r4 WHERE only_on <> 0 OR only_off <> 0 OR err IS NOT NULL;

-- derived keys: expressions of other keys, computed per group (few keys to
-- pick from, so that an expression's column is often a key too)
CREATE TEMP TABLE fz_r5 AS SELECT * FROM pg_temp.fuzz('fz_t', 60, 0.625,
	ARRAY['i4', 'i4::int8 + 1', 'i4 % 7', 'i2', 'i2 * 2 + i4::int8'],
	ARRAY['i2', 'i4', 'v8', 'w4'],
	ARRAY['f8', 'ts'],
	ARRAY['i4 > 0', 'b', 'v8 > 50000', 'id % 5 = 0', 'i2 IS NULL']);
INSERT INTO fz_r5 SELECT * FROM pg_temp.fuzz('fz_t', 60, 0.875,
	ARRAY['d', 'd + 1', 'extract(dow FROM d)', 'ts', 'date_trunc(''month'', ts)', 'b', 'NOT b'],
	ARRAY['i2', 'i4', 'v8', 'w4'],
	ARRAY['f8', 'ts'],
	ARRAY['i4 > 0', 'b', 'NOT b', 'v8 > 50000', 'd > ''2000-03-10''']);
SELECT count(*) AS queries, count(*) FILTER (WHERE used) AS used_node,
       count(*) FILTER (WHERE err IS NOT NULL) AS errors,
       sum(only_on) AS only_on, sum(only_off) AS only_off FROM fz_r5;
SELECT q, only_on, only_off, err FROM fz_r5 WHERE only_on <> 0 OR only_off <> 0 OR err IS NOT NULL;

-- mapped keys: functions of one text column, grouped by the column and then
-- by their values (also beside the column as a key and text min/max)
CREATE TEMP TABLE fz_r6 AS SELECT * FROM pg_temp.fuzz('fz_t', 80, 0.3125,
	ARRAY['lower(t)', 'substr(t, 1, 2)', 'left(tc, 1)', 'upper(t) || ''!''',
		  'nullif(t, '''')', 'concat(tc, ''x'')', 'md5(t)', 't', 'i2'],
	ARRAY['i2', 'i4', 'v8', 'w4'],
	ARRAY['f8', 'ts', 't', 'tc'],
	ARRAY['i4 > 0', 'b', 't = ''''', 't LIKE ''k1%''', 'tc > ''a''', 'id % 5 = 0']);
SELECT count(*) AS queries, count(*) FILTER (WHERE used) AS used_node,
       count(*) FILTER (WHERE err IS NOT NULL) AS errors,
       sum(only_on) AS only_on, sum(only_off) AS only_off FROM fz_r6;
SELECT q, only_on, only_off, err FROM fz_r6 WHERE only_on <> 0 OR only_off <> 0 OR err IS NOT NULL;

DROP TABLE fz_t, fz_p, fz_u;

