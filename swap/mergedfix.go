package swap

import (
	"swapcheck/model"
	"swapcheck/sched"
)

// MergedFix is merged (numba-cuda d41b90d3) with swapcheck's smallest fix
// (docs/merged_fix.md): the entry waits while the module holds another
// launch's fake (lines 27-32; a thread of an aborted launch raises
// instead of waiting), counts itself in before it stores the fake and
// says so in a local the finally reads (lines 38-41, 44), and the restore
// deletes the entries before the one C call that restores the names
// (lines 51-54), so that no KeyboardInterrupt landing leaves the module
// swapped with nobody counted in. It runs with kernel.py patched so that
// the kernel context is the thread's own (model.Protocol.ThreadContext),
// as proposed does, but cuda stays the real module outside a launch.
var MergedFix = mergedFix()

func mergedFix() *model.Protocol {
	const loadBytecode = "COPY; COPY; BINARY_SUBSCR (defaultdict miss: int())"
	incr := augAssign("incr", 38, "_swap_refcount[gid] += 1", loadBytecode, model.CountRegistry, defaultCount, +1)
	dec := augAssign("dec", 47, "_swap_refcount[gid] -= 1", loadBytecode, model.CountRegistry, defaultCount, -1)
	const while = "while _swap_refcount[gid] and any(fn_globs[k] is not fake_cuda_module for k in _swap_orig[gid]):"
	code := []model.Instr{
		model.Local(13, "from numba import cuda", "IMPORT_NAME numba; IMPORT_FROM cuda; STORE_DEREF cuda"),
		model.Local(15, "fn_globs = fn.__globals__", "LOAD_FAST fn; LOAD_ATTR __globals__; STORE_DEREF fn_globs"),
		withCheck(model.Local(16, "gid = id(fn_globs)", "LOAD_GLOBAL id; CALL; STORE_FAST gid"), model.CheckAfter, false),
		acquire("", 21, "with _locks_register_lock:", model.GlobalLock, globalLock),
		{
			Label: "registered", Line: 22, Text: "lock = _globals_locks[gid]",
			Bytecode: "BINARY_SUBSCR (defaultdict miss: threading.Lock()); STORE_FAST lock",
			Object:   model.LockRegistry, Access: sched.Write,
			Exec: func(c *model.Ctx) {
				if r, done := c.DefaultLock(); done {
					c.SetLock(r)
				}
			},
		},
		release("registered-exit", 21, "with _locks_register_lock:", model.GlobalLock, globalLock),
		{Line: 24, Text: "entered, orig = False, {}", Bytecode: "LOAD_CONST False; BUILD_MAP; STORE_FAST orig; STORE_FAST entered", Object: model.NoObject,
			Exec: func(c *model.Ctx) { c.SetFlag(false); c.SetOrig(0) }},
		// "with lock:" and the wait of lines 27-32 as one step: the
		// thread takes the lock once it is free and the module holds no
		// other launch's fake, or its abort flag is set (then line 31
		// raises). Each earlier pass of the loop (take the
		// lock, find the condition true, then Condition(lock).wait(0.001):
		// release the lock, sleep 1 ms, take it again) changes nothing
		// shared, so it is no step; the timeout makes the thread look
		// again however the module was restored (no one notifies).
		{
			Label: "with-lock", Line: 26, Text: "with lock:",
			Bytecode: "BEFORE_WITH (lock.__enter__: acquire; the passes of lines 27-32 that found the module held and waited)",
			Object:   model.ModuleLock, Access: sched.Write,
			Ready: func(c *model.Ctx) bool { return c.LockFree(c.Lock()) && (!c.OtherFakeInstalled() || c.Aborted()) },
			Exec:  func(c *model.Ctx) { c.Acquire(c.Lock()) },
		},
		withCheck(model.Instr{
			Label: "locked", Line: 27, Text: while,
			Bytecode: "BINARY_SUBSCR (defaultdict miss: int()); POP_JUMP_FORWARD_IF_FALSE; CALL any (the generator over _swap_orig[gid]); POP_JUMP_FORWARD_IF_FALSE",
			Object:   model.CountRegistry, Access: sched.Write,
			Exec: func(c *model.Ctx) {
				v, done := c.DefaultCount()
				if !done || v == 0 {
					// the lookup half of a free-threaded miss, or a count
					// of 0, where the and short-circuits: any() is not
					// called (yet), and nothing on this path checks the
					// eval breaker
					c.NoCheck()
				}
				if !done {
					return
				}
				if !c.OtherFakeInstalled() {
					c.Jump("scan")
				}
			},
		}, model.CheckAfter, false),
		// only a thread whose abort flag is set gets here ("with-lock"
		// let it in while another launch's fake is installed)
		{
			Line: 31, Text: "raise RuntimeError(\"abort flag set on device function call\")",
			Bytecode: "LOAD_GLOBAL RuntimeError; LOAD_CONST; PRECALL; CALL; RAISE_VARARGS (line 30's test of the abort flag read True)",
			Object:   model.NoObject,
			Exec: func(c *model.Ctx) {
				if !c.Aborted() {
					panic("model: protocol merged-fix: a thread took a module's lock while it holds another launch's fake, and its abort flag is not set")
				}
				c.Raise(model.RuntimeError)
			},
		},
		{
			Label: "scan", Line: 34, Text: "if _swap_refcount[gid] == 0:",
			Bytecode: "BINARY_SUBSCR (defaultdict miss: int()); COMPARE_OP ==; POP_JUMP_FORWARD_IF_FALSE",
			Object:   model.CountRegistry, Access: sched.Write,
			Exec: func(c *model.Ctx) {
				if v, done := c.DefaultCount(); done && v != 0 {
					c.Jump("incr")
				}
			},
		},
		withCheck(model.CollectCuda(35, "orig = {k: v for k, v in fn_globs.items() if v is cuda}", dictcomp), model.CheckLoop, true),
		{
			Line: 36, Text: "_swap_orig[gid] = orig", Bytecode: "STORE_SUBSCR",
			Object: model.SavedRegistry, Access: sched.Write,
			Exec: func(c *model.Ctx) { c.StoreSaved(c.Orig()) },
		},
		incr[0], incr[1],
		{Line: 39, Text: "entered = True", Bytecode: "LOAD_CONST True; STORE_FAST entered", Object: model.NoObject,
			Exec: func(c *model.Ctx) { c.SetFlag(true) }},
		forKeys("for-k", 40, "for k in orig:", "with-lock-exit"),
		storeFake(41, "fn_globs[k] = fake_cuda_module", "for-k"),
		release("with-lock-exit", 26, "with lock:", model.ModuleLock, localLock),
		{Label: "try", Line: 42, Text: "yield", Bytecode: "YIELD_VALUE", Object: model.NoObject, Yield: true},
		{Label: "finally", Line: 44, Text: "if entered:", Bytecode: "LOAD_FAST entered; POP_JUMP_FORWARD_IF_FALSE", Object: model.NoObject,
			Exec: func(c *model.Ctx) {
				if !c.Flag() {
					c.Jump("end")
				}
			}},
		acquire("", 45, "with lock:", model.ModuleLock, localLock),
		dec[0], dec[1],
		{
			Line: 50, Text: "if _swap_refcount[gid] == 0:",
			Bytecode: "BINARY_SUBSCR (defaultdict miss: int()); COMPARE_OP ==; POP_JUMP_FORWARD_IF_FALSE",
			Object:   model.CountRegistry, Access: sched.Write,
			Exec: func(c *model.Ctx) {
				if v, done := c.DefaultCount(); done && v != 0 {
					c.Jump("finally-exit")
				}
			},
		},
		{
			Line: 51, Text: "orig = _swap_orig[gid]", Bytecode: "BINARY_SUBSCR; STORE_FAST orig",
			Object: model.SavedRegistry, Access: sched.Read,
			Exec: func(c *model.Ctx) {
				saved, ok := c.Saved()
				if !ok {
					c.Raise(model.KeyError)
					return
				}
				c.SetOrig(saved)
			},
		},
		{
			Line: 52, Text: "del _swap_orig[gid]", Bytecode: "DELETE_SUBSCR",
			Object: model.SavedRegistry, Access: sched.Write, Deletes: true,
			Exec: func(c *model.Ctx) { c.DelSaved() },
		},
		{
			Line: 53, Text: "del _swap_refcount[gid]", Bytecode: "DELETE_SUBSCR",
			Object: model.CountRegistry, Access: sched.Write, Deletes: true,
			Exec: func(c *model.Ctx) { c.DelCount() },
		},
		{
			Line: 54, Text: "fn_globs.update(orig)", Bytecode: "CALL (dict.update)",
			Object: model.Globals, Access: sched.Write, Check: model.CheckAfter,
			Exec: func(c *model.Ctx) { c.UpdateGlobals(c.Orig(), model.Real) },
		},
		release("finally-exit", 45, "with lock:", model.ModuleLock, localLock),
		{Label: "end", Line: 44, Text: "finally: (end)", Bytecode: "RERAISE", Object: model.NoObject,
			Exec: func(c *model.Ctx) { c.Reraise() }},
	}
	handlers := []model.Handler{
		{From: "registered", To: "registered-exit", Target: "registered-exit"},
		// the with's exit on the exception path, then the finally (if
		// entered: ...), which the release's landing and the yield also
		// reach
		{From: "locked", To: "with-lock-exit", Target: "with-lock-exit"},
		{From: "with-lock-exit", To: "finally", Target: "finally"},
		{From: "dec", To: "finally-exit", Target: "finally-exit"},
	}
	return (&model.Protocol{
		Name:    "merged-fix",
		Source:  "merged_fix.py",
		Summary: "merged, waiting while another launch's fake is installed, counted in before the swap, restored with one C call last; kernel context per thread (swapcheck's fix)",
		Code:    code, Handlers: handlers,
		GlobalLockName:     "_locks_register_lock",
		ZeroCountIsMissing: true,
		ThreadContext:      true,
	}).Compile()
}
