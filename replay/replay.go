package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/messaging"
)

// Outcomes of a replayed request (Line.Outcome).
const (
	OutcomeOK         = "ok"
	OutcomeErrorReply = "error_reply"
	OutcomePoison     = "poison"
	OutcomeTransient  = "transient"
	OutcomeSkipped    = "skipped"
)

// Headers set on replies published to Options.PublishTo.
const (
	// HeaderSequence is the stream sequence of the replayed request.
	HeaderSequence = "Replay-Sequence"
	// HeaderSubject is the subject of the replayed request.
	HeaderSubject = "Replay-Subject"
)

var (
	// ErrInvalidOptions wraps the field errors of Options.Validate.
	ErrInvalidOptions = errors.New("replay: invalid options")
	// ErrUnknownSubject means a subject of Options.Subjects has no handler.
	ErrUnknownSubject = errors.New("replay: no handler for subject")
)

// idleWait is how long Run waits for the next message before it asks the server whether any are
// still pending.
const idleWait = time.Second

// Line is one replayed request, written as one JSON line.
type Line struct {
	Seq       uint64    `json:"seq"`
	Subject   string    `json:"subject"`
	Time      time.Time `json:"time"`
	RequestID string    `json:"request_id"`
	// Headers are the request's NATS headers as stored (Nats-Msg-Id, Reply-To, traceparent,
	// Claim-Check, ...).
	Headers nats.Header `json:"headers,omitempty"`
	// Request is the request body with its claim check resolved: the JSON itself, or a JSON string
	// when the body is not valid JSON, or null when a claim check could not be resolved. Media in it
	// is elided unless Options.KeepMedia (see Reply).
	Request json.RawMessage `json:"request"`
	// Reply is the reply envelope the current code gives; for poison and transient outcomes, the
	// error reply the caller would get once the pipeline gives up. Null for a skipped request.
	// Unless Options.KeepMedia, every base64 media string in it (a data URL, base64 under
	// content_base64, data, bytes or b64_json) is "<media image/png: N bytes, sha256 HEX>": the
	// decoded length and digest, to compare with the stored object.
	Reply   *contracts.Reply `json:"reply"`
	Outcome string           `json:"outcome"`
	// Error is the failure behind a poison or transient outcome, or why a request was skipped.
	Error string `json:"error,omitempty"`
	// Changed, with Options.Results, tells whether the reply differs from the one the previous
	// replay stored for the same request (canonical JSON compared). It is absent, and Previous is
	// "none", when no earlier replay stored a reply for this request.
	Changed  *bool  `json:"changed,omitempty"`
	Previous string `json:"previous,omitempty"`
}

// Summary counts what Run did.
type Summary struct {
	Replayed     int // requests run through a handler (skipped ones excluded)
	OK           int
	ErrorReplies int
	Poison       int
	Transient    int
	Skipped      int // requests on a subject without a handler
	Changed      int // with Results: replies that differ from the stored ones
	New          int // with Results: replies with no stored reply to compare with
	// LastSeq is the sequence of the last request read (0 when none was).
	LastSeq uint64
}

func (s Summary) String() string {
	out := fmt.Sprintf("%d replayed (%d ok, %d error replies, %d poison, %d transient)", s.Replayed, s.OK, s.ErrorReplies, s.Poison, s.Transient)
	if s.Skipped > 0 {
		out += fmt.Sprintf(", %d skipped", s.Skipped)
	}
	return out
}

// ProcessorFunc returns the processor of a subject, false when no handler serves it.
type ProcessorFunc func(subject string) (messaging.Processor, bool)

// Run replays the requests of stream selected by opts, in stream order, one at a time.
//
// For each request it writes a Line to out, and progress lines ("replayed 1200/5000 (seq 3456)")
// to progress (which may be nil), every opts.ProgressEvery requests and at least every second.
// It reads from the first selected request up to the stream's last sequence at the time Run
// started (or EndSeq, EndTime, Limit, whichever comes first), then returns; it never waits for
// new requests. nc publishes replies for PublishTo (js.Conn() when nil). Nothing is published to a
// request's Reply-To.
//
// A request's own failure (an error reply, poison, a transient failure, a handler panic) is
// reported on its line and counted, not returned. Run returns an error when opts are invalid
// (ErrInvalidOptions), a filtered subject has no handler (ErrUnknownSubject), the stream cannot be
// read, a reply cannot be published or stored, out cannot be written, or ctx ends; the Summary
// then counts the requests replayed so far.
func Run(ctx context.Context, js jetstream.JetStream, nc *nats.Conn, stream string, proc ProcessorFunc, opts Options, out io.Writer, progress io.Writer) (Summary, error) {
	opts.setDefaults()
	if err := opts.Validate(); err != nil {
		return Summary{}, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	for _, s := range opts.Subjects {
		if _, ok := proc(s); !ok {
			return Summary{}, fmt.Errorf("%w: %s", ErrUnknownSubject, s)
		}
	}
	if nc == nil {
		nc = js.Conn()
	}
	st, err := js.Stream(ctx, stream)
	if err != nil {
		return Summary{}, fmt.Errorf("replay: stream %s: %w", stream, err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		return Summary{}, fmt.Errorf("replay: stream %s: %w", stream, err)
	}
	// The last sequence as of now bounds the replay: it must end even while requests keep coming.
	bound := info.State.LastSeq
	if opts.EndSeq > 0 && opts.EndSeq < bound {
		bound = opts.EndSeq
	}
	if info.State.Msgs == 0 || opts.StartSeq > bound {
		return Summary{}, nil
	}
	r := &runner{opts: opts, proc: proc, nc: nc, enc: json.NewEncoder(out), progress: progress}
	r.enc.SetEscapeHTML(false)
	if opts.Results {
		if r.results, err = ensureResults(ctx, js, opts.ResultsStream, stream, opts.Replicas); err != nil {
			return Summary{}, err
		}
	}

	filter := slices.Clone(opts.Subjects)
	slices.Sort(filter)
	cfg := jetstream.OrderedConsumerConfig{
		FilterSubjects: slices.Compact(filter),
		DeliverPolicy:  jetstream.DeliverAllPolicy,
		// The server removes the ephemeral consumer soon after replay ends.
		InactiveThreshold: time.Minute,
	}
	switch {
	case opts.StartSeq > 0:
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, opts.StartSeq
	case !opts.StartTime.IsZero():
		t := opts.StartTime
		cfg.DeliverPolicy, cfg.OptStartTime = jetstream.DeliverByStartTimePolicy, &t
	}
	cons, err := st.OrderedConsumer(ctx, cfg)
	if err != nil {
		return Summary{}, fmt.Errorf("replay: consumer on %s: %w", stream, err)
	}
	// A few messages at a time: requests can be large.
	msgs, err := cons.Messages(jetstream.PullMaxMessages(16))
	if err != nil {
		return Summary{}, fmt.Errorf("replay: consume %s: %w", stream, err)
	}
	defer msgs.Stop()
	ci, err := cons.Info(ctx)
	if err != nil {
		return Summary{}, fmt.Errorf("replay: consumer on %s: %w", stream, err)
	}
	if ci.NumPending == 0 && ci.Delivered.Consumer == 0 {
		return Summary{}, nil // nothing selected
	}
	r.total = int(ci.NumPending + ci.Delivered.Consumer)
	if opts.Limit > 0 && opts.Limit < r.total {
		r.total = opts.Limit
	}
	r.lastProgress = time.Now()

	for opts.Limit == 0 || r.sum.Replayed+r.sum.Skipped < opts.Limit {
		nextCtx, cancel := context.WithTimeout(ctx, idleWait)
		msg, err := msgs.Next(jetstream.NextContext(nextCtx))
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return r.finish(ctx, ctx.Err())
			}
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) {
				// Idle: stop when the server has nothing more for us.
				ci, err := cons.Info(ctx)
				if err != nil {
					return r.finish(ctx, fmt.Errorf("replay: consumer on %s: %w", stream, err))
				}
				if ci.NumPending == 0 && ci.Delivered.Stream <= r.sum.LastSeq {
					break
				}
				continue
			}
			return r.finish(ctx, fmt.Errorf("replay: read %s: %w", stream, err))
		}
		meta, err := msg.Metadata()
		if err != nil {
			return r.finish(ctx, fmt.Errorf("replay: message metadata: %w", err))
		}
		seq := meta.Sequence.Stream
		if seq > bound || (!opts.EndTime.IsZero() && !meta.Timestamp.Before(opts.EndTime)) {
			break
		}
		if err := r.replay(ctx, msg, seq, meta.Timestamp); err != nil {
			return r.finish(ctx, err)
		}
		if seq >= bound || meta.NumPending == 0 {
			break
		}
	}
	return r.finish(ctx, nil)
}

// runner holds the state of one Run.
type runner struct {
	opts     Options
	proc     ProcessorFunc
	nc       *nats.Conn
	results  *results
	enc      *json.Encoder
	progress io.Writer

	sum          Summary
	total        int
	published    bool
	lastProgress time.Time
}

// finish flushes what was published and returns the summary with err.
func (r *runner) finish(ctx context.Context, err error) (Summary, error) {
	if r.published {
		fctx := ctx
		if ctx.Err() != nil {
			var cancel context.CancelFunc
			fctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
		}
		if ferr := r.nc.FlushWithContext(fctx); ferr != nil && err == nil {
			err = fmt.Errorf("replay: flush published replies: %w", ferr)
		}
	}
	return r.sum, err
}

// replay runs one stored request, writes its line and, as asked, publishes and stores its reply.
func (r *runner) replay(ctx context.Context, msg jetstream.Msg, seq uint64, stamp time.Time) error {
	subject := msg.Subject()
	line := Line{Seq: seq, Subject: subject, Time: stamp, RequestID: msg.Headers().Get(contracts.HeaderMsgID), Headers: msg.Headers()}
	r.sum.LastSeq = seq
	p, ok := r.proc(subject)
	if !ok {
		line.Outcome, line.Error = OutcomeSkipped, "no handler for subject "+subject
		line.Request = requestJSON(msg.Data())
		r.sum.Skipped++
		return r.write(line)
	}

	reqCtx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	// The pipeline passes the handler the stored headers and body as they are; so does replay.
	hdr := nats.Header{}
	for k, v := range msg.Headers() {
		hdr[k] = append([]string(nil), v...)
	}
	body, resolveErr := resolve(reqCtx, p, hdr, msg.Data())
	if resolveErr == nil {
		line.Request = requestJSON(body)
	} else {
		line.Request = json.RawMessage("null")
	}
	out, err := process(reqCtx, p, messaging.Message{Subject: subject, Header: hdr, Data: msg.Data(), Delivery: 1}, body)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	reply := out.Reply
	line.Reply, line.RequestID = &reply, reply.RequestID
	line.Outcome = classify(p, out, err)
	if err != nil {
		line.Error = err.Error()
		var pe *panicError
		if errors.As(err, &pe) && r.progress != nil {
			fmt.Fprintf(r.progress, "seq %d (%s): the handler panicked: %v\n%s\n", seq, subject, pe.value, pe.stack)
		}
	}
	r.sum.Replayed++
	switch line.Outcome {
	case OutcomeOK:
		r.sum.OK++
	case OutcomeErrorReply:
		r.sum.ErrorReplies++
	case OutcomePoison:
		r.sum.Poison++
	case OutcomeTransient:
		r.sum.Transient++
	}

	replyJSON, err := json.Marshal(reply)
	if err != nil {
		return fmt.Errorf("replay: encode reply of seq %d: %w", seq, err)
	}
	if r.results != nil {
		canon, err := canonicalJSON(replyJSON)
		if err != nil {
			return fmt.Errorf("replay: canonical reply of seq %d: %w", seq, err)
		}
		prev, cur, err := r.results.swap(ctx, seq, subject, line.Outcome, canon)
		if err != nil {
			return err
		}
		if prev == "" {
			line.Previous = "none"
			r.sum.New++
		} else {
			changed := prev != cur
			line.Changed = &changed
			if changed {
				r.sum.Changed++
			}
		}
	}
	if r.opts.PublishTo != "" {
		if err := r.publish(ctx, p, seq, subject, replyJSON); err != nil {
			return err
		}
	}
	return r.write(line)
}

// publish sends the reply envelope to PublishTo with core NATS, by claim check when too large.
func (r *runner) publish(ctx context.Context, p messaging.Processor, seq uint64, subject string, body []byte) error {
	hdr := nats.Header{}
	hdr.Set(contracts.HeaderContractVersion, contracts.Version)
	hdr.Set(HeaderSequence, strconv.FormatUint(seq, 10))
	hdr.Set(HeaderSubject, subject)
	var msg *nats.Msg
	if p.Claims != nil {
		var err error
		if msg, err = p.Claims.Prepare(ctx, r.opts.PublishTo, hdr, body); err != nil {
			return fmt.Errorf("replay: publish reply of seq %d: %w", seq, err)
		}
	} else {
		msg = &nats.Msg{Subject: r.opts.PublishTo, Header: hdr, Data: body}
	}
	if err := r.nc.PublishMsg(msg); err != nil {
		return fmt.Errorf("replay: publish reply of seq %d to %s: %w", seq, r.opts.PublishTo, err)
	}
	r.published = true
	return nil
}

func (r *runner) write(line Line) error {
	if !r.opts.KeepMedia {
		line.Request = elideMedia(line.Request)
		if line.Reply != nil && len(line.Reply.Result) > 0 {
			reply := *line.Reply
			reply.Result = elideMedia(reply.Result)
			line.Reply = &reply
		}
	}
	if err := r.enc.Encode(line); err != nil {
		return fmt.Errorf("replay: write line of seq %d: %w", line.Seq, err)
	}
	n := r.sum.Replayed + r.sum.Skipped
	if r.progress != nil && (n%r.opts.ProgressEvery == 0 || time.Since(r.lastProgress) >= time.Second) {
		total := max(r.total, n)
		fmt.Fprintf(r.progress, "replayed %d/%d (seq %d)\n", n, total, line.Seq)
		r.lastProgress = time.Now()
	}
	return nil
}

// resolve returns the request body with its claim check resolved.
func resolve(ctx context.Context, p messaging.Processor, hdr nats.Header, data []byte) ([]byte, error) {
	if hdr.Get(contracts.HeaderClaimCheck) == "" || p.Claims == nil {
		return data, nil
	}
	return p.Claims.Resolve(ctx, hdr, data)
}

// process runs messaging.Process and turns a handler panic into an internal_error reply, as the
// pipeline's recoverer would (the pipeline dead-letters such a request: poison).
func process(ctx context.Context, p messaging.Processor, m messaging.Message, body []byte) (out messaging.Outcome, err error) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		err = &panicError{value: v, stack: debug.Stack()}
		var env contracts.Envelope
		if json.Unmarshal(body, &env) == nil && env.RequestID != "" {
			out.Reply.RequestID = env.RequestID
		} else {
			out.Reply.RequestID = m.Header.Get(contracts.HeaderMsgID)
		}
		out.Reply.OK, out.Reply.Result = false, nil
		out.Reply.Error = &contracts.Error{Code: contracts.CodeInternal, Message: fmt.Sprintf("the handler panicked: %v", v)}
	}()
	return messaging.Process(ctx, p, m)
}

// panicError is a recovered handler panic.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v", e.value) }

// classify names the outcome of a request as the pipeline would treat it.
func classify(p messaging.Processor, out messaging.Outcome, err error) string {
	if err == nil {
		if out.Reply.OK {
			return OutcomeOK
		}
		return OutcomeErrorReply
	}
	var re *messaging.RequestError
	var pe *panicError
	switch {
	case errors.As(err, &re), errors.As(err, &pe):
		return OutcomePoison
	case p.MapError != nil:
		if _, transient := p.MapError(err); transient {
			return OutcomeTransient
		}
	}
	return OutcomePoison
}

// requestJSON is body itself when it is JSON, else body as a JSON string.
func requestJSON(body []byte) json.RawMessage {
	if json.Valid(body) {
		return body
	}
	s, _ := json.Marshal(string(body))
	return s
}
