-- TPC-H Q1 and Q6 and three dashboard queries over a generated TPC-H
-- lineitem table: native (parallel workers) vs CPU face vs GPU face, the best
-- of 3 runs each, in one session, and whether each gpuops face returns
-- exactly the rows native returns (EXCEPT ALL both ways).
--   psql -v rows=N [-v cached=1] -f bench/tpch_queries.sql
-- rows defaults to 6000000 (about scale factor 1: SF = rows / 6000000 sets
-- the part and supplier key ranges).  PGOPTIONS='-c bench.faces=native,cpu'
-- leaves a face out; with bench.faces=native it runs on a server without
-- gpuops.  It drops and recreates the table lineitem in the current database.
--
-- lineitem has the specification's column types (identifiers as integer, as
-- dbgen's dss.ddl) and is filled by one INSERT ... SELECT following dbgen's
-- rules (TPC-H 4.2.3), drawn from hashes of the order and line numbers, so
-- the data are the same on every run: 1..7 lines per order, sparse order keys
-- (8 of each 32), order dates uniform in 1992-01-01 .. 1998-08-02 (ENDDATE
-- - 151 days), quantity 1..50, discount 0.00..0.10, tax 0.00..0.08,
-- extendedprice = quantity * the part's retail price, ship/commit/receipt
-- dates, return flag and line status against CURRENTDATE 1995-06-17, ship
-- mode and instructions from the spec's lists, comments of 10..43 characters
-- of the spec's grammar words.
--
-- Q1 and Q6 are written as the specification writes them, with its
-- validation parameters: Q1 DELTA = 90; Q6 DATE = 1994-01-01,
-- DISCOUNT = 0.06, QUANTITY = 24.  PostgreSQL does not take the leading
-- field precision of Q1's "interval '90' day (3)", so it reads
-- "interval '90' day".  d1-d3 are dashboard queries with expression keys and
-- count(DISTINCT ...).
\if :{?rows}
\else
\set rows 6000000
\endif
\ir setup.psql
SELECT greatest(1, :rows / 30) AS parts,		-- SF * 200,000
       greatest(1, :rows / 600) AS supps,		-- SF * 10,000
       ceil(:rows * 1.02 / 4)::int + 100 AS orders	-- 4 lines per order on average
\gset
DROP TABLE IF EXISTS lineitem;
CREATE TABLE lineitem (
	l_orderkey integer NOT NULL,
	l_partkey integer NOT NULL,
	l_suppkey integer NOT NULL,
	l_linenumber integer NOT NULL,
	l_quantity numeric(15,2) NOT NULL,
	l_extendedprice numeric(15,2) NOT NULL,
	l_discount numeric(15,2) NOT NULL,
	l_tax numeric(15,2) NOT NULL,
	l_returnflag char(1) NOT NULL,
	l_linestatus char(1) NOT NULL,
	l_shipdate date NOT NULL,
	l_commitdate date NOT NULL,
	l_receiptdate date NOT NULL,
	l_shipinstruct char(25) NOT NULL,
	l_shipmode char(10) NOT NULL,
	l_comment varchar(44) NOT NULL
);
INSERT INTO lineitem
SELECT okey, partkey,
       -- PART_SUPP_BRIDGE: the part's supplier number si (0..3)
       (partkey + si * (:supps / 4 + (partkey - 1) / :supps)) % :supps + 1,
       l, qty,
       -- P_RETAILPRICE in cents: 90000 + ((partkey / 10) mod 20001) + 100 * (partkey mod 1000)
       (qty * (90000 + (partkey / 10) % 20001 + 100 * (partkey % 1000)))::numeric / 100,
       disc::numeric / 100, tax::numeric / 100,
       CASE WHEN odate + ship + receipt <= date '1995-06-17'
            THEN CASE WHEN rf = 0 THEN 'R' ELSE 'A' END ELSE 'N' END,
       CASE WHEN odate + ship > date '1995-06-17' THEN 'O' ELSE 'F' END,
       odate + ship, odate + commit, odate + ship + receipt,
       (ARRAY['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'])[instr],
       (ARRAY['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'])[mode],
       -- a piece of len characters from off of a sentence of at least 71
       substr(a[1 + (h & 15)] || ' ' || n[1 + (h >> 4 & 15)] || ' ' || v[1 + (h >> 8 & 15)] || ' ' ||
              d[1 + (h >> 12 & 15)] || ' ' || p[1 + (h >> 16 & 15)] || ' the ' || a[1 + (h >> 20 & 15)] || ' ' ||
              n[1 + (h >> 24 & 15)] || '. ' || d[1 + (h >> 28 & 15)] || ' ' || a[1 + (h >> 32 & 15)] || ' ' ||
              n[1 + (h >> 36 & 15)] || ' ' || v[1 + (h >> 40 & 15)] || ' ' || p[1 + (h >> 44 & 15)] || ' the ' ||
              n[1 + (h >> 48 & 15)] || '.', 1 + off, len)
FROM (SELECT o / 8 * 32 + o % 8 AS okey,		-- dbgen's mk_sparse: 1..7, 32..39, 64..
             l,
             date '1992-01-01' + pg_temp.rnd(o, 1, 0, date '1998-08-02' - date '1992-01-01') AS odate,
             pg_temp.rnd(o * 8 + l, 2, 1, :parts) AS partkey,
             pg_temp.rnd(o * 8 + l, 3, 0, 3) AS si,
             pg_temp.rnd(o * 8 + l, 4, 1, 50) AS qty,
             pg_temp.rnd(o * 8 + l, 5, 0, 10) AS disc,
             pg_temp.rnd(o * 8 + l, 6, 0, 8) AS tax,
             pg_temp.rnd(o * 8 + l, 7, 1, 121) AS ship,
             pg_temp.rnd(o * 8 + l, 8, 30, 90) AS commit,
             pg_temp.rnd(o * 8 + l, 9, 1, 30) AS receipt,
             pg_temp.rnd(o * 8 + l, 10, 0, 1) AS rf,
             pg_temp.rnd(o * 8 + l, 11, 1, 4) AS instr,
             pg_temp.rnd(o * 8 + l, 12, 1, 7) AS mode,
             pg_temp.rnd(o * 8 + l, 13, 0, 15) AS off,
             pg_temp.rnd(o * 8 + l, 14, 10, 43) AS len,
             hashint8extended(o * 8 + l, 15) AS h
      FROM (SELECT o, generate_series(1, pg_temp.rnd(o, 0, 1, 7)) AS l
            FROM (SELECT generate_series(1::int8, :orders) AS o) os) ol
      LIMIT :rows) x,
     -- the comment's words: from the spec's grammar lists, 4 bits of h each
     (SELECT '{special,pending,unusual,express,furious,sly,careful,blithe,quick,fluffy,regular,final,ironic,even,bold,silent}'::text[] AS a,
             '{packages,requests,accounts,deposits,foxes,ideas,theodolites,pinto beans,instructions,dependencies,excuses,platelets,asymptotes,courts,dolphins,pearls}'::text[] AS n,
             '{sleep,wake,are,cajole,haggle,nag,use,boost,affix,detect,integrate,maintain,nod,was,lose,serve}'::text[] AS v,
             '{sometimes,always,never,furiously,slyly,carefully,blithely,quickly,fluffily,slowly,quietly,regularly,finally,ironically,evenly,boldly}'::text[] AS d,
             '{about,above,according to,across,after,against,along,among,around,atop,before,beneath,beside,between,by,despite}'::text[] AS p) w;
VACUUM ANALYZE lineitem;
-- -v cached=1: the queries read lineitem from the column cache (gpuops.cache_table)
\if :{?cached}
VACUUM (FREEZE) lineitem;
SELECT gpuops.cache_table('lineitem', auto_refresh => false) AS ranges_cached;
\endif
CREATE TEMP TABLE bq (n int, name text, q text);
INSERT INTO bq VALUES
 (1, 'q1', $q$
select
	l_returnflag,
	l_linestatus,
	sum(l_quantity) as sum_qty,
	sum(l_extendedprice) as sum_base_price,
	sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
	sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
	avg(l_quantity) as avg_qty,
	avg(l_extendedprice) as avg_price,
	avg(l_discount) as avg_disc,
	count(*) as count_order
from
	lineitem
where
	l_shipdate <= date '1998-12-01' - interval '90' day
group by
	l_returnflag,
	l_linestatus
order by
	l_returnflag,
	l_linestatus
$q$),
 (2, 'q6', $q$
select
	sum(l_extendedprice * l_discount) as revenue
from
	lineitem
where
	l_shipdate >= date '1994-01-01'
	and l_shipdate < date '1994-01-01' + interval '1' year
	and l_discount between 0.06 - 0.01 and 0.06 + 0.01
	and l_quantity < 24
$q$),
 (3, 'd1', 'SELECT date_trunc(''month'', l_shipdate), l_shipmode, count(*), sum(l_quantity) FROM lineitem GROUP BY 1, 2'),
 (4, 'd2', 'SELECT extract(year FROM l_shipdate), count(DISTINCT l_suppkey) FROM lineitem GROUP BY 1'),
 (5, 'd3', 'SELECT l_returnflag, avg(l_discount), max(l_extendedprice) FROM lineitem GROUP BY 1');
\ir faces.psql
SELECT 'rows ' || count(*) || ', orders ' || count(DISTINCT l_orderkey) || ', parts ' || :parts ||
       ', suppliers ' || :supps AS line FROM lineitem;

-- native's answers, to check the data against the specification's
\echo q1 native rows
SELECT * FROM bt_q1_native ORDER BY 1, 2;
\echo q6 native revenue
SELECT * FROM bt_q6_native;
