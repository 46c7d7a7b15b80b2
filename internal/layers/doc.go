// Package layers holds the test that makes HACKING.md's import rules
// executable. It reads the layer order from HACKING.md's table "Layers
// and packages", the one copy of it, and the module's package graph with
// go list. It fails on any non-test import against the layer order, on a
// package the table does not name, on a row that names no package, and
// on any import of the simulated device's packages (sim/...) beyond the
// wire description it may read.
package layers
