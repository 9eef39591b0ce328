package routing

import (
	"encoding/base64"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/imaging"
	"github.com/agentworks/artifact-worker/mediaformat"
	"github.com/agentworks/artifact-worker/messages"
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
	TooLarge bool
	// Unreadable is set when the content exists but could not be read whole (a read that ended
	// early, fewer bytes than the object's size). The result is the routing design's
	// processing-failed description.
	Unreadable   bool
	Capabilities Capabilities
	// Locale of descriptions: "zh" (default) or "en".
	Locale       string
	WorkspaceID  string
	RelativePath string
	// Formats the model's API accepts; the zero value is DefaultFormats.
	Formats Formats
	// Dialect the result will be assembled in (default openai-chat): media it cannot carry is
	// described, not sent.
	Dialect string
}

// Route decides how an artifact reaches the model and builds the design's ContentRouteResult.
//
//   - Text is returned verbatim in Content (contentType text, routing text).
//   - An image for a model with vision goes as a data URL in ImageURL (routing image_url), fitted
//     to the model by imaging.Prepare: a format the model does not take but that decodes here
//     (BMP, TIFF, an animated GIF where only static images are taken) is converted, an image over
//     the model's limits is downscaled, a JPEG's EXIF orientation is applied; ImageProcessing says
//     what was done. Content is the routing design's label "工件内容 ({filename}):".
//   - A document, audio, video or other binary for a model with the needed capability (file,
//     audio, video, file) whose format the model accepts (Input.Formats) and the dialect can
//     carry goes as base64 in File (routing file); Content is the same label.
//   - Anything else is described in Content (routing text) in the request's locale with design
//     document the routing design's template (see describe): a missing capability, a format the model does not
//     accept, a TooLarge artifact (contentType stays text for text, image for images, binary
//     otherwise).
//   - Content that exists but cannot be used (Unreadable; not supplied although the size says it
//     exists; media that is truncated where it would be sent, or an image that does not decode
//     where it must be converted) is the routing design's processing-failed description, routing text:
//     "[文件处理失败: {filename}]\n错误: 无法读取文件内容\n请检查文件是否损坏".
//
// Metadata follows the routing design's field meanings: type and mimeType are the detected MIME type, binaryType
// the category of a binary (absent for text), format the detected format.
//
// Base64 appears only in ImageURL and File, never in Content. Route is pure, deterministic,
// safe for concurrent use, never fails and never panics; an undetectable artifact is described
// as a binary file (二进制文件).
func Route(in Input) contracts.ContentRouteResult {
	loc := in.Locale
	content, size := normalized(in)
	filename := displayFilename(in)
	if filename == "" {
		filename = messages.Text(loc, messages.UnknownFile)
	}
	det := detectArtifact(in, content, size)

	res := contracts.ContentRouteResult{
		ContentType: contentType(det),
		Routing:     contracts.RouteText,
		Metadata: contracts.ArtifactMetadata{
			ID:           in.ID,
			Type:         det.MIME,
			Filename:     filename,
			MimeType:     det.MIME,
			Size:         size,
			CreatedAt:    in.CreatedAt,
			Format:       det.Format,
			TooLarge:     in.TooLarge,
			Confidence:   det.Confidence,
			WorkspaceID:  in.WorkspaceID,
			RelativePath: in.RelativePath,
		},
	}
	if !det.IsText {
		res.Metadata.BinaryType = det.Kind
	}
	need := NeededCapability(det.Kind)

	formats := in.Formats.orDefault()
	switch {
	case in.TooLarge:
		res.Content = describe(loc, filename, in.ID, det, size, reasonTooLarge)
	case in.Unreadable, content == nil && size > 0:
		res.Content = processingFailed(loc, filename, in.ID)
	case det.IsText:
		res.Content = string(content)
	case !in.Capabilities.Has(need):
		res.Content = describe(loc, filename, in.ID, det, size, reasonNoCapability)
	case !mediaformat.Intact(det.Format, content):
		res.Content = processingFailed(loc, filename, in.ID)
	case det.Kind == contracts.BinaryImage:
		routeImage(&res, loc, filename, in.ID, det, content, formats, in.Dialect)
	case !formats.Accepts(in.Dialect, det.Kind, det.Format):
		res.Content = describeNotAccepted(loc, filename, in.ID, det, size, formats.accepted(in.Dialect, det.Kind))
	default:
		res.Routing = contracts.RouteFile
		res.Content = mediaLabel(loc, filename, in.ID)
		url := dataURL(det.MIME, content) // built once: Data is its tail, Assemble reuses it
		res.File = &contracts.FilePart{
			Type: "file",
			File: contracts.FileData{
				Filename: filename,
				MimeType: det.MIME,
				Data:     url[len(url)-base64.StdEncoding.EncodedLen(len(content)):],
				DataURL:  url,
			},
		}
	}
	return res
}

// routeImage sends an image fitted to the model, or describes it when it cannot be. An image of a
// format decoded here that does not decode when it must be (converted, downscaled) is damaged: it
// gets the processing-failed description.
func routeImage(res *contracts.ContentRouteResult, loc string, filename, id string, det Detection, content []byte, f Formats, dialect string) {
	size := int64(len(content))
	prep, err := fitImage(content, det.Format, f, dialect)
	switch {
	case errors.Is(err, imaging.ErrTooLarge):
		res.Content = describe(loc, filename, id, det, size, reasonTooLarge)
		return
	case errors.Is(err, imaging.ErrDamaged):
		res.Content = processingFailed(loc, filename, id)
		return
	case err != nil:
		res.Content = describeNotAccepted(loc, filename, id, det, size, f.accepted(dialect, contracts.BinaryImage))
		return
	}
	mime, data := det.MIME, content
	if prep.Data != nil {
		mime, data = prep.MIME(), prep.Data
	}
	res.Routing = contracts.RouteImageURL
	res.Content = mediaLabel(loc, filename, id)
	res.ImageURL = &contracts.ImageURLPart{Type: "image_url", ImageURL: contracts.ImageURL{URL: dataURL(mime, data)}}
	res.ImageProcessing = imageProcessing(prep)
}

// ErrImageNotAccepted is wrapped by FitImage's error for an image that cannot be sent: its format
// is not accepted and cannot be converted, or it is too large to decode.
var ErrImageNotAccepted = errors.New("image not accepted by the model")

// FitImage fits an image (its bytes and MIME type) to what the model accepts (f, the zero value
// meaning DefaultFormats) and the dialect carries, as Route does for image artifacts: converted,
// downscaled, EXIF-oriented as needed. It returns the bytes to send (nil when the original goes
// as it is), their MIME type, and what was done; an image that cannot be sent gives an error
// wrapping ErrImageNotAccepted (and imaging.ErrTooLarge or imaging.ErrDamaged when that is why). FitImage is pure and safe for concurrent use.
func FitImage(data []byte, mime string, f Formats, dialect string) (out []byte, outMIME string, p *contracts.ImageProcessing, err error) {
	mime = mediaformat.NormalizeMIME(mime)
	r, err := fitImage(data, mediaformat.Name(mime), f.orDefault(), normalizeDialect(dialect))
	if err != nil {
		return nil, "", nil, fmt.Errorf("%w: %w", ErrImageNotAccepted, err)
	}
	if r.Data != nil {
		mime = r.MIME()
	}
	return r.Data, mime, imageProcessing(r), nil
}

// FitImageHead answers for an image of size bytes from head, its first bytes (a few KiB hold the
// headers of a PNG, JPEG, GIF or WEBP): ok is true when they show that FitImage leaves the image as it
// is, and outMIME and p are then what FitImage returns for the whole image. Otherwise ok is false
// (the image needs work, or head does not say enough): call FitImage with the whole image. It spares
// holding the whole image to find that it goes unchanged (history images, cached as base64).
// FitImageHead is pure and safe for concurrent use.
func FitImageHead(head []byte, size int64, mime string, f Formats, dialect string) (outMIME string, p *contracts.ImageProcessing, ok bool) {
	mime = mediaformat.NormalizeMIME(mime)
	r, ok := imaging.PrepareHead(head, size, mediaformat.Name(mime), fitTarget(f.orDefault(), normalizeDialect(dialect)))
	if !ok {
		return "", nil, false
	}
	return mime, imageProcessing(r), true
}

func fitImage(data []byte, format string, f Formats, dialect string) (imaging.Result, error) {
	return imaging.Prepare(data, format, fitTarget(f, dialect))
}

// fitTarget is what an image is fitted to for a model (f) in a dialect.
func fitTarget(f Formats, dialect string) imaging.Target {
	return imageTarget(f.accepted(dialect, contracts.BinaryImage), f.Limits)
}

// imageTarget is what imaging.Prepare fits an image to: the accepted formats that some API takes
// as images (so never SVG or BMP, whatever a registry says), within the limits.
func imageTarget(accepted []string, l ImageLimits) imaging.Target {
	var formats []string
	for _, f := range accepted {
		if mediaformat.SendableImage(f) {
			formats = append(formats, f)
		}
	}
	return imaging.Target{
		Formats: formats, MaxLongEdge: l.MaxLongEdge, MaxShortEdge: l.MaxShortEdge,
		MaxPixels: l.MaxPixels, MaxBytes: l.MaxBytes, StaticOnly: l.StaticOnly,
	}
}

func imageProcessing(r imaging.Result) *contracts.ImageProcessing {
	info := func(i imaging.Info) contracts.ImageInfo {
		return contracts.ImageInfo{Format: i.Format, Width: i.Width, Height: i.Height, Bytes: i.Bytes}
	}
	return &contracts.ImageProcessing{Original: info(r.Original), Sent: info(r.Sent), Actions: r.Actions}
}

func contentType(d Detection) string {
	switch {
	case d.IsText:
		return contracts.ContentText
	case d.Kind == contracts.BinaryImage:
		return contracts.ContentImage
	default:
		return contracts.ContentBinary
	}
}

// DetectArtifact answers "what is this file?" for in exactly as Route does, without routing it:
// callers that describe or serve an artifact (artifact.metadata, the HTTP endpoints) use it so that
// they never disagree with tool.get_artifact. Only the artifact fields of in matter (not
// Capabilities, Locale, Dialect or Formats). It is pure and never panics.
func DetectArtifact(in Input) Detection {
	content, size := normalized(in)
	return detectArtifact(in, content, size)
}

func detectArtifact(in Input, content []byte, size int64) Detection {
	return Detect(DetectInput{Filename: detectFilename(in), DeclaredMIME: in.DeclaredMIME, Head: content, Size: size})
}

// normalized returns the content and size Route works with.
func normalized(in Input) ([]byte, int64) {
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
	return content, size
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
// else its id (as in the routing design), else "" (Route then uses the routing design's 未知文件, so that
// metadata.filename is never empty).
func displayFilename(in Input) string {
	if strings.TrimSpace(in.Filename) != "" {
		return in.Filename
	}
	if p := strings.Trim(in.RelativePath, "/"); p != "" {
		return path.Base(p)
	}
	return strings.TrimPrefix(in.ID, "artifact:")
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
