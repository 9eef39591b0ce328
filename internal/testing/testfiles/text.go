package testfiles

import "encoding/binary"

// Text returns UTF-8 text mixing ASCII, Chinese, an emoji, tabs and CRLF line ends.
func Text() []byte {
	return []byte("Hello, 世界 👋\r\n\tline two: naïve café\nthird line — 完\n")
}

// JSON returns a small UTF-8 JSON document.
func JSON() []byte {
	return []byte(`{"name":"报告","values":[1,2,3],"ok":true}` + "\n")
}

// CSV returns a small UTF-8 CSV file.
func CSV() []byte {
	return []byte("id,name,score\n1,张三,90\n2,Bob,85\n3,Zoë,77\n")
}

// SVG returns a small SVG image, which is XML text.
func SVG() []byte {
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="red"/></svg>` + "\n")
}

// GoSource returns a small Go source file.
func GoSource() []byte {
	return []byte("package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n")
}

// ELF returns a 64-bit little-endian x86-64 executable ELF header (ET_EXEC) with no program or
// section headers: enough for debug/elf and for type detection.
func ELF() []byte {
	b := make([]byte, 64)
	copy(b, "\x7fELF")
	b[4] = 2 // ELFCLASS64
	b[5] = 1 // little endian
	b[6] = 1 // EV_CURRENT
	le := binary.LittleEndian
	le.PutUint16(b[16:], 2)    // ET_EXEC
	le.PutUint16(b[18:], 0x3e) // EM_X86_64
	le.PutUint32(b[20:], 1)    // EV_CURRENT
	le.PutUint64(b[24:], 0x401000)
	le.PutUint16(b[52:], 64) // header size
	le.PutUint16(b[54:], 56) // program header entry size
	le.PutUint16(b[58:], 64) // section header entry size
	return b
}
