package session

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ValidateID checks a session id before it is used in a path.
func ValidateID(id string) error {
	switch {
	case id == "":
		return errors.New("session id must not be empty")
	case strings.ContainsAny(id, `/\`):
		return fmt.Errorf("session id must not contain path separators: %s", id)
	case strings.ContainsRune(id, 0):
		return errors.New("session id must not contain a NUL character")
	case id == "." || id == "..":
		return errors.New("session id must not be `.` or `..`")
	}
	return nil
}

// NewID generates a session id <prefix>-YYYYMMDD-HHMMSS-mmm from now in
// UTC ("cli" for openseek run, "tui" for the UI). Ids sort chronologically
// as strings. A time outside years 0..9999 falls back to <prefix>-<unix ms>.
func NewID(prefix string, now time.Time) string {
	u := now.UTC()
	if y := u.Year(); y < 0 || y > 9999 {
		return prefix + "-" + strconv.FormatInt(now.UnixMilli(), 10)
	}
	return fmt.Sprintf("%s-%s-%03d", prefix, u.Format("20060102-150405"), u.Nanosecond()/int(time.Millisecond))
}

// ReviewPrefix starts the generated ids of review runs (openseek review,
// the review gate): NewID(ReviewPrefix, …).
const ReviewPrefix = "review"

// IsReview reports whether id was generated for a review run: the
// review prefix followed by NewID's timestamp (a session a person named
// "review-notes" is not one).
func IsReview(id string) bool {
	rest, ok := strings.CutPrefix(id, ReviewPrefix+"-")
	if !ok {
		return false
	}
	if _, err := time.Parse("20060102-150405", rest[:min(len(rest), 15)]); err == nil && len(rest) >= 19 && rest[15] == '-' {
		_, err := strconv.Atoi(rest[16:19])
		return err == nil
	}
	_, err := strconv.ParseInt(rest, 10, 64) // NewID's fallback form
	return err == nil
}
