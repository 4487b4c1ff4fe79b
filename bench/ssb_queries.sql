-- The Star Schema Benchmark's 13 queries over generated SSB tables: native
-- (parallel workers) vs CPU face vs GPU face, the best of 3 runs each, in
-- one session, and whether each gpuops face returns exactly the rows native
-- returns (bench/faces.psql).
--   psql -v rows=N -f bench/ssb_queries.sql
-- rows (lineorder's) defaults to 6000000, about scale factor 1: SF = rows /
-- 6000000 sets customer (SF x 30,000), supplier (SF x 2,000) and part
-- (200,000 x (1 + log2 SF)) rows; date holds the 2,557 days of 1992-1998.
-- It drops and recreates lineorder, customer, supplier, part and date in
-- the current database.
--
-- The tables have the SSB specification's columns (the ones the queries
-- read, integers for lineorder's measures as SSB's dbgen writes them) and
-- are filled from hashes of the row numbers, so the data are the same on
-- every run: nations and regions as TPC-H's 25 and 5, cities as the first 9
-- characters of the nation and a digit, parts' manufacturer 1-5, category
-- 1-5 and brand 1-40, orders' dates uniform over the 7 years, quantity
-- 1-50, discount 0-10, tax 0-8, extended price = quantity x the part's
-- price, revenue = extended price x (100 - discount) / 100.  The queries
-- are the specification's, with its constants.  Four queries of the other
-- join kinds over the same tables follow them: a semi join (EXISTS), an
-- anti join (NOT EXISTS), a left join, and a semi join whose inner side is
-- lineorder itself.
--   psql -v rows=N -v cache=1 -f bench/ssb_queries.sql
-- with cache=1 caches lineorder first (gpuops.cache_table), so that the
-- gpuops faces join its cached ranges where they lie (the host cache on the
-- CPU face, the GPU service's device copies on the GPU face); it needs
-- gpuops.host_cache_memory (and gpuops.cache_memory_limit for the GPU face)
-- of about 48 bytes a row.
\if :{?rows}
\else
\set rows 6000000
\endif
\if :{?cache}
\else
\set cache 0
\endif
\ir setup.psql
SELECT greatest(1.0, :rows / 6000000.0) AS sf
\gset
SELECT greatest(1, (:sf * 30000)::int) AS custs, greatest(1, (:sf * 2000)::int) AS supps,
       (200000 * floor(1 + ln(:sf) / ln(2)))::int AS parts
\gset
DROP TABLE IF EXISTS lineorder, customer, supplier, part, date;
CREATE TEMP TABLE nation (n int, name text, region text);
INSERT INTO nation SELECT i - 1, (string_to_array('ALGERIA,ARGENTINA,BRAZIL,CANADA,EGYPT,ETHIOPIA,FRANCE,GERMANY,INDIA,INDONESIA,IRAN,IRAQ,JAPAN,JORDAN,KENYA,MOROCCO,MOZAMBIQUE,PERU,CHINA,ROMANIA,SAUDI ARABIA,VIETNAM,RUSSIA,UNITED KINGDOM,UNITED STATES', ','))[i],
       (string_to_array('AFRICA,AMERICA,AMERICA,AMERICA,MIDDLE EAST,AFRICA,EUROPE,EUROPE,ASIA,ASIA,MIDDLE EAST,MIDDLE EAST,ASIA,MIDDLE EAST,AFRICA,AFRICA,AFRICA,AMERICA,ASIA,EUROPE,MIDDLE EAST,ASIA,EUROPE,EUROPE,AMERICA', ','))[i]
FROM generate_series(1, 25) i;
CREATE TABLE date (d_datekey int PRIMARY KEY, d_date date, d_year int,
	d_yearmonthnum int, d_yearmonth char(7), d_weeknuminyear int);
INSERT INTO date
SELECT to_char(d, 'YYYYMMDD')::int, d, extract(year FROM d)::int,
       to_char(d, 'YYYYMM')::int, to_char(d, 'MonYYYY'),
       (extract(doy FROM d)::int - 1) / 7 + 1
FROM generate_series(date '1992-01-01', date '1998-12-31', interval '1 day') g(d);
CREATE TABLE customer (c_custkey int PRIMARY KEY, c_name varchar(25),
	c_city char(10), c_nation char(15), c_region char(12));
INSERT INTO customer
SELECT i, 'Customer#' || lpad(i::text, 9, '0'),
       rpad(left(nation.name, 9), 9) || pg_temp.rnd(i, 2, 0, 9), nation.name, nation.region
FROM generate_series(1, :custs) i JOIN nation ON nation.n = pg_temp.rnd(i, 1, 0, 24);
CREATE TABLE supplier (s_suppkey int PRIMARY KEY, s_name char(25),
	s_city char(10), s_nation char(15), s_region char(12));
INSERT INTO supplier
SELECT i, 'Supplier#' || lpad(i::text, 9, '0'),
       rpad(left(nation.name, 9), 9) || pg_temp.rnd(i, 4, 0, 9), nation.name, nation.region
FROM generate_series(1, :supps) i JOIN nation ON nation.n = pg_temp.rnd(i, 3, 0, 24);
CREATE TABLE part (p_partkey int PRIMARY KEY, p_mfgr char(6), p_category char(7),
	p_brand1 char(9), p_price int);
INSERT INTO part
SELECT i, 'MFGR#' || m, 'MFGR#' || m || c, 'MFGR#' || m || c || b,
       90000 + (i / 10) % 20001 + 100 * (i % 1000)
FROM (SELECT i, pg_temp.rnd(i, 5, 1, 5) AS m, pg_temp.rnd(i, 6, 1, 5) AS c,
             pg_temp.rnd(i, 7, 1, 40) AS b
      FROM generate_series(1, :parts) i) x;
-- lineorder's rows come from a CREATE TABLE ... AS whose SELECT runs in
-- parallel workers (that of an INSERT ... SELECT runs in one backend), over
-- a table of row numbers that a parallel seq scan shares out among them (a
-- generate_series is not shared out); the leader only inserts.
ALTER FUNCTION pg_temp.rnd(int8, int8, int, int) PARALLEL SAFE;
CREATE UNLOGGED TABLE lineorder_rownum AS SELECT generate_series(0::int8, :rows - 1) AS i;
ALTER TABLE lineorder_rownum SET (parallel_workers = 1024);
BEGIN;
SET LOCAL parallel_setup_cost = 0;
SET LOCAL parallel_tuple_cost = 0;
CREATE TABLE lineorder AS
SELECT (i / 4 + 1)::int AS lo_orderkey, (i % 4 + 1)::int AS lo_linenumber,
       pg_temp.rnd(i, 11, 1, :custs) AS lo_custkey, p AS lo_partkey,
       pg_temp.rnd(i, 12, 1, :supps) AS lo_suppkey,
       to_char(date '1992-01-01' + pg_temp.rnd(i, 13, 0, 2556), 'YYYYMMDD')::int AS lo_orderdate,
       q AS lo_quantity, q * (90000 + (p / 10) % 20001 + 100 * (p % 1000)) / 100 AS lo_extendedprice,
       dc AS lo_discount,
       q * (90000 + (p / 10) % 20001 + 100 * (p % 1000)) / 100 * (100 - dc) / 100 AS lo_revenue,
       6 * (90000 + (p / 10) % 20001 + 100 * (p % 1000)) / 1000 AS lo_supplycost,
       pg_temp.rnd(i, 16, 0, 8) AS lo_tax
FROM (SELECT i, pg_temp.rnd(i, 10, 1, :parts) AS p, pg_temp.rnd(i, 14, 1, 50) AS q,
             pg_temp.rnd(i, 15, 0, 10) AS dc
      FROM lineorder_rownum) x;
COMMIT;
DROP TABLE lineorder_rownum;
VACUUM ANALYZE lineorder, customer, supplier, part, date;
SELECT :cache = 1 AS cache_it
\gset
\if :cache_it
\timing on
SELECT gpuops.cache_table('lineorder', auto_refresh => false) AS ranges_cached;
\timing off
SELECT relation, ranges, ranges_fresh, ranges_on_device, pg_size_pretty(host_bytes) host,
       pg_size_pretty(device_bytes) dev FROM gpuops.cache_status();
\endif
CREATE TEMP TABLE bq (n int, name text, q text);
INSERT INTO bq VALUES
 (1, 'q1.1', 'select sum(lo_extendedprice*lo_discount) as revenue from lineorder, date
	where lo_orderdate = d_datekey and d_year = 1993 and lo_discount between 1 and 3
	and lo_quantity < 25'),
 (2, 'q1.2', 'select sum(lo_extendedprice*lo_discount) as revenue from lineorder, date
	where lo_orderdate = d_datekey and d_yearmonthnum = 199401
	and lo_discount between 4 and 6 and lo_quantity between 26 and 35'),
 (3, 'q1.3', 'select sum(lo_extendedprice*lo_discount) as revenue from lineorder, date
	where lo_orderdate = d_datekey and d_weeknuminyear = 6 and d_year = 1994
	and lo_discount between 5 and 7 and lo_quantity between 26 and 35'),
 (4, 'q2.1', 'select sum(lo_revenue), d_year, p_brand1 from lineorder, date, part, supplier
	where lo_orderdate = d_datekey and lo_partkey = p_partkey and lo_suppkey = s_suppkey
	and p_category = ''MFGR#12'' and s_region = ''AMERICA''
	group by d_year, p_brand1 order by d_year, p_brand1'),
 (5, 'q2.2', 'select sum(lo_revenue), d_year, p_brand1 from lineorder, date, part, supplier
	where lo_orderdate = d_datekey and lo_partkey = p_partkey and lo_suppkey = s_suppkey
	and p_brand1 between ''MFGR#2221'' and ''MFGR#2228'' and s_region = ''ASIA''
	group by d_year, p_brand1 order by d_year, p_brand1'),
 (6, 'q2.3', 'select sum(lo_revenue), d_year, p_brand1 from lineorder, date, part, supplier
	where lo_orderdate = d_datekey and lo_partkey = p_partkey and lo_suppkey = s_suppkey
	and p_brand1 = ''MFGR#2239'' and s_region = ''EUROPE''
	group by d_year, p_brand1 order by d_year, p_brand1'),
 (7, 'q3.1', 'select c_nation, s_nation, d_year, sum(lo_revenue) as revenue
	from customer, lineorder, supplier, date
	where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_orderdate = d_datekey
	and c_region = ''ASIA'' and s_region = ''ASIA'' and d_year >= 1992 and d_year <= 1997
	group by c_nation, s_nation, d_year order by d_year asc, revenue desc'),
 (8, 'q3.2', 'select c_city, s_city, d_year, sum(lo_revenue) as revenue
	from customer, lineorder, supplier, date
	where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_orderdate = d_datekey
	and c_nation = ''UNITED STATES'' and s_nation = ''UNITED STATES''
	and d_year >= 1992 and d_year <= 1997
	group by c_city, s_city, d_year order by d_year asc, revenue desc'),
 (9, 'q3.3', 'select c_city, s_city, d_year, sum(lo_revenue) as revenue
	from customer, lineorder, supplier, date
	where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_orderdate = d_datekey
	and (c_city = ''UNITED KI1'' or c_city = ''UNITED KI5'')
	and (s_city = ''UNITED KI1'' or s_city = ''UNITED KI5'')
	and d_year >= 1992 and d_year <= 1997
	group by c_city, s_city, d_year order by d_year asc, revenue desc'),
 (10, 'q3.4', 'select c_city, s_city, d_year, sum(lo_revenue) as revenue
	from customer, lineorder, supplier, date
	where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_orderdate = d_datekey
	and (c_city = ''UNITED KI1'' or c_city = ''UNITED KI5'')
	and (s_city = ''UNITED KI1'' or s_city = ''UNITED KI5'') and d_yearmonth = ''Dec1997''
	group by c_city, s_city, d_year order by d_year asc, revenue desc'),
 (11, 'q4.1', 'select d_year, c_nation, sum(lo_revenue - lo_supplycost) as profit
	from date, customer, supplier, part, lineorder
	where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_partkey = p_partkey
	and lo_orderdate = d_datekey and c_region = ''AMERICA'' and s_region = ''AMERICA''
	and (p_mfgr = ''MFGR#1'' or p_mfgr = ''MFGR#2'')
	group by d_year, c_nation order by d_year, c_nation'),
 (12, 'q4.2', 'select d_year, s_nation, p_category, sum(lo_revenue - lo_supplycost) as profit
	from date, customer, supplier, part, lineorder
	where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_partkey = p_partkey
	and lo_orderdate = d_datekey and c_region = ''AMERICA'' and s_region = ''AMERICA''
	and (d_year = 1997 or d_year = 1998) and (p_mfgr = ''MFGR#1'' or p_mfgr = ''MFGR#2'')
	group by d_year, s_nation, p_category order by d_year, s_nation, p_category'),
 (13, 'q4.3', 'select d_year, s_city, p_brand1, sum(lo_revenue - lo_supplycost) as profit
	from date, customer, supplier, part, lineorder
	where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_partkey = p_partkey
	and lo_orderdate = d_datekey and s_nation = ''UNITED STATES''
	and (d_year = 1997 or d_year = 1998) and p_category = ''MFGR#14''
	group by d_year, s_city, p_brand1 order by d_year, s_city, p_brand1'),
 (14, 'semi', 'select d_year, sum(lo_revenue) from lineorder, date
	where lo_orderdate = d_datekey and exists (select 1 from part
	where p_partkey = lo_partkey and p_category = ''MFGR#12'') group by d_year'),
 (15, 'anti', 'select d_year, count(*), sum(lo_revenue) from lineorder, date
	where lo_orderdate = d_datekey and not exists (select 1 from supplier
	where s_suppkey = lo_suppkey and s_region = ''AMERICA'') group by d_year'),
 (16, 'left', 'select c_nation, count(*), sum(lo_revenue) from lineorder
	left join customer on lo_custkey = c_custkey and c_region = ''ASIA'' group by c_nation'),
 (17, 'semi_big', 'select c_nation, count(*) from customer where exists (select 1
	from lineorder where lo_custkey = c_custkey and lo_discount = 10) group by c_nation');
\ir faces.psql
SELECT 'lineorder ' || (SELECT count(*) FROM lineorder) || ', customer ' || :custs ||
       ', supplier ' || :supps || ', part ' || :parts || ', date ' ||
       (SELECT count(*) FROM date) AS line;
