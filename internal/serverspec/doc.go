// Package serverspec is the vocabulary and the rules of a server's spec
// that the engine (which runs servers) and the app's config (which reads
// and checks the file that describes them) both speak: an environment
// value with its secret references, a sandbox policy and what it may
// never grant, and the checks of a command, a working directory and a
// stderr file. It knows neither of them, so the config, and the UI that
// reads it, are built without the engine (internal/deptest).
package serverspec
