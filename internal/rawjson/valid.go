package rawjson

import "encoding/binary"

// maxDepth is encoding/json's limit on nesting: a document nested deeper is not valid JSON to it.
const maxDepth = 10000

// Valid reports whether b is one valid JSON value (with optional whitespace around it), exactly as
// encoding/json's Valid does (FuzzValid compares them): invalid UTF-8 inside strings is accepted,
// nesting deeper than 10000 is not. It walks the document once and skips over the contents of
// strings eight bytes at a time, so that the megabytes of base64 of a context cost little; it
// allocates only for nesting deeper than 64.
//
// Callers that need encoding/json's error message for an invalid document ask encoding/json for it
// after Valid has said false.
func Valid(b []byte) bool {
	var inline [64]byte
	stack := inline[:0] // '{' or '[' per open container
	i := SkipSpace(b, 0)
	for {
		// A value starts at i.
		if i >= len(b) {
			return false
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			if len(stack) == maxDepth {
				return false
			}
			stack = append(stack, c)
			i = SkipSpace(b, i+1)
			if i < len(b) && b[i] == c+2 { // '}' is '{'+2, ']' is '['+2: the container is empty
				stack = stack[:len(stack)-1]
				i++
				break
			}
			if c == '{' {
				if i = member(b, i); i < 0 {
					return false
				}
			}
			continue
		case c == '"':
			if i = stringEnd(b, i); i < 0 {
				return false
			}
		case c == '-' || '0' <= c && c <= '9':
			if i = numberEnd(b, i); i < 0 {
				return false
			}
		case c == 't':
			if i = literalEnd(b, i, "true"); i < 0 {
				return false
			}
		case c == 'f':
			if i = literalEnd(b, i, "false"); i < 0 {
				return false
			}
		case c == 'n':
			if i = literalEnd(b, i, "null"); i < 0 {
				return false
			}
		default:
			return false
		}
		// A value ended just before i: close containers, or go on to the next element or member.
		for {
			i = SkipSpace(b, i)
			if len(stack) == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			top := stack[len(stack)-1]
			switch {
			case b[i] == ',' && top == '[':
				i = SkipSpace(b, i+1)
			case b[i] == ',' && top == '{':
				if i = member(b, SkipSpace(b, i+1)); i < 0 {
					return false
				}
			case b[i] == ']' && top == '[', b[i] == '}' && top == '{':
				stack = stack[:len(stack)-1]
				i++
				continue
			default:
				return false
			}
			break
		}
	}
}

// member checks the key and colon of an object member starting at i and returns the index of its
// value, or -1.
func member(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = stringEnd(b, i); i < 0 {
		return -1
	}
	if i = SkipSpace(b, i); i >= len(b) || b[i] != ':' {
		return -1
	}
	return SkipSpace(b, i+1)
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// stringEnd returns the index just past the valid JSON string starting at i (b[i] == '"'), or -1.
// Bytes below 0x20 are not allowed in a string; an escape is one of \" \\ \/ \b \f \n \r \t or \u
// with four hex digits; any other byte (invalid UTF-8 included) is accepted, as by encoding/json.
func stringEnd(b []byte, i int) int {
	i++
	for {
		// Eight bytes at a time while none is a quote, a backslash or a control character.
		for i+8 <= len(b) {
			w := binary.LittleEndian.Uint64(b[i:])
			q := w ^ ('"' * ones)
			bs := w ^ ('\\' * ones)
			special := (q-ones)&^q | (bs-ones)&^bs | (w-0x20*ones)&^w
			if special&highs != 0 {
				break
			}
			i += 8
		}
		if i >= len(b) {
			return -1
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			if i+1 >= len(b) {
				return -1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return -1
				}
				i += 6
			default:
				return -1
			}
		default:
			i++
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// numberEnd returns the index just past the valid JSON number starting at i, or -1:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func numberEnd(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// literalEnd returns the index just past lit at i, or -1.
func literalEnd(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}
