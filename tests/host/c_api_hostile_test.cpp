// The C ABI against malformed structs: a struct_size past any version is refused
// before a byte beyond the known struct is read (the size is checked, not trusted).
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "warpspec/warpspec.h"

// A named namespace (not an anonymous one): the host tests build as one unity
// translation unit, where every file's helpers must keep to themselves.
namespace c_api_hostile_test {

// A struct at the very end of a readable page, the next page unmapped: reading past
// the struct would fault, so a passing test proves nothing was read there.
template <class T>
T* at_page_end(void** region, size_t* region_bytes) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  *region_bytes = 2 * page;
  void* p = mmap(nullptr, *region_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  mprotect(static_cast<char*>(p) + page, page, PROT_NONE);
  *region = p;
  return reinterpret_cast<T*>(static_cast<char*>(p) + page - sizeof(T));
}

TEST(CApiHostile, HugeStructSizeIsRefusedWithoutReadingPastTheStruct) {
  void* region = nullptr;
  size_t bytes = 0;
  auto* g = at_page_end<warpspec_gemm_args>(&region, &bytes);
  ASSERT_NE(g, nullptr);
  *g = warpspec_gemm_args_default();
  for (uint64_t size : {uint64_t(4097), uint64_t(1) << 40, ~uint64_t(0)}) {
    g->struct_size = size;
    EXPECT_EQ(warpspec_gemm_check(g), WARPSPEC_INVALID_ARGUMENT) << size;
    EXPECT_NE(std::string(warpspec_last_error()).find("struct_size"), std::string::npos) << warpspec_last_error();
    EXPECT_EQ(warpspec_gemm(g, nullptr), WARPSPEC_INVALID_ARGUMENT) << size;
  }
  munmap(region, bytes);

  auto* a = at_page_end<warpspec_attention_args>(&region, &bytes);
  ASSERT_NE(a, nullptr);
  *a = warpspec_attention_args_default();
  a->struct_size = uint64_t(1) << 33;
  EXPECT_EQ(warpspec_attention_check(a), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(std::string(warpspec_last_error()).find("larger than any version"), std::string::npos)
      << warpspec_last_error();
  munmap(region, bytes);

  auto* c = at_page_end<warpspec_combine_args>(&region, &bytes);
  ASSERT_NE(c, nullptr);
  *c = warpspec_combine_args_default();
  c->struct_size = 8192;
  EXPECT_EQ(warpspec_attention_combine(c, nullptr), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(std::string(warpspec_last_error()).find("larger than any version"), std::string::npos)
      << warpspec_last_error();
  munmap(region, bytes);

  auto* k = at_page_end<warpspec_kvcache_append_args>(&region, &bytes);
  ASSERT_NE(k, nullptr);
  *k = warpspec_kvcache_append_args_default();
  k->struct_size = ~uint64_t(0);
  EXPECT_EQ(warpspec_kvcache_append(k, nullptr), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(std::string(warpspec_last_error()).find("larger than any version"), std::string::npos)
      << warpspec_last_error();
  munmap(region, bytes);
}

TEST(CApiHostile, UnknownFlagBitsAreRefusedAndPdlIsKnown) {
  warpspec_gemm_args g = warpspec_gemm_args_default();
  g.flags = WARPSPEC_FLAG_PDL | 0x80u;
  EXPECT_EQ(warpspec_gemm_check(&g), WARPSPEC_UNSUPPORTED);
  EXPECT_NE(std::string(warpspec_last_error()).find("0x80"), std::string::npos) << warpspec_last_error();
  g.flags = WARPSPEC_FLAG_PDL;  // known: the refusal is now about the (empty) tensors
  EXPECT_EQ(warpspec_gemm_check(&g), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(warpspec_last_error()).find("flags"), std::string::npos) << warpspec_last_error();
}

}  // namespace c_api_hostile_test
