package check

// KindInvariant says, for each of Kinds, the invariant a violation of that
// kind breaks, in a sentence for a bug report.
var KindInvariant = map[string]string{
	KindUseSawReal:      "Every use of `cuda` inside a device function or the kernel sees the fake module of its own launch; this one saw the real `numba.cuda` module, which lacks the simulated API.",
	KindUseSawNone:      "Every use of `cuda` inside a device function or the kernel sees the fake module of its own launch; this one saw `None` (the kernel context of a launch already reset).",
	KindUseSawOtherFake: "Every use of `cuda` inside a device function or the kernel sees the fake module of its own launch; this one saw the fake of another launch (its grid, block and shared memory).",
	KindException:       "No Python exception escapes the swap machinery (`swapped_cuda_module`); this one raised one itself.",
	KindLeftSwapped:     "When a launch has finished, every module's globals hold the real `numba.cuda` module again; here a module was left on a fake.",
	KindRegistryLeft:    "When a launch has finished, no per-module count or saved-names entry is left behind in the swap's registries; here one was.",
	KindDeadlock:        "No deadlock: some thread can always move until all have exited; here every live thread waits.",
	KindNotLinearizable: "The swap machinery, seen from outside, behaves like its sequential specification (a module is swapped exactly while some thread is inside a call into it); this execution's history of swaps and reads has no such order.",
	KindLostUpdate:      "Every `cuda.atomic` operation acts as if alone: some order of a launch's atomics, one at a time and each thread's in its own order, gives the array's final value and what each atomic returned; here none does (`FakeCUDAAtomic` holds one lock per operation, so two kinds of operation interleave inside `array[index] += val`).",
	KindSharedNotShared: "Every thread of a block gets the same array from one `cuda.shared.array` line; here two got different ones (`FakeCUDAShared.array` stores a fresh `np.empty` on a miss, and two threads both missed).",
	KindStaleRead:       "After `cuda.syncthreads()` a thread sees what the other threads of its block stored to their shared array before the barrier; here a thread loaded a slot another thread stored to, and read its own array, where that store never went.",
}

// KindSeen says, for each of Kinds, what a user of the simulator sees when
// it happens: the error, or where nothing is raised, the symptom.
var KindSeen = map[string]string{
	KindUseSawReal:      "The thread raises `AttributeError`: the module's `cuda` is the real `numba.cuda`, which has no simulated API; the launch re-raises it to its caller (unless the launch was already aborted).",
	KindUseSawNone:      "The thread raises `AttributeError` on `None`; the launch re-raises it to its caller (unless the launch was already aborted).",
	KindUseSawOtherFake: "Nothing is raised at once: the thread reads another launch's grid, block or shared memory.",
	KindException:       "The launch raises the exception the swap machinery raised, from the thread that raised it.",
	KindLeftSwapped:     "Nothing is raised: the launch returns, and the module's `cuda` stays a fake module afterwards, for every later use outside a launch and for the next launch.",
	KindRegistryLeft:    "Nothing is raised: the launch returns, and the registry keeps a count or saved names that the next launch's swap starts from.",
	KindDeadlock:        "The launch hangs.",
	KindNotLinearizable: "Code reading the module's globals from another thread sees a swap state no sequential order of the calls explains.",
	KindLostUpdate:      "Nothing is raised: the kernel returns, and the array holds a value no order of its atomics gives (an update is lost), or an atomic returned a value no order gives.",
	KindSharedNotShared: "Nothing is raised: the threads write to different arrays, so what one thread wrote before `cuda.syncthreads()` is not there for the others (a reduction sums garbage).",
	KindStaleRead:       "Nothing is raised: the thread reads what its own array holds (`np.empty`'s garbage, or its own stores), not what the other thread stored.",
}
