// Package service is the worker's composition root: from a Config it starts (or connects to) NATS,
// opens the object store, loads the capability registry, ensures the JetStream topology, builds the
// handlers and the message pipeline, and serves HTTP.
//
// cmd/worker parses settings into a Config and calls this package for everything it wires:
// `run` is New and Run; `replay` builds the same handlers with Build and runs stored requests through
// Components.Processor, under the one policy the pipeline uses (handlers.Policy); `put` opens the
// store with OpenStore; `call` and `mcp` are NATS clients that connect with Connect and talk to the
// worker through the Go client (package client), with no handlers of their own.
package service
