# Run B: hola op N's L2 prefetch by its setup rule (default) against fixed distances and none
# (pf=0, the code before), double precision, on regular and irregular matrices beyond run A's;
# the note of each default `hola` row gives the sampled x sectors a nonzero and the decision.
R=$OUT/B; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
{ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build $B -j 16 --target hola-bench; } > $R/build.log 2>&1
echo "build rc=$? at $(el) s"; tail -1 $R/build.log
M="-m stencil27:n=128 -m stencil27:n=100 -m elasticity:n=64 -m elasticity:n=48 -m poisson3d:n=200 -m poisson3d:n=150 -m poisson2d:n=3000 -m banded:sigma=10 -m banded:sigma=100 -m banded:sigma=1000 -m random:per_row=22 -m rmat:scale=21,ef=16 -m circuit -m powerlaw:rows=2000000,mean=16,tail=1.5 -m poisson3d:n=160,perm=1"
K="-k cusparse -k merge -k scalar -k hola:pf=0 -k hola:pf=256 -k hola:pf=512 -k hola:pf=1024 -k hola -k auto"
CMD="$B/solvers_demo/hola-bench --commit $C $M $K -p double --op N --warmup 5 --reps 20 --json $R/B-prefetch-rule.json"
(echo "# commit $C, $G, command: $CMD"; timeout 400 $CMD) > $R/B-prefetch-rule.txt 2>$R/B-prefetch-rule.err
echo "bench rc=$? at $(el) s"; gzip -9 $R/B-prefetch-rule.json
