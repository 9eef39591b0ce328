package mediaformat

import (
	"mime"
	"path"
	"strings"

	"github.com/gabriel-vasile/mimetype"

	"github.com/agentworks/artifact-worker/contracts"
)

// OctetStream is the MIME type of unknown binary content.
const OctetStream = "application/octet-stream"

// genericMIMEs say nothing about the content; a declaration of one of them counts as no
// declaration at all.
var genericMIMEs = map[string]bool{
	OctetStream:                  true,
	"binary/octet-stream":        true,
	"application/binary":         true,
	"application/x-binary":       true,
	"application/unknown":        true,
	"application/x-unknown":      true,
	"application/x-download":     true,
	"application/force-download": true,
	"unknown/unknown":            true,
}

// mimeAliases maps common non-canonical spellings to the names used in data URLs and parts.
// image/apng is an animated PNG whose first frame every PNG decoder reads: it is sent as a PNG.
var mimeAliases = map[string]string{
	"image/jpg":                    "image/jpeg",
	"image/pjpeg":                  "image/jpeg",
	"image/x-png":                  "image/png",
	"image/apng":                   "image/png",
	"image/x-ms-bmp":               "image/bmp",
	"image/x-bmp":                  "image/bmp",
	"audio/mp3":                    "audio/mpeg",
	"audio/x-mp3":                  "audio/mpeg",
	"audio/mpeg3":                  "audio/mpeg",
	"audio/x-mpeg":                 "audio/mpeg",
	"audio/x-wav":                  "audio/wav",
	"audio/wave":                   "audio/wav",
	"audio/vnd.wave":               "audio/wav",
	"application/x-pdf":            "application/pdf",
	"application/x-zip-compressed": "application/zip",
	"application/x-zip":            "application/zip",
	"application/x-javascript":     "text/javascript",
	"application/javascript":       "text/javascript",
	"text/x-markdown":              "text/markdown",
	"text/json":                    "application/json",
	"video/x-matroska":             "video/matroska",
}

// extensionMIMEs is the extension table used when no MIME type is declared. It is built in (not
// mime.TypeByExtension, which reads the system's tables) so that detection is pure and the same
// on every machine.
var extensionMIMEs = map[string]string{
	// text
	".txt": "text/plain", ".text": "text/plain", ".log": "text/plain", ".md": "text/markdown",
	".markdown": "text/markdown", ".json": "application/json", ".jsonl": "application/x-ndjson",
	".ndjson": "application/x-ndjson", ".xml": "application/xml", ".csv": "text/csv",
	".tsv": "text/tab-separated-values", ".html": "text/html", ".htm": "text/html",
	".css": "text/css", ".js": "text/javascript", ".mjs": "text/javascript", ".cjs": "text/javascript",
	".ts": "text/x-typescript", ".tsx": "text/x-typescript", ".jsx": "text/javascript",
	".py": "text/x-python", ".go": "text/x-go", ".rs": "text/x-rust", ".java": "text/x-java",
	".c": "text/x-c", ".h": "text/x-c", ".cc": "text/x-c++", ".cpp": "text/x-c++", ".hpp": "text/x-c++",
	".cs": "text/x-csharp", ".rb": "text/x-ruby", ".php": "text/x-php", ".sh": "text/x-shellscript",
	".sql": "application/sql", ".yaml": "application/yaml", ".yml": "application/yaml",
	".toml": "application/toml", ".ini": "text/plain", ".cfg": "text/plain", ".conf": "text/plain",
	".svg": "image/svg+xml", ".rtf": "text/rtf", ".tex": "text/x-tex",
	// images
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".jpe": "image/jpeg",
	".gif": "image/gif", ".webp": "image/webp", ".bmp": "image/bmp", ".tif": "image/tiff",
	".tiff": "image/tiff", ".avif": "image/avif", ".heic": "image/heic", ".heif": "image/heif",
	".ico": "image/x-icon", ".psd": "image/vnd.adobe.photoshop", ".jxl": "image/jxl",
	// documents
	".pdf": "application/pdf", ".doc": "application/msword",
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".xls":  "application/vnd.ms-excel",
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	".ppt":  "application/vnd.ms-powerpoint",
	".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	".odt":  "application/vnd.oasis.opendocument.text", ".epub": "application/epub+zip",
	// audio
	".mp3": "audio/mpeg", ".wav": "audio/wav", ".ogg": "audio/ogg", ".oga": "audio/ogg",
	".opus": "audio/ogg", ".flac": "audio/flac", ".aac": "audio/aac", ".m4a": "audio/x-m4a",
	".aiff": "audio/aiff", ".aif": "audio/aiff", ".mid": "audio/midi", ".midi": "audio/midi",
	// video
	".mp4": "video/mp4", ".m4v": "video/x-m4v", ".mov": "video/quicktime", ".webm": "video/webm",
	".avi": "video/x-msvideo", ".mkv": "video/matroska", ".mpeg": "video/mpeg", ".mpg": "video/mpeg",
	".flv": "video/x-flv", ".3gp": "video/3gpp",
	// archives and binaries
	".zip": "application/zip", ".gz": "application/gzip", ".tgz": "application/gzip",
	".tar": "application/x-tar", ".7z": "application/x-7z-compressed", ".rar": "application/vnd.rar",
	".bz2": "application/x-bzip2", ".xz": "application/x-xz", ".zst": "application/zstd",
	".exe": "application/vnd.microsoft.portable-executable",
	".dll": "application/vnd.microsoft.portable-executable", ".so": "application/x-sharedlib",
	".wasm": "application/wasm", ".bin": OctetStream,
}

// textMIMEs are textual types outside text/*; any "+json" or "+xml" suffix is textual too.
var textMIMEs = map[string]bool{
	"application/json": true, "application/xml": true, "application/x-ndjson": true,
	"application/yaml": true, "application/x-yaml": true, "application/toml": true,
	"application/sql": true, "application/x-sh": true, "application/x-shellscript": true,
	"application/graphql": true, "application/x-httpd-php": true, "application/x-subrip": true,
	"application/rtf": true, "application/x-tex": true, "application/ecmascript": true,
	"image/svg+xml": true, "message/rfc822": true,
}

var documentMIMEs = map[string]bool{
	"application/pdf": true, "application/msword": true, "application/vnd.ms-excel": true,
	"application/vnd.ms-powerpoint": true, "application/epub+zip": true,
	"application/postscript": true, "application/x-mobipocket-ebook": true,
	"application/vnd.ms-publisher": true, "application/vnd.wordperfect": true,
}

// formats names the formats whose name is not simply the subtype. Anything else takes mimetype's
// extension for the type, then the subtype.
var formats = map[string]string{
	"image/jpeg": "jpeg", "image/svg+xml": "svg", "image/x-icon": "ico", "image/vnd.adobe.photoshop": "psd",
	"audio/mpeg": "mp3", "audio/ogg": "ogg", "audio/x-m4a": "m4a", "audio/mp4": "m4a", "audio/aiff": "aiff",
	"video/quicktime": "mov", "video/x-msvideo": "avi", "video/matroska": "mkv", "video/x-m4v": "m4v",
	"video/x-flv": "flv", "video/3gpp": "3gp",
	"application/gzip": "gz", "application/x-tar": "tar", "application/x-7z-compressed": "7z",
	"application/vnd.rar": "rar", "application/x-bzip2": "bz2", "application/x-xz": "xz",
	"application/zstd": "zst", "application/x-elf": "elf", "application/x-executable": "elf",
	"application/x-sharedlib": "elf", "application/x-object": "elf", "application/x-coredump": "elf",
	"application/vnd.microsoft.portable-executable": "exe", "application/x-mach-binary": "macho",
	"application/msword": "doc", "application/vnd.ms-excel": "xls", "application/vnd.ms-powerpoint": "ppt",
	"application/epub+zip": "epub", "application/postscript": "ps",
	"text/plain": "txt", "text/markdown": "md", "text/javascript": "js", "text/x-python": "py",
	"text/x-go": "go", "text/x-typescript": "ts", "text/x-shellscript": "sh", "text/tab-separated-values": "tsv",
	"application/x-ndjson": "ndjson", "application/yaml": "yaml", "text/x-c": "c", "text/x-c++": "cpp",
}

// NormalizeMIME returns the bare, lower-case, canonical type of a declared MIME string ("image/jpeg"
// for " Image/JPG; q=1"), or "" for an empty, unparsable or generic (application/octet-stream)
// declaration.
func NormalizeMIME(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 255 {
		return ""
	}
	m, _, err := mime.ParseMediaType(s)
	if err != nil {
		// Tolerate broken parameters ("image/png; charset"): the type before them still counts.
		m, _, _ = strings.Cut(s, ";")
		m = strings.ToLower(strings.TrimSpace(m))
	}
	if !validMediaType(m) {
		return ""
	}
	if a, ok := mimeAliases[m]; ok {
		m = a
	}
	if genericMIMEs[m] {
		return ""
	}
	return m
}

// validMediaType reports whether m is "type/subtype" made of RFC 6838 name characters.
func validMediaType(m string) bool {
	typ, sub, ok := strings.Cut(m, "/")
	if !ok || typ == "" || sub == "" {
		return false
	}
	for _, c := range typ + sub {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', strings.ContainsRune("!#$&^_.+-", c):
		default:
			return false
		}
	}
	return true
}

// MIMEByExtension returns the type the filename's extension names (from a built-in table, the same
// on every machine), or "".
func MIMEByExtension(filename string) string {
	filename = filename[strings.LastIndexAny(filename, `/\`)+1:]
	m := extensionMIMEs[strings.ToLower(path.Ext(filename))]
	if genericMIMEs[m] {
		return ""
	}
	return m
}

// IsTextMIME reports whether the canonical type m names a textual format: text/*, JSON, XML, YAML,
// SVG and the like.
func IsTextMIME(m string) bool {
	return strings.HasPrefix(m, "text/") || textMIMEs[m] ||
		strings.HasSuffix(m, "+json") || strings.HasSuffix(m, "+xml")
}

// IsGeneric reports whether the canonical type m says nothing about the content
// (application/octet-stream and its spellings).
func IsGeneric(m string) bool { return genericMIMEs[m] }

// Kind returns the artifact kind of a canonical binary (non-text) MIME type:
// contracts.BinaryImage, BinaryAudio, BinaryVideo, BinaryDocument or BinaryOther.
func Kind(m string) string {
	if k := mediaKind(m); k != "" {
		return k
	}
	switch {
	case documentMIMEs[m],
		strings.HasPrefix(m, "application/vnd.openxmlformats-officedocument."),
		strings.HasPrefix(m, "application/vnd.oasis.opendocument."):
		return contracts.BinaryDocument
	default:
		return contracts.BinaryOther
	}
}

// PartKind is the kind of the part that carries a medium of MIME type m: contracts.BinaryImage,
// BinaryAudio or BinaryVideo by the type's top level, BinaryDocument for anything else; "" when m is
// empty. Case and surrounding space do not matter.
func PartKind(m string) string {
	m = strings.ToLower(strings.TrimSpace(m))
	if m == "" {
		return ""
	}
	if k := mediaKind(m); k != "" {
		return k
	}
	return contracts.BinaryDocument
}

// mediaKind is the kind of an image, audio or video type, "" for any other.
func mediaKind(m string) string {
	switch {
	case strings.HasPrefix(m, "image/"):
		return contracts.BinaryImage
	case strings.HasPrefix(m, "audio/"):
		return contracts.BinaryAudio
	case strings.HasPrefix(m, "video/"):
		return contracts.BinaryVideo
	}
	return ""
}

// Name names the format of the canonical MIME type m ("png", "pdf", "mp3"), or "" when m is
// unknown binary.
func Name(m string) string {
	if m == "" || m == OctetStream {
		return ""
	}
	if f, ok := formats[m]; ok {
		return f
	}
	if ext := mimetypeExtension(m); ext != "" {
		return ext
	}
	_, sub, _ := strings.Cut(m, "/")
	sub, _, _ = strings.Cut(sub, "+")
	sub = strings.TrimPrefix(strings.TrimPrefix(sub, "x-"), "vnd.")
	return sub
}

// BaseMIME strips parameters ("text/plain; charset=utf-8" → "text/plain"), lower-cases and applies
// the aliases (image/jpg → image/jpeg). Unlike NormalizeMIME it keeps generic and malformed types.
func BaseMIME(m string) string {
	m, _, _ = strings.Cut(m, ";")
	m = strings.ToLower(strings.TrimSpace(m))
	if a, ok := mimeAliases[m]; ok {
		return a
	}
	return m
}

// mimetypeExtension is mimetype's extension for m without the dot, or "".
func mimetypeExtension(m string) string {
	if node := mimetype.Lookup(m); node != nil {
		return strings.TrimPrefix(node.Extension(), ".")
	}
	return ""
}

var archiveFormats = map[string]bool{"zip": true, "gz": true, "tar": true, "7z": true, "rar": true, "bz2": true, "xz": true, "zst": true}
var executableFormats = map[string]bool{"elf": true, "exe": true, "macho": true, "wasm": true}

// IsArchive reports whether the format named format is an archive (zip, gz, tar, 7z, ...).
func IsArchive(format string) bool { return archiveFormats[format] }

// IsExecutable reports whether the format named format is an executable (elf, exe, macho, wasm).
func IsExecutable(format string) bool { return executableFormats[format] }

// spellings are format names written the way docs/design.md's type-name table writes them where
// that is not simply upper case.
var spellings = map[string]string{"webp": "WebP", "webm": "WebM", "mov": "QuickTime"}

// Spelling is how a description writes the format named format: "PNG", "WebP", "QuickTime".
func Spelling(format string) string {
	if s, ok := spellings[format]; ok {
		return s
	}
	return strings.ToUpper(format)
}
