package objectstore

import (
	"strings"
	"unicode/utf8"

	"github.com/agentworks/artifact-worker/contracts"
)

// MaxKeyLen is the longest key, in bytes (the S3 limit).
const MaxKeyLen = contracts.MaxObjectKeyLen

// Key prefixes of the storage contract.
const (
	ArtifactPrefix  = contracts.ArtifactKeyPrefix
	WorkspacePrefix = contracts.WorkspaceKeyPrefix
)

// ArtifactKey returns the key of the regular artifact id: "artifacts/{id}".
func ArtifactKey(id string) string { return ArtifactPrefix + id }

// WorkspaceKey returns the key of a workspace file: "workspaces/{workspaceID}/{relativePath}".
// A leading "/" of relativePath is dropped; the result is not validated (the store does that).
func WorkspaceKey(workspaceID, relativePath string) string {
	return WorkspacePrefix + workspaceID + "/" + strings.TrimPrefix(relativePath, "/")
}

// ValidateKey reports whether key is a valid object key (see the package documentation). The
// error wraps ErrInvalidKey.
func ValidateKey(key string) error {
	if reason := keyProblem(key); reason != "" {
		return &opError{op: "validate key", key: key, kind: ErrInvalidKey, err: errString(reason)}
	}
	return nil
}

func keyProblem(key string) string {
	switch {
	case key == "":
		return "empty"
	case len(key) > MaxKeyLen:
		return "longer than 1024 bytes"
	case !utf8.ValidString(key):
		return "not valid UTF-8"
	case strings.IndexByte(key, 0) >= 0:
		return "contains NUL"
	case key[0] == '/':
		return "absolute"
	}
	for seg := range strings.SplitSeq(key, "/") {
		switch seg {
		case "":
			return `empty path segment ("//" or trailing "/")`
		case ".", "..":
			return `"." or ".." path segment`
		}
	}
	return ""
}

type errString string

func (e errString) Error() string { return string(e) }
