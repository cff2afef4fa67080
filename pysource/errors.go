package pysource

import (
	"errors"
	"fmt"
	"strings"

	"swapcheck/pyvm"
)

// NoPythonError: no supported interpreter was found (or none of the
// version asked for).
type NoPythonError struct {
	Want  string        // the version asked for, "" for any
	Found []Interpreter // the interpreters found (none supported or of that version)
	Where string        // where the search looked
}

func (e *NoPythonError) Error() string {
	want := "supported Python (" + supported() + ")"
	if e.Want != "" {
		want = "Python " + e.Want
	}
	found := "none"
	if len(e.Found) > 0 {
		var fs []string
		for _, f := range e.Found {
			fs = append(fs, f.String())
		}
		found = strings.Join(fs, ", ")
	}
	return fmt.Sprintf("no %s found (looked in %s; found: %s); pass -python PATH", want, e.Where, found)
}

// UnsupportedVersionError: the interpreter given is not a supported
// CPython.
type UnsupportedVersionError struct{ Interp Interpreter }

func (e *UnsupportedVersionError) Error() string {
	return fmt.Sprintf("%s is not supported (supported: CPython %s)", e.Interp, supported())
}

// NotPythonError: the path given does not run as a Python interpreter.
type NotPythonError struct {
	Path   string
	Reason string
	// transient: the run timed out (it may answer another time, so the
	// probe cache does not keep it)
	transient bool
}

func (e *NotPythonError) Error() string {
	return fmt.Sprintf("%s does not run as a Python interpreter: %s", e.Path, e.Reason)
}

// StaleInterpreterError: the interpreter that ran the helper is not the
// one Find said (the probe cache kept an answer its fingerprint did not
// see change); Open then runs every candidate again.
type StaleInterpreterError struct{ Interp, Now Interpreter }

func (e *StaleInterpreterError) Error() string {
	return fmt.Sprintf("%s was expected at %s, but %s answered; run again", e.Interp.Release(), e.Interp.Path, e.Now)
}

// NoFileError: the file to check does not exist or cannot be read.
type NoFileError struct{ File, Reason string }

func (e *NoFileError) Error() string { return e.File + ": " + e.Reason }

// SyntaxError: CPython could not compile the file; Message is its own,
// on one line ("FILE:LINE: SyntaxError: invalid syntax").
type SyntaxError struct{ Message string }

func (e *SyntaxError) Error() string { return e.Message }

// NoFunctionError: the file defines no top-level function of that name.
type NoFunctionError = pyvm.NoFunctionError

// HelperError: the helper did not give a usable answer.
type HelperError struct {
	Interp Interpreter
	Reason string
}

func (e *HelperError) Error() string {
	return fmt.Sprintf("%s: the front-end helper failed: %s", e.Interp, e.Reason)
}

func supported() string {
	var vs []string
	for _, v := range pyvm.Versions {
		vs = append(vs, v.String())
	}
	return strings.Join(vs, ", ")
}

// oneLine keeps a message on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// FindFailed reports whether err is Find's: no interpreter, or none that
// runs or is supported (Open's caller says so in its own words).
func FindFailed(err error) bool {
	var (
		none  *NoPythonError
		notPy *NotPythonError
		unsup *UnsupportedVersionError
	)
	return errors.As(err, &none) || errors.As(err, &notPy) || errors.As(err, &unsup)
}
