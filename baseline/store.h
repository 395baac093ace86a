// The baseline store: a directory of named result documents, NAME.json each, written
// atomically. A stored baseline is the saved envelope unchanged plus one top-level
// "baseline" object {name, saved_at, source}, so it stays a readable fabdiag envelope.
// NAME.json is the latest run; NAME.history (baseline/history.h) holds every kept run's
// values per key with its date. A store written before histories existed has NAME.json only and
// reads as a one-run history. Both files are written atomically, 0644, and a store entry that is
// a symlink or not a regular file is refused.
//
// Location, first that is set and non-empty: `--store DIR`, $FABDIAG_BASELINE_DIR,
// $XDG_DATA_HOME/fabdiag/baselines, $HOME/.local/share/fabdiag/baselines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "baseline/history.h"
#include "baseline/measurements.h"
#include "core/envelope.h"
#include "core/environment.h"
#include "core/result.h"

namespace fabdiag::baseline {

/// The store directory (see the file comment for the order). `explicit_dir` is --store; the
/// variables are read from `env` (process_environment() in the binary, a map in tests).
/// Errors: kNotFound when none of --store, FABDIAG_BASELINE_DIR, XDG_DATA_HOME, HOME is set.
Result<std::string> resolve_store_dir(const std::string& explicit_dir, const Environment& env);

/// Checks a baseline name: 1-128 characters of [A-Za-z0-9._-], not starting with '.' (no
/// hidden files, no "." or ".."), not ending in ".json" (the store adds it). Names never
/// contain '/', so they cannot leave the store. Errors: kInvalidArgument explaining the rule.
Status validate_baseline_name(const std::string& name);

/// Parses `text` as a result document that can be baselined: JSON, a fabdiag envelope, a
/// baselinable schema (measurements.h) with at least one measurement. `source` names the
/// file in errors. Errors (kParse unless noted), each naming `source`: empty input, invalid
/// or truncated JSON (with line and column), not an envelope, kInvalidArgument for another
/// schema, no measurement in it.
Result<Envelope> parse_result_document(const std::string& text, const std::string& source);

/// What `baseline show` lists about one baseline.
struct BaselineInfo {
  std::string name;
  std::string path;         ///< STORE/NAME.json.
  std::string schema;       ///< Envelope schema of the saved result.
  std::vector<std::string> hosts;  ///< Envelope hosts.
  std::string started_at;   ///< When the saved run started (envelope).
  std::string saved_at;     ///< When it was saved (UTC ISO 8601); empty if unknown.
  std::string source;       ///< The file it was saved from.
  std::vector<std::string> collectives;  ///< Distinct collectives, sorted.
  std::vector<uint64_t> sizes_bytes;     ///< Distinct message sizes, sorted.
  size_t pair_hosts = 0;    ///< Hosts of the pairwise matrix (0 = none).
  size_t pairs_measured = 0;  ///< Measured off-diagonal matrix cells.
};

/// A loaded baseline: its envelope, what was measured, and the listing info.
struct StoredBaseline {
  Envelope envelope;
  Measurements measurements;
  BaselineInfo info;
};

/// The listing of a store; unreadable files become errors, the rest survives.
struct BaselineListing {
  std::vector<BaselineInfo> baselines;  ///< Sorted by name.
  std::vector<Error> errors;            ///< Files that could not be read, each named.
  bool store_exists = false;            ///< False when the directory does not exist yet.
};

/// How `save_run` treats an existing NAME.
enum class SaveMode {
  kNew,      ///< Refuse when NAME exists.
  kReplace,  ///< --force: NAME.json replaced, the history restarted with this run.
  kAppend,   ///< --append: NAME.json replaced, the run added to the history (NAME may be new).
};

/// What `save_run` wrote.
struct SaveOutcome {
  BaselineInfo info;          ///< Of the new NAME.json.
  bool replaced = false;      ///< NAME existed before.
  size_t history_runs = 0;    ///< Runs in NAME.history after the save.
  size_t pruned_points = 0;   ///< Values dropped by retention.
};

/// A directory of baselines. Holds only the path; every call touches the file system.
class BaselineStore {
 public:
  explicit BaselineStore(std::string dir) : dir_(std::move(dir)) {}

  const std::string& dir() const { return dir_; }
  /// DIR/NAME.json (no validation).
  std::string path_of(const std::string& name) const;

  /// Saves `content` (a result document read from `source`) as NAME: validates the name and
  /// the document (parse_result_document), creates the directory if needed, and writes
  /// DIR/NAME.json atomically (write_file_atomic). `saved_at` defaults to now.
  /// Errors: kInvalidArgument for a bad name or when NAME exists and !force (the message says
  /// --force); the parse errors above; kPermission/kIo naming the directory or file.
  /// Two concurrent saves of one new name without force may both succeed (last one wins).
  Result<BaselineInfo> save(const std::string& name, const std::string& content, const std::string& source,
                            bool force, const std::string& saved_at = {}) const;

  /// DIR/NAME.history (no validation).
  std::string history_path_of(const std::string& name) const;

  /// Saves a run as NAME (`mode`), keeping the last `keep` runs per key (keep >= 1) in
  /// NAME.history: pruned and rewritten atomically. With kAppend and a NAME.json without a
  /// history (an old store), the old run seeds the history first. Errors: as save(), plus
  /// kInvalidArgument when kNew and NAME exists (the message says --append and --force), when
  /// NAME is a fleet baseline and kAppend, and kParse for an unreadable NAME.history.
  Result<SaveOutcome> save_run(const std::string& name, const std::string& content, const std::string& source,
                               SaveMode mode, size_t keep, const std::string& saved_at = {}) const;

  /// Writes a fleet baseline (baseline/fleet.h) as NAME: NAME.history is `h` (fleet = true) and
  /// NAME.json a fabdiag.bench/1 envelope of `doc`'s medians, so show lists it. `doc` is that
  /// envelope as JSON. Errors: as save().
  Result<BaselineInfo> save_fleet(const std::string& name, const History& h, nlohmann::json doc, bool force,
                                  const std::string& saved_at = {}) const;

  /// Loads NAME. Errors: kInvalidArgument (bad name); kNotFound naming DIR/NAME.json and the
  /// store; the parse errors above naming the file.
  Result<StoredBaseline> load(const std::string& name) const;

  /// The history of NAME: NAME.history, else a one-run history of NAME.json. Errors: as
  /// load(); kParse naming NAME.history when it is not a history; kInvalidArgument when it is
  /// a symlink or not a regular file.
  Result<History> load_history(const std::string& name) const;

  /// Lists every NAME.json in the store (hidden and temporary files skipped). A missing
  /// directory is an empty listing with store_exists = false.
  /// Errors: kPermission/kIo when the directory exists but cannot be read.
  Result<BaselineListing> list() const;

 private:
  std::string dir_;
};

}  // namespace fabdiag::baseline
