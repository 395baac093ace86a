#!/usr/bin/env python3
"""Builds the fake hosts under tests/fixtures/check/ that `fabdiag check` reads.

Usage:  scripts/make-check-fixtures.py [--out DIR] [VARIANT ...]
        (default: every variant below, written to tests/fixtures/check/<variant>/{sys,proc};
        an existing tree of that name is replaced)

One small RoCE GPU node (4x H100, 4x ConnectX-7 400G rails, 1x ConnectX-6 Dx 100G frontend,
2 sockets) in a healthy form, and one variant per injected host fault. Each variant differs
from `healthy` in exactly one place, so `fabdiag check` on it must report the healthy findings
plus exactly the one listed under EXPECTED below (tests/probes/check_fixtures_test.cpp).

Besides what scripts/make-topo-fixture.py writes (PCI attributes, class/infiniband, class/net),
these trees hold what the check rules read: PCI config space of the bridges (binary, with the
ACS extended capability), AER statistics, iommu groups and class/iommu, module/nvidia_peermem,
RoCE GID tables and hw_counters, and a procfs with cmdline, modules, driver/nvidia/version and
sys/kernel/osrelease. Every symbolic link is RELATIVE; output is deterministic.
"""

import argparse
import os
import shutil
import struct
import sys

GEN5 = "32.0 GT/s PCIe"
GEN4 = "16.0 GT/s PCIe"
GEN1 = "2.5 GT/s PCIe"

# model: vendor, device, class, driver, max speed, max width
H100 = dict(vendor=0x10DE, device=0x2330, cls=0x030200, driver="nvidia", speed=GEN5, width=16)
CX7 = dict(vendor=0x15B3, device=0x1021, cls=0x020000, driver="mlx5_core", speed=GEN5, width=16,
           hca="MT4129", board="MT_0000000838", fw="28.39.1002")
CX6DX = dict(vendor=0x15B3, device=0x101D, cls=0x020000, driver="mlx5_core", speed=GEN4, width=16,
             hca="MT4125", board="MT_0000000359", fw="22.39.1002")
RP5 = dict(vendor=0x8086, device=0x352A, cls=0x060400, driver="pcieport", speed=GEN5, width=16)
RP4 = dict(vendor=0x8086, device=0x347A, cls=0x060400, driver="pcieport", speed=GEN4, width=16)
USP = dict(vendor=0x1000, device=0xC030, cls=0x060400, driver="pcieport", speed=GEN5, width=16)
DSP = dict(vendor=0x1000, device=0xC030, cls=0x060400, driver="pcieport", speed=GEN5, width=16)

ACS_SV, ACS_RR, ACS_CR, ACS_UF = 0x0001, 0x0004, 0x0008, 0x0010

AER_COR = ["RxErr", "BadTLP", "BadDLLP", "Rollover", "Timeout", "NonFatalErr", "CorrIntErr", "HeaderOF"]
AER_UNCOR = ["Undefined", "DLP", "SDES", "TLP", "FCP", "CmpltTO", "CmpltAbrt", "UnxCmplt", "RxOF",
             "MalfTLP", "ECRC", "UnsupReq", "ACSViol", "UncorrIntErr", "BlockedTLP", "AtomicOpBlocked",
             "TLPBlockedErr", "PoisonTLPBlocked"]


def healthy():
    """The healthy node. Traps that must stay quiet (or info only) are marked TRAP."""
    def nic(bdf, ibdev, netdev, model=CX7, rate="400 Gb/sec (4X NDR)", speed=400000):
        return dict(bdf=bdf, model=model, ibdev=ibdev, netdev=netdev, rate=rate, netdev_speed=speed)

    def dsp(bdf, child):
        return dict(bdf=bdf, model=DSP, acs=0x0000, children=[child])

    return dict(
        ncpus=64,
        numa={0: "0-15,32-47", 1: "16-31,48-63"},
        host_bridges=[
            dict(name="pci0000:15", numa=0, root_ports=[
                # TRAP: SrcValid+ UpstreamFwd+ on root ports does not redirect P2P.
                dict(bdf="0000:15:01.0", model=RP5, acs=ACS_SV | ACS_UF, children=[
                    dict(bdf="0000:16:00.0", model=USP, children=[
                        dsp("0000:17:00.0", dict(bdf="0000:18:00.0", model=H100)),
                        dsp("0000:17:01.0", nic("0000:19:00.0", "mlx5_0", "ens19np0")),
                        dsp("0000:17:02.0", dict(bdf="0000:1a:00.0", model=H100)),
                        dsp("0000:17:03.0", nic("0000:1b:00.0", "mlx5_1", "ens27np0")),
                    ])])]),
            dict(name="pci0000:97", numa=1, root_ports=[
                dict(bdf="0000:97:01.0", model=RP5, acs=ACS_SV | ACS_UF, children=[
                    dict(bdf="0000:98:00.0", model=USP, children=[
                        dsp("0000:99:00.0", dict(bdf="0000:9a:00.0", model=H100)),
                        dsp("0000:99:01.0", nic("0000:9b:00.0", "mlx5_2", "ens155np0")),
                        # TRAP: an idle GPU lowers its link speed: info "re-check under load".
                        dsp("0000:99:02.0", dict(bdf="0000:9c:00.0", model=H100, cur_speed=GEN1)),
                        dsp("0000:99:03.0", nic("0000:9d:00.0", "mlx5_3", "ens157np0")),
                    ])])]),
            # TRAP: the 100G frontend NIC is not compared with the 400G rails. Its root port's
            # config space is only 64 bytes (as an unprivileged read gives): ACS unknown, info.
            # It has 2 correctable AER errors since boot: info.
            dict(name="pci0000:00", numa=0, root_ports=[
                dict(bdf="0000:00:01.1", model=RP4, acs=0x0000, config_bytes=64, children=[
                    dict(nic("0000:01:00.0", "mlx5_4", "eno1np0", model=CX6DX, rate="100 Gb/sec (4X EDR)",
                             speed=100000), aer_cor={"RxErr": 2}),
                ])]),
        ],
        cmdline="BOOT_IMAGE=/vmlinuz-5.15.0-105-generic root=/dev/sda1 ro intel_iommu=on iommu=pt",
        iommu_type="identity",
        peermem=True,
        nvidia_version="NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n"
                       "GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04)",
        osrelease="5.15.0-105-generic",
    )


def find(machine, bdf):
    def walk(node):
        if node["bdf"] == bdf:
            return node
        for c in node.get("children", []):
            r = walk(c)
            if r:
                return r
        return None
    for hb in machine["host_bridges"]:
        for rp in hb["root_ports"]:
            r = walk(rp)
            if r:
                return r
    raise KeyError(bdf)


def find_nic(machine, ibdev):
    for hb in machine["host_bridges"]:
        stack = list(hb["root_ports"])
        while stack:
            n = stack.pop()
            if n.get("ibdev") == ibdev:
                return n
            stack.extend(n.get("children", []))
    raise KeyError(ibdev)


# ---- variants: healthy plus exactly one fault -------------------------------------------------
def v_acs_redirect(m):
    find(m, "0000:17:01.0")["acs"] = ACS_SV | ACS_RR | ACS_CR | ACS_UF


def v_aer_fatal(m):
    find(m, "0000:1a:00.0")["aer_fatal"] = {"CmpltTO": 1}


def v_no_peermem(m):
    m["peermem"] = False


def v_port_200(m):
    n = find_nic(m, "mlx5_2")
    n["rate"], n["netdev_speed"] = "200 Gb/sec (2X NDR)", 200000


def v_port_down(m):
    n = find_nic(m, "mlx5_3")
    n.update(state="1: DOWN", phys_state="2: Polling", rate="40 Gb/sec (4X QDR)", netdev_speed=-1,
             operstate="down")


def v_mtu_1500(m):
    find_nic(m, "mlx5_1")["mtu"] = 1500


def v_no_rocev2_gid(m):
    find_nic(m, "mlx5_0")["no_rocev2_gid"] = True


def v_cnp_ignored(m):
    find_nic(m, "mlx5_0")["rp_cnp_ignored"] = 1234


def v_pcie_x8(m):
    find(m, "0000:1b:00.0")["cur_width"] = 8


def v_iommu_translated(m):
    m["cmdline"] = "BOOT_IMAGE=/vmlinuz-5.15.0-105-generic root=/dev/sda1 ro intel_iommu=on"
    m["iommu_type"] = "DMA-FQ"


VARIANTS = {
    "healthy": (None, "nothing at warn or above; info only: pcie_speed_low_at_idle 0000:9c:00.0 (GPU3 idle at "
                      "2.5 GT/s), acs_unknown 0000:00:01.1 (64-byte config space), pcie_aer_correctable "
                      "0000:01:00.0 (2 RxErr)"),
    "acs-redirect": (v_acs_redirect, "error acs_redirect_enabled 0000:17:01.0 (ReqRedir+ CmpltRedir+ above NIC1 (mlx5_0))"),
    "aer-fatal": (v_aer_fatal, "critical pcie_aer_uncorrectable 0000:1a:00.0 (GPU1, CmpltTO 1)"),
    "no-peermem": (v_no_peermem, "error gdr_unavailable host (no nvidia_peermem, proprietary module)"),
    "port-200": (v_port_200, "warn port_rate_below_peers mlx5_2/1 (200 Gb/sec (2X NDR) vs 400 of the MT4129 rails)"),
    "port-down": (v_port_down, "error port_down mlx5_3/1 (1: DOWN, 2: Polling; its 40 Gb/sec is not a speed)"),
    "mtu-1500": (v_mtu_1500, "warn roce_mtu_low mlx5_1/1 (netdev ens27np0 MTU 1500 -> RoCE MTU 1024)"),
    "no-rocev2-gid": (v_no_rocev2_gid, "error rocev2_gid_missing mlx5_0/1 (only a RoCE v1 GID)"),
    "cnp-ignored": (v_cnp_ignored, "warn ecn_not_enabled mlx5_0/1 (rp_cnp_ignored 1234)"),
    "pcie-x8": (v_pcie_x8, "error pcie_width_downgraded 0000:1b:00.0 (NIC2 (mlx5_1) at x8 of x16)"),
    "iommu-translated": (v_iommu_translated, "warn iommu_translated host (no iommu=pt, default domain DMA-FQ)"),
}


# ---- writer ---------------------------------------------------------------------------------
class Writer:
    def __init__(self, root):
        self.root = root

    def file(self, rel, content, binary=False):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if binary:
            with open(path, "wb") as f:
                f.write(content)
        else:
            with open(path, "w") as f:
                f.write(content + "\n")

    def link(self, rel, target_rel):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.symlink(os.path.relpath(os.path.join(self.root, target_rel), os.path.dirname(path)), path)


def config_space(model, acs, size):
    """A type-1 (bridge) config space with a PCIe capability, and from 0x100 AER (next 0x148)
    then ACS (ID 0x000D) with `acs` in its control register. `size` bytes of it."""
    b = bytearray(4096)
    struct.pack_into("<HH", b, 0, model["vendor"], model["device"])
    b[0x06] = 0x10                          # status: capability list
    b[0x09:0x0C] = bytes([model["cls"] & 0xFF, (model["cls"] >> 8) & 0xFF, model["cls"] >> 16])
    b[0x0E] = 0x01                          # header type 1
    b[0x34] = 0x40                          # capabilities pointer
    b[0x40], b[0x41] = 0x10, 0x00           # PCI Express capability, last
    struct.pack_into("<I", b, 0x100, 0x0001 | (2 << 16) | (0x148 << 20))   # AER v2 -> 0x148
    struct.pack_into("<I", b, 0x148, 0x000D | (1 << 16) | (0 << 20))       # ACS v1, last
    struct.pack_into("<HH", b, 0x14C, 0x005F, acs)                          # ACS capability, control
    return bytes(b[:size])


def aer_text(names, counts, total_name):
    lines = ["%s %d" % (n, counts.get(n, 0)) for n in names]
    lines.append("%s %d" % (total_name, sum(counts.values())))
    return "\n".join(lines)


def write_rdma(w, devdir, n, index):
    model, ibdev, netdev = n["model"], n["ibdev"], n["netdev"]
    d = "%s/infiniband/%s" % (devdir, ibdev)
    w.link(d + "/device", devdir)
    w.file(d + "/node_type", "1: CA")
    w.file(d + "/hca_type", model["hca"])
    w.file(d + "/board_id", model["board"])
    w.file(d + "/fw_ver", model["fw"])
    w.file(d + "/node_guid", "0000:0000:0000:%04x" % (index + 1))
    p = d + "/ports/1"
    w.file(p + "/state", n.get("state", "4: ACTIVE"))
    w.file(p + "/phys_state", n.get("phys_state", "5: LinkUp"))
    w.file(p + "/rate", n["rate"])
    w.file(p + "/link_layer", "Ethernet")
    w.file(p + "/lid", "0x0")           # TRAP: lid 0 is normal on RoCE
    w.file(p + "/sm_lid", "0x0")
    w.file(p + "/gids/0", "fe80:0000:0000:0000:0000:0000:0000:%04x" % (index + 1))
    w.file(p + "/gid_attrs/types/0", "IB/RoCE v1")
    w.file(p + "/gid_attrs/ndevs/0", netdev)
    if n.get("no_rocev2_gid"):
        w.file(p + "/gids/1", "0000:0000:0000:0000:0000:0000:0000:0000")
    else:
        w.file(p + "/gids/1", "0000:0000:0000:0000:0000:ffff:c000:02%02x" % (index + 10))
        w.file(p + "/gid_attrs/types/1", "RoCE v2")
        w.file(p + "/gid_attrs/ndevs/1", netdev)
    for i in (2, 3):
        w.file(p + "/gids/%d" % i, "0000:0000:0000:0000:0000:0000:0000:0000")
    for name, value in (("symbol_error", 0), ("link_downed", 0), ("port_rcv_errors", 0),
                        ("port_xmit_data", 93841234567), ("port_rcv_data", 93840123456)):
        w.file(p + "/counters/" + name, str(value))
    for name, value in (("rp_cnp_ignored", n.get("rp_cnp_ignored", 0)), ("rp_cnp_handled", 1234),
                        ("np_cnp_sent", 0), ("np_ecn_marked_roce_packets", 0), ("out_of_sequence", 0),
                        ("local_ack_timeout_err", 0), ("lifespan", 10)):
        w.file(p + "/hw_counters/" + name, str(value))
    w.link("class/infiniband/" + ibdev, d)
    nd = "%s/net/%s" % (devdir, netdev)
    w.link(nd + "/device", devdir)
    w.file(nd + "/type", "1")
    w.file(nd + "/mtu", str(n.get("mtu", 9000)))
    w.file(nd + "/speed", str(n["netdev_speed"]))
    w.file(nd + "/operstate", n.get("operstate", "up"))
    w.file(nd + "/address", "02:00:00:00:00:%02x" % (index + 1))
    w.link("class/net/" + netdev, nd)


def write_pci(w, machine, node, parentdir, numa, parent_max, state):
    m = node["model"]
    bdf = node["bdf"]
    devdir = "%s/%s" % (parentdir, bdf)
    cpulist = machine["numa"][numa]
    w.file(devdir + "/vendor", "0x%04x" % m["vendor"])
    w.file(devdir + "/device", "0x%04x" % m["device"])
    w.file(devdir + "/class", "0x%06x" % m["cls"])
    w.file(devdir + "/numa_node", str(numa))
    w.file(devdir + "/local_cpulist", cpulist)
    w.file(devdir + "/max_link_speed", m["speed"])
    w.file(devdir + "/max_link_width", str(m["width"]))
    speed = node.get("cur_speed") or min(m["speed"], parent_max[0], key=lambda s: float(s.split()[0]))
    width = node.get("cur_width") or min(m["width"], parent_max[1])
    node["_link"] = (speed, width)
    children = node.get("children", [])
    is_usp = m is USP
    if not children or is_usp:
        w.file(devdir + "/current_link_speed", speed)
        w.file(devdir + "/current_link_width", str(width))
    w.link(devdir + "/driver", "bus/pci/drivers/" + m["driver"])
    w.link("bus/pci/drivers/%s/%s" % (m["driver"], bdf), devdir)
    w.link("bus/pci/devices/" + bdf, devdir)
    if m["cls"] >> 8 == 0x0604:
        w.file(devdir + "/config", config_space(m, node.get("acs", 0), node.get("config_bytes", 4096)), binary=True)
    w.file(devdir + "/aer_dev_correctable", aer_text(AER_COR, node.get("aer_cor", {}), "TOTAL_ERR_COR"))
    w.file(devdir + "/aer_dev_fatal", aer_text(AER_UNCOR, node.get("aer_fatal", {}), "TOTAL_ERR_FATAL"))
    w.file(devdir + "/aer_dev_nonfatal", aer_text(AER_UNCOR, {}, "TOTAL_ERR_NONFATAL"))
    if m["cls"] >> 8 != 0x0604:  # endpoints: one IOMMU group each
        group = state["groups"]
        state["groups"] += 1
        w.file("kernel/iommu_groups/%d/type" % group, machine["iommu_type"])
        w.link(devdir + "/iommu_group", "kernel/iommu_groups/%d" % group)
        w.link("kernel/iommu_groups/%d/devices/%s" % (group, bdf), devdir)
    for child in children:
        write_pci(w, machine, child, devdir, numa, (m["speed"], m["width"]), state)
    if children and not is_usp:
        cs, cw = children[0]["_link"]
        w.file(devdir + "/current_link_speed", cs)
        w.file(devdir + "/current_link_width", str(cw))
    if "ibdev" in node:
        write_rdma(w, devdir, node, state["rdma"])
        state["rdma"] += 1


README = """# check/{name}: a 4-GPU RoCE node for `fabdiag check`

Generated by scripts/make-check-fixtures.py (do not edit by hand; re-run the script).
Run: fabdiag check --sysfs-root tests/fixtures/check/{name}/sys --procfs-root tests/fixtures/check/{name}/proc

Node (GPU/NIC names as fabdiag numbers them, by PCI address): socket 0 root port 15:01.0 ->
switch 16:00.0 -> GPU0 18:00.0, NIC1 19:00.0 (mlx5_0), GPU1 1a:00.0, NIC2 1b:00.0 (mlx5_1);
socket 1 root port 97:01.0 -> switch 98:00.0 -> GPU2 9a:00.0, NIC3 9b:00.0 (mlx5_2), GPU3
9c:00.0, NIC4 9d:00.0 (mlx5_3); frontend root port 00:01.1 -> NIC0 01:00.0 (mlx5_4,
ConnectX-6 Dx 100G). Rails: ConnectX-7 (MT4129) RoCE 400G, netdev MTU 9000,
RoCE v2 GIDs, rp_cnp_ignored 0. nvidia_peermem loaded; IOMMU in passthrough (iommu=pt).

Healthy findings (info only): GPU3 at 2.5 GT/s at idle (re-check under load); ACS unknown on
00:01.1 (64-byte config space, as without root); 2 correctable AER errors on NIC0 01:00.0.

Expected in this variant: {expect}
"""


def build(name, out):
    fn, expect = VARIANTS[name]
    machine = healthy()
    if fn:
        fn(machine)
    root = os.path.join(out, name)
    if os.path.lexists(root):
        shutil.rmtree(root)
    w = Writer(os.path.join(root, "sys"))
    state = {"rdma": 0, "groups": 0}
    for hb in machine["host_bridges"]:
        for rp in hb["root_ports"]:
            write_pci(w, machine, rp, "devices/" + hb["name"], hb["numa"], (GEN5, 16), state)
    for unit in ("dmar0", "dmar1"):
        w.file("devices/virtual/iommu/%s/intel-iommu/version" % unit, "1:0")
        w.link("class/iommu/" + unit, "devices/virtual/iommu/" + unit)
    w.file("module/nvidia/version", "550.54.15")
    if machine["peermem"]:
        w.file("module/nvidia_peermem/version", "550.54.15")
    p = Writer(os.path.join(root, "proc"))
    p.file("cmdline", machine["cmdline"])
    modules = ["mlx5_ib 454656 0 - Live 0x0000000000000000",
               "nvidia 56455168 10 nvidia_peermem, Live 0x0000000000000000"]
    if machine["peermem"]:
        modules.insert(0, "nvidia_peermem 16384 0 - Live 0x0000000000000000 (POE)")
    p.file("modules", "\n".join(modules))
    p.file("driver/nvidia/version", machine["nvidia_version"])
    p.file("sys/kernel/osrelease", machine["osrelease"])
    with open(os.path.join(root, "README.md"), "w") as f:
        f.write(README.format(name=name, expect=expect))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                                  "fixtures", "check"),
                    help="directory that receives <variant>/ trees (default: tests/fixtures/check)")
    ap.add_argument("names", nargs="*", help="variants to build (default: all): " + ", ".join(VARIANTS))
    args = ap.parse_args()
    for n in args.names or list(VARIANTS):
        if n not in VARIANTS:
            sys.exit("make-check-fixtures: unknown variant '%s' (known: %s)" % (n, ", ".join(VARIANTS)))
        build(n, os.path.normpath(args.out))
        print("wrote %s" % os.path.normpath(os.path.join(args.out, n)))


if __name__ == "__main__":
    main()
