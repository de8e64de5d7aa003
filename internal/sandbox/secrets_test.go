package sandbox

import (
	"slices"
	"testing"
)

func TestSecretsEnv(t *testing.T) {
	s := SecretsFromEnv(
		[]string{"DEEPSEEK=sk-deepseek-0123456789", "PROJECT_OPENAI=sk-project-abcdefgh", "PATH=/bin"},
		[]string{"PROJECT_OPENAI"},
		[]string{"sk-flag-key-987654321"},
	)
	tests := []struct {
		name  string
		env   []string
		allow []string
		want  []string
	}{
		{"configured variable by name", []string{"PROJECT_OPENAI=other", "X=1"}, nil, []string{"X=1"}},
		{"a key copied into an innocent name", []string{"COPY=sk-deepseek-0123456789", "X=1"}, nil, []string{"X=1"}},
		{"a key inside a longer value", []string{"URL=https://u:sk-flag-key-987654321@h/", "X=1"}, nil, []string{"X=1"}},
		{"built-in name", []string{"KIMI=k", "GLM=g", "X=1"}, nil, []string{"X=1"}},
		{"explicitly allowed", []string{"PROJECT_OPENAI=sk-project-abcdefgh"}, []string{"PROJECT_OPENAI"}, []string{"PROJECT_OPENAI=sk-project-abcdefgh"}},
		{"plain", []string{"PATH=/bin", "HOME=/h"}, nil, []string{"PATH=/bin", "HOME=/h"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.Env(tt.env, tt.allow); !slices.Equal(got, tt.want) {
				t.Errorf("Env(%q) = %q, want %q", tt.env, got, tt.want)
			}
		})
	}
}

func TestSecretsRedact(t *testing.T) {
	s := NewSecrets(nil, []string{"sk-0123456789abcdef", "sk-0123456789", "short", ""})
	tests := []struct{ in, want string }{
		{"key=sk-0123456789abcdef!", "key=" + Redacted + "!"},
		{"prefix sk-0123456789 only", "prefix " + Redacted + " only"},
		{"a short value stays: short", "a short value stays: short"},
		{"nothing here", "nothing here"},
		{"twice sk-0123456789abcdef sk-0123456789abcdef", "twice " + Redacted + " " + Redacted},
	}
	for _, tt := range tests {
		if got := s.Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	var none *Secrets
	if got := none.Redact("sk-0123456789abcdef"); got != "sk-0123456789abcdef" {
		t.Errorf("nil Secrets changed text: %q", got)
	}
}
