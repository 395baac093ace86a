// SPEC.yaml -> Spec (accept/spec.h) through yaml-cpp. Every mapping is read against the list of
// keys it may hold: an unknown key is an error naming FILE:LINE:COLUMN (a typo such as
// `nvlink_per_gpu` must not leave the check silently off). Built without yaml-cpp, parsing
// answers kUnsupported and `accept` exits 3.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string_view>
#include <vector>

#include "accept/spec.h"
#include "core/build_config.h"
#include "core/atomic_file.h"
#include "core/text.h"
#include "perf/sweep.h"

#if FABDIAG_HAVE_YAMLCPP
#include <yaml-cpp/yaml.h>
#endif

namespace fabdiag::accept {

std::optional<double> pcie_gen_gts(int gen) {
  static const double kGts[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  if (gen < 1 || gen > 6) return std::nullopt;
  return kGts[gen - 1];
}

#if FABDIAG_HAVE_YAMLCPP

namespace {

// A spec error: "FILE:LINE:COLUMN: KEY: what" (yaml-cpp marks are 0-based).
struct SpecError {
  std::string text;
};

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& key, const std::string& what) const {
    const YAML::Mark m = at.Mark();
    throw SpecError{file_ + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + ": " +
                    (key.empty() ? "" : key + ": ") + what};
  }

  // Walks mapping `map` (named `where`): each key must be in `allowed` and appear once (yaml-cpp
  // keeps both pairs of a repeated key, so one would silently win: a duplicate is an error naming
  // the second occurrence and the line of the first); `on_key` reads its value.
  void mapping(const YAML::Node& map, const std::string& where, const std::set<std::string>& allowed,
               const std::function<void(const std::string&, const YAML::Node&)>& on_key) const {
    if (!map.IsMap()) fail(map, where, "expected a mapping (key: value lines)");
    std::map<std::string, int> first_line;
    for (const auto& kv : map) {
      const std::string key = kv.first.Scalar();
      const std::string path = where.empty() ? key : where + "." + key;
      auto [seen, fresh] = first_line.emplace(key, line(kv.first));
      if (!fresh) fail(kv.first, path, "duplicate (first at line " + std::to_string(seen->second) + ")");
      if (!allowed.count(key)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(kv.first, path, "unknown key (expected one of: " + list + ")");
      }
      on_key(path, kv.second);
    }
  }

  double number(const YAML::Node& n, const std::string& key, double lo, double hi) const {
    if (!n.IsScalar()) fail(n, key, "expected a number");
    auto v = parse_double(n.Scalar());
    if (!v || !std::isfinite(*v)) fail(n, key, "expected a number, got '" + n.Scalar() + "'");
    if (*v < lo || *v > hi) fail(n, key, "out of range [" + trimmed(lo) + ", " + trimmed(hi) + "]: " + n.Scalar());
    return *v;
  }

  int integer(const YAML::Node& n, const std::string& key, int lo, int hi) const {
    if (!n.IsScalar()) fail(n, key, "expected an integer");
    auto v = parse_i64(n.Scalar());
    if (!v) fail(n, key, "expected an integer, got '" + n.Scalar() + "'");
    if (*v < lo || *v > hi) fail(n, key, "out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]: " + n.Scalar());
    return static_cast<int>(*v);
  }

  std::string text(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(n, key, "expected a string");
    return n.Scalar();
  }

  bool boolean(const YAML::Node& n, const std::string& key) const {
    const std::string s = n.IsScalar() ? n.Scalar() : "";
    if (s == "true" || s == "yes") return true;
    if (s == "false" || s == "no") return false;
    fail(n, key, "expected true or false, got '" + s + "'");
  }

  uint64_t size(const YAML::Node& n, const std::string& key) const {
    auto v = perf::parse_size_bytes(text(n, key));
    if (!v) fail(n, key, v.error().message);
    return *v;
  }

  int line(const YAML::Node& n) const { return n.Mark().line + 1; }

 private:
  static std::string trimmed(double v) {
    std::string s = std::to_string(v);
    while (s.size() > 1 && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }
  std::string file_;
};

void read_port(const Reader& r, const YAML::Node& n, NodeSpec& node) {
  r.mapping(n, "node.port", {"rate_gbit_per_s", "width", "link_layer", "active_mtu_bytes", "netdev_mtu_bytes"},
            [&](const std::string& key, const YAML::Node& v) {
              if (key == "node.port.rate_gbit_per_s") node.port_rate_gbit_per_s = r.number(v, key, 1, 1e5);
              else if (key == "node.port.width") node.port_width = r.integer(v, key, 1, 32);
              else if (key == "node.port.active_mtu_bytes") node.active_mtu_bytes = r.integer(v, key, 256, 65536);
              else if (key == "node.port.netdev_mtu_bytes") node.netdev_mtu_bytes = r.integer(v, key, 68, 65536);
              else {
                std::string ll = r.text(v, key);
                if (ll != "InfiniBand" && ll != "Ethernet") r.fail(v, key, "expected InfiniBand or Ethernet, got '" + ll + "'");
                node.link_layer = ll;
              }
            });
}

void read_node(const Reader& r, const YAML::Node& n, NodeSpec& node) {
  r.mapping(n, "node", {"gpus", "nics", "nvlinks_per_gpu", "port", "pcie", "rails", "gdr"},
            [&](const std::string& key, const YAML::Node& v) {
              if (key == "node.gpus") node.gpus = r.integer(v, key, 0, 1024);
              else if (key == "node.nics") node.nics = r.integer(v, key, 0, 1024);
              else if (key == "node.nvlinks_per_gpu") node.nvlinks_per_gpu = r.integer(v, key, 0, 64);
              else if (key == "node.gdr") node.gdr = r.boolean(v, key);
              else if (key == "node.port") read_port(r, v, node);
              else if (key == "node.rails")
                r.mapping(v, key, {"gpus_per_nic"}, [&](const std::string& k, const YAML::Node& x) {
                  node.gpus_per_nic = r.integer(x, k, 1, 64);
                });
              else
                r.mapping(v, key, {"gpu", "nic"}, [&](const std::string& kind_key, const YAML::Node& x) {
                  PcieSpec& p = node.pcie[kind_key.substr(kind_key.rfind('.') + 1)];
                  r.mapping(x, kind_key, {"gen", "width"}, [&](const std::string& k, const YAML::Node& y) {
                    if (k.size() > 4 && k.compare(k.size() - 4, 4, ".gen") == 0) p.gen = r.integer(y, k, 1, 6);
                    else p.width = r.integer(y, k, 1, 32);
                  });
                });
            });
}

void read_busbw(const Reader& r, const YAML::Node& n, DeliverSpec& d) {
  if (!n.IsSequence()) r.fail(n, "deliver.busbw", "expected a list of {collective, size[, min_busbw_gbyte_per_s]}");
  static const std::set<std::string> kCollectives = {"all_reduce", "all_gather", "reduce_scatter", "alltoall",
                                                     "broadcast", "reduce", "sendrecv"};
  for (size_t i = 0; i < n.size(); ++i) {
    const YAML::Node e = n[i];
    const std::string where = "deliver.busbw[" + std::to_string(i) + "]";
    BusbwSpec b;
    b.line = r.line(e);
    bool has_size = false;
    r.mapping(e, where, {"collective", "size", "min_busbw_gbyte_per_s"}, [&](const std::string& key, const YAML::Node& v) {
      if (key == where + ".collective") {
        b.collective = r.text(v, key);
        if (!kCollectives.count(b.collective))
          r.fail(v, key, "unknown collective '" + b.collective + "' (all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv)");
      } else if (key == where + ".size") {
        b.size_bytes = r.size(v, key);
        has_size = true;
      } else {
        b.min_busbw_bytes_per_s = r.number(v, key, 0, 1e6) * 1e9;
      }
    });
    if (b.collective.empty()) r.fail(e, where, "collective: missing");
    if (!has_size) r.fail(e, where, "size: missing");
    d.busbw.push_back(std::move(b));
  }
}

void read_deliver(const Reader& r, const YAML::Node& n, DeliverSpec& d) {
  r.mapping(n, "deliver", {"efficiency", "busbw", "pair", "counters"}, [&](const std::string& key, const YAML::Node& v) {
    if (key == "deliver.efficiency") d.efficiency = r.number(v, key, 0.01, 1.0);
    else if (key == "deliver.busbw") read_busbw(r, v, d);
    else if (key == "deliver.pair") {
      d.pair_checked = true;
      if (v.IsNull()) return;
      r.mapping(v, key, {"min_gbyte_per_s"}, [&](const std::string& k, const YAML::Node& x) {
        d.pair_min_bytes_per_s = r.number(x, k, 0, 1e6) * 1e9;
      });
    } else {
      r.mapping(v, key, {"symbol_error", "link_downed", "link_error_recovery", "port_rcv_errors",
                         "local_link_integrity_errors", "excessive_buffer_overrun_errors", "port_xmit_discards",
                         "port_rcv_remote_physical_errors", "out_of_sequence", "packet_seq_err", "local_ack_timeout_err",
                         "rx_crc_errors_phy", "rx_symbol_err_phy", "rx_corrected_bits_phy", "carrier_changes",
                         "carrier_down_count"},
                [&](const std::string& k, const YAML::Node& x) {
                  d.counter_growth_max[k.substr(k.rfind('.') + 1)] = r.number(x, k, 0, 1e18);
                });
    }
  });
}

// The 1-based line of the `---` that starts the text's second YAML document (one after some
// content) when content follows it; 0 when there is none (an empty trailing document drops
// nothing). Found in the text, so only the first document is ever built (yaml-cpp's LoadAll of
// a fuzzed stream of many documents took 2 GB).
size_t second_document_line(const std::string& text) {
  bool content = false;
  size_t marker_line = 0;
  size_t line = 0;
  for (size_t pos = 0; pos < text.size(); ++line) {
    size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view l(text.data() + pos, end - pos);
    pos = end + 1;
    const bool marker = l.substr(0, 3) == "---" && (l.size() == 3 || l[3] == ' ' || l[3] == '\t' || l[3] == '\r');
    const bool end_marker = l.substr(0, 3) == "...";
    if (marker && content && marker_line == 0) marker_line = line + 1;
    std::string_view rest = marker ? l.substr(3) : l;
    const size_t first = rest.find_first_not_of(" \t\r");
    const bool has_content = !end_marker && first != std::string_view::npos && rest[first] != '#' &&
                             (marker || rest[first] != '%');
    if (has_content && marker_line != 0) return marker_line;
    if (has_content) content = true;
  }
  return 0;
}

// What makes text no spec before its keys are read: a NUL byte (binary data: yaml-cpp would
// name a confusing escape), a second document (`---`: yaml-cpp's Load would read the first and
// drop the rest silently), a root that is not a mapping. Returns the root, or throws SpecError.
YAML::Node spec_root(const Reader& r, const std::string& text, const std::string& file) {
  if (size_t nul = text.find('\0'); nul != std::string::npos) {
    const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(nul), '\n') + 1;
    throw SpecError{file + ":" + std::to_string(line) + ": binary data (NUL byte); a spec is YAML text"};
  }
  if (size_t line = second_document_line(text); line != 0)
    throw SpecError{file + ":" + std::to_string(line) +
                    ": a second YAML document (---); a spec is one YAML document, put every key in it"};
  YAML::Node root = YAML::Load(text);
  if (root.IsSequence()) r.fail(root, "", "a spec is a mapping of keys (version:, name:, node:, deliver:), this is a sequence");
  if (root.IsScalar()) r.fail(root, "", "a spec is a mapping of keys (version:, name:, node:, deliver:), this is a scalar");
  return root;
}

}  // namespace

Result<Spec> parse_spec(const std::string& text, const std::string& file) {
  Spec spec;
  spec.file = file;
  Reader r(file);
  try {
    YAML::Node root = spec_root(r, text, file);
    if (!root.IsDefined() || root.IsNull())
      return make_error(ErrorCode::kParse, "empty spec: expected version: 1, node: and deliver:", file);
    bool has_version = false;
    r.mapping(root, "", {"version", "name", "node", "deliver"}, [&](const std::string& key, const YAML::Node& v) {
      if (key == "version") {
        if (r.integer(v, key, 1, 1) == 1) has_version = true;
      } else if (key == "name") spec.name = r.text(v, key);
      else if (key == "node") read_node(r, v, spec.node);
      else read_deliver(r, v, spec.deliver);
    });
    if (!has_version) r.fail(root, "version", "missing (this fabdiag reads version: 1)");
  } catch (const SpecError& e) {
    return make_error(ErrorCode::kParse, e.text, file);
  } catch (const YAML::Exception& e) {
    return make_error(ErrorCode::kParse,
                      file + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) + ": " + e.msg,
                      file);
  }
  return spec;
}

#else

Result<Spec> parse_spec(const std::string&, const std::string& file) {
  return make_error(ErrorCode::kUnsupported, "this fabdiag was built without yaml-cpp (libyaml-cpp-dev): "
                    "`accept` cannot read a spec", file);
}

#endif

Result<Spec> load_spec(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  return parse_spec(*text, path);
}

}  // namespace fabdiag::accept
