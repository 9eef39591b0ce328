package client

import (
	"context"

	"github.com/agentworks/artifact-worker/contracts"
)

// GetArtifact calls tool.get_artifact. A request without Media asks for contracts.MediaAssembly: the
// media comes once, in res.Assembly, ready to send to the model, and res.ImageURL and res.File are
// nil (the reply is half the size of the wire default, "both"). Set Media to contracts.MediaResult or
// contracts.MediaBoth to read imageUrl/file. An error reply is returned as a *contracts.Error.
func (c *Client) GetArtifact(ctx context.Context, req contracts.GetArtifactRequest) (contracts.GetArtifactResult, error) {
	if req.Media == "" {
		req.Media = contracts.MediaAssembly
	}
	var res contracts.GetArtifactResult
	err := c.Call(ctx, contracts.SubjectGetArtifact, req, &res)
	return res, err
}

// GetHistoryImage calls tool.get_history_image; like GetArtifact, a request without Media asks for
// the assembly only (res.Content is then empty).
func (c *Client) GetHistoryImage(ctx context.Context, req contracts.GetHistoryImageRequest) (contracts.GetHistoryImageResult, error) {
	if req.Media == "" {
		req.Media = contracts.MediaAssembly
	}
	var res contracts.GetHistoryImageResult
	err := c.Call(ctx, contracts.SubjectGetHistoryImage, req, &res)
	return res, err
}
