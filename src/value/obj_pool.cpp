// Heap objects (strings, lists, dicts, engine objects) come and go by the dozen in every render;
// their blocks are kept per thread by size and handed out again, without malloc's bookkeeping.
// A block freed on another thread than the one that made it joins that thread's lists (the
// lists hold plain memory, whichever thread carved it). Bounded per size; what a thread keeps
// is freed when it ends. Under a sanitizer every object is its own allocation, so that
// use-after-free and leaks stay visible.
#include <cstdlib>
#include <new>

#include "toolchat/value.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TOOLCHAT_OBJ_POOL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define TOOLCHAT_OBJ_POOL 0
#endif
#endif
#ifndef TOOLCHAT_OBJ_POOL
#define TOOLCHAT_OBJ_POOL 1
#endif

namespace toolchat {

#if TOOLCHAT_OBJ_POOL
namespace {

constexpr size_t kGrain = 16;
constexpr size_t kClasses = 16;      // blocks of 16, 32 ... 256 bytes; larger ones go to malloc
constexpr uint32_t kKeepPerClass = 512;

struct FreeBlock {
  FreeBlock* next;
};

// Trivially destructible, so that it stays usable while the thread's destructors run (a
// Value in a thread_local or static object may be dropped after the Drain below).
struct Lists {
  FreeBlock* head[kClasses];
  // How many more blocks a class may keep. Zero until the thread's first kept block registers
  // the Drain (then kKeepPerClass less what the list holds), and zero again once the thread is
  // ending: so the free path tests one counter.
  uint32_t room[kClasses];
  bool drain_registered;
};
// initial-exec: in the Python extension (a shared object) the default TLS model calls
// __tls_get_addr on every access, which cost ~4% of Template.apply; the lists are small enough
// for the static TLS space a dlopen'ed module may use.
__attribute__((tls_model("initial-exec"))) thread_local Lists lists;

struct Drain {
  ~Drain() {
    for (size_t c = 0; c < kClasses; ++c) {
      lists.room[c] = 0;  // blocks freed from now on go back to malloc
      while (FreeBlock* b = lists.head[c]) {
        lists.head[c] = b->next;
        ::operator delete(b);
      }
    }
  }
};

size_t class_of(size_t n) { return (n + kGrain - 1) / kGrain - 1; }

// The thread's first block to keep: registers the Drain that frees the lists when it ends.
[[gnu::noinline]] bool open_lists() {
  if (lists.drain_registered) return false;  // the thread is ending
  lists.drain_registered = true;
  thread_local Drain drain;  // constructed here, once per thread: registers its destructor
  (void)drain;
  for (size_t c = 0; c < kClasses; ++c) lists.room[c] = kKeepPerClass;
  return true;
}

// Block p (of class c) back on its list.
inline void keep(void* p, size_t c) noexcept {
  auto* b = static_cast<FreeBlock*>(p);
  b->next = lists.head[c];
  lists.head[c] = b;
  --lists.room[c];
}

// The slow paths are calls of their own, so that the fast ones (a list's head taken or given back)
// need no saved registers (a string's free: 18 instructions, not 30).
[[gnu::noinline]] void* allocate_fresh(size_t n) {
  size_t c = class_of(n);
  return ::operator new(c < kClasses ? (c + 1) * kGrain : n);
}

[[gnu::noinline]] void release_slow(void* p, size_t n) noexcept {
  size_t c = class_of(n);
  if (c < kClasses && !lists.drain_registered && open_lists()) keep(p, c);
  else ::operator delete(p);
}

}  // namespace

void* pool_allocate(size_t n) {
  size_t c = class_of(n);
  if (c < kClasses) {
    if (FreeBlock* b = lists.head[c]) {
      lists.head[c] = b->next;
      ++lists.room[c];
      return b;
    }
  }
  return allocate_fresh(n);
}

void pool_release(void* p, size_t n) noexcept {
  size_t c = class_of(n);
  if (c < kClasses && lists.room[c] != 0) keep(p, c);
  else release_slow(p, n);
}

#else

void* pool_allocate(size_t n) { return ::operator new(n); }
void pool_release(void* p, size_t) noexcept { ::operator delete(p); }

#endif

void* Obj::operator new(size_t n) { return pool_allocate(n); }
void Obj::operator delete(void* p, size_t n) noexcept { pool_release(p, n); }

// A string's block: [size_t block size][StrObj][bytes][NUL]; the size word sits before the object
// so that operator delete can read it once the destructor has run.
void* StrObj::operator new(size_t n, Extra e) {
  const size_t total = sizeof(size_t) + n + e.n + 1;
  auto* block = static_cast<size_t*>(pool_allocate(total));
  *block = total;
  return block + 1;
}

void StrObj::operator delete(void* p) noexcept {
  size_t* block = static_cast<size_t*>(p) - 1;
  pool_release(block, *block);
}

void StrObj::operator delete(void* p, Extra) noexcept { StrObj::operator delete(p); }

}  // namespace toolchat
