#!/bin/bash
# The upstream table of docs/source.md: numba-cuda's own
# numba_cuda/numba/cuda/simulator/kernelapi.py at the commits of the fix
# and at the clone's HEAD, unmodified, checked with -source on every row
# of the verdict table, with CPython 3.11 and 3.12 under gil
# and gil-breaker: the verdict (the violation's kind) and the states.
# Usage: scripts/source-upstream-table.sh NUMBA_CUDA_GIT_DIR PYTHON3.11 PYTHON3.12
# (from the repository's root).
set -euo pipefail
repo=$1 py311=$2 py312=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/explore" ./cmd/explore
rows=("-threads 2" "-threads 3" "-threads 2 -calls 2 -modules 2" "-threads 2 -nest 1 -names 2" "-threads 2 -calls 2 -syncthreads" "-threads 2 -host-calls" "-threads 3 -branch" "-threads 2 -faults interrupt" "-threads 2 -faults raise" "-threads 2 -hosts 2")
echo "| commit | scenario | 3.11 gil | 3.11 gil-breaker | 3.12 gil | 3.12 gil-breaker |"
echo "|---|---|---|---|---|---|"
for c in 55a84eb7 8356c6f8 41104c54 67acbfbd d41b90d3 HEAD; do
	mkdir -p "$tmp/$c"
	git --git-dir "$repo" show "$c:numba_cuda/numba/cuda/simulator/kernelapi.py" > "$tmp/$c/kernelapi.py"
	for r in "${rows[@]}"; do
		line="| \`$c\` | \`$r\` |"
		for py in "$py311" "$py312"; do
			for a in gil gil-breaker; do
				# shellcheck disable=SC2086 # $r is several flags
				out=$(timeout -s KILL 300 "$tmp/explore" -source "$tmp/$c/kernelapi.py" -python "$py" -atomicity "$a" $r -quiet 2>&1 || true)
				# awk reads all of its input: a grep that stops at its first
				# match would end the echo with SIGPIPE, which pipefail makes
				# the script's end
				v=$(echo "$out" | awk '/^verdict:/ && !f { f = 1; print }' | sed -E 's/^verdict: (violation [a-z-]+|verified|incomplete).*/\1/')
				case $v in
				violation*) line="$line **violation** \`${v#violation }\` |" ;;
				*) line="$line $v ($(echo "$out" | awk 'match($0, /[0-9]+ states/) && !f { f = 1; print substr($0, RSTART, RLENGTH) }')) |" ;;
				esac
			done
		done
		echo "$line"
	done
done
