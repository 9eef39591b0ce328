package routing_test

import (
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/routing"
)

func TestDetect(t *testing.T) {
	png := testfiles.PNG(4, 4)
	tests := []struct {
		name    string
		in      routing.DetectInput
		isText  bool
		kind    string
		mime    string
		format  string
		source  string
		minConf float64
		maxConf float64
	}{
		{"png declared png", in("a.png", "image/png", png), false, contracts.BinaryImage, "image/png", "png", routing.SourceMIME, 1, 1},
		{"png declared text/plain is an image", in("a.txt", "text/plain", png), false, contracts.BinaryImage, "image/png", "png", routing.SourceContent, 0.9, 0.9},
		{"png with no metadata", in("", "", png), false, contracts.BinaryImage, "image/png", "png", routing.SourceContent, 0.9, 0.9},
		{"png named .png, declared octet-stream", in("a.png", "application/octet-stream", png), false, contracts.BinaryImage, "image/png", "png", routing.SourceExtension, 0.95, 0.95},
		{"jpeg declared image/jpg alias", in("a", "image/jpg", testfiles.JPEG(2, 2)), false, contracts.BinaryImage, "image/jpeg", "jpeg", routing.SourceMIME, 1, 1},
		{"jpeg declared with parameters", in("a", " IMAGE/JPEG ; q=1", testfiles.JPEG(2, 2)), false, contracts.BinaryImage, "image/jpeg", "jpeg", routing.SourceMIME, 1, 1},
		{"gif", in("a.gif", "", testfiles.GIF(2, 2)), false, contracts.BinaryImage, "image/gif", "gif", routing.SourceExtension, 0.95, 0.95},
		{"webp", in("a", "image/webp", testfiles.WebP()), false, contracts.BinaryImage, "image/webp", "webp", routing.SourceMIME, 1, 1},
		{"bmp", in("a.bmp", "image/bmp", testfiles.BMP(2, 2)), false, contracts.BinaryImage, "image/bmp", "bmp", routing.SourceMIME, 1, 1},
		{"elf declared image/png is not an image", in("a.png", "image/png", testfiles.ELF()), false, contracts.BinaryOther, "application/x-executable", "elf", routing.SourceContent, 0.9, 0.9},
		{"pdf", in("r.pdf", "application/pdf", testfiles.PDF()), false, contracts.BinaryDocument, "application/pdf", "pdf", routing.SourceMIME, 1, 1},
		{"pdf declared x-pdf alias", in("r", "application/x-pdf", testfiles.PDF()), false, contracts.BinaryDocument, "application/pdf", "pdf", routing.SourceMIME, 1, 1},
		{"wav declared audio/x-wav", in("s.wav", "audio/x-wav", testfiles.WAV()), false, contracts.BinaryAudio, "audio/wav", "wav", routing.SourceMIME, 1, 1},
		{"mp3 declared audio/mp3", in("s.mp3", "audio/mp3", testfiles.MP3()), false, contracts.BinaryAudio, "audio/mpeg", "mp3", routing.SourceMIME, 1, 1},
		{"mp4", in("v.mp4", "video/mp4", testfiles.MP4()), false, contracts.BinaryVideo, "video/mp4", "mp4", routing.SourceMIME, 1, 1},
		{"zip", in("a.zip", "", testfiles.ZIP()), false, contracts.BinaryOther, "application/zip", "zip", routing.SourceExtension, 0.95, 0.95},
		{"docx claim on zip head keeps the specific claim", in("a.docx", "", testfiles.ZIP()), false, contracts.BinaryDocument, "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx", routing.SourceExtension, 0.95, 0.95},
		{"text declared text/plain", in("a.txt", "text/plain; charset=utf-8", testfiles.Text()), true, routing.KindText, "text/plain", "txt", routing.SourceMIME, 0.95, 0.95},
		{"text declared octet-stream", in("blob", "application/octet-stream", testfiles.Text()), true, routing.KindText, "text/plain", "txt", routing.SourceContent, 0.8, 0.8},
		{"text declared image/png", in("x.png", "image/png", testfiles.Text()), true, routing.KindText, "text/plain", "txt", routing.SourceContent, 0.8, 0.8},
		{"json declared json", in("d.json", "application/json", testfiles.JSON()), true, routing.KindText, "application/json", "json", routing.SourceMIME, 0.95, 0.95},
		{"json declared octet-stream", in("d", "application/octet-stream", testfiles.JSON()), true, routing.KindText, "application/json", "json", routing.SourceContent, 0.8, 0.8},
		{"json by extension", in("d.json", "", testfiles.JSON()), true, routing.KindText, "application/json", "json", routing.SourceExtension, 0.9, 0.9},
		{"csv declared text/csv", in("t.csv", "text/csv", testfiles.CSV()), true, routing.KindText, "text/csv", "csv", routing.SourceMIME, 0.95, 0.95},
		{"csv declared ms-excel", in("t.csv", "application/vnd.ms-excel", testfiles.CSV()), true, routing.KindText, "text/csv", "csv", routing.SourceExtension, 0.9, 0.9},
		{"javascript declared application/javascript", in("a.js", "application/javascript", []byte("const a = 1;\n")), true, routing.KindText, "text/javascript", "js", routing.SourceMIME, 0.95, 0.95},
		{"xml declared octet-stream", in("a", "application/octet-stream", []byte("<?xml version=\"1.0\"?>\n<a>1</a>\n")), true, routing.KindText, "text/xml", "xml", routing.SourceContent, 0.8, 0.8},
		{"python declared as an unknown binary type", in("x.pyc", "application/x-python-code", []byte("import os\nprint(os.getcwd())\n")), true, routing.KindText, "text/plain", "txt", routing.SourceContent, 0.8, 0.8},
		{"go source as text/plain takes the extension as format", in("main.go", "text/plain", testfiles.GoSource()), true, routing.KindText, "text/plain", "go", routing.SourceMIME, 0.95, 0.95},
		{"svg is text", in("i.svg", "image/svg+xml", testfiles.SVG()), true, routing.KindText, "image/svg+xml", "svg", routing.SourceMIME, 0.95, 0.95},
		{"svg with no metadata is text", in("", "", testfiles.SVG()), true, routing.KindText, "image/svg+xml", "svg", routing.SourceContent, 0.8, 0.8},
		{"BOM text", in("", "", []byte("\xef\xbb\xbfhello")), true, routing.KindText, "text/plain", "txt", routing.SourceContent, 0.8, 0.8},
		{"NUL makes binary", in("a.txt", "text/plain", []byte("hello\x00world")), false, contracts.BinaryOther, "application/octet-stream", "", routing.SourceContent, 0.5, 0.5},
		{"invalid UTF-8 declared text is binary", in("a.txt", "text/plain", []byte("caf\xe9 au lait")), false, contracts.BinaryOther, "application/octet-stream", "", routing.SourceContent, 0.5, 0.5},
		{"claimed png without png bytes is unknown binary", in("a.png", "image/png", []byte{0xde, 0xad, 0xbe, 0xef, 0}), false, contracts.BinaryOther, "application/octet-stream", "", routing.SourceContent, 0.5, 0.5},
		{"claim unknown to the sniffer is kept", in("a.bin", "application/x-custom-thing", []byte{0xde, 0xad, 0xbe, 0xef, 0}), false, contracts.BinaryOther, "application/x-custom-thing", "custom-thing", routing.SourceMIME, 0.5, 0.5},
		{"ascii pdf with no metadata is a pdf", in("", "", []byte("%PDF-1.4\n1 0 obj\n<<>>\nendobj\n")), false, contracts.BinaryDocument, "application/pdf", "pdf", routing.SourceContent, 0.7, 0.7},
		{"ascii pdf-looking text declared text stays text", in("", "text/plain", []byte("%PDF-1.4 is a version\n")), true, routing.KindText, "text/plain", "txt", routing.SourceMIME, 0.85, 0.85},
		{"empty file is empty text", routing.DetectInput{Filename: "a.png", DeclaredMIME: "image/png", Head: []byte{}}, true, routing.KindText, "text/plain", "txt", routing.SourceContent, 1, 1},
		{"no content: declared type", routing.DetectInput{Filename: "a.pdf", DeclaredMIME: "application/pdf", Size: 100}, false, contracts.BinaryDocument, "application/pdf", "pdf", routing.SourceMIME, 0.7, 0.7},
		{"no content: extension", routing.DetectInput{Filename: "a.mp4", Size: 100}, false, contracts.BinaryVideo, "video/mp4", "mp4", routing.SourceExtension, 0.5, 0.5},
		{"no content: text declared", routing.DetectInput{Filename: "a", DeclaredMIME: "text/markdown", Size: 100}, true, routing.KindText, "text/markdown", "md", routing.SourceMIME, 0.6, 0.6},
		{"nil head and no size is not known to be empty", routing.DetectInput{Filename: "a.png"}, false, contracts.BinaryImage, "image/png", "png", routing.SourceExtension, 0.5, 0.5},
		{"no content, no metadata", routing.DetectInput{Size: 100}, false, contracts.BinaryOther, "application/octet-stream", "", routing.SourceContent, 0, 0},
		{"garbage declared MIME is ignored", in("", "not a mime", testfiles.PNG(1, 1)), false, contracts.BinaryImage, "image/png", "png", routing.SourceContent, 0.9, 0.9},
		{"head cut inside a rune is still text", routing.DetectInput{Head: []byte("abc\xe4\xb8"), Size: 1000}, true, routing.KindText, "text/plain", "txt", routing.SourceContent, 0.8, 0.8},
		{"whole content ending inside a rune is binary", routing.DetectInput{Head: []byte("abc\xe4\xb8"), Size: 5}, false, contracts.BinaryOther, "application/octet-stream", "", routing.SourceContent, 0.5, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := routing.Detect(tt.in)
			if d.IsText != tt.isText || d.Kind != tt.kind || d.MIME != tt.mime || d.Format != tt.format || d.Source != tt.source {
				t.Errorf("Detect = %+v\nwant IsText=%v Kind=%s MIME=%s Format=%q Source=%s", d, tt.isText, tt.kind, tt.mime, tt.format, tt.source)
			}
			if d.Confidence < tt.minConf-1e-9 || d.Confidence > tt.maxConf+1e-9 {
				t.Errorf("Confidence = %v, want %v..%v", d.Confidence, tt.minConf, tt.maxConf)
			}
		})
	}
}

// in builds a DetectInput holding the whole content.
func in(filename, declared string, content []byte) routing.DetectInput {
	return routing.DetectInput{Filename: filename, DeclaredMIME: declared, Head: content, Size: int64(len(content))}
}
