// Command explore model-checks a swapped_cuda_module variant: it searches
// the interleavings of a simulated kernel launch for a violation of the
// swap's invariants and prints the counterexample as a trace.
//
//	go run ./cmd/explore -protocol naive
//	go run ./cmd/explore -protocol merged -threads 3
//	go run ./cmd/explore -list
//
// Exit status: 0 no violation, 1 violation, 2 bad usage or input,
// 3 incomplete. See -h for every flag.
package main

import (
	"os"

	"swapcheck/cmd/explore/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}
