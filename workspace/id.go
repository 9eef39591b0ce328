package workspace

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"
)

// IDPrefix starts every workspace ID.
const IDPrefix = "ws:"

// maxIDLen is the length of the longest ID EncodeID can produce; longer input is rejected before
// any decoding work.
var maxIDLen = len(IDPrefix) + MaxWorkspaceIDLen + len(":") + pathEncoding.EncodedLen(MaxPathLen)

// pathEncoding is unpadded base64url. Strict rejects non-zero trailing bits, so each path has exactly
// one encoding; the decoder would still skip '\r' and '\n', which DecodeID rejects up front.
var pathEncoding = base64.RawURLEncoding.Strict()

// EncodeID returns the workspace ID of the file at relPath in workspace workspaceID:
// "ws:{workspaceID}:{base64url(CleanPath(relPath)) without padding}". The path is cleaned first, so
// "src\\main.go" and "./src/main.go" get the same ID as "src/main.go". The ID contains only
// [A-Za-z0-9_:-].
//
// Errors match ErrInvalidWorkspaceID, ErrPathTraversal or ErrInvalidPath (see CleanPath).
func EncodeID(workspaceID, relPath string) (string, error) {
	if err := ValidateWorkspaceID(workspaceID); err != nil {
		return "", err
	}
	clean, err := CleanPath(relPath)
	if err != nil {
		return "", err
	}
	return IDPrefix + workspaceID + ":" + pathEncoding.EncodeToString([]byte(clean)), nil
}

// DecodeID splits a workspace ID into its workspace ID and its clean relative path. It never panics
// and is safe on any input.
//
// Errors:
//   - ErrNotWorkspaceID: no "ws:" prefix, not exactly three ':'-separated parts, an empty part,
//     a path part that is not unpadded base64url (padding '=', other characters, non-canonical
//     trailing bits), a decoded path that is not valid UTF-8, or an ID longer than any EncodeID
//     produces.
//   - ErrInvalidWorkspaceID, which then also matches ErrNotWorkspaceID: the workspace part fails
//     ValidateWorkspaceID.
//   - ErrPathTraversal or ErrInvalidPath, alone: the decoded path fails CleanPath. An ID carrying
//     "../b/secret" is therefore a traversal attempt and never resolves into another workspace.
//
// A decoded path that is valid but not clean (e.g. "a/./b") is accepted and returned cleaned.
func DecodeID(id string) (workspaceID, relPath string, err error) {
	if len(id) > maxIDLen {
		return "", "", fmt.Errorf("%w: %d characters, at most %d", ErrNotWorkspaceID, len(id), maxIDLen)
	}
	rest, ok := strings.CutPrefix(id, IDPrefix)
	if !ok {
		return "", "", fmt.Errorf("%w: %s has no %q prefix", ErrNotWorkspaceID, quote(id), IDPrefix)
	}
	wsID, payload, ok := strings.Cut(rest, ":")
	if !ok || strings.Contains(payload, ":") {
		return "", "", fmt.Errorf("%w: %s is not ws:{workspace}:{path}", ErrNotWorkspaceID, quote(id))
	}
	if wsID == "" || payload == "" {
		return "", "", fmt.Errorf("%w: %s has an empty part", ErrNotWorkspaceID, quote(id))
	}
	if err := ValidateWorkspaceID(wsID); err != nil {
		return "", "", fmt.Errorf("%w: %w", ErrNotWorkspaceID, err)
	}
	for i := 0; i < len(payload); i++ {
		if !isIDByte(payload[i]) {
			return "", "", fmt.Errorf("%w: path part of %s is not unpadded base64url", ErrNotWorkspaceID, quote(id))
		}
	}
	raw, err := pathEncoding.DecodeString(payload)
	if err != nil {
		return "", "", fmt.Errorf("%w: path part of %s: %v", ErrNotWorkspaceID, quote(id), err)
	}
	if !utf8.Valid(raw) {
		return "", "", fmt.Errorf("%w: path of %s is not valid UTF-8", ErrNotWorkspaceID, quote(id))
	}
	clean, err := CleanPath(string(raw))
	if err != nil {
		return "", "", fmt.Errorf("workspace ID %s: %w", quote(id), err)
	}
	return wsID, clean, nil
}
