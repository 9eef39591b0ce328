package handlers

import (
	"context"
	"errors"
	"log/slog"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/messaging"
	"github.com/agentworks/artifact-worker/routing"
)

// HistoryImages is the history image cache.
type HistoryImages interface {
	historyimage.Putter
	Get(ctx context.Context, md5 string) (historyimage.Image, error)
}

// Preprocess handles context.preprocess.
type Preprocess struct {
	Cache  historyimage.Putter
	Logger *slog.Logger
}

// Handle implements messaging.Handler.
func (h *Preprocess) Handle(ctx context.Context, req messaging.Request) (any, error) {
	var r contracts.PreprocessRequest
	if err := decode(contracts.SubjectPreprocess, req.Body, &r); err != nil {
		return nil, err
	}
	if len(r.Messages) == 0 {
		return nil, invalid("messages", "messages is required")
	}
	if _, err := locale(r.Locale); err != nil {
		return nil, err
	}
	out, stats, err := historyimage.Preprocess(ctx, r.Messages, h.Cache, h.Logger)
	if err != nil {
		var ic *historyimage.InvalidContextError
		if errors.As(err, &ic) {
			return nil, invalid("messages", "%s", ic.Problem)
		}
		return nil, err
	}
	return contracts.PreprocessResult{Messages: out, Stats: stats}, nil
}

// GetHistoryImage handles tool.get_history_image.
type GetHistoryImage struct {
	Cache HistoryImages
}

// Handle implements messaging.Handler.
func (h *GetHistoryImage) Handle(ctx context.Context, req messaging.Request) (any, error) {
	var r contracts.GetHistoryImageRequest
	if err := decode(contracts.SubjectGetHistoryImage, req.Body, &r); err != nil {
		return nil, err
	}
	loc, dia, err := presentation(r.Locale, r.Dialect)
	if err != nil {
		return nil, err
	}
	med, err := media(r.Media)
	if err != nil {
		return nil, err
	}
	md5, err := historyimage.NormalizeID(r.ImageMD5)
	if err != nil {
		return nil, &contracts.Error{Code: contracts.CodeInvalidImageID, Message: historyimage.Message(contracts.CodeInvalidImageID, loc), Field: "image_md5"}
	}
	img, err := h.Cache.Get(ctx, md5)
	if errors.Is(err, historyimage.ErrNotFound) {
		return nil, &contracts.Error{Code: contracts.CodeImageNotFound, Message: historyimage.Message(contracts.CodeImageNotFound, loc), Ref: historyimage.Placeholder(md5)}
	}
	if err != nil {
		return nil, err
	}
	var res contracts.GetHistoryImageResult
	if med != contracts.MediaAssembly {
		res.Content = []contracts.HistoryImageBlock{{Type: "image", MimeType: img.MimeType, Base64: img.Data}}
	}
	if med != contracts.MediaResult {
		res.Assembly = routing.AssembleImage(img.MimeType, img.Data, historyimage.Placeholder(md5), dia)
	}
	return res, nil
}
