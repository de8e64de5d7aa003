package skills

import "strings"

// Section is the system prompt's Skills section: one "- name: description"
// line per skill, in the order given (Discover's order is by name), and how
// to load one. It is "" when there are no skills, so a session without
// skills has the same prompt as before skills existed.
func Section(skills []Skill) string {
	if len(skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Skills\n")
	b.WriteString("Skills are instructions for particular kinds of task. When a task matches a skill's description, call the " + ToolName + " tool with the skill's name to load its instructions before you start, then follow them. Load a skill only when it applies.\n")
	for _, s := range skills {
		b.WriteString("- ")
		b.WriteString(s.Name)
		b.WriteString(": ")
		b.WriteString(oneLine(s.Description))
		b.WriteString("\n")
	}
	return b.String()
}
