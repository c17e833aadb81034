"""tessera.contrib (TVM's tvm.contrib)."""
from . import graph_executor

graph_runtime = graph_executor  # TVM < 0.8's name
