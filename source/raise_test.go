package source_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/pysource"
	"swapcheck/pyvm"
	"swapcheck/scenario"
	"swapcheck/source"
	"swapcheck/variants"
)

// raiseShapes are worlds of the raise fault beyond the verdict table's
// row: with several hosts (a host runs the kernel inline), with the
// host's own calls, with barriers (a lingering thread raises at its
// abort flag), and with two blocks and two faults (a failed block's
// later blocks never start).
var raiseShapes = map[string]scenario.Shape{
	"-threads 2 -hosts 2 -faults raise":                {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Hosts: 2},
	"-threads 2 -host-calls -faults raise":             {Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, HostCalls: true},
	"-threads 2 -calls 2 -syncthreads -faults raise":   {Threads: 2, Blocks: 1, Calls: 2, Modules: 1, Names: 1, Syncthreads: true},
	"-threads 2 -blocks 2 -faults raise -max-faults 2": {Threads: 2, Blocks: 2, Calls: 1, Modules: 1, Names: 1, MaxFaults: 2},
}

// TestRaiseFaultWorldsAgree: on raiseShapes, each variant's file from
// source and its listing agree on the verdict, and each side's first
// violation kind is reachable on the other (as TestListingsAgree's heavy
// cells: a complete search for every kind is left to the table's row
// and the scenario files there). By default under gil with CPython 3.12,
// each variant on one shape, the shapes taken in turn along the variants
// (every shape runs); SWAPCHECK_LONG=1: every shape, in every mode.
func TestRaiseFaultWorldsAgree(t *testing.T) {
	modes := []model.Atomicity{model.GIL}
	if testenv.Long() {
		modes = model.Atomicities()
	}
	names := slices.Sorted(maps.Keys(raiseShapes))
	i := 0
	for _, v := range variants.All() {
		if _, out := notFromSource[v.Protocol.Name]; out {
			continue
		}
		shapes := testenv.Rotate(i, len(names))
		i++
		t.Run(v.Protocol.Name, func(t *testing.T) {
			src, err := pysource.Load(interpreter(t, pyvm.V312), pythonFile(v))
			require.NoError(t, err)
			for _, si := range shapes {
				name, sh := names[si], raiseShapes[names[si]]
				sh.Faults = sh.Faults.With(scenario.FaultRaise)
				sc, err := sh.Build()
				require.NoError(t, err)
				for _, a := range modes {
					if v.Protocol.ThreadContext && a != model.GIL {
						// swapcheck's own fixes: under gil only, for CI's
						// budget; TestListingsAgree compares them in every
						// mode on raise-fault.txt and aborted-launch.txt
						continue
					}
					p, err := source.LoadWith(src, sc, a, source.Options{ThreadContext: v.Protocol.ThreadContext})
					require.NoError(t, err)
					listing := listingOutcome(t, v, sc, a, false)
					got := sourceOutcome(t, p, false)
					require.Empty(t, disagreements(t, listing, got), "%s, %s, %s", v.Protocol.Name, name, a)
				}
			}
		})
	}
}
