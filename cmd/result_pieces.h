// A result written to stdout or --output in pieces (cmd/common.h writes one whole string).
#pragma once

#include <functional>

#include "cmd/common.h"
#include "report/render_pieces.h"

namespace fabdiag::cmd {

/// write_result_text() of a result made in pieces (render_json_to, render_junit_to): `produce`
/// hands each piece to the drain it is given, which writes it to stdout or to the temporary
/// file of --output (renamed over the target once every piece is written): a result bigger
/// than memory never exists whole. Exit codes as write_result_text(); after a failed write the
/// remaining pieces are dropped.
int write_result_pieces(const GlobalOptions& g, const std::function<void(const TextDrain&)>& produce);

}  // namespace fabdiag::cmd
