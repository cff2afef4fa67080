package scenario

import (
	"fmt"
	"strconv"
	"strings"
)

// Faults: the asynchronous faults a search explores, besides the
// interleavings. A fault is a move of its own (a pseudo-thread of the
// program, see interrupt.go), so every strategy explores where it falls as
// it explores the order of threads, and a scenario's MaxFaults bounds how
// many fall in one execution.
//
// The registry (FaultKinds) is the one list of them: -faults, the scenario
// file's "faults" directive, -list and the docs read it.

// Fault is one kind of asynchronous fault.
type Fault uint8

const (
	// FaultInterrupt: a KeyboardInterrupt (SIGINT, Ctrl-C) raised in the
	// host (main) thread at one of CPython 3.11's eval-breaker checks
	// (interrupt.go; docs/cpython-switch-points.md).
	FaultInterrupt Fault = 1 + iota
	// FaultRaise: a statement of a kernel or device-function body raises
	// an exception (a user's kernel error) instead of running, in
	// whichever thread runs it (raisefault.go).
	FaultRaise
)

// FaultKind names a fault and says in one line what it is.
type FaultKind struct {
	Fault   Fault
	Name    string
	Summary string
}

// FaultKinds lists every fault kind, in the order -list prints them.
var FaultKinds = []FaultKind{
	{FaultInterrupt, "interrupt", "a KeyboardInterrupt (Ctrl-C) reaches the host (main) thread at one of CPython 3.11's eval-breaker checks; the host's caller catches it and goes on"},
	{FaultRaise, "raise", "a statement of a kernel or device-function body raises (KernelError, standing for any exception a user's kernel raises) instead of running, in whichever thread runs it, as a scenario's raise statement there would"},
}

// Faults is a set of fault kinds (bit f-1 for Fault f); the zero value
// is none.
type Faults uint8

// Has reports whether fs holds f.
func (fs Faults) Has(f Fault) bool { return fs&(1<<(f-1)) != 0 }

// With is fs with f.
func (fs Faults) With(f Fault) Faults { return fs | 1<<(f-1) }

// String is the set as -faults spells it: names joined by commas, in
// registry order; "" for none.
func (fs Faults) String() string {
	var names []string
	for _, k := range FaultKinds {
		if fs.Has(k.Fault) {
			names = append(names, k.Name)
		}
	}
	return strings.Join(names, ",")
}

// ParseFaults reads a comma-separated list of fault names ("" is none).
// An unknown name is an error that names it and the known ones.
func ParseFaults(s string) (Faults, error) {
	var fs Faults
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		found := false
		for _, k := range FaultKinds {
			if k.Name == name {
				fs, found = fs.With(k.Fault), true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown fault %q (want %s)", name, faultNames())
		}
	}
	return fs, nil
}

func faultNames() string {
	var names []string
	for _, k := range FaultKinds {
		names = append(names, k.Name)
	}
	return strings.Join(names, ", ")
}

// MaxFaultsBound bounds the faults per execution a search may ask for.
const MaxFaultsBound = 3

// FaultBound is how many faults one execution of sc may have: MaxFaults,
// or 1 when it is 0 and sc has faults; 0 without faults.
func (sc *Scenario) FaultBound() int {
	if sc.Faults == 0 {
		return 0
	}
	return max(sc.MaxFaults, 1)
}

// validateFaults checks a scenario's faults against what the model can
// explore.
func (sc *Scenario) validateFaults() error {
	switch {
	case sc.MaxFaults < 0 || sc.MaxFaults > MaxFaultsBound:
		return fmt.Errorf("max-faults must be 1..%d, got %d", MaxFaultsBound, sc.MaxFaults)
	}
	return nil
}

// faultLines is the scenario file's rendering of sc's faults (see String).
func (sc *Scenario) faultLines() string {
	if sc.Faults == 0 {
		return ""
	}
	s := "faults " + sc.Faults.String() + "\n"
	if sc.MaxFaults > 1 {
		s += "max-faults " + strconv.Itoa(sc.MaxFaults) + "\n"
	}
	return s
}

// parseFaultDirective reads a scenario file's "faults NAME,..." or
// "max-faults N" line into sc.
func (sc *Scenario) parseFaultDirective(word, rest string) error {
	rest = strings.TrimSpace(rest)
	if word == "faults" {
		fs, err := ParseFaults(strings.ReplaceAll(rest, " ", ","))
		if err != nil {
			return err
		}
		if fs == 0 {
			return fmt.Errorf("faults needs at least one fault: faults %s", faultNames())
		}
		sc.Faults = fs
		return nil
	}
	v, err := strconv.Atoi(rest)
	if err != nil {
		return fmt.Errorf("max-faults takes a whole number, got %q", rest)
	}
	if v < 1 || v > MaxFaultsBound {
		return fmt.Errorf("max-faults must be 1..%d, got %d", MaxFaultsBound, v)
	}
	sc.MaxFaults = v
	return nil
}
