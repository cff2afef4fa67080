package cli

import (
	"flag"
	"fmt"
	"strings"

	"swapcheck/scenario"
)

// registerFaultFlags adds -faults and -max-faults: the faults a search
// explores besides the interleavings (scenario/faults.go), on the shape's
// scenario or on a scenario file's (where they add to its own "faults"
// line).
func registerFaultFlags(fs *flag.FlagSet, o *options) {
	var names []string
	for _, k := range scenario.FaultKinds {
		names = append(names, k.Name)
	}
	fs.StringVar(&o.faults, "faults", "", "faults to explore besides the interleavings, comma-separated: "+strings.Join(names, ", ")+" (-list says what each does)")
	fs.IntVar(&o.maxFaults, "max-faults", 1, fmt.Sprintf("the most faults in one execution, 1..%d", scenario.MaxFaultsBound))
}

// applyFaults sets the scenario's faults from -faults and -max-faults,
// and validates it, when maxThreads is above 0.
func applyFaults(o *options, sc *scenario.Scenario, maxThreads int) error {
	if o.set["faults"] {
		fs, err := scenario.ParseFaults(o.faults)
		if err != nil {
			return usagef("-faults: %v", err)
		}
		sc.Faults |= fs
	}
	if o.set["max-faults"] {
		if o.maxFaults < 1 || o.maxFaults > scenario.MaxFaultsBound {
			return usagef("-max-faults must be 1..%d, got %d", scenario.MaxFaultsBound, o.maxFaults)
		}
		if sc.Faults == 0 {
			return usagef("-max-faults without faults: give -faults too")
		}
		if o.maxFaults > 1 {
			sc.MaxFaults = o.maxFaults
		}
	}
	if maxThreads == 0 {
		return nil
	}
	if err := sc.ValidateUpTo(maxThreads); err != nil {
		return usageError{err.Error()}
	}
	return nil
}
