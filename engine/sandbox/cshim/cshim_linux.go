//go:build linux && cgo

package cshim

/*
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
#define SB_SYS_close_range 436 // the same number on every architecture

// Landlock's rights (linux/landlock.h), as engine/sandbox/landlock_linux.go.
#define FS_V1 ((1ULL << 13) - 1)
#define FS_REFER (1ULL << 13)
#define FS_TRUNCATE (1ULL << 14)
#define FS_IOCTL_DEV (1ULL << 15)
#define FS_READ (1ULL | 4ULL | 8ULL) // execute, read file, read dir
#define FS_FILE_ONLY (1ULL | 2ULL | 4ULL | FS_TRUNCATE | FS_IOCTL_DEV)
#define NET_BIND_TCP 1ULL
#define NET_CONNECT_TCP 2ULL

struct sb_ruleset_attr { uint64_t fs, net, scoped; };
struct sb_path_beneath { uint64_t allowed; int32_t parent_fd; } __attribute__((packed));
struct sb_net_port { uint64_t allowed; uint64_t port; };

static void sb_fail(int code, const char *what, const char *arg, int err) {
	fprintf(stderr, "switchboard sandbox: %s%s%s: %s\n", what, arg ? " " : "", arg ? arg : "", strerror(err));
	_exit(code);
}

// sb_unescape decodes %25 and %0A in place.
static void sb_unescape(char *s) {
	char *w = s;
	for (char *r = s; *r; r++) {
		if (r[0] == '%' && r[1] == '2' && r[2] == '5') { *w++ = '%'; r += 2; }
		else if (r[0] == '%' && r[1] == '0' && r[2] == 'A') { *w++ = '\n'; r += 2; }
		else *w++ = *r;
	}
	*w = 0;
}

static void sb_add_path(int rs, char *path, uint64_t access) {
	sb_unescape(path);
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == EACCES) return; // nothing there to allow
		sb_fail(125, "cannot open for a Landlock rule", path, errno);
	}
	struct stat st;
	if (fstat(fd, &st) != 0) sb_fail(125, "cannot stat for a Landlock rule", path, errno);
	if (!S_ISDIR(st.st_mode)) access &= FS_FILE_ONLY;
	struct sb_path_beneath a = { access, fd };
	if (syscall(SYS_landlock_add_rule, rs, 1, &a, 0) != 0) sb_fail(125, "landlock rule for", path, errno);
	close(fd);
}

static int sb_hex(char c) {
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	return -1;
}

// sb_seccomp installs the seccomp program the host wrote in hex (engine/
// sandbox/seccomp_linux.go seccompFilter: one generator for both shims),
// 8 bytes an instruction in the machine's byte order.
static void sb_seccomp(const char *hex) {
	size_t n = strlen(hex);
	if (n == 0 || n % 16 != 0 || n / 16 > 4096) sb_fail(125, "the seccomp program is not whole instructions in hex", NULL, EINVAL);
	unsigned char *b = malloc(n / 2);
	if (b == NULL) sb_fail(125, "the seccomp program", NULL, ENOMEM);
	for (size_t i = 0; i < n / 2; i++) {
		int hi = sb_hex(hex[2 * i]), lo = sb_hex(hex[2 * i + 1]);
		if (hi < 0 || lo < 0) sb_fail(125, "the seccomp program is not whole instructions in hex", NULL, EINVAL);
		b[i] = (unsigned char)(hi << 4 | lo);
	}
	struct sock_fprog prog = { (unsigned short)(n / 16), (struct sock_filter *)b };
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
		sb_fail(125, "cannot install the seccomp filter", NULL, errno);
	free(b);
}

// sb_restore_env sets the NAME=VALUE lines the host carried in
// SWITCHBOARD_SANDBOX_ENV (sandbox.EncodeCarried: %25 and %0A escaped).
static void sb_restore_env(char *carry) {
	char *save = NULL;
	for (char *l = strtok_r(carry, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		sb_unescape(l);
		char *eq = strchr(l, '=');
		if (eq == NULL || eq == l) sb_fail(125, "the carried environment has a line that is not NAME=VALUE", NULL, EINVAL);
		*eq = 0;
		if (setenv(l, eq + 1, 1) != 0) sb_fail(125, "cannot set the carried variable", l, errno);
	}
}

// switchboard_cshim runs before the Go runtime (glibc passes argc, argv
// and envp to constructors).
__attribute__((constructor)) static void switchboard_cshim(int argc, char **argv, char **envp) {
	(void)envp;
	if (argc < 4 || argv == NULL || strcmp(argv[1], "__sandbox-exec") != 0) return;
	const char *v = getenv("SWITCHBOARD_SANDBOX_POLICY");
	if (v == NULL || strncmp(v, "switchboard-sandbox 3\n", 22) != 0) return; // the Go shim says why
	size_t n = strlen(v);
	char *pol = strdup(v);
	if (pol == NULL) return;
	unsetenv("SWITCHBOARD_SANDBOX_POLICY");
	// The server's loader variables (sandbox.CarryEnv), which this
	// process started without: set again only for the server's execve,
	// after confinement (sb_restore_env).
	char *carry = NULL;
	const char *cv = getenv("SWITCHBOARD_SANDBOX_ENV");
	if (cv != NULL) {
		carry = strdup(cv);
		if (carry == NULL) sb_fail(125, "the carried environment", NULL, ENOMEM);
		unsetenv("SWITCHBOARD_SANDBOX_ENV");
	}

	int abi = 0;
	const char *net = "none", *bpf = NULL;
	char *save = NULL;
	for (char *l = strtok_r(pol, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (strncmp(l, "abi ", 4) == 0) abi = atoi(l + 4);
		else if (strncmp(l, "net ", 4) == 0) net = l + 4;
		else if (strncmp(l, "bpf ", 4) == 0) bpf = l + 4;
	}
	if (abi < 1) sb_fail(125, "the policy names no Landlock ABI", NULL, EINVAL);

	struct sb_ruleset_attr attr = { FS_V1, 0, 0 };
	if (abi >= 2) attr.fs |= FS_REFER;
	if (abi >= 3) attr.fs |= FS_TRUNCATE;
	if (abi >= 5) attr.fs |= FS_IOCTL_DEV;
	if (abi >= 4) attr.net = strcmp(net, "outbound") == 0 ? NET_BIND_TCP : (NET_BIND_TCP | NET_CONNECT_TCP);
	if (abi >= 6) attr.scoped = 3; // abstract Unix sockets, signals
	size_t size = abi >= 6 ? 24 : abi >= 4 ? 16 : 8;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) sb_fail(125, "no_new_privs", NULL, errno);
	long rs = syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (rs < 0) sb_fail(125, "landlock_create_ruleset", NULL, errno);

	// Second pass over the lines (strtok_r left NULs between them).
	for (char *l = pol; l < pol + n; l += strlen(l) + 1) {
		if (strncmp(l, "r ", 2) == 0) sb_add_path((int)rs, l + 2, FS_READ & attr.fs);
		else if (strncmp(l, "w ", 2) == 0) sb_add_path((int)rs, l + 2, attr.fs);
		else if (strncmp(l, "port ", 5) == 0 && abi >= 4 && strcmp(net, "allow") == 0) {
			struct sb_net_port p = { NET_CONNECT_TCP, (uint64_t)strtoull(l + 5, NULL, 10) };
			if (syscall(SYS_landlock_add_rule, rs, 2, &p, 0) != 0) sb_fail(125, "landlock rule for TCP port", l + 5, errno);
		}
	}
	if (syscall(SYS_landlock_restrict_self, rs, 0) != 0) sb_fail(125, "landlock_restrict_self", NULL, errno);
	close((int)rs);
	if (bpf != NULL) sb_seccomp(bpf);

	// The server gets its stdin, stdout and stderr, nothing else this
	// process inherited (close_range, CLOSE_RANGE_CLOEXEC: Linux 5.11).
	// 4 is CLOSE_RANGE_CLOEXEC.
	if (syscall(SB_SYS_close_range, 3, ~0U, 4) != 0)
		sb_fail(125, "cannot close the inherited descriptors", NULL, errno);
	if (carry != NULL) sb_restore_env(carry);
	extern char **environ;
	execve(argv[2], argv + 3, environ);
	sb_fail(errno == ENOENT ? 127 : 126, "cannot run (is it in the sandbox's read list?)", argv[2], errno);
}
*/
import "C"
