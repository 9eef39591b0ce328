package historyimage_test

import (
	"errors"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/historyimage"
)

func TestNormalizeID(t *testing.T) {
	const md5 = "0123456789abcdef0123456789abcdef"
	tests := []struct {
		in, want string
		wantErr  error
	}{
		{in: md5, want: md5},
		{in: "history_" + md5, want: md5},
		{in: "[Picture:history_" + md5 + "]", want: md5},
		{in: "  history_" + md5 + "\n", want: md5},
		{in: "0123456789ABCDEF0123456789ABCDEF", want: md5},
		{in: "deadbeef", want: "deadbeef"},         // the design's minimum of 8
		{in: "history_deadbeef", want: "deadbeef"}, // prefix not counted
		{in: "deadbee", wantErr: historyimage.ErrInvalidImageID},
		{in: "history_", wantErr: historyimage.ErrInvalidImageID},
		{in: "", wantErr: historyimage.ErrInvalidImageID},
		{in: "history_deadbeeg", wantErr: historyimage.ErrInvalidImageID},
		{in: md5 + "0", wantErr: historyimage.ErrInvalidImageID}, // longer than an MD5
		{in: "history_history_" + md5, wantErr: historyimage.ErrInvalidImageID},
		{in: "dead beef", wantErr: historyimage.ErrInvalidImageID},
		{in: "[Picture:" + md5, wantErr: historyimage.ErrInvalidImageID},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := historyimage.NormalizeID(tt.in)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("NormalizeID(%q) error = %v, want %v", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("NormalizeID(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestMessage(t *testing.T) {
	tests := []struct {
		code, locale, want string
	}{
		{contracts.CodeInvalidImageID, contracts.LocaleZH, "无效的图片标识符"},
		{contracts.CodeInvalidImageID, "", "无效的图片标识符"},
		{contracts.CodeInvalidImageID, contracts.LocaleEN, "Invalid image identifier"},
		{contracts.CodeImageNotFound, contracts.LocaleZH, "图片不存在或已过期"},
		{contracts.CodeImageNotFound, "fr", "图片不存在或已过期"},
		{contracts.CodeImageNotFound, contracts.LocaleEN, "The image does not exist or has expired"},
		{contracts.CodeArtifactNotFound, contracts.LocaleEN, ""},
	}
	for _, tt := range tests {
		t.Run(tt.code+"/"+tt.locale, func(t *testing.T) {
			if got := historyimage.Message(tt.code, tt.locale); got != tt.want {
				t.Errorf("Message(%q, %q) = %q, want %q", tt.code, tt.locale, got, tt.want)
			}
		})
	}
}
