package markdown

import (
	"reflect"
	"testing"
)

func TestCodeBlocks(t *testing.T) {
	src := "Run:\n\n```sh\ngo test ./...\n```\n\n- in a list:\n\n  ```go\n  func main() {\n  \tprintln(1)\n  }\n  ```\n\n> quoted\n>\n>     indented code\n"
	want := []string{"go test ./...\n", "func main() {\n\tprintln(1)\n}\n", "indented code\n"}
	if got := CodeBlocks(src); !reflect.DeepEqual(got, want) {
		t.Errorf("CodeBlocks = %q, want %q", got, want)
	}
	if got := CodeBlocks("no code here"); got != nil {
		t.Errorf("CodeBlocks of prose = %q", got)
	}
}
