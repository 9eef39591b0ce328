// Package mediaformat holds what the worker knows about media formats, in one place: their names,
// MIME types, aliases and filename extensions (names.go); which image formats a model API takes as
// images, how each is recognised from its first bytes, and the codecs that read its header and
// pixels (image.go); whether a file is whole (Intact: a truncated PNG or PDF makes a provider
// reject the whole request); the JPEG segment walker (EXIF orientation, the end of the image) and
// the GIF block walker (animation, the trailer); and data URLs (CutDataURL).
//
// routing (detection, descriptions, assembly), imaging (conversion, downscaling) and historyimage
// (images in a chat history) read it; adding an image format is an entry in the table of image.go
// (and, for a new name, names.go), see docs/design.md, "How to add a format".
//
// It is pure: no I/O beyond the io.Reader it is handed, no state; every function is safe for
// concurrent use. Its walkers read outside input and never panic on it (the fuzz targets of this
// package, routing and imaging cover them).
package mediaformat
