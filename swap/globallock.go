package swap

import (
	"swapcheck/model"
	"swapcheck/sched"
)

// GlobalLock is the fix's first commit: one global lock, and per module a
// state [saved names, count] in _swap_state; every entry rescans the globals
// under the lock. The Python is a reconstruction from the commit's
// description (testdata/python/global_lock.py says so).
//
// The model keeps the state list as the registry entry itself rather than as
// a separate object the local "state" points to: the two differ only when
// the entry is deleted while a thread still holds the list, and the entry is
// deleted only when the count (taken under the same lock) drops to 0, that
// is, when no thread holds it.
var GlobalLock = newGlobalLock()

func newGlobalLock() *model.Protocol {
	incr := augAssign("incr", 23, "state[1] += 1", "COPY; COPY; BINARY_SUBSCR", model.SavedRegistry, listCount, +1)
	dec := augAssign("dec", 28, "state[1] -= 1", "COPY; COPY; BINARY_SUBSCR", model.SavedRegistry, listCount, -1)
	return (&model.Protocol{
		Name:           "global-lock",
		Source:         "global_lock.py",
		Summary:        "one global lock; per-module saved names and count; entry rescans under the lock",
		GlobalLockName: "_swap_lock",
		CountName:      "_swap_state[%s][1]",
		SavedName:      "_swap_state[%s][0]",
		Code: []model.Instr{
			model.Local(14, "from numba import cuda", "IMPORT_NAME numba; IMPORT_FROM cuda; STORE_DEREF cuda"),
			model.Local(15, "fn_globs = fn.__globals__", "LOAD_FAST fn; LOAD_ATTR __globals__; STORE_FAST fn_globs"),
			model.Local(16, "gid = id(fn_globs)", "LOAD_GLOBAL id; CALL; STORE_FAST gid"),
			acquire("", 17, "with _swap_lock:", model.GlobalLock, globalLock),
			{
				Label: "locked", Line: 18, Text: "state = _swap_state.setdefault(gid, [{}, 0])",
				Bytecode: "CALL (dict.setdefault); STORE_FAST state",
				Object:   model.SavedRegistry, Access: sched.Write,
				Exec: func(c *model.Ctx) {
					if _, ok := c.Saved(); !ok {
						c.StoreSaved(0)
						c.StoreCount(0)
					}
				},
			},
			model.CollectCuda(19, "orig = {k: v for k, v in fn_globs.items() if v is cuda}", dictcomp),
			{
				Line: 20, Text: "state[0].update(orig)", Bytecode: "BINARY_SUBSCR; CALL (dict.update)",
				Object: model.SavedRegistry, Access: sched.Write,
				Exec: func(c *model.Ctx) {
					saved, _ := c.Saved()
					c.StoreSaved(saved | c.Orig())
				},
			},
			forKeys("for-k", 21, "for k in orig:", "incr"),
			storeFake(22, "fn_globs[k] = fake_cuda_module", "for-k"),
			incr[0], incr[1],
			release("locked-exit", 17, "with _swap_lock:", model.GlobalLock, globalLock),
			{Label: "try", Line: 25, Text: "yield", Bytecode: "YIELD_VALUE", Object: model.NoObject, Yield: true},
			acquire("finally", 27, "with _swap_lock:", model.GlobalLock, globalLock),
			dec[0], dec[1],
			{
				Line: 29, Text: "if state[1] == 0:", Bytecode: "BINARY_SUBSCR; COMPARE_OP ==; POP_JUMP_FORWARD_IF_FALSE",
				Object: model.SavedRegistry, Access: sched.Read,
				Exec: func(c *model.Ctx) {
					if v, _ := c.Count(); v != 0 {
						c.Jump("finally-exit")
					}
				},
			},
			{
				Line: 30, Text: "fn_globs.update(state[0])", Bytecode: "BINARY_SUBSCR; CALL (dict.update)",
				Object: model.Globals, Access: sched.Write,
				Exec: func(c *model.Ctx) {
					saved, _ := c.Saved()
					c.UpdateGlobals(saved, model.Real)
				},
			},
			{
				Line: 31, Text: "del _swap_state[gid]", Bytecode: "DELETE_SUBSCR",
				Object: model.SavedRegistry, Access: sched.Write,
				Exec: func(c *model.Ctx) {
					if _, ok := c.Saved(); !ok {
						c.Raise(model.KeyError)
						return
					}
					c.DelSaved()
					c.DelCount()
				},
			},
			release("finally-exit", 27, "with _swap_lock:", model.GlobalLock, globalLock),
			{Line: 27, Text: "finally: (end)", Bytecode: "RERAISE", Object: model.NoObject,
				Exec: func(c *model.Ctx) { c.Reraise() }},
		},
		Handlers: []model.Handler{
			{From: "locked", To: "locked-exit", Target: "locked-exit"},
			{From: "try", To: "finally", Target: "finally"},
			{From: "dec", To: "finally-exit", Target: "finally-exit"},
		},
	}).Compile()
}
