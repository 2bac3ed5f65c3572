package config

// TableCommands is the binary's own table of commands (internal/app's), set by
// table_test.go: config's tests read the inputs against the commands the
// binary offers, not a copy of them.
var TableCommands Commands
