#include <doctest/doctest.h>

#include <cmath>

#include "triage/sweep_early_stop.h"

using namespace fabdiag;
using namespace fabdiag::triage;

namespace {
const std::vector<std::string> kHosts = {"node01", "node02", "node03", "node04", "node05", "node06"};

Screen screen_with(std::vector<int> nodes, std::vector<std::pair<int, int>> links, double pair_ref) {
  Screen s;
  s.nodes = 6;
  s.node_candidates = std::move(nodes);
  s.link_candidates = std::move(links);
  s.pair_ref_bytes_per_s = pair_ref;
  return s;
}
}  // namespace

TEST_CASE("a screen that names a slow node stops the sweeps below half its pair reference, from 1 MiB") {
  const perf::SweepStop stop = sweep_stop_after(screen_with({2}, {}, 2.95e8), kHosts, SweepStopParams{});
  CHECK(stop.below_busbw_bytes_per_s == doctest::Approx(1.475e8));
  CHECK(stop.min_bytes == (1u << 20));
  CHECK(stop.why ==
        "the screen names node node03 slow, and from 1M on a size with busbw below 0.50 x the screen's pair "
        "reference 295.0 MB/s = 147.5 MB/s already shows it");
}

TEST_CASE("a slow link is a fault the sweeps may stop on too, and the limit follows the ratio and the size floor") {
  SweepStopParams p;
  p.ratio = 0.25;
  p.min_bytes = 4u << 20;
  const perf::SweepStop stop = sweep_stop_after(screen_with({}, {{1, 5}}, 4e8), kHosts, p);
  CHECK(stop.below_busbw_bytes_per_s == doctest::Approx(1e8));
  CHECK(stop.min_bytes == (4u << 20));
  CHECK(stop.why.find("link node02<->node06 slow") != std::string::npos);
  CHECK(stop.why.find("from 4M on") != std::string::npos);
}

TEST_CASE("no candidate, no pair reference, or the rule off: the sweeps run in full") {
  CHECK(sweep_stop_after(screen_with({}, {}, 3e8), kHosts, {}).below_busbw_bytes_per_s == 0);
  CHECK(sweep_stop_after(screen_with({}, {}, 3e8), kHosts, {}).why.empty());
  CHECK(sweep_stop_after(screen_with({2}, {}, NAN), kHosts, {}).below_busbw_bytes_per_s == 0);
  CHECK(sweep_stop_after(screen_with({2}, {}, 0), kHosts, {}).below_busbw_bytes_per_s == 0);
  SweepStopParams off;
  off.on = false;
  CHECK(sweep_stop_after(screen_with({2}, {}, 3e8), kHosts, off).below_busbw_bytes_per_s == 0);
}
