package source

import (
	"fmt"

	"swapcheck/model"
	"swapcheck/pysource"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// Shrink makes a counterexample's scenario smaller, as check's shrinker
// does for the listings: it tries each dimension of the shape (the
// threads, blocks, calls, modules, names, nesting, hosts, and each
// switch: syncthreads, host calls, branches) at each smaller value, the
// smallest first, and takes the first whose search (sched.States, within
// lim) finds a violation of the same kind; it goes round until no
// dimension shrinks. It returns the smallest shape, its program and its
// search's result, and what shrank ("threads 3 -> 2"), or the given
// shape and nothing when nothing did. A smaller scenario's search that
// lim cuts short is not taken.
func Shrink(src *pysource.Source, sh scenario.Shape, a model.Atomicity, kind string, lim sched.Limits) (scenario.Shape, *Program, sched.Result, []string) {
	var (
		shrunk []string
		prog   *Program
		res    sched.Result
	)
	try := func(c scenario.Shape) bool {
		sc, err := c.Build()
		if err != nil {
			return false
		}
		p, err := Load(src, sc, a)
		if err != nil {
			return false
		}
		r := sched.States{}.Run(New(p), lim)
		if r.Verdict != sched.Violation || r.Failure.Kind != kind {
			return false
		}
		prog, res = p, r
		return true
	}
	for changed := true; changed; {
		changed = false
		for _, d := range dimensions {
			cur := d.get(&sh)
			for v := d.least; v < cur; v++ {
				c := sh
				d.set(&c, v)
				if try(c) {
					shrunk = append(shrunk, fmt.Sprintf("%s %s -> %s", d.name, d.show(cur), d.show(v)))
					sh, changed = c, true
					break
				}
			}
		}
	}
	return sh, prog, res, shrunk
}

// dimension is one number of a shape Shrink makes smaller (a switch is
// 1 on, 0 off).
type dimension struct {
	name  string
	least int
	get   func(*scenario.Shape) int
	set   func(*scenario.Shape, int)
	flag  bool
}

func (d dimension) show(v int) string {
	if d.flag {
		return map[int]string{0: "off", 1: "on"}[v]
	}
	return fmt.Sprint(v)
}

func number(name string, least int, f func(*scenario.Shape) *int) dimension {
	return dimension{name: name, least: least,
		get: func(s *scenario.Shape) int { return *f(s) },
		set: func(s *scenario.Shape, v int) { *f(s) = v }}
}

func flag(name string, f func(*scenario.Shape) *bool) dimension {
	return dimension{name: name, flag: true,
		get: func(s *scenario.Shape) int {
			if *f(s) {
				return 1
			}
			return 0
		},
		set: func(s *scenario.Shape, v int) { *f(s) = v == 1 }}
}

// dimensions are the shape's, in the order Shrink tries them: what makes
// the trace longest first.
var dimensions = []dimension{
	number("hosts", 1, func(s *scenario.Shape) *int { return &s.Hosts }),
	number("threads", 1, func(s *scenario.Shape) *int { return &s.Threads }),
	number("blocks", 1, func(s *scenario.Shape) *int { return &s.Blocks }),
	number("calls", 0, func(s *scenario.Shape) *int { return &s.Calls }),
	number("modules", 1, func(s *scenario.Shape) *int { return &s.Modules }),
	number("nest", 0, func(s *scenario.Shape) *int { return &s.Nest }),
	number("names", 1, func(s *scenario.Shape) *int { return &s.Names }),
	flag("branch", func(s *scenario.Shape) *bool { return &s.Branch }),
	flag("syncthreads", func(s *scenario.Shape) *bool { return &s.Syncthreads }),
	flag("host-calls", func(s *scenario.Shape) *bool { return &s.HostCalls }),
}
