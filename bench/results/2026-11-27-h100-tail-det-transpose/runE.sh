# Run E: from the repository root on the device, over the export in .carry/src: the conformance and
# Operator GPU suites after their deterministic checks became one helper per op (test code only).
R=$OUT/E; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; B=$PWD/build-dev; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_MATRICES_DIR=$S/.carry/matrices > $R/build.log 2>&1 && cmake --build $B -j 16 --target device_conformance_test operator_gpu_test >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"
gt() { name=$1; shift; (echo "# commit $C, $G, command: $B/tests/$name $*"; timeout 400 $B/tests/$name "$@"; echo "rc=$?") > $R/$name.log 2>&1; }
gt device_conformance_test & gt operator_gpu_test & wait
for t in device_conformance_test operator_gpu_test; do echo "$t at $(el) s: $(grep -E '^rc=|PASSED|FAILED  \]' $R/$t.log | tr '\n' ' ')"; done
(cd $OUT && tar czf E.tgz E)
