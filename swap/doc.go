// Package swap holds the four locked variants of numba-cuda's
// swapped_cuda_module and swapcheck's own fix, each as a model.Protocol
// listing that reads like the
// Python it models: one instruction per atomic CPython step, each naming its
// line in testdata/python/<variant>.py and its bytecode(s).
//
//   - GlobalLock (global-lock): the fix's first commit, one global lock.
//   - RefcountUnregistered (refcount-unregistered): a per-module lock from a
//     bare defaultdict, deleted by the last exit.
//   - RefcountDel (refcount-del): the lock fetched under a registration
//     lock, still deleted by the last exit.
//   - Merged (merged): what numba-cuda 0.25.0 shipped; locks live forever.
//   - Proposed (proposed): swapcheck's fix, no lock at all: each module's
//     cuda names point for good at a dispatcher that resolves per thread
//     (docs/proposed_fix.md).
//
// The listings are data plus small step functions over model.Ctx: the same
// listing runs under any scheduler that drives a model.World. The naive
// variant, with no lock at all, lives in package naive. Every exported
// listing here is registered once, in package variants (see
// docs/contributing.md).
package swap
