// Serialising and markup filters: tojson, urlencode/urlize, xmlattr, pprint.
#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "jinja/builtins/filters_impl.hpp"
#include "value/json.hpp"
#include "value/json_value.hpp"
#include "value/pyformat.hpp"
#include "value/pystr.hpp"
#include "value/unicode.hpp"

namespace toolchat::jinja::fimpl {

namespace {

size_t cp_len(std::string_view s) { return uni::count_code_points(s); }

bool is_word_char(char32_t c) { return c == '_' || uni::is_alnum(c); }

}  // namespace


// ---- tojson (transformers' override) ----

Value f_tojson(Renderer& r, const Value& v, CallArgs& a) {
  const char* fn = "make_environment.<locals>.tojson";
  reject_implicit(fn, a, {"x"});
  ArgBinder b(fn, a, {"ensure_ascii", "indent", "separators", "sort_keys"}, 0, 1);
  json::DumpOptions o;
  o.ensure_ascii = b.has(0) && truthy(b.get(0));
  if (b.has(1) && !b.get(1).is_none()) {
    const Value& ind = b.get(1);
    if (ind.is_str()) o.indent = ind.str();
    else if (ind.is_int() || ind.is_bool()) {
      check_size(r, static_cast<size_t>(std::max<int64_t>(ind.int_like(), 0)), "tojson");
      o.indent = json::indent_spaces(ind.int_like());
    }
    else type_error(std::string("can't multiply sequence by non-int of type '") + type_name(ind) + "'");
  }
  if (b.has(2) && !b.get(2).is_none()) {
    const Value& sv = b.get(2);
    if (!(sv.is_str() || sv.is_list() || sv.is_dict() || sv.is_undefined()))
      type_error(std::string("cannot unpack non-iterable ") + type_name(sv) + " object");
    std::vector<Value> seps = iterate(sv);
    if (seps.size() < 2)
      throw Error(ErrorKind::ValueError, "not enough values to unpack (expected 2, got " + std::to_string(seps.size()) + ")");
    if (seps.size() > 2) throw Error(ErrorKind::ValueError, "too many values to unpack (expected 2)");
    // the C encoder (indent=None) checks key_separator (argument 5) before item_separator
    if (!o.indent) {
      if (!seps[1].is_str()) type_error(std::string("make_encoder() argument 5 must be str, not ") + type_name(seps[1]));
      if (!seps[0].is_str()) type_error(std::string("make_encoder() argument 6 must be str, not ") + type_name(seps[0]));
    } else {
      for (const auto& s : seps)
        if (!s.is_str())
          type_error(std::string("sequence item 0: expected str instance, ") + type_name(s) + " found");
    }
    o.separators = std::make_pair(seps[0].str(), seps[1].str());
  }
  o.sort_keys = b.has(3) && truthy(b.get(3));
  o.max_bytes = r.limits().max_value_bytes;
  Value out = json::dumps_value(v, o);
  r.charge(out.str().size() / 2 + 1);  // serializing: a few steps per value printed
  check_size(r, out.str().size(), "tojson");
  return out;
}

// ---- URLs ----

namespace {

std::string url_quote(std::string_view s, bool for_qs) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
        c == '-' || c == '~' || (c == '/' && !for_qs)) {
      out += static_cast<char>(c);
    } else if (c == ' ' && for_qs) {
      out += '+';
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace

Value f_urlencode(Renderer&, const Value& v, CallArgs& a) {
  no_args("do_urlencode", a, "value");
  if (v.is_str()) return Value::string(url_quote(v.str(), false));
  if (!(v.is_list() || v.is_dict() || v.is_undefined())) return Value::string(url_quote(py_str(v), false));
  std::vector<std::pair<Value, Value>> items;
  if (v.is_dict()) {
    for (const auto& e : v.dict_obj().entries) items.emplace_back(e.first, e.second);
  } else {
    for (const Value& it : iterate(v)) {
      if (!(it.is_list() || it.is_str() || it.is_dict()))
        type_error(std::string("cannot unpack non-iterable ") + type_name(it) + " object");
      std::vector<Value> kv = iterate(it);
      if (kv.size() < 2)
        throw Error(ErrorKind::ValueError, "not enough values to unpack (expected 2, got " + std::to_string(kv.size()) + ")");
      if (kv.size() > 2) throw Error(ErrorKind::ValueError, "too many values to unpack (expected 2)");
      items.emplace_back(kv[0], kv[1]);
    }
  }
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += '&';
    out += url_quote(items[i].first.is_str() ? items[i].first.str() : py_str(items[i].first), true);
    out += '=';
    out += url_quote(items[i].second.is_str() ? items[i].second.str() : py_str(items[i].second), true);
  }
  return Value::string(std::move(out));
}

namespace {

const std::regex& http_re() {
  static const std::regex re(
      R"(^(((https?://|www\.)(([\w%-]+\.)+)?([a-z]{2,63}|xn--[\w%]{2,59}))|(([\w%-]{2,63}\.)+(com|net|int|edu|gov|org|info|mil))|((https?://)(((\d{1,3})(\.\d{1,3}){3})|(\[([\da-f]{0,4}:){2}([\da-f]{0,4}:?){1,6}\]))))(:\d{1,5})?([/?#]\S*)?$)",
      std::regex::ECMAScript | std::regex::icase);
  return re;
}

bool email_match(std::string_view s) {
  // ^\S+@\w[\w.-]*\.\w+$
  size_t at = s.rfind('@');
  if (at == std::string_view::npos || at == 0) return false;
  for (size_t i = 0; i < at; ++i)
    if (std::isspace(static_cast<unsigned char>(s[i]))) return false;
  // Try every '@' position (regex backtracking): the domain part must match.
  for (size_t p = s.find('@'); p != std::string_view::npos; p = s.find('@', p + 1)) {
    bool ok_local = p > 0;
    for (size_t i = 0; i < p && ok_local; ++i)
      if (std::isspace(static_cast<unsigned char>(s[i]))) ok_local = false;
    if (!ok_local) continue;
    std::u32string d = uni::decode(s.substr(p + 1));
    if (d.empty() || !is_word_char(d[0])) continue;
    bool ok = true;
    for (char32_t c : d)
      if (!(is_word_char(c) || c == '.' || c == '-')) { ok = false; break; }
    if (!ok) continue;
    size_t dot = d.rfind('.');
    if (dot == std::u32string::npos || dot == 0 || dot + 1 >= d.size()) continue;
    bool tail = true;
    for (size_t i = dot + 1; i < d.size(); ++i)
      if (!is_word_char(d[i])) { tail = false; break; }
    if (tail) return true;
  }
  return false;
}

size_t count_sub(std::string_view s, std::string_view sub) {
  size_t n = 0;
  for (size_t p = s.find(sub); p != std::string_view::npos; p = s.find(sub, p + sub.size())) ++n;
  return n;
}

}  // namespace

Value f_urlize(Renderer& r, const Value& v, CallArgs& a) {
  reject_implicit("do_urlize", a, {"eval_ctx", "value"});
  ArgBinder b("do_urlize", a, {"trim_url_limit", "nofollow", "target", "rel", "extra_schemes"}, 0, 2);
  bool has_limit = b.has(0) && !b.get(0).is_none();
  int64_t limit = has_limit ? as_index(b.get(0)) : 0;
  std::vector<std::string> rel_parts = b.has(3) && truthy(b.get(3)) ? pystr::split(soft_str(b.get(3))) : std::vector<std::string>{};
  if (b.has(1) && truthy(b.get(1))) rel_parts.emplace_back("nofollow");
  rel_parts.emplace_back("noopener");
  std::sort(rel_parts.begin(), rel_parts.end());
  rel_parts.erase(std::unique(rel_parts.begin(), rel_parts.end()), rel_parts.end());
  std::string rel = pystr::join(" ", rel_parts);
  std::string target = b.has(2) && truthy(b.get(2)) ? soft_str(b.get(2)) : std::string();
  std::vector<std::string> schemes;
  if (b.has(4) && !b.get(4).is_none()) {
    static const std::regex scheme_re(R"(^([\w.+-]{2,}:(/){0,2})$)");
    for (const Value& s : iterate(b.get(4))) {
      std::string sc = soft_str(s);
      if (!std::regex_match(sc, scheme_re)) filter_arg_error(py_repr(s) + " is not a valid URI scheme prefix.");
      schemes.push_back(sc);
    }
  }
  auto trim_url = [&](const std::string& x) {
    if (has_limit && static_cast<int64_t>(cp_len(x)) > limit)
      return pystr::slice(x, std::nullopt, limit) + "...";
    return x;
  };
  std::string rel_attr = rel.empty() ? "" : " rel=\"" + html_escape(rel) + "\"";
  std::string target_attr = target.empty() ? "" : " target=\"" + html_escape(target) + "\"";
  std::string text = v.is_markup() ? std::string(v.str()) : html_escape(soft_str(v));
  r.charge(text.size() / 16 + 1);
  // split on runs of whitespace, keeping them
  std::vector<std::pair<std::string, bool>> words;  // (text, is_space)
  {
    size_t i = 0;
    while (i < text.size()) {
      size_t j = i;
      char32_t c = uni::decode_next(text, j);
      bool sp = uni::is_space(c);
      size_t e = j;
      while (e < text.size()) {
        size_t k = e;
        char32_t d = uni::decode_next(text, k);
        if (uni::is_space(d) != sp) break;
        e = k;
      }
      words.emplace_back(text.substr(i, e - i), sp);
      i = e;
    }
  }
  std::string out;
  for (auto& [word, sp] : words) {
    if (sp) { out += word; continue; }
    std::string head, middle = word, tail;
    // leading ( < &lt;
    size_t h = 0;
    while (true) {
      if (h < middle.size() && (middle[h] == '(' || middle[h] == '<')) ++h;
      else if (middle.compare(h, 4, "&lt;") == 0) h += 4;
      else break;
    }
    head = middle.substr(0, h);
    middle = middle.substr(h);
    // trailing ) > . , \n &gt;
    size_t e = middle.size();
    while (e > 0) {
      char c = middle[e - 1];
      if (c == ')' || c == '>' || c == '.' || c == ',' || c == '\n') --e;
      else if (e >= 4 && middle.compare(e - 4, 4, "&gt;") == 0) e -= 4;
      else break;
    }
    tail = middle.substr(e);
    middle = middle.substr(0, e);
    const std::pair<const char*, const char*> pairs[] = {{"(", ")"}, {"<", ">"}, {"&lt;", "&gt;"}};
    for (const auto& [sc, ec] : pairs) {
      size_t start_count = count_sub(middle, sc);
      if (start_count <= count_sub(middle, ec)) continue;
      size_t moves = std::min(start_count, count_sub(tail, ec));
      for (size_t k = 0; k < moves; ++k) {
        size_t end_index = tail.find(ec) + std::strlen(ec);
        middle += tail.substr(0, end_index);
        tail = tail.substr(end_index);
      }
    }
    // std::regex's \w and \d are ASCII: match a shadow where each non-ASCII code point becomes
    // '0' (decimal), '_' (other word character) or '!' (anything else), like Python's Unicode classes.
    std::string shadow;
    for (size_t k = 0; k < middle.size();) {
      unsigned char c0 = static_cast<unsigned char>(middle[k]);
      if (c0 < 0x80) { shadow += middle[k++]; continue; }
      char32_t c = uni::decode_next(middle, k);
      shadow += uni::is_decimal(c) ? '0' : is_word_char(c) ? '_' : '!';
    }
    bool is_http = shadow.size() < 4096 && std::regex_match(shadow, http_re());
    if (is_http) {
      if (middle.rfind("https://", 0) == 0 || middle.rfind("http://", 0) == 0)
        middle = "<a href=\"" + middle + "\"" + rel_attr + target_attr + ">" + trim_url(middle) + "</a>";
      else
        middle = "<a href=\"https://" + middle + "\"" + rel_attr + target_attr + ">" + trim_url(middle) + "</a>";
    } else if (middle.rfind("mailto:", 0) == 0 && email_match(std::string_view(middle).substr(7))) {
      middle = "<a href=\"" + middle + "\">" + middle.substr(7) + "</a>";
    } else if (middle.find('@') != std::string::npos && middle.rfind("www.", 0) != 0 && middle[0] != '@' &&
               middle.find(':') == std::string::npos && email_match(middle)) {
      middle = "<a href=\"mailto:" + middle + "\">" + middle + "</a>";
    } else {
      for (const auto& sc : schemes)
        if (middle != sc && middle.rfind(sc, 0) == 0)
          middle = "<a href=\"" + middle + "\"" + rel_attr + target_attr + ">" + middle + "</a>";
    }
    out += head + middle + tail;
  }
  return Value::string(std::move(out));
}

// ---- xmlattr ----

Value f_xmlattr(Renderer&, const Value& v, CallArgs& a) {
  reject_implicit("do_xmlattr", a, {"eval_ctx", "d"});
  ArgBinder b("do_xmlattr", a, {"autospace"}, 0, 2);
  bool autospace = !b.has(0) || truthy(b.get(0));
  if (v.is_undefined()) raise_undefined(v);
  if (!v.is_dict()) attr_error(v, "items");
  std::string rv;
  for (const auto& [k, val] : v.dict_obj().entries) {
    if (val.is_none() || val.is_undefined()) continue;
    if (!k.is_str()) type_error(std::string("expected string or bytes-like object, got '") + type_name(k) + "'");
    for (char c : k.str())
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '/' || c == '>' || c == '=')
        throw Error(ErrorKind::ValueError, "Invalid character in attribute name: " + py_repr(k));
    if (!rv.empty()) rv += ' ';
    rv += escape_value(k).str();
    rv += "=\"";
    rv += escape_value(val).str();
    rv += '"';
  }
  if (autospace && !rv.empty()) rv.insert(0, " ");
  return Value::string(std::move(rv));
}

// ---- pprint ----

namespace {

std::string class_str(const Value& v) { return std::string("<class '") + type_name(v) + "'>"; }

bool safe_key_less(const Value& a, const Value& b) {
  try {
    return py_less(a, b);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::TypeError) throw;
    return class_str(a) < class_str(b);
  }
}

std::vector<std::pair<Value, Value>> sorted_items(const Value& d) {
  const DictEntries& entries = d.dict_obj().entries;
  std::vector<std::pair<Value, Value>> items(entries.begin(), entries.end());
  std::stable_sort(items.begin(), items.end(), [](const auto& x, const auto& y) {
    if (safe_key_less(x.first, y.first)) return true;
    if (safe_key_less(y.first, x.first)) return false;
    return safe_key_less(x.second, y.second);
  });
  return items;
}

void safe_repr(std::string& out, const Value& v, int depth) {
  if (depth > 200) throw Error(ErrorKind::RecursionError, "maximum recursion depth exceeded while getting the repr of an object");
  if (v.is_dict()) {
    out += '{';
    bool first = true;
    for (const auto& [k, x] : sorted_items(v)) {
      if (!first) out += ", ";
      first = false;
      safe_repr(out, k, depth + 1);
      out += ": ";
      safe_repr(out, x, depth + 1);
    }
    out += '}';
    return;
  }
  if (v.is_list() && (v.list_obj().lkind == ListKind::List || v.list_obj().lkind == ListKind::Tuple)) {
    bool tuple = v.list_obj().lkind == ListKind::Tuple;
    out += tuple ? '(' : '[';
    const auto& items = v.items();
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) out += ", ";
      safe_repr(out, items[i], depth + 1);
    }
    if (tuple && items.size() == 1) out += ',';
    out += tuple ? ')' : ']';
    return;
  }
  py_repr_append(out, v);
}

std::string srepr(const Value& v) {
  std::string s;
  safe_repr(s, v, 0);
  return s;
}

constexpr int64_t kWidth = 80;

void pp_format(std::string& out, const Value& v, int64_t indent, int64_t allowance, int level);

void pp_items(std::string& out, const std::vector<Value>& items, int64_t indent, int64_t allowance, int level) {
  indent += 1;
  std::string delimnl = ",\n" + std::string(static_cast<size_t>(indent), ' ');
  for (size_t i = 0; i < items.size(); ++i) {
    bool last = i + 1 == items.size();
    if (i) out += delimnl;
    pp_format(out, items[i], indent, last ? allowance : 1, level);
  }
}

void pp_str(std::string& out, std::string_view s, int64_t indent, int64_t allowance, int level) {
  if (s.empty()) { out += string_repr(s); return; }
  std::vector<std::string> lines = pystr::splitlines(s, true);
  if (level == 1) { indent += 1; allowance += 1; }
  int64_t max_width1 = kWidth - indent, max_width = kWidth - indent;
  std::vector<std::string> chunks;
  std::string rep;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    rep = string_repr(line);
    if (i + 1 == lines.size()) max_width1 -= allowance;
    if (static_cast<int64_t>(cp_len(rep)) <= max_width1) {
      chunks.push_back(rep);
    } else {
      // parts: \S*\s* runs
      std::vector<std::string> parts;
      std::u32string u = uni::decode(line);
      size_t p = 0;
      while (p < u.size()) {
        size_t q = p;
        while (q < u.size() && !uni::is_space(u[q])) ++q;
        while (q < u.size() && uni::is_space(u[q])) ++q;
        parts.push_back(uni::encode(u.substr(p, q - p)));
        p = q;
      }
      int64_t max_width2 = max_width;
      std::string current;
      for (size_t j = 0; j < parts.size(); ++j) {
        std::string candidate = current + parts[j];
        if (j + 1 == parts.size() && i + 1 == lines.size()) max_width2 -= allowance;
        if (static_cast<int64_t>(cp_len(string_repr(candidate))) > max_width2) {
          if (!current.empty()) chunks.push_back(string_repr(current));
          current = parts[j];
        } else {
          current = candidate;
        }
      }
      if (!current.empty()) chunks.push_back(string_repr(current));
    }
  }
  if (chunks.size() == 1) { out += rep; return; }
  if (level == 1) out += '(';
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (i) { out += '\n'; out.append(static_cast<size_t>(indent), ' '); }
    out += chunks[i];
  }
  if (level == 1) out += ')';
}

void pp_format(std::string& out, const Value& v, int64_t indent, int64_t allowance, int level) {
  if (level > 200) throw Error(ErrorKind::RecursionError, "maximum recursion depth exceeded while getting the repr of an object");
  std::string rep = srepr(v);
  int64_t max_width = kWidth - indent - allowance;
  if (static_cast<int64_t>(cp_len(rep)) > max_width) {
    if (v.is_dict()) {
      out += '{';
      auto items = sorted_items(v);
      if (!items.empty()) {
        int64_t ind = indent + 1;
        int64_t allw = allowance + 1;
        std::string delimnl = ",\n" + std::string(static_cast<size_t>(ind), ' ');
        for (size_t i = 0; i < items.size(); ++i) {
          bool last = i + 1 == items.size();
          std::string krep = srepr(items[i].first);
          out += krep;
          out += ": ";
          pp_format(out, items[i].second, ind + static_cast<int64_t>(cp_len(krep)) + 2, last ? allw : 1, level + 1);
          if (!last) out += delimnl;
        }
      }
      out += '}';
      return;
    }
    if (v.is_list() && v.list_obj().lkind == ListKind::List) {
      out += '[';
      pp_items(out, v.items(), indent, allowance + 1, level + 1);
      out += ']';
      return;
    }
    if (v.is_list() && v.list_obj().lkind == ListKind::Tuple) {
      const char* endchar = v.items().size() == 1 ? ",)" : ")";
      out += '(';
      pp_items(out, v.items(), indent, allowance + static_cast<int64_t>(std::strlen(endchar)), level + 1);
      out += endchar;
      return;
    }
    if (v.is_str() && !v.is_markup()) {
      pp_str(out, v.str(), indent, allowance, level + 1);
      return;
    }
  }
  out += rep;
}

}  // namespace

std::string pformat(const Value& v) {
  std::string out;
  pp_format(out, v, 0, 0, 0);
  return out;
}

Value f_pprint(Renderer& r, const Value& v, CallArgs& a) {
  no_args("do_pprint", a, "value");
  std::string out = pformat(v);
  r.charge(out.size() / 2 + 1);
  return Value::string(std::move(out));
}

}  // namespace toolchat::jinja::fimpl
