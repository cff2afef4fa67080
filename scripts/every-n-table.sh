#!/bin/bash
# The table of docs/every-n.md: explore -threads all for every variant in
# every atomicity mode, on the default shape and on the shapes given as
# arguments (each one quoted string of shape flags), -timeout 120s per
# cell: the verdict, and for a proof the count it took (Cap), the abstract
# states and the seconds.
# Usage: scripts/every-n-table.sh ['-calls 2' ...] (from the repository's root).
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/explore" ./cmd/explore
variants=(naive refcount-unregistered refcount-del global-lock merged proposed merged-fix)
modes=(gil gil-breaker free-threaded free-threaded-overwrite)
shapes=("" "$@")
for shape in "${shapes[@]}"; do
	echo
	echo "\`-threads all ${shape}\`"
	echo
	echo "| variant | gil | gil-breaker | free-threaded | free-threaded-overwrite |"
	echo "|---|---|---|---|---|"
	for v in "${variants[@]}"; do
		line="| $v |"
		for a in "${modes[@]}"; do
			# shellcheck disable=SC2086
			out=$(timeout -s KILL 150 "$tmp/explore" -protocol "$v" -atomicity "$a" -threads all $shape -timeout 120s -json 2>"$tmp/err" || true)
			verdict=$(echo "$out" | grep -o '"verdict": "[a-z]*"' | cut -d'"' -f4 || true)
			case "$verdict" in
			verified)
				cap=$(echo "$out" | grep -o '"cap": [0-9]*' | awk '{print $2}')
				st=$(echo "$out" | grep -o '"abstract_states": [0-9]*' | awk '{print $2}')
				ms=$(echo "$out" | grep -o '"elapsed_ms": [0-9.]*' | awk '{print $2}')
				line="$line verified (Cap $cap, $st states, $(awk -v m="$ms" 'BEGIN{printf "%.1f", m/1000}') s) |" ;;
			refuted)
				n=$(echo "$out" | grep -o '"refuted_at": [0-9]*' | awk '{print $2}')
				k=$(echo "$out" | grep -o '"kind": "[a-z-]*"' | cut -d'"' -f4)
				line="$line refuted at N = $n ($k) |" ;;
			incomplete)
				r=$(echo "$out" | grep -o '"reason": "[^"]*"' | cut -d'"' -f4 | sed 's/|/\\|/g' | cut -c1-90)
				line="$line incomplete ($r) |" ;;
			*)
				line="$line refused ($(head -1 "$tmp/err" | sed 's/^explore: //; s/|/\\|/g' | cut -c1-90)) |" ;;
			esac
		done
		echo "$line"
	done
done
