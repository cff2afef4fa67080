package testenv

// CoverFor is Cover with the switch given, so that one test binary checks
// both samples.
var CoverFor = cover
