#pragma once

// cuDNN is always "compiled in" for the sample tree; flip to 0 to build the
// placeholder kernels in native/cudnn/ConvPlaceholders.cpp instead.
#define AT_CUDNN_ENABLED() 1
#define AT_ROCM_ENABLED() 0
