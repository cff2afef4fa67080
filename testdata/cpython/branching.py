#!/usr/bin/env python3
"""What a kernel's branch on the thread index and a repeat compile to.

Usage: python3 branching.py     (on CPython 3.11; exits 1 if a claim fails)

Backs model/program.go (compileFor): a scenario's "if tid == 0:" stands for
``if cuda.threadIdx.x == 0:``, whose only shared load is the LOAD_GLOBAL of
the module global ``cuda`` (then LOAD_ATTR threadIdx, LOAD_ATTR x,
LOAD_CONST, COMPARE_OP, POP_JUMP_FORWARD_IF_FALSE: the attribute reads are
of the fake module's property, which reads the current thread's own
index); "repeat N:" stands for ``for _ in range(N):``, whose own
instructions (LOAD_GLOBAL range, a lookup that always falls through the
module's globals to the builtins and reads no name a swap writes;
CALL of the C type range; GET_ITER; FOR_ITER; STORE_FAST; JUMP_BACKWARD)
touch nothing a swap writes. Prints the claims checked, one a line.
"""

import dis
import sys

SOURCE = '''
def kernel():
    if cuda.threadIdx.x == 0:
        f()
    else:
        g()
    for _ in range(2):
        f()
    return
'''


def ops_by_line(fn):
    out = {}
    for ins in dis.get_instructions(fn):
        line = ins.positions.lineno if getattr(ins, "positions", None) else ins.starts_line
        if ins.opname not in ("RESUME", "CACHE", "PRECALL", "POP_TOP", "NOP"):
            out.setdefault(line, []).append(ins.opname)
    return out


def main():
    ns = {}
    exec(compile(SOURCE, "kernel.py", "exec"), ns)
    lines = ops_by_line(ns["kernel"])
    claims = {
        3: ["LOAD_GLOBAL", "LOAD_ATTR", "LOAD_ATTR", "LOAD_CONST", "COMPARE_OP", "POP_JUMP_FORWARD_IF_FALSE"],
        7: ["LOAD_GLOBAL", "LOAD_CONST", "CALL", "GET_ITER", "FOR_ITER", "STORE_FAST"],
        8: ["LOAD_GLOBAL", "CALL", "JUMP_BACKWARD"],
    }
    ok = True
    for line, want in claims.items():
        got = lines.get(line)
        good = got == want
        ok = ok and good
        print(f"{'ok ' if good else 'BAD'} line {line}: {' '.join(got or [])}")
    print(sys.version.split()[0])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
