#!/usr/bin/env bash
# Fetches the Stanford bunny, armadillo and Chinese dragon that Debian's libcgal-demo package ships as
# OFF files (inside /usr/share/doc/libcgal-dev/data.tar.gz), for the mesh-pair benchmarks only
# (docs/mesh-benchmarks.md). The meshes are downloaded at run time into a cache directory under build/
# and never committed.
#
#   tools/fetch_stanford_meshes.sh [CACHE_DIR (build/stanford)]
#
# Prints the three paths, one per line: bunny (75k triangles), armadillo (52k), dragon (20k).
# Idempotent: files already in CACHE_DIR/meshes are kept, and a libcgal-demo_*.deb already in CACHE_DIR
# (or named by KOLLIDE_CGAL_DEMO_DEB) is used instead of downloading. Needs apt-get (download only: no
# root, no install), dpkg-deb and tar.
# SPDX-License-Identifier: MIT
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${1:-$root/build/stanford}
names=(bunny00.off armadillo.off ChineseDragon-10kv.off)

mkdir -p "$cache/meshes"
cache=$(cd "$cache" && pwd)

have_all() {
	local n
	for n in "${names[@]}"; do
		[[ -s $cache/meshes/$n ]] || return 1
	done
}

if ! have_all; then
	deb=${KOLLIDE_CGAL_DEMO_DEB:-}
	if [[ -z $deb ]]; then
		deb=$(find "$cache" -maxdepth 1 -name 'libcgal-demo_*.deb' | sort | tail -n 1)
	fi
	if [[ -z $deb ]]; then
		command -v apt-get >/dev/null || { echo "fetch_stanford_meshes: apt-get not found (Debian/Ubuntu needed, or set KOLLIDE_CGAL_DEMO_DEB to a libcgal-demo .deb)" >&2; exit 1; }
		echo "fetch_stanford_meshes: downloading libcgal-demo into $cache" >&2
		(cd "$cache" && apt-get download libcgal-demo >&2) || {
			echo "fetch_stanford_meshes: 'apt-get download libcgal-demo' failed (try 'sudo apt-get update' first)" >&2
			exit 1
		}
		deb=$(find "$cache" -maxdepth 1 -name 'libcgal-demo_*.deb' | sort | tail -n 1)
	fi
	[[ -f $deb ]] || { echo "fetch_stanford_meshes: no libcgal-demo .deb at '$deb'" >&2; exit 1; }
	tmp=$(mktemp -d "$cache/extract.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# Only the three meshes leave the archive: the .deb's data tarball holds data.tar.gz, which holds them.
	dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/doc/libcgal-dev/data.tar.gz |
		tar -xz -C "$tmp" "${names[@]/#/data/meshes/}"
	for n in "${names[@]}"; do
		[[ -s $tmp/data/meshes/$n ]] || { echo "fetch_stanford_meshes: $n missing from $deb" >&2; exit 1; }
		mv "$tmp/data/meshes/$n" "$cache/meshes/$n"
	done
fi

for n in "${names[@]}"; do
	echo "$cache/meshes/$n"
done
