#include "tokenize/load_tables.hpp"

#include "tokenize/impl.hpp"
#include "value/unicode.hpp"
#include "tokenize/json_skim.hpp"
#include "toolchat/error.hpp"
#include "value/json.hpp"
#include "value/utf8_check.hpp"

namespace toolchat::tokenize {

namespace {

json::ReadLimits limits() {
  json::ReadLimits lim;
  lim.max_bytes = 1u << 30;
  return lim;
}

[[noreturn]] void not_json(std::string_view text, const std::string& name, size_t pos) {
  try {
    json::parse(text, limits());
  } catch (const Error& e) {
    throw_error(ErrorKind::ValueError, name + ": not valid JSON: " + e.message());
  }
  // Unreachable while JsonSkim accepts what json::parse accepts.
  throw_error(ErrorKind::ValueError, name + ": not valid JSON at byte " + std::to_string(pos));
}

// A ByteLevel-alphabet string as the raw bytes it stands for; false when a character is not
// in the alphabet.
bool to_raw_bytes(std::string_view s, std::string& out) {
  out.clear();
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    int b;
    if (c < 0x80) {  // printable ASCII stands for itself; the rest is not in the alphabet
      b = byte_level_byte(c);
      ++i;
    } else {
      b = byte_level_byte(uni::decode_next(s, i));
    }
    if (b < 0) return false;
    out.push_back(static_cast<char>(b));
  }
  return true;
}

}  // namespace

Value read_outline(std::string_view text, const std::string& name, TableSpans& spans) {
  const json::ReadLimits lim = limits();
  if (text.size() > lim.max_bytes || utf8::find_invalid(text) != std::string_view::npos ||
      text.substr(0, 3) == "\xEF\xBB\xBF")
    not_json(text, name, 0);
  spans = TableSpans{};
  try {
    JsonSkim k(text);
    std::string scratch;
    if (k.peek() != '{') {
      k.value(0);
    } else {
      k.expect('{');
      if (!k.eat('}')) {
        do {
          const bool model = k.string(scratch) == "model";
          k.expect(':');
          if (!model) {
            k.value(1);
            continue;
          }
          spans = TableSpans{};  // a repeated key: the last one counts, as in the value tree
          if (k.peek() != '{') {
            k.value(1);
            continue;
          }
          k.expect('{');
          if (k.eat('}')) continue;
          do {
            const std::string_view key = k.string(scratch);
            const char open = key == "vocab" ? '{' : key == "merges" ? '[' : 0;
            k.expect(':');
            if (!open) {
              k.value(2);
              continue;
            }
            size_t& begin = open == '{' ? spans.vocab_begin : spans.merges_begin;
            size_t& end = open == '{' ? spans.vocab_end : spans.merges_end;
            size_t& count = open == '{' ? spans.vocab_count : spans.merges_count;
            begin = end = count = 0;
            if (k.peek() != open) {
              k.value(2);
              continue;
            }
            begin = k.pos();
            k.expect(open);
            const char close = open == '{' ? '}' : ']';
            if (!k.eat(close)) {
              do {
                if (open == '{') {
                  k.string(scratch);
                  k.expect(':');
                }
                k.value(3);
                ++count;
              } while (k.eat(','));
              k.expect(close);
            }
            end = k.pos();
          } while (k.eat(','));
          k.expect('}');
        } while (k.eat(','));
        k.expect('}');
      }
    }
    k.end();
  } catch (const JsonSkim::Bad& bad) {
    not_json(text, name, bad.pos);
  }
  // The rest as values: the document with the two tables emptied.
  struct Cut {
    size_t begin, end;
    const char* with;
  };
  Cut cuts[2] = {{spans.vocab_begin, spans.vocab_end, "{}"}, {spans.merges_begin, spans.merges_end, "[]"}};
  if (cuts[1].begin < cuts[0].begin) std::swap(cuts[0], cuts[1]);
  std::string rest;
  size_t at = 0;
  for (const Cut& c : cuts) {
    if (c.end == 0) continue;
    rest.append(text.substr(at, c.begin - at));
    rest += c.with;
    at = c.end;
  }
  rest.append(text.substr(at));
  try {
    return json::parse(rest, lim);
  } catch (const Error&) {
    not_json(text, name, 0);
  }
}

void read_vocab(std::string_view text, const TableSpans& spans, Bpe& m, const LoadFail& fail) {
  JsonSkim k(text, spans.vocab_begin);
  std::string scratch, raw;
  m.vocab.reserve(spans.vocab_count);
  k.expect('{');
  if (k.eat('}')) return;
  do {
    const std::string_view key = k.string(scratch);
    k.expect(':');
    const auto [b, e] = k.value(3);
    uint64_t id;
    if (!JsonSkim::integer(text.substr(b, e - b), UINT32_MAX, id))
      fail("model.vocab[" + json::dumps(Value::string(key)) + "]", "must be a token id (an integer >= 0)");
    if (id >= 16'000'000) fail("model.vocab[" + json::dumps(Value::string(key)) + "]", "token id too large");
    if (id >= m.id_to_token.size()) m.id_to_token.resize(id + 1);
    m.id_to_token[id] = key;
    int64_t old = -1;
    if (m.byte_level) {
      if (to_raw_bytes(key, raw)) old = m.vocab.set(raw, static_cast<uint32_t>(id));  // else unreachable text
    } else {
      old = m.vocab.set(key, static_cast<uint32_t>(id));
    }
    // A repeated key: its last id counts (a JSON object), and the earlier id loses its text.
    if (old >= 0 && static_cast<uint64_t>(old) != id && m.id_to_token[old] == key) m.id_to_token[old].clear();
  } while (k.eat(','));
}

void read_merges(std::string_view text, const TableSpans& spans, Bpe& m, const LoadFail& fail) {
  JsonSkim k(text, spans.merges_begin);
  m.reserve_merges(spans.merges_count);
  const std::string& prefix = m.continuing_subword_prefix;
  k.expect('[');
  if (k.eat(']')) return;
  // Three vocabulary lookups and one merge-table insert per merge, each a cache miss in tables
  // of megabytes: merges are taken in batches, their slots prefetched together, then applied in
  // order (a fault is reported at the first merge that has one, as reading one by one would).
  struct Pending {
    uint32_t rank;
    uint32_t at[3], len[3];  // left, right, merged: in `units`
    uint64_t hash[3];
    int64_t id[3];
  };
  constexpr size_t kBatch = 32;
  std::vector<Pending> batch;
  batch.reserve(kBatch);
  std::string units, sa, sb, merged, raw;
  std::string fault_path, fault;  // a malformed entry met while filling a batch
  uint32_t r = 0;
  bool more = true;
  while (more) {
    batch.clear();
    units.clear();
    while (more && batch.size() < kBatch) {
      auto where = [&] { return "model.merges[" + std::to_string(r) + "]"; };
      std::string_view a, b;
      const char c = k.peek();
      if (c == '"') {
        const std::string_view s = k.string(sa);
        const size_t sp = s.find(' ');
        if (sp == std::string_view::npos) {
          fault_path = where(), fault = "a merge must be \"left right\"";
          break;
        }
        a = s.substr(0, sp);
        b = s.substr(sp + 1);
      } else {
        bool pair = false;
        if (c == '[') {
          k.expect('[');
          if (k.peek() == '"') {
            a = k.string(sa);
            if (k.eat(',') && k.peek() == '"') {
              b = k.string(sb);
              pair = k.eat(']');
            }
          }
        }
        if (!pair) {
          fault_path = where(), fault = "a merge must be \"left right\" or [left, right]";
          break;
        }
      }
      // The merged token: left + right, less right's continuing_subword_prefix.
      merged.assign(a);
      std::string_view right = b;
      if (!prefix.empty() && right.substr(0, prefix.size()) == prefix) right.remove_prefix(prefix.size());
      merged.append(right);
      Pending p{};
      p.rank = r++;
      more = k.eat(',');
      bool reachable = true;
      const std::string_view parts[3] = {a, b, merged};
      for (int i = 0; i < 3 && reachable; ++i) {
        p.at[i] = static_cast<uint32_t>(units.size());
        if (m.byte_level) {
          reachable = to_raw_bytes(parts[i], raw);  // else no byte-level text makes it: skipped
          units += raw;
        } else {
          units += parts[i];
        }
        p.len[i] = static_cast<uint32_t>(units.size() - p.at[i]);
      }
      if (!reachable) continue;
      for (int i = 0; i < 3; ++i) {
        p.hash[i] = Vocab::hash(std::string_view(units).substr(p.at[i], p.len[i]));
        m.vocab.prefetch(p.hash[i]);
      }
      batch.push_back(p);
    }
    for (Pending& p : batch) {
      for (int i = 0; i < 3; ++i) p.id[i] = m.vocab.find(std::string_view(units).substr(p.at[i], p.len[i]), p.hash[i]);
      if (p.id[0] >= 0 && p.id[1] >= 0) m.prefetch_merge(static_cast<uint32_t>(p.id[0]), static_cast<uint32_t>(p.id[1]));
    }
    for (const Pending& p : batch) {
      const std::string where = p.id[0] < 0 || p.id[1] < 0 || p.id[2] < 0 ? "model.merges[" + std::to_string(p.rank) + "]" : "";
      if (p.id[0] < 0) fail(where, "\"" + units.substr(p.at[0], p.len[0]) + "\" is not in the vocabulary");
      if (p.id[1] < 0) fail(where, "\"" + units.substr(p.at[1], p.len[1]) + "\" is not in the vocabulary");
      if (p.id[2] < 0) fail(where, "the merged token is not in the vocabulary");
      m.add_merge(static_cast<uint32_t>(p.id[0]), static_cast<uint32_t>(p.id[1]), p.rank, static_cast<uint32_t>(p.id[2]));
      if (!m.byte_level) Bpe::note_cut_unsafe(std::string_view(units).substr(p.at[2], p.len[2]), m.cut_unsafe_prev);
    }
    if (!fault.empty()) fail(fault_path, fault);
  }
  k.expect(']');
}

}  // namespace toolchat::tokenize
