#!/usr/bin/env python3
"""Builds the fake /sys trees under tests/fixtures/ that `fabdiag topo` (and counters) read.

Usage:  scripts/make-topo-fixture.py [--out DIR] [NAME ...]
        (default: every machine below, written to tests/fixtures/<name>/; an existing tree of
        that name is replaced)

Each machine is a compact description (host bridges -> root ports -> switches -> endpoints).
The script writes what the kernel would show for it: devices/pci*/... with the PCI attributes
(vendor, device, class, numa_node, local_cpulist, local_cpus, current/max_link_speed/width,
driver link), bus/pci/devices/<bdf> links, class/infiniband and class/net links, the RDMA port
files (state, phys_state, rate, link_layer, counters/, hw_counters/) and devices/system/node.
Every symbolic link is RELATIVE so the tree resolves inside itself (git keeps the links).
Output is deterministic: re-running it must leave `git status` clean.
"""

import argparse
import os
import shutil
import sys

GEN5 = "32.0 GT/s PCIe"
GEN4 = "16.0 GT/s PCIe"
GEN1 = "2.5 GT/s PCIe"

# ---- device catalogue: (vendor, device, class, driver, max speed, max width) ---------------
H100 = dict(vendor="0x10de", device="0x2330", cls="0x030200", driver="nvidia", max_speed=GEN5, max_width=16)
CX7_IB = dict(vendor="0x15b3", device="0x1021", cls="0x020700", driver="mlx5_core", max_speed=GEN5, max_width=16)
CX7_ETH = dict(vendor="0x15b3", device="0x1021", cls="0x020000", driver="mlx5_core", max_speed=GEN5, max_width=16)
CX6DX_ETH = dict(vendor="0x15b3", device="0x101d", cls="0x020000", driver="mlx5_core", max_speed=GEN4, max_width=16)
NVME = dict(vendor="0x144d", device="0xa80a", cls="0x010802", driver="nvme", max_speed=GEN4, max_width=4)
INTEL_RP = dict(vendor="0x8086", device="0x352a", cls="0x060400", driver="pcieport", max_speed=GEN5, max_width=16)
AMD_RP_GEN4 = dict(vendor="0x1022", device="0x1483", cls="0x060400", driver="pcieport", max_speed=GEN4, max_width=16)
AMD_RP_GEN5 = dict(vendor="0x1022", device="0x14ab", cls="0x060400", driver="pcieport", max_speed=GEN5, max_width=16)
PEX_USP = dict(vendor="0x1000", device="0xc030", cls="0x060400", driver="pcieport", max_speed=GEN5, max_width=16)
PEX_DSP = dict(vendor="0x1000", device="0xc030", cls="0x060400", driver="pcieport", max_speed=GEN5, max_width=16)
A100 = dict(vendor="0x10de", device="0x20b0", cls="0x030200", driver="nvidia", max_speed=GEN4, max_width=16)
CX6_IB = dict(vendor="0x15b3", device="0x101b", cls="0x020700", driver="mlx5_core", max_speed=GEN4, max_width=16)
PEX4_USP = dict(vendor="0x1000", device="0xc010", cls="0x060400", driver="pcieport", max_speed=GEN4, max_width=16)
PEX4_DSP = dict(vendor="0x1000", device="0xc010", cls="0x060400", driver="pcieport", max_speed=GEN4, max_width=16)


# ---- description helpers ---------------------------------------------------------------------
def ep(bdf, model, **extra):
    """An endpoint (GPU, NIC function, NVMe). extra: ibdev, netdev, link_layer, rate, cur_speed,
    cur_width, no_local_cpulist."""
    return dict(bdf=bdf, model=model, children=[], **extra)


def bridge(bdf, model, children, **extra):
    return dict(bdf=bdf, model=model, children=children, **extra)


def switch(usp_bdf, ports, gen4=False):
    """A PCIe switch: upstream port usp_bdf; ports = [(dsp_bdf, child), ...]."""
    usp, dsp = (PEX4_USP, PEX4_DSP) if gen4 else (PEX_USP, PEX_DSP)
    return bridge(usp_bdf, usp, [bridge(d, dsp, [c]) for d, c in ports])


def cpumask(cpulist, ncpus):
    cpus = set()
    for part in cpulist.split(","):
        if "-" in part:
            a, b = part.split("-")
            cpus.update(range(int(a), int(b) + 1))
        else:
            cpus.add(int(part))
    words = []
    for w in range((ncpus + 31) // 32):
        v = sum(1 << (c - 32 * w) for c in cpus if 32 * w <= c < 32 * (w + 1))
        words.append("%08x" % v)
    return ",".join(reversed(words))


def ib_nic(bdf, ibdev, **kw):
    bus = int(bdf.split(":")[1], 16)
    return ep(bdf, CX7_IB, ibdev=ibdev, netdev="ibp%ds0" % bus, link_layer="InfiniBand",
              rate="400 Gb/sec (4X NDR)", **kw)


def gpu(bdf, **kw):
    return ep(bdf, H100, **kw)


def hdr_nic(bdf, ibdev):
    bus = int(bdf.split(":")[1], 16)
    return ep(bdf, CX6_IB, ibdev=ibdev, netdev="ibp%ds0" % bus, link_layer="InfiniBand",
              rate="200 Gb/sec (4X HDR)")


def roce_nic(bdf, ibdev):
    bus = int(bdf.split(":")[1], 16)
    fn = int(bdf.split(".")[1])
    return ep(bdf, CX6DX_ETH, ibdev=ibdev, netdev="enp%ds0f%dnp%d" % (bus, fn, fn),
              link_layer="Ethernet", rate="100 Gb/sec (4X EDR)")


def nps4_numa(sockets=2, cores_per_node=8):
    """NUMA node n of an AMD 2-socket NPS4 machine with SMT: cores 8n..8n+7 and their
    hyperthreads 64+8n..64+8n+7."""
    nodes = 4 * sockets
    smt = nodes * cores_per_node
    return {n: "%d-%d,%d-%d" % (n * cores_per_node, n * cores_per_node + cores_per_node - 1,
                                smt + n * cores_per_node, smt + n * cores_per_node + cores_per_node - 1)
            for n in range(nodes)}


# ---- machines -------------------------------------------------------------------------------
def dgx8(degraded=False):
    """8x H100 + 8x ConnectX-7 NDR, 2 sockets. See the README written next to the tree."""
    nic3 = dict(cur_width=8) if degraded else {}
    gpu5 = dict(cur_speed=GEN1) if degraded else {}
    return dict(
        ncpus=128,
        numa={0: "0-31,64-95", 1: "32-63,96-127"},
        host_bridges=[
            # Socket 0: one host bridge with two root ports -> PHB between its switches.
            dict(name="pci0000:15", numa=0, root_ports=[
                bridge("0000:15:01.0", INTEL_RP, [switch("0000:16:00.0", [
                    ("0000:17:00.0", gpu("0000:18:00.0")),
                    ("0000:17:01.0", ib_nic("0000:19:00.0", "mlx5_0")),
                    ("0000:17:02.0", gpu("0000:1a:00.0")),
                    ("0000:17:03.0", ib_nic("0000:1b:00.0", "mlx5_1")),
                    # case 021's trap: a Gen5 switch port running Gen4 because its NVMe is Gen4.
                    ("0000:17:04.0", ep("0000:1c:00.0", NVME)),
                ])]),
                bridge("0000:15:02.0", INTEL_RP, [switch("0000:2a:00.0", [
                    ("0000:2b:00.0", gpu("0000:2c:00.0")),
                    ("0000:2b:01.0", ib_nic("0000:2d:00.0", "mlx5_2")),
                    ("0000:2b:02.0", gpu("0000:2e:00.0")),
                    ("0000:2b:03.0", ib_nic("0000:2f:00.0", "mlx5_3", **nic3)),
                ])]),
            ]),
            # Socket 1: two host bridges (one root port each) -> NODE between them.
            dict(name="pci0000:97", numa=1, root_ports=[
                bridge("0000:97:01.0", INTEL_RP, [switch("0000:98:00.0", [
                    ("0000:99:00.0", gpu("0000:9a:00.0")),
                    ("0000:99:01.0", ib_nic("0000:9b:00.0", "mlx5_4")),
                    ("0000:99:02.0", gpu("0000:9c:00.0", **gpu5)),
                    ("0000:99:03.0", ib_nic("0000:9d:00.0", "mlx5_5")),
                ])]),
            ]),
            # A two-level switch: GPU6/NIC6 and GPU7/NIC7 each behind their own second-level
            # switch -> PIX inside a pair, PXB across the pairs.
            dict(name="pci0000:b7", numa=1, root_ports=[
                bridge("0000:b7:01.0", INTEL_RP, [switch("0000:b8:00.0", [
                    ("0000:b9:00.0", switch("0000:ba:00.0", [
                        ("0000:bb:00.0", gpu("0000:bc:00.0")),
                        ("0000:bb:01.0", ib_nic("0000:bd:00.0", "mlx5_6")),
                    ])),
                    ("0000:b9:01.0", switch("0000:be:00.0", [
                        ("0000:bf:00.0", gpu("0000:c0:00.0")),
                        ("0000:bf:01.0", ib_nic("0000:c1:00.0", "mlx5_7")),
                    ])),
                ])]),
            ]),
        ],
    )


def rdma_nogpu():
    """Single-socket AMD node: one NDR IB NIC and one RoCE NIC, no GPU."""
    return dict(
        ncpus=16,
        numa={0: "0-15"},
        host_bridges=[
            # CX-7 (Gen5 capable) in a Gen4 root port: 16 GT/s is the most the link can do.
            dict(name="pci0000:40", numa=0, root_ports=[
                bridge("0000:40:01.1", AMD_RP_GEN4, [ib_nic("0000:41:00.0", "mlx5_0")]),
            ]),
            # CX-6 Dx (Gen4) in a Gen5 root port; no local_cpulist (old kernel): local_cpus mask.
            dict(name="pci0000:c0", numa=0, root_ports=[
                bridge("0000:c0:03.1", AMD_RP_GEN5, [
                    ep("0000:c1:00.0", CX6DX_ETH, ibdev="mlx5_1", netdev="enp193s0f0np0",
                       link_layer="Ethernet", rate="100 Gb/sec (4X EDR)", no_local_cpulist=True),
                ]),
            ]),
        ],
    )


def case011():
    """8x A100 SXM4 (NV12 through NVSwitch, given by tests/fakes/nvml/case011-a100.conf), two
    GPUs per ConnectX-6 HDR NIC behind a two-level PCIe switch (PXB), and a dual-port
    ConnectX-6 Dx on a NUMA node without GPUs: the machine of shared case 011."""
    def pair(hb, numa, rp, usp1, dsp_gpu, usp2, gpu_ports, dsp_nic, nic):
        return dict(name=hb, numa=numa, root_ports=[
            bridge(rp, AMD_RP_GEN4, [switch(usp1, [
                (dsp_gpu, switch(usp2, [(d, ep(g, A100)) for d, g in gpu_ports], gen4=True)),
                (dsp_nic, nic),
            ], gen4=True)]),
        ])
    return dict(
        ncpus=128,
        numa=nps4_numa(),
        host_bridges=[
            pair("pci0000:00", 3, "0000:00:01.1", "0000:01:00.0", "0000:02:00.0", "0000:03:00.0",
                 [("0000:04:00.0", "0000:07:00.0"), ("0000:04:10.0", "0000:0f:00.0")],
                 "0000:02:08.0", hdr_nic("0000:0c:00.0", "mlx5_1")),
            dict(name="pci0000:20", numa=2, root_ports=[
                bridge("0000:20:03.1", AMD_RP_GEN4, [roce_nic("0000:21:00.0", "mlx5_3"),
                                                     roce_nic("0000:21:00.1", "mlx5_4")]),
            ]),
            pair("pci0000:40", 1, "0000:40:01.1", "0000:41:00.0", "0000:42:00.0", "0000:43:00.0",
                 [("0000:44:00.0", "0000:47:00.0"), ("0000:44:10.0", "0000:4e:00.0")],
                 "0000:42:08.0", hdr_nic("0000:4b:00.0", "mlx5_0")),
            pair("pci0000:80", 7, "0000:80:01.1", "0000:81:00.0", "0000:82:00.0", "0000:83:00.0",
                 [("0000:84:00.0", "0000:87:00.0"), ("0000:84:10.0", "0000:90:00.0")],
                 "0000:82:08.0", hdr_nic("0000:8c:00.0", "mlx5_5")),
            pair("pci0000:b0", 5, "0000:b0:01.1", "0000:b1:00.0", "0000:b2:00.0", "0000:b3:00.0",
                 [("0000:b4:00.0", "0000:b7:00.0"), ("0000:b4:10.0", "0000:bd:00.0")],
                 "0000:b2:08.0", hdr_nic("0000:ba:00.0", "mlx5_2")),
        ],
    )


def hgx4():
    """4x A100 SXM4 on a 4-GPU board (direct NVLinks, tests/fakes/nvml/hgx4-direct.conf), one
    HDR NIC per GPU under the same Gen4 switch, one socket (NPS1) with two host bridges."""
    def quad(rp, usp, dsp_gpu, g, dsp_nic, nic):
        return bridge(rp, AMD_RP_GEN4, [switch(usp, [(dsp_gpu, ep(g, A100)), (dsp_nic, nic)], gen4=True)])
    return dict(
        ncpus=64,
        numa={0: "0-63"},
        host_bridges=[
            dict(name="pci0000:00", numa=0, root_ports=[
                quad("0000:00:01.1", "0000:01:00.0", "0000:02:00.0", "0000:03:00.0", "0000:02:01.0",
                     hdr_nic("0000:04:00.0", "mlx5_0")),
                quad("0000:00:03.1", "0000:21:00.0", "0000:22:00.0", "0000:23:00.0", "0000:22:01.0",
                     hdr_nic("0000:24:00.0", "mlx5_1")),
            ]),
            dict(name="pci0000:40", numa=0, root_ports=[
                quad("0000:40:01.1", "0000:41:00.0", "0000:42:00.0", "0000:43:00.0", "0000:42:01.0",
                     hdr_nic("0000:44:00.0", "mlx5_2")),
                quad("0000:40:03.1", "0000:61:00.0", "0000:62:00.0", "0000:63:00.0", "0000:62:01.0",
                     hdr_nic("0000:64:00.0", "mlx5_3")),
            ]),
        ],
    )


def cpu_only():
    """A node with neither GPU nor NIC: one root port with an NVMe drive."""
    return dict(
        ncpus=8,
        numa={0: "0-7"},
        host_bridges=[
            dict(name="pci0000:00", numa=0, root_ports=[
                bridge("0000:00:01.1", AMD_RP_GEN4, [ep("0000:01:00.0", NVME)]),
            ]),
        ],
    )


MACHINES = {
    "dgx8": (dgx8, {}),
    "dgx8-degraded": (dgx8, {"degraded": True}),
    "rdma-nogpu": (rdma_nogpu, {}),
    "cpu-only": (cpu_only, {}),
    "case011-a100": (case011, {}),
    "hgx4-a100": (hgx4, {}),
}

# Expected `fabdiag topo` results, written by hand (not computed by this script) so that the
# README is an independent oracle for the unit tests.
DGX8_README = """# dgx8: 8x H100 + 8x ConnectX-7 (NDR InfiniBand), 2 sockets

Generated by scripts/make-topo-fixture.py (do not edit by hand; re-run the script).

PCI tree (numa node, root complex):

    socket 0 / NUMA 0 (cpus 0-31,64-95)
      pci0000:15  root port 15:01.0 -> switch 16:00.0 -> GPU0 18:00.0, NIC0 19:00.0 (mlx5_0),
                                                       GPU1 1a:00.0, NIC1 1b:00.0 (mlx5_1),
                                                       NVMe 1c:00.0 (Gen4 x4 under a Gen5 port)
                  root port 15:02.0 -> switch 2a:00.0 -> GPU2 2c:00.0, NIC2 2d:00.0 (mlx5_2),
                                                       GPU3 2e:00.0, NIC3 2f:00.0 (mlx5_3)
    socket 1 / NUMA 1 (cpus 32-63,96-127)
      pci0000:97  root port 97:01.0 -> switch 98:00.0 -> GPU4 9a:00.0, NIC4 9b:00.0 (mlx5_4),
                                                       GPU5 9c:00.0, NIC5 9d:00.0 (mlx5_5)
      pci0000:b7  root port b7:01.0 -> switch b8:00.0 -> switch ba:00.0 -> GPU6 bc:00.0, NIC6 bd:00.0 (mlx5_6)
                                                      -> switch be:00.0 -> GPU7 c0:00.0, NIC7 c1:00.0 (mlx5_7)

Netdevs: ibp<bus in decimal>s0 (NIC0 ibp25s0 ... NIC7 ibp193s0). All links Gen5 x16 and healthy.

Expected matrix (NVLink unknown without NVML, so GPU pairs show their PCIe level):

          GPU0 GPU1 GPU2 GPU3 GPU4 GPU5 GPU6 GPU7 NIC0 NIC1 NIC2 NIC3 NIC4 NIC5 NIC6 NIC7
    GPU0   X   PIX  PHB  PHB  SYS  SYS  SYS  SYS  PIX  PIX  PHB  PHB  SYS  SYS  SYS  SYS
    GPU1  PIX   X   PHB  PHB  SYS  SYS  SYS  SYS  PIX  PIX  PHB  PHB  SYS  SYS  SYS  SYS
    GPU2  PHB  PHB   X   PIX  SYS  SYS  SYS  SYS  PHB  PHB  PIX  PIX  SYS  SYS  SYS  SYS
    GPU3  PHB  PHB  PIX   X   SYS  SYS  SYS  SYS  PHB  PHB  PIX  PIX  SYS  SYS  SYS  SYS
    GPU4  SYS  SYS  SYS  SYS   X   PIX  NODE NODE SYS  SYS  SYS  SYS  PIX  PIX  NODE NODE
    GPU5  SYS  SYS  SYS  SYS  PIX   X   NODE NODE SYS  SYS  SYS  SYS  PIX  PIX  NODE NODE
    GPU6  SYS  SYS  SYS  SYS  NODE NODE  X   PXB  SYS  SYS  SYS  SYS  NODE NODE PIX  PXB
    GPU7  SYS  SYS  SYS  SYS  NODE NODE PXB   X   SYS  SYS  SYS  SYS  NODE NODE PXB  PIX
    NIC0  PIX  PIX  PHB  PHB  SYS  SYS  SYS  SYS   X   PIX  PHB  PHB  SYS  SYS  SYS  SYS
    NIC1  PIX  PIX  PHB  PHB  SYS  SYS  SYS  SYS  PIX   X   PHB  PHB  SYS  SYS  SYS  SYS
    NIC2  PHB  PHB  PIX  PIX  SYS  SYS  SYS  SYS  PHB  PHB   X   PIX  SYS  SYS  SYS  SYS
    NIC3  PHB  PHB  PIX  PIX  SYS  SYS  SYS  SYS  PHB  PHB  PIX   X   SYS  SYS  SYS  SYS
    NIC4  SYS  SYS  SYS  SYS  PIX  PIX  NODE NODE SYS  SYS  SYS  SYS   X   PIX  NODE NODE
    NIC5  SYS  SYS  SYS  SYS  PIX  PIX  NODE NODE SYS  SYS  SYS  SYS  PIX   X   NODE NODE
    NIC6  SYS  SYS  SYS  SYS  NODE NODE PIX  PXB  SYS  SYS  SYS  SYS  NODE NODE  X   PXB
    NIC7  SYS  SYS  SYS  SYS  NODE NODE PXB  PIX  SYS  SYS  SYS  SYS  NODE NODE PXB   X

Why: same switch = PIX; GPU6/NIC6 vs GPU7/NIC7 cross three switches (ba, b8, be) = PXB;
15:01.0 vs 15:02.0 = two root ports of one host bridge = PHB; pci0000:97 vs pci0000:b7 = two
host bridges of NUMA 1 = NODE; NUMA 0 vs NUMA 1 = SYS.

Expected findings: none (the NVMe's Gen4 link under a Gen5 switch port is not a GPU/NIC and is
limited by the NVMe's own max speed anyway).
"""

DGX8_DEGRADED_README = """# dgx8-degraded: dgx8 with two injected PCIe link faults

Generated by scripts/make-topo-fixture.py from the dgx8 description with two overrides:

- NIC3 (0000:2f:00.0, mlx5_3): current_link_width 8 of max 16 (switch port 2b:03.0 also x8)
  -> error L4 pcie_width_downgraded
- GPU5 (0000:9c:00.0): current_link_speed 2.5 GT/s of max 32 GT/s (switch port 99:02.0 too)
  -> info L4 pcie_speed_low_at_idle (GPUs lower the link speed when idle; re-check under load)

Nothing else may be reported. The matrix is the same as dgx8's (see ../dgx8/README.md).
"""

RDMA_NOGPU_README = """# rdma-nogpu: single-socket AMD node, two RDMA NICs, no GPU

Generated by scripts/make-topo-fixture.py.

- NIC0 0000:41:00.0 mlx5_0 (ibp65s0), ConnectX-7 InfiniBand NDR, Gen5-capable card in a Gen4
  root port 40:01.1: runs 16 GT/s x16, which is the most this link can do -> no finding.
- NIC1 0000:c1:00.0 mlx5_1 (enp193s0f0np0), ConnectX-6 Dx RoCE 100G, Gen4 card in a Gen5 root
  port c0:03.1: runs 16 GT/s x16 -> no finding. Has no local_cpulist (old kernel), only the
  local_cpus mask 0000ffff -> cpu affinity 0-15.

Expected matrix: NIC0-NIC1 = NODE (two host bridges, pci0000:40 and pci0000:c0, same NUMA 0).
"""

CPU_ONLY_README = """# cpu-only: no GPU and no NIC

Generated by scripts/make-topo-fixture.py. One root port 00:01.1 with an NVMe drive.
`fabdiag topo` prints an empty matrix and says that it found no GPU and no NIC (exit 0).
"""

CASE011_README = """# case011-a100: the machine of shared case 011 (nvidia-smi topo -m, NVIDIA/nccl#1435)

Generated by scripts/make-topo-fixture.py. 8x A100 SXM4 (Gen4), AMD 2 sockets in NPS4 (8 NUMA
nodes, 128 CPUs: node n = cpus 8n..8n+7 and 64+8n..64+8n+7). NVLink comes from the fake NVML
config tests/fakes/nvml/case011-a100.conf (12 NVSwitch links per GPU -> NV12 everywhere).

    pci0000:00 NUMA 3  root port 00:01.1 -> switch 01:00.0 -> switch 03:00.0 -> GPU0 07:00.0, GPU1 0f:00.0
                                                         -> NIC1 0c:00.0 (mlx5_1, HDR IB)
    pci0000:20 NUMA 2  root port 20:03.1 -> NIC3 21:00.0 (mlx5_3), NIC4 21:00.1 (mlx5_4) (CX-6 Dx RoCE)
    pci0000:40 NUMA 1  ... GPU2 47:00.0, GPU3 4e:00.0 / NIC0 4b:00.0 (mlx5_0)
    pci0000:80 NUMA 7  ... GPU4 87:00.0, GPU5 90:00.0 / NIC5 8c:00.0 (mlx5_5)
    pci0000:b0 NUMA 5  ... GPU6 b7:00.0, GPU7 bd:00.0 / NIC2 ba:00.0 (mlx5_2)

NICs are numbered by RDMA device name, as nvidia-smi does (NIC0 = mlx5_0 sits with GPU2/GPU3).
Each GPU reaches its NIC through two switches (PXB); every other GPU-NIC pair is on another
NUMA node (SYS). The case's output has no GPU7 row: GPU7 here is the second GPU of NIC2.

Expected (the case, cell by cell for rows GPU0-GPU6): NV12 between GPUs; GPU0/1 -> NIC1 PXB,
GPU2/3 -> NIC0 PXB, GPU4/5 -> NIC5 PXB, GPU6 -> NIC2 PXB, all else SYS; CPU affinity and NUMA
as listed above; GPU NUMA ID N/A. Rails: warn nic_shared_by_gpus for NIC0, NIC1, NIC2, NIC5
(two GPUs each); info nic_far_from_gpus for NIC3 and NIC4; no gpu_without_local_nic.
"""

HGX4_README = """# hgx4-a100: 4x A100 SXM4 with direct NVLinks, one HDR NIC per GPU

Generated by scripts/make-topo-fixture.py. One socket (NUMA 0, cpus 0-63), two host bridges
with two root ports each; each root port has a Gen4 switch with one GPU and one NIC:

    pci0000:00  00:01.1 -> switch 01:00.0 -> GPU0 03:00.0, NIC0 04:00.0 (mlx5_0)
                00:03.1 -> switch 21:00.0 -> GPU1 23:00.0, NIC1 24:00.0 (mlx5_1)
    pci0000:40  40:01.1 -> switch 41:00.0 -> GPU2 43:00.0, NIC2 44:00.0 (mlx5_2)
                40:03.1 -> switch 61:00.0 -> GPU3 63:00.0, NIC3 64:00.0 (mlx5_3)

With tests/fakes/nvml/hgx4-direct.conf (12 links per GPU, 4 to each peer): NV4 between every
GPU pair. With hgx4-link-down.conf (link 0 of GPU0, to GPU1, down at both ends): GPU0-GPU1 NV3
and warn nvlink_links_down for GPU0 and GPU1 (11 active links, the others 12).
PCIe: PIX inside a switch, PHB across root ports of one host bridge, NODE across the two.
Rails: each GPU has its own PIX NIC; nothing shared, no finding.
"""

READMES = {
    "case011-a100": CASE011_README,
    "hgx4-a100": HGX4_README,
    "dgx8": DGX8_README,
    "dgx8-degraded": DGX8_DEGRADED_README,
    "rdma-nogpu": RDMA_NOGPU_README,
    "cpu-only": CPU_ONLY_README,
}


# ---- writer ---------------------------------------------------------------------------------
class Writer:
    def __init__(self, root):
        self.root = root

    def file(self, rel, content):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(content + "\n")

    def mkdir(self, rel):
        os.makedirs(os.path.join(self.root, rel), exist_ok=True)

    def link(self, rel, target_rel):
        """Symlink at `rel` pointing at `target_rel` (both relative to the root), written as a
        relative link."""
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        target = os.path.relpath(os.path.join(self.root, target_rel), os.path.dirname(path))
        os.symlink(target, path)


IB_COUNTERS = {
    "symbol_error": 0, "link_error_recovery": 0, "link_downed": 0, "port_rcv_errors": 0,
    "port_rcv_remote_physical_errors": 0, "port_rcv_switch_relay_errors": 0,
    "port_xmit_discards": 0, "port_xmit_constraint_errors": 0, "port_rcv_constraint_errors": 0,
    "local_link_integrity_errors": 0, "excessive_buffer_overrun_errors": 0, "VL15_dropped": 0,
    "port_xmit_wait": 18231, "port_xmit_data": 93841234567, "port_rcv_data": 93840123456,
    "port_xmit_packets": 412345678, "port_rcv_packets": 412340001,
    "unicast_xmit_packets": 412345000, "unicast_rcv_packets": 412339000,
    "multicast_xmit_packets": 678, "multicast_rcv_packets": 1001,
}
HW_COUNTERS_COMMON = {
    "out_of_buffer": 0, "out_of_sequence": 0, "duplicate_request": 0, "local_ack_timeout_err": 0,
    "packet_seq_err": 0, "rnr_nak_retry_err": 0, "implied_nak_seq_err": 0,
    "req_cqe_error": 0, "resp_cqe_error": 0, "rx_write_requests": 1234567,
    "rx_read_requests": 2345, "lifespan": 10,
}
HW_COUNTERS_ROCE = {
    "np_cnp_sent": 0, "np_ecn_marked_roce_packets": 0, "rp_cnp_handled": 0, "rp_cnp_ignored": 0,
    "roce_adp_retrans": 0, "roce_slow_restart": 0,
}


def write_rdma(w, devdir, ibdev, link_layer, rate, netdev, index):
    d = "%s/infiniband/%s" % (devdir, ibdev)
    w.link(d + "/device", devdir)
    guid = "0000:0000:0000:%04x" % (index + 1)
    w.file(d + "/node_type", "1: CA")
    w.file(d + "/node_guid", guid)
    w.file(d + "/sys_image_guid", guid)
    w.file(d + "/fw_ver", "28.39.1002")
    w.file(d + "/hca_type", "MT4129")
    w.file(d + "/board_id", "MT_0000000838")
    p = d + "/ports/1"
    w.file(p + "/state", "4: ACTIVE")
    w.file(p + "/phys_state", "5: LinkUp")
    w.file(p + "/rate", rate)
    w.file(p + "/link_layer", link_layer)
    if link_layer == "InfiniBand":
        w.file(p + "/lid", "0x%x" % (0x10 + index))
        w.file(p + "/sm_lid", "0x1")
        w.file(p + "/lid_mask_count", "0")
        w.file(p + "/cap_mask", "0xa751e848")
        w.file(p + "/gids/0", "fe80:0000:0000:0000:" + guid)
    else:
        w.file(p + "/lid", "0x0")
        w.file(p + "/sm_lid", "0x0")
        w.file(p + "/cap_mask", "0x00010000")
        w.file(p + "/gids/0", "fe80:0000:0000:0000:0000:0000:0000:%04x" % (index + 1))
        w.file(p + "/gids/1", "0000:0000:0000:0000:0000:ffff:c000:02%02x" % (index + 10))
        w.file(p + "/gid_attrs/types/0", "IB/RoCE v1")
        w.file(p + "/gid_attrs/types/1", "RoCE v2")
        w.file(p + "/gid_attrs/ndevs/0", netdev)
        w.file(p + "/gid_attrs/ndevs/1", netdev)
    for name, value in sorted(IB_COUNTERS.items()):
        w.file(p + "/counters/" + name, str(value))
    hw = dict(HW_COUNTERS_COMMON)
    if link_layer == "Ethernet":
        hw.update(HW_COUNTERS_ROCE)
    for name, value in sorted(hw.items()):
        w.file(p + "/hw_counters/" + name, str(value))
    w.link("class/infiniband/" + ibdev, d)


def write_netdev(w, devdir, netdev, link_layer, index):
    d = "%s/net/%s" % (devdir, netdev)
    w.link(d + "/device", devdir)
    if link_layer == "InfiniBand":
        w.file(d + "/type", "32")
        w.file(d + "/mtu", "4092")
        w.file(d + "/speed", "400000")
        w.file(d + "/address", "00:00:10:29:fe:80:00:00:00:00:00:00:00:00:00:00:00:00:%02x:%02x"
               % (index // 256, index % 256))
    else:
        w.file(d + "/type", "1")
        w.file(d + "/mtu", "9000")
        w.file(d + "/speed", "100000")
        w.file(d + "/address", "02:00:00:00:00:%02x" % (index + 1))
    w.file(d + "/operstate", "up")
    w.file(d + "/carrier", "1")
    w.file(d + "/ifindex", str(index + 3))
    for stat in ("rx_bytes", "tx_bytes", "rx_packets", "tx_packets", "rx_errors", "tx_errors",
                 "rx_dropped", "tx_dropped", "rx_crc_errors"):
        value = 0 if ("err" in stat or "drop" in stat) else 1000 + 17 * index
        w.file(d + "/statistics/" + stat, str(value))
    w.link("class/net/" + netdev, d)


def write_pci(w, machine, node, parentdir, numa, parent_link, counters):
    """Writes `node` under `parentdir`; parent_link = (speed, width) the parent port can do."""
    m = node["model"]
    bdf = node["bdf"]
    devdir = "%s/%s" % (parentdir, bdf)
    cpulist = machine["numa"][numa]
    w.file(devdir + "/vendor", m["vendor"])
    w.file(devdir + "/device", m["device"])
    w.file(devdir + "/class", m["cls"])
    w.file(devdir + "/numa_node", str(numa))
    if not node.get("no_local_cpulist"):
        w.file(devdir + "/local_cpulist", cpulist)
    w.file(devdir + "/local_cpus", cpumask(cpulist, machine["ncpus"]))
    w.file(devdir + "/max_link_speed", m["max_speed"])
    w.file(devdir + "/max_link_width", str(m["max_width"]))
    # Current link: what the slower end can do, unless a fault is injected. For a bridge the
    # current values describe its downstream link (to its single child) for downstream/root
    # ports; an upstream port's describe the link above it.
    speed = node.get("cur_speed") or min(m["max_speed"], parent_link[0], key=lambda s: float(s.split()[0]))
    width = node.get("cur_width") or min(m["max_width"], parent_link[1])
    node["_link"] = (speed, width)
    is_usp = m is PEX_USP
    if not node["children"] or is_usp:
        w.file(devdir + "/current_link_speed", speed)
        w.file(devdir + "/current_link_width", str(width))
    w.link(devdir + "/driver", "bus/pci/drivers/" + m["driver"])
    w.link("bus/pci/drivers/%s/%s" % (m["driver"], bdf), devdir)
    w.link("bus/pci/devices/" + bdf, devdir)
    for child in node["children"]:
        write_pci(w, machine, child, devdir, numa, (m["max_speed"], m["max_width"]), counters)
    if node["children"] and not is_usp:
        # Root/downstream port: its current link is the link to its child.
        cs, cw = node["children"][0]["_link"]
        w.file(devdir + "/current_link_speed", cs)
        w.file(devdir + "/current_link_width", str(cw))
    if "ibdev" in node:
        index = counters["rdma"]
        counters["rdma"] += 1
        write_rdma(w, devdir, node["ibdev"], node["link_layer"], node["rate"], node["netdev"], index)
        write_netdev(w, devdir, node["netdev"], node["link_layer"], index)


def build(name, root):
    fn, kwargs = MACHINES[name]
    machine = fn(**kwargs)
    if os.path.lexists(root):
        shutil.rmtree(root)
    w = Writer(root)
    counters = {"rdma": 0}
    for hb in machine["host_bridges"]:
        hbdir = "devices/" + hb["name"]
        w.mkdir(hbdir)
        for rp in hb["root_ports"]:
            # A root port's own upstream is the host bridge: no link limit above it.
            write_pci(w, machine, rp, hbdir, hb["numa"], (GEN5, 16), counters)
    for node_id, cpulist in sorted(machine["numa"].items()):
        w.file("devices/system/node/node%d/cpulist" % node_id, cpulist)
    w.file("devices/system/node/online", ",".join(str(n) for n in sorted(machine["numa"])))
    w.file("devices/system/cpu/online", "0-%d" % (machine["ncpus"] - 1))
    # A virtual interface without a PCI device behind it: must be ignored.
    w.file("devices/virtual/net/lo/mtu", "65536")
    w.file("devices/virtual/net/lo/type", "772")
    w.file("devices/virtual/net/lo/operstate", "unknown")
    w.link("class/net/lo", "devices/virtual/net/lo")
    w.file("README.md", READMES[name].rstrip("\n"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures"),
                    help="directory that receives <name>/ trees (default: tests/fixtures)")
    ap.add_argument("names", nargs="*", help="machines to build (default: all): " + ", ".join(MACHINES))
    args = ap.parse_args()
    names = args.names or list(MACHINES)
    for n in names:
        if n not in MACHINES:
            sys.exit("make-topo-fixture: unknown machine '%s' (known: %s)" % (n, ", ".join(MACHINES)))
        root = os.path.normpath(os.path.join(args.out, n))
        build(n, root)
        print("wrote %s" % root)


if __name__ == "__main__":
    main()
