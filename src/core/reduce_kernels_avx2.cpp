// Compiled with -mavx2 -mf16c (see src/CMakeLists.txt); only called where the CPU has AVX2.
#define RINGLAB_KERNEL_NS avx2
#include "reduce_kernels.inc"
