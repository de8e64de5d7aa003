package hooks

import "encoding/json"

// ClaudeName is Claude Code's name for an OpenSeek tool ("" when there is
// none). Matchers are tried against both names, so hooks written for
// Claude Code ("Bash", "Edit|Write") fire unchanged.
func ClaudeName(tool string) string {
	switch tool {
	case "shell":
		return "Bash"
	case "job_output":
		return "BashOutput"
	case "job_stop":
		return "KillShell"
	case "read":
		return "Read"
	case "write":
		return "Write"
	case "edit":
		return "Edit"
	case "multi_edit":
		return "MultiEdit"
	case "agent":
		return "Task"
	case "plan":
		return "TodoWrite"
	case "skill":
		return "Skill"
	}
	return ""
}

// claudeInput adds Claude Code's argument names beside OpenSeek's
// (command for cmd, file_path for path) so hook scripts that read
// .tool_input.command or .tool_input.file_path keep working.
func claudeInput(tool string, raw json.RawMessage) json.RawMessage {
	var alias map[string]string
	switch tool {
	case "shell":
		alias = map[string]string{"cmd": "command"}
	case "read", "write", "edit", "remove":
		alias = map[string]string{"path": "file_path"}
	default:
		return raw
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return raw
	}
	for from, to := range alias {
		if v, ok := m[from]; ok {
			if _, taken := m[to]; !taken {
				m[to] = v
			}
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return out
}
