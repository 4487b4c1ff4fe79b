#!/bin/bash
# Installs what building and testing gpuops needs, when it is missing:
# PostgreSQL 15 with its server headers (PGXS), Debian's pg_virtualenv, and
# SQLsmith (scripts/sqlsmith.sh), and Python 3 (scripts/check_layout.py).
# Needs root (apt-get) only when something is missing.
set -euo pipefail
PGV=${PGV:-15}
need=()
for p in "postgresql-$PGV" "postgresql-server-dev-$PGV" postgresql-common make gcc sqlsmith python3; do
	dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "gpuops setup: missing packages: ${need[*]}; install them as root (apt-get install ${need[*]})" >&2
		exit 2
	fi
	echo "gpuops setup: installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# the extension is built for the server that pg_config names
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/$PGV/bin/pg_config}
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
	echo "gpuops setup: nvcc found, building with CUDA"
else
	echo "gpuops setup: no nvcc, building for the CPU only"
fi
