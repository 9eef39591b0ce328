package httpapi

import (
	"context"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/bearer"
)

// Artifacts is what the chat panel's endpoints read.
type Artifacts interface {
	Info(ctx context.Context, id string) (contracts.ArtifactInfo, error)
	Open(ctx context.Context, id string) (io.ReadCloser, contracts.ArtifactInfo, error)
}

// ErrorMapper maps an error to its wire error and whether it is transient.
type ErrorMapper func(error) (*contracts.Error, bool)

// HandleArtifacts serves GET /artifacts/{id}/metadata (the artifact.metadata JSON) and
// GET /artifacts/{id}/content (the bytes, streamed, with Content-Type and Content-Disposition).
// With a non-empty token both require "Authorization: Bearer <token>". The id is path-escaped by the
// client (ws: ids contain ':' which is fine; '/' never appears in a valid id).
func (s *Server) HandleArtifacts(a Artifacts, mapErr ErrorMapper, token string) {
	auth := func(h http.HandlerFunc) http.HandlerFunc {
		if token == "" {
			return h
		}
		return func(w http.ResponseWriter, r *http.Request) {
			if !bearer.Valid(r.Header.Get("Authorization"), token) {
				w.Header().Set("WWW-Authenticate", `Bearer realm="artifacts"`)
				writeJSON(w, http.StatusUnauthorized, contracts.Error{Code: contracts.HTTPCodeUnauthorized, Message: "a valid bearer token is required"})
				return
			}
			h(w, r)
		}
	}
	fail := func(w http.ResponseWriter, err error) {
		wire, transient := mapErr(err)
		writeJSON(w, httpStatus(wire.Code, transient), wire)
	}
	s.mux.HandleFunc("GET /artifacts/{id}/metadata", auth(func(w http.ResponseWriter, r *http.Request) {
		info, err := a.Info(r.Context(), r.PathValue("id"))
		if err != nil {
			fail(w, err)
			return
		}
		writeJSON(w, http.StatusOK, info)
	}))
	s.mux.HandleFunc("GET /artifacts/{id}/content", auth(func(w http.ResponseWriter, r *http.Request) {
		rc, info, err := a.Open(r.Context(), r.PathValue("id"))
		if err != nil {
			fail(w, err)
			return
		}
		defer rc.Close()
		ct := info.MimeType
		if ct == "" {
			ct = "application/octet-stream"
		}
		h := w.Header()
		h.Set("Content-Type", ct)
		h.Set("Content-Length", strconv.FormatInt(info.Size, 10))
		h.Set("Content-Disposition", mime.FormatMediaType(disposition(r), map[string]string{"filename": info.Name}))
		h.Set("X-Content-Type-Options", "nosniff")
		// Artifacts are untrusted: never let a browser run an HTML or SVG artifact on our origin.
		h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
		w.WriteHeader(http.StatusOK)
		_, _ = io.Copy(w, rc)
	}))
}

// disposition is inline for ?inline=1 (previews), else attachment (downloads).
func disposition(r *http.Request) string {
	if v := r.URL.Query().Get("inline"); v == "1" || strings.EqualFold(v, "true") {
		return "inline"
	}
	return "attachment"
}

func httpStatus(code string, transient bool) int {
	if transient {
		return http.StatusServiceUnavailable
	}
	switch code {
	case contracts.CodeArtifactNotFound, contracts.CodeFileNotFound:
		return http.StatusNotFound
	case contracts.CodeInvalidRequest, contracts.CodeInvalidArtifactID, contracts.CodeInvalidPath, contracts.CodePathTraversalBlocked:
		return http.StatusBadRequest
	case contracts.CodePermissionDenied:
		return http.StatusForbidden
	}
	return http.StatusInternalServerError
}
