# Throwaway Citus clusters for test/citus: a coordinator and 2 workers on
# local ports, each preloading citus,gpuops.  Sourced by run.sh and bench.sh,
# which set: bindir, port0, limit (seconds), who (message prefix) and
# worker_conf (lines added to the workers' postgresql.conf).

# run a command as the clusters' user (CITUS_USER, default postgres; directly
# when not root), from /, which that user can read whoever owns the checkout
pg_user=${CITUS_USER:-postgres}
# the clusters' superuser role, the same name on every node and whatever the
# OS user or an inherited PGUSER, since Citus connects to the workers as it
pg_role=postgres
as_pg() {
	if [ "$(id -u)" = 0 ]; then (cd / && runuser -u "$pg_user" -- env LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}" "$@"); else "$@"; fi
}

base=$(mktemp -d /tmp/gpuops-citus.XXXXXX)
chmod 755 "$base"
[ "$(id -u)" = 0 ] && chown "$pg_user" "$base"
nodes=(coord w1 w2)
ports=("$port0" $((port0 + 1)) $((port0 + 2)))

# stop every cluster and remove the folder, on every way out
cleanup() {
	for n in "${nodes[@]}"; do
		[ -f "$base/$n/postmaster.pid" ] &&
			as_pg "$bindir/pg_ctl" -D "$base/$n" -m immediate -w stop >/dev/null 2>&1
	done
	rm -rf "$base"
}
trap cleanup EXIT
trap 'echo "$who interrupted" >&2; exit 1' INT TERM
# the whole run is bounded: past the limit the clusters are stopped, which
# ends any query still waiting, and the run fails
watchdog() {
	sleep "$limit" >/dev/null 2>&1 &
	local s=$!
	trap 'kill $s 2>/dev/null; exit 0' TERM
	wait $s || exit 0
	echo "$who failed: over ${limit}s, stopping the clusters" >&2
	touch "$base/timed-out"
	for n in "${nodes[@]}"; do
		as_pg "$bindir/pg_ctl" -D "$base/$n" -m immediate -w stop >/dev/null 2>&1
	done
}
watchdog &
watchdog_pid=$!
trap 'kill $watchdog_pid 2>/dev/null; wait $watchdog_pid 2>/dev/null; cleanup' EXIT

# psql on node $1 (0 coordinator, 1 and 2 workers), SQL on stdin or -c
q() {
	local p=${ports[$1]}; shift
	as_pg "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$base" -p "$p" -U "$pg_role" -d postgres "$@"
}

# initdb and start the three clusters, create the extensions, add the workers
cluster_start() {
	local i n
	for i in 0 1 2; do
		n=${nodes[$i]}
		as_pg "$bindir/initdb" -D "$base/$n" -U "$pg_role" -A trust -E UTF8 --locale=C.UTF-8 >/dev/null ||
			{ echo "$who failed: initdb $n" >&2; return 1; }
		cat >>"$base/$n/postgresql.conf" <<CONF
port = ${ports[$i]}
listen_addresses = 'localhost'
unix_socket_directories = '$base'
shared_preload_libraries = 'citus,gpuops'
max_connections = 200
fsync = off
log_min_messages = warning
CONF
		[ "$n" != coord ] && printf '%s\n' "$worker_conf" >>"$base/$n/postgresql.conf"
		as_pg "$bindir/pg_ctl" -D "$base/$n" -l "$base/$n.log" -w start >/dev/null ||
			{ echo "$who failed: cannot start $n" >&2; cat "$base/$n.log" >&2; return 1; }
	done
	for i in 1 2 0; do
		q $i -c "CREATE EXTENSION citus" -c "CREATE EXTENSION gpuops" ||
			{ echo "$who failed: CREATE EXTENSION on ${nodes[$i]}" >&2; return 1; }
	done
	q 0 -c "SELECT citus_add_node('localhost', ${ports[1]})" \
		-c "SELECT citus_add_node('localhost', ${ports[2]})" >/dev/null ||
		{ echo "$who failed: citus_add_node" >&2; return 1; }
}
