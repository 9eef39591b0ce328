package mediaformat

import (
	"bytes"
	"encoding/binary"
)

// How a walk of a JPEG's segments ended.
const (
	jpegScan      = iota // at the start of scan (SOS) marker
	jpegStopped          // the visitor stopped it
	jpegMalformed        // no SOI, a byte where a marker should be, a bad length, EOI before any scan
	jpegShort            // the data ends before the scan (within a segment, or before a marker)
)

// jpegSegments walks the marker segments of the JPEG b from its SOI to its first scan, the part of
// the file that holds its metadata and headers, skipping each segment by its length (so a marker
// inside an EXIF thumbnail is never taken for one of the file). visit gets each segment's marker
// and payload (the bytes after its length field) and returns false to stop the walk. It returns how
// the walk ended and, for jpegScan, where the SOS marker stands.
func jpegSegments(b []byte, visit func(marker byte, payload []byte) bool) (end, at int) {
	if len(b) < 4 {
		return jpegShort, 0
	}
	if b[0] != 0xff || b[1] != 0xd8 {
		return jpegMalformed, 0
	}
	for i := 2; i+4 <= len(b); {
		if b[i] != 0xff {
			return jpegMalformed, i
		}
		switch m := b[i+1]; {
		case m == 0xff: // fill byte
			i++
		case m == 0xda:
			return jpegScan, i
		case m == 0xd9: // end of image before any scan
			return jpegMalformed, i
		case m == 0x01 || m >= 0xd0 && m <= 0xd8: // markers without a length
			i += 2
		default:
			n := int(binary.BigEndian.Uint16(b[i+2:]))
			if n < 2 {
				return jpegMalformed, i
			}
			if i+2+n > len(b) {
				return jpegShort, i
			}
			if visit != nil && !visit(m, b[i+4:i+2+n]) {
				return jpegStopped, i
			}
			i += 2 + n
		}
	}
	return jpegShort, len(b)
}

// jpegReachesEOI walks the segments to the first scan, then looks for the EOI marker: in
// entropy-coded data 0xFF is always followed by 0x00 or a marker, so FF D9 is the end of the image.
func jpegReachesEOI(b []byte) bool {
	end, at := jpegSegments(b, nil)
	return end == jpegScan && bytes.Contains(b[at:], []byte{0xff, 0xd9})
}

// JPEGOrientation returns the EXIF orientation (1..8) of a JPEG, 1 when it has none or the EXIF
// block is malformed. It reads the APP1 "Exif" segment's first IFD only.
func JPEGOrientation(data []byte) int {
	o, _ := JPEGOrientationHead(data)
	return o
}

// JPEGOrientationHead is JPEGOrientation for data that may be only the first bytes of a JPEG:
// complete is false when the answer 1 may only be because data ends too soon (a longer head could
// say otherwise).
func JPEGOrientationHead(data []byte) (o int, complete bool) {
	o = 1
	end, _ := jpegSegments(data, func(marker byte, seg []byte) bool {
		if marker == 0xe1 && len(seg) > 6 && string(seg[:6]) == "Exif\x00\x00" {
			o = exifOrientation(seg[6:])
			return false
		}
		return true
	})
	return o, end != jpegShort
}

// exifOrientation reads tag 0x0112 of IFD0 in a TIFF-structured EXIF block.
func exifOrientation(t []byte) int {
	if len(t) < 8 {
		return 1
	}
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 1
	}
	off := int(bo.Uint32(t[4:]))
	if off < 8 || off+2 > len(t) {
		return 1
	}
	count := int(bo.Uint16(t[off:]))
	for k := range count {
		e := off + 2 + 12*k
		if e+12 > len(t) {
			return 1
		}
		if bo.Uint16(t[e:]) == 0x0112 {
			if v := int(bo.Uint16(t[e+8:])); v >= 1 && v <= 8 {
				return v
			}
			return 1
		}
	}
	return 1
}
