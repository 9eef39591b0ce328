// Package historyimage keeps old images out of conversation contexts: the worker's side of
// context.preprocess and tool.get_history_image (seed 002, "history image processing").
//
// Every image a user ever sent is paid for again on every turn. Preprocess takes a context (a JSON
// list of [role, content] pairs or {"role","content",...} objects), keeps the last human turn whole,
// and in every older human turn replaces each image carrying inline base64 data by the text part
//
//	{"type":"text","text":"[Picture:history_{md5}]"}
//
// where md5 is the hex MD5 of the base64 text, after storing {data, mime_type} under that hash
// through a Putter. The model can fetch any of them back by id with tool.get_history_image, which
// NormalizeID and Cache.Get serve. The reply keeps the shape the context came in; every byte that is
// not a replaced image part is kept as it was.
//
// Cache is the Putter used in production: a JetStream KV bucket whose MaxAge is the TTL (two hours
// by default; every Put rewrites the entry and so restarts the clock), with images too large for a
// KV value in an Object Store bucket indexed by the KV entry. Keys are "history_image_{md5}". See
// Cache for the expiry rules of large images.
//
// # Errors
//
// The handlers map errors to wire codes at the edge:
//
//	*InvalidContextError (errors.As)  -> contracts.CodeInvalidRequest, message = Error()
//	ErrInvalidImageID (errors.Is)     -> contracts.CodeInvalidImageID, message = Message(code, locale)
//	ErrNotFound (errors.Is)           -> contracts.CodeImageNotFound,  message = Message(code, locale)
//
// All three are permanent. Other errors of Cache come from JetStream and are transient. A cache write
// that fails during Preprocess is not an error: the image stays in the context and the failure is
// counted in PreprocessStats.CacheFailures.
//
// # Concurrency
//
// Preprocess, NormalizeID and Message are pure functions (apart from the Putter). Cache is safe for
// concurrent use, and several worker replicas may share its buckets.
package historyimage
