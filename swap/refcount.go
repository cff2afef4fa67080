package swap

import (
	"swapcheck/model"
	"swapcheck/sched"
)

// The refcount family: refcount-unregistered, refcount-del and merged share
// every line but the lock's fetch and its deletion. Their Python files hold
// numba-cuda's code line for line, with headers sized so that the lock's
// fetch and every line from "with lock:" on have the same numbers in all
// three.

// RefcountUnregistered fetches the per-module lock from a bare
// defaultdict(threading.Lock) and deletes it on the last exit.
var RefcountUnregistered = refcount("refcount-unregistered", "refcount_unregistered.py",
	"per-module lock from a bare defaultdict(threading.Lock), deleted by the last exit",
	entryLines{17, 18, 19}, false, true)

// RefcountDel fetches the lock under _locks_register_lock and still deletes
// it on the last exit.
var RefcountDel = refcount("refcount-del", "refcount_del.py",
	"per-module lock fetched under a registration lock, deleted by the last exit",
	entryLines{14, 15, 16}, true, true)

// Merged is what numba-cuda 0.25.0 shipped: as RefcountDel, but the lock is
// never deleted (one lock per module, forever).
var Merged = refcount("merged", "merged.py",
	"per-module lock fetched under a registration lock, kept forever (numba-cuda 0.25.0)",
	entryLines{13, 15, 16}, true, false)

// entryLines are the lines of the three local statements that open the
// function, which sit at different lines in the three files: "from numba
// import cuda", "fn_globs = fn.__globals__" and "gid = id(fn_globs)".
type entryLines struct{ imp, globs, gid int }

func refcount(name, source, summary string, lines entryLines, registered, deleteLock bool) *model.Protocol {
	const loadBytecode = "COPY; COPY; BINARY_SUBSCR (defaultdict miss: int())"
	incr := augAssign("incr", 33, "_swap_refcount[gid] += 1", loadBytecode, model.CountRegistry, defaultCount, +1)
	dec := augAssign("dec", 39, "_swap_refcount[gid] -= 1", loadBytecode, model.CountRegistry, defaultCount, -1)
	code := []model.Instr{
		model.Local(lines.imp, "from numba import cuda", "IMPORT_NAME numba; IMPORT_FROM cuda; STORE_DEREF cuda"),
		model.Local(lines.globs, "fn_globs = fn.__globals__", "LOAD_FAST fn; LOAD_ATTR __globals__; STORE_FAST fn_globs"),
		withCheck(model.Local(lines.gid, "gid = id(fn_globs)", "LOAD_GLOBAL id; CALL; STORE_FAST gid"), model.CheckAfter, false),
	}
	fetch := model.Instr{
		Line: 22, Text: "lock = _globals_locks[gid]",
		Bytecode: "BINARY_SUBSCR (defaultdict miss: threading.Lock()); STORE_FAST lock",
		Object:   model.LockRegistry, Access: sched.Write,
		Exec: func(c *model.Ctx) {
			if r, done := c.DefaultLock(); done {
				c.SetLock(r)
			}
		},
	}
	var handlers []model.Handler
	if registered {
		fetch.Label = "registered"
		code = append(code,
			acquire("", 21, "with _locks_register_lock:", model.GlobalLock, globalLock),
			fetch,
			release("registered-exit", 21, "with _locks_register_lock:", model.GlobalLock, globalLock),
		)
		handlers = append(handlers, model.Handler{From: "registered", To: "registered-exit", Target: "registered-exit"})
	} else {
		code = append(code, fetch)
	}
	code = append(code,
		acquire("with-lock", 24, "with lock:", model.ModuleLock, localLock),
		model.Instr{
			Label: "locked", Line: 26, Text: "if _swap_refcount[gid] == 0:",
			Bytecode: "BINARY_SUBSCR (defaultdict miss: int()); COMPARE_OP ==; POP_JUMP_FORWARD_IF_FALSE",
			Object:   model.CountRegistry, Access: sched.Write,
			Exec: func(c *model.Ctx) {
				if v, done := c.DefaultCount(); done && v != 0 {
					c.Jump("incr")
				}
			},
		},
		withCheck(model.CollectCuda(27, "orig = {k: v for k, v in fn_globs.items() if v is cuda}", dictcomp), model.CheckLoop, true),
		model.Instr{
			Line: 28, Text: "_swap_orig[gid] = orig", Bytecode: "STORE_SUBSCR",
			Object: model.SavedRegistry, Access: sched.Write,
			Exec: func(c *model.Ctx) { c.StoreSaved(c.Orig()) },
		},
		forKeys("for-k", 29, "for k in orig:", "incr"),
		storeFake(30, "fn_globs[k] = fake_cuda_module", "for-k"),
		incr[0], incr[1],
		release("with-lock-exit", 24, "with lock:", model.ModuleLock, localLock),
		model.Instr{Label: "try", Line: 35, Text: "yield", Bytecode: "YIELD_VALUE", Object: model.NoObject, Yield: true},
		acquire("finally", 37, "with lock:", model.ModuleLock, localLock),
		dec[0], dec[1],
		model.Instr{
			Line: 42, Text: "if _swap_refcount[gid] == 0:",
			Bytecode: "BINARY_SUBSCR (defaultdict miss: int()); COMPARE_OP ==; POP_JUMP_FORWARD_IF_FALSE",
			Object:   model.CountRegistry, Access: sched.Write,
			Exec: func(c *model.Ctx) {
				if v, done := c.DefaultCount(); done && v != 0 {
					c.Jump("finally-exit")
				}
			},
		},
		model.Instr{
			Line: 43, Text: "fn_globs.update(_swap_orig.pop(gid))", Bytecode: "CALL (dict.pop)",
			Object: model.SavedRegistry, Access: sched.Write, Check: model.CheckAfter, Deletes: true,
			Exec: func(c *model.Ctx) {
				saved, ok := c.Saved()
				if !ok {
					c.Raise(model.KeyError)
					return
				}
				c.DelSaved()
				c.SetTmpKeys(saved)
			},
		},
		model.Instr{
			Line: 43, Text: "fn_globs.update(_swap_orig.pop(gid))", Bytecode: "CALL (dict.update)",
			Object: model.Globals, Access: sched.Write, Check: model.CheckAfter,
			Exec: func(c *model.Ctx) { c.UpdateGlobals(c.TmpKeys(), model.Real) },
		},
		model.Instr{
			Line: 44, Text: "del _swap_refcount[gid]", Bytecode: "DELETE_SUBSCR",
			Object: model.CountRegistry, Access: sched.Write, Deletes: true,
			Exec: func(c *model.Ctx) { c.DelCount() },
		},
	)
	if deleteLock {
		code = append(code, model.Instr{
			Line: 45, Text: "del _globals_locks[gid]", Bytecode: "DELETE_SUBSCR",
			Object: model.LockRegistry, Access: sched.Write, Deletes: true,
			Exec: func(c *model.Ctx) { c.DelLockEntry() },
		})
	}
	code = append(code,
		release("finally-exit", 37, "with lock:", model.ModuleLock, localLock),
		model.Instr{Line: 37, Text: "finally: (end)", Bytecode: "RERAISE", Object: model.NoObject,
			Exec: func(c *model.Ctx) { c.Reraise() }},
	)
	handlers = append(handlers,
		model.Handler{From: "locked", To: "with-lock-exit", Target: "with-lock-exit"},
		model.Handler{From: "try", To: "finally", Target: "finally"},
		model.Handler{From: "dec", To: "finally-exit", Target: "finally-exit"},
	)
	// the swap (lines 27-30) runs only where line 26 read a zero count,
	// the restore (43) only where line 42 did, both under "with lock:"
	p := &model.Protocol{Name: name, Source: source, Summary: summary, Code: code, Handlers: handlers,
		CountGuardsGlobals: true,
		// _swap_refcount = defaultdict(int) (line 10 of each file)
		ZeroCountIsMissing: true}
	if registered {
		p.GlobalLockName = "_locks_register_lock"
	}
	return p.Compile()
}
