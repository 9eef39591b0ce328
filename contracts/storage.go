package contracts

// The storage layout runtimes share with the worker (contracts/README.md, "Storage layout").
const (
	// ArtifactKeyPrefix starts the key of a regular artifact: "artifacts/{id}".
	ArtifactKeyPrefix = "artifacts/"
	// WorkspaceKeyPrefix starts the key of a workspace file: "workspaces/{workspaceId}/{path}".
	WorkspaceKeyPrefix = "workspaces/"
	// MaxObjectKeyLen is the longest object key, in bytes (the S3 limit).
	MaxObjectKeyLen = 1024
)
