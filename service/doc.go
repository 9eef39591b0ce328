// Package service is the worker's composition root: from a Config it starts (or connects to) NATS,
// opens the object store, loads the capability registry, ensures the JetStream topology, builds the
// handlers and the message pipeline, and serves HTTP. cmd/worker only parses settings and calls it.
package service
