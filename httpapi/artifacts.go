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
	"github.com/agentworks/artifact-worker/scope"
)

// Artifacts is what the chat panel's endpoints read.
type Artifacts interface {
	Info(ctx context.Context, id string) (contracts.ArtifactInfo, error)
	Open(ctx context.Context, id string) (io.ReadCloser, contracts.ArtifactInfo, error)
}

// ErrorMapper maps an error to its wire error and whether it is transient.
type ErrorMapper func(error) (*contracts.Error, bool)

// Token is a bearer token of the artifact endpoints and the scope of the requests it
// authenticates: a chat panel gets a token whose scope is its own workspace.
type Token struct {
	Secret string
	Scope  scope.Scope
	// Artifacts, when not nil, is what this token reads instead of the server's (a tenant's, in a
	// pool shared by tenants).
	Artifacts Artifacts
}

// Auth is how the artifact endpoints authenticate and scope a request.
type Auth struct {
	// Tokens are the accepted bearer tokens. None: the endpoints are open and unscoped.
	Tokens []Token
	// Refused, optional, is told of each request refused for its scope (answered not found).
	Refused func(ctx context.Context, endpoint string, r *scope.Refusal)
}

// token returns the token the Authorization header carries. Every token is compared (in constant
// time), so the time taken does not tell which one came close.
func (a Auth) token(header string) (Token, bool) {
	var found Token
	ok := false
	for _, t := range a.Tokens {
		if bearer.Valid(header, t.Secret) && !ok {
			found, ok = t, true
		}
	}
	return found, ok
}

// HandleArtifacts serves GET /artifacts/{id}/metadata (the artifact.metadata JSON) and
// GET /artifacts/{id}/content (the bytes, streamed, with Content-Type and Content-Disposition).
// With tokens both require "Authorization: Bearer <token>" and read within the token's scope: an id
// outside it is answered exactly as one that does not exist (404 artifact_not_found). The id is
// path-escaped by the client (ws: ids contain ':' which is fine; '/' never appears in a valid id).
func (s *Server) HandleArtifacts(server Artifacts, mapErr ErrorMapper, au Auth) {
	auth := func(endpoint string, h func(Artifacts, http.ResponseWriter, *http.Request)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			sc, a := scope.Unscoped, server
			if len(au.Tokens) > 0 {
				t, ok := au.token(r.Header.Get("Authorization"))
				if !ok {
					w.Header().Set("WWW-Authenticate", `Bearer realm="artifacts"`)
					writeJSON(w, http.StatusUnauthorized, contracts.Error{Code: contracts.HTTPCodeUnauthorized, Message: "a valid bearer token is required"})
					return
				}
				sc = t.Scope
				if t.Artifacts != nil {
					a = t.Artifacts
				}
			}
			ctx := scope.With(r.Context(), sc)
			h(a, w, r.WithContext(ctx))
			if rf := scope.Refused(ctx); rf != nil && au.Refused != nil {
				au.Refused(ctx, endpoint, rf)
			}
		}
	}
	fail := func(w http.ResponseWriter, err error) {
		wire, transient := mapErr(err)
		writeJSON(w, httpStatus(wire.Code, transient), wire)
	}
	s.mux.HandleFunc("GET /artifacts/{id}/metadata", auth(EndpointMetadata, func(a Artifacts, w http.ResponseWriter, r *http.Request) {
		info, err := a.Info(r.Context(), r.PathValue("id"))
		if err != nil {
			fail(w, err)
			return
		}
		writeJSON(w, http.StatusOK, info)
	}))
	s.mux.HandleFunc("GET /artifacts/{id}/content", auth(EndpointContent, func(a Artifacts, w http.ResponseWriter, r *http.Request) {
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

// The artifact endpoints, as Auth.Refused names them (the subject label of the refusal metric).
const (
	EndpointMetadata = "http.artifacts.metadata"
	EndpointContent  = "http.artifacts.content"
)

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
