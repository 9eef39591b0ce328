package service

import "testing"

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]int64{
		"536870912": 512 << 20, "-1": -1, "0": 0, "512MiB": 512 << 20, "1GiB": 1 << 30, "200MB": 200_000_000,
		"1.5GiB": 3 << 29, "1 GiB": 1 << 30, "64Mi": 64 << 20, "2Gi": 2 << 30, "10kB": 10_000, "10KB": 10_000,
		"7B": 7, " 3MiB ": 3 << 20, "1TiB": 1 << 40, "0.5KiB": 512,
	} {
		if got, err := ParseByteSize(in); err != nil || got != want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "MiB", "12 parsecs", "1e3", "-1MiB", "1.2.3GiB", "9999999TiB", "1mib"} {
		if got, err := ParseByteSize(in); err == nil {
			t.Errorf("ParseByteSize(%q) = %d, want an error", in, got)
		}
	}
}
