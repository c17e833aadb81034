"""The replay of a TE schedule (tessera/te_schedule.py) on a tir.Schedule.

The steps, in the order that makes TE's declarative state valid TensorIR (the reasons are in
te_schedule.py's docstring and docs/design/te-schedule-facade.md):
1. ``te.create_prim_func(args)``; each TE operation's block, named as create_prim_func names it;
2. cache_read / cache_write, in the order recorded (on the untransformed function);
3. compute_inline, producers first;
4. stage by stage from the outputs to the inputs: compute_at (``preserve_unit_loops``, so the
   stage keeps one loop per axis), then its splits, fuses and reorders on its own loops;
5. scopes and loop annotations (bind, pragma, vectorize, parallel, unroll);
6. reductions decomposed before their first reduction loop (where TE's lowering puts the init),
   then tensorize (and the intrinsic's reset counterpart on the init, see ``TENSORIZE_INIT``).
A failed TensorIR step raises its DiagnosticError, prefixed by the TE call it replays.
"""
from . import _core
from .error import DiagnosticError

# Tensor intrinsic name -> f(sch, init_block): tensorizes the init block a decomposed reduction
# left when the update is tensorized with that intrinsic (VTA registers env.gemm's reset).
TENSORIZE_INIT = {}


def _error(message, context=""):
    return DiagnosticError(message, code="te_schedule", context=context)


def post_order(tensors):
    """The operations reachable from ``tensors`` (one tensor each), inputs first: the order of
    te::createPrimFunc's postOrder (src/te/create_prim_func.cc), iterative as it is."""
    order, done = [], set()
    for root in tensors:
        stack = [[root, 0]]
        while stack:
            top = stack[-1]
            tensor, nxt = top
            if tensor.op_id in done:
                stack.pop()
                continue
            inputs = tensor.op_inputs
            if nxt < len(inputs):
                top[1] += 1
                if inputs[nxt].op_id not in done:
                    stack.append([inputs[nxt], 0])
                continue
            done.add(tensor.op_id)
            order.append(tensor)
            stack.pop()
    return order


def _block_names(args):
    """op_id -> the block create_prim_func(args) makes for it (a repeated name gets ``_<n>``)."""
    names, used = {}, {}
    for tensor in post_order(args):
        if not tensor.op_is_compute:
            continue
        count = used.get(tensor.op_name, 0)
        used[tensor.op_name] = count + 1
        names[tensor.op_id] = tensor.op_name if count == 0 else f"{tensor.op_name}_{count}"
    return names


class _Replay:
    """One replay: the tir.Schedule, the block of each stage and the loop of each axis."""

    def __init__(self, schedule, args):
        from .tir.schedule import Schedule  # pylint: disable=import-outside-toplevel
        self.s = schedule
        self.sch = Schedule(_core.te_create_prim_func(args, None))
        self.blocks = {}
        self.loops = {}  # facade IterVar -> LoopRV
        self.n_loops = {}  # stage -> loops it owns (one per block iteration variable)
        names = _block_names(args)
        for stage in schedule.stages:
            if stage.cache_source is not None or not stage.is_compute:
                continue
            if stage.tensor.op_id not in names:
                raise _error(f"lower: stage {stage.name} is not computed by the arguments "
                             "(give the schedule's inputs and outputs)", stage.name)
            self.blocks[stage] = self.sch.get_block(names[stage.tensor.op_id])

    def step(self, what, fn, *args):
        """``fn(*args)``, its DiagnosticError prefixed by the TE call ``what``."""
        try:
            return fn(*args)
        except DiagnosticError as err:
            raise DiagnosticError(f"{what}: {err.message}", code=err.code or "te_schedule",
                                  context=what) from err

    def buffer_of(self, stage):
        if stage in self.blocks:
            return self.sch._write_buffer_names(self.blocks[stage])[0]  # pylint: disable=W0212
        return stage.tensor.name

    def caches(self):
        for kind, cache, other in self.s.cache_ops:
            if kind == "read":
                source, readers = cache.cache_source, other
                first = self.blocks[readers[0]]
                reads = self.sch._read_buffer_names(first)  # pylint: disable=protected-access
                if self.buffer_of(source) not in reads:
                    raise _error(f"cache_read({source.name}): stage {readers[0].name} no longer "
                                 f"reads {source.name} (inlined or cached already?)", source.name)
                index = reads.index(self.buffer_of(source))
                self.blocks[cache] = self.step(
                    f"cache_read({source.name}, {cache.scope!r})", self.sch.cache_read, first,
                    index, cache.scope, [self.blocks[r] for r in readers])
            else:
                stage = other
                copy = self.step(f"cache_write({stage.name}, {cache.scope!r})",
                                 self.sch.cache_write, self.blocks[stage], 0, cache.scope)
                # The original block now computes into the cache: it is the cache stage's.
                self.blocks[cache], self.blocks[stage] = self.blocks[stage], copy

    def place(self, stage):
        """compute_at, then the stage's own loop relations."""
        block = self.blocks[stage]
        if stage.attach:
            parent, axis = stage.attach
            if parent.inlined:
                raise _error(f"compute_at: stage {parent.name} holding {stage.name} was inlined",
                             stage.name)
            if not axis.leaf:
                raise _error(f"compute_at: axis {axis.name} of stage {parent.name} is not a loop "
                             "any more (it was split or fused)", stage.name)
            self.step(f"s[{stage.name}].compute_at(s[{parent.name}], {axis.name})",
                      self.sch.compute_at, block, self.loops[axis], True)
        loops = self.sch.get_loops(block)
        n = self.n_loops[stage]
        if len(loops) < n:
            raise _error(f"stage {stage.name} has {len(loops)} loops where {n} were expected",
                         stage.name)
        root = stage.root_axis + stage.root_reduce_axis
        self.loops.update(zip(root, loops[len(loops) - len(root):]))
        for rel in stage.relations:
            self.relation(stage, rel)

    def relation(self, stage, rel):
        kind = rel[0]
        if kind == "split":
            _, parent, outer, inner, factor, nparts = rel
            factors = [None, factor] if nparts is None else [nparts, None]
            o, i = self.step(f"s[{stage.name}].split({parent.name})", self.sch.split,
                             self.loops[parent], factors)
            self.loops[outer], self.loops[inner] = o, i
        elif kind == "fuse":
            _, axes, fused = rel
            self.loops[fused] = self.step(f"s[{stage.name}].fuse", self.sch.fuse,
                                          *[self.loops[a] for a in axes])
        else:
            self.step(f"s[{stage.name}].reorder", self.sch.reorder,
                      *[self.loops[a] for a in rel[1]])

    def annotate(self, stage):
        block = self.blocks[stage]
        if stage.scope and stage.scope != stage.cache_scope:
            self.step(f"s[{stage.name}].set_scope({stage.scope!r})", self.sch.set_scope, block,
                      0, stage.scope)
        for kind, axis, value in stage.annotations:
            what = f"s[{stage.name}].{kind}({axis.name})"
            loop = self.loops[axis]
            if kind == "bind":
                self.step(what, self.sch.bind, loop, value)
            elif kind == "pragma":
                self.step(what, self.sch.annotate, loop, "pragma_" + value[0], value[1])
            else:
                self.step(what, getattr(self.sch, kind), loop)

    def reduce_and_tensorize(self, stage):
        block = self.blocks[stage]
        first = next((a for a in stage.leaves if a.reduce), None)
        init = None
        if first is not None:
            try:
                init = self.sch.decompose_reduction(block, self.loops[first])
            except DiagnosticError:
                # The init stays in the block (TIR's lowering emits it in place); only a
                # tensorized update needs it apart.
                if stage.tensorize_at:
                    raise
        if stage.tensorize_at:
            axis, intrin = stage.tensorize_at
            self.step(f"s[{stage.name}].tensorize({axis.name}, {intrin!r})", self.sch.tensorize,
                      self.loops[axis], intrin)
            if init is not None and intrin in TENSORIZE_INIT:
                self.step(f"s[{stage.name}].tensorize (init, {intrin!r})",
                          TENSORIZE_INIT[intrin], self.sch, init)

    def placement_order(self, live):
        """Consumers before their producers (a producer is attached under loops its consumers
        already have); otherwise the stages' own order, since TE emits the stages attached at one
        loop in that order and TensorIR's compute_at puts each after those already there."""
        def producers(stage):  # the live stages it reads, through inlined ones
            out, todo = set(), list(stage.inputs)
            while todo:
                p = todo.pop()
                if p.inlined:
                    todo.extend(p.inputs)
                elif p in pending:
                    out.add(p)
            return out

        pending = {st: 0 for st in live}  # consumers not yet placed
        reads = {}
        for stage in live:
            reads[stage] = producers(stage)
            for p in reads[stage]:
                pending[p] += 1
        index = {st: i for i, st in enumerate(live)}
        ready = [st for st in live if pending[st] == 0]
        order = []
        while ready:
            stage = min(ready, key=index.get)
            ready.remove(stage)
            order.append(stage)
            for p in reads[stage]:
                pending[p] -= 1
                if pending[p] == 0:
                    ready.append(p)
        return order

    def run(self):
        self.caches()
        live = [st for st in self.s.stages if st in self.blocks]
        for stage in live:
            self.n_loops[stage] = len(self.sch.get_loops(self.blocks[stage]))
        for stage in live:
            if stage.inlined:
                self.step(f"s[{stage.name}].compute_inline()", self.sch.compute_inline,
                          self.blocks[stage])
        live = [st for st in live if not st.inlined]
        for stage in self.placement_order(live):
            self.place(stage)
        for stage in live:
            self.annotate(stage)
        for stage in live:
            self.reduce_and_tensorize(stage)
        return self.sch


def replay(schedule, args, name="main"):  # pylint: disable=unused-argument
    """The tir.Schedule of ``te.create_prim_func(args)`` with ``schedule``'s steps applied."""
    tensors = []
    for a in args:
        t = getattr(a, "_tensor", a)
        if not isinstance(t, _core.TeTensor):
            raise _error(f"lower: the arguments must be the schedule's tensors (placeholders and "
                         f"outputs), got {type(a).__name__}")
        tensors.append(t)
    return _Replay(schedule, tensors).run()
