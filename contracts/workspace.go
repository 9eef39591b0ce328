package contracts

import "time"

// FileWrittenRequest is the body of workspace.file_written. Content or ContentBase64 carry the
// file inline; without them the object must already be in the store.
type FileWrittenRequest struct {
	RequestID     string  `json:"request_id"`
	WorkspaceID   string  `json:"workspace_id"`
	Path          string  `json:"path"`
	MimeType      string  `json:"mime_type"`
	AgentID       string  `json:"agent_id,omitempty"`
	MessageID     string  `json:"message_id,omitempty"`
	Content       *string `json:"content,omitempty"`
	ContentBase64 *string `json:"content_base64,omitempty"`
}

// FileWrittenResult is the seeds' write_file tool result.
type FileWrittenResult struct {
	OK         bool   `json:"ok"`
	ArtifactID string `json:"artifactId"`
	Path       string `json:"path"`
}

// MetadataRequest is the body of artifact.metadata.
type MetadataRequest struct {
	RequestID string `json:"request_id"`
	// ID is an artifact id (bare or "artifact:{id}") or a workspace id "ws:...".
	ID string `json:"id"`
}

// ArtifactInfo is the seeds' metadata shape (design document 004), served on artifact.metadata and
// over HTTP. Type is the artifact's MIME type, as in 004's example ("type": "text/javascript"); it
// always equals MimeType.
type ArtifactInfo struct {
	ID        string       `json:"id"`
	Type      string       `json:"type"`
	Name      string       `json:"name"`
	CreatedAt time.Time    `json:"createdAt"`
	UpdatedAt time.Time    `json:"updatedAt"`
	Meta      ArtifactMeta `json:"meta"`
	MimeType  string       `json:"mimeType"`
	Size      int64        `json:"size"`
}

// ArtifactMeta holds the per-file details of ArtifactInfo.
type ArtifactMeta struct {
	Filename     string         `json:"filename"`
	WorkspaceID  string         `json:"workspaceId,omitempty"`
	RelativePath string         `json:"relativePath,omitempty"`
	ModifiedBy   []Modification `json:"modifiedBy,omitempty"`
}

// Modification records one write of a workspace file.
type Modification struct {
	AgentID   string    `json:"agentId"`
	Timestamp time.Time `json:"timestamp"`
	MessageID string    `json:"messageId,omitempty"`
	// RequestID is the workspace.file_written request that recorded this write; a redelivered
	// request is recorded once.
	RequestID string `json:"requestId,omitempty"`
}
