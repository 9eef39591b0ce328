// Package handlers holds the worker's message handlers: each decodes its request, calls the domain
// packages (routing, objectstore, workspace, historyimage) and returns a result for the pipeline to
// encode. Handlers are thin and safe for concurrent use; they see handling.Request and know nothing
// of the transport.
//
// Wire error codes are chosen at the edge, in two kinds of places. MapError maps the typed errors
// the domain packages return (objectstore.ErrNotFound is artifact_not_found, ...). Where a handler
// itself knows the code, because the request is what is wrong (invalid_request naming the field,
// missing_mime_type, payload_too_large, invalid_image_id) or because the outcome is the handler's
// own (image_not_found, file_not_found, write_failed, metadata_not_recorded), it returns a
// *contracts.Error, which MapError passes on unchanged. The pipeline (package messaging) chooses the
// codes of what it finds around a handler: a body that is not JSON, an expired deadline, exhausted
// deliveries, a panic.
package handlers
