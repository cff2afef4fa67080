// Package naive is the original swapped_cuda_module (numba since 2016,
// numba-cuda before 0.25) as a model.Protocol listing: no lock, no count.
// Each instruction names its line in testdata/python/naive.py.
//
// Its race (the seed bug report): thread A swaps; thread B collects nothing,
// the module being already on the fake; A exits and restores the real
// module; B's body loads cuda and gets the real module:
// AttributeError: module 'numba.cuda' has no attribute 'local'.
package naive

import (
	"swapcheck/model"
	"swapcheck/sched"
)

// Protocol is the naive variant.
var Protocol = (&model.Protocol{
	Name:    "naive",
	Source:  "naive.py",
	Summary: "the original: no lock, no count (numba, numba-cuda < 0.25)",
	Code: []model.Instr{
		model.Local(7, "from numba import cuda", "IMPORT_NAME numba; IMPORT_FROM cuda; STORE_DEREF cuda"),
		model.Local(9, "fn_globs = fn.__globals__", "LOAD_FAST fn; LOAD_ATTR __globals__; STORE_FAST fn_globs"),
		// dict(generator): one FOR_ITER of the generator over
		// fn_globs.items() per step, the exhausting one included.
		// The eval breaker is checked before the first pass (the
		// items() call) and after every pass (the generator resumed, or
		// dict() returned).
		withCheck(model.CollectCuda(11, "orig = dict((k, v) for k, v in fn_globs.items() if v is cuda)",
			"FOR_ITER; UNPACK_SEQUENCE; LOAD_DEREF cuda; IS_OP; YIELD_VALUE"), model.CheckAfter, true),
		// repl maps the same keys to the fake: it is orig's key set with
		// the local fake_cuda_module, so it needs no state of its own.
		withCheck(model.Local(13, "repl = dict((k, fake_cuda_module) for k, v in orig.items())",
			"FOR_ITER; LOAD_DEREF fake_cuda_module; YIELD_VALUE"), model.CheckAfter, false),
		{
			Line: 15, Text: "fn_globs.update(repl)", Bytecode: "CALL (dict.update)",
			Object: model.Globals, Access: sched.Write, Check: model.CheckAfter,
			Exec: func(c *model.Ctx) { c.UpdateGlobals(c.Orig(), c.Fake()) },
		},
		{Label: "try", Line: 17, Text: "yield", Bytecode: "YIELD_VALUE", Object: model.NoObject, Yield: true},
		{
			Label: "finally", Line: 20, Text: "fn_globs.update(orig)", Bytecode: "CALL (dict.update)",
			Object: model.Globals, Access: sched.Write, Check: model.CheckAfter,
			Exec: func(c *model.Ctx) { c.UpdateGlobals(c.Orig(), model.Real) },
		},
		{Line: 20, Text: "finally: (end)", Bytecode: "RERAISE", Object: model.NoObject,
			Exec: func(c *model.Ctx) { c.Reraise() }},
	},
	Handlers: []model.Handler{{From: "try", To: "finally", Target: "finally"}},
}).Compile()

// withCheck is in with its eval-breaker checks (model.Instr.Check).
func withCheck(in model.Instr, check model.Check, first bool) model.Instr {
	in.Check, in.CheckFirst = check, first
	return in
}
