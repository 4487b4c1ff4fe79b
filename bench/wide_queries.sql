-- Dashboard queries over a wide table shaped like ClickBench's hits (105
-- columns, most of them narrow integers and short or empty strings, a few
-- long text columns): native (parallel workers) vs CPU face vs GPU face, the
-- best of 3 runs each, in one session, and whether each gpuops face returns
-- exactly the rows native returns (bench/faces.psql).
--   psql -v rows=N -f bench/wide_queries.sql
-- rows defaults to 10000000.  PGOPTIONS='-c bench.faces=native,cpu' leaves
-- a face out; with bench.faces=native it runs on a server without gpuops.
-- It drops and recreates the table hits in the current database.
--
-- hits has ClickBench's columns and types (names in lower case; no primary
-- key) and is made by one CREATE TABLE ... AS SELECT drawn from hashes of
-- the row number, so the data are the same on every run, in an order that
-- varies.  Parallel workers compute the rows and one backend inserts them:
-- on 2 cores about 20 s a million rows (15 s with -v copies=4; 25 s when
-- one backend also computed them), of which 8-12 s are the inserts, the
-- check of the NOT NULLs and the VACUUM ANALYZE, work that more cores do
-- not share: the rest is the workers'.  Event times are uniform over
-- 2013-07-01 .. 2013-07-31.  Keys are skewed (index = n * r^3 or n * r^4
-- for r uniform in 0..1, so a few values hold many rows): four counters hold
-- 70% of the rows (62 alone 40%); URLs (up to rows / 4 of them, 30-200
-- characters, 10% of the rows empty), referers (up to rows / 8, 25% empty),
-- titles (5,000, 10-120 characters, some empty), search phrases (3,000, 80%
-- of the rows empty; some words are not ASCII: ü, ж, 東京), users (up to
-- rows / 6) and regions.  0.1% of the rows have a URL over 2 kB, half of
-- them compressible (stored compressed in the row) and half not (stored out
-- of line in the TOAST table).  socialnetwork is NULL in 0.8% of the rows.
-- Most other text columns are short words or empty strings, as in the real
-- data.
--
-- The queries, most of them after ClickBench's, group by text keys (URL,
-- title, search phrase, phone model; with text quals such as url <> '' and
-- without them, with only integer filters), by one to three integer keys,
-- or aggregate the whole table; several filter on or aggregate columns near
-- the end of the row (clid, urlhash, the timings), behind many
-- variable-width ones.  Each query that keeps the first rows orders by its
-- aggregate and then its keys, so ties cannot change its rows.
\if :{?rows}
\else
\set rows 10000000
\endif
-- -v copies=N: rows / N rows generated, then N copies of them in all (where
-- generating every row would take too long; each key's rows are N times as
-- many, the distinct keys N times fewer)
\if :{?copies}
\else
\set copies 1
\endif
\ir setup.psql
SELECT :rows / :copies AS genrows \gset
SELECT greatest(1000, :genrows / 4) AS nurl, greatest(1000, :genrows / 8) AS nref,
       greatest(1000, :genrows / 6) AS nuser
\gset
-- The generator below runs in parallel workers, so every function it calls
-- is PARALLEL SAFE: one that is not (the default for a CREATE FUNCTION, even
-- an inlined one) keeps the whole query in one backend.  setup.psql's
-- pg_temp.rnd is not marked so.
ALTER FUNCTION pg_temp.rnd(int8, int8, int, int) PARALLEL SAFE;
-- a skewed index in 0..n-1 from the low 20 bits of h: n * r^3 (k = 3) or
-- n * r^4 (k = 4), r = (h & 0xFFFFF) / 2^20
CREATE FUNCTION pg_temp.sk(h int8, n int8, k int) RETURNS int8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE k WHEN 3 THEN ((h & 1048575) * (h & 1048575) >> 20) * (h & 1048575) >> 20
                 ELSE ((h & 1048575) * (h & 1048575) >> 20) * ((h & 1048575) * (h & 1048575) >> 20) >> 20
            END * n >> 20 $$;
-- 64 md5s of the index u, the padding of an incompressible long URL (a
-- function, since a correlated subquery would keep the generator out of the
-- workers)
CREATE FUNCTION pg_temp.pad(u int8) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT string_agg(md5(u::text || g.n), '' ORDER BY g.n) FROM generate_series(1, 64) g(n) $$;
-- hits's columns, types and NOT NULLs.  This table stays empty: the rows
-- come from a CREATE TABLE ... AS below, which makes hits again with these
-- columns, types and NOT NULLs.
DROP TABLE IF EXISTS hits;
CREATE TABLE hits (
	watchid bigint NOT NULL,
	javaenable smallint NOT NULL,
	title text NOT NULL,
	goodevent smallint NOT NULL,
	eventtime timestamp NOT NULL,
	eventdate date NOT NULL,
	counterid integer NOT NULL,
	clientip integer NOT NULL,
	regionid integer NOT NULL,
	userid bigint NOT NULL,
	counterclass smallint NOT NULL,
	os smallint NOT NULL,
	useragent smallint NOT NULL,
	url text NOT NULL,
	referer text NOT NULL,
	isrefresh smallint NOT NULL,
	referercategoryid smallint NOT NULL,
	refererregionid integer NOT NULL,
	urlcategoryid smallint NOT NULL,
	urlregionid integer NOT NULL,
	resolutionwidth smallint NOT NULL,
	resolutionheight smallint NOT NULL,
	resolutiondepth smallint NOT NULL,
	flashmajor smallint NOT NULL,
	flashminor smallint NOT NULL,
	flashminor2 text NOT NULL,
	netmajor smallint NOT NULL,
	netminor smallint NOT NULL,
	useragentmajor smallint NOT NULL,
	useragentminor varchar(255) NOT NULL,
	cookieenable smallint NOT NULL,
	javascriptenable smallint NOT NULL,
	ismobile smallint NOT NULL,
	mobilephone smallint NOT NULL,
	mobilephonemodel text NOT NULL,
	params text NOT NULL,
	ipnetworkid integer NOT NULL,
	traficsourceid smallint NOT NULL,
	searchengineid smallint NOT NULL,
	searchphrase text NOT NULL,
	advengineid smallint NOT NULL,
	isartifical smallint NOT NULL,
	windowclientwidth smallint NOT NULL,
	windowclientheight smallint NOT NULL,
	clienttimezone smallint NOT NULL,
	clienteventtime timestamp NOT NULL,
	silverlightversion1 smallint NOT NULL,
	silverlightversion2 smallint NOT NULL,
	silverlightversion3 integer NOT NULL,
	silverlightversion4 smallint NOT NULL,
	pagecharset text NOT NULL,
	codeversion integer NOT NULL,
	islink smallint NOT NULL,
	isdownload smallint NOT NULL,
	isnotbounce smallint NOT NULL,
	funiqid bigint NOT NULL,
	originalurl text NOT NULL,
	hid integer NOT NULL,
	isoldcounter smallint NOT NULL,
	isevent smallint NOT NULL,
	isparameter smallint NOT NULL,
	dontcounthits smallint NOT NULL,
	withhash smallint NOT NULL,
	hitcolor char(1) NOT NULL,
	localeventtime timestamp NOT NULL,
	age smallint NOT NULL,
	sex smallint NOT NULL,
	income smallint NOT NULL,
	interests smallint NOT NULL,
	robotness smallint NOT NULL,
	remoteip integer NOT NULL,
	windowname integer NOT NULL,
	openername integer NOT NULL,
	historylength smallint NOT NULL,
	browserlanguage text NOT NULL,
	browsercountry text NOT NULL,
	socialnetwork text,
	socialaction text NOT NULL,
	httperror smallint NOT NULL,
	sendtiming integer NOT NULL,
	dnstiming integer NOT NULL,
	connecttiming integer NOT NULL,
	responsestarttiming integer NOT NULL,
	responseendtiming integer NOT NULL,
	fetchtiming integer NOT NULL,
	socialsourcenetworkid smallint NOT NULL,
	socialsourcepage text NOT NULL,
	paramprice bigint NOT NULL,
	paramorderid text NOT NULL,
	paramcurrency text NOT NULL,
	paramcurrencyid smallint NOT NULL,
	openstatservicename text NOT NULL,
	openstatcampaignid text NOT NULL,
	openstatadid text NOT NULL,
	openstatsourceid text NOT NULL,
	utmsource text NOT NULL,
	utmmedium text NOT NULL,
	utmcampaign text NOT NULL,
	utmcontent text NOT NULL,
	utmterm text NOT NULL,
	fromtag text NOT NULL,
	hasgclid smallint NOT NULL,
	refererhash bigint NOT NULL,
	urlhash bigint NOT NULL,
	clid integer NOT NULL
);
-- The rows come from a CREATE TABLE ... AS, whose SELECT runs in parallel
-- workers while the leader inserts what they return (that of an INSERT ...
-- SELECT runs in one backend).  It takes hits's column names and types (as
-- casts) from the table above, and then its NOT NULLs.
SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) AS hits_cols,
       string_agg(format('%I::%s', attname, format_type(atttypid, atttypmod)), ', '
                  ORDER BY attnum) AS hits_casts,
       string_agg(format('ALTER %I SET NOT NULL', attname), ', ' ORDER BY attnum)
           FILTER (WHERE attnotnull) AS hits_notnull
FROM pg_attribute WHERE attrelid = 'hits'::regclass AND attnum > 0 AND NOT attisdropped
\gset
DROP TABLE hits;
-- A CREATE TABLE ... AS writes through a small ring of buffers, which
-- leaves hits out of shared buffers (an INSERT leaves it there).  The check
-- of the NOT NULLs reads hits back into them where it is at most a quarter
-- of shared_buffers; a larger table is read through a ring too, so then
-- pg_prewarm, where the server has it, reads it in for the check, the
-- VACUUM and the queries.
SELECT count(*) > 0 AS prewarm FROM pg_available_extensions
WHERE name = 'pg_prewarm' AND (installed_version IS NOT NULL OR
                               (SELECT rolsuper FROM pg_roles WHERE rolname = current_user))
\gset
\if :prewarm
CREATE EXTENSION IF NOT EXISTS pg_prewarm;
\endif
-- The row numbers, in a table that a parallel seq scan shares out among the
-- workers (a generate_series is not shared out), with as many workers as
-- max_parallel_workers_per_gather lets a Gather have.
DROP TABLE IF EXISTS hits_rownum;
CREATE UNLOGGED TABLE hits_rownum AS SELECT generate_series(1::int8, :genrows) AS i;
ALTER TABLE hits_rownum SET (parallel_workers = 1024);
-- The generator, a view with hits's columns.  Each row's values come from
-- eleven hashes of its number (a .. n), each cut into fields of bits; the
-- skewed indexes (url u, title t, referer rf, search phrase p, user uid)
-- pick strings built from hashes of the index (hu, ht, hr, hp) and words of
-- the small lists in w.  OFFSET NULL keeps each level a subquery, so that
-- its columns are computed once per row (OFFSET 0 would too, but
-- PostgreSQL 15 plans the query above a subquery with OFFSET 0 outside the
-- workers, as if it had a real OFFSET).
CREATE TEMP VIEW hits_gen AS
SELECT :hits_casts
FROM (SELECT
	hashint8extended(i, 0),							-- watchid
	((e & 7) <> 0)::int::smallint,						-- javaenable
	CASE WHEN t % 50 = 7 THEN '' ELSE						-- title
	left(concat_ws(' ', tw[1 + (ht & 31)], tw[1 + (ht >> 5 & 31)], tw[1 + (ht >> 10 & 31)],
				   tw[1 + (ht >> 15 & 31)], tw[1 + (ht >> 20 & 31)], tw[1 + (ht >> 25 & 31)],
				   tw[1 + (ht >> 30 & 31)], tw[1 + (ht >> 35 & 31)], tw[1 + (ht >> 40 & 31)],
				   tw[1 + (ht >> 45 & 31)], '-', host[1 + (ht >> 50 & 15)], md5(t::text)),
		 10 + ((ht >> 54 & 511) % 111)::int) END,
	((e >> 3 & 255) <> 0)::int::smallint,					-- goodevent
	et,									-- eventtime
	et::date,								-- eventdate
	CASE WHEN (a & 1023) < 410 THEN 62 WHEN (a & 1023) < 563 THEN 1704		-- counterid
		 WHEN (a & 1023) < 666 THEN 3922 WHEN (a & 1023) < 717 THEN 1143
		 ELSE 1 + pg_temp.sk(a >> 10, 100000, 3)::int END,
	(hashint8extended(uid, 32) >> 32)::int,					-- clientip
	((229 + 17 * pg_temp.sk(n >> 2, 4000, 3)) % 4000)::int,			-- regionid
	hashint8extended(uid, 31),						-- userid
	(e >> 11 & 3)::smallint,						-- counterclass
	pg_temp.sk(f, 100, 3)::smallint,					-- os
	pg_temp.sk(f >> 20, 100, 3)::smallint,					-- useragent
	url,
	referer,
	((e >> 13 & 15) = 0)::int::smallint,					-- isrefresh
	(c >> 20 & 15)::smallint,						-- referercategoryid
	pg_temp.sk(c >> 24, 4000, 3)::int,					-- refererregionid
	(hu >> 48 & 15)::smallint,						-- urlcategoryid
	pg_temp.sk(b >> 40, 4000, 3)::int,					-- urlregionid
	wid[1 + (f >> 40 & 15)],						-- resolutionwidth
	hgt[1 + (f >> 40 & 15)],						-- resolutionheight
	(ARRAY[24, 32, 16, 0]::smallint[])[1 + (f >> 44 & 3)],			-- resolutiondepth
	(f >> 46 & 15)::smallint,						-- flashmajor
	(f >> 50 & 7)::smallint,						-- flashminor
	CASE WHEN (f >> 53 & 3) = 0 THEN (f >> 55 & 255)::text ELSE '' END,	-- flashminor2
	(f >> 55 & 7)::smallint,						-- netmajor
	(f >> 58 & 7)::smallint,						-- netminor
	(a >> 50 & 63)::smallint,						-- useragentmajor
	(ARRAY['0', '1', '2', '3', 'D0', '4', '5', ''])[1 + (g >> 60 & 7)]::varchar(255),	-- useragentminor
	((e >> 17 & 7) <> 0)::int::smallint,					-- cookieenable
	((e >> 20 & 7) <> 0)::int::smallint,					-- javascriptenable
	((e >> 23 & 15) < 2)::int::smallint,					-- ismobile
	CASE WHEN (e >> 23 & 15) < 2 THEN 1 + (e >> 27 & 15) ELSE 0 END::smallint,	-- mobilephone
	CASE WHEN (e >> 23 & 15) < 2 THEN model[1 + (e >> 27 & 15)] ELSE '' END,	-- mobilephonemodel
	CASE WHEN (k >> 56 & 31) = 0 THEN 'p=' || (k >> 40 & 65535) ELSE '' END,	-- params
	(hashint8extended(uid, 33) >> 40)::int,					-- ipnetworkid
	((c >> 60 & 7) - 1)::smallint,						-- traficsourceid
	CASE WHEN (d & 1023) < 819 THEN 0 ELSE 1 + pg_temp.sk(d >> 30, 20, 3) END::smallint,	-- searchengineid
	CASE WHEN (d & 1023) < 819 THEN '' ELSE					-- searchphrase
	concat_ws(' ', pw[1 + (hp & 31)], pw[1 + (hp >> 5 & 31)],
			  CASE WHEN (hp >> 10 & 3) > 0 THEN pw[1 + (hp >> 12 & 31)] END,
			  CASE WHEN (hp >> 10 & 3) > 1 THEN pw[1 + (hp >> 17 & 31)] END) END,
	CASE WHEN (d >> 50 & 1023) < 993 THEN 0					-- advengineid
		 ELSE (ARRAY[2, 27, 13, 45, 3, 51, 4, 16])[1 + (d >> 60 & 7)] END::smallint,
	((e >> 60 & 7) = 0)::int::smallint,					-- isartifical
	greatest(0, wid[1 + (f >> 40 & 15)] - (g >> 50 & 255))::smallint,		-- windowclientwidth
	greatest(0, hgt[1 + (f >> 40 & 15)] - (g >> 50 & 255) - 100)::smallint,	-- windowclientheight
	tz,									-- clienttimezone
	et + ((m & 1023) - 512) * interval '1 second',				-- clienteventtime
	(m >> 10 & 7)::smallint,						-- silverlightversion1
	(m >> 13 & 7)::smallint,						-- silverlightversion2
	(m >> 16 & 65535)::int,							-- silverlightversion3
	(m >> 32 & 3)::smallint,						-- silverlightversion4
	charset[1 + (m >> 34 & 3)],						-- pagecharset
	(m >> 36 & 1023)::int,							-- codeversion
	((e >> 31 & 15) = 0)::int::smallint,					-- islink
	((e >> 35 & 63) = 0)::int::smallint,					-- isdownload
	(e >> 41 & 1)::smallint,						-- isnotbounce
	CASE WHEN (m >> 46 & 3) = 0 THEN 0 ELSE hashint8extended(uid, 34) END,	-- funiqid
	CASE WHEN (b >> 31 & 15) = 0 THEN url ELSE '' END,			-- originalurl
	(hashint8extended(i, 11) >> 32)::int,					-- hid
	(e >> 42 & 1)::smallint,						-- isoldcounter
	((e >> 43 & 7) = 0)::int::smallint,					-- isevent
	((e >> 46 & 7) = 0)::int::smallint,					-- isparameter
	((e >> 49 & 31) = 0)::int::smallint,					-- dontcounthits
	((e >> 54 & 31) = 0)::int::smallint,					-- withhash
	(ARRAY['E', 'F', 'D', 'T'])[1 + (m >> 48 & 3)]::char(1),			-- hitcolor
	et + tz * interval '1 hour',						-- localeventtime
	(k & 7)::smallint,							-- age
	(k >> 3 & 3)::smallint,							-- sex
	(k >> 5 & 3)::smallint,							-- income
	(k >> 7 & 1023)::smallint,						-- interests
	((k >> 17 & 3) = 0)::int::smallint,					-- robotness
	(hashint8extended(i, 12) >> 32)::int,					-- remoteip
	CASE WHEN (m >> 50 & 3) = 0 THEN -1 ELSE (m >> 52 & 1023)::int END,	-- windowname
	CASE WHEN (m >> 50 & 3) = 1 THEN (m >> 52 & 1023)::int ELSE -1 END,	-- openername
	(k >> 19 & 31)::smallint,						-- historylength
	lang[1 + (k >> 24 & 15)],						-- browserlanguage
	country[1 + (k >> 28 & 15)],						-- browsercountry
	CASE WHEN (k >> 32 & 127) = 0 THEN NULL					-- socialnetwork
		 WHEN (k >> 32 & 127) < 7 THEN net[1 + (k >> 32 & 127)] ELSE '' END,
	CASE WHEN (k >> 32 & 127) < 4 THEN (ARRAY['', 'like', 'share', 'post'])[1 + (k >> 32 & 3)]	-- socialaction
		 ELSE '' END,
	CASE WHEN (k >> 39 & 255) = 0 THEN 404 ELSE 0 END::smallint,		-- httperror
	pg_temp.sk(g, 2000, 3)::int,						-- sendtiming
	pg_temp.sk(g >> 20, 500, 3)::int,					-- dnstiming
	pg_temp.sk(g >> 40, 1000, 3)::int,					-- connecttiming
	pg_temp.sk(h, 3000, 3)::int,						-- responsestarttiming
	(pg_temp.sk(h, 3000, 3) + (h >> 20 & 255))::int,				-- responseendtiming
	pg_temp.sk(h >> 40, 5000, 3)::int,					-- fetchtiming
	CASE WHEN (k >> 32 & 127) < 7 THEN (k >> 32 & 127) ELSE 0 END::smallint,	-- socialsourcenetworkid
	'',									-- socialsourcepage
	CASE WHEN (h >> 28 & 63) = 0 THEN h >> 30 & 1048575 ELSE 0 END,		-- paramprice
	CASE WHEN (h >> 28 & 63) = 0 THEN left(md5(i::text), 10) ELSE '' END,	-- paramorderid
	CASE WHEN (h >> 28 & 63) = 0 THEN (ARRAY['RUB', 'USD', 'EUR', 'UAH'])[1 + (h >> 60 & 3)]	-- paramcurrency
		 ELSE '' END,
	CASE WHEN (h >> 28 & 63) = 0 THEN 1 + (h >> 60 & 3) ELSE 0 END::smallint,	-- paramcurrencyid
	'',									-- openstatservicename
	'',									-- openstatcampaignid
	'',									-- openstatadid
	'',									-- openstatsourceid
	CASE WHEN (m >> 62 & 1) = 0 AND (k >> 50 & 3) = 0 THEN utm[1 + (k >> 52 & 7)] ELSE '' END,	-- utmsource
	CASE WHEN (m >> 62 & 1) = 0 AND (k >> 50 & 3) = 0 THEN 'cpc' ELSE '' END,	-- utmmedium
	CASE WHEN (m >> 62 & 1) = 0 AND (k >> 50 & 3) = 0 THEN 'c' || (k >> 52 & 255) ELSE '' END,	-- utmcampaign
	'',									-- utmcontent
	'',									-- utmterm
	'',									-- fromtag
	((k >> 60 & 7) = 0)::int::smallint,					-- hasgclid
	CASE WHEN referer = '' THEN 0 ELSE hashtextextended(referer, 0) END,	-- refererhash
	CASE WHEN url = '' THEN 0 ELSE hashtextextended(url, 0) END,		-- urlhash
	CASE WHEN (k >> 47 & 15) = 0 THEN 1 + pg_temp.sk(k >> 20, 3000, 3) ELSE 0 END::int	-- clid
FROM (SELECT x2.*, w.*,
             -- url: 10% of the rows empty, 0.1% over 2 kB
             CASE WHEN (b & 1023) < 102 THEN ''
                  ELSE left(concat('https://', host[1 + (hu & 15)], '/', u, '/', sec[1 + (hu >> 4 & 15)], '/',
                                   sec[1 + (hu >> 8 & 15)], '/', md5(u::text), '.html?from=', sec[1 + (hu >> 12 & 15)],
                                   '&q=', concat_ws('+', sec[1 + (hu >> 16 & 15)], sec[1 + (hu >> 20 & 15)],
                                                    sec[1 + (hu >> 24 & 15)], sec[1 + (hu >> 28 & 15)],
                                                    sec[1 + (hu >> 32 & 15)], sec[1 + (hu >> 36 & 15)]),
                                   '&utm_source=', host[1 + (hu >> 40 & 15)], '&sid=', md5(hu::text)),
                            30 + ((hu >> 52 & 255) % 171)::int) ||
                       CASE WHEN (b & 1023) < 1023 THEN ''
                            WHEN (b >> 10 & 1) = 0 THEN '&pad=' || repeat(md5(u::text), 64)
                            ELSE '&pad=' || pg_temp.pad(u) END
             END AS url,
             -- referer: 25% of the rows empty
             CASE WHEN (n & 3) = 0 THEN ''
                  ELSE left(concat('https://', host[1 + (hr & 15)], '/', sec[1 + (hr >> 4 & 15)], '?q=',
                                   concat_ws('+', tw[1 + (hr >> 8 & 31)], tw[1 + (hr >> 13 & 31)],
                                             tw[1 + (hr >> 18 & 31)], tw[1 + (hr >> 23 & 31)]),
                                   '&r=', rf, '&', md5(rf::text), '/', sec[1 + (hr >> 28 & 15)], '/',
                                   sec[1 + (hr >> 32 & 15)], '/', md5(hr::text), '.html'),
                            30 + ((hr >> 52 & 255) % 171)::int)
             END AS referer
      FROM (SELECT x1.*,
                   timestamp '2013-07-01' + s * interval '1 second' AS et,
                   u, hashint8extended(u, 21) AS hu,
                   t, hashint8extended(t, 22) AS ht,
                   rf, hashint8extended(rf, 23) AS hr,
                   hashint8extended(pg_temp.sk(d >> 10, 3000, 3), 24) AS hp,
                   pg_temp.sk(a >> 30, :nuser, 3) AS uid,
                   ((m >> 56 & 31) % 27 - 12)::smallint AS tz
            FROM (SELECT i, hashint8extended(i, 1) AS a, hashint8extended(i, 2) AS b,
                         hashint8extended(i, 3) AS c, hashint8extended(i, 4) AS d,
                         hashint8extended(i, 5) AS e, hashint8extended(i, 6) AS f,
                         hashint8extended(i, 7) AS g, hashint8extended(i, 8) AS h,
                         hashint8extended(i, 9) AS k, hashint8extended(i, 10) AS m,
                         hashint8extended(i, 14) AS n,
                         pg_temp.rnd(i, 13, 0, 31 * 86400 - 1) AS s
                  FROM hits_rownum OFFSET NULL) x1,
                 LATERAL (SELECT pg_temp.sk(x1.b >> 11, :nurl, 4) AS u, pg_temp.sk(x1.c, 5000, 3) AS t,
                                 pg_temp.sk(x1.c >> 24, :nref, 3) AS rf) ix
            OFFSET NULL) x2,
           -- the word lists
           (SELECT '{ex.ru,ex.com,shop.ex.ru,news.ex.ru,mail.ex.ru,auto.ex.ru,video.ex.com,maps.ex.ru,m.ex.ru,market.ex.ru,sport.ex.ru,music.ex.net,games.ex.org,tv.ex.ru,kino.ex.ru,forum.ex.net}'::text[] AS host,
                   '{catalog,news,item,search,cart,profile,photo,video,article,category,product,list,page,view,show,detail}'::text[] AS sec,
                   '{Главная,Новости,купить,цены,отзывы,каталог,weather,forecast,online,free,download,video,Москва,недорого,фото,best,price,review,shop,map,Погода,музыка,games,sale,квартиры,авто,news,sport,movies,music,travel,maps}'::text[] AS tw,
                   '{купить,квартиру,weather,москва,über,größe,東京,ホテル,жильё,цена,отзывы,schuhe,münchen,tokyo,hotel,cheap,flights,рецепт,пицца,café,журнал,ёлка,car,rent,news,today,music,download,free,online,map,ticket}'::text[] AS pw,
                   '{iPad,iPhone,GT-I9300,GT-I9100,HTC One,Lumia 920,Nexus 4,GT-N7100,Xperia Z,GT-S5830,Galaxy S4,iPod,Nokia N8,MI 2,Ascend P6,Optimus G}'::text[] AS model,
                   '{1366,1920,1280,1024,1440,1600,1680,1360,360,768,320,1536,800,1280,1920,0}'::smallint[] AS wid,
                   '{768,1080,1024,768,900,900,1050,768,640,1024,480,864,600,800,1200,0}'::smallint[] AS hgt,
                   '{utf-8,windows-1251,koi8-r,utf-8}'::text[] AS charset,
                   '{ru,ru,ru,ru,ru,en,en,de,tr,uk,be,kk,fr,es,it,""}'::text[] AS lang,
                   '{ru,ru,ru,ru,ua,by,kz,us,de,tr,gb,fr,cn,jp,"",""}'::text[] AS country,
                   '{"",vkontakte,facebook,twitter,odnoklassniki,livejournal,google+}'::text[] AS net,
                   '{google,yandex,begun,direct,vk,mail,facebook,adfox}'::text[] AS utm) w
      OFFSET NULL) x) g(:hits_cols);
-- With -v copies=N, hits gets the generated rows, then copies 2 .. N of
-- each row side by side: a second run of the generator (each row computed
-- once for its N - 1 copies; none where N = 1), which costs less than
-- keeping the rows in a table between two statements, since the leader's
-- inserts, not the workers, take the time.  enable_parallel_append = off:
-- the workers run the two in turn (an Append of parallel plans), not side
-- by side (a Parallel Append).
BEGIN;
-- a Gather above the whole generator, whatever its cost
SET LOCAL parallel_setup_cost = 0;
SET LOCAL parallel_tuple_cost = 0;
SET LOCAL enable_parallel_append = off;
CREATE TABLE hits AS
TABLE hits_gen
UNION ALL
SELECT g.* FROM (SELECT * FROM hits_gen OFFSET NULL) g, generate_series(2, :copies) c
WHERE :copies > 1;
\if :prewarm
SELECT CASE WHEN pg_relation_size('hits') > pg_size_bytes(current_setting('shared_buffers')) / 4
            THEN pg_prewarm('hits') END AS prewarmed \gset
\endif
ALTER TABLE hits :hits_notnull;
COMMIT;
DROP VIEW hits_gen;
DROP TABLE hits_rownum;
VACUUM ANALYZE hits;
-- t_: text keys (with text quals and without them); i_: integer keys; p_:
-- no key.  July 2013 covers every row; the counters' filters and the
-- two-day range make the selective ones.
CREATE TEMP TABLE bq (n int, name text, q text);
INSERT INTO bq VALUES
 (1, 't_url_top', $q$SELECT url, count(*) AS c FROM hits WHERE counterid = 62 AND eventdate >= '2013-07-01' AND eventdate <= '2013-07-31' AND dontcounthits = 0 AND isrefresh = 0 AND url <> '' GROUP BY url ORDER BY c DESC, url LIMIT 10$q$),
 (2, 't_title_top', $q$SELECT title, count(*) AS c FROM hits WHERE counterid = 62 AND eventdate >= '2013-07-01' AND eventdate <= '2013-07-31' AND dontcounthits = 0 AND isrefresh = 0 AND title <> '' GROUP BY title ORDER BY c DESC, title LIMIT 10$q$),
 (3, 't_url_ints', $q$SELECT url, count(*) AS c FROM hits WHERE counterid = 62 AND eventdate >= '2013-07-01' AND eventdate <= '2013-07-31' AND isrefresh = 0 AND islink <> 0 AND isdownload = 0 GROUP BY url ORDER BY c DESC, url LIMIT 10$q$),
 (4, 't_url_all', $q$SELECT url, count(*) AS c FROM hits GROUP BY url ORDER BY c DESC, url LIMIT 10$q$),
 (5, 't_url_users', $q$SELECT url, count(*) AS c, count(DISTINCT userid) AS u FROM hits WHERE counterid = 1704 AND eventdate >= '2013-07-14' AND eventdate <= '2013-07-15' GROUP BY url ORDER BY c DESC, url LIMIT 10$q$),
 (6, 't_phrase_adv', $q$SELECT searchphrase, count(*) AS c FROM hits WHERE advengineid <> 0 GROUP BY searchphrase ORDER BY c DESC, searchphrase LIMIT 10$q$),
 (7, 't_phrase_top', $q$SELECT searchphrase, count(*) AS c FROM hits WHERE searchphrase <> '' GROUP BY searchphrase ORDER BY c DESC, searchphrase LIMIT 10$q$),
 (8, 't_phrase_users', $q$SELECT searchphrase, count(DISTINCT userid) AS u FROM hits WHERE searchphrase <> '' GROUP BY searchphrase ORDER BY u DESC, searchphrase LIMIT 10$q$),
 (9, 't_engine_phrase', $q$SELECT searchengineid, searchphrase, count(*) AS c FROM hits WHERE searchphrase <> '' GROUP BY searchengineid, searchphrase ORDER BY c DESC, searchengineid, searchphrase LIMIT 10$q$),
 (10, 't_phrase_minmax', $q$SELECT searchphrase, min(url) AS u, max(title) AS t, count(*) AS c FROM hits WHERE searchphrase <> '' GROUP BY searchphrase ORDER BY c DESC, searchphrase LIMIT 10$q$),
 (11, 't_model_users', $q$SELECT mobilephonemodel, count(DISTINCT userid) AS u FROM hits WHERE mobilephonemodel <> '' GROUP BY mobilephonemodel ORDER BY u DESC, mobilephonemodel LIMIT 10$q$),
 (12, 't_model_ints', $q$SELECT mobilephonemodel, count(*) AS c, sum(resolutionwidth) AS w FROM hits WHERE ismobile = 1 GROUP BY mobilephonemodel ORDER BY c DESC, mobilephonemodel$q$),
 (13, 't_title_all', $q$SELECT title, count(*) AS c, count(url) AS n FROM hits GROUP BY title ORDER BY c DESC, title LIMIT 10$q$),
 (14, 't_social', $q$SELECT socialnetwork, count(*) AS c, count(socialnetwork) AS n, count(DISTINCT userid) AS u FROM hits GROUP BY socialnetwork ORDER BY c DESC, socialnetwork$q$),
 (15, 't_lang_country', $q$SELECT browserlanguage, browsercountry, count(*) AS c, max(eventdate) AS d FROM hits WHERE clid = 0 GROUP BY browserlanguage, browsercountry ORDER BY c DESC, browserlanguage, browsercountry LIMIT 10$q$),
 (16, 't_counter_urllen', $q$SELECT counterid, avg(length(url)) AS l, count(*) AS c FROM hits WHERE url <> '' GROUP BY counterid HAVING count(*) > 100 ORDER BY l DESC, counterid LIMIT 25$q$),
 (17, 'i_region', $q$SELECT regionid, sum(advengineid) AS a, count(*) AS c, avg(resolutionwidth) AS w, count(DISTINCT userid) AS u FROM hits GROUP BY regionid ORDER BY c DESC, regionid LIMIT 10$q$),
 (18, 'i_user', $q$SELECT userid, count(*) AS c FROM hits GROUP BY userid ORDER BY c DESC, userid LIMIT 10$q$),
 (19, 'i_counter_user', $q$SELECT counterid, userid, count(*) AS c FROM hits WHERE eventdate >= '2013-07-01' AND eventdate <= '2013-07-31' GROUP BY counterid, userid ORDER BY c DESC, counterid, userid LIMIT 10$q$),
 (20, 'i_watch_ip', $q$SELECT watchid, clientip, count(*) AS c, sum(isrefresh) AS r, avg(resolutionwidth) AS w FROM hits WHERE searchphrase <> '' GROUP BY watchid, clientip ORDER BY c DESC, watchid, clientip LIMIT 10$q$),
 (21, 'i_traffic', $q$SELECT traficsourceid, searchengineid, advengineid, count(*) AS c FROM hits WHERE counterid = 62 AND eventdate >= '2013-07-01' AND eventdate <= '2013-07-31' AND isrefresh = 0 GROUP BY traficsourceid, searchengineid, advengineid ORDER BY c DESC, traficsourceid, searchengineid, advengineid LIMIT 10$q$),
 (22, 'i_urlhash_date', $q$SELECT urlhash, eventdate, count(*) AS c FROM hits WHERE counterid = 62 AND eventdate >= '2013-07-01' AND eventdate <= '2013-07-31' AND isrefresh = 0 AND traficsourceid IN (-1, 6) GROUP BY urlhash, eventdate ORDER BY c DESC, urlhash, eventdate LIMIT 10$q$),
 (23, 'i_clid', $q$SELECT clid, count(*) AS c, sum(fetchtiming) AS f, min(eventdate) AS d0, max(eventdate) AS d1 FROM hits WHERE clid <> 0 GROUP BY clid ORDER BY c DESC, clid LIMIT 10$q$),
 (24, 'p_count_adv', $q$SELECT count(*) FROM hits WHERE advengineid <> 0$q$),
 (25, 'p_sums', $q$SELECT sum(advengineid), count(*), avg(resolutionwidth) FROM hits$q$),
 (26, 'p_dates', $q$SELECT min(eventdate), max(eventdate) FROM hits$q$),
 (27, 'p_count_clid', $q$SELECT count(*), sum(resolutionwidth), avg(responsestarttiming) FROM hits WHERE clid <> 0$q$),
 (28, 'p_urlhash', $q$SELECT count(*), min(eventdate), max(eventdate), sum(fetchtiming) FROM hits WHERE urlhash > 0 AND refererhash <> 0$q$),
 (29, 't_phrase_minurl', $q$SELECT searchphrase, min(url) AS u, count(*) AS c FROM hits WHERE searchphrase <> '' GROUP BY searchphrase ORDER BY c DESC, searchphrase LIMIT 10$q$),
 (30, 't_counter_maxtitle', $q$SELECT counterid, max(title) AS t, count(*) AS c FROM hits WHERE counterid <> 62 GROUP BY counterid ORDER BY c DESC, counterid LIMIT 10$q$),
 (31, 't_phrase_news', $q$SELECT searchphrase, min(url) AS u, min(title) AS t, count(*) AS c, count(DISTINCT userid) AS d FROM hits WHERE title LIKE '%news%' AND url NOT LIKE '%.ex.ru%' AND searchphrase <> '' GROUP BY searchphrase ORDER BY c DESC, searchphrase LIMIT 10$q$),
 (32, 'l_width_band', $q$SELECT CASE WHEN resolutionwidth < 1024 THEN 'small' WHEN resolutionwidth < 1600 THEN 'medium' ELSE 'large' END AS band, CASE WHEN isrefresh = 0 THEN 'first view' ELSE 'refresh' END AS kind, count(*) AS c, avg(fetchtiming) AS f FROM hits WHERE counterid <> 62 GROUP BY 1, 2 ORDER BY c DESC, band, kind$q$);
\ir faces.psql
SELECT 'rows ' || count(*) || ', urls ' || count(DISTINCT url) || ', titles ' || count(DISTINCT title) ||
       ', phrases ' || count(DISTINCT searchphrase) || ', users ' || count(DISTINCT userid) ||
       ', table ' || pg_size_pretty(pg_relation_size('hits')) AS line FROM hits;
