#!/usr/bin/env python3
"""Install a swap (and numba-cuda's launch code) into a copy of the numba
this python imports, without touching it: an overlay to put first on
PYTHONPATH.

    python3 scripts/numba-overlay.py DIR --commit d41b90d3 [--repo GIT_DIR]
    python3 scripts/numba-overlay.py DIR --swap testdata/python/global_lock.py [--kernel FILE | --device-check]

DIR/numba is then the installed numba package as a tree of symlinks, but
for two files of its CUDA simulator:

- numba/cuda/simulator/kernelapi.py: the installed one, its
  swapped_cuda_module replaced by the one of --swap FILE (a rendition of
  testdata/python) or of numba-cuda's kernelapi.py at --commit, with the
  module-level state it reads (_globals_locks, _swap_refcount, ...) and the
  imports that state needs, placed where the installed function was;
- numba/cuda/simulator/kernel.py: with --commit, numba-cuda's own at that
  commit, whole (FakeCUDAKernel.__call__'s "if self._device or
  _kernel_context:", which the model's several hosts follow; numba 0.56.4
  has "if self._device:"); with --kernel FILE, that file; with
  --device-check, the installed one with that one line made numba-cuda's
  (the only line of kernel.py whose behaviour differs between numba
  0.56.4 and numba-cuda d41b90d3: the rest is formatting, an import and
  functools.update_wrapper); else the installed one.

DIR/numba/cuda/simulator/SWAPCHECK_OVERLAY.txt says in one line what was
installed; a replay script run with PYTHONPATH=DIR prints it. --repo is a
git directory of NVIDIA/numba-cuda (default: $NUMBA_CUDA_REPO).

    PYTHONPATH=DIR /usr/bin/python3 replay.py --target numba

Bad input: one line on stderr, exit status 2. DIR must not exist yet
(nothing is overwritten).
"""
import argparse
import ast
import importlib.metadata
import importlib.util
import os
import subprocess
import sys

SIM = os.path.join("numba", "cuda", "simulator")
UPSTREAM = "numba_cuda/numba/cuda/simulator/"


def die(msg):
    sys.stderr.write("numba-overlay: %s\n" % msg)
    sys.exit(2)


def swap_block(source, origin):
    """The statements of source (a module's text) that make its
    swapped_cuda_module: the function (with its decorator) and every
    module-level assignment before it of a name the function reads, with
    the imports those need; as text, and the lines they came from."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "swapped_cuda_module"), None)
    if fn is None:
        die("%s defines no swapped_cuda_module" % origin)
    reads = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
    first = min(d.lineno for d in fn.decorator_list) if fn.decorator_list else fn.lineno
    state, imports = [], []
    for n in tree.body:
        if n is fn:
            break
        if isinstance(n, (ast.Assign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if any(isinstance(t, ast.Name) and t.id in reads for t in targets):
                state.append(n)
    needed = {x.id for s in state for x in ast.walk(s) if isinstance(x, ast.Name)}
    for n in tree.body:
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            names = {(a.asname or a.name).split(".")[0] for a in n.names}
            if names & needed:
                imports.append(n)
    # the state is one contiguous run before the function in every
    # numba-cuda commit; keep its text (comments included) from the first
    # state line on
    start = min([s.lineno for s in state] + [first])
    text = "".join(lines[start - 1:fn.end_lineno])
    head = "".join("".join(lines[i.lineno - 1:i.end_lineno]) for i in imports)
    return head, text, (start, fn.end_lineno)


def replace_swap(installed, head, block):
    """installed (kernelapi.py's text) with its swapped_cuda_module (the
    decorator through the function's end) replaced by head and block."""
    tree = ast.parse(installed)
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "swapped_cuda_module"), None)
    if fn is None:
        die("the installed kernelapi.py defines no swapped_cuda_module")
    lines = installed.splitlines(keepends=True)
    first = min(d.lineno for d in fn.decorator_list) if fn.decorator_list else fn.lineno
    return "".join(lines[:first - 1]) + head + block + "".join(lines[fn.end_lineno:])


def git_show(repo, commit, path):
    try:
        return subprocess.run(["git", "--git-dir", repo, "show", "%s:%s" % (commit, path)],
                              check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        err = getattr(e, "stderr", "") or str(e)
        die("cannot read %s at %s from %s: %s" % (path, commit, repo, err.strip().splitlines()[-1] if err.strip() else e))


def symlink_tree(src, dst):
    """dst mirrors src: directories made, files symlinked. The compiled
    files come too: a module compiled anew would warn where the
    installed one's compiled file does not (an invalid escape sequence in
    a docstring, under a test suite's filterwarnings = error)."""
    for root, dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        os.makedirs(os.path.join(dst, rel), exist_ok=True)
        for f in files:
            os.symlink(os.path.join(root, f), os.path.join(dst, rel, f))


def write(path, text):
    """Replaces the symlink at path by a file holding text, and drops the
    installed module's compiled files (Python compiles it anew)."""
    os.remove(path)
    with open(path, "w") as f:
        f.write(text)
    cache = os.path.join(os.path.dirname(path), "__pycache__")
    stem = os.path.splitext(os.path.basename(path))[0] + "."
    for f in os.listdir(cache) if os.path.isdir(cache) else []:
        if f.startswith(stem):
            os.remove(os.path.join(cache, f))


def main():
    ap = argparse.ArgumentParser(description="Install a swap into an overlay of the installed numba.")
    ap.error = die
    ap.add_argument("dir")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--commit", help="numba-cuda's kernelapi.py swap and kernel.py at this commit")
    g.add_argument("--swap", help="a file defining swapped_cuda_module (testdata/python/<variant>.py)")
    ap.add_argument("--kernel", help="with --swap: the kernel.py to install (default: the installed one)")
    ap.add_argument("--device-check", action="store_true",
                    help="with --swap: the installed kernel.py with numba-cuda's 'if self._device or _kernel_context:'")
    ap.add_argument("--repo", default=os.environ.get("NUMBA_CUDA_REPO"),
                    help="a git directory of NVIDIA/numba-cuda (default $NUMBA_CUDA_REPO)")
    args = ap.parse_args()
    if os.path.exists(args.dir):
        die("%s exists: give a new directory" % args.dir)
    if (args.kernel or args.device_check) and not args.swap:
        die("--kernel and --device-check go with --swap (--commit installs the commit's kernel.py)")
    if args.kernel and args.device_check:
        die("--kernel and --device-check both given: give one")
    spec = importlib.util.find_spec("numba")
    if spec is None or not spec.submodule_search_locations:
        die("this python (%s) has no numba to overlay: Debian's python3-numba installs it for /usr/bin/python3"
            % sys.executable)
    numba_dir = list(spec.submodule_search_locations)[0]
    try:
        version = importlib.metadata.version("numba")
    except importlib.metadata.PackageNotFoundError:
        version = "?"
    kernel_text, what = None, []
    if args.commit:
        if not args.repo:
            die("--commit needs --repo GIT_DIR (or $NUMBA_CUDA_REPO): a clone of NVIDIA/numba-cuda")
        source = git_show(args.repo, args.commit, UPSTREAM + "kernelapi.py")
        kernel_text = git_show(args.repo, args.commit, UPSTREAM + "kernel.py")
        origin = "numba-cuda %s's kernelapi.py" % args.commit
    else:
        try:
            with open(args.swap) as f:
                source = f.read()
        except OSError as e:
            die("cannot read --swap %s: %s" % (args.swap, e.strerror))
        origin = args.swap
        if args.kernel:
            try:
                with open(args.kernel) as f:
                    kernel_text = f.read()
            except OSError as e:
                die("cannot read --kernel %s: %s" % (args.kernel, e.strerror))
    head, block, (a, b) = swap_block(source, origin)
    what.append("swapped_cuda_module from %s:%d-%d" % (origin, a, b))
    if args.commit:
        what.append("kernel.py from numba-cuda %s" % args.commit)
    elif args.kernel:
        what.append("kernel.py from %s" % args.kernel)
    elif args.device_check:
        with open(os.path.join(numba_dir, "cuda", "simulator", "kernel.py")) as f:
            kernel_text = f.read()
        old, new = "        if self._device:\n", "        if self._device or _kernel_context:\n"
        if kernel_text.count(old) != 1:
            die("the installed kernel.py has %d lines 'if self._device:', not one" % kernel_text.count(old))
        kernel_text = kernel_text.replace(old, new)
        what.append("kernel.py with numba-cuda's device check (if self._device or _kernel_context:)")
    symlink_tree(numba_dir, os.path.join(args.dir, "numba"))
    sim = os.path.join(args.dir, SIM)
    with open(os.path.join(numba_dir, "cuda", "simulator", "kernelapi.py")) as f:
        installed = f.read()
    write(os.path.join(sim, "kernelapi.py"), replace_swap(installed, head, block))
    if kernel_text is not None:
        write(os.path.join(sim, "kernel.py"), kernel_text)
    note = "numba %s (%s) with %s" % (version, numba_dir, ", ".join(what))
    with open(os.path.join(sim, "SWAPCHECK_OVERLAY.txt"), "w") as f:
        f.write(note + "\n")
    print(note)


if __name__ == "__main__":
    main()
