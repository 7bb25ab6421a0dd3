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
  const bool left = c.window_left >= 0, right = c.window_right >= 0;
  if (!left && !right) line += " mask=none";
  else if (!left && c.window_right == 0) line += " mask=causal";
  else line += fmt(" mask=window window_left=%d window_right=%d", left ? c.window_left : -1, right ? c.window_right : -1);
  if (c.softcap > 0) line += fmt(" softcap=%g", double(c.softcap));
  if (c.varlen) line += " varlen=1";
  if (c.sched.splits() > 1) line += fmt(" splits=%d", c.sched.splits());
  if (c.page_size > 0) line += fmt(" page_size=%d", c.page_size);
  if (c.pack_gqa > 1) line += fmt(" pack_gqa=%d", c.pack_gqa);
  line += fmt(" kernel_head_dim=%d block_m=%d block_n=%d stages=%d", c.kernel.head_dim, c.kernel.block_m(), c.kernel.block_n,
              c.kernel.stages);
  if (c.kernel.v_stages > 0) line += fmt(" v_stages=%d", c.kernel.v_stages);  // a V ring deeper than K's
  if (!c.kernel.pingpong) line += " turns=free";  // the consumers issue without taking turns
  if (!c.kernel.pack_gqa && !c.kernel.chunk && !c.kernel.split_kv) line += " lean";  // config.hpp: none of the three
  if (c.sched.sections() > 1) line += fmt(" l2_sections=%d", c.sched.sections());
  line += fmt(" order=%s schedule=%s tiles=%d grid=%d pdl=%d",
              c.sched.order() == schedule::AttentionOrder::kLongestFirst ? "longest_first" : "m_fastest",
              c.dynamic ? "dynamic" : "static", c.sched.total_tiles(), c.shape.grid, c.shape.pdl ? 1 : 0);
  return line;
}

}  // namespace warpspec::attention_impl
