package pdfpages

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"io"
	"math"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/agentworks/artifact-worker/imaging"
	"github.com/agentworks/artifact-worker/internal/membudget"
)

// Errors of Render. Each is permanent for the document: rendering it again gives the same.
var (
	// ErrEncrypted: the document needs a password.
	ErrEncrypted = errors.New("pdfpages: the PDF is encrypted")
	// ErrDamaged: the document does not open (not a PDF, truncated, corrupt).
	ErrDamaged = errors.New("pdfpages: the PDF is damaged")
	// ErrNoPages: the document opens but has no pages.
	ErrNoPages = errors.New("pdfpages: the PDF has no pages")
	// ErrNoneRendered: no selected page rendered (each failed, or Timeout passed before the
	// first finished). Document says which.
	ErrNoneRendered = errors.New("pdfpages: no page rendered")
	// ErrUnavailable: the renderer cannot run (its module failed to compile, or it was closed).
	ErrUnavailable = errors.New("pdfpages: the PDF renderer is unavailable")
)

// DefaultDPI is the resolution a page is drawn at before it is fitted to the model's limits (the
// same as pdftoppm's default).
const DefaultDPI = 150

// Hard bounds of one page image, whatever the model takes: 64 MiB of pixels at most.
const (
	maxLongEdge = 8192
	maxPixels   = 16_000_000
)

// MaxPageText is the most characters of a page's text layer kept (Page.TextCut says how many more
// there were).
const MaxPageText = 6000

// Renderer renders PDF pages. It is safe for concurrent use; Close it when done.
type Renderer struct {
	cfg   Config
	start sync.Once
	ready chan struct{} // closed when pool or err is set
	pool  pdfium.Pool
	cache wazero.CompilationCache
	err   error

	closeOnce sync.Once
}

// New returns a Renderer for cfg (defaults filled in). It compiles nothing yet: Start begins the
// compilation in the background, the first Render waits for it.
func New(cfg Config) (*Renderer, error) {
	cfg.SetDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Renderer{cfg: cfg, ready: make(chan struct{})}, nil
}

// Config is the renderer's configuration, defaults filled in.
func (r *Renderer) Config() Config { return r.cfg }

// Start compiles the module in the background (read from the compilation cache when it holds it).
// It returns at once; calling it again does nothing.
func (r *Renderer) Start() {
	r.start.Do(func() { go r.init() })
}

// Ready reports whether the module is compiled, without waiting.
func (r *Renderer) Ready() bool {
	select {
	case <-r.ready:
		return r.err == nil
	default:
		return false
	}
}

// Wait waits until the module is compiled (starting the compilation if needed), or ctx ends.
func (r *Renderer) Wait(ctx context.Context) error {
	r.Start()
	select {
	case <-r.ready:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *Renderer) init() {
	defer close(r.ready)
	defer func() {
		if p := recover(); p != nil {
			r.err = fmt.Errorf("%w: %v", ErrUnavailable, p)
		}
	}()
	rc := r.runtimeConfig()
	if r.cfg.CacheDir != "" {
		// A directory that cannot be made (a read-only volume) only costs the compile at every start.
		if cache, err := wazero.NewCompilationCacheWithDir(r.cfg.CacheDir); err == nil {
			r.cache = cache
			rc = rc.WithCompilationCache(cache)
		}
	}
	pool, err := webassembly.Init(webassembly.Config{
		MaxTotal: r.cfg.Instances,
		// No filesystem: the module reads the document from memory only.
		FSConfig:      wazero.NewFSConfig(),
		RuntimeConfig: rc,
		Stdout:        io.Discard,
		Stderr:        io.Discard,
		RandomSource:  rand.Reader,
		// A fresh instance per document (about 5 ms): nothing of one document stays for the next.
		ReuseWorkers: false,
	})
	if err != nil {
		r.err = fmt.Errorf("%w: %w", ErrUnavailable, err)
		return
	}
	r.pool = pool
}

// runtimeConfig is the module's runtime configuration, without the compilation cache.
func (r *Renderer) runtimeConfig() wazero.RuntimeConfig {
	return wazero.NewRuntimeConfig().
		// The bundled module lowers setjmp/longjmp to exception handling (go-pdfium's default).
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		// A document past Timeout is stopped where it is (Kill cancels the instance's context).
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(uint32(r.cfg.MemoryLimit / 65536))
}

// Close releases the module. Render fails with ErrUnavailable afterwards.
func (r *Renderer) Close() error {
	var err error
	r.closeOnce.Do(func() {
		r.start.Do(func() { r.err = ErrUnavailable; close(r.ready) })
		<-r.ready
		if r.pool != nil {
			err = r.pool.Close()
		}
		if r.cache != nil {
			err = errors.Join(err, r.cache.Close(context.Background()))
		}
		if r.err == nil {
			r.err = ErrUnavailable
		}
	})
	return err
}

// Options say which pages to render and how.
type Options struct {
	// Pages selects pages; nil is every page.
	Pages Selection
	// MaxPages bounds the pages rendered (the model's image limit); 0 or more than the
	// renderer's Config.MaxPages is Config.MaxPages.
	MaxPages int
	// MaxBytes bounds the encoded images together (the model's request size); 0 is no bound. The
	// first page is rendered whatever its size (it is fitted to Target.MaxBytes alone).
	MaxBytes int64
	// Target is what each page image is fitted to, as an image sent to the same model.
	Target imaging.Target
	// DPI is the resolution a page is drawn at before fitting (0: DefaultDPI).
	DPI int
}

// Page is one rendered page.
type Page struct {
	// Number is the page's number, 1-based.
	Number int
	// Image is the encoded page (PNG, or JPEG where that is smaller: imaging.Encode), fitted to
	// Options.Target.
	Image imaging.Result
	// Text is the page's text layer ("" for a scan or a drawing), at most MaxPageText characters.
	Text string
	// TextCut is the characters of the text layer left out past MaxPageText.
	TextCut int
}

// Document is what Render did.
type Document struct {
	// Total is the document's page count.
	Total int
	// Pages are the rendered pages, in page order.
	Pages []Page
	// Selected are the pages asked for that exist (all pages without a selection).
	Selected Ranges
	// Left are selected pages not rendered: past MaxPages or MaxBytes, or after Timeout.
	Left Ranges
	// Failed are pages pdfium could not render (a damaged page of an otherwise sound document).
	Failed []int
	// TimedOut is set when Timeout stopped rendering.
	TimedOut bool
	// Missing is set when the selection named pages past the document's end.
	Missing bool
}

// Render renders the selected pages of data, a PDF, within o's page and byte budget and the
// renderer's Timeout. The memory it needs is charged to ctx's budget (internal/membudget) before
// it starts. It returns ErrEncrypted, ErrDamaged or ErrNoPages for a document it cannot render,
// ErrNoneRendered (with the Document) when no selected page rendered, ErrUnavailable when the
// module cannot run, or ctx's error. It never panics.
func (r *Renderer) Render(ctx context.Context, data []byte, o Options) (doc Document, err error) {
	if err := ctx.Err(); err != nil {
		return Document{}, err
	}
	if err := r.Wait(ctx); err != nil {
		return Document{}, err
	}
	if err := membudget.Reserve(ctx, reservation(len(data), o)); err != nil {
		return Document{}, err
	}
	inst, err := r.pool.GetInstanceWithContext(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return Document{}, ctx.Err()
		}
		return Document{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	tctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	// Past the timeout the instance is killed where it is (a page that never finishes); its call
	// returns an error and the instance is discarded, never reused.
	stop := context.AfterFunc(tctx, func() { _ = inst.Kill() })
	defer func() {
		if p := recover(); p != nil { // go-pdfium recovers its own; this guards the code here
			err = fmt.Errorf("%w: renderer fault: %v", ErrDamaged, p)
		}
		if stop() {
			_ = inst.Close()
		}
		if ctx.Err() != nil { // the request ended, not the renderer's time
			doc, err = Document{}, ctx.Err()
		}
	}()
	return r.render(tctx, inst, data, o)
}

// reservation is the memory one document's rendering holds at its peak: pdfium's copy of the file
// and what it parses from it, one page's pixels twice (pdfium's and the opaque copy encoded here),
// and the encoded pages with their base64 twice over (the result and the assembly).
func reservation(size int, o Options) int64 {
	px := int64(maxPixels)
	if o.Target.MaxPixels > 0 {
		px = min(px, int64(o.Target.MaxPixels))
	} else if o.Target.MaxLongEdge > 0 {
		px = min(px, int64(o.Target.MaxLongEdge)*int64(o.Target.MaxLongEdge))
	}
	out := o.MaxBytes
	if out <= 0 {
		out = px // an unbounded request: about one raw page's worth per page is a generous guess
	}
	return 3*int64(size) + 2*4*px + 3*out
}

func (r *Renderer) render(ctx context.Context, inst pdfium.Pdfium, data []byte, o Options) (Document, error) {
	opened, err := inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return Document{TimedOut: true}, fmt.Errorf("%w: opening the document took longer than %s", ErrNoneRendered, r.cfg.Timeout)
		case errors.Is(err, pdfiumerrors.ErrPassword), errors.Is(err, pdfiumerrors.ErrSecurity):
			return Document{}, ErrEncrypted
		}
		return Document{}, fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	defer func() { _, _ = inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: opened.Document}) }()
	count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: opened.Document})
	if err != nil {
		return Document{}, fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	doc := Document{Total: count.PageCount}
	if doc.Total <= 0 {
		return doc, ErrNoPages
	}
	doc.Selected = o.Pages.Ranges(doc.Total)
	doc.Missing = o.Pages.Missing(doc.Total)
	limit := r.cfg.MaxPages
	if o.MaxPages > 0 {
		limit = min(limit, o.MaxPages)
	}
	var used int64
	stopAt := 0 // the first selected page not tried
pages:
	for _, rg := range doc.Selected {
		for n := rg.First; n <= rg.Last; n++ {
			if len(doc.Pages) >= limit {
				stopAt = n
				break pages
			}
			if ctx.Err() != nil {
				doc.TimedOut, stopAt = true, n
				break pages
			}
			page, err := renderPage(inst, opened.Document, n, o)
			switch {
			case ctx.Err() != nil: // killed mid-page
				doc.TimedOut, stopAt = true, n
				break pages
			case err != nil:
				doc.Failed = append(doc.Failed, n)
			case o.MaxBytes > 0 && len(doc.Pages) > 0 && used+page.size() > o.MaxBytes:
				stopAt = n
				break pages
			default:
				used += page.size()
				doc.Pages = append(doc.Pages, page)
			}
		}
	}
	if stopAt > 0 {
		doc.Left = doc.Selected.From(stopAt)
	}
	if len(doc.Pages) == 0 {
		return doc, ErrNoneRendered
	}
	return doc, nil
}

// size is what the page adds to a request: its image and its text.
func (p Page) size() int64 { return int64(len(p.Image.Data) + len(p.Text)) }

func renderPage(inst pdfium.Pdfium, d references.FPDF_DOCUMENT, number int, o Options) (Page, error) {
	ref := requests.Page{ByIndex: &requests.PageByIndex{Document: d, Index: number - 1}}
	size, err := inst.GetPageSize(&requests.GetPageSize{Page: ref})
	if err != nil {
		return Page{}, err
	}
	w, h := pixelSize(size.Width, size.Height, o)
	rendered, err := inst.RenderPageInPixels(&requests.RenderPageInPixels{Page: ref, Width: w, Height: h})
	if err != nil {
		return Page{}, err
	}
	img := opaqueCopy(rendered.Result.RenderedImage, rendered.Result.HasTransparency)
	rendered.Cleanup()
	res, err := imaging.Encode(img, o.Target)
	if err != nil {
		return Page{}, err
	}
	p := Page{Number: number, Image: res}
	if t, err := inst.GetPageText(&requests.GetPageText{Page: ref}); err == nil {
		p.Text, p.TextCut = pageText(t.Text)
	}
	return p, nil
}

// pixelSize is the size a page of w x h points is drawn at: DPI, fitted to the target and to the
// hard bounds. A degenerate page is 1 x 1.
func pixelSize(w, h float64, o Options) (int, int) {
	dpi := float64(o.DPI)
	if dpi <= 0 {
		dpi = DefaultDPI
	}
	if !(w > 0) || !(h > 0) || math.IsInf(w, 0) || math.IsInf(h, 0) {
		return 1, 1
	}
	pw := max(int(math.Min(w*dpi/72, 1e6)), 1)
	ph := max(int(math.Min(h*dpi/72, 1e6)), 1)
	pw, ph = imaging.FitSize(pw, ph, o.Target)
	pw, ph = imaging.FitSize(pw, ph, imaging.Target{MaxLongEdge: maxLongEdge, MaxPixels: maxPixels})
	return pw, ph
}

// opaqueCopy copies img into a new RGBA image, the pixels pdfium returns living in the module's
// memory only until Cleanup. A page with transparency is drawn over white: pdfium leaves it on a
// transparent background, which a model would see as black. A page without (transparent false)
// was drawn on opaque white by pdfium: its rows are copied as they are (one pass instead of a fill
// and a blend; a scan page spent 8% of its CPU there).
func opaqueCopy(img image.Image, transparent bool) *image.RGBA {
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	if !transparent {
		draw.Draw(dst, dst.Bounds(), img, b.Min, draw.Src)
		if dst.Opaque() {
			return dst
		}
	}
	draw.Draw(dst, dst.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(dst, dst.Bounds(), img, b.Min, draw.Over)
	return dst
}

// pageText is a page's text layer as a model reads it: lines ended by \n, trailing spaces and
// blank runs dropped, at most MaxPageText characters (and how many more there were).
func pageText(s string) (string, int) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := 0
	for _, l := range lines {
		l = strings.TrimRight(l, " \t\u00a0")
		if l == "" {
			blank++
			if blank > 1 {
				continue
			}
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	s = strings.ToValidUTF8(strings.TrimSpace(strings.Join(out, "\n")), "\uFFFD")
	if n := utf8.RuneCountInString(s); n > MaxPageText {
		cut := 0
		for i := range s {
			if cut == MaxPageText {
				return s[:i], n - MaxPageText
			}
			cut++
		}
	}
	return s, 0
}
