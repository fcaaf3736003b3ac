#!/usr/bin/env bash
# Kollide's broadphase against Bullet's btAxisSweep3 and btDbvtBroadphase on the same synthetic
# motion (bench/bp_motion.c). Builds kollide-bench and kollide-bench-bullet (Release,
# -DKOLLIDE_BULLET_BENCH=ON, needs libbullet-dev) in build/bench, then runs the two programs
# interleaved, scene by scene (Kollide, Bullet, Kollide, Bullet ...), because these machines drift
# by tens of percent within minutes; prints the medians over the rounds and Bullet-best / Kollide.
#
# Both engines run the same number of updates per scene, so their final pair hashes must agree
# (Bullet's are over the exact pairs; its raw pair caches hold more, see --details).
# AxisSweep inserts a proxy in O(n) (quadratic setup: about 2.5 minutes at 100k proxies here), so it
# runs at 100k only in the first AXIS3_ROUNDS rounds and never at 1M or in large_world.
#
# Environment: ROUNDS (3), THREADS (Kollide worker counts, "1,2"), AXIS3_ROUNDS (1),
# SCENES ("scene:updates ..." to override the list below), BUILD_DIR (build/bench),
# SUMMARY_ONLY=1 (no build, no runs: summarise the rows kept from the last run).
# SPDX-License-Identifier: MIT
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build/bench}
rounds=${ROUNDS:-3}
threads=${THREADS:-1,2}
axis3_rounds=${AXIS3_ROUNDS:-1}
# scene:updates. 1M Bullet updates take seconds each (DBVT gas: ~18 s), hence the few updates there.
scenes=${SCENES:-"bp_walk_10k:200 bp_gas_10k:200 bp_walk_100k:50 bp_gas_100k:20 bp_walk_1m:5 bp_gas_1m:3 large_world:500"}

kollide=$build/bench/kollide-bench
bullet=$build/bench/bullet/kollide-bench-bullet
# The raw rows stay in the build directory for a second look (SUMMARY_ONLY=1).
out=$build/bench_broadphase

# Appends the main rows to rows.csv (engine:scene,threads,ms,hash) and the --details rows to details.csv.
collect() {
	awk -F, -v rows="$out/rows.csv" -v details="$out/details.csv" '
		NR == 1 { next }
		$0 == "" { in_details = 1; next }
		in_details && $1 == "scene" { next }
		in_details { print >> details; next }
		{ name = $1; if (index(name, ":") == 0) name = "kollide:" name
		  print name "," $2 "," $3 "," $5 "," $6 >> rows }'
}

run_all() {
	cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKOLLIDE_BULLET_BENCH=ON \
		-DKOLLIDE_VIEWER=OFF -DKOLLIDE_TESTS=OFF >/dev/null
	cmake --build "$build" --target kollide-bench kollide-bench-bullet >/dev/null
	mkdir -p "$out"
	: >"$out/rows.csv"
	: >"$out/details.csv"
	for round in $(seq 1 "$rounds"); do
		for entry in $scenes; do
			scene=${entry%%:*}
			steps=${entry##*:}
			details=()
			if [ "$round" -eq 1 ]; then
				details=(--details)
			fi
			axis3_max=20000
			if [ "$round" -le "$axis3_rounds" ]; then
				axis3_max=200000
			fi
			echo "round $round/$rounds: $scene ($steps updates)" >&2
			"$kollide" --scene "$scene" --steps "$steps" --repeats 1 --threads "$threads" "${details[@]}" | collect
			"$bullet" --scene "$scene" --steps "$steps" --repeats 1 --axis3-max "$axis3_max" "${details[@]}" 2>/dev/null |
				collect
		done
	done
}

if [ -z "${SUMMARY_ONLY:-}" ]; then
	run_all
fi

# Summary: medians over the rounds per engine, scene and thread count.
awk -F, -v details="$out/details.csv" '
	function median(list,    v, n, i, j, t) {
		n = split(list, v, " ")
		for (i = 2; i <= n; i++) { t = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
		return sprintf("%.4g", n % 2 ? v[(n + 1) / 2] : 0.5 * (v[n / 2] + v[n / 2 + 1]))
	}
	function field(map, key) { return (key in map) ? map[key] : "-" }
	BEGIN {
		while ((getline line < details) > 0) {
			split(line, f, ",")
			split(f[1], e, ":")
			if (e[2] == "") { pairs["kollide:" f[1]] = f[4]; match_ok["kollide:" f[1]] = f[6] }
			else { pairs[f[1]] = f[5]; raw[f[1]] = f[4]; match_ok[f[1]] = f[7] }
		}
	}
	{
		split($1, e, ":"); engine = e[1]; scene = e[2]
		if (!(scene in seen)) { seen[scene] = 1; order[++count] = scene }
		key = engine ":" scene ":" $3
		ms[key] = ms[key] " " $4; n[key]++
		proxies[scene] = $2
		if (!(scene in hash)) hash[scene] = $5
		else if (hash[scene] != $5) hash_diff[scene] = 1
	}
	END {
		printf "%-13s %8s %9s %9s %9s %9s %10s %8s %8s %9s %9s %9s %9s  %s\n", "scene", "proxies", "kollide1T",
			"kollide2T", "axis3", "dbvt", "bulletbest", "best/K1", "best/K2", "K pairs", "B pairs", "axis3 raw",
			"dbvt raw", "hashes"
		for (i = 1; i <= count; i++) {
			s = order[i]
			k1 = ("kollide:" s ":1") in n ? median(ms["kollide:" s ":1"]) : ""
			k2 = ("kollide:" s ":2") in n ? median(ms["kollide:" s ":2"]) : ""
			a = ("bullet_axis3:" s ":1") in n ? median(ms["bullet_axis3:" s ":1"]) : ""
			d = ("bullet_dbvt:" s ":1") in n ? median(ms["bullet_dbvt:" s ":1"]) : ""
			best = a != "" && (d == "" || a + 0 < d + 0) ? a : d
			r1 = best != "" && k1 != "" && k1 + 0 > 0 ? sprintf("%.2f", best / k1) : "-"
			r2 = best != "" && k2 != "" && k2 + 0 > 0 ? sprintf("%.2f", best / k2) : "-"
			an = ("bullet_axis3:" s ":1") in n ? sprintf("%s(%d)", a, n["bullet_axis3:" s ":1"]) : "-"
			check = (s in hash_diff) ? "DIFFER" : "agree"
			if (("kollide:" s) in match_ok && match_ok["kollide:" s] != "yes") check = check ",kollide!=reference"
			bp = field(pairs, "bullet_dbvt:" s)
			if (bp == "-") bp = field(pairs, "bullet_axis3:" s)
			printf "%-13s %8s %9s %9s %9s %9s %10s %8s %8s %9s %9s %9s %9s  %s\n", s, proxies[s], k1 == "" ? "-" : k1,
				k2 == "" ? "-" : k2, an, d == "" ? "-" : d, best == "" ? "-" : best, r1, r2,
				field(pairs, "kollide:" s), bp, field(raw, "bullet_axis3:" s), field(raw, "bullet_dbvt:" s), check
		}
		print "ms per update, medians over the rounds (axis3: runs in parentheses); best/K = Bullet-best / Kollide;"
		print "pairs from round 1 (B = Bullet'"'"'s exact pairs; raw = its cache before the exact-overlap filter);"
		print "hashes: the final exact pair sets of every run of the scene (both engines, all thread counts)."
	}' "$out/rows.csv"
