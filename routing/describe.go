package routing

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// reason is why an artifact is described instead of sent.
type reason int

const (
	reasonNoCapability reason = iota
	reasonTooLarge
	reasonUnavailable
	reasonUnsupportedImage
)

// artifactLabel is "{filename} (artifact:{id})", made safe to print.
func artifactLabel(filename, id string) string {
	return printable(filename) + " (artifact:" + printable(strings.TrimPrefix(id, "artifact:")) + ")"
}

// describe writes the description given instead of content:
//
//	[无法读取] report.pdf (artifact:a1)
//	类型：PDF 文档
//	大小：1.2 MB
//	当前模型无法读取此类型的内容（需要文件能力）。
//	建议：请使用具备文件能力的智能体来读取此文件。
func describe(m *messages, label string, d Detection, size int64, why reason, need string) string {
	var b strings.Builder
	b.WriteString(m.cannotRead + " " + label + "\n")
	b.WriteString(m.typeLabel + m.typeName(d) + "\n")
	b.WriteString(m.sizeLabel + humanSize(size) + "\n")
	switch why {
	case reasonTooLarge:
		b.WriteString(m.tooLarge + "\n" + m.suggestSmaller)
	case reasonUnavailable:
		b.WriteString(m.unavailable + "\n" + m.suggestRetry)
	case reasonUnsupportedImage:
		b.WriteString(fmt.Sprintf(m.unsupportedImage, strings.ToUpper(d.Format)) + "\n" + m.suggestConvert)
	default:
		c := m.capabilityName(need)
		b.WriteString(fmt.Sprintf(m.needsCapability, c) + "\n" + fmt.Sprintf(m.suggestCapability, c))
	}
	return b.String()
}

// summary is the one line that accompanies routed media: "[图片] a.png (artifact:a1) · PNG 图片 · 12.0 KB".
func summary(marker, label, typeName string, size int64) string {
	return marker + " " + label + " · " + typeName + " · " + humanSize(size)
}

// humanSize formats a byte count with binary multiples: "512 B", "1.2 MB".
func humanSize(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", max(n, 0))
	}
	units := [...]string{"KB", "MB", "GB", "TB", "PB", "EB"}
	f := float64(n) / 1024
	i := 0
	for f >= 1023.95 && i < len(units)-1 {
		f /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}

// printable makes a filename or id safe inside a one-line label: invalid UTF-8 and control
// characters become U+FFFD and very long names are shortened.
func printable(s string) string {
	const maxRunes = 200
	if s == "" {
		return "?"
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '\uFFFD'
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) > maxRunes {
		s = string([]rune(s)[:maxRunes]) + "…"
	}
	return s
}
