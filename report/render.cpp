#include "report/render.h"
#include "report/render_pieces.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <sstream>

#include "core/run_cut.h"
#include "core/text.h"
#include "report/evidence_text.h"
#include "report/html.h"
#include "report/humanize.h"
#include "report/junit.h"
#include "report/nccl_tests_table.h"

namespace fabdiag {

std::optional<Format> parse_format(const std::string& s) {
  if (s == "table") return Format::kTable;
  if (s == "json") return Format::kJson;
  if (s == "md" || s == "markdown") return Format::kMarkdown;
  if (s == "html") return Format::kHtml;
  if (s == "junit") return Format::kJunit;
  if (s == "nccl-tests") return Format::kNcclTests;
  return std::nullopt;
}

namespace {

// Display width of a UTF-8 string (counts code points; our strings use no wide glyphs).
size_t display_width(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::string pad(const std::string& s, size_t width, Align a) {
  size_t w = display_width(s);
  if (w >= width) return s;
  std::string fill(width - w, ' ');
  return a == Align::kRight ? fill + s : s + fill;
}

bool is_space(char c) {  // what `istream >> word` splits on in the classic locale
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// Greedy word wrap to `width` columns with `indent` on continuation lines.
std::string wrap(const std::string& text, size_t width, const std::string& indent) {
  std::string line, out;
  size_t line_w = 0;  // display_width(line), kept as words are added
  const size_t indent_w = display_width(indent);
  for (size_t i = 0, n = text.size();;) {
    while (i < n && is_space(text[i])) ++i;
    if (i >= n) break;
    size_t j = i;
    while (j < n && !is_space(text[j])) ++j;
    std::string_view word(text.data() + i, j - i);
    const size_t word_w = display_width(word);
    if (!line.empty() && line_w + 1 + word_w > width) {
      out += line;
      out += '\n';
      line.assign(indent).append(word);
      line_w = indent_w + word_w;
    } else {
      if (!line.empty() && line != indent) {
        line += ' ';
        ++line_w;
      }
      line.append(word);
      line_w += word_w;
    }
    i = j;
  }
  out += line;
  return out;
}

std::vector<const Finding*> sorted_findings(const Envelope& env) {
  std::vector<const Finding*> v;
  for (const auto& f : env.findings) v.push_back(&f);
  std::stable_sort(v.begin(), v.end(),
                   [](const Finding* a, const Finding* b) { return a->severity > b->severity; });
  return v;
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// What must stay on one line in the table and Markdown renderers (a table cell, a field, a
// finding, its evidence and action, an error) shows its control characters, newline, tab and CR
// included, as \xNN: a file name "a\nb" never splits a row. Free lines (Section::lines,
// Table::notes) keep their newlines and tabs.

// True when `s` holds a control character (C0, newline, tab and CR included, or DEL).
bool has_line_controls(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char ch) {
    auto c = static_cast<unsigned char>(ch);
    return c < 0x20 || c == 0x7f;
  });
}

// True when `s` holds a byte that escape_controls() writes as \xNN (a control character other
// than newline and tab, or DEL).
bool has_controls_but_lines(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f;
  });
}

// `s` on one line: every control character as \xNN ("a\nb.txt" -> "a\x0ab.txt"), as
// escape_controls() (core/text.h) writes the others; the whole output goes through that after.
std::string escape_line_controls(std::string_view s) {
  if (!has_line_controls(s)) return std::string(s);
  std::string out;
  for (char c : escape_controls(s)) {  // all but newline and tab
    if (c == '\n') out += "\\x0a";
    else if (c == '\t') out += "\\x09";
    else out += c;
  }
  return out;
}

// `t` when no cell, column or title holds a control character; else a copy of it with them
// as \xNN in `scratch` (a newline in a file or host name must not start a new table row, a tab
// or CR must not shift the columns). Notes are free lines and keep theirs.
const Table& one_line_cells(const Table& t, Table& scratch) {
  auto any = [](const std::vector<std::string>& cells) {
    return std::any_of(cells.begin(), cells.end(), [](const std::string& c) { return has_line_controls(c); });
  };
  bool needed = has_line_controls(t.title) || any(t.columns);
  for (size_t i = 0; i < t.rows.size() && !needed; ++i) needed = any(t.rows[i]);
  if (!needed) return t;
  scratch = t;
  scratch.title = escape_line_controls(scratch.title);
  for (auto& c : scratch.columns) c = escape_line_controls(c);
  for (auto& r : scratch.rows)
    for (auto& c : r) c = escape_line_controls(c);
  return scratch;
}

// Text written in pieces: appended to `buf`, handed to the drain when a row or line ends past
// kPieceBytes (a counter table of 6,700 rows never becomes one 600 KB string: no doubling
// growth, no copy at the end).
class Pieces {
 public:
  explicit Pieces(const TextDrain& drain) : drain_(drain) { buf.reserve(kPieceBytes + 4096); }
  Pieces(const Pieces&) = delete;
  Pieces& operator=(const Pieces&) = delete;
  Pieces& operator<<(std::string_view s) {
    buf.append(s);
    return *this;
  }
  Pieces& operator<<(char c) {
    buf += c;
    return *this;
  }
  Pieces& operator<<(size_t n) { return *this << std::string_view(std::to_string(n)); }
  /// Hands the text over when it has grown past a piece (call at the end of a row or line).
  void line_done() {
    if (buf.size() >= kPieceBytes) drain_(buf);
  }
  /// Hands over what is left.
  void finish() {
    if (!buf.empty()) drain_(buf);
  }
  std::string buf;

 private:
  static constexpr size_t kPieceBytes = 256 * 1024;
  const TextDrain& drain_;
};

void render_text_table(Pieces& out, const Table& table) {
  Table scratch;
  const Table& t = one_line_cells(table, scratch);
  if (!t.title.empty()) out << t.title << "\n";
  size_t ncol = t.columns.size();
  for (const auto& r : t.rows) ncol = std::max(ncol, r.size());
  std::vector<size_t> w(ncol, 0);
  for (size_t i = 0; i < t.columns.size(); ++i) w[i] = display_width(t.columns[i]);
  for (const auto& r : t.rows)
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], display_width(r[i]));
  auto align = [&](size_t i) { return i < t.align.size() ? t.align[i] : Align::kLeft; };
  auto emit_row = [&](const std::vector<std::string>& cells) {
    std::string& line = out.buf;  // written in place: a counter table has thousands of rows
    const size_t start = line.size();
    for (size_t i = 0; i < ncol; ++i) {
      if (i) line += "  ";
      std::string_view c = i < cells.size() ? std::string_view(cells[i]) : std::string_view();
      const size_t cw = display_width(c);
      const size_t fill = cw >= w[i] ? 0 : w[i] - cw;  // pad()
      if (align(i) == Align::kRight) line.append(fill, ' ');
      line.append(c);
      if (align(i) != Align::kRight) line.append(fill, ' ');
    }
    while (line.size() > start && line.back() == ' ') line.pop_back();
    line += '\n';
    out.line_done();
  };
  if (!t.columns.empty()) emit_row(t.columns);
  for (const auto& r : t.rows) emit_row(r);
  for (const auto& n : t.notes) out << n << '\n';
}

std::string md_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    // '<' as an entity: Markdown viewers render inline HTML, and a host or file name carrying
    // <script> must stay text. No tag opens without '<', so ">= 515" stays as written.
    if (c == '|') o += "\\|";
    else if (c == '<') o += "&lt;";
    else o += c;
  }
  return o;
}

// A Markdown table cell, field value or list item: one line (control characters as \xNN), '|' escaped.
std::string md_cell(const std::string& s) { return md_escape(escape_line_controls(s)); }

}  // namespace

void render_table_to(const Envelope& env, const Document& doc, const TextDrain& drain) {
  Pieces out(drain);
  if (!doc.title.empty()) out << escape_line_controls(doc.title) << "\n\n";
  if (env.partial) out << wrap("PARTIAL: " + cut_text(env.cut), 78, "  ") << "\n\n";
  for (const auto& s : doc.sections) {
    if (!s.title.empty()) out << upper(escape_line_controls(s.title)) << "\n";
    size_t kw = 0;
    for (const auto& [k, v] : s.fields) kw = std::max(kw, display_width(escape_line_controls(k)));
    for (const auto& [k, v] : s.fields)
      out << "  " << pad(escape_line_controls(k) + ":", kw + 1, Align::kLeft) << " " << escape_line_controls(v) << "\n";
    for (const auto& t : s.tables) {
      render_text_table(out, t);
    }
    for (const auto& l : s.lines) {
      out << l << "\n";
      out.line_done();
    }
    out << "\n";
  }
  auto fs = sorted_findings(env);
  if (fs.empty()) {
    out << "FINDINGS\n  none\n";
  } else {
    out << "FINDINGS (" << fs.size() << ")\n";
    for (const Finding* f : fs) {
      std::string head = upper(to_string(f->severity)) + " " + to_string(f->layer) + " " +
                         f->code + " " + f->subject + ": " + f->message;
      out << "  " << wrap(escape_line_controls(head), 76, "      ") << "\n";
      for (const auto& e : f->evidence)
        out << "      - " << wrap(escape_line_controls(evidence_text(e)), 70, "        ") << "\n";
      if (!f->action.empty()) out << "      -> " << wrap(escape_line_controls(f->action), 70, "         ") << "\n";
      out.line_done();
    }
  }
  if (!env.errors.empty()) {
    out << "\nNOT READ (" << env.errors.size() << "; the result above is partial)\n";
    for (const auto& e : env.errors) out << "  " << wrap(escape_line_controls(e.to_string()), 76, "    ") << "\n";
  }
  out.finish();
}

void render_table_escaped_to(const Envelope& env, const Document& doc, const TextDrain& drain) {
  render_table_to(env, doc, [&](std::string& piece) {
    if (has_controls_but_lines(piece)) piece = escape_controls(piece);
    drain(piece);
  });
}

std::string render_table(const Envelope& env, const Document& doc) {
  std::string text;
  render_table_to(env, doc, [&](std::string& piece) {
    text += piece;
    piece.clear();
  });
  return text;
}

std::string render_markdown(const Envelope& env, const Document& doc) {
  std::ostringstream out;
  if (!doc.title.empty()) out << "# " << md_cell(doc.title) << "\n\n";
  if (env.partial) out << "**PARTIAL:** " << md_escape(cut_text(env.cut)) << "\n\n";
  for (const auto& s : doc.sections) {
    if (!s.title.empty()) out << "## " << md_cell(s.title) << "\n\n";
    for (const auto& [k, v] : s.fields) out << "- **" << md_cell(k) << "**: " << md_cell(v) << "\n";
    if (!s.fields.empty()) out << "\n";
    for (const auto& t : s.tables) {
      if (!t.title.empty()) out << "**" << md_cell(t.title) << "**\n\n";
      size_t ncol = t.columns.size();
      out << "|";
      for (const auto& c : t.columns) out << " " << md_cell(c) << " |";
      out << "\n|";
      for (size_t i = 0; i < ncol; ++i)
        out << ((i < t.align.size() && t.align[i] == Align::kRight) ? " ---: |" : " --- |");
      out << "\n";
      for (const auto& r : t.rows) {
        out << "|";
        for (size_t i = 0; i < ncol; ++i) out << " " << md_cell(i < r.size() ? r[i] : "") << " |";
        out << "\n";
      }
      out << "\n";
      for (const auto& n : t.notes) out << n << "  \n";
      if (!t.notes.empty()) out << "\n";
    }
    if (!s.lines.empty()) {
      out << "```\n";
      for (const auto& l : s.lines) out << l << "\n";
      out << "```\n\n";
    }
  }
  out << "## Findings\n\n";
  auto fs = sorted_findings(env);
  if (fs.empty()) out << "None.\n";
  for (const Finding* f : fs) {
    out << "- **" << to_string(f->severity) << "** " << to_string(f->layer) << " `" << f->code
        << "` " << md_cell(f->subject) << ": " << md_cell(f->message) << "\n";
    for (const auto& e : f->evidence) out << "  - " << md_cell(evidence_text(e)) << "\n";
    if (!f->action.empty()) out << "  - next: " << md_cell(f->action) << "\n";
  }
  if (!env.errors.empty()) {
    out << "\n## Not read (partial result)\n\n";
    for (const auto& e : env.errors) out << "- " << md_cell(e.to_string()) << "\n";
  }
  return out.str();
}

namespace {

// Pieces of about this size leave a streamed document (render_json_to): small enough that the
// buffer stays in the cache and its pages are touched once, large enough to be few writes.
constexpr size_t kDrainBytes = 256 << 10;

// `data` with the streamed members (or, when `drain` is given, the streamed arrays, drained
// after each element) merged in key order (std::map order, as nlohmann's object keeps them),
// written where the serializer would write env.data.
void dump_data(std::string& out, const Envelope& env, const std::vector<StreamedMember>& streamed,
               const std::vector<StreamedArray>& arrays, const TextDrain* drain, int indent,
               unsigned current_indent) {
  std::map<std::string_view, std::pair<const StreamedMember*, const StreamedArray*>> by_key;
  for (const auto& m : streamed) by_key[m.key] = {&m, nullptr};
  for (const auto& a : arrays) by_key[a.key] = {nullptr, &a};
  for (const auto& [key, value] : env.data.items()) by_key.emplace(key, std::pair{nullptr, nullptr});
  JsonWriter w(out, indent, current_indent);
  w.begin_object();
  for (const auto& [key, member] : by_key) {
    w.key(key);
    if (member.first) {
      member.first->write(w);
    } else if (member.second) {
      w.begin_array();
      member.second->elements(w, [&] {
        if (drain && out.size() >= kDrainBytes) (*drain)(out);
      });
      w.end_array();
    } else {
      w.tree(env.data.at(std::string(key)));
    }
  }
  w.end_object();
}

// Serialises `env` as nlohmann's dump(indent) would serialise `nlohmann::json(env)`, byte for
// byte, without copying env.data (often most of the document: 3 MB for a counter snapshot of 8
// NICs) into a second tree first: the envelope's other members are converted, and data is
// written in its sorted place by the library's own serializer (nlohmann::detail::serializer,
// what json::dump itself uses), with `streamed` members by their writers. indent < 0: one line.
// Invalid UTF-8 (a Latin-1 host name, a garbled sysfs string) is replaced instead of throwing:
// one bad byte must not cost the whole result.
// `arrays` and `drain` (render_json_to): the text leaves in pieces; the last one stays in the
// returned string.
std::string dump_envelope(const Envelope& env, int indent, const std::vector<StreamedMember>& streamed = {},
                          const std::vector<StreamedArray>& arrays = {}, const TextDrain* drain = nullptr) {
  nlohmann::json j = envelope_json_without_data(env);
  const bool pretty = indent >= 0;
  const auto step = static_cast<unsigned>(pretty ? indent : 0);
  std::string out;
  size_t hinted = 0;
  for (const auto& m : streamed) hinted += m.size_hint;
  if (hinted > 0) out.reserve(hinted + (64 << 10));  // and the rest of the envelope
  nlohmann::detail::serializer<nlohmann::json> s(
      nlohmann::detail::output_adapter<char, std::string>(out), ' ',
      nlohmann::json::error_handler_t::replace);
  out += pretty ? "{\n" : "{";
  bool first = true;
  for (const auto& [key, value] : j.items()) {
    if (!first) out += pretty ? ",\n" : ",";
    first = false;
    if (pretty) out.append(step, ' ');
    out += '"';
    out += key;  // our own ASCII member names: nothing to escape
    out += pretty ? "\": " : "\":";
    if (key == "data" && (!streamed.empty() || !arrays.empty()))
      dump_data(out, env, streamed, arrays, drain, indent, step);
    else
      s.dump(key == "data" ? env.data : value, pretty, false, step, step);
    if (drain && out.size() >= kDrainBytes) (*drain)(out);
  }
  out += pretty ? "\n}\n" : "}\n";
  return out;
}

}  // namespace

std::string render_json(const Envelope& env) { return dump_envelope(env, 2); }

std::string render_json(const Envelope& env, const std::vector<StreamedMember>& streamed) {
  return dump_envelope(env, 2, streamed);
}

void render_json_to(const Envelope& env, const std::vector<StreamedArray>& arrays, const TextDrain& drain) {
  std::string rest = dump_envelope(env, 2, {}, arrays, &drain);
  drain(rest);
}

std::string render_json_line(const Envelope& env) { return dump_envelope(env, -1); }

namespace {

// escape_controls(text) without its copy when no byte needs escaping, the usual case (a counter
// table is 600 KB). The bytes escape_controls() escapes: C0 controls but newline and tab, DEL.
std::string controls_escaped(std::string text) {
  if (!has_controls_but_lines(text)) return text;  // moved, not copied
  return escape_controls(text);
}

}  // namespace

std::string render(Format format, const Envelope& env, const Document& doc) {
  switch (format) {
    // Input text (file names, log lines, device names) reaches these verbatim: no escape
    // sequence of it gets to the terminal. JSON escapes control characters itself.
    case Format::kTable: return controls_escaped(render_table(env, doc));
    case Format::kJson: return render_json(env);
    case Format::kMarkdown: return controls_escaped(render_markdown(env, doc));
    // Escaped for XML (report/xml_escape.h), control characters included.
    case Format::kHtml: return render_html(model_of(env), doc.title.empty() ? "fabdiag " + env.schema : doc.title, &doc);
    case Format::kJunit: return render_junit(model_of(env));
    case Format::kNcclTests:
      if (env.schema != "fabdiag.bench/1") return controls_escaped(render_table(env, doc));
      return render_nccl_tests(env);
  }
  return render_json(env);
}

}  // namespace fabdiag
