// Dead and one-way suspects as the triage report has them (docs/localization.md#dead-links-and-hosts,
// docs/localization.md#direction): the TriageSuspect of a dead link or host, and the direction
// verdict added to a slow node or pair.
#pragma once

#include <string>
#include <vector>

#include "triage/dead_pairs.h"
#include "triage/direction.h"
#include "triage/walk.h"

namespace fabdiag::triage {

/// The TriageSuspect of `d`: kind "link" (hosts: both ends) or "node", no_completion_s set,
/// layer L2, evidence the wait ("no completion in 30 s", from the pair test's give-up), an
/// action to check the path or the host.
TriageSuspect dead_suspect(const DeadSuspect& d, const std::vector<std::string>& hosts);

/// Sets ts.direction from `d` and adds the two medians as evidence; for "send" / "recv" the
/// action says which side of the host (or, for a pair, which direction) to check first. A pair
/// whose slow direction is hosts[1] -> hosts[0] gets its hosts swapped, so a pair's direction
/// is always "send" (hosts[0] -> hosts[1] slow) or "both".
void add_direction(TriageSuspect& ts, const NodeDirection& d);

}  // namespace fabdiag::triage
