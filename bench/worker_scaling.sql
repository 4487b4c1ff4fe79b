-- How the node's text-key and wide-key queries scale with worker processes,
-- and what a new session's first run costs against a warm one: EXPLAIN
-- ANALYZE (read, pinning and engine times, workers launched) of three
-- queries over the wide table of bench/wide_queries.sql (the URL top 10 of
-- one counter, the URL top 10 of all rows, ClickBench's WatchID, ClientIP
-- pairs), on the face bench.face names (gpu by default), native alongside.
--   psql -v rows=N -v only='^$' -f bench/wide_queries.sql   (the table)
--   psql -f bench/worker_scaling.sql
\if :{?face}
\else
\set face gpu
\endif
\set q1 'SELECT url, count(*) AS c FROM hits WHERE counterid = 62 AND eventdate >= ''2013-07-01'' AND eventdate <= ''2013-07-31'' AND dontcounthits = 0 AND isrefresh = 0 AND url <> '''' GROUP BY url ORDER BY c DESC, url LIMIT 10'
\set q2 'SELECT url, count(*) AS c FROM hits GROUP BY url ORDER BY c DESC, url LIMIT 10'
\set q3 'SELECT watchid, clientip, count(*) AS c, sum(isrefresh), avg(resolutionwidth) FROM hits GROUP BY watchid, clientip ORDER BY c DESC, watchid, clientip LIMIT 10'
\set e 'EXPLAIN (ANALYZE, COSTS OFF)'

-- new session, then warm, node and native
\c
\echo == q1 node new session
SET gpuops.device = :face;
:e :q1;
\echo == q1 node warm
:e :q1;
\c
\echo == q1 native new session
SET gpuops.enabled = off;
:e :q1;
\echo == q1 native warm
:e :q1;

-- worker processes, warm; the backend's DEBUG1 line tells how long it
-- waited for the workers and what merging their groups cost
\c
SET gpuops.device = :face;
SET client_min_messages = debug1;
:e :q1;
\echo == q1 workers 0
SET gpuops.parallel_workers = 0;
:e :q1;
\echo == q1 workers 2
SET gpuops.parallel_workers = 2;
:e :q1;
\echo == q1 workers 4
SET gpuops.parallel_workers = 4;
:e :q1;
\echo == q1 workers 8
SET gpuops.parallel_workers = 8;
:e :q1;
\echo == q1 workers 15
SET gpuops.parallel_workers = 15;
:e :q1;
\echo == q2 workers 0
SET gpuops.parallel_workers = 0;
:e :q2;
\echo == q2 workers 4
SET gpuops.parallel_workers = 4;
:e :q2;
\echo == q2 workers 15
SET gpuops.parallel_workers = 15;
:e :q2;
\echo == q3 workers 0
SET gpuops.parallel_workers = 0;
:e :q3;
\echo == q3 workers 4
SET gpuops.parallel_workers = 4;
:e :q3;
\echo == q3 workers 15
SET gpuops.parallel_workers = 15;
:e :q3;
RESET gpuops.parallel_workers;
