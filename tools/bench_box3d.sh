#!/usr/bin/env bash
# Kollide and Box3D side by side on the scenes both benchmark programs have, interleaved in one run
# (Box3D, Kollide, Box3D, Kollide ... per scene and thread count) because these machines drift by
# tens of percent within minutes; only ratios from one run hold.
#
# Builds Box3D's benchmark app from a source snapshot (Release, its default SSE2 build, no -march)
# and kollide-bench (Release) in BUILD_DIR, then prints per scene and thread count the medians over
# the rounds, the spread (min-max) and Kollide / Box3D (below 1: Kollide is faster). Both figures
# are ms per 60 Hz step with 4 sub-steps: the scene's N steps, the first excluded, time / (N - 1).
#
# Usage: tools/bench_box3d.sh [BOX3D_SOURCE]   (default: ../shared/peers/box3d beside the checkout)
# Environment: ROUNDS (3), THREADS ("1 2"), SCENES (default: every shared scene: large_pyramid
# many_pyramids joint_grid convex_pile washer junkyard), BUILD_DIR (build/bench-box3d), BUSY_CORE
# (1: a busy loop keeps one core loaded throughout, as another process on the machine would).
# SPDX-License-Identifier: MIT
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
box3d_src=${1:-$root/../shared/peers/box3d}
build=${BUILD_DIR:-$root/build/bench-box3d}
rounds=${ROUNDS:-3}
threads=${THREADS:-1 2}
scenes=${SCENES:-large_pyramid many_pyramids joint_grid convex_pile washer junkyard}

if [ ! -f "$box3d_src/benchmark/main.c" ]; then
	echo "bench_box3d: no Box3D source at $box3d_src (pass its path); skipped"
	exit 0
fi

echo "building Box3D ($box3d_src) and kollide-bench in $build ..."
cmake -S "$box3d_src" -B "$build/box3d" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBOX3D_BENCHMARKS=ON \
	-DBOX3D_SAMPLES=OFF -DBOX3D_UNIT_TESTS=OFF -DBOX3D_VALIDATE=OFF >/dev/null
cmake --build "$build/box3d" --target benchmark >/dev/null
cmake -S "$root" -B "$build/kollide" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKOLLIDE_VIEWER=OFF \
	-DKOLLIDE_TESTS=OFF -DKOLLIDE_EXAMPLES=OFF >/dev/null
cmake --build "$build/kollide" --target kollide-bench >/dev/null
box3d=$(find "$build/box3d" -type f -name benchmark -perm -u+x | head -1)
kollide=$build/kollide/bench/kollide-bench

# Box3D's step counts per scene (its benchmark/main.c); Kollide's library scenes use the same.
steps_of() {
	case $1 in
		convex_pile | junkyard) echo 500 ;; joint_grid | many_pyramids) echo 100 ;;
		large_pyramid) echo 200 ;; washer) echo 1000 ;; *) echo 0 ;;
	esac
}

rows=$build/rows.csv # engine,scene,threads,ms_per_step,hash[,check:top_dz]
: >"$rows"
work=$(mktemp -d)
busy_pid=""
trap 'rm -rf "$work"; [ -z "$busy_pid" ] || kill "$busy_pid"' EXIT
if [ "${BUSY_CORE:-0}" = 1 ]; then
	(while :; do :; done) &
	busy_pid=$!
fi
for scene in $scenes; do
	n=$(steps_of "$scene")
	for t in $threads; do
		for round in $(seq "$rounds"); do
			# Box3D writes its csv and dat files into the working directory.
			ms=$(cd "$work" && "$box3d" -b="$scene" -w="$t" -r=1 | awk '/^run 0 :/ { print $4 }')
			awk -v s="$scene" -v t="$t" -v ms="$ms" -v n="$n" \
				'BEGIN { printf "box3d,%s,%s,%.4f,-\n", s, t, ms / (n - 1) }' >>"$rows"
			# The main row (scene,bodies,threads,steps,ms,hash), then the details row with the
			# standing check of the stacks (check, top_dz: the top's sideways drift in m).
			"$kollide" --scene "$scene" --threads "$t" --repeats 1 --details |
				awk -F, -v s="$scene" '$1 == s && NF == 6 { main = sprintf("kollide,%s,%s,%s,%s", s, $3, $5, $6) }
					$1 == s && NF >= 11 { check = $10 ":" $11 } END { print main "," check }' >>"$rows"
			echo "  $scene, $t thread(s), round $round done" >&2
		done
	done
done

echo
echo "ms per step, medians of $rounds interleaved rounds (min-max); ratio = Kollide / Box3D${busy_pid:+; one core kept busy by another process}"
printf "%-14s %7s %20s %20s %7s %s %s\n" scene threads box3d kollide ratio kollide_hashes "standing:top_drift_m"
for scene in $scenes; do
	for t in $threads; do
		awk -F, -v s="$scene" -v t="$t" '
			function median(a, n,   i, j, x) { for (i = 2; i <= n; ++i) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; --j) a[j + 1] = a[j]; a[j + 1] = x }
				return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
			$2 == s && $3 == t && $1 == "box3d" { b[++nb] = $4 }
			$2 == s && $3 == t && $1 == "kollide" { k[++nk] = $4; h[$5] = 1; c[$6] = 1 }
			END { if (nb == 0 || nk == 0) exit
				mb = median(b, nb); mk = median(k, nk); hashes = ""
				for (x in h) hashes = hashes (hashes == "" ? "" : " ") x
				for (x in c) checks = checks (checks == "" ? "" : " ") x
				printf "%-14s %7s %8.2f (%.2f-%.2f) %8.2f (%.2f-%.2f) %7.2f %s %s\n", s, t, mb, b[1], b[nb], mk, k[1], k[nk], mk / mb, hashes, checks }' "$rows"
	done
done
