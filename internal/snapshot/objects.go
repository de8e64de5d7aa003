package snapshot

// The last steps of a snapshot done in Go instead of three git processes
// (rev-parse, commit-tree, update-ref): reading the branch, writing the
// commit as a loose object and moving the branch, all in git's own
// on-disk formats so that the git binary (rewind, review, gc, a user's
// git log) reads them. Whatever this code does not know (an object format
// other than sha1 or sha256, a ref backend other than files, any other
// repository extension, a symbolic ref) is left to git.

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/adler32"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/openseek/openseek/internal/beneath"
)

// lastFile records the last snapshot the branch was moved to,
// "<commit> <tree>\n". It is trusted only while the branch names the
// same commit.
const lastFile = "openseek-last"

// ident is the author and committer of every snapshot (see env).
const ident = "openseek <openseek@localhost>"

// message is a snapshot commit's message, as git commit-tree -m writes it.
const message = "openseek snapshot\n"

// format is what the side repository's config says about its on-disk
// formats.
type format struct {
	// newHash hashes objects: sha1 or sha256; nil when the object format
	// is one this code does not write (git commit-tree then does).
	newHash func() hash.Hash
	// files is true when refs are loose files and packed-refs (git's
	// "files" backend) and no other extension changes how objects or refs
	// are stored.
	files bool
}

// format reads the side repository's config for extensions.objectFormat,
// extensions.refStorage and any other extension.
func (r *Repo) format() format {
	f := format{newHash: sha1.New, files: true}
	data, err := os.ReadFile(filepath.Join(r.gitDir, "config"))
	if err != nil {
		return format{}
	}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return format{}
			}
			section = strings.ToLower(strings.TrimSpace(line[1:end]))
			line = strings.TrimSpace(line[end+1:])
		}
		if line == "" || line[0] == '#' || line[0] == ';' || section != "extensions" {
			continue
		}
		key, value, _ := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if i := strings.IndexAny(value, "#;"); i >= 0 {
			value = value[:i]
		}
		value = strings.ToLower(strings.Trim(strings.TrimSpace(value), `"`))
		switch {
		case key == "objectformat" && value == "sha1":
			f.newHash = sha1.New
		case key == "objectformat" && value == "sha256":
			f.newHash = sha256.New
		case key == "objectformat":
			f.newHash = nil
		case key == "refstorage" && value == "files":
		default:
			// reftable, compatObjectFormat, or anything newer.
			return format{}
		}
	}
	if sc.Err() != nil {
		return format{}
	}
	return f
}

// errNeedGit says that the files alone cannot answer: ask git.
var errNeedGit = errors.New("the ref is not a plain loose or packed ref")

// readRef reads the ref name of the side repository as git's files
// backend does: the loose ref file, else the packed-refs entry. ok is
// false when the ref does not exist.
func (r *Repo) readRef(name string) (id string, ok bool, err error) {
	data, err := os.ReadFile(filepath.Join(r.gitDir, filepath.FromSlash(name)))
	switch {
	case err == nil:
		v := strings.TrimRight(string(data), "\n")
		if !isHex(v) || (len(v) != 40 && len(v) != 64) {
			return "", false, errNeedGit // a symbolic ref, or damage
		}
		return v, true, nil
	case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, unix.EISDIR):
		return "", false, err
	}
	packed, err := os.ReadFile(filepath.Join(r.gitDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	for _, line := range strings.Split(string(packed), "\n") {
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		if v, n, found := strings.Cut(line, " "); found && n == name {
			if !isHex(v) {
				return "", false, errNeedGit
			}
			return v, true, nil
		}
	}
	return "", false, nil
}

// snap is a snapshot: its commit and the commit's tree.
type snap struct{ commit, tree string }

// readLast returns the last snapshot recorded in lastFile.
func (r *Repo) readLast() (snap, bool) {
	data, err := os.ReadFile(filepath.Join(r.gitDir, lastFile))
	if err != nil {
		return snap{}, false
	}
	c, t, ok := strings.Cut(strings.TrimSuffix(string(data), "\n"), " ")
	if !ok || !isHex(c) || !isHex(t) || len(c) != len(t) {
		return snap{}, false
	}
	return snap{c, t}, true
}

// writeLast records s in lastFile (a temporary file renamed over it).
func (r *Repo) writeLast(s snap) error {
	return beneath.WriteFile(filepath.Join(r.gitDir, lastFile), []byte(s.commit+" "+s.tree+"\n"), 0o600)
}

// commitText is the commit object git commit-tree writes for tree, an
// optional parent and the message "openseek snapshot" when its identity
// is env's and its clock reads when (author and committer dates are the
// same: git reads the clock once).
func commitText(tree, parent string, when time.Time) []byte {
	_, off := when.Zone()
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	date := fmt.Sprintf("%d %c%02d%02d", when.Unix(), sign, off/3600, off%3600/60)
	var b bytes.Buffer
	b.WriteString("tree " + tree + "\n")
	if parent != "" {
		b.WriteString("parent " + parent + "\n")
	}
	b.WriteString("author " + ident + " " + date + "\n")
	b.WriteString("committer " + ident + " " + date + "\n")
	b.WriteString("\n" + message)
	return b.Bytes()
}

// writeObject stores an object of type kind as a loose object, as git
// does: zlib-compressed "<kind> <len>\0<body>" at objects/xx/<rest of the
// id>, written to a temporary file in that directory, mode 0444, and
// linked (or renamed) into place; an existing object is left alone (its
// time refreshed, so that gc's pruning sees it as new). It returns the
// object's id.
func (r *Repo) writeObject(newHash func() hash.Hash, kind string, body []byte) (string, error) {
	header := kind + " " + strconv.Itoa(len(body)) + "\x00"
	h := newHash()
	h.Write([]byte(header))
	h.Write(body)
	id := hex.EncodeToString(h.Sum(nil))
	dir := filepath.Join(r.gitDir, "objects", id[:2])
	path := filepath.Join(dir, id[2:])
	if _, err := os.Stat(path); err == nil {
		now := time.Now()
		_ = os.Chtimes(path, now, now)
		return id, nil
	}
	z, err := storedZlib([]byte(header), body)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// git gc prunes stale tmp_obj_* files.
	f, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	_, err = f.Write(z)
	if err == nil {
		err = f.Chmod(0o444)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	// link refuses to replace an object written meanwhile; rename where
	// the file system has no hard links.
	if err := os.Link(tmp, path); err == nil || errors.Is(err, fs.ErrExist) {
		os.Remove(tmp)
		return id, nil
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return id, nil
}

// writeRef points the loose ref name at id, as git update-ref does: the
// new value goes to <ref>.lock (created exclusively, so a git process
// updating the same ref meanwhile fails one of the two) and is renamed
// over the ref. A loose ref takes precedence over packed-refs.
func (r *Repo) writeRef(name, id string) error {
	path := filepath.Join(r.gitDir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	lock := path + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("update %s (snapshot repository %s): %s exists: another git process is updating it; if none is running, delete that file", name, r.gitDir, lock)
	}
	if err != nil {
		return fmt.Errorf("update %s (snapshot repository %s): %w", name, r.gitDir, err)
	}
	_, err = f.WriteString(id + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(lock, path)
	}
	if err != nil {
		os.Remove(lock)
		return fmt.Errorf("update %s (snapshot repository %s): %w", name, r.gitDir, err)
	}
	return nil
}

// storedZlib is the zlib stream of the concatenated parts in one stored
// (uncompressed) deflate block, which git inflates like any other. A
// commit object is a few hundred bytes: compress/flate's writer would
// allocate 0.7–1.2 MB of state and take about a millisecond to save a
// few dozen of them.
func storedZlib(parts ...[]byte) ([]byte, error) {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if n > 0xffff {
		return nil, fmt.Errorf("object of %d bytes is too large for one stored block", n)
	}
	out := make([]byte, 0, 2+5+n+4)
	// CMF 0x78 (deflate, 32 KiB window), FLG 0x01 (fastest; CMF*256+FLG is a multiple of 31).
	out = append(out, 0x78, 0x01)
	// BFINAL=1, BTYPE=00 (stored), then LEN and its complement, little-endian.
	out = append(out, 0x01, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
	a := adler32.New()
	for _, p := range parts {
		out = append(out, p...)
		a.Write(p)
	}
	return binary.BigEndian.AppendUint32(out, a.Sum32()), nil
}
