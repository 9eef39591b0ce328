package contracts_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentworks/artifact-worker/contracts"
)

// A runtime builds a tool.get_artifact request, publishes it to JetStream on the subject with a
// Reply-To header naming its inbox and Nats-Msg-Id set to the request_id, then waits on the inbox.
// (The Go client in package client does all of this, claim checks included.)
func ExampleGetArtifactRequest() {
	req := contracts.GetArtifactRequest{
		RequestID: "req-7f3a",
		Ref:       "artifact:a1",
		ServiceID: "gpt-4o",
		Dialect:   contracts.DialectOpenAIChat,
		Locale:    contracts.LocaleEN,
	}
	body, err := json.Marshal(req)
	if err != nil {
		panic(err)
	}
	headers := map[string]string{
		contracts.HeaderReplyTo: "_INBOX.agent-1.req-7f3a",
		contracts.HeaderMsgID:   req.RequestID,
	}
	fmt.Println("subject:", contracts.SubjectGetArtifact)
	fmt.Println("Reply-To:", headers[contracts.HeaderReplyTo])
	fmt.Println("Nats-Msg-Id:", headers[contracts.HeaderMsgID])
	fmt.Println("body:", string(body))
	// Output:
	// subject: tool.get_artifact
	// Reply-To: _INBOX.agent-1.req-7f3a
	// Nats-Msg-Id: req-7f3a
	// body: {"request_id":"req-7f3a","ref":"artifact:a1","service_id":"gpt-4o","dialect":"openai-chat","locale":"en"}
}

// An ok reply carries the subject's result; for tool.get_artifact the ContentRouteResult fields
// and the assembly. The runtime sends assembly.toolContent as the tool message and appends
// assembly.followUp, if any, after it.
func ExampleReply() {
	raw := []byte(`{"request_id":"req-7f3a","ok":true,"result":{
		"contentType":"text","routing":"text","content":"# Notes\nhello",
		"metadata":{"id":"a1","type":"text","filename":"notes.md","mimeType":"text/markdown","size":13,"createdAt":"2025-01-02T03:04:05Z"},
		"assembly":{"dialect":"openai-chat","toolContent":"# Notes\nhello"}}}`)

	var rep contracts.Reply
	if err := json.Unmarshal(raw, &rep); err != nil {
		panic(err)
	}
	if !rep.OK {
		panic(rep.Error)
	}
	var res contracts.GetArtifactResult
	if err := json.Unmarshal(rep.Result, &res); err != nil {
		panic(err)
	}
	var toolContent string // a string in dialect openai-chat, a list of blocks in anthropic
	if err := json.Unmarshal(res.Assembly.ToolContent, &toolContent); err != nil {
		panic(err)
	}
	fmt.Println(rep.RequestID, res.ContentType, res.Routing, res.Metadata.Filename)
	fmt.Printf("tool message: %q, follow-up messages: %d\n", toolContent, len(res.Assembly.FollowUp))
	// Output:
	// req-7f3a text text notes.md
	// tool message: "# Notes\nhello", follow-up messages: 0
}

// A failed reply carries an error with a stable code. *contracts.Error implements error, so it
// can be returned as is and matched with errors.As.
func ExampleReply_error() {
	raw := []byte(`{"request_id":"req-7f3b","ok":false,"error":{"code":"invalid_request","message":"dialect \"gemini\" is not supported (use \"openai-chat\" or \"anthropic\")","field":"dialect"}}`)

	var rep contracts.Reply
	if err := json.Unmarshal(raw, &rep); err != nil {
		panic(err)
	}
	var err error
	if !rep.OK {
		err = fmt.Errorf("get_artifact %s: %w", rep.RequestID, rep.Error)
	}

	var wire *contracts.Error
	if errors.As(err, &wire) {
		switch {
		case wire.Retryable:
			fmt.Println("retry later with a new request_id")
		case wire.Code == contracts.CodeInvalidRequest:
			fmt.Printf("fix field %q: %s\n", wire.Field, wire.Code)
		default:
			fmt.Println("permanent:", wire.Code)
		}
	}
	// Output:
	// fix field "dialect": invalid_request
}
