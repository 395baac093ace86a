// The person-readable view of a fabdiag.triage/1 result (verdict first, then the evidence).
#pragma once

#include "core/envelope.h"
#include "report/document.h"

namespace fabdiag::cmd {

/// Document of a triage envelope: verdict, suspects with evidence, cleared, inconclusive,
/// collective sweeps (busbw), the pairwise matrix in MB/s and the confirmation rounds.
Document triage_document(const Envelope& env);

}  // namespace fabdiag::cmd
