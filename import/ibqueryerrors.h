// Import of infiniband-diags `ibqueryerrors` output into the counter model.
#pragma once

#include <string>
#include <string_view>

#include "import/common.h"
#include "import/input_reader.h"

namespace fabdiag {

/// Reads ibqueryerrors text: 'Errors for [GUID] "<node description>"' blocks, each followed by
/// "GUID 0x... port <n>: [Counter == value] [Counter == value] ..." lines, then the "## Summary"
/// footer. Each port becomes device '<node description> port <n>' (group ib_port_counters, IBTA
/// names). "port ALL" is the node's sum, not a port: its values go to facts.aggregates and are
/// never added to a port; a node whose only line is its "port ALL" (ibqueryerrors run on a node
/// that sums, or a paste of that line alone) is judged on the sum as device '<node> all ports'
/// (port 0). "GUID 0x... port N: [...]" lines without an "Errors for" block above them are read
/// with the GUID as the node. Values at their counter's maximum (65535 for a 16-bit counter,
/// 4294967295 for PortXmitWait) are saturated: "at least". Counters the tool did not print are
/// unknown (it prints only those beyond its thresholds), never zero. The summary's numbers go to
/// facts.summary. "###" sections are later runs (snapshots in time order).
/// Errors: kParse when there is no "Errors for" block, no "GUID ... port" line and no summary.
/// Streams `lines` (memory: the ports and snapshots kept, never the input).
Result<CounterImport> import_ibqueryerrors(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory, with the default limits.
Result<CounterImport> import_ibqueryerrors(std::string_view text, const std::string& source);

}  // namespace fabdiag
