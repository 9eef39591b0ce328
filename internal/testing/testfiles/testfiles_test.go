package testfiles_test

import (
	"archive/zip"
	"bytes"
	"debug/elf"
	"flag"
	"fmt"
	"image"
	_ "image/gif"
	_ "image/jpeg"
	_ "image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/gabriel-vasile/mimetype"

	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
)

func TestMimetypeDetectsEachFixture(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"png", testfiles.PNG(4, 3), "image/png"},
		{"noisy png", testfiles.NoisyPNG(8, 8), "image/png"},
		{"jpeg", testfiles.JPEG(4, 3), "image/jpeg"},
		{"gif", testfiles.GIF(4, 3), "image/gif"},
		{"webp", testfiles.WebP(), "image/webp"},
		{"bmp", testfiles.BMP(2, 2), "image/bmp"},
		{"pdf", testfiles.PDF(), "application/pdf"},
		{"wav", testfiles.WAV(), "audio/wav"},
		{"mp3", testfiles.MP3(), "audio/mpeg"},
		{"mp4", testfiles.MP4(), "video/mp4"},
		{"zip", testfiles.ZIP(), "application/zip"},
		{"elf", testfiles.ELF(), "application/x-executable"},
		{"text", testfiles.Text(), "text/plain"},
		{"json", testfiles.JSON(), "application/json"},
		{"csv", testfiles.CSV(), "text/csv"},
		{"svg", testfiles.SVG(), "image/svg+xml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mimetype.Detect(tt.data); !got.Is(tt.want) {
				t.Errorf("mimetype.Detect = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestImagesDecode(t *testing.T) {
	tests := []struct {
		name   string
		data   []byte
		format string
		w, h   int
	}{
		{"png", testfiles.PNG(5, 7), "png", 5, 7},
		{"jpeg", testfiles.JPEG(5, 7), "jpeg", 5, 7},
		{"gif", testfiles.GIF(5, 7), "gif", 5, 7},
		{"zero size is raised to 1", testfiles.PNG(0, -1), "png", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, format, err := image.DecodeConfig(bytes.NewReader(tt.data))
			if err != nil {
				t.Fatalf("DecodeConfig: %v", err)
			}
			if format != tt.format || cfg.Width != tt.w || cfg.Height != tt.h {
				t.Errorf("got %s %dx%d, want %s %dx%d", format, cfg.Width, cfg.Height, tt.format, tt.w, tt.h)
			}
		})
	}
}

func TestNoisyPNGIsAboutAMegabyteAt600(t *testing.T) {
	n := len(testfiles.NoisyPNG(600, 600))
	if n < 1<<20 || n > 2<<20 {
		t.Errorf("NoisyPNG(600, 600) is %d bytes, want 1..2 MiB", n)
	}
}

func TestWebPHeader(t *testing.T) {
	b := testfiles.WebP()
	if string(b[0:4]) != "RIFF" || string(b[8:16]) != "WEBPVP8L" || b[20] != 0x2f {
		t.Fatalf("not a VP8L WebP: % x", b)
	}
	if got := int(b[4]) | int(b[5])<<8; got != len(b)-8 {
		t.Errorf("RIFF size %d, want %d", got, len(b)-8)
	}
}

func TestPDFXrefOffsets(t *testing.T) {
	b := testfiles.PDF()
	if utf8.Valid(b) {
		t.Error("PDF is valid UTF-8; want the binary comment line real PDFs carry")
	}
	m := regexp.MustCompile(`startxref\n(\d+)\n%%EOF\n$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("no startxref trailer")
	}
	xref, _ := strconv.Atoi(string(m[1]))
	if !bytes.HasPrefix(b[xref:], []byte("xref\n")) {
		t.Fatalf("startxref %d does not point at the xref table", xref)
	}
	entries := regexp.MustCompile(`(\d{10}) 00000 n `).FindAllSubmatch(b[xref:], -1)
	if len(entries) != 5 {
		t.Fatalf("%d in-use xref entries, want 5", len(entries))
	}
	for i, e := range entries {
		off, _ := strconv.Atoi(string(e[1]))
		if want := fmt.Sprintf("%d 0 obj\n", i+1); !bytes.HasPrefix(b[off:], []byte(want)) {
			t.Errorf("xref entry %d points at %q, want %q", i+1, b[off:off+8], want)
		}
	}
}

func TestZIPReads(t *testing.T) {
	b := testfiles.ZIP()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != 1 || zr.File[0].Name != "hello.txt" {
		t.Errorf("files = %v, want [hello.txt]", zr.File)
	}
}

func TestELFParses(t *testing.T) {
	f, err := elf.NewFile(bytes.NewReader(testfiles.ELF()))
	if err != nil {
		t.Fatal(err)
	}
	if f.Type != elf.ET_EXEC || f.Machine != elf.EM_X86_64 || f.Class != elf.ELFCLASS64 {
		t.Errorf("got %v %v %v", f.Type, f.Machine, f.Class)
	}
}

func TestWAVHeader(t *testing.T) {
	b := testfiles.WAV()
	if string(b[0:4]) != "RIFF" || string(b[8:16]) != "WAVEfmt " || string(b[36:40]) != "data" {
		t.Fatalf("bad WAV header % x", b[:44])
	}
	if size := int(b[40]) | int(b[41])<<8 | int(b[42])<<16; size != len(b)-44 {
		t.Errorf("data size %d, want %d", size, len(b)-44)
	}
}

func TestMP3FrameHeader(t *testing.T) {
	b := testfiles.MP3()
	tag := 10 + (int(b[6])<<21 | int(b[7])<<14 | int(b[8])<<7 | int(b[9]))
	if !bytes.HasPrefix(b[tag:], []byte{0xFF, 0xFB}) {
		t.Fatalf("no MPEG-1 Layer III sync after the %d-byte ID3 tag", tag)
	}
	if !bytes.HasPrefix(b[tag+417:], []byte{0xFF, 0xFB}) {
		t.Error("second frame does not follow the first 417-byte frame")
	}
}

func TestTextFixturesAreUTF8(t *testing.T) {
	for name, b := range map[string][]byte{
		"text": testfiles.Text(), "json": testfiles.JSON(), "csv": testfiles.CSV(),
		"svg": testfiles.SVG(), "go": testfiles.GoSource(),
	} {
		if !utf8.Valid(b) {
			t.Errorf("%s is not valid UTF-8", name)
		}
	}
}

func TestFixturesAreFreshCopies(t *testing.T) {
	a := testfiles.WebP()
	a[0] = 'X'
	if testfiles.WebP()[0] != 'R' {
		t.Error("WebP returned a shared slice")
	}
}

var update = flag.Bool("update", false, "rewrite the generated PDFs of pdf/")

// TestPDFFilesAreGenerated keeps the committed generated PDFs what their generators write.
func TestPDFFilesAreGenerated(t *testing.T) {
	for name, gen := range testfiles.GeneratedPDFs() {
		want := gen()
		if *update {
			if err := os.WriteFile(filepath.Join("pdf", name), want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got := testfiles.PDFFile(name); !bytes.Equal(got, want) {
			t.Errorf("pdf/%s differs from its generator: run go test ./internal/testfiles -run TestPDFFilesAreGenerated -update", name)
		}
	}
}
