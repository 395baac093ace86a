// Import of infiniband-diags `perfquery` output (PortCounters, -x PortCountersExtended,
// -E PortRcvErrorDetails, -D PortXmitDiscardDetails) into the counter model.
#pragma once

#include <string>
#include <string_view>

#include "import/common.h"
#include "import/input_reader.h"

namespace fabdiag {

/// Reads perfquery text: "# <kind> counters: Lid <lid> port <n> (CapMask: ...)" headers, each
/// followed by "Name:.....value" lines. Every header opens a block for device
/// "lid <lid> port <n>" (group ib_port_counters, IBTA names such as SymbolErrorCounter, which
/// the knowledge base maps to the sysfs names, widths and the x4 of PortXmitData/PortRcvData).
/// A block of the same kind for the same port seen again (a later run, "###" sections or not)
/// is the next snapshot of that series. Not counters: PortSelect, CounterSelect, CounterSelect2
/// and the CapMask of the header. Port 255 (perfquery -a, all ports summed) is not a port: its
/// values go to facts.aggregates. Values: decimal, 0x-hex, "2779 (2.779K)" (the exact number
/// is used), or only "(2.779K)" (used as an approximate value, with a note). Extended blocks
/// have 64-bit data counters; basic ones 32-bit (saturating) unless a value exceeds 2^32 - 1.
/// A value line outside any block, or a value that is not a number, is a kParse gap.
/// Errors: kParse when there is no header at all.
/// Streams `lines` (memory: the ports and snapshots kept, never the input); gaps of one kind past
/// `limits.max_listed` are summarised.
Result<CounterImport> import_perfquery(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory, with the default limits.
Result<CounterImport> import_perfquery(std::string_view text, const std::string& source);

/// Parses a perfquery value: "36298026860928", "0x0000", "2779 (2.779K)" -> exact; "(2.779K)"
/// -> 2779 with approximate = true. nullopt for anything else.
std::optional<uint64_t> parse_perfquery_value(std::string_view text, bool& approximate);

}  // namespace fabdiag
