#!/usr/bin/env bash
# replay-tally.sh: replays every counterexample of every variant, 20 runs
# on each target, and writes the tally as the Markdown table
# docs/replay.md shows.
#
# The counterexamples are explore's own (harmful, shrunk) on the verdict
# table's scenarios (check.TableShapes) and on testdata/scenarios/*.txt,
# in every atomicity mode; the free-threaded ones are refused in one line
# (a GIL build cannot run them), and the table says so. Each is replayed
# on the rendition (python3 = CPython 3.11) and on Debian's numba 0.56.4
# (/usr/bin/python3 with python3-numba) with the variant's swap installed
# by scripts/numba-overlay.py: numba-cuda's own swap and kernel.py at the
# variant's commit with --repo, else the variant's rendition with
# numba-cuda's device check. A cell counts the runs that forced every
# turn and reproduced the model's violation kind. It is
# TestReplayOfEveryCounterexample (pyreplay/kinds_test.go) with
# SWAPCHECK_LONG=1, which fails when a run does not reproduce.
#
# Usage: scripts/replay-tally.sh [--repo DIR] OUT.md
#   DIR: a clone (bare or not) of https://github.com/NVIDIA/numba-cuda
#   OUT.md: the table (not overwritten: give a new file)
#
# Needs: go, python3 (3.11), /usr/bin/python3 with python3-numba. Takes
# about half an hour on two cores.
set -euo pipefail

prog=replay-tally
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
	if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1 && [ -d "$repo/.git" ]; then
		repo=$repo/.git
	fi
fi
find_go
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")

cd "$here"
say "replaying every counterexample 20 times per target (about half an hour)"
NUMBA_CUDA_REPO=$repo SWAPCHECK_LONG=1 SWAPCHECK_REQUIRE_PYTHON=1 SWAPCHECK_REQUIRE_NUMBA=1 \
	"$GO" test ./pyreplay -count=1 -timeout 4h -run '^TestReplayOfEveryCounterexample$' -pyreplay.full -pyreplay.tally "$out"
say "wrote $out"
