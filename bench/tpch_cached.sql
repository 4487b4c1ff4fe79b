-- TPC-H's lineitem kept by the column cache (gpuops.cache_table): Q1, Q6 and
-- expressions against the same queries over plain columns, native (16
-- parallel workers) vs CPU face (the host cache) vs GPU face (the GPU
-- service's device copies), 3 runs each in one session, each query's rows
-- printed once a face.
--   psql -v rows=N -v copies=C -f bench/tpch_cached.sql
-- lineitem is :rows generated rows (bench/tpch_lineitem.psql) and C copies of
-- them with shifted order keys: rows=6000000 copies=9 is 60M rows (8.8 GB),
-- scale factor 10.  The cache needs gpuops.host_cache_memory and, for the
-- GPU face, gpuops.cache_memory_limit of about 4.5 GB at that size.
\if :{?copies}
\else
\set copies 0
\endif
\ir tpch_lineitem.psql
\echo generated
INSERT INTO lineitem SELECT l_orderkey + k * 10000000, l_partkey, l_suppkey, l_linenumber, l_quantity, l_extendedprice, l_discount, l_tax, l_returnflag, l_linestatus, l_shipdate, l_commitdate, l_receiptdate, l_shipinstruct, l_shipmode, l_comment FROM lineitem, generate_series(1, :copies) k;
VACUUM (FREEZE, ANALYZE) lineitem;
ALTER TABLE lineitem SET (parallel_workers = 16);
SELECT count(*) AS lineitem_rows FROM lineitem;
SELECT pg_size_pretty(pg_relation_size('lineitem')) AS lineitem_size;
\timing on
SELECT gpuops.cache_table('lineitem', auto_refresh => false) AS ranges_cached;
\timing off
SELECT relation, ranges, ranges_fresh, ranges_on_device, pg_size_pretty(host_bytes) host, pg_size_pretty(device_bytes) dev FROM gpuops.cache_status();
SET max_parallel_workers_per_gather = 16;
\set q6 'select sum(l_extendedprice * l_discount) as revenue from lineitem where l_shipdate >= date \'1994-01-01\' and l_shipdate < date \'1994-01-01\' + interval \'1\' year and l_discount between 0.06 - 0.01 and 0.06 + 0.01 and l_quantity < 24'
\set q6plain 'select sum(l_extendedprice) as revenue from lineitem where l_shipdate >= date \'1994-01-01\' and l_shipdate < date \'1994-01-01\' + interval \'1\' year and l_discount between 0.06 - 0.01 and 0.06 + 0.01 and l_quantity < 24'
\set k_expr 'select l_linenumber, sum(l_extendedprice * (1 - l_discount)) as a, sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as b, count(*) from lineitem where l_shipdate <= date \'1998-09-02\' group by l_linenumber'
\set k_plain 'select l_linenumber, sum(l_extendedprice) as a, sum(l_tax) as b, count(*) from lineitem where l_shipdate <= date \'1998-09-02\' group by l_linenumber'
\set q1plain 'select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty, sum(l_extendedprice) as sum_base_price, sum(l_discount) as sum_disc, sum(l_tax) as sum_tax, avg(l_quantity) as avg_qty, avg(l_extendedprice) as avg_price, avg(l_discount) as avg_disc, count(*) as count_order from lineitem where l_shipdate <= date \'1998-12-01\' - interval \'90\' day group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus'
\set q1 'select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty, sum(l_extendedprice) as sum_base_price, sum(l_extendedprice * (1 - l_discount)) as sum_disc_price, sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge, avg(l_quantity) as avg_qty, avg(l_extendedprice) as avg_price, avg(l_discount) as avg_disc, count(*) as count_order from lineitem where l_shipdate <= date \'1998-12-01\' - interval \'90\' day group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus'
-- each face: every query (its rows where :show), 3 timed runs, then the
-- EXPLAIN ANALYZE of three of them on the gpuops faces
SET gpuops.enabled = off;
\set face native
\set explain 0
\ir tpch_cached_face.psql
SET gpuops.enabled = on;
SET gpuops.device = cpu;
\set face cpu
\set explain 1
\ir tpch_cached_face.psql
SET gpuops.device = gpu;
\set face gpu
\ir tpch_cached_face.psql
