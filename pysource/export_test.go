package pysource

// Fingerprint is fingerprint, for the cache's tests.
var Fingerprint = fingerprint
