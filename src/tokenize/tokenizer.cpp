// The encode pipeline (added tokens, normalizer, pre-tokenizer, model, post-processor) and
// decode, in Hugging Face tokenizers' order.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>

#include "chat/gguf.hpp"
#include "tokenize/impl.hpp"
#include "toolchat/error.hpp"
#include "value/files.hpp"
#include "value/unicode.hpp"
#include "value/utf8_check.hpp"

namespace toolchat::tokenize {

namespace {

struct Tok {
  uint32_t id;
  std::pair<uint32_t, uint32_t> off;  // code points of the input
};

// Buffers of one encode call, kept per thread between calls (a text is many segments, and a
// program encodes many texts): trimmed after a call on a large text, so memory stays bounded.
struct Work {
  std::u32string cps;
  std::vector<uint32_t> cp_byte;
  std::vector<Piece> pieces;
  std::vector<ModelToken> mt;
  std::vector<std::pair<int64_t, std::pair<size_t, size_t>>> parts;
  BpeCache* cache = nullptr;
  NormStr seg, sub;  // the segment being encoded, and a piece of it between added tokens
  void trim() {
    if (cps.capacity() > kKeep) *this = Work{};
  }
  static constexpr size_t kKeep = 1 << 20;  // code points
};

// The model's word cache (bpe.hpp) for this thread: kept between encode calls, as Hugging Face's
// BPE keeps its own, for the tokenizer that used it last; emptied when another tokenizer encodes
// on the thread (and by the model when full).
BpeCache& thread_cache(uint64_t serial) {
  thread_local uint64_t owner = 0;
  thread_local BpeCache cache;
  if (owner != serial) {
    cache.words.clear();
    cache.parts.clear();
    owner = serial;
  }
  return cache;
}

// Pre-tokenize one text segment and run the model over its pieces.
void encode_segment(const TokenizerImpl& t, NormStr& seg, Work& w, std::vector<Tok>& out) {
  if (seg.s.empty()) return;
  decode_cps(seg.s, w.cps, w.cp_byte);
  w.pieces.assign(1, Piece{0, static_cast<uint32_t>(w.cps.size())});
  if (!t.pre_tokenizer.empty()) pre_tokenize(t.pre_tokenizer[0], seg, w.cps, w.cp_byte, w.pieces);
  for (const Piece& p : w.pieces) {
    const uint32_t b = w.cp_byte[p.begin], e = w.cp_byte[p.end];
    w.mt.clear();
    t.model.tokenize(std::string_view(seg.s).substr(b, e - b), w.cache, w.mt);
    for (const ModelToken& m : w.mt)
      out.push_back(Tok{m.id, {seg.align[b + m.begin].first, seg.align[b + m.end - 1].second}});
  }
}

// s[b, e) into r, reusing r's buffers (a text is many segments).
void slice(const NormStr& s, size_t b, size_t e, NormStr& r) {
  r.s.assign(s.s, b, e - b);
  r.align.assign(s.align.begin() + b, s.align.begin() + e);
}

// Characters ByteLevel's offset trimming takes off a token's ends: its alphabet's space (U+0120)
// and Unicode White_Space, as Rust's char::is_whitespace.
bool trimmed_char(char32_t c) {
  return c == 0x120 || (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

// ByteLevel's trim_offsets (HF byte_level.rs process_offsets): each token's offsets lose the
// spaces its text starts and ends with, except one leading space of the first token when
// add_prefix_space put it there. A model token's text is its vocabulary entry; an added token's
// is the text it matched, the spaces lstrip/rstrip took in included (HF keeps that text: taken
// here from the input, which a normalizer could have changed only for `normalized` tokens).
void trim_offsets(const TokenizerImpl& t, const PostProcessor& p, std::string_view input, std::vector<Tok>& toks) {
  std::u32string in_cps;  // the input's code points, decoded at the first added token
  std::u32string cps;
  for (size_t i = 0; i < toks.size(); ++i) {
    Tok& tok = toks[i];
    auto& [b, e] = tok.off;
    if (t.added_by_id.count(tok.id)) {
      if (in_cps.empty()) in_cps = uni::decode(input);
      cps.assign(in_cps, std::min<size_t>(b, in_cps.size()), e > b ? e - b : 0);
    } else if (tok.id < t.model.id_to_token.size()) {
      cps = uni::decode(t.model.id_to_token[tok.id]);
    } else {
      continue;
    }
    size_t lead = 0, trail = 0;
    while (lead < cps.size() && trimmed_char(cps[lead])) ++lead;
    while (trail < cps.size() && trimmed_char(cps[cps.size() - 1 - trail])) ++trail;
    if (lead > 0) {
      if ((i == 0 || b == 0) && p.add_prefix_space && lead == 1) lead = 0;
      b = std::min<uint32_t>(b + static_cast<uint32_t>(lead), e);
    }
    if (trail > 0 && e >= trail) e = std::max<uint32_t>(e - static_cast<uint32_t>(trail), b);
  }
}

void post_process(const TokenizerImpl& t, const PostProcessor& p, std::string_view input, std::vector<Tok>& toks,
                  bool add_special) {
  switch (p.type) {
    case PostProcessor::Type::Sequence:
      for (const PostProcessor& c : p.children) post_process(t, c, input, toks, add_special);
      return;
    case PostProcessor::Type::ByteLevel:
      if (p.trim_offsets) trim_offsets(t, p, input, toks);
      return;
    case PostProcessor::Type::TemplateProcessing: {
      if (!add_special) return;
      std::vector<Tok> out;
      out.reserve(toks.size() + 4);
      for (const auto& item : p.single) {
        if (item.is_sequence) out.insert(out.end(), toks.begin(), toks.end());
        else
          for (uint32_t id : item.ids) out.push_back(Tok{id, {0, 0}});
      }
      toks.swap(out);
      return;
    }
  }
}

}  // namespace

TokenizerImpl::TokenizerImpl() {
  static std::atomic<uint64_t> next{1};
  serial = next.fetch_add(1, std::memory_order_relaxed);
}

Encoding TokenizerImpl::encode(std::string_view input, bool add_special_tokens,
                               const std::vector<std::pair<uint32_t, uint32_t>>* plain, bool* skipped) const {
  std::string fixed;
  if (utf8::find_invalid(input) != std::string_view::npos) {
    fixed = utf8_lossy(input);
    input = fixed;
  }
  NormStr text;
  text.s.assign(input);
  text.align.resize(input.size());
  {
    uint32_t cp = 0;
    for (size_t i = 0; i < input.size(); ++i) {
      if ((static_cast<unsigned char>(input[i]) & 0xC0) != 0x80 && i > 0) ++cp;
      text.align[i] = {cp, cp + 1};
    }
  }
  thread_local Work w;
  w.cache = &thread_cache(serial);
  struct Trim {
    Work& w;
    ~Trim() { w.trim(); }
  } trim{w};
  std::vector<Tok> toks;
  toks.reserve(input.size() / 3 + 4);
  auto range_of = [](const NormStr& s, size_t b, size_t e) -> std::pair<uint32_t, uint32_t> {
    return {s.align[b].first, s.align[e - 1].second};
  };
  // A special token whose match overlaps a plain range stays text (HF's encode_special_tokens).
  const NormStr* where = &text;
  AddedTokenMatcher::SkipMatch skip_fn;  // built only with plain ranges (a std::function may allocate)
  if (plain && !plain->empty()) skip_fn = [&](size_t b, size_t e, const AddedToken& at) {
    if (!at.special) return false;
    const uint32_t cb = where->align[b].first, ce = where->align[e - 1].second;
    auto it = std::upper_bound(plain->begin(), plain->end(), std::make_pair(cb, UINT32_MAX));
    const bool overlaps = (it != plain->begin() && std::prev(it)->second > cb) || (it != plain->end() && it->first < ce);
    if (overlaps && skipped) *skipped = true;
    return overlaps;
  };
  const AddedTokenMatcher::SkipMatch* skip = skip_fn ? &skip_fn : nullptr;
  if (skipped) *skipped = false;
  std::vector<std::pair<int64_t, std::pair<size_t, size_t>>> raw_parts;
  if (raw_matcher.empty()) raw_parts.push_back({-1, {0, input.size()}});
  else raw_matcher.split(input, added, raw_parts, skip);
  for (const auto& [tok, r] : raw_parts) {
    if (tok >= 0) {
      toks.push_back(Tok{added[static_cast<size_t>(tok)].id, range_of(text, r.first, r.second)});
      continue;
    }
    if (r.second <= r.first) continue;
    // The whole text as one part (no added token in it): moved, not copied.
    NormStr& seg = w.seg;
    if (raw_parts.size() == 1) seg = std::move(text);
    else slice(text, r.first, r.second, seg);
    if (!normalizer.empty()) normalizer[0].apply(seg);
    if (normalized_matcher.empty()) {
      encode_segment(*this, seg, w, toks);
      continue;
    }
    w.parts.clear();
    where = &seg;
    normalized_matcher.split(seg.s, added, w.parts, skip);
    where = &text;
    for (const auto& [tok2, r2] : w.parts) {  // encode_segment leaves w.parts alone
      if (tok2 >= 0) {
        toks.push_back(Tok{added[static_cast<size_t>(tok2)].id, range_of(seg, r2.first, r2.second)});
        continue;
      }
      if (r2.second <= r2.first) continue;
      NormStr& sub = w.sub;
      slice(seg, r2.first, r2.second, sub);
      encode_segment(*this, sub, w, toks);
    }
  }
  if (!post.empty()) post_process(*this, post[0], input, toks, add_special_tokens);
  Encoding e;
  e.ids.reserve(toks.size());
  e.offsets.reserve(toks.size());
  for (const Tok& t : toks) {
    e.ids.push_back(t.id);
    e.offsets.push_back(t.off);
  }
  return e;
}

std::string TokenizerImpl::decode(const std::vector<uint32_t>& ids, bool skip_special_tokens) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (uint32_t id : ids) {
    auto a = added_by_id.find(id);
    if (a != added_by_id.end()) {
      if (skip_special_tokens && added[a->second].special) continue;
      tokens.push_back(added[a->second].content);
      continue;
    }
    if (id < model.id_to_token.size() && !model.id_to_token[id].empty())
      tokens.push_back(model.id_to_token[id]);
  }
  if (decoder.empty()) {
    std::string r;
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (i) r += ' ';
      r += tokens[i];
    }
    return r;
  }
  decoder[0].apply(tokens);
  std::string r;
  for (const std::string& s : tokens) r += s;
  return r;
}

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------
Tokenizer::Tokenizer(std::shared_ptr<const TokenizerImpl> impl) : impl_(std::move(impl)) {}
Tokenizer::~Tokenizer() = default;
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;

Tokenizer Tokenizer::from_json(std::string_view json_text, const std::string& name) {
  return Tokenizer(std::make_shared<const TokenizerImpl>(load_tokenizer_json(json_text, name)));
}

Tokenizer Tokenizer::load(const std::string& path) {
  if (path.size() > 5 && path.compare(path.size() - 5, 5, ".gguf") == 0) {
    chat::GgufReadOptions o;
    o.keep = [](std::string_view key) { return key.rfind("tokenizer.ggml.", 0) == 0; };
    return Tokenizer(std::make_shared<const TokenizerImpl>(load_gguf_tokenizer(chat::read_gguf(path, o), path)));
  }
  std::string file = path;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) file = path + "/tokenizer.json";
  // A folder without the file is named as such; any other failure gets the OS's reason (files.hpp).
  if (file != path && ::access(file.c_str(), F_OK) != 0)
    throw_error(ErrorKind::ValueError, path + ": the folder has no tokenizer.json");
  return from_json(files::read_file(file, UINT64_MAX, "tokenizer file"), file);
}

Encoding Tokenizer::encode(std::string_view text, bool add_special_tokens) const {
  return impl_->encode(text, add_special_tokens);
}

Encoding Tokenizer::encode_with_plain(std::string_view text, const std::vector<std::pair<size_t, size_t>>& plain,
                                     bool add_special_tokens, bool* special_text_in_plain) const {
  if (utf8::find_invalid(text) != std::string_view::npos)
    throw_error(ErrorKind::ValueError, "encode_with_plain: the text is not valid UTF-8");
  std::vector<std::pair<uint32_t, uint32_t>> cps;
  cps.reserve(plain.size());
  size_t at = 0;
  uint32_t cp = 0;
  auto cp_of = [&](size_t byte) {  // byte offsets are visited in order
    byte = std::min(byte, text.size());
    for (; at < byte; ++at) cp += (static_cast<unsigned char>(text[at]) & 0xC0) != 0x80;
    return cp;
  };
  size_t last = 0;
  for (const auto& [b, e] : plain) {
    if (b < last || e < b) throw_error(ErrorKind::ValueError, "encode_with_plain: plain ranges must be sorted and not overlap");
    last = e;
    const uint32_t cb = cp_of(b), ce = cp_of(e);
    if (ce > cb) cps.push_back({cb, ce});
  }
  return impl_->encode(text, add_special_tokens, &cps, special_text_in_plain);
}

std::vector<uint32_t> Tokenizer::encode_ids(std::string_view text, bool add_special_tokens) const {
  return impl_->encode(text, add_special_tokens).ids;
}

std::string Tokenizer::decode(const std::vector<uint32_t>& ids, bool skip_special_tokens) const {
  return impl_->decode(ids, skip_special_tokens);
}

std::string Tokenizer::id_to_token(uint32_t id) const {
  auto a = impl_->added_by_id.find(id);
  if (a != impl_->added_by_id.end()) return impl_->added[a->second].content;
  return id < impl_->model.id_to_token.size() ? impl_->model.id_to_token[id] : std::string();
}

int64_t Tokenizer::token_to_id(std::string_view token) const {
  auto a = impl_->added_by_content.find(std::string(token));
  if (a != impl_->added_by_content.end()) return a->second;
  const auto& v = impl_->model.id_to_token;
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] == token) return static_cast<int64_t>(i);
  return -1;
}

size_t Tokenizer::vocab_size() const {
  size_t n = impl_->model.id_to_token.size();
  for (const AddedToken& a : impl_->added) n = std::max<size_t>(n, a.id + 1);
  return n;
}

}  // namespace toolchat::tokenize
