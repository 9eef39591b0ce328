package extract

import (
	"context"
	"math"

	"github.com/ledongthuc/pdf"
)

// The parser's own Page.Content decodes the marker it adds after every TJ array through the
// font's encoding (a stray glyph appears at line ends) and measures composite fonts by byte;
// this interpreter walks the content stream itself, one run per shown string, and follows
// form XObjects.

// run is one shown string, in page space.
type run struct {
	x, y, endX, size float64
	s                string
}

// affine is a PDF matrix [a b c d e f].
type affine [6]float64

var identity = affine{1, 0, 0, 1, 0, 0}

// mul returns m × n (m applied first).
func (m affine) mul(n affine) affine {
	return affine{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func translate(x, y float64) affine { return affine{1, 0, 0, 1, x, y} }

// textState is the part of the graphics state text showing depends on.
type textState struct {
	ctm                   affine
	tc, tw, th, tl, trise float64
	tfs                   float64
	font                  *fontInfo
}

// set applies a text state operator of one operand (PDF 32000-1, 9.3): character spacing Tc, word
// spacing Tw, horizontal scaling Tz (in percent), leading TL, rise Ts.
func (g *textState) set(op string, v float64) {
	switch op {
	case "Tc":
		g.tc = v
	case "Tw":
		g.tw = v
	case "Tz":
		g.th = v / 100
	case "TL":
		g.tl = v
	case "Ts":
		g.trise = v
	}
}

// fontInfo is a font's decoder and glyph widths.
type fontInfo struct {
	enc       pdf.TextEncoding
	composite bool // Type0: two-byte codes
	first     int
	widths    []float64
	cidW      map[int]float64
	dw        float64
}

func newFontInfo(v pdf.Value) *fontInfo {
	f := pdf.Font{V: v}
	fi := &fontInfo{enc: f.Encoder(), dw: 1000}
	if fi.enc == nil {
		fi.enc = nopDecoder{}
	}
	if v.Key("Subtype").Name() == "Type0" {
		fi.composite = true
		d := v.Key("DescendantFonts").Index(0)
		if dw := d.Key("DW"); dw.Kind() == pdf.Integer || dw.Kind() == pdf.Real {
			fi.dw = dw.Float64()
		}
		fi.cidW = cidWidths(d.Key("W"))
		return fi
	}
	fi.first = int(v.Key("FirstChar").Int64())
	w := v.Key("Widths")
	for i := 0; i < w.Len() && i < 65536; i++ {
		fi.widths = append(fi.widths, w.Index(i).Float64())
	}
	return fi
}

type nopDecoder struct{}

func (nopDecoder) Decode(raw string) string { return raw }

// cidWidths reads a CIDFont's W array: "c [w1 w2 ...]" and "cfirst clast w" entries.
func cidWidths(w pdf.Value) map[int]float64 {
	out := map[int]float64{}
	for i := 0; i+1 < w.Len() && len(out) < 65536; {
		c := int(w.Index(i).Int64())
		next := w.Index(i + 1)
		if next.Kind() == pdf.Array {
			for j := 0; j < next.Len() && j < 65536; j++ {
				out[c+j] = next.Index(j).Float64()
			}
			i += 2
			continue
		}
		if i+2 >= w.Len() {
			break
		}
		last, width := int(next.Int64()), w.Index(i+2).Float64()
		for c2 := c; c2 <= last && c2-c < 65536; c2++ {
			out[c2] = width
		}
		i += 3
	}
	return out
}

// advance is the width in text space units (thousandths) of the codes in raw, and the number
// of single-byte spaces among them (word spacing applies to those).
func (f *fontInfo) advance(raw string) (w float64, spaces int) {
	if f.composite {
		for i := 0; i+1 < len(raw); i += 2 {
			cid := int(raw[i])<<8 | int(raw[i+1])
			if cw, ok := f.cidW[cid]; ok {
				w += cw
			} else {
				w += f.dw
			}
		}
		return w, 0
	}
	for i := 0; i < len(raw); i++ {
		code := int(raw[i]) - f.first
		if code >= 0 && code < len(f.widths) {
			w += f.widths[code]
		} else {
			w += 500
		}
		if raw[i] == ' ' {
			spaces++
		}
	}
	return w, spaces
}

// maxFormDepth bounds nested form XObjects (and breaks reference cycles).
const maxFormDepth = 8

// checkEvery is how many content-stream operators run between two looks at the deadline.
const checkEvery = 1024

// stopped is the panic that unwinds the parser's interpreter when the context ends mid-page; the
// interpreter has no other way out.
type stopped struct{ err error }

// pageRuns interprets the content of a page. It returns ctx's error when the context ended
// before the page was read (the page's runs are then dropped).
func pageRuns(ctx context.Context, p pdf.Page) (runs []run, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, ok := r.(stopped)
			if !ok {
				panic(r) // the parser's own complaint about malformed input: Text's recover
			}
			runs, err = nil, s.err
		}
	}()
	ops := 0
	contentRuns(ctx, p.V.Key("Contents"), p.Resources(), identity, 0, &runs, &ops)
	return runs, nil
}

func contentRuns(ctx context.Context, strm, res pdf.Value, ctm affine, depth int, runs *[]run, ops *int) {
	if strm.IsNull() || depth > maxFormDepth {
		return
	}
	fonts := map[string]*fontInfo{}
	g := textState{ctm: ctm, th: 1}
	var stack []textState
	var tm, tlm affine
	show := func(raw string) {
		if g.font == nil {
			return
		}
		trm := affine{g.tfs * g.th, 0, 0, g.tfs, 0, g.trise}.mul(tm).mul(g.ctm)
		w, spaces := g.font.advance(raw)
		tx := (w/1000*g.tfs + g.tc*float64(len(raw)) + g.tw*float64(spaces)) * g.th
		tm = translate(tx, 0).mul(tm)
		end := affine{g.tfs * g.th, 0, 0, g.tfs, 0, g.trise}.mul(tm).mul(g.ctm)
		size := math.Hypot(trm[2], trm[3])
		*runs = append(*runs, run{x: trm[4], y: trm[5], endX: end[4], size: size, s: g.font.enc.Decode(raw)})
	}
	num := func(v pdf.Value) float64 { return v.Float64() }
	pdf.Interpret(strm, func(stk *pdf.Stack, op string) {
		if *ops++; *ops%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				panic(stopped{err})
			}
		}
		n := stk.Len()
		args := make([]pdf.Value, n)
		for i := n - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		need := func(k int) bool { return len(args) >= k }
		switch op {
		case "q":
			if len(stack) < 1024 {
				stack = append(stack, g)
			}
		case "Q":
			if len(stack) > 0 {
				g = stack[len(stack)-1]
				stack = stack[:len(stack)-1]
			}
		case "cm":
			if need(6) {
				var m affine
				for i := range m {
					m[i] = num(args[i])
				}
				g.ctm = m.mul(g.ctm)
			}
		case "BT":
			tm, tlm = identity, identity
		case "Tc", "Tw", "Tz", "TL", "Ts":
			if need(1) {
				g.set(op, num(args[0]))
			}
		case "Tf":
			if need(2) {
				name := args[0].Name()
				fi, ok := fonts[name]
				if !ok {
					fi = newFontInfo(res.Key("Font").Key(name))
					fonts[name] = fi
				}
				g.font, g.tfs = fi, num(args[1])
			}
		case "TD", "Td":
			if need(2) {
				if op == "TD" {
					g.tl = -num(args[1])
				}
				tlm = translate(num(args[0]), num(args[1])).mul(tlm)
				tm = tlm
			}
		case "Tm":
			if need(6) {
				for i := range tm {
					tm[i] = num(args[i])
				}
				tlm = tm
			}
		case "T*":
			tlm = translate(0, -g.tl).mul(tlm)
			tm = tlm
		case "'", "\"":
			if op == "\"" && need(3) {
				g.tw, g.tc = num(args[0]), num(args[1])
				args = args[2:]
			}
			tlm = translate(0, -g.tl).mul(tlm)
			tm = tlm
			if need(1) {
				show(args[0].RawString())
			}
		case "Tj":
			if need(1) {
				show(args[0].RawString())
			}
		case "TJ":
			if !need(1) {
				return
			}
			v := args[0]
			for i := 0; i < v.Len(); i++ {
				x := v.Index(i)
				if x.Kind() == pdf.String {
					show(x.RawString())
				} else {
					tm = translate(-x.Float64()/1000*g.tfs*g.th, 0).mul(tm)
				}
			}
		case "Do":
			if !need(1) {
				return
			}
			xo := res.Key("XObject").Key(args[0].Name())
			if xo.Key("Subtype").Name() != "Form" {
				return
			}
			m := identity
			if mv := xo.Key("Matrix"); mv.Len() == 6 {
				for i := range m {
					m[i] = num(mv.Index(i))
				}
			}
			fres := xo.Key("Resources")
			if fres.IsNull() {
				fres = res
			}
			contentRuns(ctx, xo, fres, m.mul(g.ctm), depth+1, runs, ops)
		}
	})
}
