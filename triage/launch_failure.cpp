#include "triage/launch_failure.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>

#include "core/text.h"

namespace fabdiag::triage {

namespace {

using K = LaunchCauseKind;

// One-line causes: the pattern, its kind, and the group that holds the host (0: none).
struct LinePattern {
  std::regex re;
  K kind;
  int host_group;
};

const std::vector<LinePattern>& line_patterns() {
  static const std::vector<LinePattern> p = [] {
    auto re = [](const char* s) { return std::regex(s, std::regex::ECMAScript | std::regex::optimize); };
    return std::vector<LinePattern>{
        {re(R"(^ssh: Could not resolve hostname ([^\s:]+): )"), K::kResolve, 1},
        {re(R"(^ssh: connect to host (\S+) port \d+: )"), K::kConnect, 1},
        {re(R"(^(?:\S+@)?([^\s@:]+): Permission denied \([^)]*\))"), K::kAuth, 1},
        {re(R"(^Permission denied \([^)]*\))"), K::kAuth, 0},
        {re(R"(^No (?:\S+ )?host key is known for (\S+) and you have requested strict checking)"), K::kHostKey, 1},
        {re(R"(^Host key for (\S+) has changed and you have requested strict checking)"), K::kHostKey, 1},
        {re(R"(^Host key verification failed)"), K::kHostKey, 0},
        {re(R"(^(?:ssh_exchange_identification|kex_exchange_identification): )"), K::kConnect, 0},
        {re(R"(^Connection (?:closed|reset) by (?:remote host|([^\s]+) port \d+))"), K::kConnect, 1},
        {re(R"(^ssh: )"), K::kConnect, 0},
        {re(R"(^\S*rsh: )"), K::kRemoteShell, 0},
        {re(R"(\b(?:orted|prted): (?:command )?not found)"), K::kDaemonMissing, 0},
        {re(R"(\b(?:orted|prted): No such file or directory)"), K::kDaemonMissing, 0},
        {re(R"(command not found: (?:orted|prted)\b)"), K::kDaemonMissing, 0},
        {re(R"(\b(?:orted|prted): error while loading shared libraries)"), K::kDaemonMissing, 0},
    };
  }();
  return p;
}

bool is_rule(const std::string& line) {
  return line.size() >= 10 && std::all_of(line.begin(), line.end(), [](char c) { return c == '-'; });
}

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.' || c == '_';
}

// The first host of `hosts` that appears in `line` as a whole word.
std::string host_in_line(const std::string& line, const std::vector<std::string>& hosts) {
  size_t best = std::string::npos;
  std::string found;
  for (const auto& h : hosts) {
    for (size_t pos = line.find(h); pos != std::string::npos; pos = line.find(h, pos + 1)) {
      bool left = pos == 0 || !is_word_char(line[pos - 1]);
      size_t end = pos + h.size();
      // a trailing '.' ends a sentence ("... on node05.") rather than extending the name
      bool right = end >= line.size() || !is_word_char(line[end]) ||
                   (line[end] == '.' && (end + 1 >= line.size() || !is_word_char(line[end + 1])));
      if (left && right && pos < best) {
        best = pos;
        found = h;
      }
      if (left && right) break;
    }
  }
  return found;
}

// A help text's lines after lines[i] up to its closing "-----", trimmed and non-empty.
std::vector<std::string> block_after(const std::vector<std::string>& lines, size_t i, size_t max_lines) {
  std::vector<std::string> out;
  for (size_t j = i + 1; j < lines.size() && out.size() < max_lines; ++j) {
    std::string t = trim(lines[j]);
    if (is_rule(t)) break;
    if (!t.empty()) out.push_back(t);
  }
  return out;
}

// Open MPI's hostfile refusals (help-hostfile.txt): the headline, the file, and where.
std::optional<LaunchCause> hostfile_cause(const std::vector<std::string>& lines, size_t i) {
  static const std::regex head(R"(detected a (?:parse error|bad parameter) in the hostfile:|was unable to open the hostfile:)");
  std::string t = trim(lines[i]);
  if (!std::regex_search(t, head)) return std::nullopt;
  auto rest = block_after(lines, i, 4);
  LaunchCause c;
  c.kind = K::kHostfile;
  c.line = rest.empty() ? t : t + " " + join(rest, " ");
  if (!rest.empty()) c.hostfile_at = rest[0];
  static const std::regex where(R"(line number (\d+))");
  std::smatch m;
  for (const auto& r : rest)
    if (std::regex_search(r, m, where) && !c.hostfile_at.empty()) c.hostfile_at += ":" + m[1].str();
  return c;
}

// "There are not enough slots available in the system to satisfy the N\nslots that were
// requested by the application:" (help-orte-rmaps-base.txt, PRRTE's help-prte-rmaps-base.txt).
std::optional<LaunchCause> slots_cause(const std::vector<std::string>& lines, size_t i) {
  std::string t = trim(lines[i]);
  if (t.rfind("There are not enough slots available", 0) != 0) return std::nullopt;
  LaunchCause c;
  c.kind = K::kSlots;
  c.line = t;
  if (i + 1 < lines.size() && trim(lines[i + 1]).rfind("slots that were requested", 0) == 0) {
    std::string next = trim(lines[i + 1]);
    if (!next.empty() && next.back() == ':') next.pop_back();
    c.line += " " + next;
  }
  return c;
}

// "ORTE has lost communication with its daemon located on node:\n\n  hostname:  node05"
// (help-errmgr-base.txt node-died), PRRTE's "Remote daemon: [...] on node node05".
std::optional<LaunchCause> lost_daemon_cause(const std::vector<std::string>& lines, size_t i) {
  std::string t = trim(lines[i]);
  if (t.find("lost communication with") == std::string::npos) return std::nullopt;
  static const std::regex host_re(R"((?:hostname:|^Node:|Remote daemon:.* on node)\s+(\S+))");
  LaunchCause c;
  c.kind = K::kDaemonLost;
  c.line = t;
  std::smatch m;
  for (const auto& r : block_after(lines, i, 6))
    if (std::regex_search(r, m, host_re)) {
      c.host = m[1];
      c.line += " " + r;
      break;
    }
  return c;
}

std::optional<LaunchCause> rank_died_cause(const std::string& t) {
  static const std::regex re(R"(rank (\d+) with PID \d+ on node (\S+) exited on signal (\d+)(?: \(([^)]*)\))?)");
  std::smatch m;
  if (!std::regex_search(t, m, re)) return std::nullopt;
  LaunchCause c;
  c.kind = K::kRankDied;
  c.host = m[2];
  c.line = t;
  c.rank_text = "rank " + m[1].str() + " on " + c.host + " died (signal " + m[3].str() +
                (m[4].matched ? ", " + m[4].str() : "") + ")";
  return c;
}

std::optional<LaunchCause> cause_at(const std::vector<std::string>& lines, size_t i,
                                    const std::vector<std::string>& hosts) {
  std::string t = trim(lines[i]);
  if (t.empty() || is_rule(t)) return std::nullopt;
  if (auto c = rank_died_cause(t)) return c;
  if (auto c = hostfile_cause(lines, i)) return c;
  if (auto c = slots_cause(lines, i)) return c;
  if (auto c = lost_daemon_cause(lines, i)) {
    if (c->host.empty()) c->host = host_in_line(c->line, hosts);
    return c;
  }
  std::smatch m;
  for (const auto& p : line_patterns()) {
    if (!std::regex_search(t, m, p.re)) continue;
    LaunchCause c;
    c.kind = p.kind;
    c.line = t;
    if (p.host_group > 0 && m[p.host_group].matched) c.host = m[p.host_group];
    if (c.host.empty()) c.host = host_in_line(t, hosts);
    return c;
  }
  return std::nullopt;
}

// A line of another program's stderr in a message: quoted, control characters escaped.
std::string quoted(const std::string& line) { return "'" + escape_nonprintable(line) + "'"; }

}  // namespace

std::vector<LaunchCause> find_launch_causes(const std::string& stderr_text, const std::vector<std::string>& hosts) {
  auto lines = split(stderr_text, '\n');
  std::vector<LaunchCause> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    auto c = cause_at(lines, i, hosts);
    if (!c) continue;
    bool seen = std::any_of(out.begin(), out.end(), [&](const LaunchCause& o) {
      return c->host.empty() ? o.host.empty() && o.kind == c->kind : o.host == c->host;
    });
    if (!seen) out.push_back(std::move(*c));
  }
  return out;
}

std::string first_informative_line(const std::string& stderr_text) {
  bool in_block = false;
  std::string first_in_block;
  for (const auto& raw : split(stderr_text, '\n')) {
    std::string t = trim(raw);
    if (is_rule(t)) {
      in_block = !in_block;
      continue;
    }
    if (t.empty() || t.rfind("fabdiag: triage: ", 0) == 0) continue;
    if (!in_block) return t;
    if (first_in_block.empty()) first_in_block = t;
  }
  return first_in_block;
}

Error diagnose_launch_failure(const std::string& stderr_text, int exit_code, bool timed_out, double timeout_s,
                              const std::string& last_progress, const std::vector<std::string>& hosts,
                              const std::string& hostfile) {
  auto causes = find_launch_causes(stderr_text, hosts);
  std::string head;
  if (timed_out) {
    head = "no result within " + std::to_string(static_cast<int>(timeout_s)) + " s";
    if (!last_progress.empty()) head += " (last step: " + last_progress + ")";
  }
  auto with_head = [&](const std::string& what) { return head.empty() ? what : head + "; " + what; };
  auto progress = [&] { return timed_out || last_progress.empty() ? "" : " (last progress: '" + last_progress + "')"; };
  ErrorCode failed = timed_out ? ErrorCode::kTimeout : ErrorCode::kUnavailable;

  // The hostfile or the slot count: the user's input, not a host.
  for (const auto& c : causes)
    if (c.kind == K::kHostfile || c.kind == K::kSlots) {
      std::string src = !c.hostfile_at.empty() ? c.hostfile_at : hostfile.empty() ? "hostfile" : hostfile;
      std::string what = c.kind == K::kHostfile ? "mpirun refused the hostfile: " + quoted(c.line)
                                                : "mpirun found too few slots: " + quoted(c.line) +
                                                      " (give each host of the hostfile slots=N, or fewer ranks)";
      return make_error(ErrorCode::kInvalidArgument, with_head(what), src);
    }
  auto named = std::find_if(causes.begin(), causes.end(), [](const LaunchCause& c) { return !c.host.empty(); });
  if (named != causes.end()) {
    std::string what = named->kind == K::kRankDied ? named->rank_text
                                                    : "the launch failed on " + named->host + ": " + quoted(named->line);
    std::string also;
    for (const auto& c : causes)
      if (!c.host.empty() && c.host != named->host) also += (also.empty() ? "" : ", ") + c.host + " (" + quoted(c.line) + ")";
    if (!also.empty()) what += "; also " + also;
    return make_error(failed, with_head(what) + progress(), named->host);
  }
  if (!causes.empty())
    return make_error(failed, with_head("the launch failed: " + quoted(causes[0].line)) + progress(), "mpirun");
  if (timed_out)
    return make_error(ErrorCode::kTimeout,
                      with_head("a host did not answer or a rank hangs: rerun with -v, or check each host with "
                                "`fabdiag doctor`"),
                      "mpirun");
  std::string line = first_informative_line(stderr_text);
  return make_error(ErrorCode::kUnavailable,
                    "mpirun exited with code " + std::to_string(exit_code) + (line.empty() ? "" : ": " + quoted(line)),
                    "mpirun");
}

}  // namespace fabdiag::triage
