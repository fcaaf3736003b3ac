#!/usr/bin/env bash
# Kollide's rigid-body pipeline on Box3D's benchmark scenes (BENCHMARKS.md §1), with Bullet 3.24
# beside it on large_pyramid. Builds kollide-bench and kollide-bench-bullet (Release,
# -DKOLLIDE_BULLET_BENCH=ON, needs libbullet-dev) in build/bench, then runs the two programs
# interleaved, scene by scene (Kollide, Bullet, Kollide, Bullet ...), because these machines drift
# by tens of percent within minutes; prints the medians over the rounds, Bullet / Kollide, and the
# standing check of large_pyramid for both engines. Box3D side by side: tools/bench_box3d.sh.
#
# Every figure is ms per 60 Hz step with 4 sub-steps: N steps, the first excluded, time / (N − 1).
#
# Environment: ROUNDS (3), THREADS (Kollide worker counts, "1,2"), SCENES (default "large_pyramid";
# any of large_pyramid many_pyramids convex_pile joint_grid washer junkyard jolt_pyramid, or "all"),
# STEPS (override every scene's N), BUILD_DIR (build/bench), SUMMARY_ONLY=1 (no build, no runs:
# summarise the rows kept from the last run).
# SPDX-License-Identifier: MIT
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build/bench}
rounds=${ROUNDS:-3}
threads=${THREADS:-1,2}
scenes=${SCENES:-large_pyramid}
if [ "$scenes" = all ]; then
	scenes="large_pyramid many_pyramids convex_pile joint_grid washer junkyard jolt_pyramid"
fi
# Scenes kollide-bench-bullet has.
bullet_scenes=" large_pyramid "

kollide=$build/bench/kollide-bench
bullet=$build/bench/bullet/kollide-bench-bullet
# The raw rows stay in the build directory for a second look (SUMMARY_ONLY=1).
out=$build/bench_solver

# Appends the main rows to rows.csv (engine,scene,threads,ms,hash) and the standing checks from the
# --details rows to checks.csv (engine,scene,threads,check,top_dz).
collect() {
	awk -F, -v rows="$out/rows.csv" -v checks="$out/checks.csv" '
		function split_name(name) { if (index(name, ":") == 0) { engine = "kollide"; scene = name }
			else { engine = substr(name, 1, index(name, ":") - 1); scene = substr(name, index(name, ":") + 1) } }
		NR == 1 { next }
		$0 == "" { in_details = 1; next }
		in_details && $1 == "scene" { next }
		in_details { split_name($1); c = engine == "kollide" ? 10 : 5
			print engine "," scene "," $2 "," $c "," $(c + 1) >> checks; next }
		{ split_name($1); print engine "," scene "," $3 "," $5 "," $6 >> rows }'
}

run_all() {
	cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKOLLIDE_BULLET_BENCH=ON \
		-DKOLLIDE_VIEWER=OFF -DKOLLIDE_TESTS=OFF >/dev/null
	cmake --build "$build" --target kollide-bench kollide-bench-bullet >/dev/null
	mkdir -p "$out"
	: >"$out/rows.csv"
	: >"$out/checks.csv"
	steps=()
	if [ -n "${STEPS:-}" ]; then
		steps=(--steps "$STEPS")
	fi
	for round in $(seq 1 "$rounds"); do
		for scene in $scenes; do
			echo "round $round/$rounds: $scene" >&2
			"$kollide" --scene "$scene" --repeats 1 --threads "$threads" --details "${steps[@]}" | collect
			if [[ "$bullet_scenes" == *" $scene "* ]]; then
				"$bullet" --scene "$scene" --repeats 1 --details "${steps[@]}" | collect
			fi
		done
	done
}

if [ -z "${SUMMARY_ONLY:-}" ]; then
	run_all
fi

# Summary: medians over the rounds per engine, scene and thread count.
awk -F, -v checks="$out/checks.csv" '
	function median(list,    v, n, i, j, t) {
		n = split(list, v, " ")
		for (i = 2; i <= n; i++) { t = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
		return n % 2 ? v[(n + 1) / 2] : 0.5 * (v[n / 2] + v[n / 2 + 1])
	}
	function fmt(x) { return x == "" ? "-" : sprintf("%.2f", x) }
	function ratio(a, b) { return a == "" || b == "" || b + 0 <= 0 ? "-" : sprintf("%.2f", a / b) }
	BEGIN {
		while ((getline line < checks) > 0) {
			split(line, f, ",")
			key = f[1] ":" f[2]
			total[key]++
			if (f[4] == "standing") stood[key]++
			else if (f[4] != "-") fell[key] = f[5]
			has_check[key] = f[4] != "-"
		}
	}
	{
		key = $1 ":" $2 ":" $3
		if (!($2 in seen)) { seen[$2] = 1; order[++count] = $2 }
		ms[key] = ms[key] " " $4; n[key]++
		if (!(($1 ":" $2) in hash)) hash[$1 ":" $2] = $5
		else if (hash[$1 ":" $2] != $5) hash_diff[$1 ":" $2] = 1
	}
	function med(key) { return key in n ? median(ms[key]) : "" }
	function standing(key) {
		if (!(key in total)) return "-"
		if (!has_check[key]) return "n/a"
		return sprintf("%d/%d%s", stood[key], total[key], key in fell ? sprintf(" dz=%.2f", fell[key]) : "")
	}
	END {
		printf "%-14s %9s %9s %9s %8s %8s %7s  %-18s %-18s %s\n", "scene", "kollide1T", "kollide2T", "bullet",
			"B/K1", "B/K2", "rounds", "kollide standing", "bullet standing", "hashes"
		for (i = 1; i <= count; i++) {
			s = order[i]
			k1 = med("kollide:" s ":1"); k2 = med("kollide:" s ":2"); b = med("bullet:" s ":1")
			check = ("kollide:" s) in hash_diff || ("bullet:" s) in hash_diff ? "DIFFER" : "agree"
			printf "%-14s %9s %9s %9s %8s %8s %7d  %-18s %-18s %s\n", s, fmt(k1), fmt(k2), fmt(b), ratio(b, k1),
				ratio(b, k2), n["kollide:" s ":1"],
				standing("kollide:" s), standing("bullet:" s), check
		}
		print "ms per 60 Hz step (4 sub-steps), medians over the rounds; B/K = Bullet (1 thread) / Kollide; > 1: Kollide is faster."
		print "standing: runs that ended standing (top within 0.25 m sideways and 2 % of its height, nothing sank > 0.1 m; dz: the top'"'"'s height change"
		print "in the last run that fell); hashes: each engine'"'"'s final transforms across its runs and thread counts."
	}' "$out/rows.csv"
