"""A badge per engine beside index.html: `badge-<slug>.svg` to link directly and `badge-<slug>.json`
for shields.io's endpoint badge (https://shields.io/badges/endpoint-badge), so an engine's README
can show its conformance from the page its CI publishes.

The message counts passing cases out of the applicable ones (not-applicable cases are the engine's
declared scope, not failures); the colour says whether CI would pass: red for any fail, error or
unexpected pass, yellow when the only deviations are expected failures, green when all pass.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from markupsafe import escape

from studcheck.report.model import EngineSummary, Model

LABEL = "studcheck"
#: shields.io colour name -> the hex the SVG uses (shields' own values)
COLOURS = {"brightgreen": "#4c1", "yellow": "#dfb317", "red": "#e05d44", "lightgrey": "#9f9f9f"}


@dataclass(frozen=True, kw_only=True)
class Badge:
    slug: str
    message: str
    color: str  # a key of COLOURS

    def endpoint(self) -> dict[str, object]:
        """shields.io's endpoint schema (schemaVersion 1)."""
        return {"schemaVersion": 1, "label": LABEL, "message": self.message, "color": self.color}

    def svg(self) -> str:
        """A flat badge like shields.io's, text widths estimated (7 px a character at 11 px Verdana)."""
        left, right = 7 * len(LABEL) + 10, 7 * len(self.message) + 10
        width = left + right
        label, message = escape(LABEL), escape(self.message)
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" '
                f'aria-label="{label}: {message}"><title>{label}: {message}</title>'
                f'<rect width="{left}" height="20" fill="#555"/><rect x="{left}" width="{right}" height="20" '
                f'fill="{COLOURS[self.color]}"/><g fill="#fff" text-anchor="middle" '
                f'font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">'
                f'<text x="{left / 2}" y="14">{label}</text><text x="{left + right / 2}" y="14">{message}</text></g></svg>\n')


def badge(engine: EngineSummary) -> Badge:
    totals = engine.totals
    if not engine.applicable:
        color = "lightgrey"
    elif engine.failing or totals["xpass"]:
        color = "red"
    elif totals["xfail"]:
        color = "yellow"
    else:
        color = "brightgreen"
    return Badge(slug=engine.slug, message=f"{totals['pass']}/{engine.applicable} pass", color=color)


def write_badges(model: Model, directory: Path) -> list[Path]:
    """badge-<slug>.svg and badge-<slug>.json per engine in `directory`; returns the paths written."""
    written = []
    for engine in model.engines:
        found = badge(engine)
        svg, endpoint = directory / f"badge-{found.slug}.svg", directory / f"badge-{found.slug}.json"
        svg.write_text(found.svg(), encoding="utf-8")
        endpoint.write_text(json.dumps(found.endpoint()) + "\n", encoding="utf-8")
        written += [svg, endpoint]
    return written
