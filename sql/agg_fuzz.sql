-- Random GROUP BY queries over a table of every supported type (NULLs,
-- NaN, infinities, -0, integer extremes, text), each run with the GpuOpsAgg
-- node and without it; EXCEPT ALL both ways must be empty.  A query mixes 0
-- to 3 keys, 1 to 4 aggregates (some with FILTER), WHERE clauses for the
-- device and for the CPU, and random batch sizes (gpuops.chunk_size).  The
-- seed is fixed, so the queries are the same on every run.
\set SHOW_CONTEXT never
LOAD 'gpuops';
SET gpuops.cpu_setup_cost = 0;
SET gpuops.gpu_setup_cost = 0;
SET max_parallel_workers_per_gather = 0;
SELECT setseed(0.42) IS NULL AS seeded;
CREATE TABLE fz_t (i int4, k int4, k2 int8, ks int2, kb bool, kd date,
                    kts timestamp, ktz timestamptz, kf4 float4, kf8 float8,
                    v float8, v4 float4, w int4, w2 int2, w8 int8, txt text);
INSERT INTO fz_t
SELECT i,
       CASE WHEN r1 < 0.02 THEN NULL ELSE (r2 * 1000)::int END,
       CASE WHEN i % 997 = 0 THEN 9223372036854775807
            WHEN i % 991 = 0 THEN -9223372036854775808
            ELSE (r3 * 1e12)::int8 % 40000 END,
       CASE WHEN i % 101 = 0 THEN NULL WHEN i % 103 = 0 THEN -32768
            WHEN i % 107 = 0 THEN 32767 ELSE (i % 50)::int2 END,
       CASE i % 3 WHEN 0 THEN NULL WHEN 1 THEN true ELSE false END,
       CASE WHEN i % 89 = 0 THEN NULL ELSE date '2020-01-01' + i % 400 END,
       timestamp '2020-01-01' + (i % 5000) * interval '1 hour',
       timestamptz '2020-01-01 00:00+00' + (i % 7000) * interval '1 minute',
       CASE i % 41 WHEN 0 THEN 'NaN' WHEN 1 THEN 'Infinity' WHEN 2 THEN '-Infinity'
            WHEN 3 THEN '-0' WHEN 4 THEN NULL ELSE (i % 37) / 4.0 END,
       CASE i % 43 WHEN 0 THEN 'NaN' WHEN 1 THEN '-0' WHEN 2 THEN NULL
            ELSE (i % 29 - 14) / 8.0 END,
       CASE WHEN r4 < 0.03 THEN NULL
            WHEN i % 5003 = 0 THEN 'NaN'
            WHEN i % 4999 = 0 THEN 'Infinity'
            WHEN i % 4993 = 0 THEN '-Infinity'
            ELSE (i % 2001 - 1000) / 8.0 END,
       CASE WHEN i % 17 = 0 THEN NULL ELSE (i % 41 - 20) / 4.0 END,
       CASE WHEN i % 19 = 0 THEN NULL WHEN i % 23 = 0 THEN 2147483647
            WHEN i % 29 = 0 THEN -2147483648 ELSE i % 1000 - 500 END,
       CASE WHEN i % 31 = 0 THEN NULL WHEN i % 37 = 0 THEN 32767
            ELSE (i % 200 - 100)::int2 END,
       CASE WHEN i % 13 = 0 THEN NULL
            ELSE 4611686018427387904 + i::int8 * 1000000007 END,
       CASE WHEN i % 7 = 0 THEN NULL ELSE md5(i::text) END
FROM (SELECT i, random() r1, random() r2, random() r3, random() r4
      FROM generate_series(1, 100000) i) s;
ANALYZE fz_t;

CREATE FUNCTION pg_temp.fuzz(n int, seed float8) RETURNS TABLE(q text, res text) LANGUAGE plpgsql AS $$
DECLARE
	keys text[] := ARRAY['k','k2','ks','kb','kd','kts','ktz','kf4','kf8','txt','w2'];
	vals text[] := ARRAY['v','v4','w','w2','w8','k','k2','ks','kf4','kf8'];
	mm text[] := ARRAY['kd','kts','ktz'];
	fns text[] := ARRAY['count','sum','avg','min','max'];
	conds text[] := ARRAY['w > 0','v < 10','k IN (1,2,3,NULL)','k NOT IN (5,6)','kf8 = ''NaN''','kf8 > 1','kb','NOT kb','kb IS NULL','v IS NOT NULL','k2 < 1000','ks BETWEEN -5 AND 20','kd >= ''2020-06-01''','w8 > 4611686018427387904','kf4 <= 2.5','txt LIKE ''a%''','i % 3 = 0','w2 <> 7','k IS NULL OR w < -100'];
	i int; j int; nk int; na int; sel text; grp text; q1 text; wh text; d1 bigint; d2 bigint; used bool; line text;
	a text; f text; filt text;
BEGIN
	PERFORM setseed(seed);
	FOR i IN 1..n LOOP
		nk := floor(random() * 4)::int;
		sel := ''; grp := '';
		FOR j IN 1..nk LOOP
			a := keys[1 + floor(random() * array_length(keys, 1))::int];
			sel := sel || a || ' AS g' || j || ', ';
			grp := grp || CASE WHEN grp = '' THEN '' ELSE ', ' END || a;
		END LOOP;
		na := 1 + floor(random() * 4)::int;
		FOR j IN 1..na LOOP
			f := fns[1 + floor(random() * 5)::int];
			IF f IN ('min','max') AND random() < 0.3 THEN
				a := mm[1 + floor(random() * 3)::int];
			ELSE
				a := vals[1 + floor(random() * array_length(vals, 1))::int];
			END IF;
			IF f = 'count' AND random() < 0.4 THEN a := '*'; END IF;
			filt := CASE WHEN random() < 0.2 THEN ' FILTER (WHERE ' || conds[1 + floor(random() * 15)::int] || ')' ELSE '' END;
			sel := sel || f || '(' || a || ')' || filt || ' AS a' || j || ', ';
		END LOOP;
		sel := left(sel, length(sel) - 2);
		wh := '';
		IF random() < 0.6 THEN
			wh := ' WHERE ' || conds[1 + floor(random() * array_length(conds, 1))::int];
			IF random() < 0.4 THEN
				wh := wh || CASE WHEN random() < 0.5 THEN ' AND ' ELSE ' OR ' END || conds[1 + floor(random() * array_length(conds, 1))::int];
			END IF;
		END IF;
		q1 := 'SELECT ' || sel || ' FROM fz_t' || wh || CASE WHEN grp <> '' THEN ' GROUP BY ' || grp ELSE '' END;
		IF random() < 0.3 THEN
			PERFORM set_config('gpuops.chunk_size', (64 * (1 + floor(random() * 1000)))::text, true);
		ELSE
			PERFORM set_config('gpuops.chunk_size', '64MB', true);
		END IF;
		BEGIN
			PERFORM set_config('gpuops.enabled', 'on', true);
			used := false;
			FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q1 LOOP
				used := used OR line LIKE '%GpuOpsAgg%';
			END LOOP;
			EXECUTE 'CREATE TEMP TABLE r_on AS ' || q1;
			PERFORM set_config('gpuops.enabled', 'off', true);
			EXECUTE 'CREATE TEMP TABLE r_off AS ' || q1;
			SELECT count(*) INTO d1 FROM (TABLE r_on EXCEPT ALL TABLE r_off) x;
			SELECT count(*) INTO d2 FROM (TABLE r_off EXCEPT ALL TABLE r_on) x;
			DROP TABLE r_on; DROP TABLE r_off;
			IF d1 <> 0 OR d2 <> 0 THEN
				q := q1; res := format('DIFF %s/%s used=%s chunk=%s', d1, d2, used, current_setting('gpuops.chunk_size')); RETURN NEXT;
			ELSIF NOT used THEN
				q := q1; res := 'native'; RETURN NEXT;
			ELSE
				q := q1; res := 'same'; RETURN NEXT;
			END IF;
		EXCEPTION WHEN OTHERS THEN
			q := q1; res := 'ERR ' || SQLSTATE || ' ' || SQLERRM; RETURN NEXT;
			BEGIN DROP TABLE IF EXISTS r_on; DROP TABLE IF EXISTS r_off; EXCEPTION WHEN OTHERS THEN NULL; END;
		END;
	END LOOP;
END
$$;

CREATE TEMP TABLE fz AS SELECT * FROM pg_temp.fuzz(150, 0.25);
-- every query used the node and gave PostgreSQL's answer
SELECT res, count(*) FROM fz GROUP BY res ORDER BY res;
-- the ones that did not, if any
SELECT q, res FROM fz WHERE res <> 'same';
