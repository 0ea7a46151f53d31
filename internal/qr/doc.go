// Package qr renders QR codes as PNG images: fast-track passes and eSIM activation
// codes use it.
//
// The symbol is encoded by github.com/yeqown/go-qrcode/v2 (its module matrix, error
// correction level M) and drawn here with the standard library's image and image/png:
// a two-colour paletted image, 8 pixels per module, inside a quiet zone of 4 modules.
// The library's own image writer is not used, so its drawing and font dependencies stay
// out of the binary.
package qr
