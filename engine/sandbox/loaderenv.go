package sandbox

import "strings"

// CarryEnv is the variable in which the host hands the exec shim the
// server's loader variables ([LoaderVar]), so that no loader, libc or
// linked library of the shim acts on them before it is confined: the
// engine removes them from the shim's environment and puts them here, one
// NAME=VALUE a line ([EncodeCarried]); the shim removes CarryEnv, confines
// itself, and sets them again only for its execve of the server
// (docs/sandbox.md "The loader's variables").
const CarryEnv = "SWITCHBOARD_SANDBOX_ENV"

// unsecureEnv is glibc's list of the variables a program in secure-
// execution mode never sees (sysdeps/generic/unsecvars.h, ld.so(8)
// "Secure-execution mode"), less the LD_* and MALLOC_* that LoaderVar
// takes by prefix.
var unsecureEnv = map[string]bool{
	"GCONV_PATH": true, "GETCONF_DIR": true, "GLIBC_TUNABLES": true, "HOSTALIASES": true,
	"LOCALDOMAIN": true, "LOCPATH": true, "NIS_PATH": true, "NLSPATH": true,
	"RESOLV_HOST_CONF": true, "RES_OPTIONS": true, "TMPDIR": true, "TZDIR": true,
}

// LoaderVar reports whether the dynamic loader or glibc may act on the
// environment variable name while a program starts, before its main: every
// LD_* (LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT, ... also the ones a future
// glibc adds), every MALLOC_* (malloc's tunables and MALLOC_TRACE) and the
// rest of glibc's unsecure list (GCONV_PATH, GLIBC_TUNABLES, LOCPATH, ...).
// A sandboxed server gets them from its exec shim after it is confined,
// never before.
func LoaderVar(name string) bool {
	return strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "MALLOC_") || unsecureEnv[name]
}

// EncodeCarried is the environment entry CarryEnv=... that carries
// entries (NAME=VALUE each) to the shim, one a line, their % and line feed
// written %25 and %0A, built in a byte slice of its exact size: the
// caller zeroes it once the shim is started (an entry may hold a secret's
// value). Nil when entries is empty.
func EncodeCarried(entries []string) []byte {
	if len(entries) == 0 {
		return nil
	}
	size := len(CarryEnv) + 1
	for _, e := range entries {
		size += len(e) + strings.Count(e, "%")*2 + strings.Count(e, "\n")*2 + 1
	}
	b := make([]byte, 0, size) // exactly: no append may move it
	b = append(append(b, CarryEnv...), '=')
	for _, e := range entries {
		for i := 0; i < len(e); i++ {
			switch e[i] {
			case '%':
				b = append(b, "%25"...)
			case '\n':
				b = append(b, "%0A"...)
			default:
				b = append(b, e[i])
			}
		}
		b = append(b, '\n')
	}
	return b
}
