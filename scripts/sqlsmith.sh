#!/bin/bash
# scripts/sqlsmith.sh N: N random queries from SQLsmith, and N/2 random calls
# of the gpuops functions, against a throwaway cluster that preloads gpuops
# with its costs at 0 (so GpuOpsAgg is chosen wherever it can be), over a
# database of gpuops-shaped tables.  Reports the crashes found in the
# server's log and exits non-zero on any.
#
# The server binaries come from pg_config (the gpuops that `make install`
# put there); run as root it runs the cluster as user postgres (or
# SQLSMITH_USER).
#
# env: PG_CONFIG (pg_config of the server), BINDIR (overrides its --bindir),
#      GPUOPS_DEVICE=cpu|gpu|auto (default cpu), SEED (default 1),
#      SQLSMITH_TIME (seconds SQLsmith may run, default 1800),
#      CALLS (random function calls, default N/2),
#      SQLSMITH_KEEP=1 (keep the cluster's directory, for the log),
#      SQLSMITH_CONF (more lines for postgresql.conf, e.g.
#      "gpuops.running_groups = off" so that dense groups go to the GPU too)
set -uo pipefail
n=${1:?usage: scripts/sqlsmith.sh N}
seed=${SEED:-1}
dev=${GPUOPS_DEVICE:-cpu}
limit=${SQLSMITH_TIME:-1800}
PG_CONFIG=${PG_CONFIG:-pg_config}
bindir=${BINDIR:-$("$PG_CONFIG" --bindir)}
here=$(cd "$(dirname "$0")" && pwd)
command -v sqlsmith >/dev/null || { echo "sqlsmith: not installed (apt-get install sqlsmith)" >&2; exit 2; }

dir=$(mktemp -d /tmp/gpuops-sqlsmith.XXXXXX)
chmod 755 "$dir"
cd "$dir" || exit 2
as_pg=()
if [ "$(id -u)" = 0 ]; then
	chown "${SQLSMITH_USER:-postgres}" "$dir"
	as_pg=(runuser -u "${SQLSMITH_USER:-postgres}" --)
fi
port=$(( 20000 + RANDOM % 20000 ))
log=$dir/server.log
cleanup() {
	"${as_pg[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1
	[ -n "${SQLSMITH_KEEP:-}" ] || rm -rf "$dir"
}
trap cleanup EXIT

"${as_pg[@]}" "$bindir/initdb" -D "$dir/data" -A trust -U postgres >/dev/null || exit 2
cat >> "$dir/data/postgresql.conf" <<EOF
listen_addresses = ''
port = $port
unix_socket_directories = '$dir'
shared_preload_libraries = 'gpuops'
gpuops.device = '$dev'
gpuops.cpu_setup_cost = 0
gpuops.cpu_row_cost = 0
gpuops.gpu_setup_cost = 0
gpuops.gpu_row_cost = 0
gpuops.gpu_min_rows = 0
statement_timeout = '5s'
max_parallel_workers_per_gather = 2
parallel_setup_cost = 0
parallel_tuple_cost = 0
min_parallel_table_scan_size = 0
work_mem = '16MB'
log_min_messages = warning
log_min_error_statement = panic
fsync = off
${SQLSMITH_CONF:-}
EOF
"${as_pg[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$log" -w start >/dev/null || { cat "$log"; exit 2; }
psql=("${as_pg[@]}" "$bindir/psql" -X -q -h "$dir" -p "$port" -U postgres -v ON_ERROR_STOP=1)
"${psql[@]}" -d postgres -c "CREATE DATABASE smith" || exit 2
# as stdin: user postgres may not read the checkout
"${psql[@]}" -d smith <"$here/sqlsmith_data.sql" >/dev/null || exit 2

start=$(date +%s)
echo "== sqlsmith: $n queries, seed $seed, gpuops.device = '$dev' =="
# SQLsmith reconnects after a crash; the timeout bounds the whole run
"${as_pg[@]}" timeout "$limit" sqlsmith --verbose --exclude-catalog --seed="$seed" \
	--max-queries="$n" --target="host=$dir port=$port dbname=smith user=postgres" \
	>"$dir/sqlsmith.out" 2>"$dir/sqlsmith.err"
rc=$?
[ $rc -eq 124 ] && echo "sqlsmith: stopped after $limit s"
echo "sqlsmith: $(tr '\r' '\n' < "$dir/sqlsmith.err" | grep -E '^queries:' | tail -1)," \
	"$(( $(date +%s) - start )) s"

# how much reached the engine: GpuOpsAgg batches the GPU service served
"${psql[@]}" -d smith -At -c "SELECT 'GPU service: ' || coalesce(served::text, 'not running') || ' requests served, ' || coalesce(lost::text, '0') || ' lost' FROM gpuops.service()" 2>/dev/null

start=$(date +%s)
calls=${CALLS:-$(( n / 2 ))}
echo "== $calls random calls of the gpuops functions =="
"${psql[@]}" -d smith -v calls="$calls" -v seed="$seed" <"$here/sqlsmith_calls.sql" 2>&1 | tail -30
echo "calls: $(( $(date +%s) - start )) s"

# every crash restarts the cluster: the postmaster logs each one
crashes=$(grep -cE "terminated by signal|was terminated by exception|PANIC:" "$log")
echo "== crashes found in the server log: $crashes =="
if [ "$crashes" -gt 0 ]; then
	grep -E -A1 "terminated by signal|was terminated by exception|PANIC:" "$log" | head -40
	SQLSMITH_KEEP=1
	echo "log kept in $log"
	exit 1
fi
if [ $rc -ne 0 ] && [ $rc -ne 124 ]; then
	echo "sqlsmith failed (exit $rc):" >&2
	tail -c 1500 "$dir/sqlsmith.err" >&2
	exit 2
fi
exit 0
