#include "tokenize/vocab.hpp"

#include "toolchat/error.hpp"

namespace toolchat::tokenize {

void Vocab::rehash(size_t slots) {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(slots, Slot{});
  mask_ = slots - 1;
  for (const Slot& s : old) {
    if (s.id == kEmpty) continue;
    char buf[kInlineMax];
    size_t i = hash(text_of(s.key, buf)) & mask_;
    while (slots_[i].id != kEmpty) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

void Vocab::reserve(size_t n) {
  size_t slots = 16;
  while (slots < n * 2) slots *= 2;
  if (slots > slots_.size()) rehash(slots);
}

int64_t Vocab::set(std::string_view text, uint32_t id) {
  if (id == kEmpty) throw_error(ErrorKind::LimitError, "tokenizer: token id too large");
  if ((count_ + 1) * 2 > slots_.size()) rehash(slots_.empty() ? 16 : slots_.size() * 2);
  const uint64_t h = hash(text);
  const uint32_t tag = static_cast<uint32_t>(h >> 32);
  const bool short_text = text.size() <= kInlineMax;
  const uint64_t key = short_text ? inline_key(text) : 0;
  size_t i = h & mask_;
  for (; slots_[i].id != kEmpty; i = (i + 1) & mask_) {
    Slot& s = slots_[i];
    if (s.tag == tag && (short_text ? s.key == key : long_equal(s.key, text))) {
      const uint32_t old = s.id;
      s.id = id;
      return old;
    }
  }
  uint64_t k = key;
  if (!short_text) {
    if (text.size() >= (uint64_t(1) << 23) || texts_.size() + text.size() >= (uint64_t(1) << 40))
      throw_error(ErrorKind::LimitError, "tokenizer: a vocabulary text is too long");
    k = uint64_t(text.size()) << 40 | texts_.size();
    texts_.append(text);
  }
  slots_[i] = Slot{k, tag, id};
  ++count_;
  return -1;
}

}  // namespace toolchat::tokenize
