#!/usr/bin/env bash
# emit-test-tally.sh: runs the regression test explore -emit-test writes
# for naive's counterexample 100 times under each numba, and writes the
# tally as the Markdown table docs/replay.md shows.
#
# The test (pyreplay's emittedTest: explore -protocol naive -emit-test
# test_swap_race.py) runs under pytest with numba-cuda's filterwarnings =
# error, on Debian's numba 0.56.4 (/usr/bin/python3 with python3-numba;
# its own swap is naive: the test must fail with the user's error) and
# with merged's swap installed in it (scripts/numba-overlay.py: the test
# must pass); with --repo, also with numba-cuda's own swap and kernel.py
# at 55a84eb7 (fails) and d41b90d3 (passes); and each again under
# pytest -p xdist -n 2 when python3-pytest-xdist is installed. It is
# TestEmittedTestOnNumba (pyreplay/regression_test.go) with
# SWAPCHECK_LONG=1, which fails on a run that does not.
#
# Usage: scripts/emit-test-tally.sh [--repo DIR] OUT.md
#   DIR: a clone (bare or not) of https://github.com/NVIDIA/numba-cuda
#   OUT.md: the table (not overwritten: give a new file)
#
# Needs: go, /usr/bin/python3 with python3-numba and python3-pytest.
set -euo pipefail

prog=emit-test-tally
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
repo=""
out=""

while [ $# -gt 0 ]; do
	case "$1" in
	--repo) repo=${2:?}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	-*) die "unknown argument $1 (try --help)" ;;
	*) [ -z "$out" ] || die "two output files given: $out and $1"; out=$1; shift ;;
	esac
done
[ -n "$out" ] || die "missing OUT.md (try --help)"
[ ! -e "$out" ] || die "$out exists: give a new file"
if [ -n "$repo" ]; then
	repo=$(cd "$repo" && pwd) || die "--repo $repo: no such directory"
	git --git-dir="$repo" rev-parse --git-dir >/dev/null 2>&1 ||
		git -C "$repo" rev-parse --git-dir >/dev/null 2>&1 || die "--repo $repo: not a git repository"
	if [ -d "$repo/.git" ]; then
		repo=$repo/.git
	fi
fi
find_go
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")

cd "$here"
say "running the emitted test 100 times under each numba"
NUMBA_CUDA_REPO=$repo SWAPCHECK_LONG=1 SWAPCHECK_REQUIRE_NUMBA=1 \
	"$GO" test ./pyreplay -count=1 -timeout 2h -run '^TestEmittedTestOnNumba$' -pyreplay.full -pyreplay.emit-test-tally "$out"
say "wrote $out"
