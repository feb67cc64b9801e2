"""A Griffe extension (mkdocs.yml, mkdocstrings' ``extensions``) that reads the project's
docstrings as they are written for Python's ``help()`` and doctest, and hands them to
mkdocstrings as Markdown:

- a doctest (lines from ``>>>`` to the next blank line) becomes a ``pycon`` code block, not
  a nested quote;
- a reStructuredText simple table (rows between ``=====  ====`` rules) is kept as
  preformatted text, as ``help()`` shows it;
- a Sphinx role (``:func:`make```, ``:mod:`~envs.core```) becomes inline code;
- an attribute documented by a ``#:`` comment (on its line, or on the lines just above)
  gets that comment as its docstring, as Sphinx reads it.
"""

from __future__ import annotations

import ast
import re

import griffe

#: a Sphinx role with its target, not inside a double-backtick literal
ROLE = re.compile(r"(?<!`):(?:mod|class|func|meth|data|attr|exc|obj|const):`[~.]*([^`]+)`")
COMMENT = re.compile(r"#:\s?(.*)$")
#: a rule line of a reStructuredText simple table
TABLE_RULE = re.compile(r"^\s*=+( +=+)+\s*$")


def _markdown(text: str) -> str:
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i][len(indent):] if lines[i].startswith(indent)
                             else lines[i].strip())
                i += 1
            out += [f"{indent}```pycon", *(f"{indent}{b}" for b in block), f"{indent}```"]
            continue
        if TABLE_RULE.match(line):  # top rule, header, rule, rows, bottom rule
            indent = line[: len(line) - len(line.lstrip())]
            block, rules = [], 0
            while i < len(lines) and rules < 3 and (lines[i].strip() or not block):
                rules += bool(TABLE_RULE.match(lines[i]))
                block.append(lines[i][len(indent):])
                i += 1
            out += [f"{indent}```text", *(f"{indent}{b}" for b in block), f"{indent}```"]
            continue
        out.append(ROLE.sub(r"`\1`", line))
        i += 1
    return "\n".join(out)


class ProjectDocstrings(griffe.Extension):
    """Markdown for doctests and Sphinx roles; ``#:`` comments as attribute docs."""

    def on_attribute_instance(self, *, node, attr: griffe.Attribute, agent, **kwargs) -> None:
        if attr.docstring is not None or not isinstance(node, ast.AST):
            return
        lines = getattr(agent, "code", "").split("\n")
        if not attr.lineno or attr.lineno > len(lines):
            return
        line = lines[attr.lineno - 1]
        text: list[str] = []
        if "#:" in line:  # `name: type = value  #: meaning`
            text = [line.split("#:", 1)[1].strip()]
        else:  # `#: meaning` on the lines above
            row = attr.lineno - 2
            while row >= 0 and lines[row].strip().startswith("#:"):
                text.insert(0, COMMENT.search(lines[row].strip()).group(1))
                row -= 1
        if text:
            attr.docstring = griffe.Docstring("\n".join(text), lineno=attr.lineno,
                                              endlineno=attr.lineno, parent=attr)

    def on_object(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _markdown(obj.docstring.value)
