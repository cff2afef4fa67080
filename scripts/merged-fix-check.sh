#!/bin/bash
# merged-fix on Debian's numba 0.56.4 (docs/merged_fix.md): makes the
# patched files and their diff, overlays for merged and merged-fix, runs
# testdata/cpython/merged_fix_numba.py (the stress) on both and
# scripts/merged-fix-bench.py (the per-use cost) on merged, merged-fix and
# proposed, ROUNDS times each (default 5), alternating.
#
#   scripts/merged-fix-check.sh OUTDIR [ROUNDS]
#
# Needs /usr/bin/python3 with python3-numba and a git directory of
# NVIDIA/numba-cuda in $NUMBA_CUDA_REPO. OUTDIR must not exist.
set -euo pipefail
out=${1:?usage: scripts/merged-fix-check.sh OUTDIR [ROUNDS]}
rounds=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
repo=${NUMBA_CUDA_REPO:?set NUMBA_CUDA_REPO to a git directory of NVIDIA/numba-cuda}
[ -e "$out" ] && { echo "merged-fix-check: $out exists; give a new directory" >&2; exit 2; }
mkdir -p "$out"
python3 "$here/merged-fix-patch.py" "$out/patch" --repo "$repo" > "$out/merged-fix.diff"
/usr/bin/python3 "$here/numba-overlay.py" "$out/ov-merged" --commit d41b90d3 --repo "$repo" > /dev/null
/usr/bin/python3 "$here/numba-overlay.py" "$out/ov-fix" --swap "$out/patch/b/kernelapi.py" --kernel "$out/patch/b/kernel.py" > /dev/null
cd "$out"
for ov in ov-merged ov-fix; do
	PYTHONPATH="$out/$ov" /usr/bin/python3 "$here/../testdata/cpython/merged_fix_numba.py" > "stress-$ov.json"
done
for i in $(seq "$rounds"); do
	PYTHONPATH="$out/ov-merged" /usr/bin/python3 "$here/merged-fix-bench.py" | sed "s/^/merged $i /"
	PYTHONPATH="$out/ov-fix" /usr/bin/python3 "$here/merged-fix-bench.py" | sed "s/^/merged-fix $i /"
	/usr/bin/python3 "$here/merged-fix-bench.py" --proposed | sed "s/^/proposed $i /"
done > bench.txt
# the summary: per variant and figure, min and median over the rounds
python3 - bench.txt <<'PY'
import collections, re, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) \d+ (\S+) (-?[\d.]+) ns(?: \(the loop's pass: (-?[\d.]+) ns\))?", line)
    if m:
        d[(m[2], m[1])].append(float(m[3]))
        if m[4]:
            d[(m[2] + " (pass)", m[1])].append(float(m[4]))
for (fig, var), v in sorted(d.items()):
    print("%-22s %-10s min %7.1f ns  median %7.1f ns  (%d rounds)" % (fig, var, min(v), statistics.median(v), len(v)))
PY
