package messaging

import (
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
)

func TestRequestReplyHeadersAndReplySubjects(t *testing.T) {
	for _, tt := range []struct {
		header string
		stored bool
	}{
		{contracts.HeaderClaimCheck, true},
		{contracts.HeaderTraceparent, true},
		{contracts.HeaderTracestate, true},
		{contracts.HeaderMsgID, true},
		{"X-Tenant", true},
		{contracts.HeaderReplyTo, false},
		{"Nats-Expected-Last-Sequence", false},
		{"Nats-TTL", false},
	} {
		if got := forwardedHeader(tt.header); got != tt.stored {
			t.Errorf("forwardedHeader(%q) = %v, want %v", tt.header, got, tt.stored)
		}
	}
	// A reply to a plain request/reply subject would be stored as a new request.
	for _, s := range []string{contracts.RequestReplySubject(contracts.SubjectGetArtifact), contracts.SubjectGetArtifact, "$JS.API.x", "a.*"} {
		if ValidReplySubject(s) {
			t.Errorf("%q accepted as a reply subject", s)
		}
	}
	if !ValidReplySubject("_INBOX.abc.def") {
		t.Error("an inbox refused")
	}
}
