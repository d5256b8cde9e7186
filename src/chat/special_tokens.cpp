#include "chat/special_tokens.hpp"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <set>

#include "chat/conv_util.hpp"
#include "chat/render_case.hpp"
#include "value/unicode.hpp"

namespace toolchat::chat {

namespace {

const char* const kOpenPh = "\xEE\x80\x80";   // U+E000
const char* const kClosePh = "\xEE\x80\x81";  // U+E001

void add_markers(std::set<std::string>& out, std::string_view src) {
  // <|...|> and <｜...｜>: no whitespace or quotes inside, at most 64 bytes.
  for (const auto& [open, close] : {std::pair<std::string_view, std::string_view>{"<|", "|>"}, {"<｜", "｜>"}}) {
    for (size_t at = src.find(open); at != std::string_view::npos; at = src.find(open, at + 1)) {
      size_t end = src.find(close, at + open.size());
      if (end == std::string_view::npos || end - at > 64) continue;
      std::string_view inner = src.substr(at + open.size(), end - at - open.size());
      if (inner.empty() || inner.find_first_of(" \t\r\n'\"{}<>") != std::string_view::npos) continue;
      out.insert(std::string(src.substr(at, end + close.size() - at)));
    }
  }
  // [TAG] and [/TAG] with TAG in A-Z and _ (at least 3 letters).
  for (size_t at = src.find('['); at != std::string_view::npos; at = src.find('[', at + 1)) {
    size_t i = at + 1;
    if (i < src.size() && src[i] == '/') ++i;
    size_t start = i;
    while (i < src.size() && ((src[i] >= 'A' && src[i] <= 'Z') || src[i] == '_')) ++i;
    if (i - start >= 3 && i < src.size() && src[i] == ']') out.insert(std::string(src.substr(at, i + 1 - at)));
  }
}

// Calls f(message_index, field, text, setter) for every content string of the context.
using Visit = std::function<void(int64_t, const std::string&, std::string_view)>;
using Rewrite = std::function<std::string(std::string_view)>;

Value map_message(const Value& m, int64_t idx, const Visit& visit, const Rewrite& rw) {
  Value out = conv::copy_dict(m);
  auto str_field = [&](const char* key) {
    const Value* v = conv::get(m, key);
    if (!v || !v->is_str()) return;
    if (visit) visit(idx, key, v->str());
    if (rw) conv::set(out, key, Value::string(rw(v->str())));
  };
  str_field("content");
  str_field("reasoning_content");
  if (const Value* c = conv::get(m, "content"); c && c->is_list()) {
    std::vector<Value> parts;
    for (size_t j = 0; j < c->items().size(); ++j) {
      const Value& p = c->items()[j];
      const Value* t = conv::get(p, "text");
      if (!t || !t->is_str()) {
        parts.push_back(p);
        continue;
      }
      if (visit) visit(idx, "content[" + std::to_string(j) + "].text", t->str());
      Value np = conv::copy_dict(p);
      if (rw) conv::set(np, "text", Value::string(rw(t->str())));
      parts.push_back(np);
    }
    conv::set(out, "content", Value::list(std::move(parts)));
  }
  if (const Value* calls = conv::get(m, "tool_calls"); calls && calls->is_list()) {
    std::vector<Value> items;
    for (size_t j = 0; j < calls->items().size(); ++j) {
      const Value& c = calls->items()[j];
      const Value* fn = conv::get(c, "function");
      const Value* a = fn ? conv::get(*fn, "arguments") : nullptr;
      std::string field = "tool_calls[" + std::to_string(j) + "].function.arguments";
      Value args = a ? *a : Value();
      if (a && a->is_str()) {
        if (visit) visit(idx, field, a->str());
        if (rw) args = Value::string(rw(a->str()));
      } else if (a && a->is_dict()) {
        Value nd = Value::dict();
        for (const auto& [k, v] : a->dict_obj().entries) {
          if (v.is_str()) {
            if (visit) visit(idx, field + "." + py_str(k), v.str());
            nd.dict_obj().set(k, rw ? Value::string(rw(v.str())) : v);
          } else {
            nd.dict_obj().set(k, v);
          }
        }
        args = nd;
      }
      if (!a) {
        items.push_back(c);
        continue;
      }
      Value nfn = conv::copy_dict(*fn);
      conv::set(nfn, "arguments", args);
      Value nc = conv::copy_dict(c);
      conv::set(nc, "function", nfn);
      items.push_back(nc);
    }
    conv::set(out, "tool_calls", Value::list(std::move(items)));
  }
  return out;
}

Value map_context(const Value& context, const Visit& visit, const Rewrite& rw) {
  Value ctx = conv::copy_dict(context);
  const Value* msgs = conv::get(context, "messages");
  if (!msgs || !msgs->is_list()) return ctx;
  std::vector<Value> out;
  for (size_t i = 0; i < msgs->items().size(); ++i)
    out.push_back(msgs->items()[i].is_dict() ? map_message(msgs->items()[i], static_cast<int64_t>(i), visit, rw)
                                             : msgs->items()[i]);
  conv::set(ctx, "messages", Value::list(std::move(out)));
  return ctx;
}

// Occurrences of tokens in s: (position, token), leftmost, longest first (tokens are sorted so).
std::vector<std::pair<size_t, const std::string*>> occurrences(std::string_view s, const std::vector<std::string>& tokens) {
  std::vector<std::pair<size_t, const std::string*>> out;
  size_t i = 0;
  while (i < s.size()) {
    const std::string* hit = nullptr;
    for (const auto& t : tokens)
      if (!t.empty() && s.compare(i, t.size(), t) == 0) { hit = &t; break; }
    if (hit) {
      out.emplace_back(i, hit);
      i += hit->size();
    } else {
      ++i;
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> special_token_strings(const Value& special_tokens, std::string_view template_source) {
  std::set<std::string> set;
  if (special_tokens.is_dict()) {
    for (const auto& [k, v] : special_tokens.dict_obj().entries) {
      if (v.is_str()) set.emplace(v.str());
      if (v.is_list())
        for (const auto& t : v.items()) {
          if (t.is_str()) set.emplace(t.str());
          else if (const Value* c = conv::get(t, "content"); c && c->is_str()) set.emplace(c->str());
        }
    }
  }
  add_markers(set, template_source);
  std::vector<std::string> out;
  for (const auto& s : set)
    if (s.size() >= 3) out.push_back(s);
  std::stable_sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return out;
}

std::vector<TokenHit> find_content_tokens(const jinja::Template& t, const Value& context, const Value& special_tokens,
                                          const std::vector<std::string>& tokens, const jinja::RenderOptions& opts) {
  std::vector<TokenHit> hits;
  map_context(context, [&](int64_t idx, const std::string& field, std::string_view text) {
    for (const auto& [pos, tok] : occurrences(text, tokens)) {
      TokenHit h;
      h.message_index = idx;
      h.field = field;
      h.token = *tok;
      hits.push_back(h);
    }
  }, nullptr);
  if (hits.empty()) return hits;
  size_t n = 0;
  Value ph_ctx = map_context(context, nullptr, [&](std::string_view s) {
    std::string out;
    size_t last = 0;
    for (const auto& [pos, tok] : occurrences(s, tokens)) {
      out.append(s, last, pos - last);
      out += kOpenPh + std::to_string(n++) + kClosePh;
      last = pos + tok->size();
    }
    out.append(s, last, std::string::npos);
    return out;
  });
  CaseResult real, ph;
  try {
    real = render_prepared(t, prepare_case(context, special_tokens), opts);
    ph = render_prepared(t, prepare_case(ph_ctx, special_tokens), opts);
  } catch (const Error&) {
  }
  if (!real.ok || !ph.ok) return hits;
  // Map placeholders back; each must appear once, in order.
  std::string rebuilt;
  std::vector<std::pair<size_t, size_t>> spans(hits.size(), {std::string::npos, 0});
  bool ok = true;
  size_t at = 0;
  while (ok) {
    size_t open = ph.text.find(kOpenPh, at);
    if (open == std::string::npos) break;
    size_t close = ph.text.find(kClosePh, open);
    rebuilt.append(ph.text, at, open - at);
    size_t k = close == std::string::npos ? hits.size() : std::strtoul(ph.text.c_str() + open + 3, nullptr, 10);
    if (k >= hits.size() || spans[k].first != std::string::npos) { ok = false; break; }
    spans[k] = {rebuilt.size(), rebuilt.size() + hits[k].token.size()};
    rebuilt += hits[k].token;
    at = close + 3;
  }
  if (!ok) return hits;
  rebuilt.append(ph.text, at, std::string::npos);
  if (rebuilt != real.text) return hits;
  for (size_t k = 0; k < hits.size(); ++k) {
    if (spans[k].first == std::string::npos) continue;  // the template did not show it
    hits[k].located = true;
    hits[k].byte_begin = spans[k].first;
    hits[k].byte_end = spans[k].second;
    hits[k].cp_begin = uni::count_code_points(std::string_view(real.text).substr(0, spans[k].first));
    hits[k].cp_end = hits[k].cp_begin + uni::count_code_points(hits[k].token);
  }
  return hits;
}

Value neutralize_tokens(const Value& context, const std::vector<std::string>& tokens) {
  return map_context(context, nullptr, [&](std::string_view s) {
    std::string out;
    size_t last = 0;
    for (const auto& [pos, tok] : occurrences(s, tokens)) {
      out.append(s, last, pos - last);
      // Length of the token's first code point, from its lead byte.
      unsigned char b = static_cast<unsigned char>((*tok)[0]);
      size_t first = std::min(tok->size(), size_t(b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4));
      out.append(*tok, 0, first);
      out += "\xE2\x80\x8B";  // U+200B
      out.append(*tok, first, std::string::npos);
      last = pos + tok->size();
    }
    out.append(s, last, std::string::npos);
    return out;
  });
}

Value token_hits_json(const std::vector<TokenHit>& hits) {
  std::vector<Value> out;
  for (const auto& h : hits) {
    Value d = Value::dict();
    conv::set(d, "message_index", Value::integer(h.message_index));
    conv::set(d, "field", Value::string(h.field));
    conv::set(d, "token", Value::string(h.token));
    conv::set(d, "located", Value::boolean(h.located));
    auto pair = [](size_t a, size_t b) {
      return Value::list({Value::integer(static_cast<int64_t>(a)), Value::integer(static_cast<int64_t>(b))});
    };
    conv::set(d, "span", h.located ? pair(h.cp_begin, h.cp_end) : Value::none());
    conv::set(d, "byte_span", h.located ? pair(h.byte_begin, h.byte_end) : Value::none());
    out.push_back(d);
  }
  return Value::list(std::move(out));
}

}  // namespace toolchat::chat
