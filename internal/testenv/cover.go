package testenv

// Cover returns the combinations a test over a cross product runs, each
// as one index per dimension (sizes[d] is the length of dimension d):
//
//   - under Long, every combination, the last dimension varying fastest;
//   - by default, the diagonal: for i < max(sizes), the combination
//     (i mod sizes[0], i mod sizes[1], ...). Every index of every
//     dimension appears at least once, the largest dimension (often the
//     scenarios) exactly once, and the others rotate along it; the sample
//     is the same on every run.
//
// A dimension of size 0 makes the product empty.
func Cover(sizes ...int) [][]int { return cover(Long(), sizes...) }

// cover is Cover with the switch given.
func cover(long bool, sizes ...int) [][]int {
	if len(sizes) == 0 {
		return nil
	}
	n, longest := 1, 0
	for _, s := range sizes {
		if s <= 0 {
			return nil
		}
		n *= s
		longest = max(longest, s)
	}
	if !long {
		out := make([][]int, longest)
		for i := range out {
			c := make([]int, len(sizes))
			for d, s := range sizes {
				c[d] = i % s
			}
			out[i] = c
		}
		return out
	}
	out := make([][]int, n)
	for i := range out {
		c := make([]int, len(sizes))
		rest := i
		for d := len(sizes) - 1; d >= 0; d-- {
			c[d] = rest % sizes[d]
			rest /= sizes[d]
		}
		out[i] = c
	}
	return out
}
