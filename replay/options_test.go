package replay_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/replay"
)

func TestOptionsValidate(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name string
		opts replay.Options
		want []string // substrings of the error; none: valid
	}{
		{name: "zero value replays everything", opts: replay.Options{}},
		{name: "full", opts: replay.Options{Subjects: []string{"tool.get_artifact"}, StartSeq: 3, EndSeq: 3, Limit: 5, PublishTo: "replay.out", Results: true}},
		{name: "times", opts: replay.Options{StartTime: now.Add(-time.Hour), EndTime: now}},
		{name: "both starts", opts: replay.Options{StartSeq: 1, StartTime: now}, want: []string{"StartSeq and StartTime"}},
		{name: "end seq before start", opts: replay.Options{StartSeq: 5, EndSeq: 4}, want: []string{"EndSeq 4"}},
		{name: "end time before start", opts: replay.Options{StartTime: now, EndTime: now.Add(-time.Second)}, want: []string{"EndTime"}},
		{name: "end time equals start", opts: replay.Options{StartTime: now, EndTime: now}, want: []string{"EndTime"}},
		{name: "negative limit", opts: replay.Options{Limit: -1}, want: []string{"Limit -1"}},
		{name: "wildcard publish subject", opts: replay.Options{PublishTo: "replay.*"}, want: []string{"PublishTo"}},
		// The subjects a reply may not go to (messaging.ValidReplySubject): stored as requests, dead
		// letters or replay results, or system subjects.
		{name: "publish to a request subject", opts: replay.Options{PublishTo: "tool.get_artifact"}, want: []string{"PublishTo"}},
		{name: "publish to the dead letters", opts: replay.Options{PublishTo: "deadletter.tool.get_artifact"}, want: []string{"PublishTo"}},
		{name: "publish to the replay results", opts: replay.Options{PublishTo: replay.ResultsSubjectPrefix + "WORKER_REQUESTS.1"}, want: []string{"PublishTo"}},
		{name: "publish to a system subject", opts: replay.Options{PublishTo: "$JS.API.INFO"}, want: []string{"PublishTo"}},
		{name: "bad subjects", opts: replay.Options{Subjects: []string{"tool.>", "a..b", ""}}, want: []string{"Subjects[0]", "Subjects[1]", "Subjects[2]"}},
		{name: "bad results stream", opts: replay.Options{ResultsStream: "a.b"}, want: []string{"ResultsStream"}},
		{name: "every bad field at once", opts: replay.Options{StartSeq: 9, StartTime: now, EndSeq: 2, Limit: -3, PublishTo: "x y", Timeout: -1, ProgressEvery: -1},
			want: []string{"StartSeq and StartTime", "EndSeq 2", "Limit -3", "PublishTo", "Timeout", "ProgressEvery"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want an error naming %v", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
}
