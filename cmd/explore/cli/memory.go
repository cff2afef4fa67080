package cli

import (
	"strings"

	"swapcheck/scenario"
)

// applyFix sets the scenario's simulator fixes from -fix (on a scenario
// file's too: fixes, like faults, say which code runs, not what the
// kernel does).
func applyFix(o *options, sc *scenario.Scenario) error {
	if !o.set["fix"] {
		return nil
	}
	f, err := scenario.ParseFixes(o.fix)
	if err != nil {
		return usagef("-fix: %v", err)
	}
	sc.Fixes |= f
	return nil
}

// atomicsShape reads -atomics into the shape's operations.
func atomicsShape(o *options) error {
	if !o.set["atomics"] {
		return nil
	}
	o.shape.Atomics = nil
	for _, w := range strings.Split(o.atomics, ",") {
		op, err := scenario.ParseAtomicOp(strings.TrimSpace(w))
		if err != nil {
			return usagef("-atomics: %v", err)
		}
		o.shape.Atomics = append(o.shape.Atomics, op)
	}
	return nil
}
