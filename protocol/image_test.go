package protocol

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
)

// sampleImages returns real encoded images per media type (WebP has no
// stdlib encoder, so a minimal RIFF/WEBP container stands in).
func sampleImages(t testing.TB) map[string][]byte {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	var p, j, g bytes.Buffer
	if err := png.Encode(&p, img); err != nil {
		t.Fatal(err)
	}
	if err := jpeg.Encode(&j, img, nil); err != nil {
		t.Fatal(err)
	}
	if err := gif.Encode(&g, img, nil); err != nil {
		t.Fatal(err)
	}
	webp := []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00")
	return map[string][]byte{"image/png": p.Bytes(), "image/jpeg": j.Bytes(), "image/gif": g.Bytes(), "image/webp": webp}
}

func TestSniffImage(t *testing.T) {
	for mt, b := range sampleImages(t) {
		if got := SniffImage(b); got != mt {
			t.Errorf("SniffImage(%s bytes) = %q", mt, got)
		}
	}
	for _, tc := range []struct {
		b    string
		want string
	}{
		{"GIF87a...", "image/gif"},
		{"GIF88a...", ""},
		{"\xff\xd8\xff", "image/jpeg"},
		{"\xff\xd8", ""},
		{"RIFF\x00\x00\x00\x00WEBP", "image/webp"},
		{"RIFF\x00\x00\x00\x00WAVE", ""},
		{"\x89PNG\r\n\x1a", ""},
		{"", ""},
	} {
		if got := SniffImage([]byte(tc.b)); got != tc.want {
			t.Errorf("SniffImage(%q) = %q, want %q", tc.b, got, tc.want)
		}
	}
}

func TestDecodeImage(t *testing.T) {
	for mt, b := range sampleImages(t) {
		p, err := DecodeImage(mt, base64.StdEncoding.EncodeToString(b))
		if err != nil || p.Type != "image" || p.MediaType != mt || !bytes.Equal(p.Data, b) {
			t.Errorf("DecodeImage(%s) = %+v, %v", mt, p.MediaType, err)
		}
	}
	pngData := pngB64
	// 5 MiB exactly is allowed; one byte more is not.
	limit := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, MaxImageBytes-8)...)
	if _, err := DecodeImage("image/png", base64.StdEncoding.EncodeToString(limit)); err != nil {
		t.Errorf("image of exactly 5 MiB: %v", err)
	}
	over := append(limit, 0)
	overB64 := base64.StdEncoding.EncodeToString(over)
	if len(overB64) != maxImageBase64 {
		t.Fatalf("5 MiB + 1 byte encodes to %d chars, limit is %d", len(overB64), maxImageBase64)
	}
	for _, tc := range []struct {
		name, mediaType, data, want string
	}{
		{"mismatch", "image/jpeg", pngData, "image declares image/jpeg but bytes identify image/png"},
		{"mismatch case", "image/PNG", pngData, "image declares image/PNG but bytes identify image/png"},
		{"unknown format", "image/png", base64.StdEncoding.EncodeToString([]byte("hello world")), "expected PNG, JPEG, GIF, or WebP image bytes"},
		{"empty", "image/png", "", "expected PNG, JPEG, GIF, or WebP image bytes"},
		{"unpadded", "image/png", strings.TrimRight(pngData, "="), "image data must be canonical padded base64"},
		{"newline", "image/png", pngData[:20] + "\n" + pngData[20:], "image data must be canonical padded base64"},
		{"space", "image/png", " " + pngData, "image data must be canonical padded base64"},
		{"url alphabet", "image/png", strings.NewReplacer("+", "-", "/", "_").Replace(base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n\xfb\xff"))), "image data must be canonical padded base64"},
		{"stray pad bits", "image/png", base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n\x00\x00"))[:12] + "AB==", "image data must be canonical padded base64"},
		{"decoded over 5 MiB", "image/png", overB64, "image exceeds the 5 MiB limit"},
		{"base64 too long", "image/png", strings.Repeat("A", maxImageBase64+1), "image exceeds the 5 MiB limit"},
	} {
		_, err := DecodeImage(tc.mediaType, tc.data)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestParseImageURL(t *testing.T) {
	p, err := ParseImageURL("data:image/png;base64," + pngB64)
	if err != nil || p.MediaType != "image/png" || !bytes.Equal(p.Data, mustB64(t, pngB64)) {
		t.Fatalf("ParseImageURL = %+v, %v", p, err)
	}
	if got := ImageURL(p); got != "data:image/png;base64,"+pngB64 {
		t.Errorf("ImageURL = %s", got)
	}
	for _, tc := range []struct{ url, want string }{
		{"https://x/y.png", "image data must be canonical padded base64"},
		{"data:image/png," + pngB64, "image data must be canonical padded base64"},
		{"data:image/gif;base64," + pngB64, "image declares image/gif but bytes identify image/png"},
		{"data:image/png;base64,;base64," + pngB64, "image data must be canonical padded base64"},
	} {
		if _, err := ParseImageURL(tc.url); err == nil || err.Error() != tc.want {
			t.Errorf("ParseImageURL(%.40s) err %v, want %q", tc.url, err, tc.want)
		}
	}
}
