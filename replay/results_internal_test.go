package replay

import "testing"

func TestCanonicalJSON(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		same bool
	}{
		{"key order and space", `{"b":1, "a":{"y":[1,2],"x":"<&>"}}`, `{"a":{"x":"\u003c\u0026\u003e","y":[1, 2]},"b":1}`, true},
		{"numbers kept as written", `{"n":1.0}`, `{"n":1}`, false},
		{"array order matters", `[1,2]`, `[2,1]`, false},
		{"one value changed", `{"ok":true,"result":{"size":3}}`, `{"ok":true,"result":{"size":4}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := canonicalJSON([]byte(tt.a))
			if err != nil {
				t.Fatal(err)
			}
			b, err := canonicalJSON([]byte(tt.b))
			if err != nil {
				t.Fatal(err)
			}
			if (string(a) == string(b)) != tt.same {
				t.Fatalf("canonical %s vs %s: same = %v, want %v", a, b, !tt.same, tt.same)
			}
		})
	}
	for _, bad := range []string{``, `{`, `{} {}`} {
		if _, err := canonicalJSON([]byte(bad)); err == nil {
			t.Errorf("canonicalJSON(%q) accepted invalid JSON", bad)
		}
	}
}
