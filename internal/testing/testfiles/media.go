package testfiles

import (
	"bytes"
	"encoding/binary"
)

// WAV returns a 16-bit mono 8 kHz PCM WAV of 100 ms of silence.
func WAV() []byte {
	const (
		rate     = 8000
		bits     = 16
		channels = 1
		samples  = rate / 10
	)
	data := samples * channels * bits / 8
	le := binary.LittleEndian
	b := make([]byte, 44+data)
	copy(b[0:], "RIFF")
	le.PutUint32(b[4:], uint32(36+data))
	copy(b[8:], "WAVE")
	copy(b[12:], "fmt ")
	le.PutUint32(b[16:], 16) // fmt chunk size
	le.PutUint16(b[20:], 1)  // PCM
	le.PutUint16(b[22:], channels)
	le.PutUint32(b[24:], rate)
	le.PutUint32(b[28:], rate*channels*bits/8) // byte rate
	le.PutUint16(b[32:], channels*bits/8)      // block align
	le.PutUint16(b[34:], bits)
	copy(b[36:], "data")
	le.PutUint32(b[40:], uint32(data))
	return b
}

// MP3 returns an ID3v2.3 tag (one TIT2 title frame) followed by two silent MPEG-1 Layer III
// frames (128 kbit/s, 44.1 kHz, mono).
func MP3() []byte {
	var b bytes.Buffer
	title := append([]byte{0}, "test"...) // ISO-8859-1 encoding byte + text
	frame := make([]byte, 10+len(title))
	copy(frame, "TIT2")
	binary.BigEndian.PutUint32(frame[4:], uint32(len(title)))
	copy(frame[10:], title)
	b.WriteString("ID3\x03\x00\x00")
	b.Write(synchsafe(len(frame)))
	b.Write(frame)

	// 144 * 128000 / 44100 = 417 bytes per frame, without padding.
	const frameLen = 417
	for range 2 {
		f := make([]byte, frameLen)
		copy(f, []byte{0xFF, 0xFB, 0x90, 0xC4})
		b.Write(f)
	}
	return b.Bytes()
}

// MP4 returns an ISO base media file: an ftyp box (isom, mp41) and an empty mdat box.
func MP4() []byte {
	var b bytes.Buffer
	box := func(typ string, body []byte) {
		var size [4]byte
		binary.BigEndian.PutUint32(size[:], uint32(8+len(body)))
		b.Write(size[:])
		b.WriteString(typ)
		b.Write(body)
	}
	box("ftyp", []byte("isom\x00\x00\x02\x00isomiso2mp41"))
	box("free", nil)
	box("mdat", nil)
	return b.Bytes()
}

func synchsafe(n int) []byte {
	return []byte{byte(n >> 21 & 0x7f), byte(n >> 14 & 0x7f), byte(n >> 7 & 0x7f), byte(n & 0x7f)}
}
