#!/bin/bash
# The scenario table of docs/merged_fix.md: merged-fix (or the variant
# given) on every file of testdata/scenarios and testdata/merged-fix, with
# one host and with two (the file's own hosts line replaced), in every
# atomicity mode: the verdict (and the violation's kind) and the states
# stored, strategy auto, -timeout 100s per cell.
# Usage: scripts/merged-fix-table.sh [VARIANT] (from the repository's root).
set -euo pipefail
variant=${1:-merged-fix}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/explore" ./cmd/explore
modes=(gil gil-breaker free-threaded free-threaded-overwrite)
echo "| scenario | hosts | gil | gil-breaker | free-threaded | free-threaded-overwrite |"
echo "|---|---|---|---|---|---|"
for f in testdata/scenarios/*.txt testdata/merged-fix/*.txt; do
	for h in 1 2; do
		sc="$tmp/$(basename "$f")"
		{ grep -v '^hosts ' "$f"; [ "$h" = 2 ] && echo "hosts 2"; } > "$sc"
		line="| \`${f#testdata/}\` | $h |"
		for a in "${modes[@]}"; do
			out=$(timeout -s KILL 130 "$tmp/explore" -protocol "$variant" -scenario "$sc" -atomicity "$a" -timeout 100s -quiet -json 2>"$tmp/err" || true)
			v=$(echo "$out" | grep -o '"verdict": "[a-z-]*"' | cut -d'"' -f4 || true)
			if [ -z "$v" ]; then
				line="$line refused ($(head -1 "$tmp/err" | sed 's/^explore: scenario [^ ]*: //; s/ (.*//; s/|/\\|/g')) |"
				continue
			fi
			s=$(echo "$out" | grep -o '"states": [0-9]*' | awk '{print $2}')
			k=$(echo "$out" | grep -o '"kind": "[a-z-]*"' | head -1 | cut -d'"' -f4 || true)
			[ -n "$k" ] && v="$v $k"
			line="$line $v ($s states) |"
		done
		echo "$line"
	done
done
