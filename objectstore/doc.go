// Package objectstore is the worker's access to blobs: artifacts and workspace files kept in
// S3-compatible storage (S3, backed by minio-go) or, for development and tests, in a local
// directory (Local). Both have the same method set and pass the same contract suite
// (objectstore/storetest).
//
// # Keys
//
// Keys follow the storage contract: a regular artifact is the object "artifacts/{id}", with
// Content-Type set to its MIME type and user metadata "filename" set to its name; a workspace
// file is "workspaces/{workspaceId}/{relativePath}". Keys are UTF-8 paths of at most 1024 bytes
// made of "/"-separated segments; a key that is empty, absolute ("/..."), contains an empty, "."
// or ".." segment, a NUL byte or invalid UTF-8 is rejected with ErrInvalidKey by every method,
// before any I/O. Spaces and any other Unicode are fine ("workspaces/ws1/src/a b/报告.md").
//
// # Metadata
//
// Info.Metadata holds the object's user metadata (S3 "X-Amz-Meta-*"), keys lower-cased
// ("filename"), values as the writer gave them: arbitrary UTF-8. Keys must be HTTP header tokens.
//
// S3 user metadata travels in HTTP headers and must be ASCII, so S3.Put writes every value that
// is not plain printable ASCII (non-ASCII, control characters, leading or trailing blanks, or
// containing "=?") as RFC 2047 encoded words, "=?utf-8?b?<base64>?=", several separated by
// spaces when long -- the form S3 itself returns for non-ASCII metadata. On reading, a value that
// starts with "=?" and is valid RFC 2047 is decoded (minio-go does this for StatObject and
// GetObject; the contract suite checks it); every other value is returned verbatim. So objects
// written by other tools -- agent runtimes that PUT straight to the bucket with a plain
// "X-Amz-Meta-Filename: report.pdf" -- come back as-is, and RFC 2047 values they wrote (any
// charset Go's mime package knows) are decoded. The one ambiguity is a plain value by another
// tool that starts with "=?" and happens to be valid RFC 2047: it is decoded. Local keeps values
// verbatim in JSON and needs no encoding.
//
// # Errors
//
// Errors match, with errors.Is, at most one of the sentinels below, and keep the underlying
// cause in the chain (errors.As finds a minio.ErrorResponse or a *net.OpError):
//
//   - ErrNotFound: the key has no object. Permanent for this key.
//   - ErrTooLarge: ReadAll's limit is smaller than the object; the Info is filled, the content was
//     not read (the GET's body is closed unread). Permanent for this limit.
//   - ErrPermission: the credentials may not do this (AccessDenied, bad keys, file permissions).
//     Permanent until the deployment is fixed.
//   - ErrInvalidKey: the key breaks the rules above (or, for Local, collides with a directory).
//     Permanent; caused by the caller.
//   - ErrUnavailable: transient: connection refused or reset, timeouts (including the context's
//     deadline), 5xx, throttling, a server still starting, a bucket that does not exist (yet).
//     Callers retry these with back-off.
//
// A cancelled context yields an error matching context.Canceled and none of the sentinels.
// Anything else is unexpected and should be treated as transient by callers that must choose.
//
// # Concurrency and lifetimes
//
// S3 and Local are safe for concurrent use by multiple goroutines. Put replaces an object
// atomically: readers see the old or the new content and metadata, never a mix or a partial
// object (Local guarantees this within one process; see Local). The reader returned by Open
// belongs to the caller, who must Close it; it streams the content, and its reads are bounded by
// the context given to Open. Put does not close the reader it is given.
package objectstore
