package workspace

import (
	"github.com/agentworks/artifact-worker/objectstore"

	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

// b64 encodes s as a ws: ID path part.
func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func TestEncodeID(t *testing.T) {
	tests := []struct {
		name, ws, path, want string
	}{
		{"plain", "ws1", "src/main.go", "ws:ws1:c3JjL21haW4uZ28"},
		{"backslashes normalised", "ws1", `src\main.go`, "ws:ws1:c3JjL21haW4uZ28"},
		{"dot segments normalised", "ws1", "./src//main.go", "ws:ws1:c3JjL21haW4uZ28"},
		{"chinese and space use url alphabet", "ws1", "docs/报告 v2.md", "ws:ws1:ZG9jcy_miqXlkYogdjIubWQ"},
		{"no padding", "a", "a b", "ws:a:YSBi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EncodeID(tt.ws, tt.path)
			if err != nil {
				t.Fatalf("EncodeID(%q, %q): %v", tt.ws, tt.path, err)
			}
			if got != tt.want {
				t.Fatalf("EncodeID(%q, %q) = %q, want %q", tt.ws, tt.path, got, tt.want)
			}
		})
	}
}

func TestEncodeIDRejects(t *testing.T) {
	tests := []struct {
		name, ws, path string
		want           error
	}{
		{"empty workspace", "", "a", ErrInvalidWorkspaceID},
		{"workspace with colon", "a:b", "a", ErrInvalidWorkspaceID},
		{"workspace with dot", "a.b", "a", ErrInvalidWorkspaceID},
		{"workspace too long", strings.Repeat("w", 129), "a", ErrInvalidWorkspaceID},
		{"traversal", "a", "../b/secret", ErrPathTraversal},
		{"absolute", "a", "/etc/passwd", ErrPathTraversal},
		{"drive", "a", `C:\x`, ErrPathTraversal},
		{"empty path", "a", "", ErrInvalidPath},
		{"root", "a", ".", ErrInvalidPath},
		{"nul", "a", "x\x00", ErrInvalidPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EncodeID(tt.ws, tt.path)
			if !errors.Is(err, tt.want) {
				t.Fatalf("EncodeID(%q, %q) = %q, %v; want %v", tt.ws, tt.path, got, err, tt.want)
			}
			if got != "" {
				t.Fatalf("EncodeID returned %q with its error", got)
			}
		})
	}
}

func TestDecodeID(t *testing.T) {
	tests := []struct {
		name, id, ws, path string
	}{
		{"plain", "ws:ws1:c3JjL21haW4uZ28", "ws1", "src/main.go"},
		{"chinese", "ws:ws1:ZG9jcy_miqXlkYogdjIubWQ", "ws1", "docs/报告 v2.md"},
		{"unclean path is cleaned", "ws:a:" + b64(`x\.\y//z`), "a", "x/y/z"},
		{"dotdot inside resolved", "ws:a:" + b64("b/../c"), "a", "c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, p, err := DecodeID(tt.id)
			if err != nil {
				t.Fatalf("DecodeID(%q): %v", tt.id, err)
			}
			if ws != tt.ws || p != tt.path {
				t.Fatalf("DecodeID(%q) = %q, %q; want %q, %q", tt.id, ws, p, tt.ws, tt.path)
			}
		})
	}
}

func TestDecodeIDRejects(t *testing.T) {
	valid := b64("a.txt")
	tests := []struct {
		name, id string
		want     error
	}{
		{"empty", "", ErrNotWorkspaceID},
		{"prefix only", "ws:", ErrNotWorkspaceID},
		{"only one part", "ws:only-one-part", ErrNotWorkspaceID},
		{"colons only", "ws:::", ErrNotWorkspaceID},
		{"two colons", "ws::", ErrNotWorkspaceID},
		{"empty workspace", "ws::" + valid, ErrNotWorkspaceID},
		{"empty path", "ws:a:", ErrNotWorkspaceID},
		{"four parts", "ws:a:" + valid + ":x", ErrNotWorkspaceID},
		{"artifact ref", "artifact:123", ErrNotWorkspaceID},
		{"bare id", "3f2a9c1e", ErrNotWorkspaceID},
		{"upper prefix", "WS:a:" + valid, ErrNotWorkspaceID},
		{"space before prefix", " ws:a:" + valid, ErrNotWorkspaceID},
		{"padding", "ws:a:" + base64.URLEncoding.EncodeToString([]byte("ab")), ErrNotWorkspaceID},
		{"std alphabet plus", "ws:a:" + base64.RawStdEncoding.EncodeToString([]byte("ab~")), ErrNotWorkspaceID}, // YWJ+
		{"std alphabet slash", "ws:a:" + base64.RawStdEncoding.EncodeToString([]byte("docs/报告 v2.md")), ErrNotWorkspaceID},
		{"bad length", "ws:a:Y", ErrNotWorkspaceID},
		{"non canonical trailing bits", "ws:a:YR", ErrNotWorkspaceID},
		{"newline in payload", "ws:a:YS\nBi", ErrNotWorkspaceID},
		{"carriage return in payload", "ws:a:YSBi\r", ErrNotWorkspaceID},
		{"not utf8", "ws:a:" + b64("a\xff\xfe"), ErrNotWorkspaceID},
		{"too long", "ws:a:" + strings.Repeat("A", 2000), ErrNotWorkspaceID},
		{"workspace with dot", "ws:a.b:" + valid, ErrInvalidWorkspaceID},
		{"workspace with space", "ws:a b:" + valid, ErrInvalidWorkspaceID},
		{"workspace unicode", "ws:工作区:" + valid, ErrInvalidWorkspaceID},
		{"workspace too long", "ws:" + strings.Repeat("w", 129) + ":" + valid, ErrInvalidWorkspaceID},
		{"traversal to other workspace", "ws:a:" + b64("../b/secret"), ErrPathTraversal},
		{"traversal backslash", "ws:a:" + b64(`..\b\secret`), ErrPathTraversal},
		{"traversal after descending", "ws:a:" + b64("x/../../b/secret"), ErrPathTraversal},
		{"absolute", "ws:a:" + b64("/etc/passwd"), ErrPathTraversal},
		{"drive", "ws:a:" + b64(`C:\Windows`), ErrPathTraversal},
		{"decoded root", "ws:a:" + b64("."), ErrInvalidPath},
		{"decoded nul", "ws:a:" + b64("a\x00b"), ErrInvalidPath},
		{"decoded control", "ws:a:" + b64("a\x1bb"), ErrInvalidPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, p, err := DecodeID(tt.id)
			if !errors.Is(err, tt.want) {
				t.Fatalf("DecodeID(%q) = %q, %q, %v; want %v", tt.id, ws, p, err, tt.want)
			}
			if ws != "" || p != "" {
				t.Fatalf("DecodeID(%q) returned %q, %q with its error", tt.id, ws, p)
			}
			// Invalid workspace IDs are malformed IDs too; path errors stand alone so that the edge
			// reports them as path_traversal_blocked / invalid_path.
			isPathErr := errors.Is(err, ErrPathTraversal) || errors.Is(err, ErrInvalidPath)
			if isPathErr == errors.Is(err, ErrNotWorkspaceID) {
				t.Fatalf("DecodeID(%q): %v: path error %v, ErrNotWorkspaceID %v", tt.id, err, isPathErr, !isPathErr)
			}
		})
	}
}

// FuzzDecodeID feeds arbitrary strings to DecodeID: it must not panic, must fail only with the
// documented errors, and whatever it accepts must be a clean, re-encodable path inside the workspace.
func FuzzDecodeID(f *testing.F) {
	for _, s := range []string{
		"", "ws:", "ws:::", "ws:only-one-part", "ws:ws1:c3JjL21haW4uZ28", "ws:a:YSBi", "ws:a:YSBi=",
		"ws:a:" + b64("../b/secret"), "ws:a:" + b64("a/../b"), "ws:a:" + b64(`C:\x`),
		"ws:a:" + b64("a\x00"), "ws:a:" + b64("\xff"), "ws:a b:YSBi", "artifact:1", "ws:a:YS\nBi",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		ws, p, err := DecodeID(id)
		if err != nil {
			if !errors.Is(err, ErrNotWorkspaceID) && !errors.Is(err, ErrPathTraversal) && !errors.Is(err, ErrInvalidPath) {
				t.Fatalf("DecodeID(%q): undocumented error %v", id, err)
			}
			if !strings.HasPrefix(id, IDPrefix) && !errors.Is(err, ErrNotWorkspaceID) {
				t.Fatalf("DecodeID(%q): %v, want ErrNotWorkspaceID without the prefix", id, err)
			}
			return
		}
		checkDecoded(t, id, ws, p)
	})
}

// FuzzCleanPath feeds arbitrary strings to CleanPath.
func FuzzCleanPath(f *testing.F) {
	for _, s := range []string{"a", "../x", `a\..\..\x`, "a/../b", "/x", `C:\x`, ".", "", "a\x00", "文档/a b.md"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		c, err := CleanPath(p)
		if err != nil {
			if !errors.Is(err, ErrPathTraversal) && !errors.Is(err, ErrInvalidPath) {
				t.Fatalf("CleanPath(%q): undocumented error %v", p, err)
			}
			return
		}
		checkClean(t, c)
	})
}

// checkDecoded asserts what every successful DecodeID guarantees.
func checkDecoded(t tb, id, ws, p string) {
	t.Helper()
	if err := ValidateWorkspaceID(ws); err != nil {
		t.Fatalf("DecodeID(%q) accepted workspace %q: %v", id, ws, err)
	}
	checkClean(t, p)
	again, err := EncodeID(ws, p)
	if err != nil {
		t.Fatalf("EncodeID(%q, %q) of a decoded ID: %v", ws, p, err)
	}
	ws2, p2, err := DecodeID(again)
	if err != nil || ws2 != ws || p2 != p {
		t.Fatalf("re-encoded %q decodes to %q, %q, %v; want %q, %q", again, ws2, p2, err, ws, p)
	}
	checkObjectKey(t, ws, p)
}

// checkClean asserts that p is a clean relative path inside the workspace.
func checkClean(t tb, p string) {
	t.Helper()
	if c, err := CleanPath(p); err != nil || c != p {
		t.Fatalf("CleanPath(%q) = %q, %v; want it unchanged", p, c, err)
	}
	if strings.Contains(p, `\`) || strings.HasPrefix(p, "/") || hasDrive(p) {
		t.Fatalf("clean path %q is absolute or has backslashes", p)
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			t.Fatalf("clean path %q has segment %q", p, seg)
		}
	}
}

// checkObjectKey asserts that the object key of a valid file (objectstore.WorkspaceKey, the one key
// builder) stays under its workspace root.
func checkObjectKey(t tb, ws, p string) {
	t.Helper()
	key := objectstore.WorkspaceKey(ws, p)
	root := "workspaces/" + ws + "/"
	if key != root+p {
		t.Fatalf("WorkspaceKey(%q, %q) = %q, want %q", ws, p, key, root+p)
	}
	if len(key) > 1024 {
		t.Fatalf("WorkspaceKey(%q, %q) is %d bytes, more than S3 allows", ws, p, len(key))
	}
	for seg := range strings.SplitSeq(strings.TrimPrefix(key, root), "/") {
		if seg == "" || seg == "." || seg == ".." {
			t.Fatalf("WorkspaceKey(%q, %q) = %q has segment %q", ws, p, key, seg)
		}
	}
}

// tb is what the check helpers need of *testing.T and *rapid.T.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}
