#!/usr/bin/env bash
# The mesh-pair benchmark side by side (docs/mesh-benchmarks.md): Kollide's SIMDop BVH (kollide-collide
# defaults, the engine's default tree: 8-ary, k = 26, BNG, AVX2), the project's binary k-DOP tree (--width 2
# --k 32 --builder longest --simd scalar), FCL 0.7 (BVHModel<OBBRSS>, boolean collide) and Bullet 3.24
# GImpact, all on the same pose files of the sphere method (kollide-poses) at rel 0, 0.2 and 0.4. Then
# kollide-bvh-bench on the same pose files (BVH_BENCH_PAIRS): its ten tree configurations interleaved pose
# by pose in one process, warm (best of 5 runs per pose) and cold (one run per pose).
#
#   tools/bench_mesh.sh [BUILD_DIR (build/peers-rel)]
#
# The build directory is a Release build with -DKOLLIDE_PEER_BENCH=ON (needs libfcl-dev, libbullet-dev);
# it is configured when it has no CMakeCache.txt, and the five programs are (re)built. The Stanford meshes
# come from tools/fetch_stanford_meshes.sh (Debian's libcgal-demo, fetched at run time, never committed).
#
# Poses: kollide-poses A A --rel 0,0.2,0.4 --count COUNT --seed SEED, kept in BUILD_DIR/mesh-bench and
# reused while COUNT and SEED stay the same (bunny: about 5 minutes for 600 poses on 2 threads).
# kollide-poses places the rel-0 poses 1e-6·(|cA| + rA) past touching, beyond float32 rounding, where a
# float and a double exact test could both be right and still differ (docs/collide.md).
#
# Checks: every pose's collide answer of SIMDop must equal FCL's and the binary tree's (exit status 1
# otherwise). GImpact's disagreements are only reported (it makes contacts by clipping, not an exact test).
#
# Environment: COUNT (poses per rel, 200), SEED (1), THREADS (pose generation threads, 2), ROUNDS (runs
# of every method, 1; the tables show the median of the per-round medians and the spread of the per-round
# medians), PAIRS (default "bunny armadillo dragon gear rock"), BVH_BENCH_PAIRS (pairs of PAIRS given to
# kollide-bvh-bench, "bunny"; mesh files only, so not gear or rock; "" skips it), STANFORD_DIR
# (build/stanford; KOLLIDE_CGAL_DEMO_DEB names a libcgal-demo .deb to extract instead of downloading),
# JOBS (build jobs, 2).
# SPDX-License-Identifier: MIT
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${BUILD_DIR:-$root/build/peers-rel}}
count=${COUNT:-200}
seed=${SEED:-1}
threads=${THREADS:-2}
rounds=${ROUNDS:-1}
pairs=${PAIRS:-"bunny armadillo dragon gear rock"}
bvh_pairs=${BVH_BENCH_PAIRS-bunny}
out=$build/mesh-bench

# --- build -------------------------------------------------------------------------------------------
if [[ ! -f $build/CMakeCache.txt ]]; then
	cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKOLLIDE_VIEWER=OFF -DKOLLIDE_CUDA=OFF \
		-DKOLLIDE_PEER_BENCH=ON >/dev/null
fi
if ! grep -q '^KOLLIDE_PEER_BENCH:BOOL=ON' "$build/CMakeCache.txt"; then
	echo "bench_mesh: $build is not configured with -DKOLLIDE_PEER_BENCH=ON" >&2
	exit 2
fi
if ! grep -q '^CMAKE_BUILD_TYPE:STRING=Release' "$build/CMakeCache.txt"; then
	echo "bench_mesh: warning: $build is not a Release build; timings are not comparable" >&2
fi
cmake --build "$build" --parallel "${JOBS:-2}" --target kollide-poses kollide-collide \
	kollide-collide-fcl kollide-collide-gimpact kollide-bvh-bench >/dev/null

poses_tool=$build/tools/collide/kollide-poses
collide=$build/tools/collide/kollide-collide
fcl=$build/bench/peers/kollide-collide-fcl
gimpact=$build/bench/peers/kollide-collide-gimpact
bvh_bench=$build/bench/kollide-bvh-bench
mkdir -p "$out"

# --- meshes ------------------------------------------------------------------------------------------
if [[ " $pairs " =~ \ (bunny|armadillo|dragon)\  ]]; then
	mapfile -t stanford < <("$root/tools/fetch_stanford_meshes.sh" "${STANFORD_DIR:-$root/build/stanford}")
fi

spec_of() {
	case $1 in
	bunny) echo "${stanford[0]}" ;;
	armadillo) echo "${stanford[1]}" ;;
	dragon) echo "${stanford[2]}" ;;
	gear | rock | screw | nut | bowl | knot) echo "gen:$1" ;;
	*)
		echo "bench_mesh: unknown pair '$1'" >&2
		exit 2
		;;
	esac
}

# method name and kollide-collide-style command (the pose file and --stats are appended).
run_method() {
	local method=$1 spec=$2 poses=$3
	case $method in
	simdop) "$collide" "$spec" "$spec" --poses "$poses" --query collide --stats ;;
	binary) "$collide" "$spec" "$spec" --poses "$poses" --query collide --stats --width 2 --k 32 --builder longest --simd scalar ;;
	fcl) "$fcl" "$spec" "$spec" --poses "$poses" --query collide --stats ;;
	gimpact) "$gimpact" "$spec" "$spec" --poses "$poses" --query collide --stats ;;
	esac
}

# Prints "differ  false_positive  false_negative  differ_by_rel(0,0.2,0.4)" of two outputs' pose lines
# (the first is the candidate, the second the reference); fails when the pose lines do not pair up.
compare() {
	awk -v count="$count" '
		FNR == 1 { file++ }
		!/^pose=/ { next }
		file == 1 { a[$1] = $2; na++; next }
		{ nb++; if (!($1 in a)) missing++
		  else if (a[$1] != $2) { d++; if (a[$1] == "collide=1") fp++; else fn++
		    i = substr($1, 6) + 0; g[int(i / count)]++ } }
		END { if (na != nb || missing) { print "mismatched pose lines" > "/dev/stderr"; exit 1 }
		      printf "%d %d %d %d,%d,%d\n", d, fp, fn, g[0], g[1], g[2] }' "$1" "$2"
}

# --- runs --------------------------------------------------------------------------------------------
methods="simdop binary fcl gimpact"
summary=$out/rows.txt # pair method round rel median_us, and build/agree rows
bvh_rows=$out/bvh_rows.txt # pair warm|cold round rel config median_us ratio hits, and build rows
: >"$summary"
: >"$bvh_rows"
for name in $pairs; do
	spec=$(spec_of "$name")
	raw=$out/${name}_n${count}_s${seed}_v2.poses # v2: rel-0 poses past float rounding
	if [[ ! -s $raw ]]; then
		echo "bench_mesh: $name: making $((3 * count)) poses (seed $seed, $threads threads)" >&2
		"$poses_tool" "$spec" "$spec" --rel 0,0.2,0.4 --count "$count" --seed "$seed" --threads "$threads" \
			-o "$raw.tmp" >&2
		mv "$raw.tmp" "$raw"
	fi
	for round in $(seq 1 "$rounds"); do
		for method in $methods; do
			echo "bench_mesh: $name: $method (round $round/$rounds)" >&2
			run_method "$method" "$spec" "$raw" >"$out/${name}_${method}_r$round.out" 2>"$out/${name}_${method}_r$round.err"
			awk -v p="$name" -v m="$method" -v r="$round" '/^group rel=/ {
				split($2, g, "="); split($5, t, "="); print p, m, r, g[2], t[2] }' \
				"$out/${name}_${method}_r$round.out" >>"$summary"
		done
	done
	for method in $methods; do
		awk -v p="$name" -v m="$method" '/^build / && !done {
			for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			print p, m, "build", v["triangles"], v["build_ms"], v["prepare_ms"]; done = 1 }' \
			"$out/${name}_${method}_r1.err" >>"$summary"
	done
	r1=$out/${name}_simdop_r1.out
	{
		echo "$name agree fcl $(compare "$r1" "$out/${name}_fcl_r1.out")"
		echo "$name agree binary $(compare "$out/${name}_binary_r1.out" "$r1")"
		echo "$name agree gimpact $(compare "$out/${name}_gimpact_r1.out" "$r1")"
		echo "$name hits $(grep -c 'collide=1' "$r1" || true)"
	} >>"$summary"
	if [[ " $bvh_pairs " == *" $name "* ]]; then
		if [[ $spec == gen:* ]]; then
			echo "bench_mesh: $name: kollide-bvh-bench needs a mesh file, not $spec; skipped" >&2
			continue
		fi
		for round in $(seq 1 "$rounds"); do
			for mode in warm cold; do
				echo "bench_mesh: $name: kollide-bvh-bench $mode (round $round/$rounds)" >&2
				bout=$out/${name}_bvhbench_${mode}_r$round.out
				"$bvh_bench" --mesh "$spec" --poses "$raw" --reps "$([[ $mode == warm ]] && echo 5 || echo 1)" >"$bout"
				awk -v p="$name" -v m="$mode" -v r="$round" '
					/^rel=/ { split($1, g, "="); rel = g[2]; next }
					$1 ~ /^[0-9]+:[0-9]+:/ && rel == "" && $2 == "build" { print p, "build", m, r, $1, $3; next }
					$1 ~ /^[0-9]+:[0-9]+:/ && rel != "" { sub(/x$/, "", $3); split($7, h, "/"); print p, m, r, rel, $1, $2, $3, h[1] }' \
					"$bout" >>"$bvh_rows"
			done
		done
	fi
done

# --- summary -----------------------------------------------------------------------------------------
awk -v count="$count" -v rounds="$rounds" '
	function median(list,    v, n, i, j, t) {
		n = split(list, v, " ")
		for (i = 2; i <= n; i++) { t = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
		return n % 2 ? v[(n + 1) / 2] : 0.5 * (v[n / 2] + v[n / 2 + 1])
	}
	function ratio(x, y) { return y > 0 ? sprintf("%.2f", x / y) : "-" }
	function spread(list,    v, n, i, lo, hi, m) {
		n = split(list, v, " "); lo = hi = v[1] + 0
		for (i = 2; i <= n; i++) { lo = v[i] + 0 < lo ? v[i] + 0 : lo; hi = v[i] + 0 > hi ? v[i] + 0 : hi }
		m = median(list)
		return m > 0 ? sprintf("%.0f", 100 * (hi - lo) / m) : "-"
	}
	$2 == "build" || $3 == "build" { b[$1, $2] = sprintf("%.1f+%.1f", $5, $6); tri[$1] = $4; next }
	$2 == "agree" { agree[$1, $3] = $4; fp[$1, $3] = $5; fn[$1, $3] = $6; byrel[$1, $3] = $7; next }
	$2 == "hits" { hits[$1] = $3; next }
	{ if (!($1 in seen)) { seen[$1] = 1; order[++np] = $1 }
	  if (!(($1, $4) in relseen)) { relseen[$1, $4] = 1; rels[$1] = rels[$1] " " $4 }
	  us[$1, $2, $4] = us[$1, $2, $4] " " $5 }
	END {
		printf "Median us per query (%d poses per rel, median of %d round(s)); ratios = other / SIMDop\n", count, rounds
		printf "%-10s %5s %9s %9s %9s %9s %9s %9s %9s\n", "pair", "rel", "SIMDop", "binary", "FCL", "GImpact",
			"bin/SIMD", "FCL/SIMD", "GImp/SIMD"
		for (i = 1; i <= np; i++) {
			p = order[i]; n = split(rels[p], r, " ")
			for (k = 1; k <= n; k++) {
				s = median(us[p, "simdop", r[k]]); bi = median(us[p, "binary", r[k]])
				f = median(us[p, "fcl", r[k]]); g = median(us[p, "gimpact", r[k]])
				printf "%-10s %5s %9.2f %9.2f %9.2f %9.2f %9s %9s %9s\n", p, r[k], s, bi, f, g, ratio(bi, s), ratio(f, s), ratio(g, s)
			}
		}
		printf "\nSpread of the per-round medians, (max - min) / median, %%\n"
		printf "%-10s %5s %9s %9s %9s %9s\n", "pair", "rel", "SIMDop", "binary", "FCL", "GImpact"
		for (i = 1; i <= np; i++) {
			p = order[i]; n = split(rels[p], r, " ")
			for (k = 1; k <= n; k++)
				printf "%-10s %5s %9s %9s %9s %9s\n", p, r[k], spread(us[p, "simdop", r[k]]), spread(us[p, "binary", r[k]]),
					spread(us[p, "fcl", r[k]]), spread(us[p, "gimpact", r[k]])
		}
		printf "\nBuild times of one tree, ms (Kollide: build+prepare; peers: build)\n"
		printf "%-10s %9s %14s %14s %10s %10s\n", "pair", "triangles", "SIMDop", "binary", "FCL", "GImpact"
		for (i = 1; i <= np; i++) {
			p = order[i]
			split(b[p, "fcl"], fb, "+"); split(b[p, "gimpact"], gb, "+")
			printf "%-10s %9s %14s %14s %10s %10s\n", p, tri[p], b[p, "simdop"], b[p, "binary"], fb[1], gb[1]
		}
		printf "\nAgreement of the collide answers with SIMDop (disagreements by rel 0,0.2,0.4)\n"
		printf "%-10s %6s %5s %12s %12s %24s\n", "pair", "poses", "hits", "FCL", "binary", "GImpact (+false/-false)"
		for (i = 1; i <= np; i++) {
			p = order[i]
			printf "%-10s %6d %5d %12s %12s %24s\n", p, 3 * count, hits[p],
				agree[p, "fcl"] " [" byrel[p, "fcl"] "]", agree[p, "binary"] " [" byrel[p, "binary"] "]",
				agree[p, "gimpact"] " (+" fp[p, "gimpact"] "/-" fn[p, "gimpact"] ") [" byrel[p, "gimpact"] "]"
			if (agree[p, "fcl"] + agree[p, "binary"] > 0) bad = 1
		}
		if (bad) { print "\nFAILED: SIMDop disagrees with FCL or with the binary tree"; exit 1 }
		print "\nSIMDop = FCL = binary tree on every pose."
	}' "$summary" | tee "$out/summary.txt" || status=$?

# kollide-bvh-bench: per configuration, the median over rounds of the per-rel medians, warm and cold; "x" is the
# first configuration's (the binary tree's) median over this one's, "pp" bvh-bench's median of per-pose ratios.
if [[ -s $bvh_rows ]]; then
	awk -v rounds="$rounds" '
	function median(list,    v, n, i, j, t) {
		n = split(list, v, " ")
		for (i = 2; i <= n; i++) { t = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
		return n % 2 ? v[(n + 1) / 2] : 0.5 * (v[n / 2] + v[n / 2 + 1])
	}
	$2 == "build" { b[$1, $5] = b[$1, $5] " " $6; next }
	{ p = $1; m = $2; rel = $4; c = $5
	  if (!(p in seen)) { seen[p] = 1; order[++np] = p }
	  if (!((p, c) in cseen)) { cseen[p, c] = 1; configs[p] = configs[p] " " c }
	  if (!((p, rel) in rseen)) { rseen[p, rel] = 1; rels[p] = rels[p] " " rel }
	  us[p, m, rel, c] = us[p, m, rel, c] " " $6; pp[p, m, rel, c] = pp[p, m, rel, c] " " $7
	  if (!((p, rel) in hits0)) hits0[p, rel] = $8
	  else if (hits0[p, rel] != $8) bad = 1 }
	END {
		for (i = 1; i <= np; i++) {
			p = order[i]; nc = split(configs[p], cf, " "); nr = split(rels[p], r, " ")
			printf "\nkollide-bvh-bench, %s: median us over the poses, median of %d round(s); x = %s / this, pp = median of per-pose ratios\n", p, rounds, cf[1]
			for (mi = 1; mi <= 2; mi++) {
				m = mi == 1 ? "warm" : "cold"
				printf "%-5s %-22s %9s", m, "config", "build ms"
				for (k = 1; k <= nr; k++) printf " %9s %6s", "rel=" r[k], "x"
				printf " %6s\n", "pp r" r[1]
				for (j = 1; j <= nc; j++) {
					c = cf[j]; printf "%-5s %-22s %9.1f", m, c, median(b[p, c])
					for (k = 1; k <= nr; k++) {
						ref = median(us[p, m, r[k], cf[1]]); v = median(us[p, m, r[k], c])
						printf " %9.2f %6.2f", v, (v > 0 ? ref / v : 0)
					}
					printf " %6.2f\n", median(pp[p, m, r[1], c])
				}
			}
			printf "hits per rel:"; for (k = 1; k <= nr; k++) printf " %s", hits0[p, r[k]]; printf "\n"
		}
		if (bad) { print "FAILED: kollide-bvh-bench configurations disagree on the number of hits"; exit 1 }
		print "Every kollide-bvh-bench configuration has the same number of hits per rel."
	}' "$bvh_rows" | tee -a "$out/summary.txt" || status=$?
fi
exit "${status:-0}"
