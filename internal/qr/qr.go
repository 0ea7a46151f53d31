// Package qr renders QR codes as PNG images: fast-track passes and eSIM activation
// codes use it.
package qr

import (
	"bytes"
	"fmt"

	qrcode "github.com/yeqown/go-qrcode/v2"
	"github.com/yeqown/go-qrcode/writer/standard"
)

// PNG renders text as a QR code (error correction level M, which survives a scuffed
// print or a cracked screen) in a PNG image with a quiet zone, 8 pixels per module.
func PNG(text string) ([]byte, error) {
	code, err := qrcode.NewWith(text, qrcode.WithErrorCorrectionLevel(qrcode.ErrorCorrectionMedium))
	if err != nil {
		return nil, fmt.Errorf("qr: encode: %w", err)
	}
	var buf bytes.Buffer
	w := standard.NewWithWriter(nopCloser{&buf},
		standard.WithBuiltinImageEncoder(standard.PNG_FORMAT),
		standard.WithQRWidth(8),
		standard.WithBorderWidth(32))
	if err := code.Save(w); err != nil {
		return nil, fmt.Errorf("qr: render: %w", err)
	}
	return buf.Bytes(), nil
}

// nopCloser lets the QR writer, which wants an io.WriteCloser, write to a buffer.
type nopCloser struct{ *bytes.Buffer }

func (nopCloser) Close() error { return nil }
