#include "/work/main/tools/attention_runner.cu"
#include "/work/main/tools/gemm_runner.cu"
