"""The model rendered as one self-contained HTML page (inline CSS and script, no network).

Autoescaping is on for everything: titles, messages, stderr and group keys come from engines and
case files, and the page must show them as text, never run them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from studcheck.report.hands import cards_html
from studcheck.report.model import DETAILED, OUTCOMES, WORDS, Model

#: the colour class of one case's outcome in the index (the matrix cells' classes)
CSS_OF = {"pass": "pass", "fail": "fail", "error": "fail", "not_applicable": "na", "xfail": "xfail", "xpass": "fail"}
OUTCOME_TITLES = {"pass": "pass", "fail": "fail", "error": "error", "not_applicable": "n/a", "xfail": "xfail", "xpass": "xpass"}
#: the bar's segments, left to right
BAR = ("pass", "fail", "error", "xpass", "xfail", "not_applicable")
#: engine text (stderr, output, messages) kept per case drawn in full; a case shown as one row keeps none
CLIP = 2000


def clip(text: object, limit: int = CLIP) -> str:
    """At most `limit` characters of engine text, saying how much was left out (the replay shows all)."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n… {len(text) - limit:,} more characters omitted on this page; the replay command shows them"


def breakable(rule: str) -> Markup:
    """A rule ID that may wrap after its dots (a narrow sticky rule column stays readable)."""
    return Markup(str(escape(rule)).replace(".", ".<wbr>"))


def plural(number: int, word: str, many: str | None = None) -> str:
    return f"{number:,} {word if number == 1 else (many or word + 's')}"


def environment() -> Environment:
    return Environment(loader=PackageLoader("studcheck.report", "templates"), autoescape=select_autoescape(default=True,
                       default_for_string=True), undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def rule_html(text: str) -> Markup:
    """A rule's Markdown paragraphs as <p>s: escaped first, then only `code` and **bold** marked up."""
    paragraphs = []
    for part in text.split("\n\n"):
        html = str(escape(part.strip()))
        html = re.sub(r"`([^`]+)`", r"<code>\1</code>", html)
        html = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", html)
        paragraphs.append(f"<p>{html}</p>")
    return Markup("\n".join(paragraphs))


def render_html(model: Model, rule_links: Mapping[str, str] | None = None) -> str:
    """The page; `rule_links` (rule ID -> URL of the rule in the rulebook site, from `--rulebook`) adds a
    link beside each rule ID it names, and nothing else changes."""
    template = environment().get_template("index.html.j2")
    return template.render(model=model, outcomes=OUTCOMES, outcome_titles=OUTCOME_TITLES, css_of=CSS_OF,
                           detailed_outcomes=[outcome for outcome in OUTCOMES if outcome in DETAILED],
                           cards_html=cards_html, rule_html=rule_html, clip=clip, clip_limit=CLIP, plural=plural,
                           bar=BAR, words=WORDS, breakable=breakable, rules={rule.id: rule for rule in model.cited_rules},
                           rule_links=rule_links or {})


def write_html(model: Model, directory: Path, rule_links: Mapping[str, str] | None = None) -> Path:
    """DIR/index.html (DIR is created); returns its path."""
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / "index.html"
    target.write_text(render_html(model, rule_links), encoding="utf-8")
    return target
