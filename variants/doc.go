// Package variants is the one registry of the modelled variants of
// swapped_cuda_module: each listing (package naive or swap) with whether
// it is expected correct. Everything that needs every variant reads it:
// the searches and their tests (through check.Protocols and
// check.Lookup), the verdict table, the CLI's -list, stress's default
// cases, and this package's tests, which check each listing against
// CPython's disassembly of its Python file and fail when a listing, a
// Python file or a registry line is missing (see docs/contributing.md).
//
// It sits between check and the listings (check -> variants -> naive,
// swap -> model) so that model's black-box tests, which drive a World
// with every listing, can read the list without importing check.
package variants
