/* The C ABI from C: this file is compiled as strict C99 (-std=c99 -pedantic-errors
 * -Werror), so warpspec.h stays plain C, and calls the library from C. */
#include "warpspec/warpspec.h"

#include <string.h>

/* A default-constructed GEMM has no operands: the library must refuse it. Returns
 * the status and copies the thread's last error into `message`. */
int warpspec_test_refusal_from_c(char* message, size_t size) {
  warpspec_gemm_args args = warpspec_gemm_args_default();
  warpspec_status status = warpspec_gemm_check(&args);
  strncpy(message, warpspec_last_error(), size - 1);
  message[size - 1] = '\0';
  return (int)status;
}

/* struct_size as a C caller's compiler sees it. */
size_t warpspec_test_gemm_args_size_from_c(void) { return sizeof(warpspec_gemm_args); }

/* A default attention call has no tensors: refused, like the GEMM above. */
int warpspec_test_attention_refusal_from_c(char* message, size_t size) {
  warpspec_attention_args args = warpspec_attention_args_default();
  warpspec_status status = warpspec_attention_check(&args);
  strncpy(message, warpspec_last_error(), size - 1);
  message[size - 1] = '\0';
  return (int)status;
}

size_t warpspec_test_attention_args_size_from_c(void) { return sizeof(warpspec_attention_args); }

size_t warpspec_test_combine_args_size_from_c(void) { return sizeof(warpspec_combine_args); }
size_t warpspec_test_kvcache_append_args_size_from_c(void) { return sizeof(warpspec_kvcache_append_args); }

/* The append struct's default is FlashAttention's interleaved rotary. */
int warpspec_test_kvcache_append_interleaved_from_c(void) {
  warpspec_kvcache_append_args args = warpspec_kvcache_append_args_default();
  return (int)args.rotary_interleaved;
}
