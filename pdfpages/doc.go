// Package pdfpages renders the pages of a PDF as images, with each page's text layer, for models
// that read images but take no PDF file.
//
// Rendering is pdfium compiled to WebAssembly (github.com/klippa-app/go-pdfium, webassembly
// package), run by wazero: pure Go, so the worker stays one static binary built with
// CGO_ENABLED=0. The module is sandboxed: it is given no filesystem (go-pdfium's default mounts
// "/"), no network, no environment, and its stdout and stderr are discarded.
//
// A Renderer compiles the module once per process, in the background (Start; the first Render
// starts it and waits), and keeps the compiled code in wazero's compilation cache on disk
// (Config.CacheDir) so that a restart does not compile again. Each document gets a fresh module instance (a few milliseconds to create), at most
// Config.Instances at once, closed after the document: a hostile PDF can neither see another
// request's document nor keep memory after its request. A fault inside the module (a trap, a
// panic, a page that never finishes) ends that instance only: Render returns the pages that
// rendered before it, or an error, and the worker keeps running.
//
// ParsePages reads a request's page selection ("1-3,7"); Render renders the selected pages within
// a page count and a byte budget and says which pages were left out.
package pdfpages
