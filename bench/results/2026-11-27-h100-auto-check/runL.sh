# Run L: from the repository root on the device, over the export in .carry/src: the held-out
# matrices whose float op T ran slower in run K for every kernel of the line (auto, auto:check=0,
# cuSPARSE), again with hola-bench's line of run K, with -j 16 and with -j 1 (one thread: no
# matrix generated or checked beside the timing), two rounds each.
R=$OUT/L; mkdir -p $R
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; B=$PWD/build-dev; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/build.log 2>&1 && cmake --build $B -j 16 --target hola-bench >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"
printf '%s\n' "poisson2d-005 poisson2d:nx=1340,ny=679,perm=6" "stencil27-055 stencil27:nx=107,ny=72,nz=59,perm=56" "stencil27-058 stencil27:nx=46,ny=25,nz=40,perm=59" "circuit-229 circuit:rows=177538,empty=0.08,long_rows=16,long_len=72902,mean=7.91,seed=230" "powerlaw-098 powerlaw:rows=187084,mean=8.1,tail=1.3,seed=99" > $B/five.txt
for j in 16 1; do for round in 1 2; do
  BENCH="$B/solvers_demo/hola-bench -m @$B/five.txt -p double -p float --op N --op T -k cusparse -k auto -k auto:check=0 --warmup 3 --reps 10 --time-cap-ms 20 -j $j --commit $C"
  (echo "# commit $C, $G, command: $BENCH --json $R/L-j$j-$round.json"; $BENCH --json $R/L-j$j-$round.json) > $R/L-j$j-$round.txt 2>/dev/null; echo "j $j round $round rc=$? at $(el) s"
done; done
(cd $OUT && tar czf L.tgz L)
