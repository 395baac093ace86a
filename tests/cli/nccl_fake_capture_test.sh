#!/usr/bin/env bash
# NCCL's own INFO lines captured per rank (cmd/nccl_info_capture.h) and `pairwise --rail N`
# (cmd/pairwise_rail.h), against the fake libcudart and libnccl (tests/fakes/; the fake writes
# NCCL's init lines to NCCL_DEBUG_FILE, fake_nccl_log.h): bench -g 2 says P2P/IPC inside the
# node and no network; the temporary folder is gone afterwards; a user's own NCCL_DEBUG wins
# (nothing captured, the reason given); under mpirun the transport of the host is NET/IB with
# GPUDirect RDMA, "disabled" when the fake logs GDR off, Socket when it falls back; pairwise
# --rail 1 over the hgx4-a100 fixture topology names GPU1 (0000:23:00) and NIC1 mlx5_1 per end.
#   tests/cli/nccl_fake_capture_test.sh FABDIAG FAKE_CUDART FAKE_NCCL FIXTURES
set -u
bin=$1 cudart=$2 nccl=$3 fixtures=$4
export FABDIAG_CUDART_LIB=$cudart FABDIAG_NCCL_LIB=$nccl FAKE_NCCL_TIMEOUT_S=30
unset FAKE_CUDA_DEVICES FAKE_NCCL_INIT_FAIL FAKE_NCCL_CORRUPT_RANK FAKE_NCCL_NET FAKE_NCCL_GDR NCCL_DEBUG \
  NCCL_DEBUG_FILE FAKE_CUDA_PCI_BUSES
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/t"
export TMPDIR=$tmp/t
fail=0

# check NAME PYTHON-EXPR: the expression over d (the document's data) must be true.
check() {
  python3 - "$tmp/$1.out" "$1" "$2" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))["data"]
t = d.get("nccl_transport") or {}
hosts = t.get("hosts", [])
h = hosts[0] if hosts else {}
ok = eval(sys.argv[3])
if not ok:
    print("FAIL %s: %s is false; nccl_transport = %s; rail = %s" % (sys.argv[2], sys.argv[3], json.dumps(t)[:900], json.dumps(d.get("rail"))))
sys.exit(0 if ok else 1)
PY
}

run() {  # run NAME RC ARGS...
  local name=$1 want=$2
  shift 2
  "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  local rc=$?
  [ "$rc" = "$want" ] || { echo "FAIL $name: exit $rc, want $want: $*"; tail -5 "$tmp/$name.err"; fail=1; return 1; }
}

run g2 0 "$bin" bench all_reduce --backend nccl -g 2 -b 1K -e 4K -w 1 -n 2 --format json -q &&
  check g2 't["captured"] and len(hosts) == 1 and h["local_channels"] == {"P2P/IPC": 2} and h["data_transport"] is None and h["gdr_mode"] is None and h["nccl_version"].startswith("2.")'
[ -z "$(ls -A "$tmp/t")" ] || { echo "FAIL g2: the capture folder is left: $(ls -A "$tmp/t")"; fail=1; }
NCCL_DEBUG=WARN run user-debug 0 "$bin" bench all_reduce --backend nccl -g 2 -b 1K -e 1K -w 1 -n 2 --format json -q &&
  check user-debug 'not t["captured"] and "NCCL_DEBUG is set by the user" in t["reason"]'

if command -v mpirun >/dev/null 2>&1; then
  mpi() {
    timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 --bind-to none --mca btl tcp,self \
      --mca mpi_yield_when_idle 1 "$bin" "$@"
  }
  run mpi-ib 0 mpi bench all_reduce --backend nccl -b 1K -e 4K -w 1 -n 2 --format json -q &&
    check mpi-ib 'h["data_transport"] == "IB" and h["gdr_mode"] == "GDRDMA" and [x["name"] for x in h["ib_devices"]] == ["mlx5_0", "mlx5_1"] and h["gdr"]["mlx5_0"]["used_in_channels"]'
  FAKE_NCCL_GDR=0 run mpi-nogdr 0 mpi bench all_reduce --backend nccl -b 1K -e 1K -w 1 -n 2 --format json -q &&
    check mpi-nogdr 'h["data_transport"] == "IB" and h["gdr_mode"] == "disabled" and h["gdr"]["mlx5_0"]["enabled"] is False'
  FAKE_NCCL_NET=Socket run mpi-socket 0 mpi bench all_reduce --backend nccl -b 1K -e 1K -w 1 -n 2 --format json -q &&
    check mpi-socket 'h["data_transport"] == "Socket" and h["gdr_mode"] == "not used" and h["ib_no_device"]'
  # --rail 1: every rank drives CUDA device 1, which the fake puts on bus 0x23, GPU1 of the fixture.
  FAKE_CUDA_PCI_BUSES=3,23,43,63 run rail 0 mpi --sysfs-root "$fixtures/hgx4-a100" pairwise --backend nccl --rail 1 \
    --size 64K -n 2 --format json -q ||
    { [ -s "$tmp/rail.out" ] && echo "(rail exit code tolerated when the document is there: 2 ranks on a busy machine)"; }
  [ -s "$tmp/rail.out" ] && check rail 'd["rail"]["rail"] == 1 and [(e["rank"], e["gpu"], e["pci_bdf"], e["topology_gpu"], e["nic"], e["ibdev"], e["relation"]) for e in d["rail"]["ends"]] == [(r, 1, "0000:23:00", "GPU1", "NIC1", "mlx5_1", "PIX") for r in (0, 1)] and h["gdr_mode"] == "GDRDMA"'
  run rail-mpi 2 "$bin" pairwise --rail 1 && grep -q -- "--rail picks a GPU and its NIC: it needs --backend nccl" "$tmp/rail-mpi.err" ||
    { echo "FAIL rail-mpi: no usage error for --rail without --backend nccl"; fail=1; }
else
  echo "note: mpirun not found: the one-rank-per-GPU cases were not run"
fi
[ -z "$(ls -A "$tmp/t")" ] || { echo "FAIL: capture folders left: $(ls -A "$tmp/t")"; fail=1; }

[ $fail -eq 0 ] && echo "ok: NCCL INFO capture and pairwise --rail against the fakes"
exit $fail
