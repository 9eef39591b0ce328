// Package workspace holds the rules of workspace files: the ws: ID codec, path safety, object keys,
// and the per-file metadata store.
//
// # IDs
//
// A workspace file is named on the wire by "ws:{workspaceID}:{base64url(path)}": the workspace ID is
// 1..128 characters of [A-Za-z0-9_-], the path is the clean relative path (see CleanPath) in unpadded,
// URL-safe base64 (RFC 4648 §5, '-' and '_', no '='). An ID therefore contains only [A-Za-z0-9_:-]
// and exactly two ':'. EncodeID and DecodeID are inverse on clean paths:
//
//	id, _ := EncodeID("ws1", `src\main.go`) // "ws:ws1:c3JjL21haW4uZ28"
//	ws, p, _ := DecodeID(id)                 // "ws1", "src/main.go"
//
// A reference is a workspace reference when it starts with IDPrefix ("ws:"), told from an artifact
// reference by that prefix only; DecodeID validates, never panics, and applies CleanPath to the decoded path, so an ID cannot smuggle "../"
// into another workspace.
//
// # Paths
//
// CleanPath normalises a relative path (backslashes to '/', "." and empty segments removed, "a/../b"
// resolved to "b") and rejects absolute paths, drive paths and climbs above the root
// (ErrPathTraversal), and empty paths, control characters, invalid UTF-8 and over-long paths
// (ErrInvalidPath). objectstore.WorkspaceKey places a clean path under "workspaces/{workspaceID}/" in
// the object store; for validated input the key never leaves that prefix and fits S3's 1024-byte
// limit (MaxPathLen is chosen for it).
//
// # Metadata
//
// MetaStore keeps a FileMeta (mimeType, createdAt, updatedAt, modifiedBy) per file in the JetStream KV
// bucket WORKSPACE_FILES (file storage, one revision per key, no TTL: it survives restarts).
// RecordWrite is a compare-and-set loop on the key's revision, so concurrent writes from any number
// of workers are all recorded; UpdatedAt is the latest timestamp seen and modifiedBy keeps the most
// recent MetaConfig.MaxModifiedBy writes (default 100) in timestamp order. Keys are
// "{workspaceID}.{hex(sha256(path))}", valid KV keys for any path.
//
// With a limit (MetaConfig.MaxBytes, a tenant's TENANT_WORKSPACE_MAX_BYTES) the store also accounts
// the workspace's bytes from the bucket itself: each record keeps the size of the content the worker
// stored for the file's latest write, a watch sums them with the records' stored bytes, and Reserve
// refuses content that would not fit (ErrOverLimit) before it is stored.
//
// # Errors
//
// Errors wrap the documented sentinels; match them with errors.Is. Their wire codes are mapped at
// the edge: ErrPathTraversal is path_traversal_blocked, ErrInvalidPath is invalid_path, and a ws:
// reference failing with ErrNotWorkspaceID is invalid_artifact_id. Test the path errors first (see
// ErrNotWorkspaceID).
//
// Everything in this package is safe for concurrent use. The codec and path functions are pure.
package workspace
