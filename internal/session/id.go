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
