"""tessera.contrib (TVM's tvm.contrib)."""
from . import graph_executor
from . import utils

graph_runtime = graph_executor  # TVM < 0.8's name
