# Run D (on an H100): runs B and C's candidates where the L2 prefetch was measured (session 10):
# hola op N with no column sort and streaming loads, with and without the prefetch; streaming
# loads in merge op N and in hola op T. Two rounds, the second in reverse kernel order.
R=$OUT/D; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
mkdir -p .carry/matrices; for f in .carry/mgz/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
{ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build $B -j 16 --target hola-bench; } > $R/build.log 2>&1
echo "build rc=$? at $(el) s"; tail -1 $R/build.log
M="-m stencil27:n=128 -m stencil27:n=100 -m elasticity:n=64 -m elasticity:n=48 -m poisson3d:n=200 -m banded:sigma=10 -m banded:sigma=100 -m banded:sigma=1000 -m random:per_row=22 -m rmat:scale=21,ef=16 -m circuit -m powerlaw:rows=2000000,mean=16,tail=1.5 -m poisson3d:n=160,perm=1"
M="$M -m poisson3d:n=40 -m stencil27:n=24 -m elasticity:n=16 -m random:rows=20000,per_row=10 -m .carry/matrices/bcsstk13.mtx -m .carry/matrices/usroads.mtx -m .carry/matrices/CA-HepPh.mtx"
run() {  # tag, op, kernels
  local tag=$1 op=$2 KS=$3
  for round in 1 2; do
    K=""; for k in $KS; do K="$K -k $k"; done
    CMD="$B/solvers_demo/hola-bench --commit $C $M $K -p double -p float --op $op --warmup 5 --reps 20 --json $R/D-$tag-$round.json"
    (echo "# commit $C, $G, command: $CMD"; timeout 120 $CMD) > $R/D-$tag-$round.txt 2>$R/D-$tag-$round.err
    echo "bench $tag $round rc=$? at $(el) s"; gzip -9 $R/D-$tag-$round.json
    KS=$(echo $KS | tr ' ' '\n' | tac | tr '\n' ' ')
  done
}
run N N "cusparse merge merge:exp=2 hola hola:exp=3 hola:exp=3,pf=0 hola:exp=1"
run T T "cusparse hola hola:exp=2"
cd $OUT && tar czf D.tgz D && rm -rf D
