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
	b := describeHead(m, label, d, size)
	switch why {
	case reasonTooLarge:
		b.WriteString(m.tooLarge + "\n" + m.suggestSmaller)
	case reasonUnavailable:
		b.WriteString(m.unavailable + "\n" + m.suggestRetry)
	default:
		c := m.capabilityName(need)
		b.WriteString(fmt.Sprintf(m.needsCapability, c) + "\n" + fmt.Sprintf(m.suggestCapability, c))
	}
	return b.String()
}

// describeHead writes the first three lines of a description: marker and label, type, size.
func describeHead(m *messages, label string, d Detection, size int64) *strings.Builder {
	var b strings.Builder
	b.WriteString(m.cannotRead + " " + label + "\n")
	b.WriteString(m.typeLabel + m.typeName(d) + "\n")
	b.WriteString(m.sizeLabel + humanSize(size) + "\n")
	return &b
}

// describeNotAccepted describes an artifact whose format the model's API does not accept (or
// the dialect cannot carry), naming the formats of that kind it does accept:
//
//	[Cannot read] a.docx (artifact:a1)
//	Type: DOCX document
//	Size: 1.2 KB
//	The current model's API does not accept DOCX files (it accepts: PDF).
//	Suggestion: convert the file to an accepted format and read it again, or use an agent whose model accepts it.
func describeNotAccepted(m *messages, label string, d Detection, size int64, accepted []string) string {
	b := describeHead(m, label, d, size)
	format := strings.ToUpper(d.Format)
	if format == "" {
		format = m.unknownBinary
	}
	list := m.noFormats
	if len(accepted) > 0 {
		list = strings.ToUpper(strings.Join(accepted, ", "))
	}
	b.WriteString(fmt.Sprintf(m.notAccepted, format, list) + "\n" + m.suggestAccepted)
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
