// Package secrets keeps the secrets of MCP servers (API tokens and the
// like) in the operating system's keyring, through go-keyring: the Secret
// Service on Linux (gnome-keyring, KeePassXC, ...), the Keychain on macOS
// and the Credential Manager on Windows. A secret's value is never written
// to a file, a log or the screen by this package, and there is no
// plain-text fallback of any kind: when no keyring can be reached, every
// operation fails with an *Error of Kind NoProvider that says what to do.
//
// # Values
//
// A value travels as a Secret, whose every printed or encoded form (fmt with
// any verb, JSON, text, slog) is the redaction "[redacted]"; only Reveal
// returns the value.
//
// # The index
//
// go-keyring cannot list the entries of a service, so a Store keeps the
// NAMES of its secrets (never a value) in a small JSON file, written
// atomically (temporary file in the same directory, fsync, rename) with
// mode 0600 in a directory created 0700. Changes to the keyring and the
// index are made under an in-process mutex and a file lock (gofrs/flock on
// indexPath+".lock"), so several goroutines and several processes may use
// the same store.
//
// List returns the index and does not touch the keyring: listing must work
// while the keyring is locked, must not raise an unlock prompt and must not
// pull every value into memory. A name whose keyring entry was removed
// behind switchboard's back therefore stays listed until Delete is called
// for it; Delete of such a name succeeds and drops it from the index.
//
// # Limits
//
// Set refuses, before writing anything, a value above the limit of the
// platform's keyring: 2560 bytes on Windows (Credential Manager), about
// 3000 on macOS (exactly what go-keyring's 4096-byte 'security -i' command
// leaves for the base64-encoded value and the name), and on Linux 64 KiB,
// a limit of this package (the Secret Service has none; an API token is a
// few hundred bytes). An empty value is refused too.
//
// # Concurrency
//
// Calls into go-keyring are serialized within the process (on Linux they
// share one D-Bus connection, and go-keyring takes any prompt signal on it
// for its own). Resolve honours its context: if the keyring does not answer
// in time (an unlock prompt is open), it returns an error wrapping
// ctx.Err().
//
// # No D-Bus autolaunch
//
// On Linux, godbus (used by go-keyring) starts a session bus with
// dbus-launch when it finds none, and that bus and its daemons are left
// running. Before it touches the keyring, a Store therefore checks that a
// session bus exists (DBUS_SESSION_BUS_ADDRESS, or the socket
// /run/user/UID/bus that godbus discovers by itself) and otherwise returns a
// NoProvider error without calling go-keyring.
package secrets
