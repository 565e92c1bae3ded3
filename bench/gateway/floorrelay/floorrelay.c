/*
 * floorrelay: the floor of any relay process on this machine (issue 12).
 *
 *   floorrelay PROGRAM [ARG...]
 *
 * It starts PROGRAM with a pipe on its stdin and stdout and copies bytes
 * both ways, stdin to the child and the child's stdout to stdout, in one
 * thread around poll(2): one wake-up for the request, one for the answer,
 * and a read and a write for each, as a relay that must see every byte
 * needs at least. It parses nothing, checks nothing, rewrites no id, and
 * has no runtime: no relay written in any language can do less per call.
 * bench/gateway runs it beside switchboard's host between the same client
 * and the same tiny server, so that the host's figures can be read against
 * what a relay that does nothing costs on the same machine in the same run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int copy(int from, int to, char *buf, size_t size)
{
	ssize_t n = read(from, buf, size);
	if (n < 0 && errno == EINTR)
		return 0;
	if (n <= 0)
		return -1;
	for (ssize_t off = 0; off < n;) {
		ssize_t w = write(to, buf + off, (size_t)(n - off));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		off += w;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: floorrelay PROGRAM [ARG...]\n");
		return 2;
	}
	int in[2], out[2];
	if (pipe(in) || pipe(out)) {
		perror("floorrelay: pipe");
		return 1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("floorrelay: fork");
		return 1;
	}
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]); close(in[1]); close(out[0]); close(out[1]);
		execvp(argv[1], argv + 1);
		perror("floorrelay: exec");
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	signal(SIGPIPE, SIG_IGN);
	static char buf[1 << 16];
	struct pollfd fds[2] = {{.fd = 0, .events = POLLIN}, {.fd = out[0], .events = POLLIN}};
	for (;;) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (fds[0].revents && copy(0, in[1], buf, sizeof buf))
			break; /* the client closed: close the child's stdin */
		if (fds[1].revents && copy(out[0], 1, buf, sizeof buf))
			break;
	}
	close(in[1]);
	int st;
	waitpid(pid, &st, 0);
	return 0;
}
