// Package worldtest holds the tests of package model that run the real
// protocols (swap/, naive/, through variants) and the searches of check:
// the meaning of a step against the listings and CPython's switch points
// (world, switchpoint, interrupt, raisefault, branch, defaultdict,
// dispatch), the reductions against full expansion (reduce_canonical,
// reduce_futures, pinned, canonical_order) and the speed machinery against
// the plain interpreter (speed_memo, speed_compact, speed_step_bench).
// They cannot live in model, which the protocols import; they reach the
// world's insides through model's testhooks.go. The package has no code
// but this comment.
package worldtest
