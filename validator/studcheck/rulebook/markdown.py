"""The small Markdown subset the spec is written in, as HTML: escaped first, then marked up.

Paragraphs, `-`/`1.` lists, pipe tables, fenced code, `####` headings; inline `code`, **bold**,
*emphasis* and [links](...). A link to a spec document becomes a link to its page; a rule ID in
backticks becomes a link to the rule. Nothing from the source is ever passed through unescaped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from markupsafe import Markup, escape

_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_EM = re.compile(r"(?<![*\w])\*([^*\s][^*]*?)\*(?![*\w])")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_LIST = re.compile(r"^(\s*)(?:[-*]|\d+\.)\s+(.*)$")


class Linker:
    """How links are resolved: spec documents to pages, rule IDs to their anchors."""

    def __init__(self, pages: Mapping[str, str], rules: Mapping[str, str]) -> None:
        self.pages = pages  # "04-bring-in.md" -> "04-bring-in.html"
        self.rules = rules  # rule ID -> "04-bring-in.html#BRING-IN.CARD.LOW"

    def href(self, target: str) -> str | None:
        if target.startswith(("http://", "https://")):
            return target
        name, _, anchor = target.partition("#")
        page = self.pages.get(name.rsplit("/", 1)[-1])
        if page is None:
            return None
        return page + (f"#{anchor}" if anchor else "")


def inline(text: str, linker: Linker) -> str:
    """One line or paragraph of Markdown as HTML (escaped, then the inline marks)."""
    html = str(escape(text))
    codes: list[str] = []

    def code(match: re.Match[str]) -> str:
        content = match.group(1)
        href = linker.rules.get(content.rstrip(".*"))
        rendered = f"<code>{content}</code>"
        if href is not None:
            rendered = f'<a href="{href}">{rendered}</a>'
        codes.append(rendered)
        return f"\x00{len(codes) - 1}\x00"

    html = _CODE.sub(code, html)

    def link(match: re.Match[str]) -> str:
        href = linker.href(match.group(2).replace("&amp;", "&"))
        if href is None:
            return match.group(1)
        return f'<a href="{escape(href)}">{match.group(1)}</a>'

    html = _LINK.sub(link, html)
    html = _BOLD.sub(r"<strong>\1</strong>", html)
    html = _EM.sub(r"<em>\1</em>", html)
    return re.sub("\x00(\\d+)\x00", lambda m: codes[int(m.group(1))], html)


def _table(lines: list[str], linker: Linker) -> str:
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in lines]
    head, body = rows[0], [row for row in rows[2:]] if len(rows) > 1 and set(lines[1].replace("|", "").strip()) <= set("-: ") else rows[1:]
    parts = ['<div class="table"><table><thead><tr>']
    parts += [f"<th>{inline(cell, linker)}</th>" for cell in head]
    parts.append("</tr></thead><tbody>")
    for row in body:
        parts.append("<tr>" + "".join(f"<td>{inline(cell, linker)}</td>" for cell in row) + "</tr>")
    parts.append("</tbody></table></div>")
    return "".join(parts)


def _list(lines: list[str], linker: Linker) -> str:
    items: list[str] = []
    ordered = bool(re.match(r"^\s*\d+\.", lines[0]))
    for line in lines:
        match = _LIST.match(line)
        if match and len(match.group(1)) <= 1:
            items.append(match.group(2))
        elif items:
            items[-1] += " " + line.strip()
    tag = "ol" if ordered else "ul"
    return f"<{tag}>" + "".join(f"<li>{inline(item, linker)}</li>" for item in items) + f"</{tag}>"


def render(text: str, linker: Linker, *, heading: Callable[[int, str], str] | None = None) -> Markup:
    """A block of Markdown as HTML."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if line.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append(f"<pre>{escape(chr(10).join(lines[i + 1:j]))}</pre>")
            i = j + 1
            continue
        if line.startswith("#"):
            level = min(len(line) - len(line.lstrip("#")), 6)
            title = line.lstrip("#").strip()
            out.append(heading(level, title) if heading else f"<h{level}>{inline(title, linker)}</h{level}>")
            i += 1
            continue
        j = i
        while j < len(lines) and lines[j].strip() and not lines[j].startswith(("```", "#")):
            j += 1
        block = lines[i:j]
        if block[0].lstrip().startswith("|"):
            out.append(_table(block, linker))
        elif _LIST.match(block[0]):
            out.append(_list(block, linker))
        else:
            out.append(f"<p>{inline(' '.join(part.strip() for part in block), linker)}</p>")
        i = j
    return Markup("\n".join(out))


def slug(text: str) -> str:
    """A glossary term's anchor: lower-case letters and digits joined by hyphens."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


class Slugger:
    """GitHub's heading anchors ("Not covered (deliberately not options)" -> not-covered-deliberately-not-options),
    numbered from the second use on (-1, -2, ...), so that `options.md#...` links from the spec land here too."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}

    def __call__(self, title: str) -> str:
        text = _LINK.sub(r"\1", title).replace("`", "").replace("*", "").strip().lower()
        base = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        count = self.seen.get(base, 0)
        self.seen[base] = count + 1
        return base if count == 0 else f"{base}-{count}"


def sections(text: str) -> list[tuple[int, str, str]]:
    """(level, title, body) of each heading outside code fences, as `render` meets them (the same order)."""
    found: list[tuple[int, str, list[str]]] = []
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif line.startswith("#") and not fenced:
            found.append((min(len(line) - len(line.lstrip("#")), 6), line.lstrip("#").strip(), []))
            continue
        if found:
            found[-1][2].append(line)
    return [(level, title, "\n".join(body).strip()) for level, title, body in found]


def plain(text: str) -> str:
    """Markdown as plain words (for the search index)."""
    text = _LINK.sub(r"\1", text)
    return " ".join(re.sub(r"[`*|#>]", " ", text).split())
