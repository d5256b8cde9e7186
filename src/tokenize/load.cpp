// tokenizer.json -> TokenizerImpl. Every unsupported or malformed part is refused with the file
// name and the JSON path of the part.
#include <string>

#include "tokenize/impl.hpp"
#include "tokenize/load_tables.hpp"
#include "toolchat/error.hpp"
#include "value/json.hpp"
#include "value/unicode.hpp"

namespace toolchat::tokenize {

namespace {

// GPT-2's split pattern, which ByteLevel applies when use_regex is true.
constexpr const char* kGpt2Pattern =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
// Whitespace pre-tokenizer's pattern.
constexpr const char* kWhitespacePattern = "\\w+|[^\\w\\s]+";

class Loader {
 public:
  explicit Loader(std::string name) : name_(std::move(name)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw_error(ErrorKind::ValueError, name_ + ": " + path + ": " + what);
  }

  const Value* field(const Value& obj, const char* key) const {
    if (!obj.is_dict()) return nullptr;
    const Value* v = obj.dict_obj().find(std::string_view(key));
    return v && !v->is_none() ? v : nullptr;
  }
  std::string str(const Value& obj, const char* key, const std::string& path, const char* dflt = nullptr) const {
    const Value* v = field(obj, key);
    if (!v) {
      if (dflt) return dflt;
      fail(path + "." + key, "missing (a string is needed)");
    }
    if (!v->is_str()) fail(path + "." + key, "must be a string");
    return std::string(v->str());
  }
  bool flag(const Value& obj, const char* key, const std::string& path, bool dflt) const {
    const Value* v = field(obj, key);
    if (!v) return dflt;
    if (!v->is_bool()) fail(path + "." + key, "must be true or false");
    return v->as_bool();
  }
  int64_t integer(const Value& v, const std::string& path) const {
    if (!v.is_int() || v.as_int() < 0 || v.as_int() > UINT32_MAX) fail(path, "must be a token id (an integer >= 0)");
    return v.as_int();
  }
  const std::vector<Value>& list(const Value& obj, const char* key, const std::string& path) const {
    const Value* v = field(obj, key);
    if (!v || !v->is_list()) fail(path + "." + key, "must be a list");
    return v->items();
  }

  Pattern pattern(const Value& obj, const std::string& path) const {
    const Value* p = field(obj, "pattern");
    if (!p || !p->is_dict()) fail(path + ".pattern", "must be {\"String\": ...} or {\"Regex\": ...}");
    Pattern r;
    if (const Value* s = field(*p, "String")) {
      if (!s->is_str()) fail(path + ".pattern.String", "must be a string");
      r.literal = uni::decode(s->str());
      r.literal_utf8 = s->str();
    } else if (const Value* re = field(*p, "Regex")) {
      if (!re->is_str()) fail(path + ".pattern.Regex", "must be a string");
      try {
        r.regex = std::make_shared<const Regex>(re->str());
      } catch (const Error& e) {
        fail(path + ".pattern.Regex", e.message());
      }
    } else {
      fail(path + ".pattern", "must be {\"String\": ...} or {\"Regex\": ...}");
    }
    return r;
  }

  std::string type_of(const Value& v, const std::string& path) const {
    if (!v.is_dict()) fail(path, "must be an object");
    return str(v, "type", path);
  }

  Normalizer normalizer(const Value& v, const std::string& path) const {
    const std::string t = type_of(v, path);
    Normalizer n;
    using T = Normalizer::Type;
    if (t == "NFC") n.type = T::NFC;
    else if (t == "NFD") n.type = T::NFD;
    else if (t == "NFKC") n.type = T::NFKC;
    else if (t == "NFKD") n.type = T::NFKD;
    else if (t == "Lowercase") n.type = T::Lowercase;
    else if (t == "Prepend") {
      n.type = T::Prepend;
      n.content = str(v, "prepend", path);
    } else if (t == "Replace") {
      n.type = T::Replace;
      n.pattern = pattern(v, path);
      n.content = str(v, "content", path);
    } else if (t == "Strip") {
      n.type = T::Strip;
      n.left = flag(v, "strip_left", path, true);
      n.right = flag(v, "strip_right", path, true);
    } else if (t == "Sequence") {
      const auto& items = list(v, "normalizers", path);
      for (size_t i = 0; i < items.size(); ++i)
        n.children.push_back(normalizer(items[i], path + ".normalizers[" + std::to_string(i) + "]"));
    } else {
      fail(path + ".type", "normalizer \"" + t + "\" is not supported");
    }
    return n;
  }

  SplitBehavior behavior(const Value& v, const std::string& path, const char* dflt) const {
    const std::string b = str(v, "behavior", path, dflt);
    if (b == "Removed") return SplitBehavior::Removed;
    if (b == "Isolated") return SplitBehavior::Isolated;
    if (b == "MergedWithPrevious") return SplitBehavior::MergedWithPrevious;
    if (b == "MergedWithNext") return SplitBehavior::MergedWithNext;
    if (b == "Contiguous") return SplitBehavior::Contiguous;
    fail(path + ".behavior", "unknown split behavior \"" + b + "\"");
  }

  PreTokenizer pre_tokenizer(const Value& v, const std::string& path, bool first) const {
    const std::string t = type_of(v, path);
    PreTokenizer p;
    using T = PreTokenizer::Type;
    if (t == "ByteLevel") {
      p.type = T::ByteLevel;
      p.add_prefix_space = flag(v, "add_prefix_space", path, true);
      p.use_regex = flag(v, "use_regex", path, true);
      if (p.use_regex) p.pattern.regex = std::make_shared<const Regex>(kGpt2Pattern);
      if (p.add_prefix_space && !first)
        fail(path + ".add_prefix_space", "true after another pre-tokenizer is not supported");
    } else if (t == "Split") {
      p.type = T::Split;
      p.pattern = pattern(v, path);
      p.behavior = behavior(v, path, nullptr);
      p.invert = flag(v, "invert", path, false);
    } else if (t == "Metaspace") {
      p.type = T::Metaspace;
      p.replacement = str(v, "replacement", path, "\xE2\x96\x81");
      if (uni::decode(p.replacement).size() != 1) fail(path + ".replacement", "must be one character");
      const std::string scheme = str(v, "prepend_scheme", path, "always");
      if (scheme == "always") p.prepend = PreTokenizer::Prepend::Always;
      else if (scheme == "first") p.prepend = PreTokenizer::Prepend::First;
      else if (scheme == "never") p.prepend = PreTokenizer::Prepend::Never;
      else fail(path + ".prepend_scheme", "must be always, first or never");
      if (field(v, "add_prefix_space") && !field(v, "prepend_scheme"))
        p.prepend = flag(v, "add_prefix_space", path, true) ? PreTokenizer::Prepend::Always
                                                           : PreTokenizer::Prepend::Never;
      p.split = flag(v, "split", path, true);
      if (!first) fail(path, "Metaspace after another pre-tokenizer is not supported");
    } else if (t == "Digits") {
      p.type = T::Digits;
      p.individual_digits = flag(v, "individual_digits", path, false);
    } else if (t == "Punctuation") {
      p.type = T::Punctuation;
      p.behavior = behavior(v, path, "Isolated");
    } else if (t == "Whitespace") {
      p.type = T::Whitespace;
      p.pattern.regex = std::make_shared<const Regex>(kWhitespacePattern);
    } else if (t == "WhitespaceSplit") {
      p.type = T::WhitespaceSplit;
    } else if (t == "Sequence") {
      const auto& items = list(v, "pretokenizers", path);
      for (size_t i = 0; i < items.size(); ++i)
        p.children.push_back(pre_tokenizer(items[i], path + ".pretokenizers[" + std::to_string(i) + "]",
                                           first && i == 0));
    } else {
      fail(path + ".type", "pre-tokenizer \"" + t + "\" is not supported");
    }
    return p;
  }

  static bool has_byte_level(const PreTokenizer& p) {
    if (p.type == PreTokenizer::Type::ByteLevel) return true;
    for (const auto& c : p.children)
      if (has_byte_level(c)) return true;
    return false;
  }

  Decoder decoder(const Value& v, const std::string& path) const {
    const std::string t = type_of(v, path);
    Decoder d;
    using T = Decoder::Type;
    if (t == "ByteLevel") d.type = T::ByteLevel;
    else if (t == "ByteFallback") d.type = T::ByteFallback;
    else if (t == "Fuse") d.type = T::Fuse;
    else if (t == "Replace") {
      d.type = T::Replace;
      const Pattern p = pattern(v, path);
      if (p.regex) fail(path + ".pattern", "a Regex pattern in a Replace decoder is not supported");
      d.pattern = uni::encode(p.literal);
      d.content = str(v, "content", path);
    } else if (t == "Strip") {
      d.type = T::Strip;
      d.content = str(v, "content", path);
      const Value* s = field(v, "start");
      const Value* e = field(v, "stop");
      d.start = s ? static_cast<size_t>(integer(*s, path + ".start")) : 0;
      d.stop = e ? static_cast<size_t>(integer(*e, path + ".stop")) : 0;
    } else if (t == "Metaspace") {
      d.type = T::Metaspace;
      d.replacement = str(v, "replacement", path, "\xE2\x96\x81");
      const std::string scheme = str(v, "prepend_scheme", path, "always");
      d.prepend = scheme != "never";
      if (field(v, "add_prefix_space") && !field(v, "prepend_scheme"))
        d.prepend = flag(v, "add_prefix_space", path, true);
    } else if (t == "Sequence") {
      const auto& items = list(v, "decoders", path);
      for (size_t i = 0; i < items.size(); ++i)
        d.children.push_back(decoder(items[i], path + ".decoders[" + std::to_string(i) + "]"));
    } else {
      fail(path + ".type", "decoder \"" + t + "\" is not supported");
    }
    return d;
  }

  PostProcessor post(const Value& v, const std::string& path) const {
    const std::string t = type_of(v, path);
    PostProcessor p;
    using T = PostProcessor::Type;
    if (t == "ByteLevel") {
      p.type = T::ByteLevel;
      p.trim_offsets = flag(v, "trim_offsets", path, true);
      p.add_prefix_space = flag(v, "add_prefix_space", path, true);
    } else if (t == "TemplateProcessing") {
      p.type = T::TemplateProcessing;
      const Value* specials = field(v, "special_tokens");
      const auto& single = list(v, "single", path);
      for (size_t i = 0; i < single.size(); ++i) {
        const std::string ip = path + ".single[" + std::to_string(i) + "]";
        PostProcessor::Item item;
        if (const Value* sq = field(single[i], "Sequence")) {
          (void)sq;
          item.is_sequence = true;
        } else if (const Value* sp = field(single[i], "SpecialToken")) {
          const std::string id = str(*sp, "id", ip + ".SpecialToken");
          const Value* entry = specials ? field(*specials, id.c_str()) : nullptr;
          if (!entry) fail(ip, "special token \"" + id + "\" is not in special_tokens");
          const auto& ids = list(*entry, "ids", path + ".special_tokens." + id);
          for (size_t k = 0; k < ids.size(); ++k)
            item.ids.push_back(static_cast<uint32_t>(integer(ids[k], path + ".special_tokens." + id + ".ids")));
        } else {
          fail(ip, "must be {\"Sequence\": ...} or {\"SpecialToken\": ...}");
        }
        p.single.push_back(std::move(item));
      }
    } else if (t == "Sequence") {
      const auto& items = list(v, "processors", path);
      for (size_t i = 0; i < items.size(); ++i)
        p.children.push_back(post(items[i], path + ".processors[" + std::to_string(i) + "]"));
    } else {
      fail(path + ".type", "post-processor \"" + t + "\" is not supported");
    }
    return p;
  }

  void model(const Value& v, TokenizerImpl& t, bool byte_level, std::string_view text, const TableSpans& spans) const {
    const std::string path = "model";
    const std::string type = str(v, "type", path, "BPE");
    if (type != "BPE") fail("model.type", "model \"" + type + "\" is not supported (BPE only)");
    Bpe& m = t.model;
    m.byte_level = byte_level;
    if (const Value* d = field(v, "dropout")) {
      if (!d->is_number() || d->to_double() != 0.0) fail("model.dropout", "BPE dropout is not supported");
    }
    if (const Value* u = field(v, "unk_token")) {
      if (!u->is_str()) fail("model.unk_token", "must be a string");
      m.unk_token = u->str();
      m.has_unk = true;
    }
    m.byte_fallback = flag(v, "byte_fallback", path, false);
    m.fuse_unk = flag(v, "fuse_unk", path, false);
    m.ignore_merges = flag(v, "ignore_merges", path, false);
    m.continuing_subword_prefix = str(v, "continuing_subword_prefix", path, "");
    m.end_of_word_suffix = str(v, "end_of_word_suffix", path, "");
    // The tables are read from the text (load_tables.hpp); the outline finds any object and list
    // there, so without a span the part is missing or of another type.
    const LoadFail report = [this](const std::string& p, const std::string& what) { fail(p, what); };
    if (!spans.vocab_end) fail("model.vocab", "must be an object {token: id}");
    read_vocab(text, spans, m, report);
    if (!spans.merges_end) fail("model.merges", "must be a list");
    read_merges(text, spans, m, report);
    m.finish();
    // Cutting long words before U+2581 is exact only when no token carries a prefix or suffix.
    if (!byte_level && m.continuing_subword_prefix.empty() && m.end_of_word_suffix.empty() &&
        m.vocab.contains("\xE2\x96\x81"))
      m.cut_char = 0x2581;
  }

  void added(const Value& root, TokenizerImpl& t) const {
    const Value* list = field(root, "added_tokens");
    if (!list) return;
    if (!list->is_list()) fail("added_tokens", "must be a list");
    std::vector<size_t> raw, normalized;
    for (size_t i = 0; i < list->items().size(); ++i) {
      const Value& v = list->items()[i];
      const std::string path = "added_tokens[" + std::to_string(i) + "]";
      if (!v.is_dict()) fail(path, "must be an object");
      AddedToken a;
      const Value* id = field(v, "id");
      if (!id) fail(path + ".id", "missing");
      a.id = static_cast<uint32_t>(integer(*id, path + ".id"));
      a.content = str(v, "content", path);
      a.special = flag(v, "special", path, false);
      a.lstrip = flag(v, "lstrip", path, false);
      a.rstrip = flag(v, "rstrip", path, false);
      a.single_word = flag(v, "single_word", path, false);
      a.normalized = flag(v, "normalized", path, !a.special);
      (a.normalized ? normalized : raw).push_back(t.added.size());
      t.added_by_content.emplace(a.content, a.id);
      t.added_by_id.emplace(a.id, t.added.size());
      t.added.push_back(std::move(a));
    }
    t.raw_matcher.build(t.added, raw);
    t.normalized_matcher.build(t.added, normalized);
  }

 private:
  std::string name_;
};

}  // namespace

TokenizerImpl load_tokenizer_json(std::string_view text, const std::string& name) {
  TableSpans spans;
  const Value root = read_outline(text, name, spans);
  Loader L(name);
  if (!root.is_dict()) L.fail("$", "a tokenizer.json must be an object");
  TokenizerImpl t;
  t.name = name;
  if (const Value* tr = L.field(root, "truncation")) (void)tr, L.fail("truncation", "truncation is not supported");
  if (const Value* pd = L.field(root, "padding")) (void)pd, L.fail("padding", "padding is not supported");
  if (const Value* n = L.field(root, "normalizer")) t.normalizer.push_back(L.normalizer(*n, "normalizer"));
  bool byte_level = false;
  if (const Value* p = L.field(root, "pre_tokenizer")) {
    t.pre_tokenizer.push_back(L.pre_tokenizer(*p, "pre_tokenizer", true));
    byte_level = Loader::has_byte_level(t.pre_tokenizer[0]);
  }
  const Value* m = L.field(root, "model");
  if (!m || !m->is_dict()) L.fail("model", "missing (an object is needed)");
  L.model(*m, t, byte_level, text, spans);
  if (const Value* p = L.field(root, "post_processor")) t.post.push_back(L.post(*p, "post_processor"));
  if (const Value* d = L.field(root, "decoder")) t.decoder.push_back(L.decoder(*d, "decoder"));
  L.added(root, t);
  return t;
}

}  // namespace toolchat::tokenize
