// Package layers holds the test that makes HACKING.md's import rules
// executable: it reads the module's package graph with go list and fails on
// any non-test import against the layer order, or any import of the
// simulated device's packages (sim/...) beyond the wire description it
// may read. The rules are data in layers_test.go; change them there and in
// HACKING.md together.
package layers
