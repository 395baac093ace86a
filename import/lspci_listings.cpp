#include "import/lspci_listings.h"

#include <utility>

#include <nlohmann/json.hpp>

namespace fabdiag {

namespace {

// "0000:17:00.0 0000:18:00.0 ..." of the functions with a header; the fragments' and loose
// ACSCtl lines' counts and `scope` when there are any (they have no address of their own).
std::string listing_key(const LspciListing& l, const std::string& scope) {
  std::string key;
  size_t fragments = 0;
  for (const auto& f : l.functions) {
    if (f.fragment) {
      ++fragments;
      continue;
    }
    key += f.bdf;
    key += ' ';
  }
  if (fragments > 0 || !l.loose_acs.empty())
    key += "\x1f" + scope + "\x1f" + std::to_string(fragments) + "\x1f" + std::to_string(l.loose_acs.size());
  return key;
}

}  // namespace

void LspciListings::add(LspciListing listing, const std::string& scope) {
  std::string key = listing_key(listing, scope);
  index_.put(kept_, key, std::move(listing));
}

void LspciListings::append_json(nlohmann::json& into) const {
  for (const auto& l : kept_) into.push_back(l);
}

}  // namespace fabdiag
