package handlers

import (
	"context"
	"path"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/handling"
	"github.com/agentworks/artifact-worker/internal/gcpace"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/routing"
	"github.com/agentworks/artifact-worker/workspace"
)

// Blobs is the storage tool.get_artifact needs.
type Blobs interface {
	// ReadAll returns the object's bytes, or ErrTooLarge with its Info (not downloaded) when it is
	// bigger than max.
	ReadAll(ctx context.Context, key string, max int64) ([]byte, objectstore.Info, error)
}

// Capabilities answers what a service's model accepts as input. Unknown services are text only.
type Capabilities interface {
	Capabilities(serviceID string) []string
}

// ModelFormats answers which formats a service's model API accepts; an unknown service takes the
// defaults of fallbackProvider (the provider behind the request's dialect).
type ModelFormats interface {
	Formats(serviceID, fallbackProvider string) routing.Formats
}

// ModelDecisions says which capability registry entry decides for a service id (see
// llmservices.Registry.Decide).
type ModelDecisions interface {
	Decide(serviceID string) contracts.ModelDecision
}

// FileMetas reads per-file metadata of workspace files.
type FileMetas interface {
	Get(ctx context.Context, workspaceID, cleanPath string) (workspace.FileMeta, error)
}

// GetArtifact handles tool.get_artifact.
type GetArtifact struct {
	Blobs        Blobs
	Capabilities Capabilities
	// Formats is optional: without it, routing.DefaultFormats apply.
	Formats ModelFormats
	// Files is optional: without it, ws: refs take their MIME type from the object's Content-Type.
	Files FileMetas
	// MaxSize is the largest artifact read; bigger ones are described from their metadata.
	MaxSize int64
	// Extraction reads the text of documents the model cannot take as files, for requests that
	// opt in (extract_text, or the registry entry).
	Extraction Extraction
	// Tokens is optional: it counts the tokens each result saves (usage.tokensSaved).
	Tokens TokenCounter
	// Decisions is optional: with it, each result says which registry entry decided (model).
	Decisions ModelDecisions
	// Pages is optional: with it, a PDF for a model that reads images but takes no PDF goes as
	// page images with their text layers (routing pages); without it, such a PDF is described (or
	// its text extracted).
	Pages PageRenderer
}

// Handle implements handling.Handler.
func (h *GetArtifact) Handle(ctx context.Context, req handling.Request) (any, error) {
	var r contracts.GetArtifactRequest
	if err := decode(contracts.SubjectGetArtifact, req.Body, &r); err != nil {
		return nil, err
	}
	loc, dia, med, err := presentation(r.Locale, r.Dialect, r.Media)
	if err != nil {
		return nil, err
	}
	caps, err := h.capabilities(r)
	if err != nil {
		return nil, err
	}
	sel, err := pages(r.Pages)
	if err != nil {
		return nil, err
	}
	target, err := resolveRef(r.Ref)
	if err != nil {
		return nil, withRef(r.Ref, err)
	}
	if err := inScope(ctx, target, r.Ref); err != nil {
		return nil, err
	}
	art, err := load(ctx, h.Blobs, h.Files, target, r.Ref, h.MaxSize)
	if err != nil {
		return nil, err
	}
	defer gcpace.Hold(int64(len(art.data)))()
	in := art.input()
	in.Capabilities, in.Locale, in.Dialect, in.Formats = caps, loc, dia, formatsFor(h.Formats, r.ServiceID, dia)
	res := routing.Route(in)
	rendered := false
	if h.wantsPages(r, res, in) {
		if res, rendered, err = h.renderPages(ctx, res, in, sel); err != nil {
			return nil, err
		}
	}
	if !rendered {
		res = h.Extraction.apply(ctx, r, res, in.Content, loc)
	}
	usage := routing.EstimateUsage(res, dia, in.Formats)
	countSaved(ctx, h.Tokens, contracts.SubjectGetArtifact, dia, usage.TokensSaved)
	return encodeResult(res, usage, routing.Assemble(res, dia, loc, in.Formats), med, h.decision(r))
}

// decision is what decided the model's inputs: the request's capabilities list, else the
// registry's entry for service_id (nil without Decisions).
func (h *GetArtifact) decision(r contracts.GetArtifactRequest) *contracts.ModelDecision {
	switch {
	case r.Capabilities != nil:
		return &contracts.ModelDecision{DecidedBy: contracts.DecidedByRequest}
	case h.Decisions == nil:
		return nil
	}
	d := h.Decisions.Decide(r.ServiceID)
	return &d
}

// formatsFor is what the service's API accepts (m is optional), or the defaults of the dialect's
// provider.
func formatsFor(m ModelFormats, serviceID, dialect string) routing.Formats {
	if m == nil {
		return routing.Formats{}
	}
	return m.Formats(serviceID, routing.DialectProvider(dialect))
}

// capabilities is the explicit list when the request has one, else the registry's entry.
func (h *GetArtifact) capabilities(r contracts.GetArtifactRequest) (routing.Capabilities, error) {
	if r.Capabilities != nil {
		return explicitCapabilities(r.Capabilities)
	}
	if h.Capabilities == nil {
		return routing.NewCapabilities(), nil
	}
	return routing.NewCapabilities(h.Capabilities.Capabilities(r.ServiceID)...), nil
}

// explicitCapabilities validates a request's capabilities list.
func explicitCapabilities(names []string) (routing.Capabilities, error) {
	for _, c := range names {
		if !contracts.KnownCapability(c) {
			return routing.Capabilities{}, invalid("capabilities", "unknown capability %s (use text, vision, file, audio, video)", quote(c))
		}
	}
	return routing.NewCapabilities(names...), nil
}

// target is where an artifact reference points in the store.
type target struct {
	id          string // the id shown to the model: the bare id or the full ws: id
	key         string
	workspaceID string
	relPath     string
}

func (t target) filename(info objectstore.Info) string {
	if t.relPath != "" {
		return path.Base(t.relPath)
	}
	if n := info.Filename(); n != "" {
		return n
	}
	return t.id
}

const maxIDLen = 512

// resolveRef parses "artifact:{id}", a bare id, or "ws:{workspace}:{base64url(path)}" (also written
// "artifact:ws:...", the form descriptions show the model).
func resolveRef(ref string) (target, error) {
	if ref == "" {
		return target{}, invalid("ref", "ref is required")
	}
	id := strings.TrimPrefix(ref, "artifact:")
	if strings.HasPrefix(id, workspace.IDPrefix) {
		ws, rel, err := workspace.DecodeID(id)
		if err != nil {
			return target{}, err
		}
		return target{id: id, key: objectstore.WorkspaceKey(ws, rel), workspaceID: ws, relPath: rel}, nil
	}
	if err := validateArtifactID(id); err != nil {
		return target{}, err
	}
	return target{id: id, key: objectstore.ArtifactKey(id)}, nil
}

// validateArtifactID accepts ids that map to exactly one object under artifacts/.
func validateArtifactID(id string) error {
	bad := func(why string) error {
		return &contracts.Error{Code: contracts.CodeInvalidArtifactID, Message: "invalid artifact id: " + why}
	}
	if id == "" || len(id) > maxIDLen {
		return bad("must be 1..512 characters")
	}
	for _, r := range id {
		if r < 0x20 || r == 0x7f || r == '\\' || r == '/' || r == '\uFFFD' {
			return bad("must not contain '/', '\\' or control characters")
		}
	}
	if id == "." || id == ".." {
		return bad("must not be '.' or '..'")
	}
	return nil
}
