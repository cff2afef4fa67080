package pyreplay

import (
	"strings"

	"swapcheck/model"
)

// Steps and landings in the simulator's own launch code (kernel.py:
// numba's, or the stand-in's), by key. The script finds each key's line
// in the kernel.py it runs by the function and the text of the line
// (replay.py's SIM_LINES); docs/replay.md lists them. A step anchors at
// the line's first instruction.
const (
	simSetContext   = "set-context"   // _push_kernel_context: _kernel_context = mod
	simResetContext = "reset-context" // _push_kernel_context: _kernel_context = None
	simAssert       = "assert"        // _push_kernel_context: assert _kernel_context is None (several hosts)
	simDeviceCheck  = "device-check"  // FakeCUDAKernel.__call__: if self._device or _kernel_context: (a launch, several hosts)
	simDeviceSwap   = "device-swap"   // __call__: with swapped_cuda_module(self.fn, _get_kernel_context()): (a launch run inline)
	simStart        = "start"         // BlockManager.run: t.start()
	simPollDone     = "poll-done"     // BlockManager.run: for t in threads: (after the polling loop)
	simPollAbort    = "poll-abort"    // BlockManager.run: for t_other in threads:
	simPollRelease  = "poll-release"  // BlockManager.run: for t in blockedthreads:
	simSyncCheck    = "sync-check"    // BlockThread.syncthreads: the first if self.abort:
	simSyncBlock    = "sync-block"    // self.syncthreads_blocked = True
	simSyncWait     = "sync-wait"     // self.syncthreads_event.wait()
	simSyncRecheck  = "sync-recheck"  // the second if self.abort:
	// no steps, interrupts' landings only
	simSwapWith     = "swap-with"     // __call__: with swapped_cuda_module(self.fn, fake_cuda_module):
	simContextYield = "context-yield" // _push_kernel_context: yield
	simThreadDies   = "thread-dies"   // BlockThread.run: except Exception as e: (-source's death step)
	simNormalize    = "normalize"     // __call__: grid_dim, block_dim = normalize_kernel_dimensions(
)

// syncKeys are the keys of syncthreads' sub-steps after its load of
// cuda, by the model's text of them (model/interp.go's syncLines).
var syncKeys = map[string]string{
	"if self.abort: raise RuntimeError(\"abort flag set on syncthreads call\")":  simSyncCheck,
	"self.syncthreads_blocked = True":                                            simSyncBlock,
	"self.syncthreads_event.wait(); self.syncthreads_event.clear()":              simSyncWait,
	"if self.abort: raise RuntimeError(\"abort flag set on syncthreads clear\")": simSyncRecheck,
}

// simKey is the key of a host step of the simulator's own code, by the
// model's event; ok false for a step the replay does not anchor there
// (noop: one on nothing shared, which the replay passes).
func simKey(ev *model.Event) (key string, noop, ok bool) {
	text := ev.Text
	switch {
	case text == "_kernel_context = mod":
		return simSetContext, false, true
	case text == "_kernel_context = None":
		return simResetContext, false, true
	case text == model.FakeText, text == model.ReturnText:
		// kernel.py patched for proposed: the fake's making and the
		// caller's side, on nothing shared (model/program.go)
		return "", true, true
	case strings.HasPrefix(text, "t.start()"):
		return simStart, false, true
	case strings.HasPrefix(text, "livethreads is empty"):
		return simPollDone, false, true
	case strings.HasPrefix(text, "t_other.abort"):
		return simPollAbort, false, true
	case strings.HasPrefix(text, "livethreads == blockedthreads"):
		return simPollRelease, false, true
	case strings.HasPrefix(text, "assert _kernel_context is None"):
		return simAssert, false, true
	case strings.HasPrefix(text, "if self._device or _kernel_context"):
		return simDeviceCheck, false, true
	case strings.HasPrefix(text, "with swapped_cuda_module(self.fn, _get_kernel_context()): return"):
		return simDeviceSwap, false, true
	}
	if k, found := syncKeys[text]; found {
		return k, false, true
	}
	return "", false, false
}
