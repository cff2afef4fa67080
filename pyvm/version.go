package pyvm

import "fmt"

// Version is a CPython feature version (3.11, 3.12, ...): the bytecode,
// its exception table and its eval-breaker checks change between feature
// versions and not between their bug-fix releases (the interpreter's
// micro version is the front-end's to report).
type Version struct{ Major, Minor int }

// The versions whose bytecode the interpreter runs.
var (
	V311 = Version{3, 11}
	V312 = Version{3, 12}
	V313 = Version{3, 13}
)

// Versions is the one registry of supported versions, oldest first:
// the front-end picks among them, the tests run each.
var Versions = []Version{V311, V312, V313}

// Supported reports whether v is in Versions.
func (v Version) Supported() bool {
	for _, s := range Versions {
		if s == v {
			return true
		}
	}
	return false
}

// Less orders versions.
func (v Version) Less(w Version) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	return v.Minor < w.Minor
}

// AtLeast reports whether v is w or newer.
func (v Version) AtLeast(w Version) bool { return !v.Less(w) }

func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// ParseVersion reads "3.12".
func ParseVersion(s string) (Version, error) {
	var v Version
	var rest string
	n, _ := fmt.Sscanf(s, "%d.%d%s", &v.Major, &v.Minor, &rest)
	if n != 2 || fmt.Sprintf("%d.%d", v.Major, v.Minor) != s {
		return Version{}, fmt.Errorf("not a Python version (want MAJOR.MINOR, e.g. 3.12): %q", s)
	}
	return v, nil
}
