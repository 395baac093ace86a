#include "triage/mpi_cluster.h"

#include <cmath>
#include <iostream>

#include <nlohmann/json.hpp>

#include "perf/collective.h"
#include "perf/collective_bench.h"
#include "perf/comm.h"
#include "perf/pairwise.h"
#include "collect/counter_pipeline.h"
#include "probes/counters/counter_snapshot_json.h"
#include "core/text.h"
#include "triage/hostfile.h"

namespace fabdiag::triage {

namespace {

// One step, executed identically on every rank. Returns rank 0's result (other ranks' return
// values are ignored).
Result<nlohmann::json> execute(perf::Comm& comm, const NodeReadOptions& node, const nlohmann::json& cmd,
                               const Progress& progress) {
  const std::string op = cmd.value("op", "");
  if (op == "counters") {
    // The same sources as `fabdiag counters` (collect/counter_pipeline.h): sysfs, driver
    // statistics, ethtool link facts and statistics, module EEPROM.
    CounterSources sources;
    sources.ethtool = node.read_ethtool;
    CounterPipeline pipeline(sources, {}, node.clock);
    std::string mine = snapshot_to_json(pipeline.snapshot(node.fs)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    auto all = comm.gather_strings(mine, 0);
    if (!all.ok()) return all.error();
    nlohmann::json out = nlohmann::json::array();
    for (const auto& s : *all) out.push_back(nlohmann::json::parse(s, nullptr, false));
    return out;
  }
  if (op == "bench") {
    perf::BenchOptions o;
    auto coll = perf::parse_collective(cmd.value("collective", "all_reduce"));
    if (!coll) return make_error(ErrorCode::kInvalidArgument, "unknown collective " + cmd.value("collective", ""));
    o.collective = *coll;
    o.sweep.min_bytes = cmd.value("min_bytes", uint64_t{1} << 20);
    o.sweep.max_bytes = cmd.value("max_bytes", uint64_t{4} << 20);
    o.sweep.factor = cmd.value("factor", uint64_t{2});
    o.warmup_iters = cmd.value("warmup", 1);
    o.iters = cmd.value("iters", 5);
    o.skew_iters = cmd.value("skew_iters", 0);
    o.stop.below_busbw_bytes_per_s = cmd.value("stop_below_busbw", 0.0);
    o.stop.min_bytes = cmd.value("stop_min_bytes", uint64_t{0});
    o.stop.why = cmd.value("stop_why", "");
    auto r = perf::run_collective_bench(comm, o, comm.rank() == 0 ? progress : no_progress());
    if (!r.ok()) return r.error();
    if (comm.uses_device_buffers()) r->backend = "nccl";  // triage --backend nccl (the default says "mpi")
    nlohmann::json j = *r;
    return j;
  }
  if (op == "round") {
    std::vector<perf::RankPair> pairs = cmd.at("pairs").get<std::vector<perf::RankPair>>();
    perf::PairwiseOptions o;
    o.size_bytes = cmd.value("size_bytes", uint64_t{1} << 20);
    o.iters = cmd.value("iters", 3);
    o.warmup_iters = 1;
    o.give_up_after_s = cmd.value("give_up_after_s", 0.0);
    o.heartbeat_s = cmd.value("heartbeat_s", 10.0);
    o.on_wait = [](const std::string& line) { std::cerr << "fabdiag: triage: " << line << std::endl; };
    auto r = perf::run_pair_round(comm, pairs, o);
    if (!r.ok()) return r.error();
    auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
    nlohmann::json out = nlohmann::json::array();
    for (const auto& m : *r) {
      // The slower direction bounds the exchange; each direction is kept for triage/direction.h.
      double v = std::fmin(m.a_to_b_bytes_per_s, m.b_to_a_bytes_per_s);
      out.push_back({{"a", m.a}, {"b", m.b}, {"bytes_per_s", num(v)}, {"a_to_b", num(m.a_to_b_bytes_per_s)},
                     {"b_to_a", num(m.b_to_a_bytes_per_s)}, {"no_completion_s", m.no_completion_s}});
    }
    return out;
  }
  if (op == "done") return nlohmann::json(nullptr);
  return make_error(ErrorCode::kInternal, "unknown triage step '" + op + "'");
}

}  // namespace

MpiCluster::MpiCluster(perf::Comm& comm, NodeReadOptions node, Progress progress)
    : comm_(comm), node_(std::move(node)), progress_(std::move(progress)) {}

const std::vector<std::string>& MpiCluster::hosts() const { return comm_.hosts(); }

static Result<nlohmann::json> broadcast_and_run(perf::Comm& comm, const NodeReadOptions& node,
                                                const nlohmann::json& cmd, const Progress& progress) {
  auto b = comm.broadcast_string(cmd.dump(), 0);
  if (!b.ok()) return b.error();
  return execute(comm, node, cmd, progress);
}

std::vector<Result<nlohmann::json>> MpiCluster::snapshot_counters() {
  std::vector<Result<nlohmann::json>> out;
  auto r = broadcast_and_run(comm_, node_, {{"op", "counters"}}, progress_);
  const auto& hosts = comm_.hosts();
  if (!r.ok()) {
    for (const auto& h : hosts) out.push_back(r.error().with_context("counters on " + h));
    return out;
  }
  for (size_t i = 0; i < hosts.size(); ++i) {
    const auto& j = i < r->size() ? (*r)[i] : nlohmann::json();
    if (j.is_discarded() || !j.is_object())
      out.push_back(make_error(ErrorCode::kParse, "counter snapshot did not arrive intact", hosts[i]));
    else
      out.push_back(j);
  }
  return out;
}

Result<nlohmann::json> MpiCluster::run_collective(const CollectiveSpec& spec) {
  return broadcast_and_run(comm_, node_,
                           {{"op", "bench"}, {"collective", spec.collective}, {"min_bytes", spec.min_bytes},
                            {"max_bytes", spec.max_bytes}, {"factor", static_cast<uint64_t>(spec.factor)},
                            {"warmup", spec.warmup}, {"iters", spec.iters},
                            {"skew_iters", spec.skew_iters}, {"stop_below_busbw", spec.stop.below_busbw_bytes_per_s},
                            {"stop_min_bytes", spec.stop.min_bytes}, {"stop_why", spec.stop.why}},
                           progress_);
}

Result<std::vector<PairSample>> MpiCluster::run_round(const std::vector<std::pair<int, int>>& pairs, int round_id,
                                                      uint64_t size_bytes, int iters) {
  auto r = broadcast_and_run(comm_, node_,
                             {{"op", "round"}, {"pairs", pairs}, {"size_bytes", size_bytes}, {"iters", iters},
                              {"give_up_after_s", give_up_after_s_}, {"heartbeat_s", heartbeat_s_}},
                             progress_);
  if (!r.ok()) return r.error();
  auto num = [](const nlohmann::json& x, const char* key) {
    return x.contains(key) && x.at(key).is_number() ? x.at(key).get<double>() : NAN;
  };
  std::vector<PairSample> out;
  for (const auto& x : *r) {
    PairSample s{x.at("a").get<int>(), x.at("b").get<int>(), num(x, "bytes_per_s"), round_id};
    s.a_to_b_bytes_per_s = num(x, "a_to_b");
    s.b_to_a_bytes_per_s = num(x, "b_to_a");
    s.no_completion_s = x.value("no_completion_s", 0.0);
    out.push_back(s);
  }
  return out;
}

void MpiCluster::set_pair_limits(double give_up_after_s, double heartbeat_s) {
  give_up_after_s_ = give_up_after_s;
  heartbeat_s_ = heartbeat_s;
}

Status MpiCluster::finish() {
  auto b = comm_.broadcast_string(nlohmann::json{{"op", "done"}}.dump(), 0);
  if (!b.ok()) return b.error();
  return Ok{};
}

Status serve_followers(perf::Comm& comm, const NodeReadOptions& node) {
  for (;;) {
    auto b = comm.broadcast_string("", 0);
    if (!b.ok()) return b.error().with_context("waiting for the next triage step from rank 0");
    auto cmd = nlohmann::json::parse(*b, nullptr, false);
    if (cmd.is_discarded()) return make_error(ErrorCode::kInternal, "garbled triage step from rank 0");
    if (cmd.value("op", "") == "done") return Ok{};
    (void)execute(comm, node, cmd, no_progress());  // results matter on rank 0 only
  }
}

std::vector<Finding> judge_counter_snapshots(const nlohmann::json& before, const nlohmann::json& after,
                                             double window_s) {
  auto a = snapshot_from_json(before);
  auto b = snapshot_from_json(after);
  if (!a.ok() || !b.ok()) return {};
  return interpret_observation(observe_counters(*a, &*b, window_s)).findings;
}

Result<std::string> expand_host_placeholder(const std::string& path, const std::string& host) {
  if (path.find("{host}") == std::string::npos) return path;
  if (!is_valid_hostname(host))
    return make_error(ErrorCode::kInvalidArgument,
                      "this host's name '" + escape_nonprintable(host) +
                          "' is not a host name (RFC 1123), so it cannot replace {host} in " + path,
                      "{host}");
  std::string out = path;
  for (size_t pos; (pos = out.find("{host}")) != std::string::npos;) out.replace(pos, 6, host);
  return out;
}

}  // namespace fabdiag::triage
