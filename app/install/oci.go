package install

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
)

// ErrNoDocker says docker is not where servers' PATH would find it.
var ErrNoDocker = errors.New("docker is not in the PATH the host gives servers")

// Docker runs the docker command line.
type Docker struct {
	Path string   // docker's absolute path
	Env  []string // its environment (nil: this process's)
}

// digestRef is an image reference's digest part.
var digestRef = regexp.MustCompile(`@sha256:[0-9a-f]{64}$`)

// imageRef is the image an OCI package names: its identifier, with
// :VERSION when it names neither a tag nor a digest.
func imageRef(identifier, version string) string {
	last := identifier[strings.LastIndex(identifier, "/")+1:]
	if version != "" && !strings.Contains(identifier, "@") && !strings.Contains(last, ":") {
		return identifier + ":" + version
	}
	return identifier
}

// PinImage is the image of an OCI package by digest
// (REPOSITORY@sha256:HEX), which `docker run` checks the pulled image
// against: the digest the registry entry gives, else its tag resolved
// once, now, with `docker buildx imagetools inspect` (a tag can be moved
// to another image later; the digest cannot).
func PinImage(ctx context.Context, d Docker, identifier, version string) (string, error) {
	ref := imageRef(identifier, version)
	if strings.Contains(ref, "@") {
		if !digestRef.MatchString(ref) {
			return "", fmt.Errorf("the image %q names a digest that is not sha256:HEX (64 hex digits)", ref)
		}
		return ref, nil
	}
	cmd := exec.CommandContext(ctx, d.Path, imagetoolsArgs(ref)...)
	cmd.Env = d.Env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("resolving the image tag %s to a digest (docker %s) failed (%v): %s",
			ref, strings.Join(imagetoolsArgs(ref), " "), err, strings.TrimSpace(errb.String()))
	}
	var m struct {
		Digest string `json:"digest"`
	}
	if err := json.Unmarshal(out.Bytes(), &m); err != nil || !digestRef.MatchString("@"+m.Digest) {
		return "", fmt.Errorf("resolving the image tag %s to a digest: docker gave no sha256 digest (%q)", ref, strings.TrimSpace(out.String()))
	}
	repo := ref
	if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
		repo = repo[:i] // the tag, not a registry's port
	}
	return repo + "@" + m.Digest, nil
}

// imagetoolsArgs is docker's argument vector that prints the descriptor
// (mediaType, digest, size) of the manifest a tag names, from the
// registry, without pulling the image.
func imagetoolsArgs(ref string) []string {
	return []string{"buildx", "imagetools", "inspect", "--format", "{{json .Manifest}}", ref}
}
