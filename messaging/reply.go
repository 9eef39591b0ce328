package messaging

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go"

	"github.com/agentworks/artifact-worker/contracts"
)

// reply publishes env to replyTo with core NATS, through the claim check when it is too large.
// It returns the number of bytes of the reply body.
func (p *Pipeline) reply(ctx context.Context, replyTo string, env contracts.Reply) (int, error) {
	if replyTo == "" {
		return 0, nil
	}
	body, err := encodeReply(env)
	if err != nil {
		return 0, err
	}
	hdr := nats.Header{}
	hdr.Set(contracts.HeaderContractVersion, contracts.Version)
	msg, err := p.deps.Claims.Prepare(ctx, replyTo, hdr, body)
	if err != nil {
		return 0, err
	}
	if err := p.deps.PubConn.PublishMsg(msg); err != nil {
		return 0, fmt.Errorf("publish reply to %s: %w", replyTo, err)
	}
	return len(body), nil
}

// encodeReply writes the envelope around the already-encoded result. json.Marshal would validate
// and compact the result again (a full pass over every byte of base64 it carries), so the envelope
// is written by hand; the result itself came from json.Marshal and is valid, compact JSON.
func encodeReply(env contracts.Reply) ([]byte, error) {
	if !env.OK || len(env.Result) == 0 {
		body, err := json.Marshal(env)
		if err != nil {
			return nil, fmt.Errorf("encode reply: %w", err)
		}
		return body, nil
	}
	id, err := json.Marshal(env.RequestID)
	if err != nil {
		return nil, fmt.Errorf("encode reply: %w", err)
	}
	body := make([]byte, 0, len(env.Result)+len(id)+40)
	body = append(body, `{"request_id":`...)
	body = append(body, id...)
	body = append(body, `,"ok":true,"result":`...)
	body = append(body, env.Result...)
	return append(body, '}'), nil
}

// validReplySubject reports whether s can be published to as a reply: non-empty tokens, no
// wildcards or spaces, not a system subject ($JS, $KV, $O, ...) and not a subject the worker's streams
// capture (a reply there would be stored as a new request or a forged dead letter).
func validReplySubject(s string) bool {
	if s == "" || len(s) > 1024 || s[0] == '$' || strings.HasPrefix(s, contracts.DeadLetterPrefix) || strings.HasPrefix(s, "replay.") {
		return false
	}
	for _, req := range contracts.RequestSubjects {
		if s == req {
			return false
		}
	}
	tokenLen := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '.':
			if tokenLen == 0 {
				return false
			}
			tokenLen = 0
		case '*', '>', ' ', '\t', '\r', '\n', 0:
			return false
		default:
			tokenLen++
		}
	}
	return tokenLen > 0
}
