package mediaformat

// gifBlocks walks the blocks of the GIF b after its header, logical screen descriptor and global
// colour table: extensions and images, each a run of sub-blocks, to the trailer (0x3B). visit, when
// not nil, is called at each image descriptor and returns false to stop the walk. It reports
// whether the walk reached the trailer; a stopped walk, bytes that are not a GIF87a/GIF89a, a
// malformed block or data that ends first report false.
func gifBlocks(b []byte, visit func() bool) (trailer bool) {
	if len(b) < 13 || string(b[:6]) != "GIF87a" && string(b[:6]) != "GIF89a" {
		return false
	}
	i := 13 + gifTable(b[10])
	for i < len(b) {
		switch b[i] {
		case 0x3b:
			return true
		case 0x21: // extension: introducer, label, sub-blocks
			i = gifSubBlocks(b, i+2)
		case 0x2c: // image: descriptor (10 bytes), local colour table, LZW code size, sub-blocks
			if visit != nil && !visit() {
				return false
			}
			if i+10 > len(b) {
				return false
			}
			i = gifSubBlocks(b, i+10+gifTable(b[i+9])+1)
		default:
			return false
		}
		if i < 0 {
			return false
		}
	}
	return false
}

// gifTable is the size of the colour table a descriptor's flags announce.
func gifTable(flags byte) int {
	if flags&0x80 == 0 {
		return 0
	}
	return 3 << (flags&0x07 + 1)
}

// gifSubBlocks returns the index after a chain of data sub-blocks starting at i (after its empty
// terminator), or -1 when the data ends first.
func gifSubBlocks(b []byte, i int) int {
	for i < len(b) {
		n := int(b[i])
		i++
		if n == 0 {
			return i
		}
		i += n
	}
	return -1
}

// gifReachesTrailer reports whether the GIF's blocks lead to its trailer.
func gifReachesTrailer(b []byte) bool { return gifBlocks(b, nil) }

// GIFAnimated reports whether a GIF holds more than one frame. It walks the block structure
// without decoding pixels; anything without a GIF87a/GIF89a header, or malformed, counts as not
// animated.
func GIFAnimated(data []byte) bool {
	frames := 0
	gifBlocks(data, func() bool {
		frames++
		return frames < 2
	})
	return frames > 1
}
