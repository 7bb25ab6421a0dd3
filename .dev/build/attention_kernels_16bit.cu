#include "/work/main/src/attention/attention_hd128.cu"
#include "/work/main/src/attention/attention_hd192.cu"
#include "/work/main/src/attention/attention_hd64.cu"
