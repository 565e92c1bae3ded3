#!/usr/bin/env bash
# Writes the changelog entry nfpm turns into the .deb's changelog.Debian.gz
# (and the .rpm's %changelog), in nfpm's chglog YAML:
#
#   packaging/linux/gen-changelog.sh VERSION-RELEASE > changelog.yaml
#
# One entry for the version being packaged, dated by the commit it is built
# from (so that rebuilding a commit gives the same entry); the project's
# history is its git log.
set -euo pipefail
version=$1
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
date=$(git log -1 --format=%cI 2>/dev/null || date -u +%Y-%m-%dT%H:%M:%SZ)
dirty=""
if [[ -n $(git status --porcelain --untracked-files=no 2>/dev/null) ]]; then dirty="+uncommitted"; fi
cat <<YAML
- semver: "$version"
  date: "$date"
  packager: "Switchboard maintainers <switchboard-mcp@users.noreply.github.com>"
  deb:
    urgency: medium
    distributions:
      - unstable
  changes:
    - note: "Switchboard $version, from commit $commit$dirty."
YAML
