package scenario

import (
	"fmt"
	"slices"
	"strings"
)

// FakeAttrs are the public attributes of the fake module a launch swaps in
// (FakeCUDAModule, numba_cuda/numba/cuda/simulator/kernelapi.py: the
// attributes its __init__ sets and its properties and methods, the same at
// every numba-cuda commit swapcheck models, 55a84eb7 to HEAD). A use of
// another attribute would fail on the fake too, with or without a race, so
// the parser refuses it.
var FakeAttrs = []string{
	"atomic", "blockDim", "blockIdx", "brev", "cbrt", "cg", "clz", "const",
	"ffs", "fma", "fp16", "grid", "gridDim", "gridsize", "laneid", "local",
	"popc", "selp", "shared", "syncthreads", "syncthreads_and",
	"syncthreads_count", "syncthreads_or", "threadIdx", "threadfence",
	"threadfence_block", "threadfence_system", "warpsize",
}

// checkFakeAttr refuses an attribute FakeCUDAModule does not have.
func checkFakeAttr(attr string) error {
	if slices.Contains(FakeAttrs, attr) {
		return nil
	}
	return fmt.Errorf("the fake module (FakeCUDAModule) has no attribute %s (it has %s)", pyName(attr), strings.Join(FakeAttrs, ", "))
}
