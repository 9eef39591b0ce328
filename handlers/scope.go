package handlers

import (
	"context"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/scope"
)

// inScope checks a resolved reference against the request's scope (scope.From) before anything is
// read: a reference outside it is recorded (scope.Refuse, for the operator's log and metric) and
// answered exactly as a reference that does not exist — the same error, so the same code, message
// and shape — without touching the store, so neither the answer nor its timing says whether the
// artifact exists.
func inScope(ctx context.Context, t target, ref string) error {
	sc := scope.From(ctx)
	switch {
	case t.workspaceID != "" && !sc.Workspace(t.workspaceID):
		_ = scope.Refuse(ctx, scope.ReasonWorkspace, ref)
	case t.workspaceID == "" && !sc.Artifact(t.id):
		_ = scope.Refuse(ctx, scope.ReasonArtifact, ref)
	default:
		return nil
	}
	return withRef(ref, objectstore.ErrNotFound)
}

// writeInScope checks that workspace.file_written writes inside the request's scope. A write
// outside is refused (permission_denied) before the store is touched; the answer names only what
// the caller sent.
func writeInScope(ctx context.Context, workspaceID, id string) error {
	if scope.From(ctx).Workspace(workspaceID) {
		return nil
	}
	_ = scope.Refuse(ctx, scope.ReasonWrite, id)
	return &contracts.Error{Code: contracts.CodePermissionDenied, Message: "permission_denied: workspace " + workspaceID + " is outside this request's scope (" + contracts.HeaderScope + ")", Ref: id}
}
