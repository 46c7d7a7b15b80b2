module github.com/vccube/vccube

go 1.26.0

require (
	github.com/go-gl/mathgl v1.2.0
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
)
