#pragma once
// warpspec: Hopper (sm_90a) GEMM and attention kernels. The public C++ API.
//
// Every entry point returns a Status; bad input is refused before anything is
// launched, with a message naming the argument and the rule.
#include "warpspec/device.hpp"
#include "warpspec/status.hpp"
#include "warpspec/tensor.hpp"
#include "warpspec/gemm_api.hpp"
#include "warpspec/attention_api.hpp"
#include "warpspec/describe.hpp"
