#!/usr/bin/env bash
# fidelity.sh: checks that each testdata/python/<variant>.py holds
# numba-cuda's swapped_cuda_module line for line.
#
# Each variant file's first line pins "numba-cuda <commit> kernelapi.py:<a>-<b>
# sha256 <digest>": lines a to b of numba_cuda/numba/cuda/simulator/kernelapi.py
# at that commit, and their digest. For each file the script takes those lines from a clone of
# NVIDIA/numba-cuda, diffs them with the file's function (from its
# "@contextmanager" line to the end of the file) and prints one line:
# the file, the commit, the lines, "same" or "DIFFERS", and the SHA-256 of
# the upstream lines, which must be the digest the header pins (and
# model/source_test.go checks against the file's function). A file whose
# first line says it is "not numba-cuda's code" (proposed.py, swapcheck's own
# fix) prints "ours" instead. It exits 1 when a file differs.
#
# Usage: scripts/fidelity.sh --repo DIR
#   DIR: a clone (bare or not) of https://github.com/NVIDIA/numba-cuda
#   holding the commits, e.g. made with
#   git clone --bare https://github.com/NVIDIA/numba-cuda numba-cuda.git
#
# Needs: git, sha256sum.
set -euo pipefail

prog=fidelity
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
repo=""

while [ $# -gt 0 ]; do
	case "$1" in
	--repo) repo=${2:?}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown argument $1 (try --help)" ;;
	esac
done
[ -n "$repo" ] || die "missing --repo DIR (a clone of NVIDIA/numba-cuda; try --help)"
git --git-dir="$repo" rev-parse --git-dir >/dev/null 2>&1 ||
	git -C "$repo" rev-parse --git-dir >/dev/null 2>&1 || die "--repo $repo: not a git repository"
git_repo() {
	if git --git-dir="$repo" rev-parse --git-dir >/dev/null 2>&1; then
		git --git-dir="$repo" "$@"
	else
		git -C "$repo" "$@"
	fi
}

status=0
for f in "$here"/testdata/python/*.py; do
	cite=$(head -1 "$f" | grep -oE 'numba-cuda [0-9a-f]{7,40} kernelapi\.py:[0-9]+-[0-9]+ sha256 [0-9a-f]{64}' || true)
	if [ -z "$cite" ]; then
		# a fix of swapcheck's own (proposed) has no upstream lines to
		# compare; model/source_test.go pins its whole file instead
		head -1 "$f" | grep -q "not numba-cuda's code" ||
			die "$f: its first line pins no \"numba-cuda COMMIT kernelapi.py:A-B sha256 DIGEST\" and does not say it is not numba-cuda's code"
		printf '%s - - ours -\n' "$(basename "$f")"
		continue
	fi
	read -r _ commit range _ pinned <<<"$cite"
	range=${range#kernelapi.py:}
	upstream=$(git_repo show "$commit:numba_cuda/numba/cuda/simulator/kernelapi.py" | sed -n "${range%-*},${range#*-}p" | sed '$a\') ||
		die "$commit: no kernelapi.py in $repo"
	ours=$(sed -n '/^@contextmanager/,$p' "$f")
	sum=$(printf '%s\n' "$upstream" | sha256sum | cut -d' ' -f1)
	if [ "$sum" != "$pinned" ]; then
		verdict=DIFFERS
		status=1
		echo "$(basename "$f"): its header pins sha256 $pinned, upstream's lines have $sum" >&2
	elif [ "$upstream" = "$ours" ]; then
		verdict=same
	else
		verdict=DIFFERS
		status=1
		diff <(printf '%s\n' "$upstream") <(printf '%s\n' "$ours") | sed "s|^|$(basename "$f"): |" >&2 || true
	fi
	printf '%s %s %s %s %s\n' "$(basename "$f")" "$commit" "$range" "$verdict" "$sum"
done
exit $status
