-- Expressions over one dimension's columns alone, computed by that
-- dimension's child plan and gathered like its columns (TPC-H Q14's
-- p_type LIKE 'PROMO%', Q12's CASE over o_orderpriority), and sums of
-- numeric CASE expressions whose branches have different scales, split
-- into one sum per scale (Q14's ELSE 0).  Checked against PostgreSQL's own
-- answer, as text where a numeric's display scale must match too: NULLs,
-- NaN, groups that take one branch only, FILTER, HAVING, a snowflake's
-- dimension, left joins (whose expressions stay above the join), and
-- expressions that could raise an error on rows the join drops (division),
-- which stay above the join too.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/agg_check.psql

CREATE TABLE se_fact (id int, pk int, ok int, price numeric(12, 2),
					  disc numeric(4, 2), q int, x float8);
INSERT INTO se_fact
SELECT i,
	   CASE WHEN i % 101 = 0 THEN NULL ELSE 1 + (i * 13) % 1050 END,
	   1 + (i * 11) % 620,
	   CASE WHEN i = 4321 THEN 'NaN' ELSE (i % 997) * 1.25 END,
	   (i % 11) * 0.01,
	   i % 50,
	   (i % 13) * 0.5
FROM generate_series(1, 20000) i;
-- parts 1..1000 (fact keys reach 1050: some miss); part 999 has pd = 0 and
-- no fact row joins it (so 100 / pd raises nothing in PostgreSQL's plan)
CREATE TABLE se_part (pk int PRIMARY KEY, ptype varchar(25), pname text,
					  psize int, pd int);
INSERT INTO se_part
SELECT i,
	   CASE WHEN i % 37 = 0 THEN NULL
			ELSE (ARRAY['PROMO BRASS', 'STANDARD TIN', 'PROMO STEEL', 'LARGE COPPER',
						'small brass'])[1 + i % 5] END,
	   'part ' || i, i % 50, CASE WHEN i = 999 THEN 0 ELSE 1 + i % 7 END
FROM generate_series(1, 1000) i;
DELETE FROM se_fact WHERE pk = 999;
-- orders of customers: a snowflake's branch
CREATE TABLE se_cust (ck int PRIMARY KEY, seg char(1));
INSERT INTO se_cust SELECT i, chr(65 + i % 4) FROM generate_series(1, 100) i;
CREATE TABLE se_ord (ok int PRIMARY KEY, ck int, prio char(15));
INSERT INTO se_ord
SELECT i, 1 + i % 110,
	   (ARRAY['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'])[1 + i % 5]
FROM generate_series(1, 600) i;
ANALYZE se_fact, se_part, se_cust, se_ord;

\set SHOW_CONTEXT never
LOAD 'gpuops';
SET gpuops.cpu_setup_cost = 0;
SET gpuops.gpu_setup_cost = 0;
SET max_parallel_workers_per_gather = 0;
-- the node's plan is compared with the native plan's answer; keep the
-- planner from preferring its own joins on these small tables
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;

-- ---- a dimension's expressions in its plan ----

-- the verbose plan of q, without the Device line
CREATE FUNCTION pg_temp.plan_verbose(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
		IF line NOT LIKE '%Device: %' THEN
			RETURN NEXT line;
		END IF;
	END LOOP;
END
$$;
-- TPC-H Q14's shape: the LIKE is the part table's plan's output column
SELECT * FROM pg_temp.plan_verbose($q$
SELECT 100.00 * sum(CASE WHEN ptype LIKE 'PROMO%' THEN price * (1 - disc) ELSE 0 END)
	/ sum(price * (1 - disc))
FROM se_fact f JOIN se_part p ON f.pk = p.pk WHERE f.q < 40$q$);
SELECT pg_temp.check($$
SELECT (100.00 * sum(CASE WHEN ptype LIKE 'PROMO%' THEN price * (1 - disc) ELSE 0 END)
	/ sum(price * (1 - disc)))::text AS promo
FROM se_fact f JOIN se_part p ON f.pk = p.pk WHERE f.q < 40 AND f.id <> 4321$$);
-- grouped by expressions over the dimension (NULL ptype: a NULL group)
SELECT pg_temp.check($$
SELECT ptype LIKE '%BRASS' AS brass, psize > 25 AS big, count(*), sum(q) AS sq,
	   sum(price)::text AS sp
FROM se_fact f JOIN se_part p ON f.pk = p.pk GROUP BY 1, 2$$);
SELECT pg_temp.check($$
SELECT f.q % 5 AS g, ptype ILIKE 'promo%' OR psize = 3 AS p, count(x)
FROM se_fact f JOIN se_part p ON f.pk = p.pk GROUP BY 1, 2$$);
-- outside aggregates, an expression over a grouping key is computed above
-- the node from the key (not moved into the dimension's plan)
SELECT pg_temp.check($$
SELECT ptype, ptype = 'PROMO BRASS' AS b, psize, psize = 3 AS three, count(*)
FROM se_fact f JOIN se_part p ON f.pk = p.pk GROUP BY ptype, psize$$);
-- in FILTER, NOT LIKE, CASE keys, COALESCE, NULL tests
SELECT pg_temp.check($$
SELECT f.q % 7 AS g,
	   count(*) FILTER (WHERE ptype NOT LIKE 'PROMO%') AS c,
	   sum(price) FILTER (WHERE ptype LIKE 'PROMO_BRASS')::text AS s1,
	   sum(CASE WHEN ptype IS NULL THEN 1 ELSE 0 END) AS s2,
	   max(CASE WHEN COALESCE(ptype, 'none') = 'none' THEN x END) AS m
FROM se_fact f JOIN se_part p ON f.pk = p.pk GROUP BY 1$$);
SELECT pg_temp.check($$
SELECT CASE WHEN ptype LIKE 'PROMO%' THEN 'promo' WHEN ptype IS NULL THEN 'none'
			ELSE 'other' END AS kind, count(*), avg(q)
FROM se_fact f JOIN se_part p ON f.pk = p.pk GROUP BY 1 HAVING count(*) > 10$$);
-- TPC-H Q12's shape: a CASE over char(15) inside sum(), two dimensions
SELECT pg_temp.check($$
SELECT f.q % 3 AS g,
	   sum(CASE WHEN prio = '1-URGENT' OR prio = '2-HIGH' THEN 1 ELSE 0 END) AS high,
	   sum(CASE WHEN prio <> '1-URGENT' AND prio <> '2-HIGH' THEN 1 ELSE 0 END) AS low,
	   count(*) FILTER (WHERE ptype IN ('PROMO BRASS', 'LARGE COPPER'))
FROM se_fact f JOIN se_ord o ON f.ok = o.ok JOIN se_part p ON f.pk = p.pk
GROUP BY 1$$);
-- an expression over a snowflake's two tables (orders and customers)
SELECT pg_temp.check($$
SELECT c.seg = 'A' OR o.prio = '1-URGENT' AS hot, count(*), sum(f.q)
FROM se_fact f JOIN se_ord o ON f.ok = o.ok JOIN se_cust c ON o.ck = c.ck
GROUP BY 1$$);

-- small batches, and worker processes (the dimension's tables, computed
-- columns included, reach them from the backend)
SET gpuops.debug_chunk_size = 512;
SELECT pg_temp.check($$
SELECT ptype LIKE 'PROMO%' AS promo, count(*),
	   sum(CASE WHEN ptype LIKE '%BRASS' THEN price ELSE 0 END)::text AS s
FROM se_fact f JOIN se_part p ON f.pk = p.pk GROUP BY 1$$);
RESET gpuops.debug_chunk_size;
SET gpuops.parallel_workers = 2;
SET max_parallel_workers_per_gather = 2;
SET gpuops.threads = 16;
SELECT * FROM pg_temp.plan($$
SELECT ptype LIKE 'PROMO%' AS promo, count(*) FROM se_fact f JOIN se_part p ON f.pk = p.pk
GROUP BY 1$$);
SELECT pg_temp.check($$
SELECT ptype LIKE 'PROMO%' AS promo, f.q % 3 AS g, count(*),
	   sum(CASE WHEN ptype LIKE '%BRASS' THEN price ELSE 0 END)::text AS s
FROM se_fact f JOIN se_part p ON f.pk = p.pk GROUP BY 1, 2$$);
RESET gpuops.parallel_workers;
RESET max_parallel_workers_per_gather;
RESET gpuops.threads;

-- ---- what stays above the join ----

-- a left join's unmatched rows: IS NULL must see the NULL of no match
SELECT pg_temp.check($$
SELECT f.q % 4 AS g, count(*) FILTER (WHERE p.psize IS NULL) AS nulls, count(*)
FROM se_fact f LEFT JOIN se_part p ON f.pk = p.pk GROUP BY 1$$);
-- 100 / pd raises division by zero on part 999, which no row joins: not in
-- PostgreSQL's plan, not in the node's (pd is gathered, divided after)
SELECT pg_temp.check($$
SELECT f.q % 4 AS g, sum(100 / pd), count(*) FROM se_fact f JOIN se_part p ON f.pk = p.pk
GROUP BY 1$$);
-- where a joined row makes it raise the error, both raise it
SET gpuops.enabled = off;
SELECT pg_temp.try($$SELECT sum(100 / (pd - 1)) FROM se_fact f JOIN se_part p ON f.pk = p.pk$$);
SET gpuops.enabled = on;
SELECT pg_temp.try($$SELECT sum(100 / (pd - 1)) FROM se_fact f JOIN se_part p ON f.pk = p.pk$$);
-- a pattern with the escape character is not moved: LIKE then keeps the
-- native plan (the reader matches LIKE over the fact table's own columns
-- only, agg_like)
SELECT pg_temp.check($$
SELECT count(*) FILTER (WHERE ptype LIKE 'PROMO\_%') FROM se_fact f JOIN se_part p ON f.pk = p.pk$$);

-- ---- sums of numeric CASE branches of different scales ----

-- groups whose rows take one branch only show its scale; NaN in one group
SELECT pg_temp.check($$
SELECT q % 10 AS g,
	   sum(CASE WHEN q > 44 THEN price * (1 - disc) ELSE 0 END)::text AS s1,
	   sum(CASE WHEN q % 10 = 3 THEN price WHEN q > 20 THEN 1.5 ELSE 0 END)::text AS s2,
	   sum(CASE WHEN q > 1000 THEN price WHEN q < -1 THEN 0 END)::text AS s3,
	   sum(CASE WHEN q > 20 THEN price ELSE 0.5 END)::text AS s_nan
FROM se_fact GROUP BY 1$$);
SELECT pg_temp.check($$
SELECT sum(CASE WHEN q > 48 THEN price ELSE 0 END)::text AS s1,
	   sum(CASE WHEN q > 48 THEN price ELSE 0 END) FILTER (WHERE x > 3)::text AS s2,
	   sum(CASE WHEN q = 7 THEN 2.125 WHEN q = 8 THEN price ELSE 1 END)::text AS s3
FROM se_fact WHERE id <> 4321$$);
-- in HAVING and ORDER BY
SELECT pg_temp.check_order($$
SELECT q % 6 AS g, sum(CASE WHEN q > 30 THEN price ELSE 0 END)::text AS s
FROM se_fact WHERE id <> 4321 GROUP BY 1
HAVING sum(CASE WHEN q > 30 THEN price ELSE 0 END) > 0
ORDER BY sum(CASE WHEN q > 30 THEN price ELSE 0 END) DESC$$);
-- empty input: NULL
SELECT pg_temp.check($$
SELECT sum(CASE WHEN q > 30 THEN price ELSE 0 END)::text FROM se_fact WHERE q > 100$$);

DROP TABLE se_fact, se_part, se_cust, se_ord;
