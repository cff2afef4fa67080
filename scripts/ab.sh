#!/usr/bin/env bash
# ab.sh: compares the search's speed at two commits, run in turn (issue 3,
# throughput).
#
# This project's VM runs the same binary anywhere from 7M to 10M steps/s
# over a day, and single runs spread by a sixth, so a change of 5% shows
# only when the two commits' benchmarks run in turn, each next to the
# other, many times. ab.sh builds the test binary of ./check at BASE and
# at NEW (default: the working tree), runs them in turn ROUNDS times on
# one core (-test.cpu 1), and prints for each benchmark the median
# steps/s of each side, the median of the per-round ratios NEW/BASE, and
# in how many rounds NEW was faster; then benchstat's summary (p-values),
# when benchstat is installed.
#
# The two sides are different binaries, and code layout alone moves a
# benchmark by several percent: a change that did nothing at run time
# measured 0.93 at 5 threads, twice (docs/performance.md). A ratio within a few
# percent of 1 says nothing about a change; count instructions
# (instructions.sh) instead.
#
# Usage: scripts/ab.sh BASE [NEW] [--bench RE] [--rounds N] [--benchtime T]
#   BASE, NEW    commits (anything git rev-parse takes); NEW defaults to
#                the working tree, uncommitted changes included
#   --bench RE   the benchmarks (default 'Exhaustive.*[45]$': 4 and 5 threads)
#   --rounds N   rounds (default 14; fewer do not show 5%)
#   --benchtime T  each run's -test.benchtime (default 2x)
#
# Needs: go, git. Optional: benchstat on the PATH or in $(go env GOPATH)/bin
# (go install golang.org/x/perf/cmd/benchstat@latest) for p-values.
set -euo pipefail

prog=ab
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
base="" new="" bench='Exhaustive.*[45]$' rounds=14 benchtime=2x

while [ $# -gt 0 ]; do
	case "$1" in
	--bench) bench=${2:?--bench needs a pattern}; shift 2 ;;
	--rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
	--benchtime) benchtime=${2:?--benchtime needs a value}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	-*) die "unknown option $1 (try --help)" ;;
	*)
		if [ -z "$base" ]; then
			base=$1
		elif [ -z "$new" ]; then
			new=$1
		else
			die "more than two commits given: $1 (try --help)"
		fi
		shift
		;;
	esac
done
[ -n "$base" ] || die "no BASE commit given (try --help)"
[[ $rounds =~ ^[0-9]+$ ]] && [ "$rounds" -ge 1 ] || die "--rounds: not a number of rounds: $rounds"
find_go
command -v git >/dev/null || die "git is not installed"
git -C "$here" rev-parse --verify --quiet "$base^{commit}" >/dev/null || die "not a commit: $base"
[ -z "$new" ] || git -C "$here" rev-parse --verify --quiet "$new^{commit}" >/dev/null || die "not a commit: $new"

work=$(mktemp -d)
cleanup() {
	git -C "$here" worktree remove --force "$work/tree" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

# build side commit: the check test binary of commit (the working tree
# when commit is empty) as $work/side.test
build() {
	local side=$1 commit=$2 dir=$here
	if [ -n "$commit" ]; then
		git -C "$here" worktree add --detach --force "$work/tree" "$commit" >/dev/null 2>&1 ||
			die "git worktree add $commit failed"
		dir=$work/tree
	fi
	say "building the check test binary of ${commit:-the working tree}"
	(cd "$dir/check" && "$GO" test -c -o "$work/$side.test" .) || die "building ${commit:-the working tree} failed"
	if [ -n "$commit" ]; then
		git -C "$here" worktree remove --force "$work/tree" >/dev/null 2>&1 || die "git worktree remove failed"
	fi
}
build base "$base"
build new "$new"

for i in $(seq "$rounds"); do
	say "round $i of $rounds"
	for side in base new; do
		"$work/$side.test" -test.run '^$' -test.bench "$bench" -test.cpu 1 -test.benchtime "$benchtime" |
			grep '^Benchmark' >>"$work/$side.txt" || die "the $side benchmarks failed or matched nothing: $bench"
	done
done

# Each line: name, iterations, ns/op value and unit, steps/s value and unit.
echo "| benchmark | base steps/s | new steps/s | median ratio new/base | rounds new faster |"
echo "|---|---|---|---|---|"
paste "$work/base.txt" "$work/new.txt" | awk '
	function median(list, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && list[j-1] > list[j]; j--) { t = list[j]; list[j] = list[j-1]; list[j-1] = t }
		return n % 2 ? list[(n+1)/2] : (list[n/2] + list[n/2+1]) / 2
	}
	{
		name = $1; n = ++count[name]
		b[name, n] = $5; w[name, n] = $11; r[name, n] = $11 / $5
		if ($11 > $5) faster[name]++
		if (!(name in seen)) { seen[name] = 1; order[++names] = name }
	}
	END {
		for (k = 1; k <= names; k++) {
			name = order[k]; n = count[name]
			for (i = 1; i <= n; i++) { bb[i] = b[name, i]; ww[i] = w[name, i]; rr[i] = r[name, i] }
			printf "| %s | %.2fM | %.2fM | %.3f | %d of %d |\n", name, median(bb, n) / 1e6, median(ww, n) / 1e6, median(rr, n), faster[name], n
		}
	}'

benchstat=$(command -v benchstat || true)
if [ -z "$benchstat" ] && [ -x "$("$GO" env GOPATH)/bin/benchstat" ]; then
	benchstat=$("$GO" env GOPATH)/bin/benchstat
fi
if [ -n "$benchstat" ]; then
	echo
	(cd "$work" && "$benchstat" base.txt new.txt)
else
	say "benchstat not found: no p-values (go install golang.org/x/perf/cmd/benchstat@latest)"
fi
