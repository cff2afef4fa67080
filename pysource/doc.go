// Package pysource is swapcheck's front-end to CPython: it finds the
// interpreters a machine has, and has one of them compile a user's Python
// file and describe its code objects, which it decodes into pyvm's code
// model. It is I/O at the edge (it runs python3); the model never imports
// it, the command's packages do.
//
// # What a caller does
//
//  1. Find(spec): the interpreter to use. spec is "" (the newest supported
//     one found), a version ("3.12") or a path. Interpreters are looked
//     for on PATH (python3, python3.13, python3.12, python3.11), then
//     under pyenv (PYENV_ROOT, `pyenv root`, ~/.pyenv: versions/*/bin/python3);
//     each candidate is run and must answer with its sys.version_info,
//     sys.implementation and Py_GIL_DISABLED, so a pyenv shim that answers
//     "command not found" is never taken for an interpreter. What each
//     answered is kept (Env.Cache, cache.go) under a fingerprint of what
//     the answer depends on, and Load checks that the interpreter that
//     compiles the file is the one the answer named; Open (Find, then
//     Load) runs every candidate again where it is not.
//  2. Load(interp, "FILE[:NAME]"): the embedded helper (dump.py, run as
//     python -I -S -c) compiles FILE with compile(src, path, "exec") — it
//     never imports or runs it — and prints the module's code object and
//     every nested one as JSON; Load decodes them (instruction indices for
//     jump targets and the exception table) and checks that FILE defines
//     NAME (default swapped_cuda_module) at top level.
//  3. Source.Program: pyvm.Load for the interpreter's version, which runs
//     the refusal pass.
//
// Every error is a value whose message is one line: no such file, no
// such function (FILE:NAME), a syntax error (CPython's own message), an
// unsupported Python version, no Python at all.
package pysource
