package testfiles

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"sync"
)

// Screenshot returns a w x h PNG that looks to an encoder like a desktop screenshot: flat panels
// (a title bar, a sidebar, a white page) and rows of dark "text" strokes that vary pixel by pixel,
// about 360 KB at 1920 x 1080. seed makes each one distinct: it is written into a tEXt chunk, so
// that screenshots of one size share the (slow) encoding of the pixels.
func Screenshot(w, h int, seed uint64) []byte {
	base := screenshotBase(max(w, 1), max(h, 1))
	iend := len(base) - 12 // the IEND chunk is the last 12 bytes
	text := append([]byte("Comment\x00turn "), binary.BigEndian.AppendUint64(nil, seed)...)
	var b bytes.Buffer
	b.Grow(len(base) + len(text) + 12)
	b.Write(base[:iend])
	_ = binary.Write(&b, binary.BigEndian, uint32(len(text)))
	c := crc32.NewIEEE()
	c.Write([]byte("tEXt"))
	c.Write(text)
	b.WriteString("tEXt")
	b.Write(text)
	_ = binary.Write(&b, binary.BigEndian, c.Sum32())
	b.Write(base[iend:])
	return b.Bytes()
}

var screenshotBases sync.Map // [2]int -> []byte

func screenshotBase(w, h int) []byte {
	if b, ok := screenshotBases.Load([2]int{w, h}); ok {
		return b.([]byte)
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	fill := func(r image.Rectangle, c color.RGBA) {
		r = r.Intersect(img.Rect)
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				img.SetRGBA(x, y, c)
			}
		}
	}
	fill(img.Rect, color.RGBA{0xff, 0xff, 0xff, 0xff})
	fill(image.Rect(0, 0, w, h/20), color.RGBA{0x2b, 0x57, 0x9a, 0xff})
	fill(image.Rect(0, h/20, w/6, h), color.RGBA{0xf0, 0xf0, 0xf0, 0xff})
	x32 := uint32(2463534242)
	next := func() uint32 {
		x32 ^= x32 << 13
		x32 ^= x32 >> 17
		x32 ^= x32 << 5
		return x32
	}
	for top := h/20 + 24; top+14 < h; top += 26 {
		end := w/6 + 40 + int(next()%uint32(max(w*3/4-w/6, 1)))
		for y := top; y < top+14; y++ {
			for x := w/6 + 40; x < end && x < w; x++ {
				if v := next(); v%3 == 0 {
					g := uint8(v >> 24 & 0x7f)
					img.SetRGBA(x, y, color.RGBA{g, g, g, 0xff})
				}
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic("testfiles: png: " + err.Error())
	}
	b, _ := screenshotBases.LoadOrStore([2]int{w, h}, buf.Bytes())
	return b.([]byte)
}
