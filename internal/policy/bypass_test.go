package policy

import "testing"

// bypassCorpus are commands that look read-only but write files or run
// programs through an option, an environment variable or a file the
// workspace supplies. In ask mode each must be asked about (or denied),
// in plan mode each must be refused: none may pass as read-only.
var bypassCorpus = []string{
	// git: options that run programs or point at other repositories
	"git ls-remote --upload-pack='touch pwned' .",
	"git ls-remote --upload-pack=./evil .",
	"git ls-remote -u ./evil .",
	"git ls-remote --exec=./evil .",
	"git --git-dir=sub/.git status",
	"git --git-dir sub/.git status",
	"git --work-tree=. --git-dir=vendor/x.git log",
	"git -C sub status",
	"git -C vendor/lib log -1",
	"git -c core.fsmonitor='touch pwned' status",
	"git -c core.pager='sh -c id' log",
	"git -c alias.st='!touch pwned' st",
	"git --config-env=core.pager=EVIL log",
	"git --exec-path=./bin status",
	"git log --output=out.txt",
	"git diff --output=patch.diff",
	"git diff --ext-diff",
	"git show --ext-diff HEAD",
	"git grep --open-files-in-pager=vi foo",
	"git grep -O foo",
	"git help -w log",
	"git help --web log",
	"git help -i log",
	"git help -m log",
	"git config core.pager 'touch pwned'",
	"git config --add core.hooksPath .",
	"git branch -D main",
	"git tag -d v1",
	"git stash drop",
	"git worktree add ../x",
	"git remote add evil ./x",
	"git notes add -m x",
	"git reflog expire --all",
	"git fetch",
	"git checkout -- .",
	// environment that makes a program run another
	"GIT_DIR=sub/.git git status",
	"GIT_CONFIG_GLOBAL=./evil.cfg git log",
	"GIT_EXTERNAL_DIFF=./evil git diff",
	"GIT_PAGER='touch pwned' git log",
	"GIT_SSH_COMMAND=./evil git ls-remote origin",
	"LESSOPEN='|touch pwned %s' less README.md",
	"LESSOPEN='||./evil %s' less README.md",
	"LESSCLOSE='touch pwned' less README.md",
	"LESS='+!touch pwned' less README.md",
	"LESSKEY=./keys less README.md",
	"PAGER='touch pwned' git log",
	"EDITOR=./evil git log",
	"VISUAL=./evil less README.md",
	"MANPAGER='touch pwned' ls",
	"BROWSER=./evil git help log",
	"HOME=. git log",
	"XDG_CONFIG_HOME=. git status",
	"RIPGREP_CONFIG_PATH=./rgrc rg foo",
	"MAGIC=./magic file README.md",
	"LD_PRELOAD=./x.so ls",
	"LD_LIBRARY_PATH=. ls",
	"BASH_ENV=./evil.sh bash -c ls",
	"ENV=./evil.sh sh -c ls",
	"PATH=.:$PATH ls",
	"IFS=x ls",
	"PROMPT_COMMAND='touch pwned' ls",
	"SHELLOPTS=xtrace ls",
	"NODE_OPTIONS='--require ./evil.js' ls",
	"PYTHONSTARTUP=./evil.py ls",
	"PERL5OPT=-Mevil ls",
	"GOFLAGS=-toolexec=./evil go vet ./...",
	"GOFLAGS=-vettool=./evil go vet ./...",
	"GOTOOLCHAIN=go1.99 go version",
	"GOENV=./goenv go list ./...",
	"env LESSOPEN='|touch pwned %s' less README.md",
	"env GIT_DIR=sub/.git git status",
	"env PAGER=./evil git log",
	"env -S 'touch pwned' ls",
	"export LESSOPEN='|touch pwned %s'; less README.md",
	"export GIT_DIR=sub/.git; git status",
	"export PATH=.:$PATH; ls",
	"declare -x PAGER=./evil; git log",
	// less and more: start-up commands, key files, log files
	"less '+!touch pwned' README.md",
	"less +!id README.md",
	"more '+!touch pwned' README.md",
	"less -k ./keys README.md",
	"less --lesskey-src=./keys README.md",
	"less -o log.txt README.md",
	"less -O log.txt README.md",
	"less --log-file=log.txt README.md",
	"less -No log.txt README.md",
	// file: compiling magic writes
	"file -C -m ./magic",
	"file --compile -m ./magic",
	"file -Cm ./magic",
	// other read-looking tools that write or run
	"rg --pre ./evil foo",
	"rg --pre=./evil foo",
	"rg --pre-glob '*' --pre ./evil foo",
	"sort -o out.txt in.txt",
	"sort --output=out.txt in.txt",
	"sort --compress-program=./evil big.txt",
	"tree -o out.txt",
	"uniq in.txt out.txt",
	"xxd in.bin out.txt",
	"date -s '2020-01-01'",
	"hostname evil",
	"find . -exec touch pwned ';'",
	"find . -delete",
	"find . -fprint out.txt",
	"go vet -vettool=./evil ./...",
	"go list -toolexec=./evil ./...",
	"go env -w GOFLAGS=-toolexec=./evil",
	"go run .",
	"go generate ./...",
	// redirection, substitution and relative programs
	"ls > out.txt",
	"cat README.md >> out.txt",
	"echo hi | tee out.txt",
	"ls $(touch pwned)",
	"cat `touch pwned`",
	"./ls",
	"bin/cat README.md",
	"eval 'touch pwned'",
	"bash -c 'touch pwned'",
	"sh -c \"$CMD\"",
	"$PROG README.md",
	"alias ls='touch pwned'; ls",
	"trap 'touch pwned' EXIT",
	"sudo ls",
	"xargs touch < list.txt",
	"awk 'BEGIN{system(\"touch pwned\")}'",
	"sed -i s/a/b/ README.md",
	"python3 -c 'import os'",
	"perl -e 'print 1'",
	"vim -c ':!touch pwned' README.md",
	"man -P 'touch pwned' ls",
	"tar -xf x.tar",
	"make",
	"npm test",
}

func TestBypassCorpus(t *testing.T) {
	if len(bypassCorpus) < 100 {
		t.Fatalf("the corpus holds %d attempts; keep at least 100", len(bypassCorpus))
	}
	for _, script := range bypassCorpus {
		t.Run(script, func(t *testing.T) {
			if v := (&Policy{Mode: ModeAsk}).CheckCommand(script); v.Decision == Allow {
				t.Errorf("ask mode allows %q without asking: %s", script, v.Reason)
			}
			if v := (&Policy{Mode: ModePlan}).CheckCommand(script); v.Decision != Deny {
				t.Errorf("plan mode: %s for %q, want deny: %s", v.Decision, script, v.Reason)
			}
		})
	}
}

// TestReadOnlyStillAllowed keeps the corpus honest: the plain forms of the
// same commands stay read-only.
func TestReadOnlyStillAllowed(t *testing.T) {
	for _, script := range []string{
		"git status", "git log --oneline -5", "git diff HEAD~1", "git ls-remote origin", "git help log",
		"less README.md", "less -R README.md", "more README.md", "file README.md", "file -b -m ./magic README.md",
		"LANG=C ls", "X=1 ls", "rg -n foo", "sort in.txt", "go vet ./...",
	} {
		if v := (&Policy{Mode: ModeAsk}).CheckCommand(script); v.Decision != Allow {
			t.Errorf("ask mode: %s for %q, want allow: %s", v.Decision, script, v.Reason)
		}
	}
}
