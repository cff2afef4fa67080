#!/usr/bin/env python3
"""Make numba-cuda's simulator files at d41b90d3 patched with merged-fix
(docs/merged_fix.md), and print the unified diff.

    python3 scripts/merged-fix-patch.py OUTDIR [--repo GIT_DIR]

OUTDIR/a/ gets kernelapi.py and kernel.py as numba-cuda has them at
d41b90d3 (numba_cuda/numba/cuda/simulator/), OUTDIR/b/ the patched ones;
the diff (diff -u, paths relative to the repository) goes to stdout.
kernelapi.py's swapped_cuda_module (lines 501-534, the end of the file)
becomes testdata/python/merged_fix.py's; kernel.py gets the per-thread
kernel context, each edit of testdata/merged-fix/kernel-edits.json an exact
replacement that must match once.
--repo is a git directory of NVIDIA/numba-cuda (default:
$NUMBA_CUDA_REPO). Bad input: one line on stderr, exit status 2. OUTDIR
must not exist yet.
"""
import argparse
import json
import os
import subprocess
import sys

COMMIT = "d41b90d3"
SIM = "numba_cuda/numba/cuda/simulator/"
HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "testdata", "python", "merged_fix.py")

# kernel.py's edits (the kernel context becomes the thread's own), shared
# with pyreplay's stand-in: testdata/merged-fix/kernel-edits.json says what
# they do.
EDITS = os.path.join(HERE, "..", "testdata", "merged-fix", "kernel-edits.json")
with open(EDITS) as _f:
    KERNEL_EDITS = [(e["old"], e["new"]) for e in json.load(_f)["edits"]]


def die(msg):
    sys.stderr.write("merged-fix-patch: %s\n" % msg)
    sys.exit(2)


def show(repo, path):
    try:
        out = subprocess.run(["git", "--git-dir", repo, "show", "%s:%s" % (COMMIT, path)],
                             check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        die("cannot read %s at %s from %s: %s" % (path, COMMIT, repo, getattr(e, "stderr", b"").decode().strip() or e))
    return out.stdout.decode()


def replace_once(text, old, new, what):
    n = text.count(old)
    if n != 1:
        die("%s: the text to replace occurs %d times, not once: %r" % (what, n, old.splitlines()[0]))
    return text.replace(old, new)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--repo", default=os.environ.get("NUMBA_CUDA_REPO", ""))
    args = ap.parse_args()
    if not args.repo:
        die("no numba-cuda git directory: give --repo or set NUMBA_CUDA_REPO")
    if os.path.exists(args.outdir):
        die("%s exists; give a new directory" % args.outdir)
    api, kernel = show(args.repo, SIM + "kernelapi.py"), show(args.repo, SIM + "kernel.py")

    marker = "\n@contextmanager\ndef swapped_cuda_module("
    with open(FIX) as f:
        fix = f.read()
    if api.count(marker) != 1 or fix.count(marker) != 1:
        die("swapped_cuda_module is not where it was at %s" % COMMIT)
    new_api = api[:api.index(marker)] + fix[fix.index(marker):]
    new_kernel = kernel
    for old, new in KERNEL_EDITS:
        new_kernel = replace_once(new_kernel, old, new, "kernel.py")

    for side, files in (("a", (api, kernel)), ("b", (new_api, new_kernel))):
        os.makedirs(os.path.join(args.outdir, side))
        for name, text in zip(("kernelapi.py", "kernel.py"), files):
            with open(os.path.join(args.outdir, side, name), "w") as f:
                f.write(text)
    for name in ("kernelapi.py", "kernel.py"):
        r = subprocess.run(["diff", "-u", "--label", "a/" + SIM + name, "--label", "b/" + SIM + name,
                            os.path.join(args.outdir, "a", name), os.path.join(args.outdir, "b", name)],
                           capture_output=True, text=True)
        if r.returncode not in (0, 1):
            die("diff failed: %s" % r.stderr.strip())
        sys.stdout.write(r.stdout)


if __name__ == "__main__":
    main()
