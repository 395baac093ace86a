#!/usr/bin/env python3
"""Synthetic inputs for scripts/bench-import-memory.sh: `bench_inputs.py FORMAT MB FILE [SRC]`.

Writes about MB megabytes of FORMAT's output to FILE as a real capture grows: many snapshots, many
hosts' pastes concatenated, long logs. The record shapes are the repository's fixtures (SRC, the
checkout, holds tests/fixtures): each copy of a fixture is one more capture of the same hosts and
ports, so what a reader keeps per host or port stays the same while the input grows; only what it
keeps per line or per capture grows with the file. "hosts" formats prefix each copy with one of
HOSTS pdsh host names (`nodeNNNN: `) instead. Three readers have generators of their own (ethtool
-S of 16 NICs, nccl-tests sweeps, a syslog of noise with carrier losses) and two are one document by
nature and capped (CAPPED): an mpiGraph file is one N x N matrix. A pairs list is rounds of
measurements among HOSTS hosts. `bench_inputs.py --list` prints the formats.
"""
import sys

HOSTS = 512
F = "tests/fixtures/"
C = F + "cases/"
# format -> (fixture, mode); mode "repeat" concatenates copies, "sections" puts a "### capture K"
# line before each (a later snapshot of the same counters, as `counters --from` reads them; one
# host's output of many, as `check --from` reads host facts a section at a time),
# "hosts" prefixes each copy's lines with a pdsh host name (the reader takes "host: " prefixes).
FIXTURES = {
    "ethtool-m": (C + "023-ethtool-m-dom-within-thresholds.input.txt", "sections"),
    "ethtool-fec": (C + "036-ethtool-show-fec-per-lane-corrected-uncorrectable-blocks.input.txt", "sections"),
    "perfquery": (C + "017-perfquery-clean-xmitwait-only.input.txt", "sections"),
    "ibqueryerrors": (C + "018-ibqueryerrors-symbol-errors-flaps-discards.input.txt", "sections"),
    "rdma-statistic": (C + "025-rdma-statistic-all-zero.input.txt", "sections"),
    "lspci": (C + "021-lspci-h100-pex-switch-healthy.input.txt", "sections"),
    "ibstat": (C + "013-ibstat-cx7-two-ports-down.input.txt", "sections"),
    "ibstatus": (C + "015-ibstatus-roce-rate-mismatch.input.txt", "sections"),
    "ibv-devinfo": (F + "ibv_devinfo/roce-2port.txt", "sections"),
    "nvidia-smi-topo": (F + "nvidia-smi-topo/hgx8-4nic-tabs.txt", "repeat"),
    "nccl-log": (C + "006-nccl-debug-roce-gdr-disabled.input.txt", "repeat"),
    "pytorch-watchdog": (C + "067-pytorch-nccl-watchdog-allreduce-seq808-three-ranks-600s-timeout.input.txt", "repeat"),
    "nccl-ras": (C + "047-nccl-ras-mismatch-allgather-op-counts-640-vs-641.input.txt", "repeat"),
    "nccl-inspector": (C + "050-nccl-inspector-json-v4.3-dump-stats-dropped-records-format.input.txt", "repeat"),
    "nvidia-smi-nvlink": (F + "gpu/nvlink-s-and-e-h100-link1-errors.txt", "repeat"),
    "dcgmi": (F + "gpu/dcgmi-healthy-8gpu-diag-r3.txt", "repeat"),
    "nvidia-smi-q": (F + "gpu/nvsmi-q-hgx-h100-8gpu.txt", "hosts"),
    "xid": (C + "070-dmesg-xid-119-gsp-rpc-timeout-gpu4-xe9680-needs-reset.input.txt", "repeat"),
    "iblinkinfo": (F + "iblinkinfo/healthy-edr-leaf.txt", "repeat"),
    "sonic-pfc-counters": (C + "056-sonic-pfc-counters-ethernet6-rx-pfc3-pfc4-pause-storm.input.txt", "repeat"),
    "sonic-pfcwd-stats": (C + "w201-sonic-pfcwd-stats-ethernet4-q3-stormed-drops.input.txt", "repeat"),
    "lldpctl": (F + "lldpctl/keyvalue-two-ports.txt", "hosts"),
    "perftest": (C + "065-ib-write-bw-roce-v1-mlx4-36gbps-duration-mode-peak-zero-control.input.txt", "repeat"),
    "ibdev2netdev": (F + "ibdev2netdev/v-dgx-one-down.txt", "hosts"),
    "show-gids": (F + "show-gids/roce-host-mixed.txt", "hosts"),
    "rdma-link": (F + "rdma-link/roce-one-disabled.txt", "hosts"),
    "ibnetdiscover": (F + "ibnetdiscover/two-leaves-one-spine.txt", "repeat"),
    "ibportstate": (F + "ibportstate/ca-query-fdr.txt", "hosts"),
    "ibnodes": (F + "ibnodes/ibhosts-compute.txt", "hosts"),
    "osu": (F + "osu/bw-cuda-v7.2-a100-nvlink.txt", "repeat"),
    "imb": (F + "imb/sendrecv-exchange-hdr100-drop.txt", "repeat"),
    "nvidia-smi-dmon": (F + "gpu/dmon-dt-8gpu-h100-gpu3-throttled-constructed.txt", "repeat"),
    "sonic-interface-counters": (F + "sonic-interface-counters/std-three-ports.txt", "repeat"),
    "nvue-interface": (F + "nvue-interface/view-counters.txt", "repeat"),
}
# One document by nature: the input is capped at this many MB whatever MB asks. mpiGraph prints
# one N x N Send and Recv matrix; its reader holds the matrix it judges and reads at most 2048
# ranks (import/mpigraph.h), about 80 MB of text (docs/ARCHITECTURE.md#data-model).
CAPPED = {"mpigraph": 80}
MPIGRAPH_MAX_RANKS = 2048

NAMES = [f"rx_queue_{q}_{k}" for q in range(16) for k in ("packets", "bytes", "drops")] + \
        ["rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "rx_crc_errors_phy", "rx_symbol_err_phy",
         "rx_discards_phy", "tx_pause_ctrl_phy", "rx_pause_ctrl_phy", "link_down_events_phy"] + \
        [f"rx_prio{p}_{k}" for p in range(8) for k in ("bytes", "packets", "pause")]


def ethtool_s(k):
    out = []
    for nic in range(16):
        out.append(f"### ethtool -S ens{nic}f0np0 (snapshot {k})\nNIC statistics:\n")
        out.extend(f"     {n}: {(k + 1) * (i + 1) * 1000 + nic}\n" for i, n in enumerate(NAMES))
    return "".join(out)


SIZES = [2 ** i for i in range(3, 33)]


def nccl(k):
    out = [f"### all_reduce_perf\n# nThread 1 nGpus 1 minBytes 8 maxBytes 4294967296 step: 2(factor) "
           f"warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n"]
    out.extend(f"#  Rank {r:2d} Group  0 Pid {1000 + r:6d} on node{r // 8:02d} device  {r % 8} [0x{r:02x}] NVIDIA H100 80GB HBM3\n"
               for r in range(16))
    out.append("#\n#                                                              out-of-place                       in-place\n"
               "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
               "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n")
    for s in SIZES:
        t = 20 + s / 4e5 + (k % 7)
        bw = s / t / 1e3
        out.append(f"{s:12d}  {s // 4:12d}     float     sum      -1  {t:7.1f}  {bw:6.2f}  {bw * 1.875:6.2f}      0  "
                   f"{t:7.1f}  {bw:6.2f}  {bw * 1.875:6.2f}      0\n")
    out.append("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 123.456\n#\n")
    return "".join(out)


def syslog(k):
    out = []
    for i in range(100):
        sec = (k * 100 + i) % 86400
        ts = f"Jan {1 + (k * 100 + i) // 86400 % 28:2d} {sec // 3600:02d}:{sec // 60 % 60:02d}:{sec % 60:02d}"
        if i == 0 and k % 50 == 0:
            out.append(f"{ts} node07 kernel: mlx5_core 0000:17:00.{k % 4} ens{k % 16}f0np0: Link down\n")
        else:
            out.append(f"{ts} node07 systemd[1]: Started session {k * 100 + i} of user slurm (noise line {i}).\n")
    return "".join(out)


def pairs(k):
    # One measurement round: HOSTS/2 disjoint pairs, partners shifted by k; node0007 slow.
    out = []
    for i in range(0, HOSTS, 2):
        a, b = i, (i + 1 + 2 * k) % HOSTS
        if a == b:
            continue
        gbs = 20.1 if 7 in (a, b) else 48.0 + (a * 7 + b) % 100 / 50
        out.append(f"node{a:04d},node{b:04d}  {gbs:.2f}\n")
    return "".join(out)


def mpigraph_doc(limit):
    # One mpiGraph.out whose N x N Send and Recv tables take about limit bytes (10 bytes a cell).
    n = min(MPIGRAPH_MAX_RANKS, max(6, int((limit / 20) ** 0.5)))
    names = [f"node{i:05d}:{i}" for i in range(n)]
    head = f"START mpiGraph v1.5\nMsgSize\t1048576\nTimes\t10\nWindow\t10\nProcs\t{n}\n\nGathering results\n\n"
    yield head
    for table, verb in (("Send", "to"), ("Recv", "from")):
        yield f"{table} max\t11238.127553\n{table} avg\t9098.296243\n\n{table}\t" + "\t".join(names) + "\t\n"
        for i in range(n):
            row = (("0.000" if i == j else ("5410.765" if 5 in (i, j) else f"{10800 + (i * 7 + j) % 400}.125"))
                   for j in range(n))
            yield f"{names[i]} {verb}\t" + "\t".join(row) + "\t\n"
        yield "\n"
    yield "END mpiGraph\n"


def from_fixture(src, fmt):
    path, mode = FIXTURES[fmt]
    with open(f"{src}/{path}") as f:
        text = f.read()
    if not text.endswith("\n"):
        text += "\n"
    if mode == "repeat":
        return lambda k: text
    if mode == "sections":
        return lambda k: f"### capture {k}\n" + text
    lines = text.splitlines(keepends=True)
    return lambda k: "".join(f"node{k % HOSTS:04d}: {line}" for line in lines)


def main():
    if sys.argv[1:] == ["--list"]:
        print(" ".join(["ethtool-s", "nccl-tests", "syslog", "pairs", "mpigraph"] + list(FIXTURES)))
        return
    fmt, mb, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    src = sys.argv[4] if len(sys.argv) > 4 else "."
    limit = min(mb, CAPPED.get(fmt, mb)) * 1000 * 1000
    with open(path, "w") as f:
        if fmt == "mpigraph":
            f.writelines(mpigraph_doc(limit))
            return
        make = {"ethtool-s": ethtool_s, "nccl-tests": nccl, "syslog": syslog, "pairs": pairs}.get(fmt)
        if make is None:
            make = from_fixture(src, fmt)
        written, k = 0, 0
        while written < limit:
            block = make(k)
            f.write(block)
            written += len(block)
            k += 1


if __name__ == "__main__":
    main()
