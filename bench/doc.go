// Package bench holds the transport benchmarks of Switchboard: the
// engine/stdio transport against the go-sdk's own stdio transports
// (IOTransport and CommandTransport) on the same bytes and the same child
// processes. Everything is in its _test.go files; run.sh runs them in
// alternating rounds and prints a table of medians and ratios.
package bench
