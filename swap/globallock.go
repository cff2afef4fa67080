package swap

import (
	"swapcheck/model"
	"swapcheck/sched"
)

// GlobalLock is the fix's first commit, numba-cuda 8356c6f8: one global lock,
// _swap_state_lock, and per module a state tuple (swapped_keys, refcount) in
// _swap_state. Every entry rescans the globals under the lock; the first
// entrant (no state) stores its keys with refcount 0 and swaps, each later
// one stores refcount + 1. On exit a refcount of 1 or more is decremented;
// at 0 the exit restores the saved keys and deletes the state. So refcount
// counts the entrants after the first, and the model's count entry holds
// it, the saved-names entry the tuple's keys.
//
// The state tuple is one dict entry, so every step on it has the
// SavedRegistry footprint. Every read and write of _swap_state happens
// under _swap_state_lock. Where
// the Python stores a tuple built from values a previous statement read
// under the same lock (lines 32 and 41), the model reads the entry again:
// no other thread can have changed it in between.
var GlobalLock = newGlobalLock()

func newGlobalLock() *model.Protocol {
	entryLoop := forKeys("swap", 27, "for name in keys_to_swap:", "locked-exit")
	entryLoop.Bytecode = "GET_ITER; FOR_ITER; STORE_FAST name"
	exitLoop := forKeys("restore", 44, "for name in swapped_keys:", "del")
	exitLoop.Bytecode = "GET_ITER; FOR_ITER; STORE_FAST name"
	collect := withCheck(model.CollectCuda(22, "keys_to_swap = [k for k, v in fn_globs.items() if v is cuda]",
		"FOR_ITER; UNPACK_SEQUENCE; LOAD_DEREF cuda; IS_OP; LIST_APPEND"), model.CheckLoop, true)
	collect.Label = "locked"
	unpack := model.Local(31, "swapped_keys, refcount = module_swaps",
		"LOAD_FAST module_swaps; UNPACK_SEQUENCE; STORE_FAST swapped_keys; STORE_FAST refcount")
	unpack.Label = "else"
	return (&model.Protocol{
		Name:           "global-lock",
		Source:         "global_lock.py",
		Summary:        "one global lock; per-module saved names and count; entry rescans under the lock",
		GlobalLockName: "_swap_state_lock",
		CountName:      "_swap_state[%s].refcount",
		SavedName:      "_swap_state[%s].swapped_keys",
		// the entry (keys, refcount) counts the references, under the
		// global lock; the swap runs where it was missing (line 24), the
		// restore where refcount read 0 (line 39)
		StateGuardsGlobals: true,
		Code: []model.Instr{
			model.Local(16, "from numba import cuda", "IMPORT_NAME numba; IMPORT_FROM cuda; STORE_DEREF cuda"),
			model.Local(18, "fn_globs = fn.__globals__", "LOAD_FAST fn; LOAD_ATTR __globals__; STORE_FAST fn_globs"),
			withCheck(model.Local(19, "globals_id = id(fn_globs)", "LOAD_GLOBAL id; CALL; STORE_FAST globals_id"), model.CheckAfter, false),
			acquire("", 20, "with _swap_state_lock:", model.GlobalLock, globalLock),
			collect,
			{
				Line: 23, Text: "module_swaps = _swap_state.get(globals_id)",
				Bytecode: "LOAD_METHOD get; CALL (dict.get); STORE_FAST module_swaps",
				Object:   model.SavedRegistry, Access: sched.Read, Check: model.CheckAfter,
				Exec: func(c *model.Ctx) {
					_, ok := c.Saved()
					c.SetTmp(present(ok))
				},
			},
			{
				Line: 24, Text: "if module_swaps is None:",
				Bytecode: "LOAD_FAST module_swaps; POP_JUMP_FORWARD_IF_NOT_NONE", Object: model.NoObject,
				Exec: func(c *model.Ctx) {
					if c.Tmp() != 0 {
						c.Jump("else")
					}
				},
			},
			{
				Label: "first", Line: 26, Text: "_swap_state[globals_id] = (keys_to_swap, 0)",
				Bytecode: "BUILD_TUPLE; STORE_SUBSCR",
				Object:   model.SavedRegistry, Access: sched.Write,
				Exec: func(c *model.Ctx) {
					c.StoreSaved(c.Orig())
					c.StoreCount(0)
				},
			},
			entryLoop,
			storeFake(28, "fn_globs[name] = fake_cuda_module", "swap"),
			unpack,
			{
				Label: "enter", Line: 32, Text: "_swap_state[globals_id] = (swapped_keys, refcount + 1)",
				Bytecode: "BINARY_OP +; BUILD_TUPLE; STORE_SUBSCR",
				Object:   model.SavedRegistry, Access: sched.Write,
				Exec: func(c *model.Ctx) {
					v, _ := c.Count()
					c.StoreCount(v + 1)
				},
			},
			release("locked-exit", 20, "with _swap_state_lock:", model.GlobalLock, globalLock),
			{Label: "try", Line: 35, Text: "yield", Bytecode: "YIELD_VALUE", Object: model.NoObject, Yield: true},
			acquire("finally", 37, "with _swap_state_lock:", model.GlobalLock, globalLock),
			{
				// The frame's orig slot holds swapped_keys from here on:
				// keys_to_swap is never read after the entry.
				Label: "exit-locked", Line: 38, Text: "swapped_keys, refcount = _swap_state.get(globals_id)",
				Bytecode: "LOAD_METHOD get; CALL (dict.get); UNPACK_SEQUENCE; STORE_FAST swapped_keys; STORE_FAST refcount",
				Object:   model.SavedRegistry, Access: sched.Read, Check: model.CheckAlways,
				Exec: func(c *model.Ctx) {
					saved, ok := c.Saved()
					if !ok {
						c.Raise(model.TypeError)
						return
					}
					v, _ := c.Count()
					c.SetOrig(saved)
					c.SetTmp(v)
				},
			},
			{
				Line: 39, Text: "if refcount >= 1:",
				Bytecode: "LOAD_FAST refcount; COMPARE_OP >=; POP_JUMP_FORWARD_IF_FALSE", Object: model.NoObject,
				Exec: func(c *model.Ctx) {
					if c.Tmp() < 1 {
						c.Jump("restore")
					}
				},
			},
			{
				Line: 41, Text: "_swap_state[globals_id] = (swapped_keys, refcount - 1)",
				Bytecode: "BINARY_OP -; BUILD_TUPLE; STORE_SUBSCR",
				Object:   model.SavedRegistry, Access: sched.Write,
				Exec: func(c *model.Ctx) {
					v, _ := c.Count()
					c.StoreCount(v - 1)
					c.Jump("finally-exit")
				},
			},
			exitLoop,
			storeGlobal(45, "fn_globs[name] = cuda", "LOAD_DEREF cuda; STORE_SUBSCR; JUMP_BACKWARD", "restore",
				func(*model.Ctx) model.Value { return model.Real }),
			{
				Label: "del", Line: 46, Text: "del _swap_state[globals_id]", Bytecode: "DELETE_SUBSCR",
				Object: model.SavedRegistry, Access: sched.Write, Deletes: true,
				Exec: func(c *model.Ctx) {
					if _, ok := c.Saved(); !ok {
						c.Raise(model.KeyError)
						return
					}
					c.DelSaved()
					c.DelCount()
				},
			},
			release("finally-exit", 37, "with _swap_state_lock:", model.GlobalLock, globalLock),
			{Line: 37, Text: "finally: (end)", Bytecode: "RERAISE", Object: model.NoObject,
				Exec: func(c *model.Ctx) { c.Reraise() }},
		},
		Handlers: []model.Handler{
			{From: "locked", To: "locked-exit", Target: "locked-exit"},
			{From: "try", To: "finally", Target: "finally"},
			{From: "exit-locked", To: "finally-exit", Target: "finally-exit"},
		},
	}).Compile()
}

// present is a dict lookup's outcome as a value for the next step: 1 when
// the key was there.
func present(ok bool) int32 {
	if ok {
		return 1
	}
	return 0
}
