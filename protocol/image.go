package protocol

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// MaxImageBytes is the largest accepted decoded image (5 MiB).
const MaxImageBytes = 5 * 1024 * 1024

// maxImageBase64 is the padded base64 length of MaxImageBytes; longer data
// is rejected before any decoding work.
const maxImageBase64 = (MaxImageBytes + 2) / 3 * 4

// Image error texts; they are wire contract (they reach command_error).
const (
	errTextImageTooLarge   = "image exceeds the 5 MiB limit"
	errTextImageBase64     = "image data must be canonical padded base64"
	errTextImageFormat     = "expected PNG, JPEG, GIF, or WebP image bytes"
	dataURLPrefix          = "data:"
	dataURLBase64Separator = ";base64,"
)

// SniffImage names the image format from its magic bytes: image/png,
// image/jpeg, image/gif or image/webp, or "" when none matches.
func SniffImage(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return "image/jpeg"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "image/gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// DecodeImage validates an image given as declared media type and base64
// data and returns it as an image part. The error texts are the wire ones:
// too large, non-canonical base64, unknown format, or declared/sniffed
// mismatch.
func DecodeImage(mediaType, data string) (Part, error) {
	if len(data) > maxImageBase64 {
		return Part{}, errors.New(errTextImageTooLarge)
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	// The decoder skips newlines and tolerates stray padding bits, so only
	// an exact re-encoding proves the input canonical.
	if err != nil || base64.StdEncoding.EncodeToString(raw) != data {
		return Part{}, errors.New(errTextImageBase64)
	}
	if len(raw) > MaxImageBytes {
		return Part{}, errors.New(errTextImageTooLarge)
	}
	sniffed := SniffImage(raw)
	if sniffed == "" {
		return Part{}, errors.New(errTextImageFormat)
	}
	if sniffed != mediaType {
		return Part{}, fmt.Errorf("image declares %s but bytes identify %s", mediaType, sniffed)
	}
	return Part{Type: "image", MediaType: mediaType, Data: raw}, nil
}

// ParseImageURL decodes a data URL (data:<media_type>;base64,<data>), the
// form of the legacy command `images` field.
func ParseImageURL(url string) (Part, error) {
	rest, ok := strings.CutPrefix(url, dataURLPrefix)
	if !ok {
		return Part{}, errors.New(errTextImageBase64)
	}
	mediaType, data, ok := strings.Cut(rest, dataURLBase64Separator)
	if !ok {
		return Part{}, errors.New(errTextImageBase64)
	}
	return DecodeImage(mediaType, data)
}

// ImageURL is the data URL of an image part (the inverse of ParseImageURL).
func ImageURL(p Part) string {
	return dataURLPrefix + p.MediaType + dataURLBase64Separator + base64.StdEncoding.EncodeToString(p.Data)
}
