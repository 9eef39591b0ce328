package contracts

import "encoding/json"

// GetHistoryImageRequest is the body of tool.get_history_image.
type GetHistoryImageRequest struct {
	RequestID string `json:"request_id"`
	// ImageMD5 is the hex MD5 from a [Picture:history_{md5}] (or [File:history_{md5}]) placeholder,
	// with or without "history_", or the whole placeholder.
	ImageMD5 string `json:"image_md5"`
	// ServiceID and Capabilities work as in GetArtifactRequest: the image is fitted to what the
	// model accepts (formats and limits), and described when the model has no vision. With neither,
	// the model is taken to have vision, and the dialect's provider's formats apply.
	ServiceID    string   `json:"service_id,omitempty"`
	Capabilities []string `json:"capabilities,omitzero"`
	Dialect      string   `json:"dialect,omitempty"`
	Locale       string   `json:"locale,omitempty"`
	// Media: MediaBoth (default), MediaResult (Content only) or MediaAssembly (Assembly only).
	Media string `json:"media,omitempty"`
}

// HistoryImageBlock is the seeds' multimodal block: {"type":"image","mime_type","base64"}; a
// document cached from a [File:history_...] placeholder comes as type "file", audio as "audio",
// video as "video".
type HistoryImageBlock struct {
	Type     string `json:"type"`
	MimeType string `json:"mime_type"`
	Base64   string `json:"base64"`
}

// GetHistoryImageResult is the result of tool.get_history_image. With media "assembly" it has no
// Content; with media "result" no Assembly.
type GetHistoryImageResult struct {
	Content []HistoryImageBlock `json:"content,omitempty"`
	// ImageProcessing says what was done to fit the image to the model; absent when it is not sent.
	ImageProcessing *ImageProcessing `json:"imageProcessing,omitempty"`
	Usage           Usage            `json:"usage"`
	Assembly        Assembly         `json:"assembly,omitzero"`
}

// PreprocessRequest is the body of context.preprocess. Messages is the context in the shape of
// Dialect; the reply keeps the shape it came in.
type PreprocessRequest struct {
	RequestID string          `json:"request_id"`
	Messages  json.RawMessage `json:"messages"`
	// Dialect is the shape of Messages: one of Dialects. Absent: any of them, and the [role,
	// content] pairs and {"role","content"} objects context.preprocess has always taken. A context
	// not in that shape is invalid_request naming the place.
	Dialect string `json:"dialect,omitempty"`
	// KeepTurns is how many of the latest turns keep their media (0: none); absent: the worker's
	// HISTORY_KEEP_TURNS setting (1 by default: the latest turn).
	KeepTurns *int `json:"keep_turns,omitempty"`
	// ServiceID and Capabilities name the model the context goes to, as in GetArtifactRequest (the
	// explicit list wins, else the registry's entry for ServiceID). Media of a kind it cannot read is
	// described wherever it is. With neither, every kind is taken to be readable.
	ServiceID    string   `json:"service_id,omitempty"`
	Capabilities []string `json:"capabilities,omitzero"`
	Locale       string   `json:"locale,omitempty"`
}

// PreprocessResult is the result of context.preprocess.
type PreprocessResult struct {
	Messages json.RawMessage `json:"messages"`
	Stats    PreprocessStats `json:"stats"`
	// LeftAlone lists the media parts left as they were although they were looked at, and why.
	LeftAlone []LeftAlonePart `json:"left_alone,omitempty"`
}

// PreprocessStats reports what preprocessing removed from the context.
type PreprocessStats struct {
	ImagesReplaced int `json:"images_replaced"`
	// BytesRemoved counts the characters of base64 data taken out of the context.
	BytesRemoved int64 `json:"bytes_removed"`
	// TokensSavedEstimate estimates the input tokens saved per later turn.
	TokensSavedEstimate int64 `json:"tokens_saved_estimate"`
	// CacheFailures counts media parts whose cache write failed: left in place, or described
	// without a way back when the model cannot read them.
	CacheFailures int `json:"cache_failures"`
	// PartsSkipped counts image parts of older human turns left in place, unchanged, because they
	// are malformed (no data, a data URL that is not base64, base64 that does not decode) or their
	// bytes are not an image (whatever their label says).
	PartsSkipped int `json:"parts_skipped"`
	// FilesReplaced counts documents (PDF), audio and video parts replaced; ImagesReplaced counts
	// images. Both include MediaDescribed.
	FilesReplaced int `json:"files_replaced"`
	// MediaDescribed counts media parts replaced by a description because the target model cannot
	// read their kind (service_id or capabilities).
	MediaDescribed int `json:"media_described"`
}

// LeftAlonePart is a part of the context that context.preprocess looked at and left as it was.
type LeftAlonePart struct {
	// Path is its JSON path in messages: messages[3].content[0].content[1].
	Path string `json:"path"`
	// Reason says why: malformed base64, a declared type its bytes contradict, an unknown part
	// type, over the size limit.
	Reason string `json:"reason"`
}
