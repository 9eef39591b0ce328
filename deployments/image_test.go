package deployments

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// finalStage returns the instructions of a Dockerfile's last stage (from its FROM on), with
// continuation lines joined and comments dropped.
func finalStage(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	cur := ""
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if rest, ok := strings.CutSuffix(l, `\`); ok {
			cur += rest + " "
			continue
		}
		lines = append(lines, strings.Join(strings.Fields(cur+l), " "))
		cur = ""
	}
	last := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "FROM ") {
			last = i
		}
	}
	return lines[last:]
}

var copyDest = regexp.MustCompile(`^COPY (?:--\S+ )*\S+ (\S+)$`)

// The image built from source (Dockerfile) and the one from a prebuilt binary (Dockerfile.prebuilt,
// `make image`, checked by running it in `make image-check`) are the same image: a scratch final
// stage with the same files at the same places, owners, settings, port, user and entrypoint.
func TestDockerfilesBuildTheSameImage(t *testing.T) {
	src, pre := finalStage(t, dockerfile), finalStage(t, "Dockerfile.prebuilt")
	summary := func(stage []string) []string {
		var out []string
		for _, l := range stage {
			if m := copyDest.FindStringSubmatch(l); m != nil {
				owner := ""
				if i := strings.Index(l, "--chown="); i >= 0 {
					owner = strings.Fields(l[i:])[0]
				}
				out = append(out, "COPY "+owner+" "+m[1])
				continue
			}
			out = append(out, l)
		}
		slices.Sort(out)
		return out
	}
	if a, b := summary(src), summary(pre); !slices.Equal(a, b) {
		t.Errorf("the final stages differ:\n%s: %q\nDockerfile.prebuilt: %q", dockerfile, a, b)
	}
	if src[0] != "FROM scratch" || pre[0] != "FROM scratch" {
		t.Errorf("final stages start %q and %q, want FROM scratch", src[0], pre[0])
	}
}
