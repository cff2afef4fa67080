// Package memory bounds the memory a search may take: it parses sizes
// (-max-memory 500MiB), reads what the machine has and what this process
// holds (on Linux, /proc), and gives a search the questions it asks as
// plain funcs, so that package sched reads no OS.
//
// A caller does, in order:
//
//  1. parse the bound with ParseSize (or use Size as a flag.Value), or
//     take Default, a share of the machine's memory;
//  2. make a Bound with New, and give its Over and Afford to the
//     search (check.Config.MaxMemory does it for Explore);
//  3. after the search, ask Reason why it was over, if it was.
//
// What is measured is the resident set (RSS): what the kernel counts
// against the machine, and what its out-of-memory killer judges. A
// search's visited set is mapped outside the Go heap (see sched's slabs),
// where runtime/metrics does not see it, so Go's own counts are not
// enough.
package memory
