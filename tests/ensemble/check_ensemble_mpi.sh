#!/bin/sh
# kollide-ensemble under mpirun -n 2 and -n 3 against 2 threads: states.csv and summary.txt must be
# equal byte for byte. Exits 77 (skipped) where mpirun is missing or the tool was built without MPI.
# Usage: check_ensemble_mpi.sh KOLLIDE_ENSEMBLE SCENE.json OUT_DIR
# SPDX-License-Identifier: MIT
set -u
exe=$1 scene=$2 out=$3
if ! command -v mpirun >/dev/null; then
	echo "mpirun is not installed: skipped"
	exit 77
fi
args="$scene --samples 48 --perturb ball:position=0.02,0,0 --perturb ball:angle=0.1 --region right=0.1,-10,-10,10,10,10 --steps 120 --seed 5 --no-progress"
rm -rf "$out/ens_threads" "$out/ens_mpi2" "$out/ens_mpi3"
"$exe" $args --threads 2 --out "$out/ens_threads" || exit 1
# Open MPI leaves its own allocations (and those of the components it unloads) at exit, so under
# AddressSanitizer the MPI runs skip the leak check; the threaded run above and test_ensemble keep it.
mpi_asan_options="${ASAN_OPTIONS:-}:detect_leaks=0"
# As root (the CI's containers) Open MPI refuses to start without --allow-run-as-root; the vader
# shared-memory transport needs no network.
for n in 2 3; do
	ASAN_OPTIONS=$mpi_asan_options mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -n $n "$exe" $args --out "$out/ens_mpi$n" \
		> "$out/ens_mpi$n.txt" || { echo "mpirun -n $n failed"; exit 1; }
	# One report from rank 0 of n ranks: not n separate runs (an mpirun of another MPI would do that).
	grep -q "ranks=$n " "$out/ens_mpi$n.txt" || { echo "mpirun -n $n did not run as $n ranks"; cat "$out/ens_mpi$n.txt"; exit 1; }
	for f in states.csv summary.txt; do
		cmp "$out/ens_threads/$f" "$out/ens_mpi$n/$f" || { echo "mpirun -n $n: $f differs"; exit 1; }
	done
done
echo "mpirun -n 2 and -n 3: outputs equal to 2 threads"
