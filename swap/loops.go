package swap

import (
	"swapcheck/model"
	"swapcheck/sched"
)

// The two loops every locked variant shares, as instructions.

// dictcomp is the bytecode of one pass of the comprehension.
const dictcomp = "FOR_ITER; UNPACK_SEQUENCE; LOAD_DEREF cuda; IS_OP; MAP_ADD"

// forKeys is the local head of "for k in orig:" (iterating a local dict),
// leaving the loop for done when no key is left.
func forKeys(label string, line int, text, done string) model.Instr {
	return model.Instr{
		Label: label, Line: line, Text: text,
		Bytecode: "GET_ITER; FOR_ITER; STORE_FAST k", Object: model.NoObject,
		Exec: func(c *model.Ctx) {
			for i := c.Iter(); i < c.GlobalsLen(); i++ {
				if c.Orig()&(1<<i) != 0 {
					c.SetIter(i)
					return
				}
			}
			c.SetIter(0)
			c.Jump(done)
		},
	}
}

// storeFake is the body of that loop: "fn_globs[k] = fake_cuda_module", one
// STORE_SUBSCR per key, back to the loop head.
func storeFake(line int, text, head string) model.Instr {
	return storeGlobal(line, text, "LOAD_FAST fake_cuda_module; STORE_SUBSCR; JUMP_BACKWARD", head, fake)
}

func fake(c *model.Ctx) model.Value { return c.Fake() }

// acquire is a with statement's entry on a lock: BEFORE_WITH calls
// lock.__enter__, which blocks while another thread holds it.
func acquire(label string, line int, text string, obj model.Object, which func(*model.Ctx) model.LockRef) model.Instr {
	return model.Instr{
		Label: label, Line: line, Text: text,
		Bytecode: "BEFORE_WITH (lock.__enter__: acquire)",
		Object:   obj, Access: sched.Write,
		Ready: func(c *model.Ctx) bool { return c.LockFree(which(c)) },
		Exec:  func(c *model.Ctx) { c.Acquire(which(c)) },
	}
}

// release is a with statement's exit on a lock, on both paths: normal
// (CALL __exit__(None, None, None)) and exceptional (WITH_EXCEPT_START, then
// RERAISE of the pending exception).
func release(label string, line int, text string, obj model.Object, which func(*model.Ctx) model.LockRef) model.Instr {
	return model.Instr{
		Label: label, Line: line, Text: text,
		Bytecode: "CALL (lock.__exit__: release) / WITH_EXCEPT_START; RERAISE",
		Object:   obj, Access: sched.Write, Check: model.CheckAfter,
		Exec: func(c *model.Ctx) {
			c.Release(which(c))
			c.Reraise()
		},
	}
}

func globalLock(*model.Ctx) model.LockRef  { return model.GlobalLockRef }
func localLock(c *model.Ctx) model.LockRef { return c.Lock() }

// augAssign is "d[k] += delta" (or -=) as its two steps: the BINARY_SUBSCR
// that loads the value (load; done=false when it must run again, as a
// free-threaded defaultdict miss does), then BINARY_OP and the STORE_SUBSCR
// of the value left on the stack. A switch can fall between them.
func augAssign(label string, line int, text, loadBytecode string, obj model.Object,
	load func(*model.Ctx) (int32, bool), delta int32) [2]model.Instr {
	op := "+="
	if delta < 0 {
		op = "-="
	}
	return [2]model.Instr{
		{
			Label: label, Line: line, Text: text, Bytecode: loadBytecode,
			Object: obj, Access: sched.Write,
			Exec: func(c *model.Ctx) {
				if v, done := load(c); done {
					c.SetTmp(v)
				}
			},
		},
		{
			Line: line, Text: text, Bytecode: "BINARY_OP " + op + "; SWAP; SWAP; STORE_SUBSCR",
			Object: obj, Access: sched.Write,
			Exec: func(c *model.Ctx) { c.StoreCount(c.Tmp() + delta) },
		},
	}
}

// defaultCount loads _swap_refcount[gid] from its defaultdict(int).
func defaultCount(c *model.Ctx) (int32, bool) { return c.DefaultCount() }

// listCount loads state[1] from the state list (always there).
func listCount(c *model.Ctx) (int32, bool) {
	v, _ := c.Count()
	return v, true
}

// storeGlobal is the body of a "for name in keys:" loop that stores one
// global per pass ("fn_globs[name] = v"), back to the loop head (a
// JUMP_BACKWARD, which checks the eval breaker).
func storeGlobal(line int, text, bytecode, head string, v func(*model.Ctx) model.Value) model.Instr {
	return model.Instr{
		Line: line, Text: text, Bytecode: bytecode,
		Object: model.Globals, Access: sched.Write, Check: model.CheckAfter,
		Exec: func(c *model.Ctx) {
			k := c.Iter()
			c.SetGlobal(k, v(c))
			c.SetIter(k + 1)
			c.Jump(head)
		},
	}
}

// withCheck is in with its eval-breaker checks (model.Instr.Check).
func withCheck(in model.Instr, check model.Check, first bool) model.Instr {
	in.Check, in.CheckFirst = check, first
	return in
}
