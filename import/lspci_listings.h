// The lspci listings of one input (`fabdiag import lspci`: the "lspci" member of
// fabdiag.hostfacts/1), one per "###" section that parses, a capture repeated replaced in place:
// memory and output follow the distinct listings, not the captures
// (docs/ARCHITECTURE.md#import-memory).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "import/latest_records.h"
#include "import/lspci.h"

namespace fabdiag {

/// Listings in reading order, each kept under the functions it lists: the BDFs in listed order,
/// and, when it has header-less parts (LnkCap/LnkSta fragments, loose ACSCtl lines), their
/// counts and the `scope` (section title) it was read under. A later listing of the same key
/// (the same host's `lspci -vvv` captured again) replaces the earlier one in its place; a
/// listing of other functions (another `lspci -s` selection) is kept beside it.
class LspciListings {
 public:
  /// Adds `listing`, read under `scope` (the section title; "" for none).
  void add(LspciListing listing, const std::string& scope);
  /// The listings kept, each as to_json(LspciListing) writes it, appended to `into` (an array).
  void append_json(nlohmann::json& into) const;
  /// Listings kept.
  size_t size() const { return kept_.size(); }
  /// Listings that replaced an earlier one of the same key.
  size_t replaced() const { return index_.replaced(); }

 private:
  std::vector<LspciListing> kept_;
  LatestRecords index_;
};

}  // namespace fabdiag
