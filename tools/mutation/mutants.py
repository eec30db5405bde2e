"""Mutant generation: AST-located, text-spliced edits of the reference engine's source.

Every mutant is one small edit of one file, found by walking the file's `ast` and made by splicing
text at the positions the AST (and, for operators, the tokenizer) gives, so the rest of the file
stays byte for byte the same. Generation is deterministic: files in sorted order, mutants in
source order, operators in a fixed order.

A mutant's ID is a short hash of a key that survives unrelated edits elsewhere in the file: the
file, the qualified name of the enclosing function, the operator, the mutated expression's source
before and after, and the occurrence of that same key within the function.
"""

from __future__ import annotations

import ast
import hashlib
import io
import tokenize
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

#: The files mutated, relative to the package directory (validator/studcheck).
TARGET_PATTERNS = ("engine/*.py", "rules.py", "evaluate.py")
#: Explanations (which rule decided a fact, for blame) are not part of what an engine shows over
#: the protocol, so the case suite cannot tell their mutants apart: engine/explain.py, its award
#: half engine/explain_award.py, its betting half engine/explain_legal.py and their collector engine/notes.py, and the lines of the engine that only feed them (its guarded
#: `self._notes` calls) are not mutated here. They are pinned by tests/unit/test_explain.py and
#: tests/harness/test_blame.py, whose expectations come from the rules (docs/mutation.md, "What is not mutated").
EXCLUDED_FILES = ("engine/explain.py", "engine/explain_award.py", "engine/explain_legal.py", "engine/notes.py")
EXPLANATION_MARKS = ("self._notes", "explain.")

#: Operators in the order they are tried at one node.
OPERATORS = {
    "cmp": "comparison swapped: < <=, > >=, <-> negation, == !=, in / not in, is / is not",
    "arith": "arithmetic or bitwise operator swapped: + -, * //, % //, / *, << >>, & |",
    "augassign": "augmented assignment swapped: += -=, *= //=, |= &=, ...",
    "int": "integer constant n -> n+1, n-1",
    "bool": "True <-> False",
    "boolop": "and <-> or",
    "not": "`not` removed",
    "neg": "unary minus removed",
    "cond": "a condition without a comparison negated: if x -> if not (x)",
    "minmax": "min <-> max",
    "return-none": "return x -> return None (functions that may return None)",
    "return-not": "return x -> return not (x) (functions returning bool)",
    "stmt": "statement replaced by `pass` (assignments, expression statements, raise, early return, break, continue, del)",
}

_CMP_SWAPS: dict[type[ast.cmpop], tuple[type[ast.cmpop], ...]] = {
    ast.Lt: (ast.LtE, ast.GtE),
    ast.LtE: (ast.Lt, ast.Gt),
    ast.Gt: (ast.GtE, ast.LtE),
    ast.GtE: (ast.Gt, ast.Lt),
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
    ast.In: (ast.NotIn,),
    ast.NotIn: (ast.In,),
    ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,),
}
_CMP_TEXT: dict[type[ast.cmpop], str] = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not",
}
_BIN_SWAPS: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.FloorDiv,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Div: ast.Mult,
    ast.LShift: ast.RShift,
    ast.RShift: ast.LShift,
    ast.BitAnd: ast.BitOr,
    ast.BitOr: ast.BitAnd,
}
_BIN_TEXT: dict[type[ast.operator], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%", ast.Div: "/",
    ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.Pow: "**",
    ast.MatMult: "@",
}
#: Generic types: a module-level `Name = list[...]` or `X | None` is a type alias, not behaviour.
_TYPE_NAMES = frozenset({
    "list", "dict", "tuple", "set", "frozenset", "type", "Callable", "Mapping", "Sequence", "Iterable",
    "Iterator", "Optional", "Union", "Any", "Literal", "ClassVar",
})


@dataclass(frozen=True, kw_only=True)
class Edit:
    """Replace source characters [start, end) with `text`."""

    start: int
    end: int
    text: str


@dataclass(frozen=True, kw_only=True)
class Mutant:
    id: str
    file: str  # relative to the package directory, e.g. engine/betting.py
    line: int
    col: int  # 1-based, in characters
    end_line: int
    function: str  # qualified name of the enclosing function or class, "<module>" at top level
    operator: str
    before: str  # the mutated expression or statement, whitespace collapsed
    after: str  # the same after the mutation
    token_before: str  # the changed token(s) alone, e.g. "<"
    token_after: str
    occurrence: int  # how many mutants with the same key precede this one in the function
    edits: tuple[Edit, ...]

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def key(self) -> str:
        return stable_key(self.file, self.function, self.operator, self.before, self.after, self.occurrence)

    @property
    def description(self) -> str:
        if self.operator == "stmt":
            return f"line {self.line}: `{_short(self.before, 70)}` -> `pass`"
        if len(self.before) <= 70 and len(self.after) <= 70:
            return f"line {self.line}: `{self.before}` -> `{self.after}`"
        return f"line {self.line}: `{_short(self.token_before)}` -> `{_short(self.token_after)}` in `{_short(self.before)}`"


def stable_key(file: str, function: str, operator: str, before: str, after: str, occurrence: int) -> str:
    return "|".join((file, function, operator, before, after, str(occurrence)))


def mutant_id(key: str, file: str) -> str:
    stem = Path(file).stem
    return f"{stem}-{hashlib.sha1(key.encode('utf-8')).hexdigest()[:10]}"


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _normal(text: str) -> str:
    return " ".join(text.split())


def apply_edits(source: str, edits: Sequence[Edit]) -> str:
    """The source with the edits applied (they never overlap)."""
    out: list[str] = []
    position = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        out.append(source[position : edit.start])
        out.append(edit.text)
        position = edit.end
    out.append(source[position:])
    return "".join(out)


def apply_mutant(source: str, mutant: Mutant) -> str:
    return apply_edits(source, mutant.edits)


def changed_lines(source: str, mutant: Mutant) -> tuple[list[str], list[str]]:
    """The whole source lines the mutant touches, before and after."""
    start = min(edit.start for edit in mutant.edits)
    end = max(edit.end for edit in mutant.edits)
    first = source.rfind("\n", 0, start) + 1
    last = source.find("\n", end)
    last = len(source) if last < 0 else last
    mutated = apply_mutant(source, mutant)
    delta = len(mutated) - len(source)
    return source[first:last].splitlines(), mutated[first : last + delta].splitlines()


@dataclass(frozen=True)
class _Candidate:
    node: ast.AST  # the expression or statement shown before/after and keyed on
    function: str
    operator: str
    edits: tuple[Edit, ...]
    token_before: str
    token_after: str


class _Source:
    """Character offsets of AST positions and of tokens."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts = [0]
        for line in text.splitlines(keepends=True):
            self.line_starts.append(self.line_starts[-1] + len(line))
        self.lines_bytes = [line.encode("utf-8") for line in text.splitlines(keepends=True)]
        self.tokens: list[tuple[int, int, str]] = []  # (start, end, string) of OP and NAME tokens
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in (tokenize.OP, tokenize.NAME):
                self.tokens.append((self.char(token.start[0], token.start[1]), self.char(token.end[0], token.end[1]), token.string))
        self._token_starts = [t[0] for t in self.tokens]

    def char(self, line: int, col: int) -> int:
        return self.line_starts[line - 1] + col

    def offset(self, line: int, byte_col: int) -> int:
        """The character offset of an AST position (ast columns count UTF-8 bytes)."""
        raw = self.lines_bytes[line - 1] if line - 1 < len(self.lines_bytes) else b""
        return self.line_starts[line - 1] + len(raw[:byte_col].decode("utf-8", errors="ignore"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end = self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
        return start, end

    def segment(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.text[start:end]

    def tokens_between(self, start: int, end: int) -> list[tuple[int, int, str]]:
        """OP and NAME tokens inside [start, end), brackets left out."""
        found = []
        for index in range(bisect_left(self._token_starts, start), len(self.tokens)):
            token = self.tokens[index]
            if token[0] >= end:
                break
            if token[1] <= end and token[2] not in "()[]{}":
                found.append(token)
        return found


def _is_type_expr(node: ast.expr) -> bool:
    if isinstance(node, ast.Subscript):
        base = node.value
        name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else ""
        return name in _TYPE_NAMES
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return all(_is_type_expr(side) or isinstance(side, (ast.Name, ast.Attribute)) or _is_none(side)
                   for side in (node.left, node.right)) and (_is_type_expr(node.left) or _is_type_expr(node.right)
                                                             or _is_none(node.left) or _is_none(node.right))
    return False


def _assignment_scope(stmt: ast.stmt, scope: str) -> str:
    """Outside functions an assignment is keyed by its name (`_RANK_NAMES`, `SeatState.committed`)."""
    target: ast.expr | None = None
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
    elif isinstance(stmt, ast.AnnAssign):
        target = stmt.target
    if not isinstance(target, ast.Name):
        return scope
    return target.id if scope == "<module>" else f"{scope}.{target.id}"


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _is_message_text(node: ast.expr) -> bool:
    """Text built for people: f-strings, string literals and "sep".join(...)/"...".format(...)."""
    if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("join", "format"):
        return isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str)
    return False


def _only_message_arguments(node: ast.expr) -> bool:
    """A call whose every argument is message text (`super().__init__(f"...")`, `print("...")`)."""
    if not isinstance(node, ast.Call) or not (node.args or node.keywords):
        return False
    return all(_is_message_text(arg) for arg in [*node.args, *(k.value for k in node.keywords)])


def _is_boolean(node: ast.expr) -> bool:
    if isinstance(node, (ast.Compare,)) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
        return True
    if isinstance(node, ast.BoolOp):
        return all(_is_boolean(value) for value in node.values)
    return False


def _annotation_text(node: ast.expr | None) -> str:
    return "" if node is None else ast.unparse(node)


def _admits_none(annotation: ast.expr | None) -> bool:
    if annotation is None:
        return True
    text = _annotation_text(annotation).replace("'", "").replace('"', "")
    return "None" in text or "Optional" in text


def _returns_bool(annotation: ast.expr | None) -> bool:
    return _annotation_text(annotation).strip("'\"") == "bool"


class _Walker:
    def __init__(self, source: _Source, tree: ast.AST) -> None:
        self.src = source
        self.parents: dict[ast.AST, ast.AST] = {}
        for parent in ast.walk(tree):
            for child in ast.iter_child_nodes(parent):
                self.parents[child] = parent
        self.found: list[_Candidate] = []
        self._returns: list[ast.expr | None] = []  # return annotations of the enclosing functions

    # --- statements -----------------------------------------------------------------------------

    def body(self, stmts: Sequence[ast.stmt], scope: str, *, in_function: bool, function_body: bool = False) -> None:
        for index, stmt in enumerate(stmts):
            if index == 0 and _is_docstring(stmt):
                continue
            final = function_body and index == len(stmts) - 1
            self.stmt(stmt, scope if in_function else _assignment_scope(stmt, scope), in_function=in_function, final=final)

    def stmt(self, node: ast.stmt, scope: str, *, in_function: bool, final: bool = False) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = node.name if scope == "<module>" else f"{scope}.{node.name}"
            for default in [*node.args.defaults, *[d for d in node.args.kw_defaults if d is not None]]:
                self.expr(default, scope)
            self._returns.append(node.returns)
            self.body(node.body, name, in_function=True, function_body=True)
            self._returns.pop()
            return
        if isinstance(node, ast.ClassDef):
            name = node.name if scope == "<module>" else f"{scope}.{node.name}"
            self.body(node.body, name, in_function=False)
            return
        if isinstance(node, ast.If):
            if _is_type_checking(node.test):
                self.body(node.orelse, scope, in_function=in_function)
                return
            self.condition(node.test, scope)
            self.body(node.body, scope, in_function=in_function)
            self.body(node.orelse, scope, in_function=in_function)
            return
        if isinstance(node, ast.While):
            self.condition(node.test, scope)
            self.body(node.body, scope, in_function=in_function)
            self.body(node.orelse, scope, in_function=in_function)
            return
        if isinstance(node, (ast.For, ast.AsyncFor)):
            self.expr(node.iter, scope)
            self.body(node.body, scope, in_function=in_function)
            self.body(node.orelse, scope, in_function=in_function)
            return
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self.expr(item.context_expr, scope)
            self.body(node.body, scope, in_function=in_function)
            return
        if isinstance(node, ast.Try):
            self.body(node.body, scope, in_function=in_function)
            for handler in node.handlers:
                self.body(handler.body, scope, in_function=in_function)
            self.body(node.orelse, scope, in_function=in_function)
            self.body(node.finalbody, scope, in_function=in_function)
            return
        if isinstance(node, ast.Match):
            self.expr(node.subject, scope)
            for case in node.cases:
                if case.guard is not None:
                    self.expr(case.guard, scope)
                self.body(case.body, scope, in_function=in_function)
            return
        if isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if "__slots__" in names or "__all__" in names:
                return
            if scope == "<module>" and _is_type_expr(node.value):
                return  # a type alias
            if _is_message_text(node.value):
                return
            for target in node.targets:
                self.target(target, scope)
            self.expr(node.value, scope)
            if in_function:
                self.remove(node, scope)
            return
        if isinstance(node, ast.AugAssign):
            self.augassign(node, scope)
            self.target(node.target, scope)
            self.expr(node.value, scope)
            if in_function:
                self.remove(node, scope)
            return
        if isinstance(node, ast.AnnAssign):
            if node.value is None or _is_message_text(node.value):
                return
            if isinstance(node.target, ast.Name) and node.target.id == "__slots__":
                return
            self.expr(node.value, scope)
            if in_function:
                self.remove(node, scope)
            return
        if isinstance(node, ast.Expr):
            if _is_message_text(node.value) or _only_message_arguments(node.value):
                return
            self.expr(node.value, scope)
            if in_function:
                self.remove(node, scope)
            return
        if isinstance(node, ast.Return):
            if node.value is not None and not _is_none(node.value):
                self.return_value(node.value, scope)
                self.expr(node.value, scope)
            if in_function and not final:
                self.remove(node, scope)
            return
        if isinstance(node, ast.Raise):
            if in_function:
                self.remove(node, scope)  # the message is not mutated: people read it, engines are not judged on it
            return
        if isinstance(node, ast.Delete):
            if in_function:
                self.remove(node, scope)
            return
        if isinstance(node, (ast.Break, ast.Continue)):
            if in_function:
                self.remove(node, scope)
            return
        # Assert (type narrowing), Pass, Import, Global, Nonlocal: nothing to mutate.

    def target(self, node: ast.expr, scope: str) -> None:
        """Expressions inside an assignment target (subscripts, attribute owners), not the names."""
        if isinstance(node, ast.Subscript):
            self.expr(node.value, scope)
            self.expr(node.slice, scope)
        elif isinstance(node, ast.Attribute):
            self.expr(node.value, scope)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for element in node.elts:
                self.target(element, scope)
        elif isinstance(node, ast.Starred):
            self.target(node.value, scope)

    def remove(self, node: ast.stmt, scope: str) -> None:
        start, end = self.src.span(node)
        text = self.src.text[start:end]
        self.add(node, scope, "stmt", (Edit(start=start, end=end, text="pass"),), _normal(text), "pass")

    def augassign(self, node: ast.AugAssign, scope: str) -> None:
        swap = _BIN_SWAPS.get(type(node.op))
        if swap is None:
            return
        _, target_end = self.src.span(node.target)
        value_start, _ = self.src.span(node.value)
        tokens = [t for t in self.src.tokens_between(target_end, value_start) if t[2].endswith("=")]
        if len(tokens) != 1:
            return
        start, end, text = tokens[0]
        new = _BIN_TEXT[swap] + "="
        self.add(node, scope, "augassign", (Edit(start=start, end=end, text=new),), text, new)

    def return_value(self, value: ast.expr, scope: str) -> None:
        annotation = self._returns[-1] if self._returns else None
        start, end = self.src.span(value)
        if _returns_bool(annotation) or _is_boolean(value):
            if isinstance(value, ast.Constant):
                return  # True/False: the bool operator covers it
            edits = (Edit(start=start, end=start, text="not ("), Edit(start=end, end=end, text=")"))
            self.add(value, scope, "return-not", edits, "return", "return not")
        elif _admits_none(annotation):
            self.add(value, scope, "return-none", (Edit(start=start, end=end, text="None"),), _normal(self.src.text[start:end]), "None")

    def condition(self, test: ast.expr, scope: str) -> None:
        """A test: its own mutations, and a negation unless a comparison, `not` or True/False operator covers it."""
        covered = isinstance(test, (ast.Compare, ast.Constant)) or (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not))
        if not covered:
            start, end = self.src.span(test)
            edits = (Edit(start=start, end=start, text="not ("), Edit(start=end, end=end, text=")"))
            self.add(test, scope, "cond", edits, "if", "if not")
        self.expr(test, scope)

    # --- expressions ----------------------------------------------------------------------------

    def expr(self, node: ast.expr | None, scope: str) -> None:
        if node is None or _is_message_text(node):
            return
        if isinstance(node, ast.Constant):
            self.constant(node, scope)
        elif isinstance(node, ast.Compare):
            self.compare(node, scope)
        elif isinstance(node, ast.BinOp):
            self.binop(node, scope)
        elif isinstance(node, ast.UnaryOp):
            self.unary(node, scope)
        elif isinstance(node, ast.BoolOp):
            self.boolop(node, scope)
        elif isinstance(node, ast.Call):
            self.call(node, scope)
        elif isinstance(node, ast.IfExp):
            self.condition(node.test, scope)
            self.expr(node.body, scope)
            self.expr(node.orelse, scope)
        elif isinstance(node, ast.Lambda):
            for default in [*node.args.defaults, *[d for d in node.args.kw_defaults if d is not None]]:
                self.expr(default, scope)
            self.expr(node.body, scope)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            self.comprehensions(node.generators, scope)
            self.expr(node.elt, scope)
        elif isinstance(node, ast.DictComp):
            self.comprehensions(node.generators, scope)
            self.expr(node.key, scope)
            self.expr(node.value, scope)
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                self.expr(key, scope)
                self.expr(value, scope)
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            for element in node.elts:
                self.expr(element, scope)
        elif isinstance(node, ast.Starred):
            self.expr(node.value, scope)
        elif isinstance(node, ast.Subscript):
            self.expr(node.value, scope)
            self.expr(node.slice, scope)
        elif isinstance(node, ast.Slice):
            self.expr(node.lower, scope)
            self.expr(node.upper, scope)
            self.expr(node.step, scope)
        elif isinstance(node, ast.Attribute):
            self.expr(node.value, scope)
        elif isinstance(node, ast.NamedExpr):
            self.expr(node.value, scope)
        elif isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom)):
            self.expr(node.value, scope)
        # Name, JoinedStr (message text): nothing.

    def comprehensions(self, generators: Iterable[ast.comprehension], scope: str) -> None:
        for generator in generators:
            self.expr(generator.iter, scope)
            for condition in generator.ifs:
                self.condition(condition, scope)

    def constant(self, node: ast.Constant, scope: str) -> None:
        start, end = self.src.span(node)
        text = self.src.text[start:end]
        context = self.context(node)
        if isinstance(node.value, bool):
            new = "False" if node.value else "True"
            self.add(context, scope, "bool", (Edit(start=start, end=end, text=new),), text, new)
        elif isinstance(node.value, int):
            for value in (node.value + 1, node.value - 1):
                new = str(value)
                self.add(context, scope, "int", (Edit(start=start, end=end, text=new),), text, new)

    def context(self, node: ast.expr) -> ast.AST:
        """A constant is shown (and keyed) with the expression around it when that is short."""
        parent = self.parents.get(node)
        if isinstance(parent, ast.UnaryOp):
            node, parent = parent, self.parents.get(parent)
        if isinstance(parent, ast.keyword):
            parent = self.parents.get(parent)
        if isinstance(parent, ast.expr) and not isinstance(parent, ast.Dict) and len(_normal(self.src.segment(parent))) <= 60:
            return parent
        return node

    def compare(self, node: ast.Compare, scope: str) -> None:
        left = node.left
        for op, right in zip(node.ops, node.comparators):
            _, gap_start = self.src.span(left)
            gap_end, _ = self.src.span(right)
            tokens = self.src.tokens_between(gap_start, gap_end)
            old = _CMP_TEXT[type(op)]
            if tokens and " ".join(t[2] for t in tokens) == old:
                for swap in _CMP_SWAPS[type(op)]:
                    new = _CMP_TEXT[swap]
                    self.add(node, scope, "cmp", (Edit(start=tokens[0][0], end=tokens[-1][1], text=new),), old, new)
            left = right
        self.expr(node.left, scope)
        for comparator in node.comparators:
            self.expr(comparator, scope)

    def binop(self, node: ast.BinOp, scope: str) -> None:
        swap = _BIN_SWAPS.get(type(node.op))
        if swap is not None and not _is_type_expr(node):
            _, gap_start = self.src.span(node.left)
            gap_end, _ = self.src.span(node.right)
            tokens = self.src.tokens_between(gap_start, gap_end)
            old = _BIN_TEXT[type(node.op)]
            if len(tokens) == 1 and tokens[0][2] == old:
                new = _BIN_TEXT[swap]
                self.add(node, scope, "arith", (Edit(start=tokens[0][0], end=tokens[0][1], text=new),), old, new)
        self.expr(node.left, scope)
        self.expr(node.right, scope)

    def unary(self, node: ast.UnaryOp, scope: str) -> None:
        if isinstance(node.op, (ast.Not, ast.USub)):
            start, _ = self.src.span(node)
            operand_start, _ = self.src.span(node.operand)
            tokens = self.src.tokens_between(start, operand_start)
            symbol = "not" if isinstance(node.op, ast.Not) else "-"
            if tokens and tokens[0][2] == symbol:
                # Remove the operator and the spaces after it (brackets around the operand stay).
                end = tokens[0][1]
                while end < operand_start and self.src.text[end] in " \t":
                    end += 1
                operator = "not" if symbol == "not" else "neg"
                self.add(node, scope, operator, (Edit(start=tokens[0][0], end=end, text=""),), symbol, "")
        self.expr(node.operand, scope)

    def boolop(self, node: ast.BoolOp, scope: str) -> None:
        old, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
        edits: list[Edit] = []
        for left, right in zip(node.values, node.values[1:]):
            _, gap_start = self.src.span(left)
            gap_end, _ = self.src.span(right)
            tokens = [t for t in self.src.tokens_between(gap_start, gap_end) if t[2] == old]
            if len(tokens) != 1:
                edits = []
                break
            edits.append(Edit(start=tokens[0][0], end=tokens[0][1], text=new))
        if edits:
            self.add(node, scope, "boolop", tuple(edits), old, new)
        for value in node.values:
            self.expr(value, scope)

    def call(self, node: ast.Call, scope: str) -> None:
        if isinstance(node.func, ast.Name) and node.func.id in ("min", "max"):
            start, end = self.src.span(node.func)
            new = "max" if node.func.id == "min" else "min"
            self.add(node, scope, "minmax", (Edit(start=start, end=end, text=new),), node.func.id, new)
        else:
            self.expr(node.func, scope)
        for arg in node.args:
            self.expr(arg, scope)
        for keyword in node.keywords:
            self.expr(keyword.value, scope)

    # --- recording ------------------------------------------------------------------------------

    def add(self, node: ast.AST, scope: str, operator: str, edits: tuple[Edit, ...], token_before: str, token_after: str) -> None:
        self.found.append(_Candidate(node, scope, operator, edits, token_before, token_after))


def generate_source(text: str, file: str) -> list[Mutant]:
    """Every mutant of one file's source, in source order (`file` names it in IDs and reports)."""
    source = _Source(text)
    tree = ast.parse(text)
    walker = _Walker(source, tree)
    walker.body(tree.body, "<module>", in_function=False)
    ordered = sorted(
        enumerate(walker.found),
        key=lambda item: (min(e.start for e in item[1].edits), item[0]),
    )
    seen: dict[str, int] = {}
    mutants: list[Mutant] = []
    lines = text.splitlines()
    for _, candidate in ordered:
        start, end = source.span(candidate.node)
        node_edits = [e for e in candidate.edits]
        start = min([start, *(e.start for e in node_edits)])
        end = max([end, *(e.end for e in node_edits)])
        before = _normal(text[start:end])
        shifted = [Edit(start=e.start - start, end=e.end - start, text=e.text) for e in node_edits]
        after = _normal(apply_edits(text[start:end], shifted))
        base = "|".join((candidate.function, candidate.operator, before, after))
        occurrence = seen.get(base, 0)
        seen[base] = occurrence + 1
        key = stable_key(file, candidate.function, candidate.operator, before, after, occurrence)
        first = min(candidate.edits, key=lambda e: e.start).start
        line = bisect_left(source.line_starts, first + 1)
        last_line = bisect_left(source.line_starts, max(e.end for e in candidate.edits))
        if any(mark in text_line for text_line in lines[line - 1:max(line, last_line)] for mark in EXPLANATION_MARKS):
            continue  # bookkeeping for explanations only (EXCLUDED_FILES)
        mutants.append(
            Mutant(
                id=mutant_id(key, file),
                file=file,
                line=line,
                col=first - source.line_starts[line - 1] + 1,
                end_line=max(line, last_line),
                function=candidate.function,
                operator=candidate.operator,
                before=before,
                after=after,
                token_before=candidate.token_before,
                token_after=candidate.token_after,
                occurrence=occurrence,
                edits=candidate.edits,
            )
        )
    return mutants


def target_files(package: Path, patterns: Sequence[str] = TARGET_PATTERNS) -> list[str]:
    """The mutated files, relative to the package directory, sorted."""
    found: set[str] = set()
    for pattern in patterns:
        for path in package.glob(pattern):
            if path.is_file() and path.suffix == ".py" and path.relative_to(package).as_posix() not in EXCLUDED_FILES:
                found.add(path.relative_to(package).as_posix())
    return sorted(found)


def generate(package: Path, files: Sequence[str] | None = None) -> list[Mutant]:
    """Every mutant of the target files under `package` (a copy of validator/studcheck)."""
    mutants: list[Mutant] = []
    for file in files if files is not None else target_files(package):
        mutants.extend(generate_source((package / file).read_text(encoding="utf-8"), file))
    return mutants


def check_mutant(source: str, mutant: Mutant) -> str | None:
    """Why the mutated source is not a valid, different program (None: it is)."""
    mutated = apply_mutant(source, mutant)
    try:
        new_tree = ast.parse(mutated)
    except SyntaxError as exc:
        return f"syntax error: {exc}"
    if ast.dump(new_tree) == ast.dump(ast.parse(source)):
        return "the mutation does not change the program"
    return None


def iter_lines(mutants: Iterable[Mutant]) -> Iterator[str]:
    for mutant in mutants:
        yield f"{mutant.id}  {mutant.file}:{mutant.line}:{mutant.col}  {mutant.operator:<11} {mutant.function}  {mutant.description}"
