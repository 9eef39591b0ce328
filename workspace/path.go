package workspace

import (
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentworks/artifact-worker/contracts"
)

// Limits of workspace IDs and relative paths.
const (
	// MaxWorkspaceIDLen is the longest accepted workspace ID, in bytes (all of them ASCII).
	MaxWorkspaceIDLen = 128

	// MaxPathLen is the longest accepted clean relative path, in bytes of UTF-8. It is chosen so
	// that the file's object key (objectstore.WorkspaceKey) never exceeds 1024 bytes, the S3 (and
	// MinIO) limit on object keys.
	MaxPathLen = contracts.MaxObjectKeyLen - len(contracts.WorkspaceKeyPrefix) - MaxWorkspaceIDLen - len("/")

	// MaxSegmentLen is the longest accepted path segment (file or directory name), in bytes of
	// UTF-8: MinIO stores objects on file systems that reject longer names.
	MaxSegmentLen = 255
)

// ValidateWorkspaceID reports whether id is 1..MaxWorkspaceIDLen characters of [A-Za-z0-9_-]. The
// error matches ErrInvalidWorkspaceID.
func ValidateWorkspaceID(id string) error {
	if id == "" {
		return fmt.Errorf("%w: empty", ErrInvalidWorkspaceID)
	}
	if len(id) > MaxWorkspaceIDLen {
		return fmt.Errorf("%w: %d characters, at most %d allowed", ErrInvalidWorkspaceID, len(id), MaxWorkspaceIDLen)
	}
	for i := 0; i < len(id); i++ {
		if !isIDByte(id[i]) {
			return fmt.Errorf("%w: %s: only A-Z, a-z, 0-9, '_' and '-' are allowed", ErrInvalidWorkspaceID, quote(id))
		}
	}
	return nil
}

// isIDByte reports whether c is in [A-Za-z0-9_-], the alphabet of workspace IDs and of base64url.
func isIDByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// CleanPath normalises a path relative to a workspace root and checks that it stays inside the
// workspace. Backslashes become '/', and empty, "." and resolvable ".." segments are removed, so
// `a\.\b//../c/` becomes "a/c". The result never starts with '/', never contains ".", ".." or empty
// segments, and CleanPath(result) == result.
//
// The error matches ErrPathTraversal when p is absolute ("/x", `\x`, `\\server\share`, or starts
// with a drive letter and a colon, before or after cleaning: `C:\x`, "C:x", "./C:", also
// "c:notes.txt") or when ".." climbs above the
// root ("../b/secret", "a/../../b"; "a/../b" is fine and gives "b"). It matches ErrInvalidPath when p
// is empty or cleans to nothing ("."; "a/.."), is not valid UTF-8, contains NUL or another control
// character (C0, DEL, C1), or exceeds MaxPathLen or MaxSegmentLen once cleaned.
func CleanPath(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("%w: empty path", ErrInvalidPath)
	}
	if !utf8.ValidString(p) {
		return "", fmt.Errorf("%w: %s is not valid UTF-8", ErrInvalidPath, quote(p))
	}
	if i := strings.IndexFunc(p, unicode.IsControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(p[i:])
		return "", fmt.Errorf("%w: %s contains control character %U", ErrInvalidPath, quote(p), r)
	}
	s := strings.ReplaceAll(p, `\`, "/")
	if s[0] == '/' {
		return "", fmt.Errorf("%w: %s is absolute", ErrPathTraversal, quote(p))
	}
	if hasDrive(s) {
		return "", fmt.Errorf("%w: %s starts with a drive letter", ErrPathTraversal, quote(p))
	}
	c := path.Clean(s)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("%w: %s escapes the workspace", ErrPathTraversal, quote(p))
	}
	if hasDrive(c) { // "./C:" or "a/../C:x": no clean path starts like a drive path either
		return "", fmt.Errorf("%w: %s starts with a drive letter once cleaned", ErrPathTraversal, quote(p))
	}
	if c == "." {
		return "", fmt.Errorf("%w: %s names the workspace root, not a file", ErrInvalidPath, quote(p))
	}
	if len(c) > MaxPathLen {
		return "", fmt.Errorf("%w: %d bytes, at most %d allowed", ErrInvalidPath, len(c), MaxPathLen)
	}
	for seg := range strings.SplitSeq(c, "/") {
		if len(seg) > MaxSegmentLen {
			return "", fmt.Errorf("%w: a name of %d bytes, at most %d allowed", ErrInvalidPath, len(seg), MaxSegmentLen)
		}
	}
	return c, nil
}

// hasDrive reports whether s starts like a Windows drive path: an ASCII letter and a colon.
func hasDrive(s string) bool {
	return len(s) >= 2 && s[1] == ':' && ('a' <= s[0] && s[0] <= 'z' || 'A' <= s[0] && s[0] <= 'Z')
}

// quote quotes s for an error message, shortened to its first 64 bytes.
func quote(s string) string {
	const maxQuoted = 64
	if len(s) > maxQuoted {
		return fmt.Sprintf("%q...", s[:maxQuoted])
	}
	return fmt.Sprintf("%q", s)
}
