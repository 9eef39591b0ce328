// Package routing decides how an artifact reaches a language model, and builds the parts that
// carry it. It is pure: no I/O, no NATS, no object store, no environment; every function is
// deterministic and safe for concurrent use.
//
// Three steps, each usable alone:
//
//   - Detect decides an artifact's type from its declared MIME type, its filename extension and
//     its bytes, in that order, with the bytes guarding against lies (see Detect).
//   - Route turns an artifact and the reading model's Capabilities into the design's
//     contracts.ContentRouteResult: text verbatim; images as data URLs; documents, audio, video
//     and other binaries as base64 file parts; and, when the model lacks the capability, the
//     format is not accepted by any provider, or the artifact is too large, the routing design's
//     description in the request's locale ("[无法读取] a.pdf (artifact:a1)", "类型: PDF 文档",
//     "大小: 1.2 MB", the routing design's closing sentence; "[Cannot read] …" in English); content that exists but
//     cannot be processed is the routing design's "[文件处理失败: a.pdf]" description.
//   - Assemble turns a ContentRouteResult into the tool-result parts of a dialect (AssembleText: a
//     text-only tool result, which error replies use; AssembleImage: a history image), as the
//     dialect's entry in package dialects builds them: openai-chat (a string tool message plus,
//     for media, one user message that carries it, after an assistant message for an
//     ordering-strict provider), openai-responses, anthropic, gemini, bedrock-converse, langchain
//     or langchain-js (ParseDialect is the one validator of dialect names; DialectCarries says what
//     each can hold). For gemini the model decides where media goes (Formats.ToolResultMedia):
//     inside the functionResponse (Gemini 3) or in a follow-up user content (older models, the
//     default). The notes it adds are in the locale it is given; nothing is inferred from text.
//   - EstimateUsage (ImageUsage, TextUsage) estimates the input tokens of what is sent against the
//     same media as base64 text, with the token rule of the model's provider (Formats.Tokens),
//     else the dialect's.
//
// Every sentence a user or model reads comes from the message catalogue (package messages).
//
// What a model accepts is its Formats (per modality, with image limits; the registry's formats):
// Route sends image_url or file only for an accepted format the dialect carries, and fits images
// with the imaging package (FitImage does the same for a history image).
//
// # Contract
//
//   - Binary never in text: base64 and raw bytes appear only in image or file parts, never in
//     ContentRouteResult.Content, a "text" part, or a string ToolContent.
//   - Text is never encoded: the content of a text artifact is returned byte for byte.
//   - The same input always gives the same (deep-equal) result.
//   - The structure is complete: routing image_url if and only if ImageURL is set, routing file
//     if and only if File is set; metadata id, filename (never empty) and size are always set.
//   - Route and Assemble never fail and never panic; when in doubt they describe instead of send.
//
// Text means valid UTF-8 without NUL, DEL or C0 control characters other than tab, newline,
// carriage return, form feed and escape; a BOM is kept. Text in other encodings (GBK, UTF-16,
// Latin-1) is therefore described as a binary file. SVG is text: it is XML, and no provider
// accepts it as an image. An empty file is empty text. A TooLarge text artifact keeps content
// type text, with a description in Content and metadata.tooLarge set.
//
// Images routed as image_url are in a format the model takes (PNG, JPEG, GIF, WEBP; HEIC and HEIF
// for Gemini): BMP, TIFF, a GIF the model does not take and an animated GIF for a static-only API
// are converted to PNG (or JPEG), an image over the model's limits is downscaled, a JPEG's EXIF
// orientation is applied. What cannot be converted (AVIF, HEIC for OpenAI) is described with the
// formats the model accepts.
package routing
