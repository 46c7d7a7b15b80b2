// Package selftest is vccube -selftest.
package selftest
