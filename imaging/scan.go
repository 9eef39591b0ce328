package imaging

import "encoding/binary"

// JPEGOrientation returns the EXIF orientation (1..8) of a JPEG, 1 when it has none or the EXIF
// block is malformed. It reads the APP1 "Exif" segment's first IFD only.
func JPEGOrientation(data []byte) int {
	o, _ := jpegOrientation(data)
	return o
}

// jpegOrientation is JPEGOrientation; complete is false when the answer 1 may only be because data
// ends too soon (data being the first bytes of a JPEG, a longer one could say otherwise).
func jpegOrientation(data []byte) (o int, complete bool) {
	if len(data) < 4 {
		return 1, false
	}
	if data[0] != 0xFF || data[1] != 0xD8 {
		return 1, true
	}
	for i := 2; i+4 <= len(data); {
		if data[i] != 0xFF {
			return 1, true
		}
		marker := data[i+1]
		if marker == 0xD8 || marker >= 0xD0 && marker <= 0xD7 || marker == 0x01 || marker == 0xFF {
			i++
			continue
		}
		if marker == 0xDA || marker == 0xD9 { // start of scan, end of image: no EXIF before them
			return 1, true
		}
		n := int(binary.BigEndian.Uint16(data[i+2:]))
		if n < 2 {
			return 1, true
		}
		if i+2+n > len(data) {
			return 1, false
		}
		seg := data[i+4 : i+2+n]
		if marker == 0xE1 && len(seg) > 6 && string(seg[:6]) == "Exif\x00\x00" {
			return exifOrientation(seg[6:]), true
		}
		i += 2 + n
	}
	return 1, false
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

// GIFAnimated reports whether a GIF holds more than one frame. It walks the block structure
// without decoding pixels; anything without a GIF87a/GIF89a header, or malformed, counts as not
// animated.
func GIFAnimated(data []byte) bool {
	if len(data) < 13 || string(data[:6]) != "GIF87a" && string(data[:6]) != "GIF89a" {
		return false
	}
	i := 13
	if data[10]&0x80 != 0 { // global colour table
		i += 3 << (int(data[10]&0x07) + 1)
	}
	frames := 0
	for i < len(data) {
		switch data[i] {
		case 0x2C: // image descriptor
			frames++
			if frames > 1 {
				return true
			}
			if i+10 > len(data) {
				return false
			}
			flags := data[i+9]
			i += 10
			if flags&0x80 != 0 { // local colour table
				i += 3 << (int(flags&0x07) + 1)
			}
			i++ // LZW minimum code size
			i = skipSubBlocks(data, i)
		case 0x21: // extension
			i = skipSubBlocks(data, i+2)
		default: // 0x3B trailer, or garbage
			return false
		}
		if i < 0 {
			return false
		}
	}
	return false
}

// skipSubBlocks returns the index after a chain of data sub-blocks starting at i, or -1.
func skipSubBlocks(data []byte, i int) int {
	for i < len(data) {
		n := int(data[i])
		i++
		if n == 0 {
			return i
		}
		i += n
	}
	return -1
}
