-- TPC-H's join queries over generated TPC-H tables: native (parallel
-- workers) vs CPU face vs GPU face, the best of 3 runs each, in one session,
-- and whether each gpuops face returns exactly the rows native returns
-- (bench/faces.psql).
--   psql -v rows=N -f bench/tpch_queries.sql; psql -v rows=N -f bench/tpch_joins.sql
-- It needs the lineitem table of bench/tpch_queries.sql (run first, with the
-- same rows) and drops and recreates orders, customer, part, supplier,
-- partsupp, nation and region beside it, with the specification's column
-- types and dbgen's rules (TPC-H 4.2.3), drawn from hashes of the keys so
-- the data are the same on every run:
--   orders: one per lineitem order key, its date the one lineitem's dates
--     were drawn from, its status and total price from its lines, customers
--     whose key is not a multiple of 3, priorities from the spec's list;
--   customer (SF x 150,000), supplier (SF x 10,000), part (SF x 200,000)
--     and partsupp (4 suppliers a part, by lineitem's PART_SUPP_BRIDGE),
--     with nations, market segments, part types, brands and containers from
--     the spec's lists; nation and region are the spec's 25 and 5.
-- The queries are the specification's, with its validation parameters.
-- Those the node takes and those it leaves native are both shown.
\if :{?rows}
\else
\set rows 6000000
\endif
\ir setup.psql
SELECT greatest(1, :rows / 30) AS parts,		-- SF * 200,000
       greatest(1, :rows / 600) AS supps,		-- SF * 10,000
       greatest(1, :rows / 40) AS custs,		-- SF * 150,000
       greatest(1, :rows / 6000) AS clerks		-- SF * 1,000
\gset
DROP TABLE IF EXISTS orders, customer, part, supplier, partsupp, nation, region;
CREATE TABLE region (r_regionkey integer NOT NULL, r_name char(25) NOT NULL,
	r_comment varchar(152));
INSERT INTO region SELECT i - 1,
	(ARRAY['AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST'])[i], 'region ' || i
FROM generate_series(1, 5) i;
CREATE TABLE nation (n_nationkey integer NOT NULL, n_name char(25) NOT NULL,
	n_regionkey integer NOT NULL, n_comment varchar(152));
INSERT INTO nation SELECT i - 1,
	(string_to_array('ALGERIA,ARGENTINA,BRAZIL,CANADA,EGYPT,ETHIOPIA,FRANCE,GERMANY,INDIA,INDONESIA,IRAN,IRAQ,JAPAN,JORDAN,KENYA,MOROCCO,MOZAMBIQUE,PERU,CHINA,ROMANIA,SAUDI ARABIA,VIETNAM,RUSSIA,UNITED KINGDOM,UNITED STATES', ','))[i],
	(ARRAY[0, 1, 1, 1, 4, 0, 3, 3, 2, 2, 4, 4, 2, 4, 0, 0, 0, 1, 2, 3, 4, 2, 3, 3, 1])[i],
	'nation ' || i
FROM generate_series(1, 25) i;
CREATE TABLE part (p_partkey integer NOT NULL, p_name varchar(55) NOT NULL,
	p_mfgr char(25) NOT NULL, p_brand char(10) NOT NULL, p_type varchar(25) NOT NULL,
	p_size integer NOT NULL, p_container char(10) NOT NULL,
	p_retailprice numeric(15,2) NOT NULL, p_comment varchar(23) NOT NULL);
INSERT INTO part
SELECT i, c[pg_temp.rnd(i, 30, 1, 24)] || ' ' || c[pg_temp.rnd(i, 31, 1, 24)] || ' ' ||
	c[pg_temp.rnd(i, 32, 1, 24)] || ' ' || c[pg_temp.rnd(i, 33, 1, 24)] || ' ' ||
	c[pg_temp.rnd(i, 34, 1, 24)],
	'Manufacturer#' || m, 'Brand#' || m || pg_temp.rnd(i, 36, 1, 5),
	(ARRAY['STANDARD', 'SMALL', 'MEDIUM', 'LARGE', 'ECONOMY', 'PROMO'])[pg_temp.rnd(i, 37, 1, 6)] || ' ' ||
	(ARRAY['ANODIZED', 'BURNISHED', 'PLATED', 'POLISHED', 'BRUSHED'])[pg_temp.rnd(i, 38, 1, 5)] || ' ' ||
	(ARRAY['TIN', 'NICKEL', 'BRASS', 'STEEL', 'COPPER'])[pg_temp.rnd(i, 39, 1, 5)],
	pg_temp.rnd(i, 40, 1, 50),
	(ARRAY['SM', 'LG', 'MED', 'JUMBO', 'WRAP'])[pg_temp.rnd(i, 41, 1, 5)] || ' ' ||
	(ARRAY['CASE', 'BOX', 'BAG', 'JAR', 'PKG', 'PACK', 'CAN', 'DRUM'])[pg_temp.rnd(i, 42, 1, 8)],
	(90000 + (i / 10) % 20001 + 100 * (i % 1000))::numeric / 100, 'part ' || i
FROM (SELECT i, pg_temp.rnd(i, 35, 1, 5) AS m FROM generate_series(1, :parts) i) x,
	(SELECT '{almond,antique,aquamarine,azure,beige,bisque,black,blanched,blue,blush,brown,burlywood,chartreuse,chiffon,chocolate,coral,forest,frosted,green,honeydew,ivory,khaki,lavender,linen}'::text[] AS c) w;
CREATE TABLE supplier (s_suppkey integer NOT NULL, s_name char(25) NOT NULL,
	s_address varchar(40) NOT NULL, s_nationkey integer NOT NULL, s_phone char(15) NOT NULL,
	s_acctbal numeric(15,2) NOT NULL, s_comment varchar(101) NOT NULL);
INSERT INTO supplier
SELECT i, 'Supplier#' || lpad(i::text, 9, '0'), 'address ' || pg_temp.rnd(i, 50, 1, 1000000), n,
	(n + 10) || '-' || pg_temp.rnd(i, 51, 100, 999) || '-' || pg_temp.rnd(i, 52, 100, 999) || '-' ||
	pg_temp.rnd(i, 53, 1000, 9999),
	pg_temp.rnd(i, 54, -99999, 999999)::numeric / 100, 'supplier ' || i
FROM (SELECT i, pg_temp.rnd(i, 55, 0, 24) AS n FROM generate_series(1, :supps) i) x;
CREATE TABLE partsupp (ps_partkey integer NOT NULL, ps_suppkey integer NOT NULL,
	ps_availqty integer NOT NULL, ps_supplycost numeric(15,2) NOT NULL,
	ps_comment varchar(199) NOT NULL);
INSERT INTO partsupp
SELECT p, (p + si * (:supps / 4 + (p - 1) / :supps)) % :supps + 1,
	pg_temp.rnd(p * 4 + si, 60, 1, 9999), pg_temp.rnd(p * 4 + si, 61, 100, 100000)::numeric / 100,
	'partsupp ' || p
FROM generate_series(1, :parts) p, generate_series(0, 3) si;
CREATE TABLE customer (c_custkey integer NOT NULL, c_name varchar(25) NOT NULL,
	c_address varchar(40) NOT NULL, c_nationkey integer NOT NULL, c_phone char(15) NOT NULL,
	c_acctbal numeric(15,2) NOT NULL, c_mktsegment char(10) NOT NULL,
	c_comment varchar(117) NOT NULL);
INSERT INTO customer
SELECT i, 'Customer#' || lpad(i::text, 9, '0'), 'address ' || pg_temp.rnd(i, 70, 1, 1000000), n,
	(n + 10) || '-' || pg_temp.rnd(i, 71, 100, 999) || '-' || pg_temp.rnd(i, 72, 100, 999) || '-' ||
	pg_temp.rnd(i, 73, 1000, 9999),
	pg_temp.rnd(i, 74, -99999, 999999)::numeric / 100,
	(ARRAY['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'MACHINERY', 'HOUSEHOLD'])[pg_temp.rnd(i, 75, 1, 5)],
	'customer ' || i
FROM (SELECT i, pg_temp.rnd(i, 76, 0, 24) AS n FROM generate_series(1, :custs) i) x;
CREATE TABLE orders (o_orderkey integer NOT NULL, o_custkey integer NOT NULL,
	o_orderstatus char(1) NOT NULL, o_totalprice numeric(15,2) NOT NULL,
	o_orderdate date NOT NULL, o_orderpriority char(15) NOT NULL, o_clerk char(15) NOT NULL,
	o_shippriority integer NOT NULL, o_comment varchar(79) NOT NULL);
INSERT INTO orders
SELECT okey, CASE WHEN c % 3 = 0 THEN c - 1 ELSE c END, status, total,
	-- lineitem's order date of order number o (okey = o / 8 * 32 + o % 8)
	date '1992-01-01' + pg_temp.rnd(o, 1, 0, date '1998-08-02' - date '1992-01-01'),
	(ARRAY['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'])[pg_temp.rnd(o, 80, 1, 5)],
	'Clerk#' || lpad(pg_temp.rnd(o, 81, 1, :clerks)::text, 9, '0'), 0, 'order ' || okey
FROM (SELECT l_orderkey AS okey, l_orderkey / 32 * 8 + l_orderkey % 32 AS o,
             CASE WHEN bool_and(l_linestatus = 'F') THEN 'F'
                  WHEN bool_and(l_linestatus = 'O') THEN 'O' ELSE 'P' END AS status,
             round(sum(l_extendedprice * (1 + l_tax) * (1 - l_discount)), 2) AS total
      FROM lineitem GROUP BY l_orderkey) x,
     LATERAL (SELECT pg_temp.rnd(x.o, 20, 1, :custs) AS c) cs;
ALTER TABLE region ADD PRIMARY KEY (r_regionkey);
ALTER TABLE nation ADD PRIMARY KEY (n_nationkey);
ALTER TABLE part ADD PRIMARY KEY (p_partkey);
ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey);
ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey);
ALTER TABLE customer ADD PRIMARY KEY (c_custkey);
ALTER TABLE orders ADD PRIMARY KEY (o_orderkey);
VACUUM ANALYZE orders, customer, part, supplier, partsupp, nation, region;
CREATE TEMP TABLE bq (n int, name text, q text);
INSERT INTO bq VALUES
 (3, 'q3', $q$
select l_orderkey, sum(l_extendedprice * (1 - l_discount)) as revenue, o_orderdate,
	o_shippriority
from customer, orders, lineitem
where c_mktsegment = 'BUILDING' and c_custkey = o_custkey and l_orderkey = o_orderkey
	and o_orderdate < date '1995-03-15' and l_shipdate > date '1995-03-15'
group by l_orderkey, o_orderdate, o_shippriority
order by revenue desc, o_orderdate limit 10$q$),
 (4, 'q4', $q$
select o_orderpriority, count(*) as order_count
from orders
where o_orderdate >= date '1993-07-01' and o_orderdate < date '1993-07-01' + interval '3' month
	and exists (select * from lineitem where l_orderkey = o_orderkey
		and l_commitdate < l_receiptdate)
group by o_orderpriority order by o_orderpriority$q$),
 (5, 'q5', $q$
select n_name, sum(l_extendedprice * (1 - l_discount)) as revenue
from customer, orders, lineitem, supplier, nation, region
where c_custkey = o_custkey and l_orderkey = o_orderkey and l_suppkey = s_suppkey
	and c_nationkey = s_nationkey and s_nationkey = n_nationkey and n_regionkey = r_regionkey
	and r_name = 'ASIA' and o_orderdate >= date '1994-01-01'
	and o_orderdate < date '1994-01-01' + interval '1' year
group by n_name order by revenue desc$q$),
 (7, 'q7', $q$
select supp_nation, cust_nation, l_year, sum(volume) as revenue
from (select n1.n_name as supp_nation, n2.n_name as cust_nation,
		extract(year from l_shipdate) as l_year, l_extendedprice * (1 - l_discount) as volume
	from supplier, lineitem, orders, customer, nation n1, nation n2
	where s_suppkey = l_suppkey and o_orderkey = l_orderkey and c_custkey = o_custkey
		and s_nationkey = n1.n_nationkey and c_nationkey = n2.n_nationkey
		and ((n1.n_name = 'FRANCE' and n2.n_name = 'GERMANY')
			or (n1.n_name = 'GERMANY' and n2.n_name = 'FRANCE'))
		and l_shipdate between date '1995-01-01' and date '1996-12-31') as shipping
group by supp_nation, cust_nation, l_year order by supp_nation, cust_nation, l_year$q$),
 (8, 'q8', $q$
select o_year, sum(case when nation = 'BRAZIL' then volume else 0 end) / sum(volume) as mkt_share
from (select extract(year from o_orderdate) as o_year, l_extendedprice * (1 - l_discount) as volume,
		n2.n_name as nation
	from part, supplier, lineitem, orders, customer, nation n1, nation n2, region
	where p_partkey = l_partkey and s_suppkey = l_suppkey and l_orderkey = o_orderkey
		and o_custkey = c_custkey and c_nationkey = n1.n_nationkey and n1.n_regionkey = r_regionkey
		and r_name = 'AMERICA' and s_nationkey = n2.n_nationkey
		and o_orderdate between date '1995-01-01' and date '1996-12-31'
		and p_type = 'ECONOMY ANODIZED STEEL') as all_nations
group by o_year order by o_year$q$),
 (9, 'q9', $q$
select nation, o_year, sum(amount) as sum_profit
from (select n_name as nation, extract(year from o_orderdate) as o_year,
		l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity as amount
	from part, supplier, lineitem, partsupp, orders, nation
	where s_suppkey = l_suppkey and ps_suppkey = l_suppkey and ps_partkey = l_partkey
		and p_partkey = l_partkey and o_orderkey = l_orderkey and s_nationkey = n_nationkey
		and p_name like '%green%') as profit
group by nation, o_year order by nation, o_year desc$q$),
 (10, 'q10', $q$
select c_custkey, c_name, sum(l_extendedprice * (1 - l_discount)) as revenue, c_acctbal,
	n_name, c_address, c_phone, c_comment
from customer, orders, lineitem, nation
where c_custkey = o_custkey and l_orderkey = o_orderkey and o_orderdate >= date '1993-10-01'
	and o_orderdate < date '1993-10-01' + interval '3' month and l_returnflag = 'R'
	and c_nationkey = n_nationkey
group by c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment
order by revenue desc limit 20$q$),
 (12, 'q12', $q$
select l_shipmode,
	sum(case when o_orderpriority = '1-URGENT' or o_orderpriority = '2-HIGH' then 1 else 0 end)
		as high_line_count,
	sum(case when o_orderpriority <> '1-URGENT' and o_orderpriority <> '2-HIGH' then 1 else 0 end)
		as low_line_count
from orders, lineitem
where o_orderkey = l_orderkey and l_shipmode in ('MAIL', 'SHIP')
	and l_commitdate < l_receiptdate and l_shipdate < l_commitdate
	and l_receiptdate >= date '1994-01-01' and l_receiptdate < date '1994-01-01' + interval '1' year
group by l_shipmode order by l_shipmode$q$),
 (14, 'q14', $q$
select 100.00 * sum(case when p_type like 'PROMO%' then l_extendedprice * (1 - l_discount)
	else 0 end) / sum(l_extendedprice * (1 - l_discount)) as promo_revenue
from lineitem, part
where l_partkey = p_partkey and l_shipdate >= date '1995-09-01'
	and l_shipdate < date '1995-09-01' + interval '1' month$q$),
 (15, 'x1', $q$
select n_name, count(*), sum(l_extendedprice * (1 - l_discount)) as revenue
from lineitem, supplier, nation
where l_suppkey = s_suppkey and s_nationkey = n_nationkey and l_shipdate >= date '1995-01-01'
group by n_name$q$),
 (16, 'x2', $q$
select o_orderpriority, count(*), sum(l_quantity)
from lineitem left join orders on l_orderkey = o_orderkey and o_orderdate >= date '1996-01-01'
group by o_orderpriority$q$),
 (17, 'x3', $q$
select l_returnflag, count(*), sum(l_extendedprice)
from lineitem
where not exists (select 1 from part where p_partkey = l_partkey and p_size < 10)
group by l_returnflag$q$);
\ir faces.psql
SELECT 'lineitem ' || (SELECT count(*) FROM lineitem) || ', orders ' ||
       (SELECT count(*) FROM orders) || ', customer ' || :custs || ', part ' || :parts ||
       ', supplier ' || :supps AS line;
