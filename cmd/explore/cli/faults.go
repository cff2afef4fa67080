package cli

import (
	"swapcheck/scenario"
)

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
