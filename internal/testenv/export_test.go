package testenv

// RotateFor is Rotate with the switch given, so that one test binary
// checks both.
var RotateFor = rotate

// PairwiseFor is Pairwise with the switch given.
var PairwiseFor = pairwise
