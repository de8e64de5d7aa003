package tool

import "context"

// EditorRead reads a file as the user's editor holds it, unsaved changes
// included (an ACP client's fs/read_text_file). path is absolute and
// already resolved inside the workspace. ok is false when the editor
// cannot say (not offered, failed): the tool then reads the disk.
type EditorRead func(ctx context.Context, path string) (text string, ok bool)

// EditorText is the editor's text of path when the frontend connected an
// editor (Env.Editor); ok is false otherwise, and the caller reads the
// disk.
func (e *Env) EditorText(ctx context.Context, path string) (string, bool) {
	if e == nil || e.Editor == nil {
		return "", false
	}
	return e.Editor(ctx, path)
}
