package testenv

// Rotate returns which indices of one dimension of a cross product (0 to
// n-1: the variants, say) a test runs at the i-th combination of its
// outer loops (the scenarios, say):
//
//   - under Long, all of them, in order;
//   - by default, only i mod n: the index comes round in turn along the
//     outer loops, so every index runs once the outer loops count at
//     least n, and the sample is the same on every run.
//
// Nested rotations along one i give the diagonal (i mod n1, i mod n2,
// ...) by default and the whole product under Long.
func Rotate(i, n int) []int { return rotate(Long(), i, n) }

// rotate is Rotate with the switch given.
func rotate(long bool, i, n int) []int {
	if n <= 0 {
		return nil
	}
	if !long {
		return []int{i % n}
	}
	out := make([]int, n)
	for k := range out {
		out[k] = k
	}
	return out
}

// Pairwise returns which indices of the innermost dimension of a
// three-dimensional cross product (0 to n-1: the atomicity modes, say) a
// test runs at the i-th outer index (the scenarios) and the j-th middle
// index (the variants), for the suites whose whole product is too heavy
// for CI even under Long:
//
//   - under Long, only (i+j) mod n: every pair of outer and middle
//     indices runs, and, once the outer and the middle dimensions each
//     count at least n, every outer index and every middle index meets
//     every inner index; what is left out is the rest of the triples;
//   - by default, i mod n, as Rotate gives (the diagonal).
func Pairwise(i, j, n int) []int { return pairwise(Long(), i, j, n) }

// pairwise is Pairwise with the switch given.
func pairwise(long bool, i, j, n int) []int {
	switch {
	case n <= 0:
		return nil
	case long:
		return []int{(i + j) % n}
	}
	return []int{i % n}
}
