package workspace

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"pgregory.net/rapid"

	"github.com/agentworks/artifact-worker/contracts"
)

// Generators.

var (
	genWorkspaceID = rapid.StringMatching(`[A-Za-z0-9_-]{1,128}`)

	// genNameRune draws runes that may appear inside one path segment: anything printable but the
	// separators, with extra weight on the interesting ones.
	genNameRune = rapid.OneOf(
		rapid.Rune().Filter(func(r rune) bool { return !unicode.IsControl(r) && r != '/' && r != '\\' }),
		rapid.SampledFrom([]rune{' ', '.', ':', '%', '=', '-', '_', '中', '文', '报', '告', '😀', 'é'}),
	)

	genSegment = rapid.OneOf(
		rapid.SampledFrom([]string{"", ".", "..", " ", "...", ".env", "a b", "文件", "报告 v2.md", "C:", "x:y"}),
		rapid.StringOfN(genNameRune, 1, 12, -1),
	)

	// genRawPath draws relative paths as an agent might send them: segments joined by '/' or '\',
	// with ".", ".." and empty segments, sometimes absolute.
	genRawPath = rapid.Custom(func(t *rapid.T) string {
		segs := rapid.SliceOfN(genSegment, 1, 8).Draw(t, "segments")
		var b strings.Builder
		for i, s := range segs {
			if i > 0 {
				b.WriteString(rapid.SampledFrom([]string{"/", `\`}).Draw(t, "sep"))
			}
			b.WriteString(s)
		}
		return b.String()
	})
)

type pathOutcome int

const (
	pathOK pathOutcome = iota
	pathTraversal
	pathInvalid
)

// modelClean is an independent model of CleanPath for inputs without control characters and
// within the length limits: a stack of segments.
func modelClean(p string) (string, pathOutcome) {
	s := strings.ReplaceAll(p, `\`, "/")
	if strings.HasPrefix(s, "/") || regexp.MustCompile(`^[A-Za-z]:`).MatchString(s) {
		return "", pathTraversal
	}
	var stack []string
	for _, seg := range strings.Split(s, "/") {
		switch seg {
		case "", ".":
		case "..":
			if len(stack) == 0 {
				return "", pathTraversal
			}
			stack = stack[:len(stack)-1]
		default:
			stack = append(stack, seg)
		}
	}
	if len(stack) == 0 {
		return "", pathInvalid
	}
	clean := strings.Join(stack, "/")
	if regexp.MustCompile(`^[A-Za-z]:`).MatchString(clean) {
		return "", pathTraversal
	}
	return clean, pathOK
}

// TestPropertyCleanPathModel checks CleanPath against the stack model: same result, same error class.
func TestPropertyCleanPathModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genRawPath.Draw(t, "path")
		want, outcome := modelClean(p)
		got, err := CleanPath(p)
		switch outcome {
		case pathOK:
			if err != nil || got != want {
				t.Fatalf("CleanPath(%q) = %q, %v; model says %q", p, got, err, want)
			}
		case pathTraversal:
			if !errors.Is(err, ErrPathTraversal) {
				t.Fatalf("CleanPath(%q) = %q, %v; model says traversal", p, got, err)
			}
		case pathInvalid:
			if !errors.Is(err, ErrInvalidPath) {
				t.Fatalf("CleanPath(%q) = %q, %v; model says invalid", p, got, err)
			}
		}
	})
}

// Property 1: every ID starts with "ws:{workspaceID}:".
func TestProperty1Prefix(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ws := genWorkspaceID.Draw(t, "ws")
		p := genRawPath.Draw(t, "path")
		id, err := EncodeID(ws, p)
		if err != nil {
			t.Skip("path rejected:", err)
		}
		if !strings.HasPrefix(id, "ws:"+ws+":") {
			t.Fatalf("EncodeID(%q, %q) = %q, want prefix ws:%s:", ws, p, id, ws)
		}
	})
}

// Property 2: decode(encode(ws, p)) == (ws, CleanPath(p)) for any valid path, and encoding the clean
// path gives the same ID.
func TestProperty2RoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ws := genWorkspaceID.Draw(t, "ws")
		p := genRawPath.Draw(t, "path")
		clean, cerr := CleanPath(p)
		id, err := EncodeID(ws, p)
		if (err == nil) != (cerr == nil) || errors.Is(err, ErrPathTraversal) != errors.Is(cerr, ErrPathTraversal) {
			t.Fatalf("EncodeID(%q, %q) error %v, CleanPath error %v", ws, p, err, cerr)
		}
		if err != nil {
			t.Skip("path rejected:", err)
		}
		gotWS, gotPath, err := DecodeID(id)
		if err != nil || gotWS != ws || gotPath != clean {
			t.Fatalf("DecodeID(EncodeID(%q, %q) = %q) = %q, %q, %v; want %q, %q", ws, p, id, gotWS, gotPath, err, ws, clean)
		}
		if id2, _ := EncodeID(ws, clean); id2 != id {
			t.Fatalf("EncodeID(%q, %q) = %q, but the clean path encodes to %q", ws, p, id, id2)
		}
	})
}

// Property 2, arbitrary Unicode: any valid UTF-8 file name without separators or controls round-trips
// unchanged.
func TestProperty2RoundTripUnicode(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ws := genWorkspaceID.Draw(t, "ws")
		name := rapid.StringOfN(genNameRune, 1, 40, -1).Draw(t, "name")
		dir := rapid.StringOfN(genNameRune, 1, 20, -1).Draw(t, "dir")
		p := dir + "/" + name
		if want, outcome := modelClean(p); outcome != pathOK || want != p {
			t.Skip("not a clean path (\".\", \"..\" or a drive letter):", p)
		}
		id, err := EncodeID(ws, p)
		if err != nil {
			t.Fatalf("EncodeID(%q, %q): %v", ws, p, err)
		}
		gotWS, gotPath, err := DecodeID(id)
		if err != nil || gotWS != ws || gotPath != p {
			t.Fatalf("DecodeID(%q) = %q, %q, %v; want %q, %q", id, gotWS, gotPath, err, ws, p)
		}
	})
}

var safeID = regexp.MustCompile(`^ws:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+$`)

// Property 3: IDs contain only [A-Za-z0-9_:-], with exactly two ':'.
func TestProperty3SafeCharacters(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ws := genWorkspaceID.Draw(t, "ws")
		p := genRawPath.Draw(t, "path")
		id, err := EncodeID(ws, p)
		if err != nil {
			t.Skip("path rejected:", err)
		}
		if !safeID.MatchString(id) {
			t.Fatalf("EncodeID(%q, %q) = %q has unsafe characters", ws, p, id)
		}
	})
}

// Property 4: encoded IDs are recognised as workspace IDs; artifact references and bare ids are not.
func TestProperty4TypeRecognition(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ws := genWorkspaceID.Draw(t, "ws")
		p := genRawPath.Draw(t, "path")
		if id, err := EncodeID(ws, p); err == nil {
			if _, _, err := DecodeID(id); err != nil {
				t.Fatalf("DecodeID(%q) = %v for an encoded ID", id, err)
			}
		}
		bare := rapid.OneOf(
			rapid.StringMatching(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`),
			rapid.StringMatching(`[A-Za-z0-9_-]{1,40}`),
		).Draw(t, "bare")
		if _, _, err := DecodeID(bare); !errors.Is(err, ErrNotWorkspaceID) {
			t.Fatalf("DecodeID(%q) = %v, want ErrNotWorkspaceID for a bare artifact id", bare, err)
		}
		if _, _, err := DecodeID("artifact:" + bare); !errors.Is(err, ErrNotWorkspaceID) {
			t.Fatalf("DecodeID(artifact:%s) = %v, want ErrNotWorkspaceID", bare, err)
		}
	})
}

// Property 5: invalid input yields a documented error and never a panic; whatever is accepted is a
// clean path inside a valid workspace.
func TestProperty5InvalidInput(t *testing.T) {
	t.Run("arbitrary strings", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			s := rapid.OneOf(rapid.String(), rapid.Map(rapid.String(), func(s string) string { return "ws:" + s })).Draw(t, "s")
			checkDecodeAny(t, s)
		})
	})
	t.Run("mutated valid IDs", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			id, err := EncodeID(genWorkspaceID.Draw(t, "ws"), genRawPath.Draw(t, "path"))
			if err != nil {
				t.Skip("path rejected:", err)
			}
			i := rapid.IntRange(0, len(id)).Draw(t, "at")
			switch rapid.IntRange(0, 3).Draw(t, "mutation") {
			case 0:
				id = id[:i] + string(rapid.SampledFrom([]rune{':', '=', '+', '/', '\n', ' ', 'A', '\x00', 'é'}).Draw(t, "insert")) + id[i:]
			case 1:
				id = id[:i]
			case 2:
				id += "="
			case 3:
				if i < len(id) {
					id = id[:i] + id[i+1:]
				}
			}
			checkDecodeAny(t, id)
		})
	})
	t.Run("arbitrary bytes as path", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			ws := genWorkspaceID.Draw(t, "ws")
			raw := rapid.SliceOfN(rapid.Byte(), 1, 64).Draw(t, "raw")
			id := "ws:" + ws + ":" + b64(string(raw))
			_, _, err := DecodeID(id)
			if !utf8.Valid(raw) && !errors.Is(err, ErrNotWorkspaceID) {
				t.Fatalf("DecodeID of non-UTF-8 path %q = %v, want ErrNotWorkspaceID", raw, err)
			}
			checkDecodeAny(t, id)
		})
	})
	t.Run("escaping paths inside IDs", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			ws := genWorkspaceID.Draw(t, "ws")
			p := genRawPath.Draw(t, "path")
			if _, outcome := modelClean(p); outcome != pathTraversal {
				depth := strings.Count(strings.ReplaceAll(p, `\`, "/"), "/") + 1
				p += strings.Repeat(rapid.SampledFrom([]string{"/..", `\..`}).Draw(t, "up"), depth+1) + "/b/secret"
			}
			gotWS, gotPath, err := DecodeID("ws:" + ws + ":" + b64(p))
			if !errors.Is(err, ErrPathTraversal) {
				t.Fatalf("DecodeID of escaping path %q = %q, %q, %v; want ErrPathTraversal", p, gotWS, gotPath, err)
			}
		})
	})
}

// checkDecodeAny asserts the contract of DecodeID on any input.
func checkDecodeAny(t *rapid.T, id string) {
	ws, p, err := DecodeID(id)
	if err != nil {
		if !errors.Is(err, ErrNotWorkspaceID) && !errors.Is(err, ErrPathTraversal) && !errors.Is(err, ErrInvalidPath) {
			t.Fatalf("DecodeID(%q): undocumented error %v", id, err)
		}
		if !strings.HasPrefix(id, IDPrefix) && !errors.Is(err, ErrNotWorkspaceID) {
			t.Fatalf("DecodeID(%q) = %v; want ErrNotWorkspaceID without the prefix", id, err)
		}
		if ws != "" || p != "" {
			t.Fatalf("DecodeID(%q) returned %q, %q with its error", id, ws, p)
		}
		return
	}
	checkDecoded(t, id, ws, p)
}

// Property 6: the object key is the workspace root plus the clean path and never leaves it.
func TestProperty6ObjectKey(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ws := genWorkspaceID.Draw(t, "ws")
		p := rapid.OneOf(genRawPath, rapid.String()).Draw(t, "path")
		clean, err := CleanPath(p)
		if err != nil {
			t.Skip("path rejected:", err)
		}
		checkObjectKey(t, ws, clean)
	})
}

var kvKey = regexp.MustCompile(`^[-/_=.a-zA-Z0-9]+$`)

// The metadata key of any valid file is a valid KV key of bounded length.
func TestPropertyMetaKey(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ws := genWorkspaceID.Draw(t, "ws")
		clean, err := CleanPath(rapid.OneOf(genRawPath, rapid.String()).Draw(t, "path"))
		if err != nil {
			t.Skip("path rejected:", err)
		}
		k := metaKey(ws, clean)
		if !kvKey.MatchString(k) || strings.HasPrefix(k, ".") || strings.HasSuffix(k, ".") || strings.Contains(k, "..") || len(k) > MaxWorkspaceIDLen+65 {
			t.Fatalf("metaKey(%q, %q) = %q is not a valid KV key", ws, clean, k)
		}
	})
}

// Recording the same writes in any order converges to the same metadata (apart from CreatedAt,
// which the first recorded write sets): the latest write wins and the most recent N are kept.
// Timestamps are drawn from a small range, so that many writes tie (same millisecond, as clients
// with coarse clocks send): ties are ordered by request, message and agent ID.
func TestPropertyApplyConverges(t *testing.T) {
	base := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	rapid.Check(t, func(t *rapid.T) {
		offsets := rapid.SliceOfN(rapid.IntRange(0, rapid.SampledFrom([]int{3, 10_000}).Draw(t, "spread")), 1, 30).Draw(t, "offsets")
		maxN := rapid.IntRange(1, 10).Draw(t, "max")
		writes := make([]write, len(offsets))
		for i, o := range offsets {
			writes[i] = write{
				mime: rapid.SampledFrom([]string{"text/plain", "image/png", "application/pdf"}).Draw(t, "mime"),
				mod: contracts.Modification{AgentID: rapid.SampledFrom([]string{"agent", "other"}).Draw(t, "agent"), MessageID: fmt.Sprint(i),
					RequestID: rapid.SampledFrom([]string{"", "r1", "r2"}).Draw(t, "request"), Timestamp: base.Add(time.Duration(o) * time.Millisecond)},
			}
		}
		record := func(ws []write) FileMeta {
			m := newMeta(ws[0].mime, 0, ws[0].mod)
			for _, w := range ws[1:] {
				m = apply(m, w.mime, 0, w.mod, maxN)
			}
			return m
		}
		shuffled := rapid.Permutation(writes).Draw(t, "order")
		got := record(shuffled)

		byTime := slices.Clone(writes)
		slices.SortFunc(byTime, func(a, b write) int { return compareWrites(a.mod, b.mod) })
		want := record(byTime)
		if !got.UpdatedAt.Equal(byTime[len(byTime)-1].mod.Timestamp) {
			t.Fatalf("UpdatedAt %v, want the latest timestamp %v", got.UpdatedAt, byTime[len(byTime)-1].mod.Timestamp)
		}
		if !got.CreatedAt.Equal(shuffled[0].mod.Timestamp) {
			t.Fatalf("CreatedAt %v, want the first recorded write %v", got.CreatedAt, shuffled[0].mod.Timestamp)
		}
		if got.MimeType != want.MimeType {
			t.Fatalf("MimeType %q, want %q (in timestamp order)", got.MimeType, want.MimeType)
		}
		if !equalMods(got.ModifiedBy, want.ModifiedBy) {
			t.Fatalf("ModifiedBy %v, want %v", got.ModifiedBy, want.ModifiedBy)
		}
		if n := min(maxN, len(writes)); len(got.ModifiedBy) != n || !equalMods(got.ModifiedBy, modsOf(byTime[len(byTime)-n:])) {
			t.Fatalf("ModifiedBy %v, want the %d most recent", got.ModifiedBy, n)
		}
	})
}

type write struct {
	mime string
	mod  contracts.Modification
}

func modsOf(ws []write) []contracts.Modification {
	mods := make([]contracts.Modification, len(ws))
	for i, w := range ws {
		mods[i] = w.mod
	}
	return mods
}

// equalMods compares modifications with time.Time.Equal.
func equalMods(a, b []contracts.Modification) bool {
	return slices.EqualFunc(a, b, func(x, y contracts.Modification) bool {
		return x.AgentID == y.AgentID && x.MessageID == y.MessageID && x.Timestamp.Equal(y.Timestamp)
	})
}
