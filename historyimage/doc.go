// Package historyimage keeps old media out of conversation contexts: the worker's side of
// context.preprocess and tool.get_history_image (docs/design.md, "History images"),
// extended to every dialect the worker assembles and to tool results.
//
// Every image or document a context carries is paid for again on every turn, and in an agent
// session most of them arrive as tool results. PreprocessWith takes a context in a dialect's own
// shape (OpenAI chat and Responses, Anthropic, Gemini, Bedrock Converse, LangChain and the two
// forms LangChain stores messages in; or any of them; a context not in the named dialect's shape
// is an error), keeps the media of the latest turns (Options.KeepTurns) and of the latest person's
// message, and in every older turn replaces each medium carrying inline base64 (in a person's
// message, a tool result, or a follow-up message of the worker's assembly) by a text part
//
//	{"type":"text","text":"[Picture:history_{md5}]"}   ({"text":...} in Gemini and Bedrock,
//	                                                    input_text in Responses; [File:...] for
//	                                                    documents, audio and video)
//
// where md5 is the hex MD5 of the base64 text, after storing {data, mime_type, filename} under that
// hash through a Putter. Media of a kind the target model cannot read (Options.Readable) is
// replaced everywhere by a description that names the placeholder. The model can fetch any of
// them back by id with tool.get_history_image, which NormalizeID and Cache.Get serve. The reply
// keeps the shape the context came in; every byte that is not a replaced part is kept as it was.
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
// that fails during preprocessing is not an error: the medium stays in the context and the failure
// is counted in PreprocessStats.CacheFailures. A part that is malformed or hostile is not an error
// either: it stays and is listed in Report.LeftAlone.
//
// # Concurrency
//
// Preprocess, NormalizeID and Message are pure functions (apart from the Putter). Cache is safe for
// concurrent use, and several worker replicas may share its buckets.
package historyimage
