#define RINGLAB_KERNEL_NS generic
#include "reduce_kernels.inc"
