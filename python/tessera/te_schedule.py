"""TVM's legacy TE schedules (``te.create_schedule``) as a facade over tir.Schedule.

``s = te.create_schedule(out.op)`` gives stages (``s[tensor]``) whose primitives (split, fuse,
reorder, tile, compute_at, compute_inline, set_scope, cache_read, cache_write, bind, pragma,
tensorize, vectorize, parallel, unroll) are *recorded*, checked as TE checks them, and replayed
on a tir.Schedule of ``te.create_prim_func(args)`` when ``tvm.lower(s, args)`` or
``tvm.build(s, args)`` asks for code. There is no second scheduler: every loop change is a
TensorIR primitive, and the replay is the declarative TE state turned into TensorIR steps.

Why lazily: TE is declarative (compute_at names an attach point, relations apply at lowering),
while TensorIR is imperative (compute_at needs the consumers already in place and regenerates the
producer's loops). So the replay orders the steps as TE's lowering would: cache stages first,
then inlining, then stage by stage from the outputs towards the inputs (a consumer's loops exist
before a producer is attached under them), each stage attached first and then split, fused and
reordered on its own loops, so ``s[x].op.axis`` always means the stage's own loops; annotations
after every loop exists; reductions decomposed where TE puts their init (before the first
reduction loop); tensorization last. Design: docs/design/te-schedule-facade.md.
"""
from . import _core
from . import _te_replay
from ._te_replay import _error


class IterVar:
    """A loop of a stage: a root axis (``s[t].op.axis``, ``.op.reduce_axis``) or one a split or
    fuse made. Leaves are the loops the stage has now; a split or fused axis is no longer one."""

    def __init__(self, stage, name, reduce):
        self.stage = stage
        self.name = name
        self.reduce = reduce
        self.leaf = True

    @property
    def var(self):
        return self

    def __repr__(self):
        return f"IterVar({self.stage.name}.{self.name})"


class ThreadAxis:
    """``te.thread_axis(tag)``: what ``bind`` binds a loop to (``"cthread"``, ``"vthread"``,
    ``"threadIdx.x"``, ``"blockIdx.x"``, ...)."""

    def __init__(self, tag, dom=None, name=""):
        self.tag = tag
        self.dom = dom
        self.name = name or tag

    def __repr__(self):
        return f"thread_axis({self.tag!r})"


def thread_axis(dom=None, tag="", name="", span=None):  # pylint: disable=unused-argument
    """TVM's ``te.thread_axis(dom=None, tag="", name="")``; ``thread_axis("cthread")`` too."""
    if isinstance(dom, str):
        dom, tag = None, dom
    if not tag:
        raise _error("te.thread_axis: a thread tag is required (\"threadIdx.x\", \"cthread\", ...)")
    return ThreadAxis(tag, dom, name)


class _StageOp:
    """``s[t].op``: the stage's operation as its schedule sees it (its own root axes)."""

    def __init__(self, stage):
        self._stage = stage

    name = property(lambda self: self._stage.name)
    axis = property(lambda self: list(self._stage.root_axis))
    reduce_axis = property(lambda self: list(self._stage.root_reduce_axis))
    input_tensors = property(lambda self: [s.tensor for s in self._stage.inputs])

    def output(self, index):
        if index != 0:
            raise _error(f"stage {self.name} has one output")
        return self._stage.tensor


class CacheTensor:
    """The tensor of a stage made by cache_read / cache_write (TE's ``A.shared``)."""

    def __init__(self, stage, shape, dtype):
        self._stage = stage
        self.shape = shape
        self.dtype = dtype

    name = property(lambda self: self._stage.name)
    op = property(lambda self: _StageOp(self._stage))
    ndim = property(lambda self: len(self.shape))

    def __repr__(self):
        return f"Tensor({self.name})"


class Stage:
    """One operation's schedule (``s[tensor]``): its loops and the primitives recorded on it."""

    def __init__(self, schedule, name, tensor, inputs, n_axis=0, n_reduce=0, iter_vars=()):
        self.schedule = schedule
        self.name = name
        self.tensor = tensor
        self.inputs = list(inputs)  # producer stages
        self.is_compute = tensor is not None and (
            isinstance(tensor, CacheTensor) or tensor.op_is_compute)
        self.root_axis = [IterVar(self, _axis_name(iter_vars, i, "ax"), False)
                          for i in range(n_axis)]
        self.root_reduce_axis = [IterVar(self, _axis_name(iter_vars, n_axis + i, "rv"), True)
                                 for i in range(n_reduce)]
        # The te.IterVars of the TE operation (user-made reduce axes included) -> root axes.
        self.te_axes = dict(zip(iter_vars, self.root_axis + self.root_reduce_axis))
        self.leaves = self.root_axis + self.root_reduce_axis
        self.relations = []  # ("split", parent, outer, inner, factor, nparts) / fuse / reorder
        self.annotations = []  # (kind, axis, value): bind, pragma, vectorize, ...
        self.attach = None  # (stage, axis) of compute_at
        self.inlined = False
        self.scope = None
        self.tensorize_at = None  # (axis, intrinsic name)
        self.cache_source = None  # set on stages cache_read/cache_write made
        self.cache_scope = None  # the scope they were made with

    def __repr__(self):
        return f"stage({self.name})"

    @property
    def op(self):
        return _StageOp(self)

    @property
    def leaf_iter_vars(self):
        return list(self.leaves)

    @property
    def all_iter_vars(self):
        return list(self.leaves)

    # --- checks --------------------------------------------------------------------------------

    def _axis(self, axis, what):
        """``axis`` as this stage's IterVar (a facade axis, or a te.IterVar of its operation)."""
        if isinstance(axis, IterVar):
            if axis.stage is not self:
                raise _error(f"{what}: axis {axis.name} belongs to stage {axis.stage.name}, "
                             f"not to stage {self.name}", self.name)
            return axis
        if isinstance(axis, _core.IterVar) and axis in self.te_axes:
            return self.te_axes[axis]
        if isinstance(axis, _core.IterVar):
            raise _error(f"{what}: axis {axis.var.name} is not an axis of stage {self.name}",
                         self.name)
        raise _error(f"{what}: expected an axis (IterVar) of stage {self.name}, got "
                     f"{type(axis).__name__}", self.name)

    def _leaf(self, axis, what):
        axis = self._axis(axis, what)
        if not axis.leaf:
            raise _error(f"{what}: axis {axis.name} of stage {self.name} is not a loop any more "
                         "(it was split or fused)", self.name)
        return axis

    def _compute(self, what):
        if not self.is_compute:
            raise _error(f"{what}: {self.name} is a placeholder, which has no loops to schedule",
                         self.name)
        if self.inlined:
            raise _error(f"{what}: stage {self.name} was inlined (compute_inline)", self.name)

    # --- loop relations ------------------------------------------------------------------------

    def split(self, parent, factor=None, nparts=None):
        """Splits ``parent`` into (outer, inner): inner of ``factor`` iterations, or outer of
        ``nparts``."""
        self._compute("split")
        parent = self._leaf(parent, "split")
        if (factor is None) == (nparts is None):
            raise _error("split: give exactly one of factor= and nparts=", self.name)
        outer = IterVar(self, parent.name + ".outer", parent.reduce)
        inner = IterVar(self, parent.name + ".inner", parent.reduce)
        i = self.leaves.index(parent)
        self.leaves[i:i + 1] = [outer, inner]
        parent.leaf = False
        self.relations.append(("split", parent, outer, inner, factor, nparts))
        return outer, inner

    def fuse(self, *args):
        """Fuses consecutive loops (outermost first) into one."""
        self._compute("fuse")
        axes = [self._leaf(a, "fuse") for a in _flatten(args)]
        if not axes:
            raise _error("fuse: no axes given", self.name)
        pos = [self.leaves.index(a) for a in axes]
        if pos != list(range(pos[0], pos[0] + len(pos))):
            raise _error("fuse: the axes must be consecutive loops, outermost first", self.name)
        if len({a.reduce for a in axes}) > 1:
            raise _error("fuse: cannot fuse a data-parallel axis with a reduction axis",
                         self.name)
        fused = IterVar(self, ".".join(a.name for a in axes) + ".fused", axes[0].reduce)
        self.leaves[pos[0]:pos[-1] + 1] = [fused]
        for a in axes:
            a.leaf = False
        self.relations.append(("fuse", axes, fused))
        return fused

    def reorder(self, *args):
        """Puts the given loops in this order, in the positions they occupy."""
        self._compute("reorder")
        axes = [self._leaf(a, "reorder") for a in _flatten(args)]
        if len(set(map(id, axes))) != len(axes):
            raise _error("reorder: an axis is given twice", self.name)
        slots = sorted(self.leaves.index(a) for a in axes)
        for slot, axis in zip(slots, axes):
            self.leaves[slot] = axis
        self.relations.append(("reorder", axes))

    def tile(self, x_parent, y_parent, x_factor, y_factor):
        """Splits two loops and orders them (x.outer, y.outer, x.inner, y.inner)."""
        xo, xi = self.split(x_parent, factor=x_factor)
        yo, yi = self.split(y_parent, factor=y_factor)
        self.reorder(xo, yo, xi, yi)
        return xo, yo, xi, yi

    # --- placement -----------------------------------------------------------------------------

    def compute_at(self, parent, scope):
        """Computes this stage inside loop ``scope`` of stage ``parent`` (one of its consumers,
        directly or through other stages)."""
        self._compute("compute_at")
        parent = self.schedule[parent]
        parent._compute("compute_at")  # pylint: disable=protected-access
        scope = parent._axis(scope, "compute_at")  # pylint: disable=protected-access
        if not self.schedule._feeds(self, parent):  # pylint: disable=protected-access
            raise _error(f"compute_at: stage {parent.name} does not consume {self.name} (directly "
                         "or through other stages), so it cannot hold its computation", self.name)
        if self in self.schedule.outputs_stages:
            raise _error(f"compute_at: {self.name} is an output of the schedule", self.name)
        self.attach = (parent, scope)

    def compute_root(self):
        """Computes this stage at the function's top level (the default)."""
        self._compute("compute_root")
        self.attach = None

    def compute_inline(self):
        """Inlines this stage's expression into its consumers."""
        self._compute("compute_inline")
        if self in self.schedule.outputs_stages:
            raise _error(f"compute_inline: {self.name} is an output of the schedule", self.name)
        if self.root_reduce_axis:
            raise _error(f"compute_inline: {self.name} is a reduction, which cannot be inlined",
                         self.name)
        for stage in self.schedule.stages:
            if stage.attach and stage.attach[0] is self:
                raise _error(f"compute_inline: stage {stage.name} is computed at {self.name}",
                             self.name)
        self.inlined = True

    def set_scope(self, scope):
        """Stores this stage's output in memory ``scope`` (``"shared"``, ``"local.acc_buffer"``)."""
        self._compute("set_scope")
        self.scope = scope

    # --- loop annotations ----------------------------------------------------------------------

    def _annotate(self, kind, axis, value=None):
        self._compute(kind)
        self.annotations.append((kind, self._leaf(axis, kind), value))

    def bind(self, ivar, thread_ivar):
        """Binds a loop to a thread axis (``te.thread_axis("cthread")``, ...)."""
        if not isinstance(thread_ivar, ThreadAxis):
            raise _error("bind: expected a te.thread_axis, got " + type(thread_ivar).__name__,
                         self.name)
        self._annotate("bind", ivar, thread_ivar.tag)

    def pragma(self, var, pragma_type, pragma_value=None):
        """Marks a loop with ``pragma_<type>`` (VTA's ``env.dma_copy``, ``env.alu``)."""
        self._annotate("pragma", var, (pragma_type, 1 if pragma_value is None else pragma_value))

    def vectorize(self, var):
        self._annotate("vectorize", var)

    def parallel(self, var):
        self._annotate("parallel", var)

    def unroll(self, var):
        self._annotate("unroll", var)

    def tensorize(self, var, tensor_intrin):
        """Replaces the loops from ``var`` inwards by a registered tensor intrinsic (its name, as
        VTA's ``env.gemm``; TE's ``decl_tensor_intrin`` objects have no TensorIR counterpart)."""
        self._compute("tensorize")
        if not isinstance(tensor_intrin, str):
            raise _error("tensorize: expected the name of a registered tensor intrinsic "
                         "(tir.TensorIntrin.register); te.decl_tensor_intrin is not supported",
                         self.name)
        self.tensorize_at = (self._leaf(var, "tensorize"), tensor_intrin)

    def _unsupported(self, name, instead=""):
        raise _error(f"{name}: this TE primitive has no TensorIR counterpart in Tessera"
                     + (f"; {instead}" if instead else ""), self.name)

    def double_buffer(self):
        self._unsupported("double_buffer")

    def storage_align(self, axis, factor, offset):  # pylint: disable=unused-argument
        self._unsupported("storage_align", "use tir.Schedule.storage_align")

    def env_threads(self, threads):  # pylint: disable=unused-argument
        self._unsupported("env_threads")

    def set_store_predicate(self, predicate):  # pylint: disable=unused-argument
        self._unsupported("set_store_predicate")

    def prefetch(self, tensor, var, offset):  # pylint: disable=unused-argument
        self._unsupported("prefetch")


def _axis_name(iter_vars, i, prefix):
    return iter_vars[i].var.name if i < len(iter_vars) else f"{prefix}{i}"


def _flatten(args):
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return list(args[0])
    return list(args)


def _tensor_of(x):
    """A te.Tensor (or CacheTensor) for a tensor or an operation (``res.op``)."""
    return getattr(x, "_tensor", x)


class Schedule:
    """``te.create_schedule(ops)``: a stage per operation reachable from the outputs."""

    def __init__(self, ops):
        outputs = [_tensor_of(o) for o in (ops if isinstance(ops, (list, tuple)) else [ops])]
        for out in outputs:
            if not isinstance(out, _core.TeTensor):
                raise _error("te.create_schedule: expected te operations or tensors, got "
                             + type(out).__name__)
        self.stages = []
        self._by_op = {}
        for tensor in _te_replay.post_order(outputs):
            self._add_stage(tensor)
        self.outputs_stages = [self._by_op[t.op_id] for t in outputs]
        self.cache_ops = []  # ("read", stage, readers) / ("write", compute stage, copy stage)

    def _add_stage(self, tensor):
        if tensor.op_is_compute and tensor.op_num_outputs != 1:
            raise _error(f"te.create_schedule: {tensor.op_name} has {tensor.op_num_outputs} "
                         "outputs; multi-output computes are not supported by the facade")
        axes = tensor.op_axis if tensor.op_is_compute else []
        red = tensor.op_reduce_axis if tensor.op_is_compute else []
        stage = Stage(self, tensor.op_name, tensor,
                      [self._by_op[t.op_id] for t in tensor.op_inputs], len(axes), len(red),
                      list(axes) + list(red))
        self.stages.append(stage)
        self._by_op[tensor.op_id] = stage

    @property
    def outputs(self):
        return [s.tensor.op for s in self.outputs_stages]

    def __getitem__(self, key):
        if isinstance(key, Stage):
            if key.schedule is not self:
                raise _error(f"stage {key.name} belongs to another schedule")
            return key
        if isinstance(key, CacheTensor):
            return key._stage  # pylint: disable=protected-access
        tensor = _tensor_of(key)
        if isinstance(tensor, _core.TeTensor) and tensor.op_id in self._by_op:
            return self._by_op[tensor.op_id]
        name = getattr(tensor, "name", type(key).__name__)
        raise _error(f"{name} is not an operation of this schedule (not reachable from its "
                     "outputs)")

    def _feeds(self, producer, consumer):
        """Whether ``consumer`` reads ``producer``'s output, directly or through stages."""
        todo, seen = [consumer], set()
        while todo:
            stage = todo.pop()
            for p in stage.inputs:
                if p is producer:
                    return True
                if id(p) not in seen:
                    seen.add(id(p))
                    todo.append(p)
        return False

    def _readers(self, stage):
        return [s for s in self.stages if stage in s.inputs]

    def cache_read(self, tensor, scope, readers):
        """A stage copying ``tensor`` into ``scope``, read by ``readers`` instead of it."""
        source = self[tensor]
        readers = [self[r] for r in (readers if isinstance(readers, (list, tuple)) else [readers])]
        for r in readers:
            if source not in r.inputs:
                raise _error(f"cache_read: {r.name} does not read {source.name}", source.name)
        ndim = len(source.tensor.shape)
        cache = Stage(self, f"{source.name}.{scope}", None, [source], ndim)
        cache.tensor = CacheTensor(cache, source.tensor.shape, source.tensor.dtype)
        cache.is_compute, cache.scope, cache.cache_source = True, scope, source
        cache.cache_scope = scope
        for r in readers:
            r.inputs = [cache if s is source else s for s in r.inputs]
        self.stages.insert(self.stages.index(source) + 1, cache)
        self.cache_ops.append(("read", cache, readers))
        return cache.tensor

    def cache_write(self, tensor, scope):
        """The computation of ``tensor`` moved into a new stage writing ``scope``; ``s[tensor]``
        becomes the copy from it (its returned tensor holds the reduction, as in TE)."""
        stage = self[tensor]
        stage._compute("cache_write")  # pylint: disable=protected-access
        if stage.relations or stage.annotations or stage.attach:
            raise _error("cache_write: create the cache before doing split/fuse/reorder or "
                         "compute_at on the stage", stage.name)
        cache = Stage(self, f"{stage.name}.{scope}", None, stage.inputs)
        cache.tensor = CacheTensor(cache, stage.tensor.shape, stage.tensor.dtype)
        # As in TE, the stage keeps its spatial axes (``C.op.axis`` still schedules s[C], now
        # the copy); the cache stage gets new ones (``i.c``) and the reduction axes, so the
        # user's ``te.reduce_axis`` schedules it.
        cache.root_axis = [IterVar(cache, a.name + ".c", False) for a in stage.root_axis]
        cache.root_reduce_axis = stage.root_reduce_axis
        for axis in cache.root_reduce_axis:
            axis.stage = cache
        cache.te_axes = {iv: a for iv, a in stage.te_axes.items() if a.reduce}
        cache.leaves = cache.root_axis + cache.root_reduce_axis
        cache.is_compute, cache.scope, cache.cache_source = True, scope, stage
        cache.cache_scope = scope
        stage.te_axes = {iv: a for iv, a in stage.te_axes.items() if not a.reduce}
        stage.root_reduce_axis = []
        stage.leaves = list(stage.root_axis)
        stage.inputs = [cache]
        self.stages.insert(self.stages.index(stage), cache)
        self.cache_ops.append(("write", cache, stage))
        return cache.tensor

    def _unsupported(self, name):
        raise _error(f"{name}: this TE primitive has no TensorIR counterpart in Tessera")

    def rfactor(self, tensor, axis, factor_axis=0):  # pylint: disable=unused-argument
        self._unsupported("rfactor (use tir.Schedule.rfactor)")

    def create_group(self, outputs, inputs, include_inputs=False):  # pylint: disable=unused-argument
        self._unsupported("create_group")

    def normalize(self):
        return self

    def to_tir(self, args, name="main"):
        """The tir.Schedule of ``te.create_prim_func(args)`` with every recorded step replayed."""
        return _te_replay.replay(self, args, name)


def create_schedule(ops):
    """TVM's ``te.create_schedule(op or [ops])``."""
    return Schedule(ops)


__all__ = ["create_schedule", "thread_axis", "Schedule", "Stage", "IterVar", "ThreadAxis"]
