"""The misconception catalogue of an assignment: every known wrong variant, in one place.

Each entry is a wrong implementation of one function, written out as source or as a small edit of
the reference's function (an expression replaced, or a wrapper around it). The grader runs it
(trusted code) on the same inputs as the student to recognise the mistake in a failing output;
`qkv validate` splices it into the reference to make a mutant submission that must lose points in
its part and be named in its feedback; release computes its outputs on the public cases so the
student's own checks can name it too. The entries themselves are content:
`solutions/<assignment>/content.py` lists them.
"""

from __future__ import annotations

import textwrap
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from qkv.content import reference as reference_mod
from qkv.sandbox import wire
from qkv.shipped import checks as public_checks
from qkv.shipped.compare import copy_value, same_error

KEPT_INPUTS = 32  # inputs whose mistakes' outputs are kept: the worked example's, and the student's own while judged
GENERIC_MUTATION = (
    "the function changed an input array it was given: work on new arrays "
    "and leave inputs as they were."
)


@dataclass(frozen=True)
class Mistake:
    """One wrong implementation of one function, written out (`source`) or as a small change of the
    reference's own function: `edit` replaces an expression of it ((old, new), each old found
    exactly once), and `wraps` makes `source` a wrapper that calls the reference's function under
    the name `reference_<part>`."""

    id: str
    part: str  # the function the mistake lives in
    message: str  # one sentence a student can act on
    source: str = ""  # the wrong implementation (or, with `wraps`, the wrapper)
    mutates_input: bool = False  # recognised by the input check rather than by the output
    alternatives: tuple[
        str, ...
    ] = ()  # the same mistake with other constants (a temperature of 2, of 10, ...): other
    # sources, or for a one-pair `edit` other texts for its `new`
    edit: tuple[tuple[str, str], ...] = ()
    wraps: bool = False

    def __post_init__(self):
        if bool(self.source) == bool(self.edit) and not self.wraps:
            raise ValueError(
                f"mistake '{self.id}': give either its source or an edit of the reference"
            )
        if self.wraps and not self.source:
            raise ValueError(f"mistake '{self.id}': a wrapper needs its source")

    @property
    def edits_reference(self) -> bool:
        return bool(self.edit) or self.wraps

    def sources(self, reference_source: str | None = None) -> tuple[str, ...]:
        """The wrong function's source in each of its forms (the first, then the alternatives), made
        from the reference's source when the mistake edits or wraps the reference."""
        if not self.edits_reference:
            return tuple(textwrap.dedent(s) for s in (self.source, *self.alternatives))
        if reference_source is None:
            raise ValueError(f"mistake '{self.id}' changes the reference, whose source is unknown")
        first, last = reference_mod.function_spans(reference_source)[self.part]
        original = "".join(reference_source.splitlines(keepends=True)[first - 1 : last])
        if self.wraps:
            renamed = original.replace(f"def {self.part}(", f"def reference_{self.part}(", 1)
            return (renamed + "\n\n" + textwrap.dedent(self.source),)
        forms = [self.edit]
        if len(self.edit) == 1:
            forms += [((self.edit[0][0], new),) for new in self.alternatives]
        return tuple(self._edited(original, pairs) for pairs in forms)

    def _edited(self, original: str, pairs) -> str:
        text = original
        for old, new in pairs:
            if text.count(old) != 1:
                raise ValueError(
                    f"mistake '{self.id}': {old!r} is not in {self.part}() exactly once"
                )
            text = text.replace(old, new)
        return text

    def _compiled(self, reference_source: str | None):
        key = reference_source if self.edits_reference else None
        cache = self.__dict__.setdefault("_compiled_by_source", {})
        if key not in cache:
            cache[key] = tuple(
                compile(s, f"<mistake {self.id}>", "exec") for s in self.sources(reference_source)
            )
        return cache[key]

    def function(self, reference, functions: tuple[str, ...], which: int = 0):
        """The wrong function (or its alternative `which`), seeing what a student's file would: the
        reference's module-level names (its other functions, any helpers it gives) and the
        assignment's functions.

        Args:
            reference: the reference module; an edit or a wrapper is made from its source.
            functions: the names of the assignment's functions, seen as the reference's.
            which: 0 for the mistake's source, i for its i-th form in sources().
        """
        given = {k: v for k, v in vars(reference).items() if not k.startswith("__")}
        namespace = {"np": np, **given, **{f: getattr(reference, f) for f in functions}}
        exec(self._compiled(reference_mod.source_of(reference))[which], namespace)
        return namespace[self.part]

    def forms(self, reference, functions: tuple[str, ...]):
        """The wrong function in each of its forms: the source, then every alternative."""
        count = len(self._compiled(reference_mod.source_of(reference)))
        return [self.function(reference, functions, i) for i in range(count)]

    def mutant_source(self, reference_source: str) -> str:
        """The reference file with this mistake spliced in: a submission for `qkv validate`."""
        return reference_mod.replace_function(
            reference_source, self.part, self.sources(reference_source)[0]
        )


class Catalogue:
    """The mistakes of one assignment, with the questions the grader asks of them."""

    def __init__(self, mistakes, functions: tuple[str, ...], calls: dict | None = None):
        self.mistakes = tuple(mistakes)
        self.functions = tuple(functions)
        self.calls = dict(calls or {})  # chain function -> the assignment's functions it calls
        self.chain = tuple(self.calls)
        self._made: dict = {}  # (reference, mistake id) -> (reference, its wrong functions)
        self._kept: OrderedDict = OrderedDict()  # inputs -> _Runs, the most recent KEPT_INPUTS
        self._parts: dict = {}  # function -> its mistakes, in catalogue order
        seen = set()
        for m in self.mistakes:
            if m.id in seen:
                raise ValueError(f"mistake '{m.id}' is catalogued twice")
            seen.add(m.id)

    def __iter__(self):
        return iter(self.mistakes)

    def __len__(self) -> int:
        return len(self.mistakes)

    def for_part(self, function: str) -> tuple[Mistake, ...]:
        part = self._parts.get(function)
        if part is None:
            part = self._parts[function] = tuple(m for m in self.mistakes if m.part == function)
        return part

    def by_id(self, mistake_id: str) -> Mistake:
        for m in self.mistakes:
            if m.id == mistake_id:
                return m
        raise KeyError(mistake_id)

    def mutation_message(self, function: str) -> str:
        """What to tell a student whose function modified its inputs."""
        return next(
            (m.message for m in self.for_part(function) if m.mutates_input), GENERIC_MUTATION
        )

    def callees(self, function: str, failing) -> list[str]:
        """Of the failing functions, those a chain function calls."""
        return public_checks.callees(function, failing, self.calls)

    def chain_hint(self, function: str, failing) -> str:
        """What to add to a failing chain function when some of the functions it calls fail too."""
        return public_checks.chain_hint(function, failing, self.calls)

    def _forms(self, reference, mistake: Mistake) -> list:
        """The mistake's wrong functions against this reference, made once (they are pure functions)."""
        key = (id(reference), mistake.id)
        if key not in self._made:
            self._made[key] = (reference, mistake.forms(reference, self.functions))
        return self._made[key][1]

    def _each_run(self, reference, function: str, args):
        """(mistake, ("value", output) or ("raised", "Type: text")) for each form of each mistake in turn
        (a mistake's forms run together, under one errstate)."""
        for m in self.for_part(function):
            if not m.mutates_input:
                yield from ((m, run) for run in self._run_forms(reference, m, args))

    def _run_forms(self, reference, mistake: Mistake, args) -> list[tuple[str, object]]:
        """("value", output) or ("raised", "Type: text") for each form of the mistake, on copies of
        args, run together under one errstate."""
        runs: list[tuple[str, object]] = []
        with np.errstate(all="ignore"):
            for wrong in self._forms(reference, mistake):
                try:
                    runs.append(("value", wrong(*[copy_value(a) for a in args])))
                except Exception as e:
                    runs.append(("raised", f"{type(e).__name__}: {str(e)[:300]}"))
        return runs

    def _runs(self, reference, function: str, args) -> _Runs:
        """What each mistake did on these inputs, computed only as far as a caller reads, and kept for
        inputs equal bit for bit (every student is judged on the same worked example)."""
        key = inputs_key(f"{id(reference)}.{function}", args)
        runs = self._kept.get(key)
        if runs is None:
            runs = self._kept[key] = _Runs(
                self._each_run(reference, function, [copy_value(a) for a in args])
            )
            if len(self._kept) > KEPT_INPUTS:
                self._kept.popitem(last=False)
        else:
            self._kept.move_to_end(key)
        return runs

    def variants(self, reference, function: str, args):
        """(message, wrong output) for every output-visible mistake of `function` on these inputs, in
        catalogue order; computed as they are read (nothing, not even the inputs' key, before the
        first is asked for), so a caller that stops at a match, or never reads, runs no more.
        Callers must not modify the outputs (they are kept for the next student).

        Mistakes that crash on these inputs (a shape that only fits square matrices, say) are in
        `crashes` instead.

        Args:
            reference: the reference module (or a master being released) the mistakes edit.
            function: the name of the assignment's function whose mistakes are run.
            args: the inputs of the call, as the student's function gets them; never changed.
        """
        for m, (kind, what) in self._runs(reference, function, args):
            if kind == "value":
                yield m.message, what

    def outputs(self, reference, mistake: str, args) -> list:
        """What each form of the mistake returns on these inputs; [] when every form raises.

        Args:
            reference: the reference module the mistake edits.
            mistake: the mistake's id.
            args: the inputs of a call of its function, never changed.
        """
        runs = self._run_forms(reference, self.by_id(mistake), args)  # this mistake's alone
        return [what for kind, what in runs if kind == "value"]

    def crashes(self, reference, function: str, args) -> list[tuple[str, str]]:
        """(message, "ErrorType: text") for every mistake of `function` that raises on these inputs:
        a student whose code raises the same error on the same inputs has made that mistake, unless
        the reference raises that way too (then the error says nothing about the mistake).

        Args:
            reference: the reference module (or a master being released) the mistakes edit.
            function: the name of the assignment's function whose mistakes are run.
            args: the inputs of the call, as the student's function gets them; never changed.
        """
        runs = self._runs(reference, function, args)
        raised = [(m.message, what) for m, (kind, what) in runs if kind == "raised"]
        if raised and runs.reference is _UNSET:
            runs.reference = _error_of(getattr(reference, function), args)
        if not raised or runs.reference is None:
            return raised
        return [(message, what) for message, what in raised if not same_error(what, runs.reference)]

    def id_of(self, function: str, message: str) -> str | None:
        """The id of the mistake of `function` a feedback message names, if any."""
        return next((m.id for m in self.for_part(function) if message.startswith(m.message)), None)


def inputs_key(label: str, values) -> bytes:
    """One bytes object for `values`, bit for bit and type for type, under `label` (an identifier,
    or ids and identifiers joined by dots): their trees as the wire writes them, after the label,
    say where each array's bytes end. A memo keeps such keys without the cyclic collector ever
    walking them, as it would tuples."""
    arrays: list = []
    trees = [wire.encode_value(v, arrays, strict=True) for v in values]
    return f"{label}{trees}".encode() + b"".join(map(wire.array_bytes, arrays))


_UNSET = object()


def _error_of(function, args) -> str | None:
    """ "ErrorType: text" of what `function` raises on copies of args, or None when it returns."""
    with np.errstate(all="ignore"):
        try:
            function(*[copy_value(a) for a in args])
        except Exception as e:
            return f"{type(e).__name__}: {str(e)[:300]}"
    return None


class _Runs:
    """A sequence computed as it is read and kept: a second reader gets what the first computed, and
    computes on from where the first stopped. `reference`: what the reference raised on the same
    inputs, once asked (see Catalogue.crashes)."""

    def __init__(self, items):
        self._items = iter(items)
        self._done: list = []
        self.reference = _UNSET

    def __iter__(self):
        i = 0
        while True:
            if i == len(self._done):
                try:
                    self._done.append(next(self._items))
                except StopIteration:
                    return
            yield self._done[i]
            i += 1
