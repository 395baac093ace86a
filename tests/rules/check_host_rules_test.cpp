// Host software rules of fabdiag check, each alone: GPUDirect RDMA, IOMMU, NCCL completion errors.
#include <doctest/doctest.h>

#include "rules/check_host_rules.h"

using namespace fabdiag;

namespace {
GdrFacts node(int gpus, int nics) {
  GdrFacts g;
  g.gpus = gpus;
  g.rdma_nics = nics;
  g.peermem_checked = {"/sys/module/nvidia_peermem", "/proc/modules"};
  return g;
}
}  // namespace

TEST_CASE("parse_nvidia_version tells the open module from the proprietary one") {
  GdrFacts open;
  parse_nvidia_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build  (dvs-builder@U16)", open);
  CHECK(open.nvidia_open_module == true);
  CHECK(open.nvidia_driver_major == 550);
  GdrFacts prop;
  parse_nvidia_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023", prop);
  CHECK(prop.nvidia_open_module == false);
  CHECK(prop.nvidia_driver_major == 535);
  GdrFacts junk;
  parse_nvidia_version("something else", junk);
  CHECK_FALSE(junk.nvidia_open_module.has_value());
  CHECK_FALSE(junk.nvidia_driver_major.has_value());
}

TEST_CASE("kernel_at_least compares major.minor of a release string") {
  CHECK(kernel_at_least("5.15.0-105-generic", 5, 12) == true);
  CHECK(kernel_at_least("5.12.0", 5, 12) == true);
  CHECK(kernel_at_least("5.4.0-150-generic", 5, 12) == false);
  CHECK(kernel_at_least("4.18.0-513.el8.x86_64", 5, 12) == false);
  CHECK(kernel_at_least("6.1.0", 5, 12) == true);
  CHECK_FALSE(kernel_at_least("garbage", 5, 12).has_value());
}

TEST_CASE("GPUDirect RDMA: not applicable without GPUs or RDMA NICs, fine with peer memory") {
  CHECK(gdr_findings(node(0, 4)).empty());
  CHECK(gdr_findings(node(8, 0)).empty());
  GdrFacts loaded = node(8, 8);
  loaded.peermem_found = {"/sys/module/nvidia_peermem"};
  CHECK(gdr_findings(loaded).empty());
}

TEST_CASE("GPUDirect RDMA without peermem: DMA-BUF possible = info, impossible = error, unknown = warn") {
  GdrFacts dmabuf = node(8, 8);
  dmabuf.nvidia_open_module = true;
  dmabuf.nvidia_driver_major = 550;
  dmabuf.kernel_release = "5.15.0";
  auto i = gdr_findings(dmabuf);
  REQUIRE(i.size() == 1);
  CHECK(i[0].code == "gdr_via_dmabuf");
  CHECK(i[0].severity == Severity::kInfo);

  GdrFacts prop = dmabuf;
  prop.nvidia_open_module = false;
  auto e = gdr_findings(prop);
  REQUIRE(e.size() == 1);
  CHECK(e[0].code == "gdr_unavailable");
  CHECK(e[0].severity == Severity::kError);
  CHECK(e[0].subject == "host");
  CHECK(e[0].action.find("modprobe nvidia_peermem") != std::string::npos);
  CHECK(e[0].evidence.size() == 3);

  GdrFacts old_kernel = dmabuf;
  old_kernel.kernel_release = "5.4.0-150-generic";
  CHECK(gdr_findings(old_kernel)[0].code == "gdr_unavailable");

  GdrFacts unknown = node(8, 8);
  auto w = gdr_findings(unknown);
  REQUIRE(w.size() == 1);
  CHECK(w[0].code == "gdr_unconfirmed");
  CHECK(w[0].severity == Severity::kWarn);
}

TEST_CASE("iommu_mode: group types first, then class/iommu and the command line") {
  IommuFacts f;
  CHECK(iommu_mode(f) == IommuMode::kOff);  // no IOMMU unit
  f.units = {"dmar0"};
  CHECK(iommu_mode(f) == IommuMode::kUnknown);  // no command line
  f.cmdline = "ro quiet intel_iommu=on iommu=pt";
  CHECK(iommu_mode(f) == IommuMode::kPassthrough);
  f.cmdline = "ro quiet intel_iommu=on";
  CHECK(iommu_mode(f) == IommuMode::kTranslated);
  f.cmdline = "ro intel_iommu=off";
  CHECK(iommu_mode(f) == IommuMode::kOff);
  f.cmdline = "ro iommu.passthrough=1";
  CHECK(iommu_mode(f) == IommuMode::kPassthrough);
  f.cmdline = "ro xiommu=pt";  // a token, not a substring
  CHECK(iommu_mode(f) == IommuMode::kTranslated);
  f.device_domains = {{"GPU0", "identity"}, {"NIC1 (mlx5_0)", "identity"}};
  CHECK(iommu_mode(f) == IommuMode::kPassthrough);  // group types win over the command line
  f.device_domains.push_back({"GPU1", "DMA-FQ"});
  CHECK(iommu_mode(f) == IommuMode::kTranslated);
}

TEST_CASE("iommu_findings: translated warns naming the devices, off/passthrough quiet, unknown info") {
  IommuFacts f;
  f.units = {"dmar0", "dmar1"};
  f.cmdline = "ro intel_iommu=on";
  f.device_domains = {{"GPU0", "DMA-FQ"}, {"NIC1 (mlx5_0)", "DMA"}};
  auto w = iommu_findings(f);
  REQUIRE(w.size() == 1);
  CHECK(w[0].code == "iommu_translated");
  CHECK(w[0].severity == Severity::kWarn);
  CHECK(w[0].message.find("GPU0, NIC1 (mlx5_0)") != std::string::npos);
  CHECK(w[0].action.find("iommu=pt") != std::string::npos);

  IommuFacts pt;
  pt.units = {"dmar0"};
  pt.cmdline = "iommu=pt";
  CHECK(iommu_findings(pt).empty());
  CHECK(iommu_findings(IommuFacts{}).empty());

  IommuFacts unknown;
  unknown.units = {"ivhd0"};
  auto i = iommu_findings(unknown);
  REQUIRE(i.size() == 1);
  CHECK(i[0].code == "iommu_unknown");
  CHECK(i[0].severity == Severity::kInfo);
}

TEST_CASE("NCCL completion errors: 4 is local protection (not loss), 12 is loss, 5 is a flush") {
  WcError prot;
  prot.status = 4;
  prot.opcode = 0;
  prot.len_bytes = 32694;
  prot.vendor_err = 81;
  prot.line = "NCCL WARN NET/IB : Got completion with error 4, opcode 0, len 32694, vendor err 81";
  prot.source = "f line 2";
  WcError again = prot;
  again.source = "f line 9";
  WcError retry;
  retry.status = 12;
  retry.hca = "mlx5_3";
  retry.line = "Got completion from peer 192.0.2.3<1234> with error 12";
  WcError flush;
  flush.status = 5;
  auto f = wc_error_findings({prot, retry, again, flush});
  REQUIRE(f.size() == 3);  // grouped by status, in status order
  CHECK(f[0].code == "rdma_completion_error");
  CHECK(f[0].severity == Severity::kError);
  CHECK(f[0].layer == Layer::kTransport);
  CHECK(f[0].subject == "NCCL");
  CHECK(f[0].message.find("2 work completion error(s) with status 4 (IBV_WC_LOC_PROT_ERR)") != std::string::npos);
  CHECK(f[0].message.find("not packet loss") != std::string::npos);
  CHECK(f[0].message.find("vendor err 81") != std::string::npos);
  CHECK(f[0].evidence.size() == 2);
  CHECK(f[1].severity == Severity::kWarn);  // 5 = WR_FLUSH_ERR
  CHECK(f[2].subject == "mlx5_3");
  CHECK(f[2].message.find("RETRY_EXC_ERR") != std::string::npos);
  CHECK(f[2].message.find("packet loss") != std::string::npos);
  CHECK(std::string(wc_status_name(4)) == "LOC_PROT_ERR");
  CHECK(std::string(wc_status_name(99)).empty());
}
