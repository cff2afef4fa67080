#!/usr/bin/env python3
"""Make numba-cuda's simulator files at d41b90d3 patched with merged-fix
(docs/merged_fix.md), and print the unified diff.

    python3 scripts/merged-fix-patch.py OUTDIR [--repo GIT_DIR]

OUTDIR/a/ gets kernelapi.py and kernel.py as numba-cuda has them at
d41b90d3 (numba_cuda/numba/cuda/simulator/), OUTDIR/b/ the patched ones;
the diff (diff -u, paths relative to the repository) goes to stdout.
kernelapi.py's swapped_cuda_module (lines 501-534, the end of the file)
becomes testdata/python/merged_fix.py's; kernel.py gets the per-thread
kernel context, each edit below an exact replacement that must match once.
--repo is a git directory of NVIDIA/numba-cuda (default:
$NUMBA_CUDA_REPO). Bad input: one line on stderr, exit status 2. OUTDIR
must not exist yet.
"""
import argparse
import os
import subprocess
import sys

COMMIT = "d41b90d3"
SIM = "numba_cuda/numba/cuda/simulator/"
HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "testdata", "python", "merged_fix.py")

# kernel.py: the kernel context becomes the thread's own: the launching
# thread's while _push_kernel_context's with runs, copied into each
# BlockThread when the launching thread makes it (BlockThread.__init__), so
# two host threads can launch at once and a lingering thread of an aborted
# launch keeps its own fake.
KERNEL_EDITS = [
    ('''"""
Global variable to keep track of the current "kernel context", i.e the
FakeCUDAModule.  We only support one kernel launch at a time.
No support for concurrent kernel launch.
"""
_kernel_context = None
''', '''"""
The current "kernel context", i.e the FakeCUDAModule, is per thread.
"""
'''),
    ('''    global _kernel_context
    assert _kernel_context is None, "concurrent simulated kernel not supported"
    _kernel_context = mod
    try:
        yield
    finally:
        _kernel_context = None
''', '''    thread = threading.current_thread()
    thread.kernel_context = mod
    try:
        yield
    finally:
        thread.kernel_context = None
'''),
    ('''    Get the current kernel context. This is usually done by a device function.
    """
    return _kernel_context
''', '''    Get the current kernel context. This is usually done by a device function.
    """
    return getattr(threading.current_thread(), "kernel_context", None)
'''),
    ('''        if self._device or _kernel_context:
''', '''        if self._device or _get_kernel_context():
'''),
    ('''        self.debug = debug
        blockDim = Dim3(*self._manager._block_dim)
''', '''        self.debug = debug
        self.kernel_context = _get_kernel_context()  # the launching thread's
        blockDim = Dim3(*self._manager._block_dim)
'''),
]


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
