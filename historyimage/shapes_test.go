package historyimage_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/dialects"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/internal/testing/agentsession"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/routing"
)

// A session in one dialect's shape sent as another dialect is an *InvalidContextError naming the
// JSON path, never rewritten; only the shapes a dialect really takes pass: its own, and in the
// LangChain dialects the OpenAI chat and Anthropic message dicts LangChain reads.
func TestPreprocessRejectsAnotherDialectsSession(t *testing.T) {
	shots := screenshots(3)
	takes := func(target, source string) bool {
		lc := []string{contracts.DialectLangChain, contracts.DialectLangChainJS}
		return target == source || slices.Contains(lc, target) &&
			slices.Contains(append(lc, contracts.DialectOpenAIChat, contracts.DialectAnthropic), source)
	}
	for _, v := range variants {
		in := agentsession.Build(agentsession.Session{Dialect: v.dialect, ToolResultMedia: v.toolResultMedia, StrictToolOrdering: v.strict,
			Task: "Fill in the form.", Turns: len(shots), Media: func(i int) agentsession.Media {
				return agentsession.Media{MIME: "image/png", Base64: shots[i]}
			}})
		for _, target := range contracts.Dialects {
			t.Run(fmt.Sprintf("%s/%s/strict=%v as %s", v.dialect, v.toolResultMedia, v.strict, target), func(t *testing.T) {
				p := newMemPutter()
				out, rep, err := historyimage.PreprocessWith(t.Context(), in, p, historyimage.Options{Dialect: target, KeepTurns: 1})
				if takes(target, v.dialect) {
					if err != nil || rep.Stats.ImagesReplaced != len(shots)-1 {
						t.Fatalf("error %v, stats %+v; want the session taken", err, rep.Stats)
					}
					return
				}
				var ice *historyimage.InvalidContextError
				if !errors.As(err, &ice) || !strings.HasPrefix(ice.Problem, "messages[") {
					t.Fatalf("error = %v (%d bytes out, %+v), want an invalid context naming the path", err, len(out), rep.Stats)
				}
				if p.puts != 0 {
					t.Errorf("%d media cached for a rejected context", p.puts)
				}
				t.Log(ice.Problem)
			})
		}
	}
}

// The case, with the reason: a Gemini session sent as anthropic.
func TestPreprocessGeminiSessionAsAnthropic(t *testing.T) {
	in := agentsession.Build(agentsession.Session{Dialect: contracts.DialectGemini, Task: "go", Turns: 2,
		Media: func(i int) agentsession.Media {
			return agentsession.Media{MIME: "image/png", Base64: screenshots(2)[i]}
		}})
	_, _, err := historyimage.PreprocessWith(t.Context(), in, newMemPutter(), historyimage.Options{Dialect: contracts.DialectAnthropic, KeepTurns: 1})
	var ice *historyimage.InvalidContextError
	if !errors.As(err, &ice) || ice.Problem != "messages[0].parts: in anthropic, a message holds its parts in content" {
		t.Fatalf("error = %v", err)
	}
}

// Parts of another dialect, roles a dialect does not have, and LangChain types that are no
// message's are not in the dialect's shape.
func TestPreprocessDialectPartsAndRoles(t *testing.T) {
	img := `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}`
	tests := []struct{ dialect, in, problem string }{
		{contracts.DialectOpenAIChat, `[{"role":"user","content":[` + img + `]}]`, `messages[0].content[0] is a "image" part, which openai-chat does not have`},
		{contracts.DialectOpenAIResponses, `[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]`, `messages[0].content[0] is a "image_url" part, which openai-responses does not have`},
		{contracts.DialectAnthropic, `[{"role":"user","content":[{"inlineData":{"mimeType":"image/png","data":"AAAA"}}]}]`, "messages[0].content[0] has no type: in anthropic, a content part is an object with a type"},
		{contracts.DialectAnthropic, `[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"},{"text":"x"}]}]}]`, "messages[0].content[0].content[1] has no type"},
		{contracts.DialectAnthropic, `[{"role":"tool","content":"x"}]`, `messages[0].role is "tool": in anthropic, a message's role is one of user, assistant`},
		{contracts.DialectGemini, `[{"role":"assistant","parts":[{"text":"x"}]}]`, `messages[0].role is "assistant": in gemini, a message's role is one of user, model, function`},
		{contracts.DialectGemini, `[{"role":"user","parts":[` + img + `]}]`, "messages[0].parts[0] has a type: in gemini, a part is named by its member"},
		{contracts.DialectGemini, `[{"role":"user","parts":[{"functionResponse":{"name":"f","response":{},"parts":[{"type":"text","text":"x"}]}}]}]`, "messages[0].parts[0].functionResponse.parts[0] has a type"},
		{contracts.DialectBedrockConverse, `[{"role":"user","content":[{"toolResult":{"toolUseId":"t","content":[` + img + `]}}]}]`, "messages[0].content[0].toolResult.content[0] has a type"},
		{contracts.DialectBedrockConverse, `[{"role":"user","parts":[{"text":"x"}]}]`, "messages[0].parts: in bedrock-converse, a message holds its parts in content"},
		{contracts.DialectLangChain, `[{"type":"function_call_output","call_id":"c","output":"x"}]`, `messages[0]: "function_call_output" is no LangChain message type or role`},
		{contracts.DialectLangChainJS, `[{"role":"user","content":[{"text":"x"}]}]`, "messages[0].content[0] has no type: in langchain-js, a content part is an object with a type"},
		{contracts.DialectLangChain, `[{"type":"human","data":{"content":[{"text":"x"}]}}]`, "messages[0].data.content[0] has no type"},
	}
	for _, tt := range tests {
		t.Run(tt.dialect+"/"+tt.problem, func(t *testing.T) {
			_, _, err := historyimage.PreprocessWith(t.Context(), json.RawMessage(tt.in), newMemPutter(), historyimage.Options{Dialect: tt.dialect, KeepTurns: 1})
			var ice *historyimage.InvalidContextError
			if !errors.As(err, &ice) || !strings.HasPrefix(ice.Problem, tt.problem) {
				t.Errorf("error = %v, want one starting %q", err, tt.problem)
			}
		})
	}
}

// LangChain's two stored forms of a message, in both LangChain dialects: its message store's
// {"type","data"} (message_to_dict; LangChain.js's mapChatMessagesToStoredMessages) and dumpd's
// serialized constructor {"lc","type","id","kwargs"} (LangChain.js's toJSON). Their media are
// found, and the reply keeps the form: the stored session preprocessed is the preprocessed
// session stored.
func TestPreprocessLangChainStoredForms(t *testing.T) {
	shots := screenshots(3)
	for _, dialect := range []string{contracts.DialectLangChain, contracts.DialectLangChainJS} {
		in := agentsession.Build(agentsession.Session{Dialect: dialect, Task: "Fill in the form.", Turns: len(shots),
			Media: func(i int) agentsession.Media { return agentsession.Media{MIME: "image/png", Base64: shots[i]} }})
		plain, want, err := historyimage.PreprocessWith(t.Context(), in, newMemPutter(), historyimage.Options{Dialect: dialect, KeepTurns: 1})
		if err != nil || want.Stats.ImagesReplaced != len(shots)-1 {
			t.Fatalf("%s: plain session: %v, %+v", dialect, err, want.Stats)
		}
		for _, form := range []string{"store", "dumpd"} {
			t.Run(dialect+"/"+form, func(t *testing.T) {
				stored := storeLangChain(t, in, form)
				p := newMemPutter()
				out, rep, err := historyimage.PreprocessWith(t.Context(), stored, p, historyimage.Options{Dialect: dialect, KeepTurns: 1})
				if err != nil {
					t.Fatal(err)
				}
				if rep.Stats != want.Stats || p.puts != len(shots)-1 {
					t.Fatalf("stats %+v, %d cached; the plain session's %+v", rep.Stats, p.puts, want.Stats)
				}
				if wantOut := storeLangChain(t, plain, form); string(out) != string(wantOut) {
					t.Errorf("output is not the preprocessed session in the %s form:\n got %.400s\nwant %.400s", form, out, wantOut)
				}
				// Without a dialect, the same.
				if any, _, err := historyimage.PreprocessWith(t.Context(), stored, newMemPutter(), historyimage.Options{KeepTurns: 1}); err != nil || string(any) != string(out) {
					t.Errorf("without a dialect: %v, same output %v", err, string(any) == string(out))
				}
			})
		}
	}
}

// storeLangChain writes each message of a LangChain session ([role, content] pairs and
// {"role",...} dicts) in one of LangChain's stored forms, as its serializers write them.
func storeLangChain(t *testing.T, session json.RawMessage, form string) json.RawMessage {
	t.Helper()
	var msgs []json.RawMessage
	if err := json.Unmarshal(session, &msgs); err != nil {
		t.Fatal(err)
	}
	types := map[string]string{"human": "human", "user": "human", "assistant": "ai", "ai": "ai", "tool": "tool", "system": "system"}
	classes := map[string]string{"human": "HumanMessage", "ai": "AIMessage", "tool": "ToolMessage", "system": "SystemMessage"}
	out := make([]string, len(msgs))
	for i, raw := range msgs {
		var role string
		var content json.RawMessage
		fields := map[string]json.RawMessage{}
		if raw[0] == '[' {
			var pair []json.RawMessage
			if err := json.Unmarshal(raw, &pair); err != nil {
				t.Fatal(err)
			}
			_ = json.Unmarshal(pair[0], &role)
			content = pair[1]
		} else {
			if err := json.Unmarshal(raw, &fields); err != nil {
				t.Fatal(err)
			}
			_ = json.Unmarshal(fields["role"], &role)
			content = fields["content"]
		}
		typ := types[role]
		if typ == "" {
			t.Fatalf("message %d: role %q", i, role)
		}
		// The members in LangChain's order: content first, then the rest, then type.
		data := `{"content":` + string(content) + `,"additional_kwargs":{},"response_metadata":{}`
		for _, k := range []string{"tool_call_id", "tool_calls"} {
			if v, ok := fields[k]; ok {
				data += `,"` + k + `":` + string(v)
			}
		}
		data += `,"type":"` + typ + `","name":null,"id":null}`
		switch form {
		case "store":
			out[i] = `{"type":"` + typ + `","data":` + data + `}`
		default:
			out[i] = `{"lc":1,"type":"constructor","id":["langchain","schema","messages","` + classes[typ] + `"],"kwargs":` + data + `}`
		}
	}
	return json.RawMessage("[" + strings.Join(out, ",\n") + "]")
}

// Every medium counts toward the request's limits, also one too large to be cached: when those
// alone break a limit, taking other media out cannot help, nothing is taken out, and each is
// reported in over_limits; when they do not, the kept media are taken out as far as needed.
func TestPreprocessCountsMediaItCannotTakeOut(t *testing.T) {
	const maxPart = 3000
	big := []string{fakePNG(1, 800, 600, 4000), fakePNG(2, 800, 600, 4000)} // over maxPart: never cached
	kept := fakePNG(3, 300, 200, 2000)
	stuck := int64(len(big[0]) + len(big[1]))
	for _, v := range variants {
		in := agentsession.Build(agentsession.Session{Dialect: v.dialect, ToolResultMedia: v.toolResultMedia, StrictToolOrdering: v.strict,
			Task: "Fill in the form.", Turns: 3, Media: func(i int) agentsession.Media {
				return agentsession.Media{MIME: "image/png", Base64: append(big, kept)[i]}
			}})
		t.Run(fmt.Sprintf("%s/%s/strict=%v", v.dialect, v.toolResultMedia, v.strict), func(t *testing.T) {
			// The two large ones alone are over: reported, and the kept one stays.
			limit := stuck - 1
			out, rep, err := historyimage.PreprocessWith(t.Context(), in, newMemPutter(), historyimage.Options{Dialect: v.dialect, KeepTurns: 1,
				MaxPartBytes: maxPart, Limits: contracts.RequestLimits{MaxBytes: limit}})
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("left in (4000 bytes, over the limit of %d): the request's media are %d bytes of base64, over the provider's %d",
				maxPart, stuck+int64(len(kept)), limit)
			if len(rep.OverLimits) != 2 || rep.Stats.MediaOverLimits != 0 || len(rep.LeftAlone) != 2 {
				t.Fatalf("over limits %+v, left alone %+v, stats %+v", rep.OverLimits, rep.LeftAlone, rep.Stats)
			}
			for i, o := range rep.OverLimits {
				if o.Reason != want || o.Path != rep.LeftAlone[i].Path {
					t.Errorf("over_limits[%d] = %+v, want %q at %s", i, o, want, rep.LeftAlone[i].Path)
				}
			}
			if !strings.Contains(string(out), kept) {
				t.Error("the kept medium was taken out although that cannot bring the request within the limit")
			}

			// The large ones fit, the kept one is one too many: it is taken out.
			limit = stuck + int64(len(kept)) - 1
			out, rep, err = historyimage.PreprocessWith(t.Context(), in, newMemPutter(), historyimage.Options{Dialect: v.dialect, KeepTurns: 1,
				MaxPartBytes: maxPart, Limits: contracts.RequestLimits{MaxBytes: limit}})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.OverLimits) != 1 || rep.Stats.MediaOverLimits != 1 || !strings.HasPrefix(rep.OverLimits[0].Reason, "taken out: the request's media would be") ||
				strings.Contains(string(out), kept) {
				t.Errorf("over limits %+v, stats %+v", rep.OverLimits, rep.Stats)
			}
		})
	}
}

// A medium taken out for a limit whose cache write fails stays: the reply says it was left in.
func TestPreprocessOverLimitsCacheFailure(t *testing.T) {
	shots := screenshots(2)
	in := agentsession.Build(agentsession.Session{Dialect: contracts.DialectAnthropic, Task: "go", Turns: 2,
		Media: func(i int) agentsession.Media { return agentsession.Media{MIME: "image/png", Base64: shots[i]} }})
	p := newMemPutter()
	p.fail = func(string) bool { return true }
	_, rep, err := historyimage.PreprocessWith(t.Context(), in, p, historyimage.Options{Dialect: contracts.DialectAnthropic, KeepTurns: 5,
		Limits: contracts.RequestLimits{MaxImages: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.OverLimits) != 1 || rep.Stats.MediaOverLimits != 0 ||
		rep.OverLimits[0].Reason != "left in (its cache write failed): the request carries 2 images, over the provider's 1" {
		t.Errorf("over limits %+v, stats %+v", rep.OverLimits, rep.Stats)
	}
}

// tokens_saved_estimate follows the target's provider: the same session saves what OpenAI's
// tiles, Anthropic's pixels and Gemini's tiles charge for its images, less the placeholders' text;
// for a target that cannot read images, what they would have cost less the descriptions.
func TestPreprocessTokensFollowTheTargetsProvider(t *testing.T) {
	const w, h = 1920, 1080
	shots := []string{
		base64.StdEncoding.EncodeToString(testfiles.Screenshot(w, h, 1)),
		base64.StdEncoding.EncodeToString(testfiles.Screenshot(w, h, 2)),
	}
	placeholderText := int64(len(`[Picture:history_0123456789abcdef0123456789abcdef]`)+3) / 4
	for _, d := range dialects.All() {
		t.Run(d.Name, func(t *testing.T) {
			in := agentsession.Build(agentsession.Session{Dialect: d.Name, ToolResultMedia: routing.ToolResultMediaFollowUp, Task: "go", Turns: 2,
				Media: func(i int) agentsession.Media { return agentsession.Media{MIME: "image/png", Base64: shots[i]} }})
			seen := map[int64]string{}
			for _, rule := range routing.TokenRules {
				cost := routing.ImageTokens(w, h, rule)
				opts := historyimage.Options{Dialect: d.Name, KeepTurns: 1, ImageTokens: func(w, h int) int64 { return routing.ImageTokens(w, h, rule) }}
				_, rep, err := historyimage.PreprocessWith(t.Context(), in, newMemPutter(), opts)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := rep.Stats.TokensSavedEstimate, cost-placeholderText; got != want {
					t.Errorf("%s: saved %d, want %d", rule, got, want)
				}
				seen[rep.Stats.TokensSavedEstimate] = rule

				// A text-only target: both images described; each would have cost the same.
				var texts int64
				opts.Readable = func(string) bool { return false }
				opts.Describe = func(x historyimage.Described) string {
					s := routing.DescribeHistoryMedia("en", x.Placeholder, x.Filename, x.MIME, x.Size)
					texts += routing.TextUsage(s).InputTokens
					return s
				}
				_, rep, err = historyimage.PreprocessWith(t.Context(), in, newMemPutter(), opts)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := rep.Stats.TokensSavedEstimate, 2*cost-texts; rep.Stats.MediaDescribed != 2 || got != want || got <= 0 {
					t.Errorf("%s, text-only target: saved %d, want %d (%+v)", rule, got, want, rep.Stats)
				}
			}
			if len(seen) != len(routing.TokenRules) {
				t.Errorf("the rules gave %v: not one estimate each", seen)
			}
		})
	}
}

// Each limit is met by taking out the oldest medium that counts toward it: an image for the image
// count, then the older PDF (not the latest image) for the bytes.
func TestPreprocessMeetsEachLimitWithTheOldestThatCounts(t *testing.T) {
	media := []agentsession.Media{
		{MIME: "application/pdf", Base64: base64.StdEncoding.EncodeToString(testfiles.PDF()), Filename: "report.pdf"},
		{MIME: "image/png", Base64: base64.StdEncoding.EncodeToString(testfiles.PNG(20, 10))},
		{MIME: "image/png", Base64: base64.StdEncoding.EncodeToString(testfiles.PNG(21, 10))},
	}
	in := agentsession.Build(agentsession.Session{Dialect: contracts.DialectAnthropic, Task: "go", Turns: len(media),
		Media: func(i int) agentsession.Media { return media[i] }})
	limits := contracts.RequestLimits{MaxImages: 1, MaxBytes: int64(len(media[0].Base64)+len(media[2].Base64)) - 1}
	out, rep, err := historyimage.PreprocessWith(t.Context(), in, newMemPutter(), historyimage.Options{Dialect: contracts.DialectAnthropic, KeepTurns: 100, Limits: limits})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{false, false, true} {
		if got := strings.Contains(string(out), media[i].Base64); got != want {
			t.Errorf("medium %d in the output: %v, want %v (over limits %+v)", i, got, want, rep.OverLimits)
		}
	}
	if len(rep.OverLimits) != 2 || !strings.Contains(rep.OverLimits[0].Reason, "2 images") || !strings.Contains(rep.OverLimits[1].Reason, "media would be") {
		t.Errorf("over limits %+v", rep.OverLimits)
	}
}
