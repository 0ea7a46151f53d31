package qr_test

import (
	"bytes"
	"image/png"
	"testing"

	"github.com/skygate/skygate/internal/qr"
)

func TestPNG(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"SKYGATE:8d3c1f7e-0000-4000-8000-000000000000:ABCDEFGH23", "LPA:1$smdp.example.com$MATCH-123"} {
		b, err := qr.PNG(text)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("not a PNG: %v", err)
		}
		if w := img.Bounds().Dx(); w < 200 || w != img.Bounds().Dy() {
			t.Errorf("image %v", img.Bounds())
		}
	}
}
