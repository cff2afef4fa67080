#!/usr/bin/env python3
"""Opcode names per source line of ``swapped_cuda_module`` in a protocol file.

Usage: python3 disasm.py ../python/merged.py

Prints ONE JSON object:
    {"python": sys.version,
     "file": <path as given>,
     "lines": {"<lineno>": ["OPNAME", ...], ...},
     "unattributed": ["OPNAME", ...]}

"lines" maps each source line to the names of the instructions CPython
attributes to it, from ``dis.get_instructions`` (adaptive/specialized forms
and CACHE entries are not shown).  Order within a line: first the function's
own instructions in bytecode-offset order, then the instructions of each
nested code object (dict comprehensions, generator expressions; depth first,
in the order they appear in co_consts), each in offset order.  Note that
CPython 3.11 compiles a ``finally`` body twice (normal exit and exception
path), so the lines of a ``finally`` block list their instructions twice.

The line of an instruction is ``positions.lineno`` (3.11+); without
positions, the line number of the most recent line start (``starts_line``,
or ``line_number`` on 3.13+).  Instructions CPython attributes to no line
(3.11 exception-table cleanup such as COPY/POP_EXCEPT/RERAISE, MAKE_CELL)
are listed, in order, under "unattributed".
"""

import dis
import json
import sys
import types

FUNC = "swapped_cuda_module"


def find_code(code, name):
    """The first code object called ``name`` in ``code`` (recursive)."""
    if code.co_name == name:
        return code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            found = find_code(c, name)
            if found is not None:
                return found
    return None


def nested(code):
    """``code`` and all code objects nested in it, depth first."""
    out = [code]
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out.extend(nested(c))
    return out


def start_line(ins):
    """Line number at which ``ins`` starts a new line, or None."""
    ln = getattr(ins, "line_number", None)  # 3.13+: starts_line is a bool
    if isinstance(ins.starts_line, bool):
        return ln if ins.starts_line else None
    return ins.starts_line


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: disasm.py PROTOCOL_FILE.py\n")
        return 2
    path = argv[1]
    with open(path) as f:
        src = f.read()
    top = compile(src, path, "exec")
    fn = find_code(top, FUNC)
    if fn is None:
        sys.stderr.write("%s: no function %s\n" % (path, FUNC))
        return 1
    lines = {}
    unattributed = []
    for code in nested(fn):
        current = None
        for ins in dis.get_instructions(code):
            sl = start_line(ins)
            if sl is not None:
                current = sl
            pos = getattr(ins, "positions", None)
            if pos is not None:
                ln = pos.lineno  # None: no line (artificial instruction)
            else:
                ln = current
            if ln is None:
                unattributed.append(ins.opname)
            else:
                lines.setdefault(ln, []).append(ins.opname)
    out = {
        "python": sys.version,
        "file": path,
        "lines": {str(k): lines[k] for k in sorted(lines)},
        "unattributed": unattributed,
    }
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
