package routing

import "unicode/utf8"

// looksText reports whether b is UTF-8 text: valid UTF-8 (a UTF-8 BOM is fine) with no NUL, DEL
// or C0 control characters other than tab, line feed, carriage return, form feed and escape
// (ANSI colours in logs). When truncated is set, b is the head of a longer file and an incomplete
// rune at its end is not held against it.
func looksText(b []byte, truncated bool) bool {
	if truncated {
		b = trimPartialRune(b)
	}
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != 0x1b || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return false
		}
		i += n
	}
	return true
}

// trimPartialRune drops an incomplete multi-byte sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}
