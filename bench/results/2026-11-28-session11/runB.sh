# Run B: hola op N without the per-thread column sort (exp bit 0), with streaming (evict-first)
# matrix loads (bit 1), with x loaded under an L2 evict-last policy (bit 2), against the
# current kernel, in two rounds of the same command (the second in reverse kernel order).
R=$OUT/B; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
mkdir -p .carry/matrices; for f in .carry/mgz/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
{ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build $B -j 16 --target hola-bench; } > $R/build.log 2>&1
echo "build rc=$? at $(el) s"; tail -1 $R/build.log
M="-m stencil27:n=128 -m stencil27:n=100 -m elasticity:n=64 -m elasticity:n=48 -m poisson3d:n=200 -m banded:sigma=10 -m banded:sigma=100 -m banded:sigma=1000 -m random:per_row=22 -m rmat:scale=21,ef=16 -m circuit -m powerlaw:rows=2000000,mean=16,tail=1.5 -m poisson3d:n=160,perm=1"
M="$M -m poisson3d:n=40 -m stencil27:n=24 -m elasticity:n=16 -m random:rows=20000,per_row=10 -m .carry/matrices/bcsstk13.mtx -m .carry/matrices/usroads.mtx -m .carry/matrices/CA-HepPh.mtx"
KS="cusparse merge hola hola:exp=1 hola:exp=2 hola:exp=3 hola:exp=4 hola:exp=5 hola:exp=7 hola:exp=1,pf=512 hola:tpb=256,npt=4,exp=1"
for round in 1 2; do
  K=""; for k in $KS; do K="$K -k $k"; done
  CMD="$B/solvers_demo/hola-bench --commit $C $M $K -p double -p float --op N --warmup 5 --reps 20 --json $R/B-exp-$round.json"
  (echo "# commit $C, $G, command: $CMD"; timeout 150 $CMD) > $R/B-exp-$round.txt 2>$R/B-exp-$round.err
  echo "bench $round rc=$? at $(el) s"; gzip -9 $R/B-exp-$round.json
  KS=$(echo $KS | tr ' ' '\n' | tac | tr '\n' ' ')
done
