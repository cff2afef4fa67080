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

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
threads="4 5"

die() { echo "instructions: $*" >&2; exit 2; }
say() { echo "instructions: $*" >&2; }

while [ $# -gt 0 ]; do
	case "$1" in
	--threads) threads=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument $1 (try --help)" ;;
	esac
done
for n in $threads; do
	[[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] || die "--threads: not a thread count: $n"
done

if ! command -v valgrind >/dev/null; then
	say "valgrind is not installed: the count needs its cachegrind tool"
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || die "need root (or sudo) to install valgrind; install it and rerun"
		sudo=sudo
	fi
	command -v apt-get >/dev/null || die "no apt-get to install valgrind; install it by hand and rerun"
	say "installing valgrind with apt-get (apt-get update && apt-get install -y valgrind)"
	$sudo apt-get update -qq >&2 || die "apt-get update failed"
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq valgrind >&2 || die "apt-get install valgrind failed"
	hash -r
	command -v valgrind >/dev/null || die "valgrind is still missing after apt-get install valgrind"
fi
command -v python3 >/dev/null || die "python3 is missing (it reads the JSON summary)"
GO=$(command -v go || true)
[ -n "$GO" ] || GO=/usr/local/go/bin/go
[ -x "$GO" ] || die "no go command (looked on the PATH and at /usr/local/go/bin/go)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
say "building ./cmd/explore"
(cd "$here" && "$GO" build -o "$work/explore" ./cmd/explore) || die "go build failed"

echo "| threads | steps | instructions | per step |"
echo "|---|---|---|---|"
for n in $threads; do
	say "$n threads under cachegrind (about 50 times slower than without)"
	# asyncpreemptoff: no preemption signals, which valgrind delivers slowly
	GODEBUG=asyncpreemptoff=1 valgrind --tool=cachegrind --cache-sim=no \
		--cachegrind-out-file="$work/cg.out" --log-file="$work/log" \
		"$work/explore" -protocol merged -threads "$n" -strategy dfs -workers 1 -quiet -json >"$work/summary.json" 2>"$work/stderr" ||
		die "$n threads: explore under valgrind failed (see its log: $(tail -n 3 "$work/log" | tr '\n' ' '))"
	steps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"])' "$work/summary.json")
	ir=$(sed -n 's/^==[0-9]*== I *refs: *//p' "$work/log" | tr -d ,)
	[ -n "$ir" ] || die "$n threads: no instruction count in valgrind's log"
	python3 -c 'import sys; s, i = int(sys.argv[2]), int(sys.argv[3]); print(f"| {sys.argv[1]} | {s:,} | {i:,} | {i/s:.0f} |")' "$n" "$steps" "$ir"
done
