#!/bin/bash
# The table of docs/proposed_fix.md, "The world it is verified in": proposed on
# each scenario in each atomicity mode, its verdict, states and time.
# Usage: scripts/proposed-table.sh (from the repository's root).
set -euo pipefail
explore=$(mktemp -d)/explore
go build -o "$explore" ./cmd/explore
# rows: label|args
rows=(
"\`-threads 2\`|-threads 2"
"\`-threads 3\`|-threads 3"
"\`-threads 2 -calls 2 -modules 2\`|-threads 2 -calls 2 -modules 2"
"\`-threads 2 -nest 1 -names 2\`|-threads 2 -nest 1 -names 2"
"\`-threads 2 -calls 2 -syncthreads\`|-threads 2 -calls 2 -syncthreads"
"\`-threads 2 -host-calls\`|-threads 2 -host-calls"
"\`-threads 3 -hosts 2\`|-threads 3 -hosts 2"
"\`-threads 3 -hosts 2 -host-calls\`|-threads 3 -hosts 2 -host-calls"
)
for f in two-hosts aborted-launch host-call-after-abort syncthreads device-syncthreads nested-two-modules aliases host-calls; do rows+=("\`$f.txt\`|-scenario testdata/scenarios/$f.txt"); done
for r in "${rows[@]}"; do
  label=${r%%|*}; args=${r#*|}
  line="| $label |"
  for a in gil gil-breaker free-threaded free-threaded-overwrite; do
    out=$("$explore" -protocol proposed $args -atomicity $a -quiet -json 2>/dev/null)
    v=$(echo "$out" | grep -o '"verdict": "[a-z-]*"' | cut -d'"' -f4); s=$(echo "$out" | grep -o '"states": [0-9]*' | awk '{print $2}'); ms=$(echo "$out" | grep -o '"elapsed_ms": [0-9.]*' | awk '{printf "%.1f", $2}')
    line="$line $v, $s states, $ms ms |"
  done
  echo "$line"
done
