# swapcheck's front-end helper, run by the interpreter the user picked:
# compiles a Python file (never imports or runs it) and prints, as one JSON
# object on stdout, the interpreter's version and the module's code object
# with every nested code object, instruction by instruction, as dis reads
# them. A syntax error is reported as data, with CPython's own message.
# Usage: python dump.py FILE
import ast
import dis
import json
import sys
import sysconfig
import types


def const(c):
    if c is None:
        return {"t": "none"}
    if c is True or c is False:
        return {"t": "bool", "v": c}
    if type(c) is int:
        return {"t": "int", "v": str(c)}
    if type(c) is str:
        return {"t": "str", "v": c}
    if type(c) is tuple:
        return {"t": "tuple", "items": [const(x) for x in c]}
    if type(c) is frozenset:
        return {"t": "frozenset", "items": [const(x) for x in c]}
    if isinstance(c, types.CodeType):
        return {"t": "code", "code": code(c)}
    return {"t": "other", "type": type(c).__name__, "repr": repr(c)}


def localsplus(co):
    # the fast slots, in index order: co._varname_from_oparg (3.11+)
    names = []
    i = 0
    while True:
        try:
            names.append(co._varname_from_oparg(i))
        except (IndexError, ValueError):
            break
        i += 1
    out = []
    for n in names:
        kind = 0
        if n in co.co_varnames:
            kind |= 0x20
        if n in co.co_cellvars:
            kind |= 0x40
        if n in co.co_freevars and n not in co.co_cellvars:
            kind = 0x80
        out.append({"name": n, "kind": kind})
    return out


NAME_OPS = set(dis.hasname) | set(dis.haslocal) | set(dis.hasfree)


def code(co):
    instrs = []
    for i in dis.get_instructions(co):
        argname = ""
        if i.opcode in NAME_OPS and isinstance(i.argval, str):
            argname = i.argval
        target = None
        if i.opcode in dis.hasjrel or i.opcode in dis.hasjabs:
            target = i.argval
        line = i.positions.lineno if i.positions is not None else None
        instrs.append({
            "offset": i.offset,
            "op": i.opname,
            "arg": -1 if i.arg is None else i.arg,
            "argname": argname,
            "argrepr": i.argrepr,
            "line": line or 0,
            "target": target,
        })
    table = [{"start": e.start, "end": e.end, "target": e.target, "depth": e.depth, "lasti": e.lasti}
             for e in dis._parse_exception_table(co)]
    return {
        "name": co.co_name,
        "qualname": co.co_qualname,
        "filename": co.co_filename,
        "firstlineno": co.co_firstlineno,
        "flags": co.co_flags,
        "argcount": co.co_argcount,
        "posonlyargcount": co.co_posonlyargcount,
        "kwonlyargcount": co.co_kwonlyargcount,
        "stacksize": co.co_stacksize,
        "names": list(co.co_names),
        "varnames": list(co.co_varnames),
        "cellvars": list(co.co_cellvars),
        "freevars": list(co.co_freevars),
        "localsplus": localsplus(co),
        "consts": [const(c) for c in co.co_consts],
        "instrs": instrs,
        "exceptiontable": table,
    }


def interpreter():
    v = sys.version_info
    return {
        "version": [v.major, v.minor, v.micro],
        "releaselevel": v.releaselevel,
        "implementation": sys.implementation.name,
        "gil_disabled": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
        "executable": sys.executable,
    }


def main():
    out = {"interpreter": interpreter()}
    if len(sys.argv) > 1:
        path = sys.argv[1]
        try:
            with open(path, "rb") as f:
                src = f.read()
        except OSError as e:
            out["error"] = {"kind": "file", "message": "%s: %s" % (path, e.strerror)}
        else:
            try:
                co = compile(src, path, "exec", dont_inherit=True)
                tree = ast.parse(src, path)
            except SyntaxError as e:
                msg = "%s:%s: SyntaxError: %s" % (path, e.lineno, e.msg)
                out["error"] = {"kind": "syntax", "message": " ".join(msg.split())}
            except ValueError as e:
                out["error"] = {"kind": "syntax", "message": "%s: %s" % (path, " ".join(str(e).split()))}
            else:
                out["module"] = code(co)
                out["functions"] = [{"name": s.name, "line": s.lineno} for s in tree.body
                                    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
