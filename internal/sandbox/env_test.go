package sandbox

import (
	"slices"
	"testing"
)

func TestFilterEnv(t *testing.T) {
	tests := []struct {
		name  string
		env   []string
		allow []string
		want  []string
	}{
		{"plain variables pass", []string{"PATH=/bin", "HOME=/root", "LANG=C.UTF-8", "PWD=/w", "OLDPWD=/", "SSH_AUTH_SOCK=/s", "GIT_ASKPASS=x", "LD_LIBRARY_PATH=/l", "GOFLAGS=-mod=mod"},
			nil, []string{"PATH=/bin", "HOME=/root", "LANG=C.UTF-8", "PWD=/w", "OLDPWD=/", "SSH_AUTH_SOCK=/s", "GIT_ASKPASS=x", "LD_LIBRARY_PATH=/l", "GOFLAGS=-mod=mod"}},
		{"api keys", []string{"OPENAI_API_KEY=sk", "ANTHROPIC_API_KEY=a", "DEEPSEEK_API_KEY=d", "STRIPE_KEY=s", "X=1"}, nil, []string{"X=1"}},
		{"provider keys the README names", []string{"DEEPSEEK=d", "KIMI=k", "GLM=g", "ZAI_API_KEY=z", "ZHIPUAI_API_KEY=z", "MOONSHOT_API_KEY=m", "KIMI_API_KEY=k", "OPENROUTER_API_KEY=o", "X=1"}, nil, []string{"X=1"}},
		{"anything named key, token or secret", []string{"WORK_KEY=w", "MYKEYFILE=k", "GITLAB_TOKEN_RW=t", "SECRETS_DIR=/s", "KEY=k", "X=1"}, nil, []string{"X=1"}},
		{"tokens", []string{"GITHUB_TOKEN=g", "GH_TOKEN=g", "NPM_TOKEN=n", "CI_JOB_TOKEN=c", "TOKEN=t", "X=1"}, nil, []string{"X=1"}},
		{"secrets and passwords", []string{"CLIENT_SECRET=c", "MY_SECRET_VALUE=v", "PGPASSWORD=p", "DB_PASSWORD=p", "MYSQL_PWD=p", "SMTP_PASS=p", "PASSWORD=p", "X=1"}, nil, []string{"X=1"}},
		{"cloud credentials", []string{"AWS_ACCESS_KEY_ID=a", "AWS_SECRET_ACCESS_KEY=s", "AWS_PROFILE=p", "AZURE_CLIENT_SECRET=z", "GOOGLE_APPLICATION_CREDENTIALS=/c.json", "X=1"}, nil, []string{"X=1"}},
		{"lower case names", []string{"my_api_key=k", "github_token=t", "path=/bin"}, nil, []string{"path=/bin"}},
		{"allowed by name", []string{"GITHUB_TOKEN=g", "NPM_TOKEN=n"}, []string{"GITHUB_TOKEN"}, []string{"GITHUB_TOKEN=g"}},
		{"allowed by pattern", []string{"AWS_PROFILE=p", "AWS_REGION=r", "GH_TOKEN=g"}, []string{"AWS_*"}, []string{"AWS_PROFILE=p", "AWS_REGION=r"}},
		{"a bad pattern allows nothing", []string{"GH_TOKEN=g"}, []string{"["}, []string{}},
		{"entries without value are judged by name", []string{"API_KEY", "EMPTY="}, nil, []string{"EMPTY="}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.env)
			got := FilterEnv(tt.env, tt.allow)
			if !slices.Equal(got, tt.want) {
				t.Errorf("FilterEnv(%q, %q) = %q, want %q", tt.env, tt.allow, got, tt.want)
			}
			if !slices.Equal(in, tt.env) {
				t.Errorf("FilterEnv changed its input: %q", tt.env)
			}
		})
	}
}

func FuzzFilterEnv(f *testing.F) {
	f.Add("OPENAI_API_KEY=sk", "PATH=/bin", "AWS_*")
	f.Add("a=b", "TOKEN", "[")
	f.Fuzz(func(t *testing.T, a, b, allow string) {
		env := []string{a, b}
		got := FilterEnv(env, []string{allow})
		for _, kv := range got {
			if !slices.Contains(env, kv) {
				t.Fatalf("FilterEnv invented %q", kv)
			}
		}
		if allow == "" {
			for _, kv := range got {
				name, _, _ := cutName(kv)
				if IsSecretName(name) {
					t.Fatalf("FilterEnv kept secret %q", kv)
				}
			}
		}
	})
}

func cutName(kv string) (string, string, bool) {
	for i := range len(kv) {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}
