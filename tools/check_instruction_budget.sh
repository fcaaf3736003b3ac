#!/usr/bin/env bash
# One instruction-count budget: runs `kollide-bench --scene SCENE --threads 1 --steps STEPS` under
# callgrind and fails when it executes more than its budget in tools/instruction-budgets.txt plus
# 10 %. Counts, unlike times, do not depend on the machine's load, so this guards against slowdowns
# in CI. Budgets are kept per compiler and build type (CONFIG); with none for this one, or without
# valgrind, the check cannot run and exits 77 (ctest: Skipped).
# Usage: check_instruction_budget.sh KOLLIDE_BENCH CONFIG SCENE STEPS [BUDGET_FILE]
# SPDX-License-Identifier: MIT
set -euo pipefail
bench=$1 config=$2 scene=$3 steps=$4
budgets=${5:-$(dirname "$0")/instruction-budgets.txt}
tolerance_percent=10

if ! command -v valgrind >/dev/null; then
	echo "valgrind is not installed: the instruction budgets cannot be checked"
	exit 77
fi
budget=$(awk -v c="$config" -v s="$scene" -v n="$steps" '$1 == c && $2 == s && $3 == n { print $4 }' "$budgets")
if [ -z "$budget" ]; then
	echo "no budget for $scene ($steps steps) built as $config in $budgets: measure one and add it"
	exit 77
fi
out=$(mktemp)
trap 'rm -f "$out" "$out.cg"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$out.cg" "$bench" --scene "$scene" --threads 1 --steps "$steps" \
	--repeats 1 >"$out" 2>&1 || { cat "$out"; exit 1; }
count=$(awk '/Collected :/ { print $NF }' "$out")
awk -v s="$scene" -v n="$steps" -v c="$count" -v b="$budget" -v t="$tolerance_percent" 'BEGIN {
	ratio = c / b
	printf "%s, %d steps, 1 thread: %.0f instructions, budget %.0f (%.3f of it; fails above %.2f)\n", s, n, c, b, ratio, 1 + t / 100
	if (ratio > 1 + t / 100) { print "over budget: a change made this run slower"; exit 1 }
	if (ratio < 1 - t / 100) print "well under budget: lower it in tools/instruction-budgets.txt with the speed-up"
}'
