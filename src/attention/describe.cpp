#include "describe.hpp"

#include <cinttypes>

#include "../common/format.hpp"
#include "warpspec/tensor.hpp"

namespace warpspec::attention_impl {

std::string describe(const AttentionChoice& c) {
  std::string line = fmt("attention batch=%" PRId64 " seqlen_q=%" PRId64 " seqlen_k=%" PRId64 " heads=%" PRId64
                         " heads_kv=%" PRId64 " head_dim=%" PRId64 " dtype=%s",
                         c.batch, c.seqlen_q, c.seqlen_k, c.heads_q, c.heads_kv, c.head_dim, dtype_name(c.dtype));
  // An empty output is refused or accepted before the mask is planned: nothing more to say.
  if (c.shape.grid == 0) return line + " launch=none (empty output)";
  line += fmt(" mask=%s", c.causal ? "causal" : "none");
  line += fmt(" kernel_head_dim=%d block_m=%d block_n=%d stages=%d", c.kernel.head_dim, kBlockM, c.kernel.block_n,
              c.kernel.stages);
  line += fmt(" order=%s tiles=%d grid=%d pdl=%d",
              c.sched.order() == schedule::AttentionOrder::kLongestFirst ? "longest_first" : "m_fastest",
              c.sched.total_tiles(), c.shape.grid, c.shape.pdl ? 1 : 0);
  return line;
}

}  // namespace warpspec::attention_impl
