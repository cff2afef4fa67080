#!/usr/bin/env bash
# instructions.sh: instructions per step of the exhaustive `dfs` search of
# `merged` on one worker, counted by valgrind's cachegrind (issue 3,
# throughput).
#
# Wall-clock speed on this project's VM drifts by a third over a day, and
# single runs spread by a fifth, so a change of a few percent cannot be
# seen in steps/s without many interleaved runs. The count of instructions
# a search executes does not drift: it is the same from run to run, and a
# change to the search's code moves it by what it saves or costs (memory
# stalls, which it does not count, matter most above 4 threads).
#
# For each thread count N it runs, under cachegrind,
#   explore -protocol merged -threads N -strategy dfs -workers 1 -quiet -json
# and prints one Markdown row: steps (from the JSON summary), instructions,
# and instructions per step. The count includes the process's start and
# the scenario's set-up, well under 1% of a 4-thread search.
#
# Usage: scripts/instructions.sh [--threads "4 5"]
#
# Needs: go, valgrind (installed with apt-get, Debian package valgrind,
# when missing), python3 (to read the JSON summary).
set -euo pipefail

prog=instructions
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
threads="4 5"

while [ $# -gt 0 ]; do
	case "$1" in
	--threads) threads=${2:?}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown argument $1 (try --help)" ;;
	esac
done
# shellcheck disable=SC2086 # the list is split on purpose
check_threads $threads

need_command valgrind valgrind "the count needs its cachegrind tool"
need_command python3 python3 "it reads the JSON summary"
find_go

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
say "building ./cmd/explore"
(cd "$here" && "$GO" build -o "$work/explore" ./cmd/explore) || die "go build failed"

echo "| threads | steps | instructions | per step |"
echo "|---|---|---|---|"
for n in $threads; do
	say "$n threads under cachegrind (about 50 times slower than without)"
	# asyncpreemptoff: no preemption signals, which valgrind delivers
	# slowly; GOMAXPROCS=1: valgrind runs one thread at a time, and with
	# two Ps the idle one's spinning (findRunnable) counted up to 20% more
	# instructions in some runs and none in others
	GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=cachegrind --cache-sim=no \
		--cachegrind-out-file="$work/cg.out" --log-file="$work/log" \
		"$work/explore" -protocol merged -threads "$n" -strategy dfs -workers 1 -quiet -json >"$work/summary.json" 2>"$work/stderr" ||
		die "$n threads: explore under valgrind failed (see its log: $(tail -n 3 "$work/log" | tr '\n' ' '))"
	steps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"])' "$work/summary.json")
	ir=$(sed -n 's/^==[0-9]*== I *refs: *//p' "$work/log" | tr -d ,)
	[ -n "$ir" ] || die "$n threads: no instruction count in valgrind's log"
	python3 -c 'import sys; s, i = int(sys.argv[2]), int(sys.argv[3]); print(f"| {sys.argv[1]} | {s:,} | {i:,} | {i/s:.0f} |")' "$n" "$steps" "$ir"
done
