// Long help texts of the subcommands (the footers `fabdiag <subcommand> --help` prints), kept
// out of cmd/main.cpp, which registers the options.
#pragma once

namespace fabdiag::cmd {

/// Footer of `fabdiag counters --help`.
inline constexpr const char* kCountersFooter =
    "A single snapshot shows cumulative values since the counters were last reset: it has no\n"
    "time base, so no rates are given and only absolute-count rules apply. Use --interval to\n"
    "measure what moves now. IB counters are read from sysfs (each read is a PMA query).\n"
    "port_xmit_data/port_rcv_data count 4-octet words and are shown in bytes. Driver stats\n"
    "come from the SIOCETHTOOL ioctl on the live host, or from <root>/ethtool/<netdev>\n"
    "(`ethtool -S` text) under a fixture --sysfs-root. Link facts (speed, lanes, link state,\n"
    "FEC, pause), standard statistics (pause frames, FEC blocks, eth-mac FCS errors, ...)\n"
    "and module optics (temperature, rx/tx power per lane against the module's own\n"
    "thresholds) come from ethtool netlink, with the ioctl as fallback, or module pages\n"
    "from <root>/ethtool-module/<netdev> under a fixture root. What a driver does not\n"
    "support (veth/virtio: pause, FEC, module) is listed as not available, not an error.\n"
    "A missing --sysfs-root or --after-sysfs-root directory is a usage error (exit 2).\n"
    "--watch redraws the top movers (per-second rates, health counters before traffic)\n"
    "every --interval seconds (default 1) on a terminal, or appends plain blocks when\n"
    "stdout is not a terminal; Ctrl-C ends it with exit 0.\n"
    "--format prometheus writes the node_exporter textfile format (fabdiag_<category>_total\n"
    "and friends, base units, atomically with --output FILE.prom).\n"
    "Each port gets one line saying what is happening (PFC storm, congestion, lossy RoCE,\n"
    "physical degradation, link flaps, receiver starvation, ECN not enabled, optics);\n"
    "counters not in the knowledge base are listed with category \"unknown\".\n"
    "--from FILE... interprets saved ethtool -S / -m, perfquery, ibqueryerrors, rdma\n"
    "statistic and syslog outputs the same way.\n"
    "Examples:\n"
    "  fabdiag counters                     # non-zero counters now\n"
    "  fabdiag counters --interval 10       # what moves during 10 s, with rates\n"
    "  fabdiag counters --interval 10 --only pause --device mlx5_0\n"
    "  fabdiag counters --watch --only phy_error --top 10\n"
    "  fabdiag counters --format prometheus -o /var/lib/prometheus/node-exporter/fabdiag.prom\n"
    "  fabdiag counters --sysfs-root before/ --after-sysfs-root after/ --interval 60\n"
    "  fabdiag counters --from ethtool-S.txt --from rdma-stat.txt --interval 30";

/// Footer of `fabdiag check --help`.
inline constexpr const char* kCheckFooter =
      "Reads this host's sysfs and procfs (--sysfs-root/--procfs-root read a fixture or a capture), or\n"
      "saved outputs of lspci -vvv, ibstat, ibstatus, ibv_devinfo and NCCL logs with --from (case files\n"
      "in '### <what>' sections are split; each part's format is detected).\n"
      "What is judged: a PCIe link below the lower max of its two ends (narrower = error, slower = warn;\n"
      "a GPU slower at idle is info: re-check under load); ACS ReqRedir/CmpltRedir/EgressCtrl on a bridge\n"
      "above a GPU or NIC (error; needs root to read, otherwise 'unknown'); AER fatal/non-fatal errors\n"
      "(critical); GPUDirect RDMA without nvidia_peermem or DMA-BUF; an IOMMU that translates (use\n"
      "iommu=pt); ports down or below the rate of the other ports of the same model (a 100G frontend NIC\n"
      "is not compared with 400G rails) or below --expect-rate; RoCE MTU below 4096; no RoCE v2 GID;\n"
      "rp_cnp_ignored > 0 (ECN off). Each check says pass, problems, unknown, n/a or not checked.\n"
      "Examples:\n"
      "  sudo fabdiag check\n"
      "  fabdiag check --expect-rate MT4129=400\n"
      "  fabdiag check --from lspci-vvv.txt ibstat.txt\n"
      "Exit: 0 ok, 1 findings at warn or above, 2 usage (bad --expect-rate, --from file missing or not\n"
      "recognized), 4 partial (something could not be read).";

/// Footer of `fabdiag triage --help`.
inline constexpr const char* kImportFooter =
    "`fabdiag import FILE|DIR...` detects each file's tool from a marker line only that tool\n"
    "prints (or most lines of its shape), reads counter outputs through `counters --from` and\n"
    "host facts through `check --from`, and joins everything into one result: one verdict over\n"
    "a pile of collected outputs. A file no reader claims is reported, never misread.\n"
    "Exit codes: 0 ok, 1 a warn/error/critical finding, 2 nothing readable or a bad --as,\n"
    "4 some files or parts could not be read (listed under errors).";

inline constexpr const char* kImportNcclTestsFooter =
    "One table -> data is its bench data; several tables (concatenated runs) -> data.tables[];\n"
    "past --max-findings tables, the rest -> data.tables_not_listed (busbw min/mean/max per size).\n"
    "Multi-node busbw (sizes >= 64 MiB; all_reduce, all_gather, reduce_scatter, broadcast, reduce,\n"
    "sendrecv) below 90% of one port is a warning: --line-rate GBPS gives the port, else a 100 Gb/s\n"
    "floor (the slowest RDMA port of GPU fabrics) is used; ranks all on one host are not judged.\n"
    "Exit codes: 0 ok, 1 wrong results or busbw below the line rate, 2 FILE unreadable or without a\n"
    "result table, 4 some rows or tables could not be read (listed under errors).";

inline constexpr const char* kTriageFooter =
      "Two ways to run it:\n"
      "  mpirun -np N --map-by node fabdiag triage        # inside your own MPI/Slurm job, one rank per node\n"
      "  fabdiag triage --hostfile hosts.txt              # fabdiag composes and runs mpirun itself\n"
      "On the emulated cluster (scripts/emucluster.sh up ...):\n"
      "  fabdiag triage --hostfile /tmp/fabdiag-emucluster/hostfile \\\n"
      "                 --mpirun-args-file /tmp/fabdiag-emucluster/mpirun-args\n"
      "--sysfs-root may contain {host}, replaced on each rank by its host name.\n"
      "Nothing is named on one sample: a node is judged on the median of all its pairs and\n"
      "confirmed against known-good partners; a link is named only when both ends are fast with\n"
      "other partners. Exit 1 when suspects are named, 0 when none, 4 when steps failed.\n"
      "Ctrl-C (exit 130) or --timeout (exit 4) prints the steps that finished, marked partial.";

/// Footer of `fabdiag report --help`.
inline constexpr const char* kReportFooter =
    "Reads fabdiag.bench/1, pairwise/1, triage/1, baseline_diff/1, accept/1 and import/1 (part by\n"
    "part) documents and renders them as one report: pass/fail per node, per link and per check\n"
    "with measured vs expected, the pairwise matrix, busbw per size per collective (with the\n"
    "baseline band of a diff), the findings and the evidence chains. --format junit: one\n"
    "testcase per node, link and check; --format html: one page, no external assets.\n"
    "Exit codes: 0 all passed, 1 something failed, 2 a FILE is not JSON / not a fabdiag result /\n"
    "a schema not rendered, 4 a FILE could not be read (the rest is rendered).\n"
    "Example: fabdiag report pairwise.json diff.json --format html -o report.html\n";

}  // namespace fabdiag::cmd
