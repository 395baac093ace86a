// Records of one port (or GPU, or node) read again: a later capture in the same file (pdsh pastes
// of a loop, `watch` output saved, many runs concatenated). The last capture replaces the earlier
// one in its place, as `nvidia-smi -q -l` blocks do, so a reader's memory follows the distinct
// ports, not the captures (docs/ARCHITECTURE.md#data-model).
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace fabdiag {

/// The index of the records kept in a vector, by key ("host|ibdev|port").
class LatestRecords {
 public:
  /// Appends `rec` to `into` under `key`, or replaces the record kept under `key` (counted in
  /// replaced()).
  template <class T>
  void put(std::vector<T>& into, const std::string& key, T rec) {
    auto [it, fresh] = at_.emplace(key, into.size());
    if (fresh) {
      into.push_back(std::move(rec));
      return;
    }
    into[it->second] = std::move(rec);
    ++replaced_;
  }
  /// The record kept under `key` in `into`, or nullptr when none is.
  template <class T>
  T* kept(std::vector<T>& into, const std::string& key) const {
    auto it = at_.find(key);
    return it == at_.end() || it->second >= into.size() ? nullptr : &into[it->second];
  }
  /// For records filled after they are started (a block's lines): `into`'s last record, now
  /// complete, under `key`. When an earlier record has that key the last one replaces it and is
  /// removed from the end (counted in replaced()); else it is kept where it is.
  template <class T>
  void settle_last(std::vector<T>& into, const std::string& key) {
    if (into.empty()) return;
    auto [it, fresh] = at_.emplace(key, into.size() - 1);
    if (fresh || it->second == into.size() - 1) return;
    into[it->second] = std::move(into.back());
    into.pop_back();
    ++replaced_;
  }
  /// Records that replaced an earlier one of the same key.
  size_t replaced() const { return replaced_; }

 private:
  std::unordered_map<std::string, size_t> at_;
  size_t replaced_ = 0;
};

}  // namespace fabdiag
