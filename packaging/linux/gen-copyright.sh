#!/usr/bin/env bash
# Writes the copyright file of the Linux packages for a built binary:
#
#   packaging/linux/gen-copyright.sh BINARY > copyright
#
# A Go binary contains the code of every module it links, so the file gives
# Switchboard's own notice and then, for the Go standard library and each
# module that `go version -m BINARY` lists, its license text from the
# module cache (Apache-2.0 texts point at /usr/share/common-licenses, as
# Debian asks). Run it from the repository root, after the build.
set -euo pipefail
bin=$1

license_of() { # a short name for a license text (for the summary list)
	local f=$1
	if grep -q 'Apache License' "$f" && grep -q 'Version 2.0' "$f"; then echo Apache-2.0
	elif grep -q 'Mozilla Public License' "$f"; then echo MPL-2.0
	elif grep -qi 'Permission is hereby granted, free of charge' "$f"; then echo Expat
	elif grep -qi 'Permission to use, copy, modify, and/or distribute' "$f"; then echo ISC
	elif grep -qi 'Neither the name' "$f"; then echo BSD-3-clause
	elif grep -qi 'Redistribution and use in source and binary forms' "$f"; then echo BSD-2-clause
	elif grep -qi 'Altered source versions must be plainly marked' "$f"; then echo Zlib
	elif grep -qi 'unlicense\|public domain' "$f"; then echo public-domain
	else echo other
	fi
}

print_text() { # the license text, or a pointer for the texts Debian ships
	local f=$1
	case $(license_of "$f") in
	Apache-2.0) echo " The Apache License, Version 2.0: see /usr/share/common-licenses/Apache-2.0." ;;
	MPL-2.0) echo " The Mozilla Public License 2.0: see /usr/share/common-licenses/MPL-2.0." ;;
	*) sed -e 's/[[:space:]]*$//' -e 's/^/ /' -e 's/^ $/ ./' "$f" ;;
	esac
}

find_license() { # the license file in a directory
	local d
	for d in "$@"; do
		for n in LICENSE LICENSE.md LICENSE.txt LICENCE LICENCE.md COPYING COPYING.txt COPYING.md License license; do
			if [[ -f $d/$n ]]; then
				echo "$d/$n"
				return 0
			fi
		done
	done
	return 0
}

echo "Switchboard"
echo "Upstream: https://github.com/switchboard-mcp/switchboard"
echo
echo "Copyright: The Switchboard authors"
if [[ -f LICENSE ]]; then
	echo "License: $(license_of LICENSE)"
	print_text LICENSE
else
	echo "License: none chosen yet; all rights reserved until the project adds a"
	echo " LICENSE file (this packaging then copies it here)."
fi

# Modules as the binary records them: "dep PATH VERSION SUM" lines, with a
# "=> PATH VERSION SUM" line after a replaced one.
mapfile -t deps < <(go version -m "$bin" | awk '$1 == "dep" { p = $2; v = $3 } $1 == "=>" { p = $2; v = $3 } $1 == "dep" || $1 == "=>" { print p " " v }' | awk '{ m[$1] = $2 } END { for (k in m) print k " " m[k] }' | sort)

echo
echo "This binary contains the Go standard library and these Go modules:"
goroot=$(go env GOROOT)
declare -A files
files[go]=$(find_license "$goroot")
echo " Go $(go env GOVERSION) standard library: $(license_of "${files[go]}")"
modcache=$(go env GOMODCACHE)
for d in "${deps[@]}"; do
	path=${d% *} ver=${d#* }
	[[ $path == github.com/switchboard-mcp/switchboard ]] && continue
	# The module cache escapes capital letters as !lower.
	esc=$(printf '%s' "$path@$ver" | sed -e 's/\([A-Z]\)/!\L\1/g')
	dir=$modcache/$esc
	parent=$(dirname "$dir")
	f=$(find_license "$dir")
	if [[ -z $f ]]; then
		# A module nested in a repository (go-gl/glfw/v3.3/glfw) may keep its
		# license at the repository's root: look in the cached root too.
		root=$modcache/$(printf '%s' "${path%%/*}/$(cut -d/ -f2,3 <<<"${path#*/}")@$ver" | sed -e 's/\([A-Z]\)/!\L\1/g')
		f=$(find_license "$root" "$parent")
	fi
	files[$path]=$f
	if [[ -n $f ]]; then
		echo " $path $ver: $(license_of "$f")"
	else
		echo " $path $ver: license file not found in the module cache"
	fi
done

echo
echo "The license texts follow."
printf '%s\n' "${!files[@]}" | sort | while read -r k; do
	f=${files[$k]}
	[[ -n $f ]] || continue
	echo
	if [[ $k == go ]]; then echo "Go standard library:"; else echo "$k:"; fi
	print_text "$f"
done
