// Import of syslog / journal / dmesg lines of carrier loss into the counter model: each
// interface's count of link-down events (a link flap signal next to link_down_events_phy).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "import/common.h"
#include "import/input_reader.h"

namespace fabdiag {

/// Counts carrier-loss lines per interface. A line counts when it holds (case-insensitive)
/// "NIC Link is Down" (ice, i40e, e1000e, bnxt_en), "Link is Down" (tg3, ...), "Link down"
/// (mlx5_core) or "lost carrier" (IPoIB, systemd-networkd); "Link is Up" and the like never do.
/// The interface is the word before the phrase ("enp59s0f0: NIC Link is Down" -> enp59s0f0;
/// "e1000e: eth0 NIC Link is Down" -> eth0), a PCI address when the driver names no netdev.
/// Timestamps understood: "Jan 10 12:00:01" (syslog; the year is not known, so only times within
/// the log compare), ISO 8601 ("2024-01-10T12:00:01.123+00:00", journalctl -o short-iso), dmesg
/// "[12345.678901]" (seconds since boot) and dmesg -T "[Wed Jan 10 12:00:01 2024]".
/// One flap is counted once: a loss line from another logger (syslog tag: "kernel",
/// "systemd-networkd", "NetworkManager"; dmesg lines are the kernel's) within 10 s of the last
/// counted loss of the interface, with no link-up line between, is the same event (the kernel's
/// "NIC Link is Down" and systemd-networkd's "Lost carrier"), and so is the same logger repeating
/// the line within 1 s with no link-up between (a driver printing it twice). Every other loss
/// line is a new event: one driver's "Link is Down" lines 4 s apart are two flaps.
/// Result: one snapshot, group log_events, per interface "carrier_lost_events" (the count) and,
/// when every event has a timestamp, "carrier_lost_events_max_24h" (most events within any 24 h;
/// Azure NHC fails at >= 5). facts.interfaces gives first/last event and the span. Other lines
/// are ignored; a log without carrier loss is a valid, healthy input. Streamed: memory is the
/// interfaces' event times (at most 65,536 per interface; past that the 24 h count is "at least").
/// Errors: kParse when the text holds no line at all, or when no line looks logged (no
/// timestamp, no "<6>" priority, no "kernel:" / "proc[pid]:" tag, no carrier-loss message) or
/// it is binary (NUL bytes) with most lines not logged: "expected syslog, journal or dmesg
/// lines ..." naming "SOURCE:LINE" of the first such line.
Result<CounterImport> import_syslog(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory, with the default limits.
Result<CounterImport> import_syslog(std::string_view text, const std::string& source);

/// Seconds of a log line's timestamp on a scale that only compares within one log (see above),
/// nullopt when the line starts with none of the forms.
std::optional<double> log_line_time_s(std::string_view line);

}  // namespace fabdiag
