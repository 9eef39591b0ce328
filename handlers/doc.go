// Package handlers holds the worker's message handlers: each decodes its request, calls the domain
// packages (routing, objectstore, workspace, historyimage) and returns a result for the pipeline to
// encode. Handlers are thin and safe for concurrent use. Every wire error code is chosen in one
// place, MapError, from the typed errors the domain packages return.
package handlers
