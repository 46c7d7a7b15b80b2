package termview

import "testing"

// The expected layouts are worked out by hand from the rule in layout.go's
// comment: the largest picture with the frame's aspect ratio (half a cell
// square unless pixel sizes are known), centred, its top on a cell
// boundary.
func TestLayout(t *testing.T) {
	tests := []struct {
		name       string
		size       Size
		srcW, srcH int
		caption    bool
		// want
		imgW, imgH, col0, row0, cellRows, captionRow int
	}{
		// 4×4 pixels into 4 columns × 2 rows = 4×4 half-cell pixels: one to one.
		{"4x4 in 4x2", Size{Cols: 4, Rows: 2}, 4, 4, false, 4, 4, 0, 0, 2, -1},
		// Into 2×1 cells = 2×2 pixels: each pixel averages 2×2.
		{"4x4 in 2x1", Size{Cols: 2, Rows: 1}, 4, 4, false, 2, 2, 0, 0, 1, -1},
		// 6×3 into 6×3 cells = 6×6 pixels: full height would be 12 wide,
		// so full width: 6×3. Free rows: 3 half cells; the top goes to
		// the cell boundary above the centre (row 0), and the picture's
		// last cell row has a blank lower half.
		{"6x3 in 6x3", Size{Cols: 6, Rows: 3}, 6, 3, false, 6, 3, 0, 0, 2, -1},
		// 6×3 into 8×5 = 8×10 pixels: full width 8 → height round(8·3/6) = 4;
		// free 6 half cells → 3 → row 1 (rounded down to a cell: 3/2 = 1).
		{"6x3 in 8x5", Size{Cols: 8, Rows: 5}, 6, 3, false, 8, 4, 0, 1, 2, -1},
		// The benchmark's case: 800×600 into 200×60 = 200×120 pixels:
		// full height 120 → width 160, centred at column 20.
		{"800x600 in 200x60", Size{Cols: 200, Rows: 60}, 800, 600, false, 160, 120, 20, 0, 60, -1},
		// A caption takes the last row: 80×23 cells = 80×46 pixels; width
		// round(46·800/600) = round(61.33) = 61, column (80−61)/2 = 9.
		{"800x600 in 80x24 with caption", Size{Cols: 80, Rows: 24}, 800, 600, true, 61, 46, 9, 0, 23, 23},
		// A one-row window keeps its row for the picture.
		{"caption without room", Size{Cols: 4, Rows: 1}, 4, 4, true, 2, 2, 1, 0, 1, -1},
		// A portrait frame: 100×400 into 80×24 = 80×48: width 12, column 34.
		{"portrait", Size{Cols: 80, Rows: 24}, 100, 400, false, 12, 48, 34, 0, 24, -1},
		// Pixel sizes given: 100×50 cells in 1000×800 pixels are 10×16
		// cells, half cells 10 wide by 8 tall (aspect 1.25). 800×600:
		// full height 100 needs width 100·(4/3)/1.25 = 106.7 > 100, so
		// width 100 and height round(100·0.75·1.25) = round(93.75) = 94;
		// free 6 → row 1 (6/2 = 3 half cells, rounded down to a cell).
		{"pixel aspect", Size{Cols: 100, Rows: 50, XPixel: 1000, YPixel: 800}, 800, 600, false, 100, 94, 0, 1, 47, -1},
		// Square half cells reported as pixels give the same as none.
		{"square pixels", Size{Cols: 200, Rows: 60, XPixel: 1600, YPixel: 960}, 800, 600, false, 160, 120, 20, 0, 60, -1},
		// A frame far wider than the window still gets one pixel row.
		{"thin", Size{Cols: 10, Rows: 5}, 1000, 1, false, 10, 1, 0, 2, 1, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := newLayout(tc.size, tc.srcW, tc.srcH, tc.caption)
			if err != nil {
				t.Fatal(err)
			}
			got := [6]int{l.imgW, l.imgH, l.col0, l.row0, l.cellRows, l.captionRow}
			want := [6]int{tc.imgW, tc.imgH, tc.col0, tc.row0, tc.cellRows, tc.captionRow}
			if got != want {
				t.Errorf("imgW, imgH, col0, row0, cellRows, captionRow = %v, want %v", got, want)
			}
		})
	}
}

func TestLayoutErrors(t *testing.T) {
	for _, tc := range []struct {
		size Size
		w, h int
	}{
		{Size{Cols: 0, Rows: 10}, 4, 4},
		{Size{Cols: 10, Rows: 0}, 4, 4},
		{Size{Cols: 10, Rows: 10}, 0, 4},
	} {
		if _, err := newLayout(tc.size, tc.w, tc.h, false); err == nil {
			t.Errorf("newLayout(%+v, %d, %d) succeeded", tc.size, tc.w, tc.h)
		}
	}
}
