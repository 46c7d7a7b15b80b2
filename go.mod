module github.com/vccube/vccube

go 1.24

require (
	github.com/go-gl/mathgl v1.2.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
