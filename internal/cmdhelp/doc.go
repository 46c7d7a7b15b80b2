// Package cmdhelp holds the check that every command of the module says
// what it is for: its test builds each main package and runs it with -h
// (which must start with a sentence naming the command and what it does,
// list its flags and exit 0, writing nothing) and with a flag it does not
// have (which must exit 2 and say so).
package cmdhelp
