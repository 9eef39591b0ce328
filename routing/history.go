package routing

import "github.com/agentworks/artifact-worker/contracts"

// NotReadableNote is the sentence, in the locale, that says the model cannot read what it asked
// for (design document 000's closing sentence): given with a history image placeholder when the
// model has no vision.
func NotReadableNote(locale string) string { return localeMessages(locale).notReadable }

// NotAcceptedNote is the sentence, in the locale, that says the model's API takes no form of an
// image of this MIME type, naming the image formats it does take (f, for the dialect).
func NotAcceptedNote(locale, mime string, f Formats, dialect string) string {
	accepted := f.orDefault().accepted(normalizeDialect(dialect), contracts.BinaryImage)
	return notAcceptedSentence(localeMessages(locale), formatOf(normalizeMIME(mime)), accepted)
}
