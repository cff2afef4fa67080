package check

import "swapcheck/scenario"

// The dimensions of a scenario file's bodies that shrink makes smaller:
// its repeat counts, and its branches on the thread index.

// repeatsReduction lowers every repeat count of a scenario file's bodies
// to at most v: "repeat 3: ...; end" tries 1, then 2. A count of 1 is
// the body alone, which is what it becomes (the dimension is then 0: no
// repeat is left, and the Python replay can replay it).
var repeatsReduction = bodies("repeats", 1,
	func(s scenario.Stmt, n int) int {
		if s.Kind == scenario.OpRepeat {
			return max(n, s.Times)
		}
		return n
	},
	func(v int) func(s scenario.Stmt, seen *int) []scenario.Stmt {
		return func(s scenario.Stmt, _ *int) []scenario.Stmt {
			if s.Kind == scenario.OpRepeat {
				if s.Times = min(s.Times, v); s.Times == 1 {
					return s.Body
				}
			}
			return []scenario.Stmt{s}
		}
	})

// branchesReduction keeps a scenario file's first v branches on the
// thread index (in the order the file writes them) and replaces each
// later one by its if arm, which every thread then runs: the fewest
// branches that still fail.
var branchesReduction = bodies("branches", 0,
	func(s scenario.Stmt, n int) int {
		if s.Kind == scenario.OpIf {
			return n + 1
		}
		return n
	},
	func(v int) func(s scenario.Stmt, seen *int) []scenario.Stmt {
		return func(s scenario.Stmt, seen *int) []scenario.Stmt {
			if s.Kind != scenario.OpIf {
				return []scenario.Stmt{s}
			}
			*seen++
			if *seen <= v {
				return []scenario.Stmt{s}
			}
			return s.Then
		}
	})

// bodies is a dimension of a scenario file's bodies (flags have none):
// count folds it over every statement, nested ones included; rewrite(v)
// maps each statement to the ones that replace it, outer statements
// first (their nested bodies are rewritten after), with a counter shared
// by the whole scenario.
func bodies(dim string, least int, count func(s scenario.Stmt, n int) int, rewrite func(v int) func(s scenario.Stmt, seen *int) []scenario.Stmt) reduction {
	return reduction{
		dim: dim, min: least,
		get: func(s subject) (int, bool) {
			if s.shape != nil {
				return 0, false
			}
			n := 0
			var walk func(body []scenario.Stmt)
			walk = func(body []scenario.Stmt) {
				for _, st := range body {
					n = count(st, n)
					walk(st.Then)
					walk(st.Else)
					walk(st.Body)
				}
			}
			walk(s.sc.Kernel)
			for _, f := range s.sc.Functions {
				walk(f.Body)
			}
			return n, n > 0
		},
		set: func(s subject, v int) (subject, error) {
			seen := 0
			f := rewrite(v)
			var walk func(body []scenario.Stmt) []scenario.Stmt
			walk = func(body []scenario.Stmt) []scenario.Stmt {
				var out []scenario.Stmt
				for _, st := range body {
					for _, r := range f(st, &seen) {
						r.Then, r.Else, r.Body = walk(r.Then), walk(r.Else), walk(r.Body)
						out = append(out, r)
					}
				}
				return out
			}
			sc := *s.sc
			sc.Kernel = walk(sc.Kernel)
			sc.Functions = append([]scenario.Function(nil), sc.Functions...)
			for i := range sc.Functions {
				sc.Functions[i].Body = walk(sc.Functions[i].Body)
			}
			return subject{sc: &sc}, sc.Validate()
		},
	}
}
