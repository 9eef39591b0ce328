package historyimage_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/messages"
)

// TestPreprocessProperties checks Preprocess against an independent model on random contexts: every
// message keeps its shape; in person's and tool messages older than the latest turn, except the last
// person's message, each inline image part, whatever its shape, becomes the placeholder of its data
// and nothing else changes; each distinct image is written
// once; the stats count what was replaced.
func TestPreprocessProperties(t *testing.T) {
	pool := []string{fakePNG(11, 64, 64, 300), fakePNG(12, 640, 480, 200), imgD}
	imageShapes := []func(data string) string{
		func(d string) string {
			return `{"type":"image_url","image_url":{"url":"data:image/png;base64,` + d + `"}}`
		},
		func(d string) string { return `{"type":"image_url","image_url":"data:image/png;base64,` + d + `"}` },
		func(d string) string {
			return `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + d + `"}}`
		},
		func(d string) string {
			return `{"type":"image","source_type":"base64","data":"` + d + `","mime_type":"image/png"}`
		},
		func(d string) string { return `{"type":"image","base64":"` + d + `","mime_type":"image/png"}` },
	}
	otherParts := []string{
		`{"type":"text","text":"hello"}`,
		`{"type":"image_url","image_url":{"url":"https://example.com/x.png"}}`,
		`{"type":"text","text":"[Picture:history_0123456789abcdef0123456789abcdef]"}`,
		`"a bare string part"`,
	}
	roles := []string{"human", "user", "ai", "assistant", "system", "tool"}
	bridges := []string{messages.Text(contracts.LocaleEN, messages.Bridge), messages.Text(contracts.LocaleZH, messages.Bridge)}

	rapid.Check(t, func(t *rapid.T) {
		type msg struct {
			role      string
			pair      bool
			text      *string  // string content, or
			parts     []string // input parts
			images    []string // data of each part that is an inline image, "" otherwise
			humanTurn bool
		}
		n := rapid.IntRange(0, 8).Draw(t, "messages")
		msgs := make([]msg, n)
		humanAt := make([]bool, n)
		for i := range msgs {
			m := &msgs[i]
			m.role = rapid.SampledFrom(roles).Draw(t, "role")
			m.pair = rapid.Bool().Draw(t, "pair")
			m.humanTurn = m.role == "human" || m.role == "user"
			if rapid.IntRange(0, 4).Draw(t, "string content") == 0 {
				s := rapid.StringMatching(`[a-z ]{0,10}`).Draw(t, "text")
				if (m.role == "ai" || m.role == "assistant") && rapid.Bool().Draw(t, "bridge sentence") {
					s = rapid.SampledFrom(bridges).Draw(t, "bridge")
				}
				m.text = &s
			} else {
				for range rapid.IntRange(0, 4).Draw(t, "parts") {
					if rapid.Bool().Draw(t, "image") {
						data := rapid.SampledFrom(pool).Draw(t, "data")
						m.parts = append(m.parts, rapid.SampledFrom(imageShapes).Draw(t, "shape")(data))
						m.images = append(m.images, data)
					} else {
						m.parts = append(m.parts, rapid.SampledFrom(otherParts).Draw(t, "other"))
						m.images = append(m.images, "")
					}
				}
			}
		}
		render := func(m msg, replace bool) string {
			content := ""
			if m.text != nil {
				content = fmt.Sprintf("%q", *m.text)
			} else {
				parts := make([]string, len(m.parts))
				for k, p := range m.parts {
					parts[k] = p
					if replace && m.images[k] != "" && m.images[k] != imgD {
						parts[k] = placeholderPart(m.images[k])
					}
				}
				content = "[" + strings.Join(parts, ",") + "]"
			}
			if m.pair {
				return fmt.Sprintf("[%q,%s]", m.role, content)
			}
			return fmt.Sprintf(`{"role":%q,"name":"n","content":%s}`, m.role, content)
		}
		// Turns: a person's message starts one, and so does the first message after the model's;
		// a tool message and the list-content user messages right after it (follow-ups) do not,
		// nor does the model's message that is a bridge: the worker's bridge sentence (an object
		// message) between a tool message or follow-up and an object user message with an
		// image_url part.
		turns := make([]int, len(msgs))
		bridgeAt := make([]bool, len(msgs))
		chatMedia := func(m msg) bool {
			return !m.pair && m.text == nil && slices.ContainsFunc(m.parts, func(p string) bool { return strings.HasPrefix(p, `{"type":"image_url"`) })
		}
		turn, fresh, latest, last := 0, true, 0, -1
		for i, m := range msgs {
			model := m.role == "ai" || m.role == "assistant"
			if model {
				bridgeAt[i] = !m.pair && m.text != nil && slices.Contains(bridges, *m.text) && i > 0 && i+1 < len(msgs) &&
					(msgs[i-1].role == "tool" || msgs[i-1].humanTurn && msgs[i-1].text == nil && !humanAt[i-1]) &&
					msgs[i+1].humanTurn && chatMedia(msgs[i+1])
				fresh = fresh || !bridgeAt[i]
				continue
			}
			human := m.humanTurn
			if human && i > 0 && m.text == nil {
				prev := msgs[i-1]
				if prev.role == "tool" || prev.humanTurn && prev.text == nil && !humanAt[i-1] || bridgeAt[i-1] {
					human = false
				}
			}
			humanAt[i] = human
			if fresh || human {
				turn, fresh = turn+1, false
			}
			turns[i], latest = turn, turn
			if human {
				last = i
			}
		}
		var in, want []string
		replaced, skipped, distinct := 0, 0, map[string]bool{}
		for i, m := range msgs {
			older := m.role != "ai" && m.role != "assistant" && m.role != "system" && turns[i] < latest && i != last
			in = append(in, render(m, false))
			want = append(want, render(m, older))
			if older {
				for _, d := range m.images {
					switch d {
					case "":
					case imgD: // text, not an image: left in place and counted
						skipped++
					default:
						replaced++
						distinct[d] = true
					}
				}
			}
		}
		input := "[" + strings.Join(in, ",") + "]"
		p := newMemPutter()
		out, stats, err := historyimage.Preprocess(t.Context(), json.RawMessage(input), p, nil)
		if err != nil {
			t.Fatalf("Preprocess: %v", err)
		}
		if got, wantOut := string(out), "["+strings.Join(want, ",")+"]"; got != wantOut {
			t.Fatalf("output differs from the model:\n got %s\nwant %s", got, wantOut)
		}
		if stats.ImagesReplaced != replaced || p.puts != len(distinct) || stats.PartsSkipped != skipped {
			t.Fatalf("replaced %d with %d writes, skipped %d; want %d with %d, skipped %d", stats.ImagesReplaced, p.puts, stats.PartsSkipped, replaced, len(distinct), skipped)
		}
		for d := range distinct {
			if p.images[md5hex(d)].Data != d {
				t.Fatalf("image %s not cached under its hash", md5hex(d))
			}
		}
	})
}
