package pyvm

// Jumps. A backward jump checks the eval breaker (JUMP_BACKWARD; 3.11's
// POP_JUMP_BACKWARD_IF_* when taken); JUMP_BACKWARD_NO_INTERRUPT and every
// forward jump do not.

func (x *exec) jump() { x.f.pc = int32(x.in.Target) }

func opJumpForward(x *exec) { x.jump() }

func opJumpBackward(x *exec) {
	x.jump()
	x.check()
}

func opJumpBackwardNoInterrupt(x *exec) { x.jump() }

// popJumpIf pops the condition and jumps when its truth is want.
func (x *exec) popJumpIf(want, backward bool) {
	t, ok := x.truth(x.f.pop())
	if ok && t == want {
		x.jump()
		if backward {
			x.check()
		}
	}
}

// popJumpIfNone pops and jumps when (v is None) is want.
func (x *exec) popJumpIfNone(want, backward bool) {
	if (x.f.pop().K == KindNone) == want {
		x.jump()
		if backward {
			x.check()
		}
	}
}

func opPopJumpIfFalse(x *exec)           { x.popJumpIf(false, false) }
func opPopJumpIfTrue(x *exec)            { x.popJumpIf(true, false) }
func opPopJumpIfNone(x *exec)            { x.popJumpIfNone(true, false) }
func opPopJumpIfNotNone(x *exec)         { x.popJumpIfNone(false, false) }
func opPopJumpBackwardIfFalse(x *exec)   { x.popJumpIf(false, true) }
func opPopJumpBackwardIfTrue(x *exec)    { x.popJumpIf(true, true) }
func opPopJumpBackwardIfNone(x *exec)    { x.popJumpIfNone(true, true) }
func opPopJumpBackwardIfNotNone(x *exec) { x.popJumpIfNone(false, true) }
func opJumpIfFalseOrPop(x *exec)         { x.jumpOrPop(false) }
func opJumpIfTrueOrPop(x *exec)          { x.jumpOrPop(true) }

// jumpOrPop is 3.11's JUMP_IF_*_OR_POP: jump keeping the value, or pop it.
func (x *exec) jumpOrPop(want bool) {
	t, ok := x.truth(x.f.top())
	if !ok {
		return
	}
	if t == want {
		x.jump()
		return
	}
	x.f.pop()
}
