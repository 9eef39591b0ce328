// Package contracts holds wire contract v1 of the artifact worker: the NATS subjects it serves, the
// headers it reads and writes, the reply envelope, the stable error codes, and the request and result
// types of every subject. It has no dependencies beyond the standard library so that any Go agent
// runtime can import it; runtimes in other languages use the JSON Schema files in schema/.
//
// The JSON Schemas and the TypeScript and Python types are generated from this package's wire types
// (their doc comments and //schema: directives): after changing one, run `go generate ./contracts`.
// See README.md, "Where the contract comes from".
//
// The contract is versioned: additive changes (new optional fields, new error codes, new subjects)
// keep version 1; anything else gets a new version with new subjects. See README.md.
package contracts

//go:generate go run ./internal/contractgen
