#!/bin/bash
# The table of docs/shrinking.md: for each row's ARGS, the violation kind,
# what shrinking made smaller, its searches and its time (the best of three
# runs). Usage: scripts/shrink-table.sh (from the repository's root).
set -euo pipefail
explore=$(mktemp -d)/explore
go build -o "$explore" ./cmd/explore
while IFS= read -r args; do
  [ -z "$args" ] && continue
  best=""
  for _ in 1 2 3; do
    out=$("$explore" $args -json -quiet 2>/dev/null || true)
    ms=$(printf '%s' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["shrunk"]["elapsed_ms"])')
    if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $ms < $best else 1)"; then best=$ms; fi
  done
  printf '%s' "$out" | python3 -c '
import json, sys
s = json.load(sys.stdin)
args, best = sys.argv[1], float(sys.argv[2])
print("| `%s` | `%s` | %s | %d | %.1f |" % (args, s["violation"]["kind"], s["shrunk"]["text"], s["shrunk"]["searches"], best))
' "$args" "$best"
done <<'ROWS'
-protocol naive
-protocol naive -threads 3
-protocol naive -threads 2 -calls 2 -modules 2
-protocol naive -threads 2 -nest 1 -names 2
-protocol naive -threads 2 -calls 2 -syncthreads
-protocol naive -threads 64
-protocol naive -strategy random -runs 100 -seed 7
-protocol refcount-unregistered -threads 3
-protocol refcount-unregistered -threads 3 -atomicity free-threaded
-protocol refcount-unregistered -threads 2 -nest 1 -names 2 -atomicity free-threaded-overwrite
-protocol refcount-del -threads 3
-protocol refcount-del -threads 2 -calls 2 -modules 2 -atomicity free-threaded
-protocol refcount-del -threads 2 -calls 2 -syncthreads -atomicity free-threaded-overwrite
-protocol refcount-del -threads 8 -calls 2 -modules 2
-protocol merged -scenario testdata/scenarios/aborted-launch.txt
-protocol refcount-unregistered -atomicity free-threaded-overwrite -scenario testdata/scenarios/nested-two-modules.txt
-protocol naive -scenario testdata/scenarios/syncthreads.txt
-protocol refcount-del -strategy dfs -scenario testdata/scenarios/syncthreads.txt
ROWS
