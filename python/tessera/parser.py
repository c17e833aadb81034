"""tessera.parser: reading Relay text (TVM's tvm.parser)."""
from . import _core


def parse(source, source_name="from_string", init_module=None, init_meta_table=None):
    """The module written in ``source`` (Relay text, with or without a metadata section), type
    checked. Malformed text raises DiagnosticError with the line and column in ``.span``."""
    if init_module is not None or init_meta_table is not None:
        raise NotImplementedError("parse(init_module=, init_meta_table=) is not supported")
    return _core.parse_module(source, source_name)


def parse_expr(source, source_name="from_string"):
    """One expression written in Relay text (not type checked)."""
    return _core.parse_expr(source, source_name)


fromtext = parse
