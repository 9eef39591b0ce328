// Package scope decides what one request may read and write: the Artifact-Worker-Scope header a
// runtime sets on a request (its grammar, Parse), the check of a resolved reference against it
// (Scope.Workspace, Scope.Artifact), and the request's scope and refusal carried in its context. It
// is pure: no storage, no NATS, no clock; every subject, path and the HTTP endpoints ask it, so the
// rule lives in one place.
//
// Grammar (contracts/README.md states it for callers):
//
//	scope   = "*" / entry *( "," entry )        ; optional spaces or tabs around each entry
//	entry   = "ws:" workspace-id                ; that workspace's files
//	        / "artifact:" prefix "*"            ; artifacts whose id starts with prefix ("" = all)
//
// A workspace id is 1..128 of [A-Za-z0-9_-] (as workspace.ValidateWorkspaceID says); a prefix is at most
// MaxPrefixLen printable characters other than space, ',', '*', '/' and '\', and does not start with
// "ws:" (workspace files are named by ws: entries only). "*" stands alone. At most MaxEntries entries,
// MaxHeaderLen bytes. Anything else is malformed: the request is answered invalid_request.
package scope

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"unicode/utf8"
)

// Header is the request header that carries a scope.
const Header = "Artifact-Worker-Scope"

// Bounds of a header.
const (
	MaxHeaderLen = 4096
	MaxEntries   = 64
	MaxPrefixLen = 512
)

// Scope is what a request may read: everything (All), or the files of some workspaces and the
// artifacts under some id prefixes. The zero Scope is Unscoped: a request without the header, which
// reads everything, as before scopes existed.
type Scope struct {
	present    bool
	all        bool
	workspaces []string // sorted, unique
	prefixes   []string // sorted, unique
}

// Unscoped is the scope of a request without the header.
var Unscoped = Scope{}

// All is the scope "*".
var All = Scope{present: true, all: true}

// ErrMalformed is matched by every Parse error.
var ErrMalformed = errors.New("malformed " + Header + " header")

// Parse reads a header value. An empty value (the header set to nothing) is malformed: a runtime
// that means "nothing" has no reason to call, and one that means "everything" says "*".
func Parse(v string) (Scope, error) {
	bad := func(format string, a ...any) (Scope, error) {
		return Scope{}, fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, a...))
	}
	if len(v) > MaxHeaderLen {
		return bad("%d bytes, at most %d", len(v), MaxHeaderLen)
	}
	if !utf8.ValidString(v) {
		return bad("not valid UTF-8")
	}
	parts := strings.Split(v, ",")
	if len(parts) > MaxEntries {
		return bad("%d entries, at most %d", len(parts), MaxEntries)
	}
	s := Scope{present: true}
	for i, p := range parts {
		e := strings.Trim(p, " \t")
		switch {
		case e == "":
			if len(parts) == 1 {
				return bad("empty; give \"*\", ws:<workspaceId> or artifact:<prefix>* entries")
			}
			return bad("entry %d is empty", i+1)
		case e == "*":
			if len(parts) != 1 {
				return bad("\"*\" must be the only entry")
			}
			return All, nil
		case strings.HasPrefix(e, wsPrefix):
			ws := e[len(wsPrefix):]
			if why := workspaceProblem(ws); why != "" {
				return bad("entry %d (%s): %s", i+1, quote(e), why)
			}
			s.workspaces = append(s.workspaces, ws)
		case strings.HasPrefix(e, "artifact:"):
			pre, ok := strings.CutSuffix(e[len("artifact:"):], "*")
			if !ok {
				return bad("entry %d (%s): an artifact entry ends with '*' (artifact:<prefix>*)", i+1, quote(e))
			}
			if why := prefixProblem(pre); why != "" {
				return bad("entry %d (%s): %s", i+1, quote(e), why)
			}
			s.prefixes = append(s.prefixes, pre)
		default:
			return bad("entry %d (%s): not \"*\", ws:<workspaceId> or artifact:<prefix>*", i+1, quote(e))
		}
	}
	slices.Sort(s.workspaces)
	s.workspaces = slices.Compact(s.workspaces)
	slices.Sort(s.prefixes)
	s.prefixes = slices.Compact(s.prefixes)
	return s, nil
}

// wsPrefix starts a workspace entry, as it starts a workspace file's id.
const wsPrefix = "ws:"

// maxWorkspaceIDLen is workspace.MaxWorkspaceIDLen (a test keeps the two rules equal; this package
// imports nothing of the worker's).
const maxWorkspaceIDLen = 128

// workspaceProblem is workspace.ValidateWorkspaceID's rule: 1..128 of [A-Za-z0-9_-].
func workspaceProblem(ws string) string {
	if ws == "" || len(ws) > maxWorkspaceIDLen {
		return fmt.Sprintf("a workspace id is 1..%d characters", maxWorkspaceIDLen)
	}
	for i := 0; i < len(ws); i++ {
		c := ws[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return "a workspace id holds only A-Z, a-z, 0-9, '_' and '-'"
		}
	}
	return ""
}

func prefixProblem(p string) string {
	if len(p) > MaxPrefixLen {
		return fmt.Sprintf("prefix of %d bytes, at most %d", len(p), MaxPrefixLen)
	}
	if strings.HasPrefix(p, wsPrefix) {
		return "workspace files are scoped with ws:<workspaceId>, not an artifact prefix"
	}
	for _, r := range p {
		if r < 0x21 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == ',' || r == '*' || r == '/' || r == '\\' || r == utf8.RuneError {
			return "a prefix holds no space, control character, ',', '*', '/' or '\\'"
		}
	}
	return ""
}

// Present reports whether the request carried the header.
func (s Scope) Present() bool { return s.present }

// Everything reports whether the scope reads everything ("*", or no header).
func (s Scope) Everything() bool { return !s.present || s.all }

// Workspaces returns the workspace ids of the scope's ws: entries, sorted.
func (s Scope) Workspaces() []string { return slices.Clone(s.workspaces) }

// Workspace reports whether the files of workspace ws are in scope.
func (s Scope) Workspace(ws string) bool {
	if s.Everything() {
		return true
	}
	_, ok := slices.BinarySearch(s.workspaces, ws)
	return ok
}

// Artifact reports whether the artifact with the (bare, non-workspace) id is in scope.
func (s Scope) Artifact(id string) bool {
	if s.Everything() {
		return true
	}
	for _, p := range s.prefixes {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}

// String is the canonical form of the scope: "" unscoped, "*", or its entries sorted (workspaces
// first) and joined by ",". Two headers with the same meaning (order, spaces, repeats) give the same
// string.
func (s Scope) String() string {
	switch {
	case !s.present:
		return ""
	case s.all:
		return "*"
	}
	var b strings.Builder
	for _, ws := range s.workspaces {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(wsPrefix + ws)
	}
	for _, p := range s.prefixes {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString("artifact:" + p + "*")
	}
	return b.String()
}

// Namespace names the part of a shared cache (history images) that belongs to this scope: "" for a
// scope that reads everything (the cache's keys as they were before scopes), else 32 hex digits of
// the SHA-256 of the canonical String. Media cached under one scope are found only under the same
// scope, so an image md5 never resolves for a caller whose scope differs.
func (s Scope) Namespace() string {
	if s.Everything() {
		return ""
	}
	sum := sha256.Sum256([]byte(s.String()))
	return hex.EncodeToString(sum[:16])
}

// Reasons a request was refused, as logged and counted.
const (
	ReasonWorkspace = "workspace_outside_scope"
	ReasonArtifact  = "artifact_outside_scope"
	ReasonWrite     = "write_outside_scope"
)

// Refusal records that a request named something outside its scope.
type Refusal struct {
	Reason string
	// Ref is what was refused (a ref, an id, a workspace), for the operator's log.
	Ref string
}

type holder struct {
	scope   Scope
	refusal atomic.Pointer[Refusal]
}

type ctxKey struct{}

// With returns ctx carrying s; the refusals recorded under it (Refuse) are read back by Refused.
func With(ctx context.Context, s Scope) context.Context {
	return context.WithValue(ctx, ctxKey{}, &holder{scope: s})
}

// From returns the scope ctx carries, Unscoped when none.
func From(ctx context.Context) Scope {
	if h, ok := ctx.Value(ctxKey{}).(*holder); ok {
		return h.scope
	}
	return Unscoped
}

// Refuse records a refusal on ctx (the first one of a request is kept) and returns ErrOutside.
func Refuse(ctx context.Context, reason, ref string) error {
	if h, ok := ctx.Value(ctxKey{}).(*holder); ok {
		h.refusal.CompareAndSwap(nil, &Refusal{Reason: reason, Ref: ref})
	}
	return ErrOutside
}

// Refused returns the refusal recorded on ctx, nil when none.
func Refused(ctx context.Context) *Refusal {
	if h, ok := ctx.Value(ctxKey{}).(*holder); ok {
		return h.refusal.Load()
	}
	return nil
}

// ErrOutside is returned for a reference outside the request's scope. Callers answer it exactly as
// they answer a reference that does not exist.
var ErrOutside = errors.New("outside the request's scope")

func quote(s string) string {
	const n = 64
	if len(s) > n {
		i := n
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i] + "..."
	}
	return fmt.Sprintf("%q", s)
}
