package workspace

import "errors"

// Sentinel errors of the package. Match them with errors.Is: the returned errors wrap them with
// details (the offending input is quoted, truncated when long).
//
// The wire codes are mapped at the edge, not here; the intended mapping is:
//
//	ErrPathTraversal      -> path_traversal_blocked
//	ErrInvalidPath        -> invalid_path
//	ErrNotWorkspaceID     -> invalid_artifact_id (a ws: reference that cannot be decoded)
//	ErrInvalidWorkspaceID -> invalid_request, field workspace_id (file_written); from DecodeID it
//	                         also matches ErrNotWorkspaceID, so it maps to invalid_artifact_id there
//	ErrMissingMimeType    -> missing_mime_type
//	ErrNotFound           -> no wire code by itself: a file may exist without metadata (readers
//	                         fall back to the object's Content-Type); a missing object is the
//	                         object store's not-found (artifact_not_found / file_not_found)
//	ErrConflict           -> transient: retry the message later
//	ErrOverLimit          -> payload_too_large (nothing stored)
//
// Check the path errors before ErrNotWorkspaceID: DecodeID returns ErrPathTraversal and
// ErrInvalidPath on their own (they do not match ErrNotWorkspaceID), so that a ws: ID smuggling
// "../" is reported as a traversal attempt, not as a malformed ID.
var (
	// ErrNotWorkspaceID means a string is not a well-formed workspace ID: wrong prefix, wrong number
	// of parts, an empty part, bad or padded base64url, or a decoded path that is not valid UTF-8.
	ErrNotWorkspaceID = errors.New("workspace: not a workspace ID")

	// ErrInvalidWorkspaceID means a workspace ID is not 1..128 characters of [A-Za-z0-9_-].
	ErrInvalidWorkspaceID = errors.New("workspace: invalid workspace ID")

	// ErrPathTraversal means a relative path is absolute (/x, C:\x, \\server\share) or climbs
	// above the workspace root with "..".
	ErrPathTraversal = errors.New("workspace: path traversal blocked")

	// ErrInvalidPath means a relative path is empty (also after cleaning, e.g. "."), is not valid
	// UTF-8, contains NUL or other control characters, or is too long (see MaxPathLen and
	// MaxSegmentLen).
	ErrInvalidPath = errors.New("workspace: invalid path")

	// ErrMissingMimeType means RecordWrite was called without a MIME type.
	ErrMissingMimeType = errors.New("workspace: missing MIME type")

	// ErrNotFound means the metadata store holds no record for the file.
	ErrNotFound = errors.New("workspace: file metadata not found")

	// ErrConflict means RecordWrite lost the optimistic-concurrency race on every one of its
	// attempts (MetaConfig.MaxAttempts). Nothing was written; the write may be retried.
	ErrConflict = errors.New("workspace: too many concurrent metadata updates")

	// ErrFull: the metadata bucket is at its size limit (MetaConfig.MaxBytes): JetStream refused
	// the write. Permanent until entries are deleted or the limit raised.
	ErrFull = errors.New("workspace: the metadata bucket is full (its size limit is reached)")

	// ErrOverLimit: a write's content does not fit in the workspace's limit (MetaConfig.MaxBytes,
	// a tenant's TENANT_WORKSPACE_MAX_BYTES): MetaStore.Reserve refused it before anything was
	// stored. Permanent until files are removed or the limit raised.
	ErrOverLimit = errors.New("workspace: the workspace storage limit is reached")
)
