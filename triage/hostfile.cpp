#include "triage/hostfile.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <unordered_set>

#include "core/atomic_file.h"
#include "core/text.h"

namespace fabdiag::triage {

namespace {

constexpr size_t kMaxHostname = 253;
constexpr size_t kMaxLabel = 63;

// Open MPI's hostfile keywords (orte/util/hostfile/hostfile_lex.l) that take a whole number.
constexpr std::array<std::string_view, 17> kCountKeys = {
    "slots",     "count",     "cpu",       "max_slots", "max-slots", "slots_max", "slots-max",
    "cpu_max",   "cpu-max",   "max_cpu",   "max-cpu",   "count_max", "count-max", "max_count",
    "max-count", "boards",    "cores"};
constexpr std::array<std::string_view, 3> kUserKeys = {"username", "user-name", "user_name"};

bool is_label_char(unsigned char c) { return std::isalnum(c) != 0 || c == '-'; }
// Open MPI and MPICH keep slot counts in a C int: a larger number overflows in mpirun.
constexpr std::string_view kMaxCount = "2147483647";
bool count_fits(std::string_view digits) {
  while (digits.size() > 1 && digits.front() == '0') digits.remove_prefix(1);
  return digits.size() < kMaxCount.size() || (digits.size() == kMaxCount.size() && digits <= kMaxCount);
}
// A POSIX-portable user name: letters, digits, '.', '_', '-', not starting with '-'.
bool is_user_name(std::string_view s) {
  return !s.empty() && s[0] != '-' && s.size() <= 32 && std::all_of(s.begin(), s.end(), [](unsigned char c) {
           return std::isalnum(c) != 0 || c == '.' || c == '_' || c == '-';
         });
}

// One token of a line and its 1-based column.
struct Token {
  std::string text;
  size_t column = 0;
};

std::vector<Token> tokens_of(const std::string& line) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i >= line.size()) break;
    size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    out.push_back({line.substr(start, i - start), start + 1});
  }
  return out;
}

// What is wrong with a token and where in it (0-based offset); `why` empty when nothing is.
struct Fault {
  std::string why;
  size_t offset = 0;
};

// The host token (user@host or host:N); fills `host` when it is acceptable.
Fault check_host_token(const std::string& tok, std::string& host) {
  std::string_view t = tok;
  size_t base = 0;
  if (auto at = t.find('@'); at != std::string_view::npos) {
    if (!is_user_name(t.substr(0, at))) return {"'" + escape_nonprintable(t.substr(0, at)) + "' is not a user name", 0};
    t = t.substr(at + 1);
    base = at + 1;
  }
  if (auto colon = t.find(':'); colon != std::string_view::npos) {  // MPICH "host:slots"
    if (!all_digits(t.substr(colon + 1)))
      return {"'" + escape_nonprintable(t.substr(colon + 1)) + "' after ':' is not a slot count (HOST:N takes a whole number)",
              base + colon + 1};
    if (!count_fits(t.substr(colon + 1)))
      return {"slot count " + std::string(t.substr(colon + 1)) + " is more than mpirun can hold (at most " +
                  std::string(kMaxCount) + ")",
              base + colon + 1};
    t = t.substr(0, colon);
  }
  if (!is_valid_hostname(t))
    return {"'" + escape_nonprintable(t) + "' is not a host name (RFC 1123: letters, digits and '-' in labels joined by '.')",
            base};
  host = std::string(t);
  return {};
}

// A KEY=VALUE token after the host; `keys` holds the keywords seen earlier on the line (a
// second slots= is refused: mpirun would keep one of them, silently).
Fault check_keyword(const std::string& tok, std::unordered_set<std::string>& keys) {
  auto eq = tok.find('=');
  if (eq == std::string::npos || eq == 0)
    return {"'" + escape_nonprintable(tok) + "' is not KEY=VALUE (e.g. slots=8); one host per line", 0};
  std::string key = tok.substr(0, eq), value = tok.substr(eq + 1);
  bool known = std::find(kCountKeys.begin(), kCountKeys.end(), key) != kCountKeys.end() ||
               std::find(kUserKeys.begin(), kUserKeys.end(), key) != kUserKeys.end();
  if (known && !keys.insert(key).second) return {"'" + key + "' is given twice on this line", 0};
  if (std::find(kCountKeys.begin(), kCountKeys.end(), key) != kCountKeys.end()) {
    if (!all_digits(value)) return {"'" + escape_nonprintable(value) + "' is not a whole number (" + key + "=N)", eq + 1};
    if (!count_fits(value))
      return {key + "=" + value + " is more than mpirun can hold (at most " + std::string(kMaxCount) + ")", eq + 1};
    return {};
  }
  if (std::find(kUserKeys.begin(), kUserKeys.end(), key) != kUserKeys.end()) {
    if (is_user_name(value)) return {};
    return {"'" + escape_nonprintable(value) + "' is not a user name", eq + 1};
  }
  return {"unknown hostfile keyword '" + escape_nonprintable(key) + "' (slots=N, max_slots=N, username=NAME)", 0};
}

// A refusal at FILE:LINE:COLUMN.
Error at(const std::string& path, int line, size_t column, const std::string& why) {
  return make_error(ErrorCode::kParse, why, path + ":" + std::to_string(line) + ":" + std::to_string(column));
}

}  // namespace

bool is_valid_hostname(std::string_view name) {
  if (name.empty() || name.size() > kMaxHostname) return false;
  size_t start = 0;
  while (true) {
    size_t dot = name.find('.', start);
    std::string_view label = name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty() || label.size() > kMaxLabel || label.front() == '-' || label.back() == '-') return false;
    if (!std::all_of(label.begin(), label.end(), [](unsigned char c) { return is_label_char(c); })) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

Result<std::vector<std::string>> read_hostfile(const std::string& path, const HostfileLimits& limits) {
  std::error_code ec;
  if (auto size = std::filesystem::file_size(path, ec); !ec && size > limits.max_bytes)
    return make_error(ErrorCode::kInvalidArgument,
                      "the hostfile is " + std::to_string(size) + " bytes, more than the limit of " +
                          std::to_string(limits.max_bytes) + " bytes",
                      path);
  auto text = read_file(path);
  if (!text) return text.error().with_context("reading the hostfile");
  if (text->size() > limits.max_bytes)  // a pipe or a file that grew after the size check
    return make_error(ErrorCode::kInvalidArgument,
                      "the hostfile is more than the limit of " + std::to_string(limits.max_bytes) + " bytes", path);
  std::vector<std::string> hosts;
  std::unordered_set<std::string> seen;
  std::string_view rest = *text;
  size_t host_lines = 0;
  int lineno = 0;
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    std::string_view raw = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    ++lineno;
    auto toks = tokens_of(std::string(raw.substr(0, raw.find('#'))));
    if (toks.empty()) continue;
    if (++host_lines > limits.max_host_lines)
      return make_error(ErrorCode::kInvalidArgument,
                        "the hostfile has more than the limit of " + std::to_string(limits.max_host_lines) + " host lines",
                        path);
    std::string host;
    if (auto f = check_host_token(toks[0].text, host); !f.why.empty())
      return at(path, lineno, toks[0].column + f.offset, f.why);
    std::unordered_set<std::string> keys;
    for (size_t i = 1; i < toks.size(); ++i)
      if (auto f = check_keyword(toks[i].text, keys); !f.why.empty())
        return at(path, lineno, toks[i].column + f.offset, f.why);
    if (seen.insert(host).second) hosts.push_back(std::move(host));
  }
  if (hosts.empty()) return make_error(ErrorCode::kParse, "the hostfile names no host", path);
  return hosts;
}

}  // namespace fabdiag::triage
