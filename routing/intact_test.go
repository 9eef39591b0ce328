package routing

import (
	"testing"

	"github.com/agentworks/artifact-worker/internal/testfiles"
)

// FuzzIntact: the damage checks read outside bytes; they never panic and a whole file always passes.
func FuzzIntact(f *testing.F) {
	for _, b := range [][]byte{testfiles.PNG(4, 4), testfiles.JPEG(4, 4), testfiles.GIF(4, 4), testfiles.WebP(), testfiles.PDF(), {0xff, 0xd8, 0xff}, {0x89, 'P', 'N', 'G'}} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, format := range []string{"png", "jpeg", "gif", "webp", "pdf", "zip"} {
			_ = intact(format, b)
		}
	})
}

func TestIntactWholeFiles(t *testing.T) {
	for format, b := range map[string][]byte{
		"png": testfiles.PNG(40, 30), "jpeg": testfiles.JPEG(40, 30), "gif": testfiles.GIF(40, 30),
		"webp": testfiles.WebP(), "pdf": testfiles.PDF(), "zip": testfiles.ZIP(),
	} {
		if !intact(format, b) {
			t.Errorf("whole %s taken as damaged", format)
		}
		if format != "zip" && intact(format, b[:len(b)-len(b)/3]) {
			t.Errorf("%s cut by a third taken as whole", format)
		}
	}
}
