package qr

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"

	qrcode "github.com/yeqown/go-qrcode/v2"
)

// The geometry of the image. A quiet zone of 4 modules is what ISO/IEC 18004 asks of
// QR codes, so that a reader finds the symbol's edge next to anything printed beside it.
const (
	ModulePixels = 8
	QuietZone    = 4
)

// palette is the image's two colours: index 0, light, is also what a new image holds.
var palette = color.Palette{color.White, color.Black}

// PNG renders text as a QR code (error correction level M, which survives a scuffed
// print or a cracked screen) in a PNG image with a quiet zone, 8 pixels per module.
// The image is square: (modules + 2·QuietZone)·ModulePixels pixels a side.
func PNG(text string) ([]byte, error) {
	code, err := qrcode.NewWith(text, qrcode.WithErrorCorrectionLevel(qrcode.ErrorCorrectionMedium))
	if err != nil {
		return nil, fmt.Errorf("qr: encode: %w", err)
	}
	var m modules
	if err := code.Save(&m); err != nil {
		return nil, fmt.Errorf("qr: encode: %w", err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, m.image()); err != nil {
		return nil, fmt.Errorf("qr: render: %w", err)
	}
	return buf.Bytes(), nil
}

// modules is the symbol's module matrix, rows from the top, true for a dark module. It
// is the qrcode.Writer that QRCode.Save hands the matrix to.
type modules [][]bool

func (m *modules) Write(mat qrcode.Matrix) error {
	*m = mat.Bitmap()
	return nil
}

func (*modules) Close() error { return nil }

// image draws the modules, each a ModulePixels square of palette index 1, inside the
// light quiet zone.
func (m modules) image() *image.Paletted {
	side := (len(m) + 2*QuietZone) * ModulePixels
	img := image.NewPaletted(image.Rect(0, 0, side, side), palette)
	for y, row := range m {
		for x, dark := range row {
			if !dark {
				continue
			}
			x0, y0 := (x+QuietZone)*ModulePixels, (y+QuietZone)*ModulePixels
			for py := y0; py < y0+ModulePixels; py++ {
				for px := x0; px < x0+ModulePixels; px++ {
					img.SetColorIndex(px, py, 1)
				}
			}
		}
	}
	return img
}
