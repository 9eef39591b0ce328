package pdfpages

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/imaging"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
)

// TestMemoryLimitFailsThePageAlone: a page that needs more memory than the module may have fails
// alone, as a page that did not render, and the renderer goes on: the next document on the same
// renderer renders. bigpage.pdf's 200 x 200 inch page drawn at 3,000 x 3,000 is a 36 MB bitmap: at
// a module limit of 32 MiB (below Config.MemoryLimit's minimum, set here directly) pdfium cannot make
// it; at 64 MiB, that minimum, the same page renders (the control: the page does not fail for
// another reason). pdfium declines an allocation it cannot get rather than trapping: at every limit
// tried, 19 to 70 MiB, with this page, the report and a 768 MB decompression bomb, the answer was a
// failed page or a drawn one, never a fault.
//
//	go test -run TestMemoryLimitFailsThePageAlone ./pdfpages/
func TestMemoryLimitFailsThePageAlone(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a cold compile takes seconds
	defer cancel()
	unbounded := Options{Target: imaging.Target{Formats: []string{"png"}, MaxLongEdge: 3000}}
	cacheDir := sharedCacheDir()

	tight := Config{CacheDir: cacheDir, Instances: 1}
	tight.SetDefaults()
	tight.MemoryLimit = 32 << 20
	r := &Renderer{cfg: tight, ready: make(chan struct{})}
	t.Cleanup(func() { _ = r.Close() })
	doc, err := r.Render(ctx, testfiles.PDFFile("bigpage.pdf"), unbounded)
	if !errors.Is(err, ErrNoneRendered) || !slices.Equal(doc.Failed, []int{1}) || len(doc.Pages) != 0 {
		t.Fatalf("at 32 MiB: %d pages, failed %v, err %v; want page 1 failed and ErrNoneRendered", len(doc.Pages), doc.Failed, err)
	}
	doc, err = r.Render(ctx, testfiles.PDFFile("report.pdf"), unbounded)
	if err != nil || len(doc.Pages) != doc.Total || doc.Total == 0 {
		t.Fatalf("the next document on the same renderer: %d of %d pages, err %v", len(doc.Pages), doc.Total, err)
	}

	r64, err := New(Config{CacheDir: cacheDir, Instances: 1, MemoryLimit: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r64.Close() })
	doc, err = r64.Render(ctx, testfiles.PDFFile("bigpage.pdf"), unbounded)
	if err != nil || len(doc.Pages) != 1 {
		t.Fatalf("control at 64 MiB: %d pages, failed %v, err %v", len(doc.Pages), doc.Failed, err)
	}
	if s := doc.Pages[0].Image.Sent; s.Width != 3000 || s.Height != 3000 {
		t.Fatalf("control at 64 MiB: drawn at %dx%d, want 3000x3000 (so 32 MiB could not hold it)", s.Width, s.Height)
	}
}
