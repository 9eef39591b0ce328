package imaging

import (
	"image"
	"image/color"
)

// scale resamples img to w x h with an area-average (box) filter of exact fractional coverage:
// every output pixel is the mean of the source pixels under its footprint, each weighted by the
// part of it the footprint covers. It averages premultiplied RGBA (what image.RGBA holds, so a
// fully transparent pixel adds no colour) at 16 bits per channel, the values of the source's
// RGBA(), and rounds to the nearest 8-bit value. Every source pixel counts, so fine detail averages
// out instead of aliasing into moiré, at any factor.
//
// It writes straight into the w x h result: besides it, it holds two rows of sums of the output's
// width (the current source row summed into output columns, and the output row being built) and a
// buffer of a few source pixels, and it reads each source pixel once. It is meant for downscaling
// (fit never enlarges); an axis where the target is larger than the source (aspect rounding)
// works too, each output pixel then taking the one or two source pixels it overlaps. (Before it,
// x/image/draw's Catmull-Rom held a float64 buffer of w x the source height, 4x a 20 MB PNG, and
// two ApproxBiLinear steps an intermediate image of twice the target size.)
//
// Along an axis with n source and m output pixels, the exact coverage is integer arithmetic: in
// units of 1/m of a source pixel, source pixel i spans [i*m, (i+1)*m) and output pixel o spans
// [o*n, (o+1)*n), so their overlap is a whole number of units and every output pixel's weights
// add up to n.
func scale(img image.Image, w, h int) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	b := img.Bounds()
	sw, sh := b.Dx(), b.Dy()
	if w <= 0 || h <= 0 || sw <= 0 || sh <= 0 {
		return dst
	}
	read := readerOf(img)
	px := make([]uint32, 4*min(sw, readChunk))
	line := make([]uint64, 4*w) // the current source row, summed into output columns
	acc := make([]uint64, 4*w)  // the output row being built, summed over source rows
	// An output pixel's weights add up to sw*sh; the sums are of 16-bit values (0x101 per 8-bit step).
	div := uint64(sw) * uint64(sh) * 0x101
	oy, edge, pos := 0, sh, 0 // vertical: output row, its end, the current source row's start
	for sy := range sh {
		sumRow(line, px, read, b.Min.X, b.Min.Y+sy, sw, w)
		next := pos + h
		for next >= edge { // the source row reaches the end of output row oy: finish that row
			addRow(acc, line, edge-pos)
			emit(dst.Pix[oy*dst.Stride:oy*dst.Stride+4*w], acc, div)
			clear(acc)
			pos, oy, edge = edge, oy+1, edge+sh
		}
		addRow(acc, line, next-pos) // after the last row: weight 0 into the cleared sums
		pos = next
	}
	return dst
}

// readChunk is how many source pixels a pixelReader converts at a time.
const readChunk = 256

// sumRow sets line to source row y (sw pixels from x0) summed into w output columns, each pixel
// weighted by its overlap with the column in units of 1/w of a pixel (a column spans sw units).
// The pixels wholly inside a column (weight w) are summed unweighted and multiplied once.
func sumRow(line []uint64, px []uint32, read pixelReader, x0, y, sw, w int) {
	ox, edge, pos := 0, sw, 0 // output column, its end, the current source pixel's start
	var r, g, b, a uint64     // unweighted sums of the whole pixels in column ox
	var part [4]uint64        // weighted sums of the pixels that column ox shares with a neighbour
	for x := 0; x < sw; x += len(px) / 4 {
		n := min(len(px)/4, sw-x)
		read(px[:4*n], x0+x, y)
		for i := 0; i < 4*n; i += 4 {
			p := px[i : i+4 : i+4]
			next := pos + w
			if next <= edge {
				r, g, b, a = r+uint64(p[0]), g+uint64(p[1]), b+uint64(p[2]), a+uint64(p[3])
				pos = next
				continue
			}
			for next > edge { // the pixel crosses the end of column ox: finish the column
				addPixel(part[:], p, edge-pos)
				c := line[4*ox : 4*ox+4 : 4*ox+4]
				wt := uint64(w)
				c[0], c[1], c[2], c[3] = r*wt+part[0], g*wt+part[1], b*wt+part[2], a*wt+part[3]
				r, g, b, a, part = 0, 0, 0, 0, [4]uint64{}
				pos, ox, edge = edge, ox+1, edge+sw
			}
			addPixel(part[:], p, next-pos)
			pos = next
		}
	}
	c := line[4*ox : 4*ox+4 : 4*ox+4] // the last column, ox = w-1
	wt := uint64(w)
	c[0], c[1], c[2], c[3] = r*wt+part[0], g*wt+part[1], b*wt+part[2], a*wt+part[3]
}

func addPixel(s []uint64, p []uint32, weight int) {
	wt := uint64(weight)
	s[0] += uint64(p[0]) * wt
	s[1] += uint64(p[1]) * wt
	s[2] += uint64(p[2]) * wt
	s[3] += uint64(p[3]) * wt
}

func addRow(acc, line []uint64, weight int) {
	if weight == 0 {
		return
	}
	wt := uint64(weight)
	line = line[:len(acc)]
	for i, s := range line {
		acc[i] += s * wt
	}
}

// emit writes the rounded means of acc (sums of 16-bit values with weights adding up to div/0x101)
// as 8-bit channels: (2s + div) / 2div, by a multiplication with the reciprocal corrected by one,
// several times faster than dividing; exact while 2s + div < 2^53 (sources under 2^35 pixels).
func emit(row []uint8, acc []uint64, div uint64) {
	row = row[:len(acc)]
	d := 2 * div
	inv := 1 / float64(d)
	for i, s := range acc {
		n := 2*s + div
		q := uint64(float64(n) * inv)
		if q*d > n {
			q--
		} else if (q+1)*d <= n {
			q++
		}
		row[i] = uint8(q)
	}
}

// pixelReader sets px (4 per pixel) to the premultiplied 16-bit RGBA of source pixels (x, y),
// (x+1, y), ..., the values img.At(x, y).RGBA() gives.
type pixelReader func(px []uint32, x, y int)

// readerOf reads the types the decoders produce from their pixel arrays, every other type through
// RGBA64At or, failing that, At.
func readerOf(img image.Image) pixelReader {
	switch s := img.(type) {
	case *image.RGBA: // PNG (opaque truecolour), BMP, TIFF
		return func(px []uint32, x, y int) {
			src := s.Pix[s.PixOffset(x, y):]
			src = src[:len(px)]
			for i, v := range src {
				px[i] = uint32(v) * 0x101
			}
		}
	case *image.NRGBA: // PNG with alpha, WEBP
		return func(px []uint32, x, y int) {
			src := s.Pix[s.PixOffset(x, y):]
			src = src[:len(px)]
			for i := 0; i < len(px); i += 4 {
				a := uint32(src[i+3]) // as color.NRGBA.RGBA premultiplies
				px[i] = uint32(src[i]) * 0x101 * a / 0xff
				px[i+1] = uint32(src[i+1]) * 0x101 * a / 0xff
				px[i+2] = uint32(src[i+2]) * 0x101 * a / 0xff
				px[i+3] = a * 0x101
			}
		}
	case *image.YCbCr: // JPEG
		shift := 0 // of x to its chroma column: 4:4:4 and 4:4:0 have one per pixel
		switch s.SubsampleRatio {
		case image.YCbCrSubsampleRatio422, image.YCbCrSubsampleRatio420:
			shift = 1
		case image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410:
			shift = 2
		}
		return func(px []uint32, x, y int) {
			yi, ci := s.YOffset(x, y), s.COffset(x, y)
			for i := 0; i < len(px); i += 4 {
				r, g, b, _ := color.YCbCr{Y: s.Y[yi], Cb: s.Cb[ci], Cr: s.Cr[ci]}.RGBA()
				px[i], px[i+1], px[i+2], px[i+3] = r, g, b, 0xffff
				x, yi = x+1, yi+1
				if x <= 0 { // COffset divides, rounding towards zero
					ci = s.COffset(x, y)
				} else if x&(1<<shift-1) == 0 { // x enters the next chroma column
					ci++
				}
			}
		}
	case *image.Gray: // grey JPEG and PNG
		return func(px []uint32, x, y int) {
			src := s.Pix[s.PixOffset(x, y):]
			src = src[:len(px)/4]
			for i, v := range src {
				g := uint32(v) * 0x101
				px[4*i], px[4*i+1], px[4*i+2], px[4*i+3] = g, g, g, 0xffff
			}
		}
	case image.RGBA64Image: // paletted, 16-bit, CMYK, NYCbCrA: no colour.Color per pixel
		return func(px []uint32, x, y int) {
			for i := 0; i < len(px); i, x = i+4, x+1 {
				c := s.RGBA64At(x, y)
				px[i], px[i+1], px[i+2], px[i+3] = uint32(c.R), uint32(c.G), uint32(c.B), uint32(c.A)
			}
		}
	}
	return func(px []uint32, x, y int) {
		for i := 0; i < len(px); i, x = i+4, x+1 {
			px[i], px[i+1], px[i+2], px[i+3] = img.At(x, y).RGBA()
		}
	}
}
