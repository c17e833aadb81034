// nn.* operators: attribute structs and builder functions.
#pragma once
