package skills

import (
	"context"
	"fmt"
	"strings"

	"github.com/openseek/openseek/internal/tool"
)

// ToolName is the name of the tool that loads a skill.
const ToolName = "skill"

type toolArgs struct {
	Name string `json:"name" jsonschema:"the skill's name, as listed in the system prompt's Skills section"`
}

// Tool is the skill tool: {"name": …} returns that skill's instructions
// and the directory its relative files live in. The body is read when the
// tool runs, not when the tool is built. An unknown name is an error
// result listing the names there are.
func Tool(skills []Skill) tool.Tool {
	byName := make(map[string]Skill, len(skills))
	names := make([]string, 0, len(skills))
	for _, s := range skills {
		if _, dup := byName[s.Name]; dup {
			continue
		}
		byName[s.Name] = s
		names = append(names, s.Name)
	}
	const desc = "Load a skill: the full instructions for a kind of task listed in the system prompt's Skills section. Call it before starting a task that matches a skill's description, then follow the instructions."
	return tool.Func(ToolName, desc, func(_ context.Context, _ *tool.Env, a toolArgs) tool.Result {
		s, ok := byName[strings.TrimSpace(a.Name)]
		if !ok {
			if len(names) == 0 {
				return tool.Errorf("error: unknown skill %q: no skills are installed", a.Name)
			}
			return tool.Errorf("error: unknown skill %q; available skills: %s", a.Name, strings.Join(names, ", "))
		}
		body, err := s.Body()
		if err != nil {
			return tool.Errorf("error: %v", err)
		}
		text := fmt.Sprintf("Skill %s (%s)\nSkill directory: %s (relative paths below are relative to it)\n\n%s\n", s.Name, s.Path, s.Dir(), body)
		res := tool.TextResult(text)
		res.Brief = "skill " + s.Name
		return res
	})
}
