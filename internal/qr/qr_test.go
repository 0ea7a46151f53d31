package qr_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	gozxingqr "github.com/makiuchi-d/gozxing/qrcode"

	"github.com/skygate/skygate/internal/qr"
)

// TestPNG reads every image back with an independent decoder (gozxing, a port of
// ZXing), so the test proves the picture is a QR code of the text, not only a PNG.
func TestPNG(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"SKYGATE:8d3c1f7e-0000-4000-8000-000000000000:ABCDEFGH23", // a fast-track pass
		"LPA:1$smdp.example.com$MATCH-123",                        // an eSIM activation code
		"12345",                                                   // numeric mode, version 1
		"Ташкент → Алматы",                                        // UTF-8 bytes
		strings.Repeat("LPA:1$smdp.example.com$", 40),             // a large version
	} {
		t.Run(text[:min(len(text), 20)], func(t *testing.T) {
			t.Parallel()
			b, err := qr.PNG(text)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("not a PNG: %v", err)
			}
			checkGeometry(t, img)
			bmp, err := gozxing.NewBinaryBitmapFromImage(img)
			if err != nil {
				t.Fatal(err)
			}
			res, err := gozxingqr.NewQRCodeReader().Decode(bmp, nil)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if res.GetText() != text {
				t.Errorf("decoded %q, want %q", res.GetText(), text)
			}
			if ec := res.GetResultMetadata()[gozxing.ResultMetadataType_ERROR_CORRECTION_LEVEL]; ec != "M" {
				t.Errorf("error correction level %v, want M", ec)
			}
		})
	}
}

// checkGeometry checks that img is square, a whole number of modules of a QR version
// (17 + 4·version modules) plus the quiet zone, light in the quiet zone, and made of
// only light and dark pixels.
func checkGeometry(t *testing.T, img image.Image) {
	t.Helper()
	side := img.Bounds().Dx()
	if side != img.Bounds().Dy() || side%qr.ModulePixels != 0 {
		t.Fatalf("image %v is not square modules of %d px", img.Bounds(), qr.ModulePixels)
	}
	if n := side/qr.ModulePixels - 2*qr.QuietZone; n < 21 || (n-17)%4 != 0 {
		t.Fatalf("image %v holds %d modules a side, not a QR version", img.Bounds(), n)
	}
	zone := qr.QuietZone * qr.ModulePixels
	for y := range side {
		for x := range side {
			g := color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y
			if g != 0 && g != 255 {
				t.Fatalf("pixel (%d,%d) is gray %d", x, y, g)
			}
			inZone := x < zone || y < zone || x >= side-zone || y >= side-zone
			if inZone && g != 255 {
				t.Fatalf("pixel (%d,%d) of the quiet zone is dark", x, y)
			}
		}
	}
	// The top-left finder pattern starts right inside the quiet zone.
	if g := color.GrayModel.Convert(img.At(zone, zone)).(color.Gray).Y; g != 0 {
		t.Errorf("the first module is light")
	}
}

func TestPNGTooLong(t *testing.T) {
	t.Parallel()
	// Version 40 at level M holds 2331 bytes.
	if _, err := qr.PNG(strings.Repeat("x", 3000)); err == nil {
		t.Error("PNG of 3000 bytes: no error")
	}
}
