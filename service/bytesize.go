package service

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeUnits are the units a size setting (MEMORY_BUDGET, MAX_ARTIFACT_BYTES, ...) may carry, as operators write them (the forms of
// GOMEMLIMIT and of Kubernetes quantities): decimal kB/KB, MB, GB, TB (and k, M, G, T), binary KiB,
// MiB, GiB, TiB (and Ki, Mi, Gi, Ti). B is a byte.
var sizeUnits = map[string]int64{
	"B": 1,
	"k": 1e3, "kB": 1e3, "KB": 1e3, "M": 1e6, "MB": 1e6, "G": 1e9, "GB": 1e9, "T": 1e12, "TB": 1e12,
	"Ki": 1 << 10, "KiB": 1 << 10, "Mi": 1 << 20, "MiB": 1 << 20, "Gi": 1 << 30, "GiB": 1 << 30, "Ti": 1 << 40, "TiB": 1 << 40,
}

// ParseByteSize reads a size: a whole number of bytes (-1 included: "none" for the settings that
// allow it), or a number (fractions allowed) followed by a unit of sizeUnits, with or without a
// space: 536870912, 512MiB, 1GiB, 1.5 GiB, 200MB. A fraction of a byte is dropped.
func ParseByteSize(v string) (int64, error) {
	s := strings.TrimSpace(v)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return 0, fmt.Errorf("%q is not a size: bytes, or a number with a unit (512MiB, 1GiB, 200MB)", v)
	}
	number, unit := s[:i], strings.TrimSpace(s[i:])
	mult, ok := sizeUnits[unit]
	if !ok {
		return 0, fmt.Errorf("%q is not a size: unknown unit %q (B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)", v, unit)
	}
	f, err := strconv.ParseFloat(number, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size: bytes, or a number with a unit (512MiB, 1GiB, 200MB)", v)
	}
	b := f * float64(mult)
	if b >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is too large", v)
	}
	return int64(b), nil
}
