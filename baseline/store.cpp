#include "baseline/store.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/text.h"

namespace fabdiag::baseline {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxNameLength = 128;

// The store path's fault (exit 2: no permission, read-only, missing, a file where a directory
// belongs) or the disk's (kIo, exit 4: ENOSPC, EIO); the message carries strerror.
Error fs_error(const std::error_code& ec, const std::string& what, const std::string& path) {
  ErrorCode code = ErrorCode::kIo;
  if (ec == std::errc::permission_denied || ec == std::errc::operation_not_permitted ||
      ec == std::errc::read_only_file_system)
    code = ErrorCode::kPermission;
  else if (ec == std::errc::no_such_file_or_directory)
    code = ErrorCode::kNotFound;
  else if (ec == std::errc::not_a_directory || ec == std::errc::file_exists || ec == std::errc::is_a_directory)
    code = ErrorCode::kInvalidArgument;
  return make_error(code, what + ": " + ec.message(), path);
}

// nlohmann's parse_error text without the "[json.exception.parse_error.101] " prefix.
std::string parse_error_text(const std::string& what) {
  auto close = what.find("] ");
  return close == std::string::npos ? what : what.substr(close + 2);
}

BaselineInfo describe(const std::string& name, const std::string& path, const nlohmann::json& doc,
                      const Envelope& env, const Measurements& m) {
  BaselineInfo info;
  info.name = name;
  info.path = path;
  info.schema = env.schema;
  info.hosts = env.hosts;
  info.started_at = env.started_at;
  if (auto it = doc.find("baseline"); it != doc.end() && it->is_object()) {
    info.saved_at = it->value("saved_at", "");
    info.source = it->value("source", "");
  }
  std::set<std::string> collectives;
  std::set<uint64_t> sizes;
  for (const auto& p : m.collectives) {
    collectives.insert(p.collective);
    sizes.insert(p.size_bytes);
  }
  info.collectives.assign(collectives.begin(), collectives.end());
  info.sizes_bytes.assign(sizes.begin(), sizes.end());
  if (m.pairwise) {
    info.pair_hosts = m.pairwise->hosts.size();
    info.pairs_measured = m.pairwise->measured_cells();
  }
  return info;
}

// JSON of `text`, or a parse error naming `source` (and saying "truncated" when it ends early).
Result<nlohmann::json> parse_json(const std::string& text, const std::string& source) {
  if (trim(text).empty()) return make_error(ErrorCode::kParse, "file is empty, expected a fabdiag result (JSON)", source);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string msg = "not valid JSON: " + parse_error_text(e.what());
    if (msg.find("unexpected end of input") != std::string::npos)
      msg += " (the file looks truncated: was the run or the copy cut short?)";
    else if (text.find("busbw") != std::string::npos)
      msg += " (nccl-tests output? convert it first: fabdiag import nccl-tests FILE --format json)";
    return make_error(ErrorCode::kParse, msg, source);
  }
}

// The envelope and measurements of a parsed result document; errors name `source`.
Result<std::pair<Envelope, Measurements>> read_document(const nlohmann::json& j, const std::string& source) {
  auto env = envelope_from_json(j);
  if (!env) {
    Error e = env.error();
    e.message = "not a fabdiag result: " + e.message;
    e.source = source;
    return e;
  }
  auto m = extract_measurements(*env, source);
  if (!m) return m.error();
  return std::make_pair(std::move(*env), std::move(*m));
}

// Creates the store directory and its missing parents 0755 whatever the umask (a cron job's
// umask 077 would hide baselines from the people reading them; 0 would open them to writes).
Status create_store_dirs(const std::string& dir) {
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path p = fs::absolute(dir, ec); !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  fs::create_directories(dir, ec);
  if (ec) return fs_error(ec, "cannot create the baseline store directory", dir);
  for (const auto& p : missing) {
    fs::permissions(p, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                           fs::perms::others_read | fs::perms::others_exec, ec);
    if (ec) return fs_error(ec, "cannot set mode 0755 on the baseline store directory", p.string());
  }
  return Ok{};
}

// The store holds only regular files fabdiag wrote. A symlink in it (planted, or left by hand)
// would make a root cron job write through it (onto /etc/passwd): refused, as is any other kind
// of file, whatever --force says. The store directory itself may be a symlink.
Status check_entry(const std::string& path, const std::string& name) {
  std::error_code ec;
  const fs::file_status entry = fs::symlink_status(path, ec);
  if (fs::exists(entry) && !fs::is_regular_file(entry))
    return make_error(ErrorCode::kInvalidArgument,
                      std::string("store entry for baseline '") + name + "' is " +
                          (fs::is_symlink(entry) ? "a symlink" : "not a regular file") +
                          "; the store holds only files fabdiag wrote: remove it and save again",
                      path);
  return Ok{};
}

Status write_json(const std::string& path, const nlohmann::json& doc) {
  return write_file_atomic(path, doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace

Result<std::string> resolve_store_dir(const std::string& explicit_dir, const Environment& env) {
  if (!explicit_dir.empty()) return explicit_dir;
  if (auto v = env.get_nonempty("FABDIAG_BASELINE_DIR")) return *v;
  if (auto v = env.get_nonempty("XDG_DATA_HOME")) return (fs::path(*v) / "fabdiag" / "baselines").string();
  if (auto v = env.get_nonempty("HOME")) return (fs::path(*v) / ".local" / "share" / "fabdiag" / "baselines").string();
  return make_error(ErrorCode::kNotFound,
                    "no baseline store: give --store DIR or set FABDIAG_BASELINE_DIR (HOME is not set)",
                    "baseline store");
}

Status validate_baseline_name(const std::string& name) {
  auto bad = [&](const std::string& why) {
    return make_error(ErrorCode::kInvalidArgument,
                      "invalid baseline name '" +
                          escape_nonprintable(name.size() > 80 ? name.substr(0, 80) + "..." : name) + "': " + why +
                          " (use 1-128 of A-Z a-z 0-9 . _ -, e.g. nightly-2026-11-30)",
                      "NAME");
  };
  if (name.empty()) return bad("it is empty");
  if (name.size() > kMaxNameLength) return bad("it is longer than 128 characters");
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '_' || c == '-';
    if (!ok) return bad(c == '/' ? "it contains '/'" : "it contains a character outside the allowed set");
  }
  if (name[0] == '.') return bad("it starts with '.'");
  if (ends_with(name, ".json")) return bad("leave out the .json suffix, the store adds it");
  return Ok{};
}

Result<Envelope> parse_result_document(const std::string& text, const std::string& source) {
  auto j = parse_json(text, source);
  if (!j) return j.error();
  auto doc = read_document(*j, source);
  if (!doc) return doc.error();
  return std::move(doc->first);
}

std::string BaselineStore::path_of(const std::string& name) const {
  return (fs::path(dir_) / (name + ".json")).string();
}

std::string BaselineStore::history_path_of(const std::string& name) const {
  return (fs::path(dir_) / (name + ".history")).string();
}

Result<BaselineInfo> BaselineStore::save(const std::string& name, const std::string& content,
                                         const std::string& source, bool force,
                                         const std::string& saved_at) const {
  auto out = save_run(name, content, source, force ? SaveMode::kReplace : SaveMode::kNew, kDefaultKeepRuns, saved_at);
  if (!out) return out.error();
  return std::move(out->info);
}

Result<SaveOutcome> BaselineStore::save_run(const std::string& name, const std::string& content,
                                            const std::string& source, SaveMode mode, size_t keep,
                                            const std::string& saved_at) const {
  if (auto st = validate_baseline_name(name); !st) return st.error();
  if (keep < 1) return make_error(ErrorCode::kInvalidArgument, "keep at least 1 run per key", "--keep");
  auto j = parse_json(content, source);
  if (!j) return j.error();
  auto parsed = read_document(*j, source);
  if (!parsed) return parsed.error();
  std::string path = path_of(name);
  if (auto st = check_entry(path, name); !st) return st.error();
  if (auto st = check_entry(history_path_of(name), name); !st) return st.error();
  std::error_code ec;
  SaveOutcome out;
  out.replaced = fs::exists(fs::symlink_status(path, ec));
  if (mode == SaveMode::kNew && out.replaced)
    return make_error(ErrorCode::kInvalidArgument,
                      "baseline '" + name + "' already exists; pass --append to add this run to its history, "
                      "or --force to replace it",
                      path);
  History h;
  if (mode == SaveMode::kAppend && out.replaced) {
    auto old = load_history(name);
    if (!old) return old.error();
    if (old->fleet)
      return make_error(ErrorCode::kInvalidArgument,
                        "baseline '" + name + "' is a fleet baseline; runs are not appended to it (rebuild it "
                        "with fabdiag baseline fleet --force, or save runs under another name)",
                        path);
    h = std::move(*old);
  }
  h.name = name;
  if (auto st = create_store_dirs(dir_); !st) return st.error();
  // The document is stored as given (unknown keys survive), plus the "baseline" object.
  nlohmann::json doc = std::move(*j);
  std::string source_path = source;
  if (source != "-") {
    auto abs = fs::absolute(source, ec);
    if (!ec) source_path = abs.string();
  }
  const std::string stamp = saved_at.empty() ? utc_now_iso8601() : saved_at;
  doc["baseline"] = {{"name", name}, {"saved_at", stamp}, {"source", source_path}};
  const Envelope& env = parsed->first;
  append_run(h, parsed->second,
             RunRecord{env.started_at.empty() ? stamp : env.started_at, stamp, env.started_at, source_path, env.schema,
                       env.hosts});
  out.pruned_points = prune_history(h, keep);
  out.history_runs = h.runs.size();
  // The history first: a crash between the two writes leaves the new run counted, never lost.
  if (auto st = write_json(history_path_of(name), history_to_json(h)); !st) return st.error();
  if (auto st = write_json(path, doc); !st) return st.error();
  out.info = describe(name, path, doc, parsed->first, parsed->second);
  return out;
}

Result<BaselineInfo> BaselineStore::save_fleet(const std::string& name, const History& h, nlohmann::json doc,
                                               bool force, const std::string& saved_at) const {
  if (auto st = validate_baseline_name(name); !st) return st.error();
  std::string path = path_of(name);
  if (auto st = check_entry(path, name); !st) return st.error();
  if (auto st = check_entry(history_path_of(name), name); !st) return st.error();
  std::error_code ec;
  if (!force && fs::exists(fs::symlink_status(path, ec)))
    return make_error(ErrorCode::kInvalidArgument,
                      "baseline '" + name + "' already exists; pass --force to replace it", path);
  doc["baseline"] = {{"name", name},
                     {"saved_at", saved_at.empty() ? utc_now_iso8601() : saved_at},
                     {"source", "fleet of " + std::to_string(h.runs.size()) + " results"},
                     {"fleet", true}};
  auto parsed = read_document(doc, path);
  if (!parsed) return parsed.error();
  if (auto st = create_store_dirs(dir_); !st) return st.error();
  History fleet = h;
  fleet.name = name;
  fleet.fleet = true;
  if (auto st = write_json(history_path_of(name), history_to_json(fleet)); !st) return st.error();
  if (auto st = write_json(path, doc); !st) return st.error();
  return describe(name, path, doc, parsed->first, parsed->second);
}

Result<History> BaselineStore::load_history(const std::string& name) const {
  if (auto st = validate_baseline_name(name); !st) return st.error();
  std::string hpath = history_path_of(name);
  if (auto st = check_entry(hpath, name); !st) return st.error();
  std::error_code ec;
  if (fs::exists(fs::symlink_status(hpath, ec))) {
    auto text = read_file(hpath);
    if (!text) return text.error();
    auto j = parse_json(*text, hpath);
    if (!j) return j.error();
    auto h = history_from_json(*j, hpath);
    if (!h) return h.error();
    h->name = name;
    return h;
  }
  auto b = load(name);  // a store from before histories: NAME.json is the one run
  if (!b) return b.error();
  History h;
  h.name = name;
  const BaselineInfo& i = b->info;
  append_run(h, b->measurements,
             RunRecord{i.started_at.empty() ? i.saved_at : i.started_at, i.saved_at, i.started_at, i.source, i.schema,
                       i.hosts});
  return h;
}

Result<StoredBaseline> BaselineStore::load(const std::string& name) const {
  if (auto st = validate_baseline_name(name); !st) return st.error();
  std::string path = path_of(name);
  std::error_code ec;
  if (!fs::exists(path, ec))
    return make_error(ErrorCode::kNotFound,
                      "no baseline named '" + name + "' in store " + dir_ + " (list them with: fabdiag baseline show)",
                      path);
  auto text = read_file(path);
  if (!text) return text.error();
  auto j = parse_json(*text, path);
  if (!j) return j.error();
  auto parsed = read_document(*j, path);
  if (!parsed) return parsed.error();
  StoredBaseline b;
  b.info = describe(name, path, *j, parsed->first, parsed->second);
  b.envelope = std::move(parsed->first);
  b.measurements = std::move(parsed->second);
  return b;
}

Result<BaselineListing> BaselineStore::list() const {
  BaselineListing out;
  std::error_code ec;
  if (!fs::exists(dir_, ec)) return out;
  if (!fs::is_directory(dir_, ec))
    return make_error(ErrorCode::kInvalidArgument, "baseline store is not a directory", dir_);
  out.store_exists = true;
  std::vector<std::string> names;
  fs::directory_iterator it(dir_, ec);
  if (ec) return fs_error(ec, "cannot read the baseline store", dir_);
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return fs_error(ec, "cannot read the baseline store", dir_);
    std::string file = it->path().filename().string();
    if (file.empty() || file[0] == '.' || !ends_with(file, ".json")) continue;  // temp/hidden files
    names.push_back(file.substr(0, file.size() - 5));
  }
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    if (auto st = validate_baseline_name(name); !st) {
      out.errors.push_back(make_error(ErrorCode::kInvalidArgument,
                                      "file name is not a valid baseline name; skipped", path_of(name)));
      continue;
    }
    auto b = load(name);
    if (!b) {
      out.errors.push_back(b.error());
      continue;
    }
    out.baselines.push_back(std::move(b->info));
  }
  return out;
}

}  // namespace fabdiag::baseline
