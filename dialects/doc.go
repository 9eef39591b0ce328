// Package dialects is the one home of the dialects the worker assembles tool results in: the APIs
// whose tool-result shape contracts.Assembly follows (contracts.Dialects). Each Dialect owns
//
//   - its carriage: which media its tool result (or follow-up) can hold, per kind and format;
//   - its tool-result parts: ToolContent, the JSON that goes where the API puts a tool's answer;
//   - its follow-up: where media goes that the tool result cannot hold, and the message carrying it;
//   - its turn shape: how the answers to every call of one assistant turn are put together
//     (client.Turn in Go, assembleTurn in JavaScript, both driven by this table);
//   - its token rule: the image token formula usage falls back to when the model's provider is
//     not known, and the registry provider whose defaults apply then.
//
// routing (Assemble, EstimateUsage), handlers and client look a dialect up here instead of
// switching on its name. docs/design.md, "How to add a dialect", lists the files a new dialect
// touches. The package is pure (no I/O) and imports only contracts, so a client can use it; every
// value is immutable and safe for concurrent use.
package dialects
