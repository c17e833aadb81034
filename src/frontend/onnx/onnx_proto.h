// The one include of the ONNX protobuf definitions (Debian's libonnx-dev, built with ONNX_ML and
// the `onnx` namespace). Only src/frontend/onnx/ and its tests include this header.
#pragma once

#ifndef ONNX_ML
#define ONNX_ML 1
#endif
#ifndef ONNX_NAMESPACE
#define ONNX_NAMESPACE onnx
#endif

#include <onnx/onnx_pb.h>
