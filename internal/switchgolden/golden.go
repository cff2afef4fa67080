// Package switchgolden reads testdata/cpython/switchpoints.golden.txt, the
// switch points that testdata/cpython/switchpoints.py observed on real
// CPython: for each function of testdata/python and the launch, each
// instruction with its line, the static kind of its eval-breaker check
// and where interrupts set before it landed. The model's tests render the
// doc tables from it; the tests of the listings (check/worldtest) check
// each listing's claims against it. Only tests import this package.
package switchgolden

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Path is the golden file, relative to the module's root.
const Path = "testdata/cpython/switchpoints.golden.txt"

// Instr is one instruction line of the golden file.
type Instr struct {
	Offset     int
	Opname     string
	Line       string // "27", or "107 (k:128)" for launch.py
	Static     string // "breaker", "precall", "call" or "-"
	Cold, Warm []string
	Probed     bool // the line carries interrupt lists
}

// Func is one function of the golden file.
type Func struct {
	Header string // "name (file:line)"
	Name   string
	Instrs []Instr
}

// Parse reads the golden file's functions (the format the model's
// switch-point test writes).
func Parse(text string) ([]Func, error) {
	var fns []Func
	for i, raw := range strings.Split(text, "\n") {
		if raw == "" || strings.HasPrefix(raw, "#") {
			continue
		}
		bad := fmt.Errorf("golden line %d: %q", i+1, raw)
		if h, ok := strings.CutPrefix(raw, "== "); ok {
			head, _, ok := strings.Cut(h, " scenarios:")
			if !ok {
				return nil, bad
			}
			name, _, _ := strings.Cut(head, " ")
			fns = append(fns, Func{Header: head, Name: name})
			continue
		}
		if len(fns) == 0 {
			return nil, fmt.Errorf("golden line %d before any function", i+1)
		}
		parts := strings.Split(raw, " | ")
		fields := strings.SplitN(strings.TrimSpace(parts[0]), ", ", 3)
		if len(fields) != 3 {
			return nil, bad
		}
		head := strings.Fields(fields[0])
		if len(head) != 3 {
			return nil, bad
		}
		off, err := strconv.Atoi(head[0])
		if err != nil {
			return nil, bad
		}
		ins := Instr{
			Offset: off,
			Opname: head[1],
			Line:   strings.TrimPrefix(fields[1], "line "),
			Static: fields[2],
		}
		if len(parts) == 3 {
			ins.Probed = true
			ins.Cold = landingList(parts[1])
			ins.Warm = ins.Cold
			if w := strings.TrimSpace(parts[2]); w != "=" {
				ins.Warm = landingList(w)
			}
		}
		fn := &fns[len(fns)-1]
		fn.Instrs = append(fn.Instrs, ins)
	}
	return fns, nil
}

// Read parses the golden file at path.
func Read(path string) ([]Func, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(string(text))
}

func landingList(s string) []string {
	s = strings.TrimSpace(s)
	if s == "-" || s == "" {
		return nil
	}
	return strings.Fields(s)
}
