"""tessera.vta: VTA under TVM's ``vta`` names, over Tessera's C++ (src/vta).

``vta.get_env()`` (the hardware configuration), ``vta.graph_pack`` (TVM's ``vta.top.graph_pack``
and seed 000's variant), ``vta.build_config()`` (a PassContext with VTA's lowering passes),
``vta.topi`` (the packed 2-D convolution and its schedule), ``vta.lower``/``vta.build`` (of a
te.create_schedule schedule too), ``vta.run`` and ``vta.simulator``
(running a lowered PrimFunc on the simulator, its seven counters). Seed 000's helpers are
``tessera.vta.pack_tool`` and ``tessera.vta.vta_pattern`` (its ``vta_utils`` package).
"""
from .environment import Environment, get_env
from .pack_tool import graph_pack
from .build_module import build_config, run, lower, build
from . import simulator
from . import testing
from . import pack_tool
from . import vta_pattern
from . import topi


def reconfig_runtime(remote):  # pylint: disable=unused-argument
    """Only for a Pynq board, which Tessera does not drive (env.TARGET is "sim")."""
    raise NotImplementedError("vta.reconfig_runtime: Tessera runs VTA on its simulator only")


def program_fpga(remote, bitstream=None):  # pylint: disable=unused-argument
    """Only for a Pynq board, which Tessera does not drive (env.TARGET is "sim")."""
    raise NotImplementedError("vta.program_fpga: Tessera runs VTA on its simulator only")
