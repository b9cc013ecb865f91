#!/bin/bash
# Runs gpu/collective's rank script under the launchers this machine has
# (torchrun, Open MPI's mpirun), each rank a process on a cpu agent, and
# says which were absent. Usage: launchers.sh COLLECTIVE_TEST_BINARY [N]
# (build it with: CGO_ENABLED=0 go test -c -o collective.test ./gpu/collective).
set -u
bin=$(realpath "$1"); n=${2:-2}
export HIPGO_DRIVER=cpu HIPGO_COLLECTIVE_CHILD=1 NCCL_NVLS_ENABLE=0
args=(-test.run '^TestRankProcess$' -test.count=1 -test.v)
status=0
check() { # name, log
  local got; got=$(grep -c -- '--- PASS: TestRankProcess' "$2")
  if [ "$got" = "$n" ]; then echo "$1: $n of $n ranks passed"; else echo "$1: $got of $n ranks passed"; status=1; tail -30 "$2"; fi
}
if command -v torchrun >/dev/null; then
  HIPGO_TEST_LAUNCHER=torch timeout 180 torchrun --standalone --nproc-per-node="$n" --no-python "$bin" "${args[@]}" >torchrun.log 2>&1
  check "torchrun $(torchrun --version 2>/dev/null | head -1)" torchrun.log
else
  echo "torchrun: absent"
fi
if command -v mpirun >/dev/null && mpirun --version 2>&1 | grep -q "Open MPI"; then
  port=$((20000 + RANDOM % 20000))
  HIPGO_TEST_LAUNCHER=openmpi MASTER_ADDR=127.0.0.1 MASTER_PORT=$port HIPGO_COLLECTIVE_SECRET=launchers-sh-$RANDOM$RANDOM \
    timeout 180 mpirun --allow-run-as-root --oversubscribe -np "$n" -x HIPGO_DRIVER -x HIPGO_COLLECTIVE_CHILD -x HIPGO_TEST_LAUNCHER \
    -x MASTER_ADDR -x MASTER_PORT -x HIPGO_COLLECTIVE_SECRET "$bin" "${args[@]}" >mpirun.log 2>&1
  check "$(mpirun --version 2>&1 | head -1)" mpirun.log
else
  echo "Open MPI mpirun: absent ($(mpirun --version 2>&1 | head -1))"
fi
exit $status
