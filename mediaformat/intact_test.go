package mediaformat

import (
	"bytes"
	"testing"

	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
)

// FuzzIntact: the damage checks never panic, answer the same twice, take formats they do not check
// as intact, and never call an intact image damaged because data follows its end (motion photos,
// appended metadata).
func FuzzIntact(f *testing.F) {
	for _, b := range [][]byte{testfiles.PNG(4, 4), testfiles.JPEG(4, 4), testfiles.GIF(4, 4), testfiles.WebP(), testfiles.PDF(), {0xff, 0xd8, 0xff}, {0x89, 'P', 'N', 'G'}} {
		f.Add(b, []byte("trailing"))
	}
	f.Fuzz(func(t *testing.T, b, trailer []byte) {
		for _, format := range []string{"png", "jpeg", "gif", "webp", "pdf", "zip", "bmp"} {
			ok := Intact(format, b)
			if ok != Intact(format, b) {
				t.Fatalf("%s: two answers for the same bytes", format)
			}
			if !ok && (format == "zip" || format == "bmp") {
				t.Fatalf("%s is not checked, yet called damaged", format)
			}
			if ok && format != "pdf" && !Intact(format, append(bytes.Clone(b), trailer...)) {
				t.Fatalf("%s: intact, but damaged with %d bytes appended", format, len(trailer))
			}
		}
	})
}

func TestIntactWholeFiles(t *testing.T) {
	for format, b := range map[string][]byte{
		"png": testfiles.PNG(40, 30), "jpeg": testfiles.JPEG(40, 30), "gif": testfiles.GIF(40, 30),
		"webp": testfiles.WebP(), "pdf": testfiles.PDF(), "zip": testfiles.ZIP(),
	} {
		if !Intact(format, b) {
			t.Errorf("whole %s taken as damaged", format)
		}
		if format != "zip" && Intact(format, b[:len(b)-len(b)/3]) {
			t.Errorf("%s cut by a third taken as whole", format)
		}
	}
}
