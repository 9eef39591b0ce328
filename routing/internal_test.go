package routing

import "testing"

func TestHumanSize(t *testing.T) {
	tests := map[int64]string{
		-5: "0 B", 0: "0 B", 1023: "1023 B", 1024: "1.0 KB", 1536: "1.5 KB", 1258291: "1.2 MB",
		1<<20 - 1: "1.0 MB", 5 << 30: "5.0 GB", 1 << 62: "4.0 EB",
	}
	for n, want := range tests {
		if got := humanSize(n); got != want {
			t.Errorf("humanSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestLooksText(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		truncated bool
		want      bool
	}{
		{"empty", "", false, true},
		{"ascii with tabs and CRLF", "a\tb\r\nc\f", false, true},
		{"ansi escape", "\x1b[31mred\x1b[0m", false, true},
		{"bom and cjk", "\xef\xbb\xbf中文", false, true},
		{"nul", "a\x00b", false, false},
		{"bell", "a\ab", false, false},
		{"del", "a\x7fb", false, false},
		{"latin-1", "caf\xe9", false, false},
		{"cut rune, truncated", "ab\xe4\xb8", true, true},
		{"cut rune, whole", "ab\xe4\xb8", false, false},
		{"bad byte before the cut", "a\xffb\xe4", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := looksText([]byte(tt.in), tt.truncated); got != tt.want {
				t.Errorf("looksText(%q, %v) = %v, want %v", tt.in, tt.truncated, got, tt.want)
			}
		})
	}
}

func TestCapabilities(t *testing.T) {
	c := NewCapabilities(" Vision ", "file", "", "file")
	tests := map[string]bool{"vision": true, "VISION": true, "file": true, "text": true, "audio": false, "": false}
	for name, want := range tests {
		if got := c.Has(name); got != want {
			t.Errorf("Has(%q) = %v, want %v", name, got, want)
		}
	}
	if (Capabilities{}).Has("vision") || !(Capabilities{}).Has("text") {
		t.Error("zero Capabilities must hold text only")
	}
}
