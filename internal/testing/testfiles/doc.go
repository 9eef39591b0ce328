// Package testfiles builds small, real files of every type the worker routes, for tests.
//
// Each function returns a fresh slice on every call (callers may modify it) holding a file that a
// real decoder or parser accepts: images come from the standard library's encoders, ZIP from
// archive/zip, the PDF has a correct cross-reference table, WAV and MP3 have valid headers and
// frames, the ELF header parses with debug/elf. The package test asserts that
// github.com/gabriel-vasile/mimetype detects each file as its own type, so routing tests can rely
// on content detection. Nothing here does I/O; the functions are safe for concurrent use.
package testfiles
