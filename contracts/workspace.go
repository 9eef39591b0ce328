package contracts

import "time"

// FileWrittenRequest is the body of an event published on workspace.file_written (wire contract v1)
// after an agent wrote a workspace file. With content or content_base64 the worker writes the
// object workspaces/{workspace_id}/{path} itself; without either, the object must already be in the
// store (else file_not_found). Send at most one of content and content_base64.
type FileWrittenRequest struct {
	// Caller-chosen id, unique per event; echoed in the reply and sent as Nats-Msg-Id. At most 256
	// bytes of UTF-8; a wrong type, invalid UTF-8 or a longer value: invalid_request (field
	// request_id), dead-lettered, like a missing one. Other spellings (requestId, ...) are refused:
	// invalid_request naming them.
	//
	//schema:minLength 1
	//schema:maxLength MaxIDLen
	RequestID string `json:"request_id"`
	// Workspace id: 1 to 128 characters of [A-Za-z0-9_-].
	//
	//schema:pattern "^[A-Za-z0-9_-]{1,128}$"
	//schema:alias workspaceId the workspace-ID design
	WorkspaceID string `json:"workspace_id"`
	// Path relative to the workspace root. Backslashes become '/', '.' segments are dropped.
	// Absolute, escaping the root (..), or containing control characters: path_traversal_blocked or
	// invalid_path.
	//
	//schema:minLength 1
	Path string `json:"path"`
	// MIME type of the file; becomes the object's Content-Type. Missing or empty: error
	// missing_mime_type (not invalid_request). At most 255 bytes of printable ASCII (else
	// invalid_request).
	//
	//schema:minLength 1
	//schema:maxLength MaxMIMETypeLen
	//schema:pattern "^[ -~]*$"
	//schema:alias mimeType the workspace-ID design
	MimeType string `json:"mime_type"`
	// Agent that wrote the file; recorded in meta.modifiedBy. At most 256 bytes.
	//
	//schema:maxLength MaxIDLen
	//schema:alias agentId the workspace-ID design
	AgentID string `json:"agent_id,omitempty"`
	// Conversation message that caused the write; recorded in meta.modifiedBy. At most 256 bytes.
	//
	//schema:maxLength MaxIDLen
	//schema:alias messageId the workspace-ID design
	MessageID string `json:"message_id,omitempty"`
	// The file inline, as UTF-8 text.
	Content *string `json:"content,omitempty"`
	// The file inline, as standard base64.
	//
	//schema:contentEncoding "base64"
	ContentBase64 *string `json:"content_base64,omitempty"`
}

// FileWrittenResult is the "result" of an ok reply on workspace.file_written: the design's write_file
// tool result.
type FileWrittenResult struct {
	// Always true (failures are error replies).
	//
	//schema:const true
	OK bool `json:"ok"`
	// ws:{workspaceId}:{base64url(path)}: the id to pass to tool.get_artifact and
	// artifact.metadata.
	//
	//schema:pattern "^ws:"
	ArtifactID string `json:"artifactId"`
	// The normalised relative path.
	Path string `json:"path"`
}

// MetadataRequest is the body of a request published on artifact.metadata (wire contract v1).
type MetadataRequest struct {
	// Caller-chosen id, unique per request; echoed in the reply and sent as Nats-Msg-Id. At most
	// 256 bytes of UTF-8; a wrong type, invalid UTF-8 or a longer value: invalid_request (field
	// request_id), dead-lettered, like a missing one. Other spellings (requestId, ...) are refused:
	// invalid_request naming them.
	//
	//schema:minLength 1
	//schema:maxLength MaxIDLen
	RequestID string `json:"request_id"`
	// An artifact id (bare or "artifact:{id}") or a workspace id
	// "ws:{workspaceId}:{base64url(path)}". At most 2048 bytes (longer: invalid_request).
	//
	//schema:minLength 1
	//schema:examples ["artifact:a1", "ws:team-7:cmVwb3J0cy9xMS5wZGY"]
	//schema:maxLength MaxRefLen
	ID string `json:"id"`
}

// ArtifactInfo is the "result" of an ok reply on artifact.metadata: the design's metadata shape
// (the workspace-ID design), for regular and workspace artifacts. The worker's HTTP endpoint GET
// /artifacts/{id}/metadata serves the same JSON.
//
//ts:name MetadataResult
type ArtifactInfo struct {
	ID string `json:"id"`
	// The artifact's MIME type, the same value as mimeType, as in the workspace-ID design's example
	// ("type": "text/javascript"). Contract v1 before the correction sent the kind (text, image,
	// ...) here: see the README's Versioning section.
	Type string `json:"type"`
	// Display name (the filename).
	Name string `json:"name"`
	// First write.
	CreatedAt time.Time `json:"createdAt"`
	// Latest write.
	UpdatedAt time.Time    `json:"updatedAt"`
	Meta      ArtifactMeta `json:"meta"`
	// The artifact's MIME type as tool.get_artifact detects it from the same bytes
	// (metadata.mimeType there): bytes that contradict the declared type (the workspace file's
	// recorded type, else the object's Content-Type) are reported as what they are. Over the size
	// limit, not read: the declared type.
	MimeType string `json:"mimeType"`
	// Bytes.
	//
	//schema:minimum 0
	Size int64 `json:"size"`
}

// ArtifactMeta holds the per-file details of an ArtifactInfo.
//
//schema:inline
//ts:name MetadataMeta
type ArtifactMeta struct {
	Filename string `json:"filename"`
	// Workspace files only.
	WorkspaceID string `json:"workspaceId,omitempty"`
	// Workspace files only.
	RelativePath string `json:"relativePath,omitempty"`
	// Workspace files only: one entry per write, oldest first, the most recent N kept.
	ModifiedBy []Modification `json:"modifiedBy,omitempty"`
}

// Modification records one write of a workspace file.
//
//schema:inline
type Modification struct {
	AgentID   string    `json:"agentId"`
	Timestamp time.Time `json:"timestamp"`
	MessageID string    `json:"messageId,omitempty"`
	// The workspace.file_written request that recorded this write.
	RequestID string `json:"requestId,omitempty"`
}
