// NCCL RAS JSON reports, streamed record by record (import/nccl_ras_json.h).
#include "import/nccl_ras_json.h"

#include <algorithm>
#include <istream>
#include <streambuf>

#include <nlohmann/json.hpp>

#include "core/repeats.h"
#include "core/text.h"
#include "import/common.h"
#include "import/json_sax_values.h"

namespace fabdiag::detail {

namespace {

using json = nlohmann::json;

constexpr size_t kMaxComms = 65536, kMaxRanksPerComm = size_t{1} << 20, kMaxHeldValues = size_t{1} << 20;

// The lines of a LineSource as a stream of characters (each line and its '\n'), so the JSON
// parser pulls the file as it goes; line() is the line of the character read last.
class LineBuf : public std::streambuf {
 public:
  LineBuf(LineSource& lines, std::vector<std::string> head, size_t first_no)
      : lines_(lines), head_(std::move(head)), line_(first_no - 1) {}
  size_t line() const { return line_; }
  bool ended() const { return ended_; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (next_head_ < head_.size()) {
      cur_ = std::move(head_[next_head_++]);
      return serve(line_ + 1);
    }
    auto l = lines_.next();
    if (!l) {
      ended_ = true;
      return traits_type::eof();
    }
    cur_.assign(l->data(), l->size());
    return serve(lines_.line_no());
  }
  int_type serve(size_t line_no) {
    cur_ += '\n';
    line_ = line_no;
    setg(cur_.data(), cur_.data(), cur_.data() + cur_.size());
    return traits_type::to_int_type(*gptr());
  }

 private:
  LineSource& lines_;
  std::vector<std::string> head_;
  size_t next_head_ = 0;
  std::string cur_;
  size_t line_;
  bool ended_ = false;
};

int64_t int_of(const json& o, const char* k, int64_t dflt = -1) {
  auto it = o.find(k);
  return it != o.end() && it->is_number_integer() ? it->get<int64_t>() : dflt;
}
bool bool_of(const json& o, const char* k) {
  auto it = o.find(k);
  return it != o.end() && it->is_boolean() && it->get<bool>();
}
std::string str_of(const json& o, const char* k) {
  auto it = o.find(k);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// "0xae94423cfbb2ef4a" -> "ae94423cfbb2ef4a" (16 digits, as the text form's %016lx).
std::string hash_text(std::string h) {
  if (starts_with(h, "0x") || starts_with(h, "0X")) h = h.substr(2);
  if (h.size() < 16) h.insert(0, 16 - h.size(), '0');
  return h;
}

// Builds the document's small parts as a DOM and hands each rank record (an object of a
// communicator's "ranks" or "missing_ranks") and each communicator to the Reader as it closes,
// then drops it: memory is one rank record and the summaries, not the document.
class Sax : public JsonSaxValues {
 public:
  Sax(RasReport& out, LineBuf& buf, const std::string& source, BoundedErrors& gaps)
      : out_(out), buf_(buf), source_(source), gaps_(gaps) {}
  json root;
  bool cut = false, failed = false, over = false;
  std::string error_text;
  size_t error_line = 0;

  bool key(string_t& k) override {
    slot_ = &(*stack_.back())[k];
    key_ = k;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    error_line = buf_.line();
    if (buf_.ended()) cut = true;
    else failed = true, error_text = e.what();
    return false;
  }
  // After the parse: the communicator the document ended in, with the records it holds.
  void finish_open_comm();
  bool comm_open() const { return comm_open_; }

 private:
  bool value(json v) override;
  bool open(json v) override;
  bool close() override;
  bool in_comms() const { return keys_.size() >= 2 && keys_[1] == "communicators"; }
  void rank_record(const json& r, bool missing);
  void comm_start();
  void comm_end(const json& c, bool cut_here);

  RasReport& out_;
  LineBuf& buf_;
  const std::string& source_;
  BoundedErrors& gaps_;
  std::vector<json*> stack_;
  std::vector<std::string> keys_;  // the key (or "[]") each open container was placed under
  json* slot_ = nullptr;
  std::string key_;
  size_t held_ = 0, record_line_ = 0;
  bool comm_open_ = false;
  RasCommRecords comm_;
};

bool Sax::value(json v) {
  if (++held_ > kMaxHeldValues) return over = true, false;
  if (stack_.empty()) return root = std::move(v), true;
  json& top = *stack_.back();
  if (top.is_array()) top.push_back(std::move(v));
  else *slot_ = std::move(v);
  return true;
}

bool Sax::open(json v) {
  if (++held_ > kMaxHeldValues) return over = true, false;
  std::string under = stack_.empty() ? "" : stack_.back()->is_array() ? "[]" : key_;
  json* at = &root;
  if (!stack_.empty()) {
    json& top = *stack_.back();
    if (top.is_array()) top.push_back(std::move(v)), at = &top.back();
    else *slot_ = std::move(v), at = slot_;
  } else {
    root = std::move(v);
  }
  stack_.push_back(at);
  keys_.push_back(under);
  if (stack_.size() == 3 && in_comms() && at->is_object()) comm_start();
  if (stack_.size() == 5 && in_comms()) record_line_ = buf_.line();
  return true;
}

bool Sax::close() {
  size_t depth = stack_.size();
  json* done = stack_.back();
  bool rank = depth == 5 && in_comms() && done->is_object() && (keys_[3] == "ranks" || keys_[3] == "missing_ranks");
  bool comm = depth == 3 && in_comms() && done->is_object();
  if (rank) rank_record(*done, keys_[3] == "missing_ranks");
  if (comm) comm_end(*done, false);
  stack_.pop_back();
  keys_.pop_back();
  if (rank || comm) {
    stack_.back()->erase(stack_.back()->size() - 1);  // dropped: summarised
    held_ = 0;
  }
  return true;
}

void Sax::comm_start() {
  comm_ = RasCommRecords{};
  comm_.comm.id = "#" + std::to_string(out_.comms.size());
  comm_.comm.line = buf_.line();
  comm_open_ = true;
}

void Sax::rank_record(const json& r, bool missing) {
  if (!comm_open_) return;
  auto& into = missing ? comm_.missing : comm_.ranks;
  if (into.size() >= kMaxRanksPerComm)
    return gaps_.add("ranks", make_error(ErrorCode::kParse, "more than 2^20 rank records in one communicator: not kept",
                                         line_source(source_, buf_.line())));
  RasRankRecord k;
  k.rank = int_of(r, "rank"), k.pid = int_of(r, "pid"), k.cuda_dev = int_of(r, "cuda_dev"), k.nvml_dev = int_of(r, "nvml_dev");
  k.host = str_of(r, "host");
  k.missing = missing;
  k.line = record_line_;
  static const json kEmpty = json::object();
  const json& st = r.contains("status") && r["status"].is_object() ? r["status"] : kEmpty;
  k.init_state = int_of(st, "init_state", 0), k.async_error = int_of(st, "async_error", 0);
  k.finalize_called = bool_of(st, "finalize_called"), k.destroy_flag = bool_of(st, "destroy_flag");
  k.abort_flag = bool_of(st, "abort_flag"), k.unresponsive = bool_of(st, "unresponsive");
  k.dead = bool_of(st, "considered_dead");
  if (auto it = r.find("collective_counts"); it != r.end() && it->is_object()) {
    k.counts.assign(comm_.ops.size(), 0);
    for (const auto& [op, n] : it->items()) {
      if (!n.is_number_integer()) continue;
      auto at = std::find(comm_.ops.begin(), comm_.ops.end(), op);
      size_t i = static_cast<size_t>(at - comm_.ops.begin());
      if (at == comm_.ops.end() && comm_.ops.size() >= 64) continue;  // NCCL has 5-8 collectives
      if (at == comm_.ops.end()) comm_.ops.push_back(op);
      if (k.counts.size() <= i) k.counts.resize(i + 1, 0);
      k.counts[i] = n.is_number_unsigned() ? n.get<uint64_t>() : static_cast<uint64_t>(std::max<int64_t>(0, n.get<int64_t>()));
    }
  }
  into.push_back(std::move(k));
}

void Sax::comm_end(const json& c, bool cut_here) {
  if (!comm_open_) return;
  comm_open_ = false;
  RasComm& m = comm_.comm;
  m.hash = hash_text(str_of(c, "hash"));
  m.secondary_hash = str_of(c, "secondary_hash");
  m.size = int_of(c, "size"), m.ranks_count = int_of(c, "ranks_count"), m.missing_count = int_of(c, "missing_ranks_count");
  m.ranks_read = static_cast<int64_t>(comm_.ranks.size()), m.missing_read = static_cast<int64_t>(comm_.missing.size());
  m.cut = cut_here;
  for (auto& r : comm_.ranks) r.counts.resize(comm_.ops.size(), 0);
  if (out_.comms.size() >= kMaxComms)
    return gaps_.add("comms", make_error(ErrorCode::kParse, "more than 65536 communicators: not kept",
                                         line_source(source_, m.line)));
  check_ras_comm(comm_, out_.entries);
  out_.comms.push_back(m);
  comm_ = RasCommRecords{};
}

void Sax::finish_open_comm() {
  if (!comm_open_ || stack_.size() < 3) return;
  comm_end(*stack_[2], true);
}

void header_fields(const json& root, RasReport& out) {
  out.nccl_version = str_of(root, "nccl_version");
  out.timestamp = str_of(root, "timestamp");
  if (int64_t v = int_of(root, "cuda_runtime_version", -1); v >= 0) out.cuda_runtime = v;
  if (int64_t v = int_of(root, "cuda_driver_version", -1); v >= 0) out.cuda_driver = v;
  if (int64_t v = int_of(root, "communicators_count", -1); v >= 0) out.communicators_count = v;
  if (auto it = root.find("ras"); it != root.end() && it->is_object()) {
    if (int64_t v = int_of(*it, "timeouts_count", -1); v >= 0) out.timeouts = v;
    if (auto t = it->find("collection_time_sec"); t != it->end() && t->is_number()) out.collection_s = t->get<double>();
  }
}

// Report-level entries: the TIMEOUT warning the text form prints, and a communicators_count
// that disagrees with the communicators listed (only when the document is whole).
void report_entries(RasReport& out, bool cut, size_t line) {
  if (out.timeouts && *out.timeouts > 0) {
    RasEntry e;
    e.kind = "TIMEOUT", e.comm = "(report)", e.line = line;
    e.what = "Encountered " + std::to_string(*out.timeouts) + " communication timeout" + (*out.timeouts > 1 ? "s" : "") +
             " while gathering communicator data";
    out.entries.push_back(std::move(e));
  }
  if (!cut && out.communicators_count && *out.communicators_count != static_cast<int64_t>(out.comms.size())) {
    RasEntry e;
    e.kind = "INCONSISTENT", e.comm = "(report)", e.line = line;
    e.what = "\"communicators_count\" is " + std::to_string(*out.communicators_count) + " but " +
             std::to_string(out.comms.size()) + " communicators are listed";
    out.entries.push_back(std::move(e));
  }
}

}  // namespace

bool is_nccl_ras_json_line(std::string_view line) {
  std::string t = trim(line);
  if (starts_with(t, "\"communicators_count\":") || starts_with(t, "\"secondary_hash\":") ||
      starts_with(t, "\"missing_ranks_count\":"))
    return true;
  return starts_with(t, "{") && t.find("\"nccl_version\"") != std::string::npos &&
         t.find("\"communicators\"") != std::string::npos;
}

Result<RasReport> read_nccl_ras_json(LineSource& lines, std::vector<std::string> head, size_t first_no,
                                     const std::string& source, const ReadLimits& limits) {
  RasReport out;
  out.form = "json";
  BoundedErrors gaps(limits.max_listed);
  LineBuf buf(lines, std::move(head), first_no);
  std::istream in(&buf);
  Sax sax(out, buf, source, gaps);
  json::sax_parse(in, &sax, json::input_format_t::json, false);
  if (lines.error()) return *lines.error();
  if (sax.over)
    return make_error(ErrorCode::kParse,
                      "more than 2^20 JSON values outside the rank records: not a RAS report as NCCL prints it",
                      line_source(source, buf.line()));
  // A syntax error on the input's last line, when that line lacks its newline, is the cut too
  // (the cut fell inside a string or a number).
  if (sax.failed && sax.error_line == lines.line_no() && !lines.next() && lines.unterminated())
    sax.failed = false, sax.cut = true;
  bool has_comms = sax.root.is_object() && sax.root.contains("communicators");
  if ((!has_comms || sax.failed || sax.cut) && out.comms.empty() && !sax.comm_open()) {
    std::string why = sax.failed ? "malformed JSON (" + sax.error_text + ")"
                      : !sax.cut ? "JSON without a \"communicators\" key"
                      : has_comms ? "a JSON document cut before its first communicator"
                                  : "a JSON document cut before its \"communicators\"";
    return make_error(ErrorCode::kParse, "expected an NCCL RAS JSON report, found " + why,
                      line_source(source, sax.error_line ? sax.error_line : first_no));
  }
  sax.finish_open_comm();
  header_fields(sax.root, out);
  if (sax.cut || sax.failed) {
    std::string what = sax.cut ? "the JSON document is cut here (it ends before its closing '}')"
                               : "malformed JSON: " + sax.error_text;
    gaps.add("cut", make_error(ErrorCode::kParse,
                               what + "; kept " + std::to_string(out.comms.size()) + " communicators" +
                                   (!out.comms.empty() && out.comms.back().cut
                                        ? " (the last one with its " + std::to_string(out.comms.back().ranks_read) +
                                              " complete rank records)"
                                        : ""),
                               line_source(source, sax.error_line)));
  }
  report_entries(out, sax.cut || sax.failed, first_no);
  out.gaps = gaps.take();
  add_cut_lines_gap(lines, source, out.gaps);
  return out;
}

}  // namespace fabdiag::detail
