package i18n

import "sync/atomic"

// maxMemoBytes bounds the headers a Memo keeps: browsers send a few dozen bytes.
const maxMemoBytes = 256

// Memo answers Negotiate from memory for a header equal to the last one it negotiated.
// A partner's client sends the same Accept-Language on every request, and comparing it
// with the last costs a few nanoseconds where parsing a typical list
// ("ru-RU,ru;q=0.9,en;q=0.8") costs about a hundred. The zero Memo is ready; it is
// safe for concurrent use.
type Memo struct {
	last atomic.Pointer[memoEntry]
}

type memoEntry struct {
	header, lang string
}

// Negotiate returns Negotiate(header).
func (m *Memo) Negotiate(header string) string {
	if e := m.last.Load(); e != nil && e.header == header {
		return e.lang
	}
	lang := Negotiate(header)
	if len(header) <= maxMemoBytes {
		m.last.Store(&memoEntry{header: header, lang: lang})
	}
	return lang
}
