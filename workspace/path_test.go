package workspace

import (
	"github.com/agentworks/artifact-worker/objectstore"

	"errors"
	"strings"
	"testing"
)

func TestCleanPath(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "src/main.go", "src/main.go"},
		{"single name", "README.md", "README.md"},
		{"backslashes", `src\pkg\main.go`, "src/pkg/main.go"},
		{"mixed slashes", `src\pkg/main.go`, "src/pkg/main.go"},
		{"dot segments", "./a/./b/.", "a/b"},
		{"duplicate slashes", "a//b///c", "a/b/c"},
		{"trailing slash", "a/b/", "a/b"},
		{"dotdot inside", "a/../b", "b"},
		{"dotdot inside backslashes", `a\..\b`, "b"},
		{"dotdot deep", "a/b/../../c/d/../e", "c/e"},
		{"spaces", " my file .txt", " my file .txt"},
		{"chinese", "文档/报告 v2.md", "文档/报告 v2.md"},
		{"emoji", "😀/🎉.png", "😀/🎉.png"},
		{"three dots is a name", ".../x", ".../x"},
		{"dotfile", ".env", ".env"},
		{"dotdot prefix name", "..a/b", "..a/b"},
		{"colon not drive", "ab:c/d", "ab:c/d"},
		{"percent encoded dots are names", "%2e%2e/x", "%2e%2e/x"},
		{"longest segment", strings.Repeat("x", MaxSegmentLen), strings.Repeat("x", MaxSegmentLen)},
		{"longest path", strings.Repeat("a/", MaxPathLen/2-1) + "bc", strings.Repeat("a/", MaxPathLen/2-1) + "bc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CleanPath(tt.in)
			if err != nil {
				t.Fatalf("CleanPath(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Fatalf("CleanPath(%q) = %q, want %q", tt.in, got, tt.want)
			}
			again, err := CleanPath(got)
			if err != nil || again != got {
				t.Fatalf("CleanPath not idempotent: CleanPath(%q) = %q, %v", got, again, err)
			}
		})
	}
}

func TestCleanPathRejects(t *testing.T) {
	tests := []struct {
		name, in string
		want     error
	}{
		{"parent", "..", ErrPathTraversal},
		{"parent prefix", "../b/secret", ErrPathTraversal},
		{"parent backslash", `..\b\secret`, ErrPathTraversal},
		{"climbs after descending", "a/../../b", ErrPathTraversal},
		{"climbs deep", "a/b/../../../etc/passwd", ErrPathTraversal},
		{"dot then parent", "./../x", ErrPathTraversal},
		{"absolute", "/x", ErrPathTraversal},
		{"absolute etc", "/etc/passwd", ErrPathTraversal},
		{"absolute backslash", `\x`, ErrPathTraversal},
		{"unc", `\\server\share\x`, ErrPathTraversal},
		{"drive backslash", `C:\x`, ErrPathTraversal},
		{"drive slash", "c:/x", ErrPathTraversal},
		{"drive relative", "C:x", ErrPathTraversal},
		{"drive only", "D:", ErrPathTraversal},
		{"drive after dot", "./C:", ErrPathTraversal},
		{"drive after cleaning", `a\..\C:\x`, ErrPathTraversal},
		{"empty", "", ErrInvalidPath},
		{"dot", ".", ErrInvalidPath},
		{"dot slash", "./", ErrInvalidPath},
		{"slashes only is absolute", "//", ErrPathTraversal},
		{"cleans to root", "a/..", ErrInvalidPath},
		{"nul", "a\x00b", ErrInvalidPath},
		{"nul end", "a.txt\x00.png", ErrInvalidPath},
		{"newline", "a\nb", ErrInvalidPath},
		{"tab", "a\tb", ErrInvalidPath},
		{"escape", "a\x1b[31m", ErrInvalidPath},
		{"del", "a\x7fb", ErrInvalidPath},
		{"c1 control", "a\u0085b", ErrInvalidPath},
		{"invalid utf8", "a\xffb", ErrInvalidPath},
		{"segment too long", strings.Repeat("x", MaxSegmentLen+1), ErrInvalidPath},
		{"path too long", strings.Repeat("a/", MaxPathLen/2) + "b", ErrInvalidPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CleanPath(tt.in)
			if !errors.Is(err, tt.want) {
				t.Fatalf("CleanPath(%q) = %q, %v; want error %v", tt.in, got, err, tt.want)
			}
			other := ErrInvalidPath
			if tt.want == ErrInvalidPath {
				other = ErrPathTraversal
			}
			if errors.Is(err, other) {
				t.Fatalf("CleanPath(%q): %v also matches %v", tt.in, err, other)
			}
			if got != "" {
				t.Fatalf("CleanPath(%q) returned %q with its error", tt.in, got)
			}
		})
	}
}

func TestValidateWorkspaceID(t *testing.T) {
	tests := []struct {
		name, id string
		ok       bool
	}{
		{"simple", "ws1", true},
		{"all classes", "Ab-9_z", true},
		{"one char", "a", true},
		{"max length", strings.Repeat("a", MaxWorkspaceIDLen), true},
		{"empty", "", false},
		{"too long", strings.Repeat("a", MaxWorkspaceIDLen+1), false},
		{"colon", "a:b", false},
		{"dot", "a.b", false},
		{"slash", "a/b", false},
		{"space", "a b", false},
		{"dotdot", "..", false},
		{"unicode", "工作区", false},
		{"star", "a*", false},
		{"nul", "a\x00", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateWorkspaceID(tt.id)
			if tt.ok && err != nil {
				t.Fatalf("ValidateWorkspaceID(%q): %v", tt.id, err)
			}
			if !tt.ok && !errors.Is(err, ErrInvalidWorkspaceID) {
				t.Fatalf("ValidateWorkspaceID(%q) = %v, want ErrInvalidWorkspaceID", tt.id, err)
			}
		})
	}
}

func TestObjectKey(t *testing.T) {
	tests := []struct{ ws, path, want string }{
		{"ws1", "src/main.go", "workspaces/ws1/src/main.go"},
		{"a-b_C", "报告.md", "workspaces/a-b_C/报告.md"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := objectstore.WorkspaceKey(tt.ws, tt.path); got != tt.want {
				t.Fatalf("WorkspaceKey(%q, %q) = %q, want %q", tt.ws, tt.path, got, tt.want)
			}
		})
	}
	t.Run("longest inputs fit S3", func(t *testing.T) {
		p, err := CleanPath(strings.Repeat("a/", MaxPathLen/2-1) + "bc")
		if err != nil {
			t.Fatal(err)
		}
		if n := len(objectstore.WorkspaceKey(strings.Repeat("w", MaxWorkspaceIDLen), p)); n != 1024 {
			t.Fatalf("longest key is %d bytes, want exactly 1024", n)
		}
	})
}
