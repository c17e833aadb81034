// Tensor operators (elementwise, broadcast, transforms, reductions, casts): attribute structs and
// builder functions.
#pragma once
