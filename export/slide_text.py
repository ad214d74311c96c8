"""A slide's one line as HTML for its photograph (export/slides.py): the takeaway's markdown, its
``$...$`` formulas as MathML, which Chromium draws itself (the page that draws a slide file has
plotly.js and nothing else: no KaTeX, no network).

The formulas are the catalogue's takeaways' (locales/*.toml, ``[takeaway]``), written in the
small part of LaTeX they use: letters, numbers, operators, Greek letters, ``_`` and ``^`` with
``{...}`` groups, spaces (``\\,`` ``\\;`` ``\\quad``), ``\\frac``, ``\\sqrt`` and a few symbols.
tests/test_slide_text.py turns every takeaway in every language; a command outside that part is
an error there and, in a visitor's deck, shows as the LaTeX typed. A deck's note is the
visitor's text: shown as typed (`line_html` with ``text=True``), never read as markdown.
"""

from __future__ import annotations

import html
import re

_GREEK = {name: chr(code) for name, code in (
    ("alpha", 0x3B1), ("beta", 0x3B2), ("gamma", 0x3B3), ("delta", 0x3B4),
    ("epsilon", 0x3F5), ("varepsilon", 0x3B5), ("zeta", 0x3B6), ("eta", 0x3B7),
    ("theta", 0x3B8), ("iota", 0x3B9), ("kappa", 0x3BA), ("lambda", 0x3BB), ("mu", 0x3BC),
    ("nu", 0x3BD), ("xi", 0x3BE), ("pi", 0x3C0), ("rho", 0x3C1), ("sigma", 0x3C3),
    ("tau", 0x3C4), ("phi", 0x3D5), ("varphi", 0x3C6), ("chi", 0x3C7), ("psi", 0x3C8),
    ("omega", 0x3C9), ("Gamma", 0x393), ("Delta", 0x394), ("Theta", 0x398),
    ("Lambda", 0x39B), ("Pi", 0x3A0), ("Sigma", 0x3A3), ("Phi", 0x3A6), ("Omega", 0x3A9),
)}
_SYMBOLS = {  # commands drawn as an operator
    "cdot": "·", "times": "×", "pm": "±", "mp": "∓", "le": "≤", "leq": "≤", "ge": "≥",
    "geq": "≥", "ne": "≠", "neq": "≠", "approx": "≈", "sim": "∼", "to": "→",
    "rightarrow": "→", "Rightarrow": "⇒", "leftarrow": "←", "mapsto": "↦", "in": "∈",
    "infty": "∞", "ldots": "…", "cdots": "⋯", "sum": "∑", "prod": "∏", "partial": "∂",
    "langle": "⟨", "rangle": "⟩", "lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉",
    "mid": "|", "ell": "ℓ",
}
_FUNCTIONS = ("sin", "cos", "tan", "log", "ln", "exp", "max", "min", "arg", "det")
_SPACES = {",": "0.17em", ";": "0.28em", ":": "0.22em", " ": "0.25em", "quad": "1em",
           "qquad": "2em"}
_IGNORED = {"!", "left", "right", "displaystyle"}  # drawn as their neighbours are
_TOKEN = re.compile(r"\\([A-Za-z]+|.)|(\d+(?:\.\d+)?)|([A-Za-z])|(\s+)|(.)", re.S)


class LatexError(ValueError):
    """A formula outside the part of LaTeX the slides draw (see the module's docstring)."""


def _tokens(latex: str) -> list[tuple[str, str]]:
    out = []
    for command, number, letter, space, other in _TOKEN.findall(latex):
        if command:
            out.append(("cmd", command))
        elif number:
            out.append(("mn", number))
        elif letter:
            out.append(("mi", letter))
        elif not space:
            out.append(("char", other))
    return out


class _Parser:
    def __init__(self, latex: str) -> None:
        self.tokens = _tokens(latex)
        self.at = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise LatexError("the formula ends too soon")
        self.at += 1
        return token

    def row(self, until: str | None = None) -> str:
        parts = []
        while (token := self.peek()) is not None and token != ("char", until):
            part = self.atom()
            while (script := self.peek()) in (("char", "_"), ("char", "^")):
                self.take()
                below = above = None
                if script == ("char", "_"):
                    below = self.atom()
                    if self.peek() == ("char", "^"):
                        self.take()
                        above = self.atom()
                else:
                    above = self.atom()
                    if self.peek() == ("char", "_"):
                        self.take()
                        below = self.atom()
                if below is not None and above is not None:
                    part = f"<msubsup>{part}{below}{above}</msubsup>"
                elif below is not None:
                    part = f"<msub>{part}{below}</msub>"
                else:
                    part = f"<msup>{part}{above}</msup>"
            parts.append(part)
        if until is not None:
            self.take()  # the closing brace
        return "".join(parts)

    def group(self) -> str:
        if self.peek() != ("char", "{"):
            return self.atom()
        self.take()
        return f"<mrow>{self.row('}')}</mrow>"

    def atom(self) -> str:
        kind, value = self.take()
        if kind == "mn":
            return f"<mn>{value}</mn>"
        if kind == "mi":
            return f"<mi>{value}</mi>"
        if kind == "char":
            if value == "{":
                return f"<mrow>{self.row('}')}</mrow>"
            if value in "}_^":
                raise LatexError(f"a stray {value!r}")
            return f"<mo>{html.escape('−' if value == '-' else value)}</mo>"
        return self.command(value)

    def command(self, name: str) -> str:
        if name in _GREEK:
            return f"<mi>{_GREEK[name]}</mi>"
        if name in _SYMBOLS:
            return f"<mo>{_SYMBOLS[name]}</mo>"
        if name in _FUNCTIONS:
            return f'<mi mathvariant="normal">{name}</mi>'
        if name in _SPACES:
            return f'<mspace width="{_SPACES[name]}"/>'
        if name in _IGNORED:
            return ""
        if name in "{}|":
            return f"<mo>{html.escape(name)}</mo>"
        if name == "frac":
            return f"<mfrac>{self.group()}{self.group()}</mfrac>"
        if name == "sqrt":
            return f"<msqrt>{self.group()}</msqrt>"
        if name in ("text", "mathrm", "operatorname"):
            if self.peek() != ("char", "{"):
                raise LatexError(f"\\{name} takes a {{group}}")
            self.take()
            words = []
            while (token := self.take()) != ("char", "}"):
                words.append(token[1])
            return f'<mtext>{html.escape("".join(words))}</mtext>'
        if name == "mathbf":
            return f'<mrow style="font-weight:bold">{self.group()}</mrow>'
        raise LatexError(f"\\{name} is not drawn on slides")


def mathml(latex: str) -> str:
    """`latex` (one inline formula, without its dollars) as a MathML element; LatexError when
    it uses what the slides do not draw."""
    parser = _Parser(latex)
    body = parser.row()
    return f"<math>{body}</math>"


_MATH = re.compile(r"(?<!\\)\$(.+?)(?<!\\)\$")
_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~$:&])")  # ui.text.escape_markdown's
_BOLD = re.compile(r"\*\*(.+?)\*\*")


def _inline_markdown(text: str) -> str:
    """Text between formulas: **bold**, backslash escapes undone, the rest as text."""
    parts = []
    for index, piece in enumerate(_BOLD.split(text)):
        piece = html.escape(_ESCAPED.sub(r"\1", piece))
        parts.append(f"<b>{piece}</b>" if index % 2 else piece)
    return "".join(parts)


def line_html(line: str, *, text: bool = False) -> str:
    """The slide's line as HTML: a takeaway's markdown (``**bold**`` and ``$...$`` formulas)
    or, with `text`, a visitor's note exactly as typed. A formula the slides cannot draw is
    shown as its LaTeX."""
    if text:
        return html.escape(line)
    out, last = [], 0
    for match in _MATH.finditer(line):
        out.append(_inline_markdown(line[last:match.start()]))
        try:
            out.append(mathml(match.group(1)))
        except LatexError:
            out.append(html.escape(match.group(0)))
        last = match.end()
    out.append(_inline_markdown(line[last:]))
    return "".join(out)
