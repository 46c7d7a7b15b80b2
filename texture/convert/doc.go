// Package convert is the client's texture encoder: it converts linear
// pictures into the T, LT and raster layouts that package texture
// describes and back (FromLinear, ToLinear), fills a mip chain's levels
// (Upload), and makes the smaller levels with a box filter (Downsample,
// GenerateMips). The flipRows argument of every converter is the
// FlipByCPU alternative of texture.FlipMode: picture row r goes to memory
// row Height-1-r.
//
// The simulated device (package sim) may not import this package: the
// model reads texture memory through package texture's layout description
// only, so a converter that puts a pixel in the wrong place shows on the
// simulated GPU as it would on a Pi.
package convert
