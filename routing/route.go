package routing

import (
	"encoding/base64"
	"path"
	"strings"
	"time"

	"github.com/agentworks/artifact-worker/contracts"
)

// Input is everything Route needs to know about one artifact and the model that will read it.
type Input struct {
	// ID is the artifact's bare id; it is metadata.id and appears as "(artifact:{id})".
	ID           string
	Filename     string
	DeclaredMIME string
	// Size of the artifact in bytes. When Content is set (and not TooLarge), len(Content) is used.
	Size      int64
	CreatedAt time.Time
	// Content holds the full bytes; nil when TooLarge.
	Content []byte
	// TooLarge is set when the artifact exceeded the size limit and was not downloaded.
	TooLarge     bool
	Capabilities Capabilities
	// Locale of descriptions: "zh" (default) or "en".
	Locale       string
	WorkspaceID  string
	RelativePath string
}

// acceptedImageFormats are the image formats every supported model API accepts (PROVIDERS.md):
// OpenAI, Anthropic and Gemini all take PNG, JPEG and WEBP; OpenAI and Anthropic take GIF.
var acceptedImageFormats = map[string]bool{"png": true, "jpeg": true, "gif": true, "webp": true}

// Route decides how an artifact reaches the model and builds the seeds' ContentRouteResult.
//
//   - Text is returned verbatim in Content (contentType text, routing text).
//   - An image in PNG, JPEG, GIF or WEBP for a model with vision goes as a data URL in ImageURL
//     (routing image_url); Content is a one-line summary.
//   - A document, audio, video or other binary for a model with the needed capability (file,
//     audio, video, file) goes as base64 in File (routing file); Content is a one-line summary.
//   - Anything else is described in Content (routing text) in the request's locale: a missing
//     capability, an image format no provider accepts, a TooLarge artifact (contentType stays
//     text for text, image for images, binary otherwise), content that was not supplied.
//
// Base64 appears only in ImageURL and File, never in Content. Route is pure, deterministic,
// safe for concurrent use, never fails and never panics; an undetectable artifact is described
// as an unknown binary file.
func Route(in Input) contracts.ContentRouteResult {
	msgs := localeMessages(in.Locale)
	content := in.Content
	size := max(in.Size, 0)
	if in.TooLarge {
		// Bytes given with TooLarge are at most a head: they help detection, they are never sent.
		size = max(size, int64(len(content)))
	} else if content != nil {
		size = int64(len(content))
	} else if size == 0 {
		content = []byte{} // an empty file, whichever way the caller spelled it
	}
	filename := displayFilename(in)
	det := Detect(DetectInput{Filename: detectFilename(in), DeclaredMIME: in.DeclaredMIME, Head: content, Size: size})

	res := contracts.ContentRouteResult{
		ContentType: contentType(det),
		Routing:     contracts.RouteText,
		Metadata: contracts.ArtifactMetadata{
			ID:           in.ID,
			Type:         det.Kind,
			Filename:     filename,
			MimeType:     det.MIME,
			Size:         size,
			CreatedAt:    in.CreatedAt,
			TooLarge:     in.TooLarge,
			Confidence:   det.Confidence,
			WorkspaceID:  in.WorkspaceID,
			RelativePath: in.RelativePath,
		},
	}
	if !det.IsText {
		res.Metadata.BinaryType = det.Format
	}
	label := artifactLabel(filename, in.ID)
	need := neededCapability(det.Kind)

	switch {
	case in.TooLarge:
		res.Content = describe(msgs, label, det, size, reasonTooLarge, need)
	case content == nil && size > 0:
		res.Content = describe(msgs, label, det, size, reasonUnavailable, need)
	case det.IsText:
		res.Content = string(content)
	case det.Kind == contracts.KindImage && !acceptedImageFormats[det.Format]:
		res.Content = describe(msgs, label, det, size, reasonUnsupportedImage, need)
	case !in.Capabilities.Has(need):
		res.Content = describe(msgs, label, det, size, reasonNoCapability, need)
	case det.Kind == contracts.KindImage:
		res.Routing = contracts.RouteImageURL
		res.Content = summary(msgs.imageMarker, label, msgs.typeName(det), size)
		res.ImageURL = &contracts.ImageURLPart{
			Type:     "image_url",
			ImageURL: contracts.ImageURL{URL: dataURL(det.MIME, content)},
		}
	default:
		res.Routing = contracts.RouteFile
		res.Content = summary(msgs.fileMarker, label, msgs.typeName(det), size)
		res.File = &contracts.FilePart{
			Type: "file",
			File: contracts.FileData{
				Filename: filename,
				MimeType: det.MIME,
				Data:     base64.StdEncoding.EncodeToString(content),
			},
		}
	}
	return res
}

func contentType(d Detection) string {
	switch {
	case d.IsText:
		return contracts.ContentText
	case d.Kind == contracts.KindImage:
		return contracts.ContentImage
	default:
		return contracts.ContentBinary
	}
}

// detectFilename is the name whose extension detection may use: the filename, else the
// workspace path's last element.
func detectFilename(in Input) string {
	if strings.TrimSpace(in.Filename) != "" {
		return in.Filename
	}
	return path.Base("/" + in.RelativePath)
}

// displayFilename is the artifact's filename, else the last element of its workspace path,
// else its id, so that metadata.filename is never empty.
func displayFilename(in Input) string {
	if strings.TrimSpace(in.Filename) != "" {
		return in.Filename
	}
	if p := strings.Trim(in.RelativePath, "/"); p != "" {
		return path.Base(p)
	}
	if in.ID != "" {
		return in.ID
	}
	return "artifact"
}

// dataURL builds "data:{mime};base64,{data}" with one allocation of the final size.
func dataURL(mime string, data []byte) string {
	prefix := "data:" + mime + ";base64,"
	var b strings.Builder
	b.Grow(len(prefix) + base64.StdEncoding.EncodedLen(len(data)))
	b.WriteString(prefix)
	enc := base64.NewEncoder(base64.StdEncoding, &b)
	_, _ = enc.Write(data) // a strings.Builder never fails
	_ = enc.Close()
	return b.String()
}
