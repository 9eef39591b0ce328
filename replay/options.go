package replay

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentworks/artifact-worker/messaging"
)

// Defaults of Options.
const (
	// DefaultTimeout bounds one replayed request.
	DefaultTimeout = 30 * time.Second
	// DefaultProgressEvery is how many requests pass between two progress lines (a line is also
	// written at least every second while replay runs).
	DefaultProgressEvery = 1000
	// DefaultResultsStream keeps the replies of replays made with Options.Results.
	DefaultResultsStream = "WORKER_REPLAY_RESULTS"
)

// Options selects the requests to replay and what to do with the replies. The zero value replays
// every request of the stream, from the first, and only writes lines.
type Options struct {
	// Subjects filters the requests (exact subjects); empty means every subject of the stream.
	Subjects []string
	// StartSeq starts at this stream sequence (inclusive). Exclusive with StartTime. Neither: from
	// the first message of the stream.
	StartSeq uint64
	// StartTime starts at the first request stored at or after this time.
	StartTime time.Time
	// EndSeq stops after this stream sequence (inclusive); 0: no bound.
	EndSeq uint64
	// EndTime stops before the first request stored at or after this time (exclusive); zero: no
	// bound.
	EndTime time.Time
	// Limit stops after this many requests; 0: no limit.
	Limit int
	// PublishTo, when set, publishes each reply envelope to this subject with core NATS. Replies
	// are never published to a request's own Reply-To.
	PublishTo string
	// Results keeps each reply in ResultsStream and reports whether it changed since the reply an
	// earlier replay stored for the same request.
	Results bool
	// ResultsStream names the results stream (default DefaultResultsStream).
	ResultsStream string
	// Replicas of the results stream in a NATS cluster (default 1; the worker's JETSTREAM_REPLICAS).
	Replicas int
	// KeepMedia prints base64 media (data URLs, content_base64, image data) in the lines as they are;
	// by default each is replaced by its decoded length and SHA-256. Published and stored replies
	// are always whole.
	KeepMedia bool
	// Timeout bounds one request (default DefaultTimeout).
	Timeout time.Duration
	// ProgressEvery writes a progress line every this many requests (default
	// DefaultProgressEvery); a line is also written at least every second.
	ProgressEvery int
}

func (o *Options) setDefaults() {
	o.ResultsStream = cmp.Or(o.ResultsStream, DefaultResultsStream)
	o.Replicas = cmp.Or(o.Replicas, 1)
	o.Timeout = cmp.Or(o.Timeout, DefaultTimeout)
	o.ProgressEvery = cmp.Or(o.ProgressEvery, DefaultProgressEvery)
}

// Validate reports every invalid field at once, each by its name.
func (o Options) Validate() error {
	var errs []error
	for i, s := range o.Subjects {
		if !validSubject(s) || strings.ContainsAny(s, "*>") {
			//lint:ignore ST1005 the message starts with the config field's Go name, as Validate names every bad field
			errs = append(errs, fmt.Errorf("Subjects[%d] %q: must be a subject without wildcards", i, s))
		}
	}
	if o.StartSeq > 0 && !o.StartTime.IsZero() {
		errs = append(errs, errors.New("StartSeq and StartTime: give one start, not both"))
	}
	if o.EndSeq > 0 && o.StartSeq > 0 && o.EndSeq < o.StartSeq {
		errs = append(errs, fmt.Errorf("EndSeq %d: before StartSeq %d", o.EndSeq, o.StartSeq))
	}
	if !o.EndTime.IsZero() && !o.StartTime.IsZero() && !o.EndTime.After(o.StartTime) {
		errs = append(errs, fmt.Errorf("EndTime %s: not after StartTime %s", o.EndTime.Format(time.RFC3339), o.StartTime.Format(time.RFC3339)))
	}
	if o.Limit < 0 {
		//lint:ignore ST1005 the message starts with the config field's Go name, as Validate names every bad field
		errs = append(errs, fmt.Errorf("Limit %d: must not be negative", o.Limit))
	}
	if o.PublishTo != "" && !messaging.ValidReplySubject(o.PublishTo) {
		errs = append(errs, fmt.Errorf("PublishTo %q: must be a subject a reply may go to (no wildcards, not $..., a request subject, deadletter.> or replay.results.>)", o.PublishTo))
	}
	if o.ResultsStream != "" && strings.ContainsAny(o.ResultsStream, ".*> \t") {
		errs = append(errs, fmt.Errorf("ResultsStream %q: a stream name must not contain '.', '*', '>' or spaces", o.ResultsStream))
	}
	if o.Timeout < 0 {
		//lint:ignore ST1005 the message starts with the config field's Go name, as Validate names every bad field
		errs = append(errs, fmt.Errorf("Timeout %s: must not be negative", o.Timeout))
	}
	if o.ProgressEvery < 0 {
		errs = append(errs, fmt.Errorf("ProgressEvery %d: must not be negative", o.ProgressEvery))
	}
	return errors.Join(errs...)
}

// validSubject reports whether s is a NATS subject: non-empty tokens, no spaces or control bytes.
func validSubject(s string) bool {
	if s == "" || len(s) > 1024 {
		return false
	}
	for _, tok := range strings.Split(s, ".") {
		if tok == "" || strings.ContainsAny(tok, " \t\r\n\x00") {
			return false
		}
	}
	return true
}
