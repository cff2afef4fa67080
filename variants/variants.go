package variants

import (
	"fmt"
	"strings"

	"swapcheck/model"
	"swapcheck/naive"
	"swapcheck/swap"
)

// Expected is what a variant's rows of the verdict table (check.TableShapes,
// every atomicity mode) must say; check's TestVerdictTableMatchesExpected
// holds each variant to it. It says nothing of other scenarios: merged is
// correct here, yet fails on an aborted launch.
type Expected uint8

const (
	// Correct: every row is verified but those of a world with faults or
	// several hosts (check.TableShapes), which no swap protocol alone need
	// survive.
	Correct Expected = 1 + iota
	// Buggy: some row is a violation.
	Buggy
)

func (e Expected) String() string {
	switch e {
	case Correct:
		return "correct"
	case Buggy:
		return "buggy"
	}
	return fmt.Sprintf("Expected(%d)", uint8(e))
}

// Variant is one registered variant. Its name, Python file (under
// testdata/python) and summary are the listing's own: Protocol.Name,
// Protocol.Source and Protocol.Summary.
type Variant struct {
	Protocol *model.Protocol
	Expected Expected
	// Hardened: a Correct variant that must also be verified on the rows
	// of a world with faults or several hosts (check.TableShapes), which
	// a variant of numba-cuda need not survive: swapcheck's fixes.
	Hardened bool
}

// registry is every variant, in the order of the fix's history: one line
// per variant.
var registry = []Variant{
	{naive.Protocol, Buggy, false},
	{swap.GlobalLock, Correct, false},
	{swap.RefcountUnregistered, Buggy, false},
	{swap.RefcountDel, Buggy, false},
	{swap.Merged, Correct, false},
	{swap.Proposed, Correct, true},
	{swap.MergedFix, Correct, true},
}

// All returns every registered variant, in registry order.
func All() []Variant { return append([]Variant(nil), registry...) }

// Protocols returns every registered variant's listing, in registry order.
func Protocols() []*model.Protocol {
	out := make([]*model.Protocol, len(registry))
	for i, v := range registry {
		out[i] = v.Protocol
	}
	return out
}

// Lookup finds a variant by its protocol's name.
func Lookup(name string) (Variant, error) {
	names := make([]string, len(registry))
	for i, v := range registry {
		if v.Protocol.Name == name {
			return v, nil
		}
		names[i] = v.Protocol.Name
	}
	return Variant{}, fmt.Errorf("unknown protocol %q (want one of %s)", name, strings.Join(names, ", "))
}
