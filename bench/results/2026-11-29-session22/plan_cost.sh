# The window plan's host cost before and after session 22's change (plan_cost.cpp), on this
# machine's CPU: the header at BEFORE and at HEAD, each built with the kernels library of HEAD's
# build tree (the generators). Usage: bash plan_cost.sh BEFORE BUILD_DIR > plan-cost.txt
set -euo pipefail
BEFORE=$1; BUILD=$2; HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
T=$(mktemp -d); mkdir -p $T/before/rowwise $T/after/rowwise
git -C "$ROOT" show $BEFORE:kernels/cuda/rowwise/transpose_windows.hpp > $T/before/rowwise/transpose_windows.hpp
cp "$ROOT/kernels/cuda/rowwise/transpose_windows.hpp" $T/after/rowwise/
echo "# plan_cost: before $(git -C "$ROOT" rev-parse $BEFORE), after $(git -C "$ROOT" rev-parse HEAD)$(git -C "$ROOT" diff --quiet HEAD -- kernels/cuda/rowwise/transpose_windows.hpp || echo ' (+ uncommitted header)'); CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), one core; command: bash plan_cost.sh $BEFORE $BUILD"
for w in before after; do
  g++ -std=c++17 -O2 -fopenmp -I$T/$w -I"$ROOT/kernels/include" "$HERE/plan_cost.cpp" "$BUILD/kernels/libhola_kernels.a" -o $T/$w/plan_cost
  echo "## $w"; taskset -c 0 $T/$w/plan_cost
done
rm -rf $T
