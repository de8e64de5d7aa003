package tui

import "github.com/openseek/openseek/internal/chat"

type chatCall = chat.ToolCall
