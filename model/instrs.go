package model

import "swapcheck/sched"

// Instruction builders for the Python operations more than one listing uses.

// Local is a step that touches only the frame's locals.
func Local(line int, text, bytecode string) Instr {
	return Instr{Line: line, Text: text, Bytecode: bytecode, Object: NoObject, Exec: func(*Ctx) {}}
}

// CollectCuda is one pass of "orig = {k: v for k, v in fn_globs.items() if
// v is cuda}" (or its dict(generator) spelling): one FOR_ITER over the
// globals per step, keeping in the local orig the names bound to the real
// module; the pass that finds the iterator exhausted is a step too.
func CollectCuda(line int, text, bytecode string) Instr {
	return Instr{
		Line: line, Text: text, Bytecode: bytecode,
		Object: Globals, Access: sched.Read,
		Exec: func(c *Ctx) {
			i := c.Iter()
			if i == 0 {
				c.SetOrig(0) // BUILD_MAP: a new dict
			}
			if i == c.GlobalsLen() {
				if c.w.Trace {
					c.w.effect("items() exhausted: orig = %s", c.KeyNames(c.Orig()))
				}
				c.SetIter(0)
				return
			}
			if c.Global(i) == Real {
				c.SetOrig(c.Orig() | 1<<i)
			}
			c.SetIter(i + 1)
			c.Stay()
		},
	}
}
