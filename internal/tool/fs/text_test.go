package fs

import "testing"

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"", "ab", 2},
		{"main", "main", 0},
		{"mian", "main", 1},
		{"scr", "src", 1},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3},
	}
	for _, tt := range tests {
		if got := editDistance([]rune(tt.a), []rune(tt.b)); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestClosestLine(t *testing.T) {
	content := "package main\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n"
	tests := []struct {
		old      string
		wantLine int
	}{
		{"fmt.Println(\"helo\")", 4},
		{"\n  func main() {", 3},
		{"completely different text here", 0},
		{"   \n", 0},
	}
	for _, tt := range tests {
		if got, _ := closestLine(content, tt.old); got != tt.wantLine {
			t.Errorf("closestLine(%q) = %d, want %d", tt.old, got, tt.wantLine)
		}
	}
}
