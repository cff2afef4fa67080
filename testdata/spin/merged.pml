/*
 * merged.pml: the `merged` swap protocol (numba-cuda 0.25.0,
 * testdata/python/merged.py) in Promela, for a side-by-side run against SPIN
 * (scripts/compare-spin.sh). It is the scenario
 *
 *     go run ./cmd/explore -protocol merged -threads N        (-atomicity gil)
 *
 * one launch of one block of N GPU threads; each thread reads cuda.threadIdx
 * in the kernel's module `kernels`, then calls f1 in module `dev1` once,
 * through swapped_cuda_module, and f1's body reads cuda.local.
 *
 *     spin -DN=5 -a merged.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan -m100000
 *
 * N defaults to 4. SPIN stores exactly the states swapcheck's exhaustive
 * search counts (`-strategy dfs`): 50, 483, 7021, 126862, 2865052 for
 * N = 1..5, with or without -DNOREDUCE; and SPIN's "transitions (= stored+
 * matched)", which counts the initial state as one, is swapcheck's steps + 1
 * (747, 14147, 300405, 7699581 against 746, 14146, 300404, 7699580 for
 * N = 2..5). Partial-order reduction, on by default, reduces nothing here:
 * SPIN only counts a statement as "safe" when it touches no global, and
 * every statement of this model reads or writes one (swapcheck's local steps
 * are folded into the shared ones, below).
 *
 * ONE PROMELA STATEMENT = ONE SWAPCHECK STEP
 *
 * swapcheck's step is one atomic CPython operation under the GIL (the
 * listing in swap/refcount.go, built by refcount("merged", ..., true,
 * false)), with steps that touch only a frame's locals (imports, local
 * assignments, the yield, a loop head over a local dict, RERAISE) folded
 * into the shared step before them (model/interp.go, settle). Here every
 * step is one Promela statement: a plain statement, or an atomic { ... }
 * whose first statement is its guard (a blocking lock acquire is
 * atomic { owner == 0 -> owner = me }). SPIN does not store the states
 * inside an atomic sequence, and no d_step is used. A jump out of an atomic
 * (goto incr, goto fexit) is the listing's c.Jump: it ends the step.
 *
 * The numbers below are the steps of the 1-thread run (49 steps, 50 states),
 * as swapcheck's trace prints them; the name in brackets is the listing's
 * label or instruction in swap/refcount.go.
 *
 * Host (init; thread 0 in swapcheck; kernel.py's launch, model/program.go):
 *   1  _kernel_context = mod                   atomic { ctx = FAKE1; fake = FAKE1 }
 *      (and the local "with swapped_cuda_module(self.fn, fake_cuda_module):",
 *      which pushes the frame with fake = fake#1: model/interp.go sLaunch)
 *   2-14  swap_enter(0): the protocol on module kernels, as below
 *   15 t.start() T0, ... one per thread         atomic { i < N -> run T(i + 2); i++ }
 *   40 while livethreads: ... (bm.run: all done)  i == N && fin == N
 *   41-48 swap_exit(0)
 *   49 _kernel_context = None                  atomic { ctx = NONE; <end-of-launch asserts> }
 *
 * GPU thread (proctype T):
 *   16 kernel: cuda.threadIdx                  assert(kernels_cuda == FAKE1)
 *   17 f1(): LOAD_GLOBAL _kernel_context       fake = ctx
 *      (then the local lines 16-18: from numba import cuda, fn_globs, gid)
 *   18-30 swap_enter(1)
 *   31 f1: cuda.local                          assert(dev1_cuda == FAKE1)
 *   32-39 swap_exit(1); the last step also counts the thread as done (fin)
 *
 * swap_enter(m) (merged.py lines 21-33; steps 18-30 of T0, 2-14 of the host):
 *   18 :21 with _locks_register_lock:   [acquire]      atomic { lockown[GLOCK] == 0 -> lockown[GLOCK] = me }
 *   19 :22 lock = _globals_locks[gid]   [registered]   atomic { miss: lockreg[m] = new lock; lk = lockreg[m] }
 *      (a defaultdict miss whose factory, threading.Lock, is a C type: one step)
 *   20 :21 (exit of the with)           [registered-exit] atomic { assert held; lockown[GLOCK] = 0 }
 *   21 :24 with lock:                   [with-lock]    atomic { lockown[lk] == 0 -> lockown[lk] = me }
 *   22 :26 if _swap_refcount[gid] == 0: [locked]       atomic { miss: cnt[m] = 0; cnt[m] != 0 -> goto incr }
 *   23-25 :27 orig = {k: v for k, v in fn_globs.items() if v is cuda}
 *                                       [CollectCuda]  one FOR_ITER per global (2: cuda and the
 *                                       function), then the pass that finds items() exhausted
 *   26 :28 _swap_orig[gid] = orig       (STORE_SUBSCR) atomic { origp, origv = orig; local :29 head }
 *   27 :30 fn_globs[k] = fake_cuda_module  [storeFake]  one step per key of orig, each followed
 *                                       by the local loop head :29, which leaves for incr
 *   28 :33 _swap_refcount[gid] += 1     [incr]         atomic { miss: cnt = 0; tmp = cnt[m] }  (load)
 *   29 :33                              (BINARY_OP; STORE_SUBSCR) atomic { cnt[m] = tmp + 1 }
 *   30 :24 (exit of with lock)          [with-lock-exit] atomic { assert held; lockown[lk] = 0 }
 *      (then the local yield: the with-body runs)
 *
 * swap_exit(m) (lines 37-44; steps 32-39 of T0, 41-48 of the host):
 *   32 :37 with lock:                   [finally]      atomic { lockown[lk] == 0 -> lockown[lk] = me }
 *   33 :39 _swap_refcount[gid] -= 1     [dec]          atomic { miss: cnt = 0; tmp = cnt[m] }  (load)
 *   34 :39                              (STORE_SUBSCR) atomic { cnt[m] = tmp - 1 }
 *   35 :42 if _swap_refcount[gid] == 0:                atomic { miss: cnt = 0; cnt[m] != 0 -> goto fexit }
 *   36 :43 _swap_orig.pop(gid)          (dict.pop)     atomic { assert present (else KeyError); tmp = keys; delete }
 *   37 :43 fn_globs.update(...)         (dict.update)  atomic { each key in tmp = REAL }
 *   38 :44 del _swap_refcount[gid]      (DELETE_SUBSCR) atomic { assert present (else KeyError); delete }
 *   39 :37 (exit of with lock)          [finally-exit] atomic { assert held; lockown[lk] = 0 }
 *      (then the local RERAISE and return; the thread ends)
 *
 * The state is swapcheck's World vector (model/program.go, layout), field
 * for field:
 *   ctx                     _kernel_context
 *   kernels_*, dev1_*       each module's globals, in dict order (cuda, then
 *                           the kernel or device function, a non-cuda object)
 *   lockreg[m]              _globals_locks[gid]: 0 missing, else the lock's
 *                           reference (2 for kernels, 3 for dev1, as
 *                           swapcheck numbers them; 1 is _locks_register_lock)
 *   cntp[m], cnt[m]         _swap_refcount[gid]: present?, value (a byte:
 *                           the protocol only compares it with 0, and a
 *                           negative count wraps to a non-zero byte)
 *   origp[m], origv[m]      _swap_orig[gid]: present?, the saved names as a
 *                           bitmask of global indexes (values are always the
 *                           real module: "if v is cuda")
 *   lockown[r]              lock r's owner, thread + 1 (0: free); swapcheck
 *                           stores the same
 *   per thread: pc (swapcheck's frame pc, statement index, in-body flag);
 *   lk, orig, it, tmp, fake: the generator frame's locals lock, orig, the
 *   position of a running loop over a dict (fIter), the value a
 *   BINARY_SUBSCR left for its STORE_SUBSCR or the dict pop returned (fTmp),
 *   fake_cuda_module. Like swapcheck's frame they keep their last values
 *   after the call returns (a frame is cleared when pushed).
 *   i (host): threads started; fin: threads done. Both are functions of the
 *   processes' pcs, so they add no state.
 *
 * The invariants (check/invariants.go), as asserts, or SPIN's own check:
 *   use-saw-real/none/other-fake  assert(<module>_cuda == FAKE1) at each use
 *   exception                     assert before dict.pop, del (KeyError) and
 *                                 lock release (RuntimeError)
 *   left-swapped, registry-leftover  asserts in the host's last step, when
 *                                 the launch is over
 *   deadlock                      SPIN's invalid end states (on with -DSAFETY)
 * swapcheck raises and unwinds where this model's assert fails; both stop at
 * the first violation, and merged has none, so the explored spaces agree.
 *
 * Differences
 *   - SPIN deletes a finished process with a transition of its own, and only
 *     the youngest first, which would multiply the end states (185097
 *     states at N = 4 instead of 126862). swapcheck keeps a finished
 *     thread's record; so does this model: a thread that has run its last
 *     step waits at an end label (a valid end state) forever.
 *   - swapcheck folds local steps into the shared step before them by
 *     construction; SPIN merges local statements on its own, but here no
 *     local statement stands alone: each is written into its step's atomic.
 *   - The globals are scalars, not an array, because Promela gives an array
 *     one initial value for all its elements: setting the function globals
 *     would take steps before the launch (2 more states at every N).
 *   - Only what this scenario needs: one launch, one block, one call per
 *     thread (the labels incr and fexit are per process), one name per
 *     module, no syncthreads, no exceptions raised by the kernel, GIL
 *     atomicity (a defaultdict miss is one step).
 */

#ifndef N
#define N 4
#endif

/* values, numbered as model/value.go numbers them */
#define NONE  1
#define REAL  2
#define OTHER 3
#define FAKE1 17	/* fake#1: the launch's FakeCUDAModule */

#define NG    2		/* globals per module: cuda, then one function */
#define GLOCK 1		/* _locks_register_lock's reference */
#define HOST  1		/* the host's owner number (thread 0, + 1) */

byte ctx = NONE;
/* module kernels: cuda, kernel; module dev1: cuda, f1 */
byte kernels_cuda = REAL, kernels_kernel = OTHER;
byte dev1_cuda = REAL, dev1_f1 = OTHER;
byte lockreg[2];
bool cntp[2];
byte cnt[2];
bool origp[2];
byte origv[2];
byte lockown[4];	/* 1: _locks_register_lock, 2: kernels', 3: dev1's */
byte fin;		/* GPU threads done */

/* fn_globs[i] of module m */
#define GLOB(m, i) ((m) == 0 -> ((i) == 0 -> kernels_cuda : kernels_kernel) \
                            : ((i) == 0 -> dev1_cuda : dev1_f1))

inline setglob(m, i, v) {
	if
	:: m == 0 && i == 0 -> kernels_cuda = v
	:: m == 0 && i == 1 -> kernels_kernel = v
	:: m == 1 && i == 0 -> dev1_cuda = v
	:: m == 1 && i == 1 -> dev1_f1 = v
	fi
}

/* the local head of "for k in orig:" (merged.py:29): the next key of orig
 * from it on; past the last one, it = 0 and the loop is left for incr */
inline nextkey() {
	do
	:: it < NG && (orig & (1 << it)) == 0 -> it++
	:: else -> break
	od;
	if
	:: it >= NG -> it = 0; goto incr
	:: else
	fi
}

/* a defaultdict(int) read of _swap_refcount[gid]: a miss stores 0 */
inline misscount(m) {
	if
	:: !cntp[m] -> cntp[m] = 1; cnt[m] = 0
	:: else
	fi
}

/* merged.py 21-33: the entry of swapped_cuda_module, on module m */
inline swap_enter(m) {
	/* :21 with _locks_register_lock: */
	atomic { lockown[GLOCK] == 0 -> lockown[GLOCK] = me };
	/* :22 lock = _globals_locks[gid] (a miss makes the lock) */
	atomic {
		if :: lockreg[m] == 0 -> lockreg[m] = m + 2 :: else fi;
		lk = lockreg[m]
	};
	/* :21 exit of the with */
	atomic { assert(lockown[GLOCK] != 0); lockown[GLOCK] = 0 };
	/* :24 with lock: */
	atomic { lockown[lk] == 0 -> lockown[lk] = me };
	/* :26 if _swap_refcount[gid] == 0: */
	atomic {
		misscount(m);
		if :: cnt[m] != 0 -> goto incr :: else fi
	};
	/* :27 orig = {k: v for k, v in fn_globs.items() if v is cuda} */
	do
	:: atomic {
		it < NG ->
		if :: it == 0 -> orig = 0 :: else fi;	/* BUILD_MAP */
		if :: GLOB(m, it) == REAL -> orig = orig | (1 << it) :: else fi;
		it++
	   }
	:: atomic { it >= NG -> it = 0; break }	/* items() exhausted */
	od;
	/* :28 _swap_orig[gid] = orig, then the local head of :29 */
	atomic { origp[m] = 1; origv[m] = orig; it = 0; nextkey() };
	/* :30 fn_globs[k] = fake_cuda_module, then the local head of :29 */
	do
	:: atomic { setglob(m, it, fake); it++; nextkey() }
	od;
incr:	/* :33 _swap_refcount[gid] += 1: the load, then the store */
	atomic { misscount(m); tmp = cnt[m] };
	atomic { cntp[m] = 1; cnt[m] = tmp + 1 };
	/* :24 exit of with lock */
	atomic { assert(lockown[lk] != 0); lockown[lk] = 0 }
}

/* merged.py 37-44: the finally of swapped_cuda_module; done is added to
 * fin in the last step (1: a GPU thread ends with it) */
inline swap_exit(m, done) {
	/* :37 with lock: */
	atomic { lockown[lk] == 0 -> lockown[lk] = me };
	/* :39 _swap_refcount[gid] -= 1: the load, then the store */
	atomic { misscount(m); tmp = cnt[m] };
	atomic { cntp[m] = 1; cnt[m] = tmp - 1 };
	/* :42 if _swap_refcount[gid] == 0: */
	atomic {
		misscount(m);
		if :: cnt[m] != 0 -> goto fexit :: else fi
	};
	/* :43 _swap_orig.pop(gid) (KeyError when missing) */
	atomic { assert(origp[m]); tmp = origv[m]; origp[m] = 0; origv[m] = 0 };
	/* :43 fn_globs.update(...) */
	atomic {
		if :: tmp & 1 -> setglob(m, 0, REAL) :: else fi;
		if :: tmp & 2 -> setglob(m, 1, REAL) :: else fi
	};
	/* :44 del _swap_refcount[gid] (KeyError when missing) */
	atomic { assert(cntp[m]); cntp[m] = 0; cnt[m] = 0 };
fexit:	/* :37 exit of with lock */
	atomic { assert(lockown[lk] != 0); lockown[lk] = 0; fin = fin + done }
}

/* a GPU thread; me is its owner number (T0 is thread 1, so 2) */
proctype T(byte me) {
	byte lk, orig, it, tmp, fake;
	/* kernel: cuda.threadIdx */
	assert(kernels_cuda == FAKE1);
	/* f1(): with swapped_cuda_module(self.fn, _get_kernel_context()): */
	fake = ctx;
	swap_enter(1);
	/* f1: cuda.local */
	assert(dev1_cuda == FAKE1);
	swap_exit(1, 1);
	/* done: keep the finished thread's record, as swapcheck does */
end:	false
}

/* the host: kernel.py's launch of one block */
init {
	byte me = HOST;
	byte lk, orig, it, tmp, fake, i;
	/* _kernel_context = mod; with swapped_cuda_module(self.fn, fake_cuda_module): */
	atomic { ctx = FAKE1; fake = FAKE1 };
	swap_enter(0);
	do
	:: atomic { i < N -> run T(i + 2); i++ }	/* t.start() */
	:: i == N && fin == N -> break			/* bm.run: every thread done */
	od;
	swap_exit(0, 0);
	/* _kernel_context = None; the launch is over: left-swapped and
	 * registry-leftover */
	atomic {
		ctx = NONE;
		assert(kernels_cuda == REAL && dev1_cuda == REAL);
		assert(!cntp[0] && !cntp[1] && !origp[0] && !origp[1])
	}
}
