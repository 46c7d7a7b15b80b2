// Package readme holds the test that keeps the README honest: it runs every
// command the README's code blocks show (those that can run without a
// Raspberry Pi, root, qemu or a network) on the simulated device, and
// checks that each sample output block has the shape of the current
// program's output: the same lines with the same words, whatever the
// numbers. The commands it does not run are listed in readme_test.go, each
// with the reason.
package readme
