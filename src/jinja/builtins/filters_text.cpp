// Text filters: case, padding, trimming, escaping, replace/truncate/indent/wordwrap, numbers as text, format.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "jinja/builtins/filters_impl.hpp"
#include "value/json.hpp"
#include "value/pyformat.hpp"
#include "value/pystr.hpp"
#include "value/unicode.hpp"

namespace toolchat::jinja::fimpl {

namespace {

bool is_word_char(char32_t c) { return c == '_' || uni::is_alnum(c); }

}  // namespace

// ---- case ----

Value f_upper(Renderer&, const Value& v, CallArgs& a) {
  no_args("do_upper", a, "s");
  return str_value(pystr::upper(soft_str(v)), v.is_markup());
}

Value f_lower(Renderer&, const Value& v, CallArgs& a) {
  no_args("do_lower", a, "s");
  return str_value(pystr::lower(soft_str(v)), v.is_markup());
}

Value f_capitalize(Renderer&, const Value& v, CallArgs& a) {
  no_args("do_capitalize", a, "s");
  return str_value(pystr::capitalize(soft_str(v)), v.is_markup());
}

Value f_title(Renderer&, const Value& v, CallArgs& a) {
  no_args("do_title", a, "s");
  // Segments split at runs of [-\s({\[<]; each segment: first code point upper, rest lower.
  std::string s = soft_str(v);
  std::string out;
  out.reserve(s.size());
  auto is_sep = [](char32_t c) {
    return c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || uni::is_space(c);
  };
  size_t i = 0;
  while (i < s.size()) {
    size_t start = i;
    size_t j = i;
    char32_t c = uni::decode_next(s, j);
    bool sep = is_sep(c);
    size_t end = j;
    while (end < s.size()) {
      size_t k = end;
      char32_t d = uni::decode_next(s, k);
      if (is_sep(d) != sep) break;
      end = k;
    }
    out += pystr::upper(std::string_view(s).substr(start, j - start));
    out += pystr::lower(std::string_view(s).substr(j, end - j));
    i = end;
  }
  return Value::string(std::move(out));
}

// ---- padding, trimming ----

Value f_center(Renderer& r, const Value& v, CallArgs& a) {
  reject_implicit("do_center", a, {"value"});
  ArgBinder b("do_center", a, {"width"}, 0, 1);
  int64_t width = b.has(0) ? as_index(b.get(0)) : 80;
  std::string s = soft_str(v);
  if (width > 0) check_size(r, static_cast<size_t>(width) + s.size(), "center");
  return str_value(pystr::center(s, width), v.is_markup());
}

namespace {
// ASCII bytes str.isspace() accepts: \t \n \v \f \r, \x1c-\x1f and space.
inline bool ascii_space(unsigned char c) { return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f); }
}  // namespace

Value f_trim(Renderer&, const Value& v, CallArgs& a) {
  if (v.is_str() && a.pos.empty() && a.kw.empty()) {
    // str.strip() of a string whose stripped ends are ASCII: no copies, and the same
    // string object back when there is nothing to strip.
    std::string_view s = v.str();
    size_t b = 0, e = s.size();
    while (b < e && ascii_space(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && ascii_space(static_cast<unsigned char>(s[e - 1]))) --e;
    bool ascii_ends = (b == e) || (static_cast<unsigned char>(s[b]) < 0x80 && static_cast<unsigned char>(s[e - 1]) < 0x80);
    if (ascii_ends) {
      if (b == 0 && e == s.size()) return v;
      return str_value(s.substr(b, e - b), v.is_markup());
    }
  }
  reject_implicit("do_trim", a, {"value"});
  ArgBinder b("do_trim", a, {"chars"}, 0, 1);
  std::string s = soft_str(v);
  if (b.has(0) && !b.get(0).is_none()) {
    if (!b.get(0).is_str()) type_error("strip arg must be None or str");
    return str_value(pystr::strip_view(s, std::string_view(b.get(0).str())), v.is_markup());
  }
  return str_value(pystr::strip_view(s), v.is_markup());
}

// ---- escaping ----

Value f_escape(Renderer&, const Value& v, CallArgs& a) {
  no_args("escape", a, "s");
  return escape_value(v);
}

Value f_forceescape(Renderer&, const Value& v, CallArgs& a) {
  no_args("do_forceescape", a, "value");
  return Value::markup(html_escape(soft_str(v)));
}

Value f_safe(Renderer&, const Value& v, CallArgs& a) {
  no_args("do_mark_safe", a, "value");
  if (v.is_markup()) return v;
  return Value::markup(soft_str(v));
}

Value f_string(Renderer& r, const Value& v, CallArgs& a) {
  for (const auto& kw : a.kw)
    if (kw.first == "s")
      type_error("soft_str() got some positional-only arguments passed as keyword arguments: 's'");
  no_args("soft_str", a, "s");
  if (v.is_str()) return v;
  std::string out = soft_str(v);
  r.charge(out.size() / 2);  // serializing: a few steps per value printed
  return Value::string(std::move(out));
}

namespace {

// html.unescape for the common entities (named: the HTML 4 core set used in practice).
std::string html_unescape(std::string_view s) {
  static const std::pair<const char*, const char*> kNamed[] = {
      {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"}, {"nbsp", "\xC2\xA0"},
      {"copy", "\xC2\xA9"}, {"reg", "\xC2\xAE"}, {"laquo", "\xC2\xAB"}, {"raquo", "\xC2\xBB"},
      {"hellip", "\xE2\x80\xA6"}, {"mdash", "\xE2\x80\x94"}, {"ndash", "\xE2\x80\x93"},
      {"lsquo", "\xE2\x80\x98"}, {"rsquo", "\xE2\x80\x99"}, {"ldquo", "\xE2\x80\x9C"},
      {"rdquo", "\xE2\x80\x9D"}, {"euro", "\xE2\x82\xAC"}, {"middot", "\xC2\xB7"}, {"bull", "\xE2\x80\xA2"},
      {"AMP", "&"}, {"LT", "<"}, {"GT", ">"}, {"QUOT", "\""}, {"COPY", "\xC2\xA9"}, {"REG", "\xC2\xAE"},
      {"notin", "\xE2\x88\x89"},
      {"trade", "\xE2\x84\xA2"}, {"times", "\xC3\x97"}, {"divide", "\xC3\xB7"}, {"deg", "\xC2\xB0"},
  };
  // HTML 4 Latin-1 entities, U+00A0 .. U+00FF in order.
  static const char* const kLatin1[96] = {
      "nbsp", "iexcl", "cent", "pound", "curren", "yen", "brvbar", "sect", "uml", "copy", "ordf", "laquo",
      "not", "shy", "reg", "macr", "deg", "plusmn", "sup2", "sup3", "acute", "micro", "para", "middot",
      "cedil", "sup1", "ordm", "raquo", "frac14", "frac12", "frac34", "iquest", "Agrave", "Aacute", "Acirc",
      "Atilde", "Auml", "Aring", "AElig", "Ccedil", "Egrave", "Eacute", "Ecirc", "Euml", "Igrave", "Iacute",
      "Icirc", "Iuml", "ETH", "Ntilde", "Ograve", "Oacute", "Ocirc", "Otilde", "Ouml", "times", "Oslash",
      "Ugrave", "Uacute", "Ucirc", "Uuml", "Yacute", "THORN", "szlig", "agrave", "aacute", "acirc", "atilde",
      "auml", "aring", "aelig", "ccedil", "egrave", "eacute", "ecirc", "euml", "igrave", "iacute", "icirc",
      "iuml", "eth", "ntilde", "ograve", "oacute", "ocirc", "otilde", "ouml", "divide", "oslash", "ugrave",
      "uacute", "ucirc", "uuml", "yacute", "thorn", "yuml"};
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] != '&') { out += s[i++]; continue; }
    if (s.compare(i + 1, 6, "notin;") == 0) { out += "\xE2\x88\x89"; i += 7; continue; }
    {
      // Latin-1 names: the longest one that matches (with or without ';')
      size_t best = 0;
      int best_idx = -1;
      for (int k = 0; k < 96; ++k) {
        size_t n = std::strlen(kLatin1[k]);
        if (n > best && s.compare(i + 1, n, kLatin1[k]) == 0) { best = n; best_idx = k; }
      }
      if (best_idx >= 0) {
        size_t k = i + 1 + best;
        bool semi = k < s.size() && s[k] == ';';
        uni::append_utf8(out, static_cast<char32_t>(0xA0 + best_idx));
        i = semi ? k + 1 : k;
        continue;
      }
    }
    size_t j = i + 1;
    if (j < s.size() && s[j] == '#') {
      size_t k = j + 1;
      bool hex = k < s.size() && (s[k] == 'x' || s[k] == 'X');
      if (hex) ++k;
      size_t ds = k;
      uint64_t cp = 0;
      while (k < s.size() && (hex ? std::isxdigit(static_cast<unsigned char>(s[k])) : std::isdigit(static_cast<unsigned char>(s[k])))) {
        if (cp < 0x1000000) cp = cp * (hex ? 16 : 10) + static_cast<uint64_t>(std::isdigit(static_cast<unsigned char>(s[k])) ? s[k] - '0' : (std::tolower(s[k]) - 'a' + 10));
        ++k;
      }
      if (k > ds) {
        if (k < s.size() && s[k] == ';') ++k;
        if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) cp = 0xFFFD;
        else if (cp >= 0x80 && cp <= 0x9F) {
          static const char32_t kCp1252[32] = {0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
                                               0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
                                               0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
                                               0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178};
          cp = kCp1252[cp - 0x80];
        }
        uni::append_utf8(out, static_cast<char32_t>(cp));
        i = k;
        continue;
      }
      out += s[i++];
      continue;
    }
    bool done = false;
    for (const auto& [name, rep] : kNamed) {
      size_t n = std::strlen(name);
      if (s.substr(j, n) == name) {
        size_t k = j + n;
        if (k < s.size() && s[k] == ';') ++k;
        out += rep;
        i = k;
        done = true;
        break;
      }
    }
    if (!done) out += s[i++];
  }
  return out;
}

}  // namespace

Value f_striptags(Renderer& r, const Value& v, CallArgs& a) {
  no_args("do_striptags", a, "value");
  std::string s = soft_str(v);
  r.charge(s.size() / 64 + 1);
  std::string value;
  value.reserve(s.size());
  // comments first, then tags (each removal restarts the search like markupsafe does;
  // a single left-to-right pass is equivalent)
  {
    size_t pos = 0;
    std::string tmp;
    while (true) {
      size_t start = s.find("<!--", pos);
      if (start == std::string::npos) break;
      size_t end = s.find("-->", start);
      if (end == std::string::npos) break;
      tmp.append(s, pos, start - pos);
      pos = end + 3;
    }
    tmp.append(s, pos, std::string::npos);
    s.swap(tmp);
  }
  {
    size_t pos = 0;
    while (true) {
      size_t start = s.find('<', pos);
      if (start == std::string::npos) break;
      size_t end = s.find('>', start);
      if (end == std::string::npos) break;
      value.append(s, pos, start - pos);
      pos = end + 1;
    }
    value.append(s, pos, std::string::npos);
  }
  std::vector<std::string> words = pystr::split(value);
  return Value::string(html_unescape(pystr::join(" ", words)));
}

// ---- replace / truncate / indent / wordwrap ----

Value f_replace(Renderer& r, const Value& v, CallArgs& a) {
  reject_implicit("do_replace", a, {"eval_ctx", "s"});
  ArgBinder b("do_replace", a, {"old", "new", "count"}, 2, 2);
  std::string s = soft_str(v);
  std::string old = soft_str(b.get(0));
  std::string neu = soft_str(b.get(1));
  int64_t count = -1;
  if (b.has(2) && !b.get(2).is_none()) count = as_index(b.get(2));
  if (neu.size() > old.size()) {
    int64_t n = old.empty() ? pystr::length(s) + 1 : pystr::count(s, old);
    if (count >= 0 && count < n) n = count;
    check_size(r, s.size() + static_cast<size_t>(n) * (neu.size() - old.size()), "replace");
  }
  r.charge(s.size() / 64 + 1);
  return Value::string(pystr::replace(s, old, neu, count));
}

Value f_truncate(Renderer&, const Value& v, CallArgs& a) {
  reject_implicit("do_truncate", a, {"env", "s"});
  ArgBinder b("do_truncate", a, {"length", "killwords", "end", "leeway"}, 0, 2);
  Value length = b.get_or(0, Value::integer(255));
  bool killwords = b.has(1) && truthy(b.get(1));
  Value end = b.get_or(2, Value::string("..."));
  Value leeway = b.has(3) && !b.get(3).is_none() ? b.get(3) : Value::integer(5);
  int64_t end_len = py_len(end);
  if (!length.is_number())
    type_error(std::string("'>=' not supported between instances of '") + type_name(length) + "' and 'int'");
  if (length.to_double() < static_cast<double>(end_len))
    throw Error(kAssertionError, "expected length >= " + std::to_string(end_len) + ", got " + py_str(length));
  if (!leeway.is_number())
    type_error(std::string("'>=' not supported between instances of '") + type_name(leeway) + "' and 'int'");
  if (leeway.to_double() < 0) throw Error(kAssertionError, "expected leeway >= 0, got " + py_str(leeway));
  int64_t n = py_len(v);
  if (static_cast<double>(n) <= length.to_double() + leeway.to_double()) return v;
  if (!(length.is_int() || length.is_bool()))
    type_error("slice indices must be integers or None or have an __index__ method");
  int64_t cut = length.int_like() - end_len;
  if (!v.is_str()) {
    if (v.is_list() && killwords)
      type_error(std::string("can only concatenate ") + type_name(v) + " (not \"" + type_name(end) + "\") to " + type_name(v));
    attr_error(v, "rsplit");
  }
  if (!end.is_str()) type_error(std::string("can only concatenate str (not \"") + type_name(end) + "\") to str");
  std::string head = pystr::slice(v.str(), std::nullopt, cut);
  if (!killwords) {
    auto parts = pystr::rsplit(head, std::string_view(" "), 1);
    head = parts.empty() ? std::string() : parts[0];
  }
  if (v.is_markup()) {
    if (end.is_markup()) head += end.str();
    else head += html_escape(end.str());
    return Value::markup(head);
  }
  head += end.str();
  return Value::string(head);
}

Value f_indent(Renderer& r, const Value& v, CallArgs& a) {
  reject_implicit("do_indent", a, {"s"});
  ArgBinder b("do_indent", a, {"width", "first", "blank"}, 0, 1);
  if (v.is_undefined()) raise_undefined(v);
  if (!v.is_str()) {
    if (v.is_list() && v.list_obj().lkind == ListKind::List) attr_error(v, "splitlines");
    if (v.is_list() && v.list_obj().lkind == ListKind::Tuple)
      type_error("can only concatenate tuple (not \"str\") to tuple");
    type_error(std::string("unsupported operand type(s) for +=: '") + type_name(v) + "' and 'str'");
  }
  std::string indention;
  if (b.has(0) && b.get(0).is_str()) {
    indention = b.get(0).str();
  } else if (b.has(0)) {
    const Value& w = b.get(0);
    if (w.is_undefined()) raise_undefined(w);
    if (!(w.is_int() || w.is_bool()))
      type_error(std::string("can't multiply sequence by non-int of type '") + type_name(w) + "'");
    int64_t n = w.int_like();
    if (n > 0) {
      check_size(r, static_cast<size_t>(n), "indent");
      indention.assign(static_cast<size_t>(n), ' ');
    }
  } else {
    indention = "    ";
  }
  bool first = b.has(1) && truthy(b.get(1));
  bool blank = b.has(2) && truthy(b.get(2));
  std::string s(v.str());
  s += '\n';
  std::vector<std::string> lines = pystr::splitlines(s);
  size_t est = s.size() + lines.size() * (indention.size() + 1);
  check_size(r, est, "indent");
  r.charge(lines.size() + 1);
  std::string rv;
  if (blank) {
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i) { rv += '\n'; rv += indention; }
      rv += lines[i];
    }
  } else {
    rv = lines.empty() ? std::string() : lines[0];
    for (size_t i = 1; i < lines.size(); ++i) {
      rv += '\n';
      if (!lines[i].empty()) rv += indention;
      rv += lines[i];
    }
  }
  if (first) rv = indention + rv;
  return str_value(std::move(rv), v.is_markup());
}

namespace {

// textwrap.TextWrapper chunking (wordsep_re / wordsep_simple_re) on code points.
bool tw_space(char32_t c) { return c == '\t' || c == '\n' || c == 0x0b || c == 0x0c || c == '\r' || c == ' '; }
bool tw_letter(char32_t c) { return is_word_char(c) && !uni::is_decimal(c); }
bool tw_wordpunct(char32_t c) {
  return is_word_char(c) || c == '!' || c == '"' || c == '\'' || c == '&' || c == '.' || c == ',' || c == '?';
}

std::vector<std::u32string> tw_split(const std::u32string& t, bool hyphens) {
  std::vector<std::u32string> chunks;
  size_t n = t.size(), p = 0;
  auto at = [&](size_t i) -> char32_t { return i < n ? t[i] : 0; };
  auto dashes_then_word = [&](size_t i) {
    size_t k = i;
    while (k < n && t[k] == '-') ++k;
    return k - i >= 2 && k < n && is_word_char(t[k]);
  };
  while (p < n) {
    size_t q;
    if (tw_space(t[p])) {
      q = p;
      while (q < n && tw_space(t[q])) ++q;
    } else if (!hyphens) {
      q = p;
      while (q < n && !tw_space(t[q])) ++q;
    } else if (t[p] == '-' && p > 0 && tw_wordpunct(t[p - 1]) && dashes_then_word(p)) {
      q = p;
      while (q < n && t[q] == '-') ++q;
    } else {
      q = n;
      for (size_t len = 1; p + len <= n && !tw_space(t[p + len - 1]); ++len) {
        size_t e = p + len;  // chunk t[p, e)
        // hyphenated word: t[e] == '-' with letter context
        if (at(e) == '-') {
          bool behind = (e >= 2 && tw_letter(at(e - 1)) && tw_letter(at(e - 2))) ||
                        (e >= 3 && tw_letter(at(e - 1)) && at(e - 2) == '-' && tw_letter(at(e - 3)));
          // (?<=lt{2}-) is checked at e+1: chars e-1, e-2 letters; (?<=lt-lt-): e-1 letter, e-2 '-', e-3 letter
          size_t k = e + 1;
          bool ahead = false;
          if (tw_letter(at(k))) {
            if (tw_letter(at(k + 1))) ahead = true;
            else if (at(k + 1) == '-' && tw_letter(at(k + 2))) ahead = true;
          }
          if (behind && ahead) { q = e + 1; break; }
        }
        if (e >= n || tw_space(t[e])) { q = e; break; }
        if (tw_wordpunct(t[e - 1]) && dashes_then_word(e)) { q = e; break; }
      }
    }
    chunks.emplace_back(t.substr(p, q - p));
    p = q;
  }
  return chunks;
}

bool blank_chunk(const std::u32string& c) {
  for (char32_t ch : c)
    if (!uni::is_space(ch)) return false;
  return true;
}

std::vector<std::u32string> tw_wrap(const std::u32string& text, int64_t width, bool break_long, bool hyphens) {
  std::vector<std::u32string> chunks = tw_split(text, hyphens);
  std::vector<std::u32string> lines;
  std::reverse(chunks.begin(), chunks.end());
  while (!chunks.empty()) {
    std::vector<std::u32string> cur;
    int64_t cur_len = 0;
    if (blank_chunk(chunks.back()) && !lines.empty()) chunks.pop_back();
    while (!chunks.empty()) {
      int64_t l = static_cast<int64_t>(chunks.back().size());
      if (cur_len + l <= width) {
        cur.push_back(std::move(chunks.back()));
        chunks.pop_back();
        cur_len += l;
      } else {
        break;
      }
    }
    if (!chunks.empty() && static_cast<int64_t>(chunks.back().size()) > width) {
      int64_t space_left = width < 1 ? 1 : width - cur_len;
      if (break_long) {
        int64_t end = space_left;
        std::u32string& chunk = chunks.back();
        if (hyphens && static_cast<int64_t>(chunk.size()) > space_left) {
          int64_t lim = std::min<int64_t>(space_left, static_cast<int64_t>(chunk.size()));
          int64_t hyphen = -1;
          for (int64_t k = lim - 1; k >= 0; --k)
            if (chunk[static_cast<size_t>(k)] == '-') { hyphen = k; break; }
          if (hyphen > 0) {
            bool non = false;
            for (int64_t k = 0; k < hyphen; ++k)
              if (chunk[static_cast<size_t>(k)] != '-') { non = true; break; }
            if (non) end = hyphen + 1;
          }
        }
        size_t e = static_cast<size_t>(std::max<int64_t>(0, std::min<int64_t>(end, static_cast<int64_t>(chunk.size()))));
        cur.push_back(chunk.substr(0, e));
        chunk = chunk.substr(e);
      } else if (cur.empty()) {
        cur.push_back(std::move(chunks.back()));
        chunks.pop_back();
      }
    }
    if (!cur.empty() && blank_chunk(cur.back())) cur.pop_back();
    if (!cur.empty()) {
      std::u32string line;
      for (auto& c : cur) line += c;
      lines.push_back(std::move(line));
    }
  }
  return lines;
}

}  // namespace

Value f_wordwrap(Renderer& r, const Value& v, CallArgs& a) {
  reject_implicit("do_wordwrap", a, {"environment", "s"});
  ArgBinder b("do_wordwrap", a, {"width", "break_long_words", "wrapstring", "break_on_hyphens"}, 0, 2);
  int64_t width = b.has(0) ? as_index(b.get(0)) : 79;
  bool break_long = !b.has(1) || truthy(b.get(1));
  bool hyphens = !b.has(3) || truthy(b.get(3));
  std::string wrapstring = "\n";
  if (b.has(2) && !b.get(2).is_none()) {
    if (!b.get(2).is_str()) attr_error(b.get(2), "join");
    wrapstring = b.get(2).str();
  }
  if (v.is_undefined()) raise_undefined(v);
  if (!v.is_str()) attr_error(v, "splitlines");
  std::vector<std::string> paras = pystr::splitlines(v.str());
  std::string out;
  for (size_t i = 0; i < paras.size(); ++i) {
    if (i) out += wrapstring;
    std::u32string text = uni::decode(paras[i]);
    r.charge(text.size() / 16 + 1);
    if (width <= 0)
      throw Error(ErrorKind::ValueError, "invalid width " + std::to_string(width) + " (must be > 0)");
    auto lines = tw_wrap(text, width, break_long, hyphens);
    for (size_t j = 0; j < lines.size(); ++j) {
      if (j) out += wrapstring;
      out += uni::encode(lines[j]);
    }
    check_size(r, out.size(), "wordwrap");
  }
  return Value::string(std::move(out));
}

Value f_wordcount(Renderer&, const Value& v, CallArgs& a) {
  no_args("do_wordcount", a, "s");
  std::string s = soft_str(v);
  int64_t n = 0;
  bool in = false;
  size_t i = 0;
  while (i < s.size()) {
    char32_t c = uni::decode_next(s, i);
    bool w = is_word_char(c);
    if (w && !in) ++n;
    in = w;
  }
  return Value::integer(n);
}

// ---- numbers as text ----

namespace {
std::string fmt_1f(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.1f", d);
  return buf;
}
}  // namespace

Value f_filesizeformat(Renderer&, const Value& v, CallArgs& a) {
  reject_implicit("do_filesizeformat", a, {"value"});
  ArgBinder b("do_filesizeformat", a, {"binary"}, 0, 1);
  bool binary = b.has(0) && truthy(b.get(0));
  double bytes;
  if (v.is_undefined()) raise_undefined(v);
  if (v.is_number()) {
    bytes = v.to_double();
  } else if (v.is_str()) {
    if (!parse_py_float(v.str(), bytes))
      throw Error(ErrorKind::ValueError, "could not convert string to float: " + string_repr(v.str()));
  } else {
    type_error(std::string("float() argument must be a string or a real number, not '") + type_name(v) + "'");
  }
  double base = binary ? 1024 : 1000;
  static const char* kBin[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
  static const char* kDec[] = {"kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"};
  if (bytes == 1) return Value::string("1 Byte");
  if (bytes < base) {
    if (std::isinf(bytes)) throw Error(ErrorKind::OverflowError, "cannot convert float infinity to integer");
    char buf[400];
    std::snprintf(buf, sizeof buf, "%.0f", std::trunc(bytes) + 0.0);  // int(bytes); + 0.0 drops the sign of -0
    return Value::string(std::string(buf) + " Bytes");
  }
  double unit = base;
  for (int i = 0; i < 8; ++i) {
    unit *= base;
    if (bytes < unit) return Value::string(fmt_1f(base * bytes / unit) + " " + (binary ? kBin[i] : kDec[i]));
  }
  return Value::string(fmt_1f(base * bytes / unit) + " " + (binary ? kBin[7] : kDec[7]));
}

// ---- format ----

Value f_format(Renderer& r, const Value& v, CallArgs& a) {
  if (!a.pos.empty() && !a.kw.empty())
    filter_arg_error("can't handle positional and keyword arguments at the same time");
  Value args;
  bool markup = v.is_markup();
  auto wrap = [&](const Value& x) { return markup && (x.is_str() || !x.is_number()) ? escape_value(x) : x; };
  if (!a.kw.empty()) {
    args = Value::dict();
    for (auto& [k, x] : a.kw) args.dict_obj().set(Value::string(k), wrap(x));
  } else {
    std::vector<Value> items;
    for (auto& x : a.pos) items.push_back(wrap(x));
    args = Value::tuple(std::move(items));
  }
  std::string out = pyformat::percent(soft_str(v), args, r.limits().max_value_bytes);
  check_size(r, out.size(), "format");
  return str_value(std::move(out), markup);
}

}  // namespace toolchat::jinja::fimpl
