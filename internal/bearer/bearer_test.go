package bearer

import "testing"

func TestValid(t *testing.T) {
	tests := []struct {
		header, token string
		want          bool
	}{
		{"Bearer s3cret", "s3cret", true},
		{"bearer s3cret", "s3cret", true},
		{"BEARER  s3cret", "s3cret", true},
		{"Bearer s3cre", "s3cret", false},
		{"Bearer s3cretX", "s3cret", false},
		{"Basic s3cret", "s3cret", false},
		{"s3cret", "s3cret", false},
		{"", "s3cret", false},
		{"Bearer ", "", false},
	}
	for _, tt := range tests {
		if got := Valid(tt.header, tt.token); got != tt.want {
			t.Errorf("Valid(%q, %q) = %v, want %v", tt.header, tt.token, got, tt.want)
		}
	}
}
