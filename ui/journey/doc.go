// Package journey holds the scripted journeys through the app: a person's
// way through the real window (Fyne's GLFW driver, under Xvfb), with real
// mouse clicks and key presses (xdotool), against a real host and real
// MCP servers. It is tests only (journey_*_test.go, Linux with cgo); see
// docs/decisions.md ("Journeys in-process on the real driver") and
// docs/window.md.
//
//	go test -race -count=1 -v ./ui/journey/
//
// Without Xvfb or xdotool the journeys skip, except under CI=true, where
// they fail.
package journey
