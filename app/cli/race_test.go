//go:build linux && race

package cli

const raceEnabled = true
