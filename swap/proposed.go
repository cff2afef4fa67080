package swap

import "swapcheck/model"

// Proposed is swapcheck's own fix (docs/proposed_fix.md): every entry
// points the names of the callee's module still bound to the real module
// at one dispatcher, _dispatcher, whose attributes are the calling
// thread's own launch's fake (the kernel context its BlockThread
// carries), or the real module's outside a launch. The stores are
// idempotent, each one atomic; nothing is restored, so there is no count,
// no saved names and no lock, and the exit does nothing. It runs with
// kernel.py patched so that the kernel context is per thread
// (model.Protocol.ThreadContext, Dispatches).
var Proposed = (&model.Protocol{
	Name:          "proposed",
	Source:        "proposed.py",
	Summary:       "swapcheck's fix: names pointed for good at a dispatcher that forwards to the calling thread's own fake; no lock, no count, no restore",
	ThreadContext: true,
	Dispatches:    true,
	// line 30 stores _dispatcher only under names line 29 found bound
	// to the real module; nothing restores them
	StoresDispatchOverReal: true,
	Code: []model.Instr{
		model.Local(26, "from numba import cuda", "IMPORT_NAME numba; IMPORT_FROM cuda; STORE_DEREF cuda"),
		model.Local(28, "fn_globs = fn.__globals__", "LOAD_FAST fn; LOAD_ATTR __globals__; STORE_FAST fn_globs"),
		// The list comprehension: one FOR_ITER over fn_globs.items() per
		// step, keeping the names bound to the real module (in the
		// frame's orig, as merged's dict comprehension does).
		withCheck(model.CollectCuda(29, "for k in [k for k, v in fn_globs.items() if v is cuda]:",
			"FOR_ITER; UNPACK_SEQUENCE; LOAD_DEREF cuda; IS_OP; LIST_APPEND"), model.CheckLoop, true),
		forKeys("for-k", 29, "for k in [k for k, v in fn_globs.items() if v is cuda]:", "try"),
		storeGlobal(30, "fn_globs[k] = _dispatcher",
			"LOAD_GLOBAL _dispatcher; LOAD_FAST fn_globs; LOAD_FAST k; STORE_SUBSCR; JUMP_BACKWARD", "for-k", dispatcher),
		{Label: "try", Line: 31, Text: "yield", Bytecode: "YIELD_VALUE", Object: model.NoObject, Yield: true},
	},
}).Compile()

func dispatcher(*model.Ctx) model.Value { return model.Dispatch }
