package config

import "testing"

func TestChatURL(t *testing.T) {
	for _, tc := range []struct {
		in, out string
		changed bool
	}{
		{"http://h:8080/v1/chat/completions", "http://h:8080/v1/chat/completions", false},
		{"http://h:8080/v1", "http://h:8080/v1/chat/completions", true},
		{"http://h:8080/v1/", "http://h:8080/v1/chat/completions", true},
		{"https://h", "https://h/chat/completions", true},
		{"https://h/openai/v1?api-version=2", "https://h/openai/v1/chat/completions?api-version=2", true},
	} {
		got, changed := ChatURL(tc.in)
		if got != tc.out || changed != tc.changed {
			t.Errorf("ChatURL(%q) = %q, %v; want %q, %v", tc.in, got, changed, tc.out, tc.changed)
		}
	}
	for _, bad := range []string{"localhost:8080/v1", "api.example.com", "ftp://h/v1", "http://"} {
		if CheckAPIURL(bad) == nil {
			t.Errorf("CheckAPIURL(%q) accepted", bad)
		}
	}
	if err := CheckAPIURL("http://127.0.0.1:1/v1"); err != nil {
		t.Error(err)
	}
}
