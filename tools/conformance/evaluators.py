"""Regenerate docs/conformance/evaluators/: nine installed hand evaluators against the evaluation profile.

    python tools/conformance/evaluators.py            # install the pinned libraries, run, write every page
    python tools/conformance/evaluators.py --check    # the same into a scratch folder; exit 1 if a result differs
    python tools/conformance/evaluators.py --only treys --no-install

Each library is installed by its own package manager exactly as its users install it (pip into
.venv-evaluators from adapters/evaluators/requirements.txt; npm ci in adapters/evaluators/js), at the
pinned version, then driven through its adapter by `studcheck run --profile evaluation --exhaustive`
(the evaluation cases and every five-card class) and `studcheck fuzz --profile evaluation`. For each
library the folder gets `index.html` (the studcheck HTML report of the run), `README.md` (the page:
what it supports, the pass share per kind, each cause with its smallest disagreeing pair, the
fuzzing) and `results.json` (the numbers the page is made of, which --check compares); the folder
gets the summary table, library by kind, as README.md and index.html. Pages are generated, never
edited: what a person checked by hand against the rules is in adapters/evaluators/libraries.yaml,
and a cause without such a note is published as unchecked and makes this exit 1.

Run it with a Python that has studcheck installed (the checkout's `.venv`), from anywhere.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from jinja2 import Environment, select_autoescape

ROOT = Path(__file__).resolve().parents[2]
ADAPTERS = ROOT / "adapters" / "evaluators"
OUT = ROOT / "docs" / "conformance" / "evaluators"
VENV = ROOT / ".venv-evaluators"
KINDS = ("high", "razz", "low8", "exposed_high", "exposed_low", "bring_in", "bring_in_razz")
FUZZ_ITEMS = 100_000
FUZZ_SEED = 1


@dataclass(frozen=True, kw_only=True)
class Library:
    name: str
    registry: str  # pypi or npm
    adapter: str  # path under adapters/evaluators
    about: str
    checked: dict[str, str]

    @property
    def slug(self) -> str:
        return self.name.replace("_", "-").lower()

    def command(self, venv: Path) -> str:
        """The --engine command, relative to the repository root (the pages show it as run)."""
        if self.registry == "npm":
            return f"node adapters/evaluators/{self.adapter}"
        return f"{os.path.relpath(venv / 'bin' / 'python', ROOT)} adapters/evaluators/{self.adapter}"


def libraries() -> list[Library]:
    data = yaml.safe_load((ADAPTERS / "libraries.yaml").read_text(encoding="utf-8"))
    return [Library(name=str(entry["name"]), registry=str(entry["registry"]), adapter=str(entry["adapter"]),
                    about=" ".join(str(entry["about"]).split()), checked=dict(entry.get("checked") or {}))
            for entry in data["libraries"]]


def pins() -> dict[str, str]:
    """name -> the pinned version, from requirements.txt and js/package.json."""
    found: dict[str, str] = {}
    for line in (ADAPTERS / "requirements.txt").read_text(encoding="utf-8").splitlines():
        if "==" in line and not line.lstrip().startswith("#"):
            name, _, version = line.strip().partition("==")
            found[name] = version
    package = json.loads((ADAPTERS / "js" / "package.json").read_text(encoding="utf-8"))
    found.update(package["dependencies"])
    return found


def install(venv: Path) -> None:
    """pip into the venv, npm ci in the js folder: each library by its own package manager."""
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", "-r", str(ADAPTERS / "requirements.txt")], check=True)
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=ADAPTERS / "js", check=True)


def homepage(library: Library, venv: Path) -> str | None:
    """The home page the installed package's own metadata names (none of a registry's)."""
    if library.registry == "npm":
        meta = json.loads((ADAPTERS / "js" / "node_modules" / library.name / "package.json").read_text(encoding="utf-8"))
        repository = meta.get("repository")
        url = meta.get("homepage") or (repository.get("url") if isinstance(repository, dict) else repository)
    else:
        script = ("import importlib.metadata as m, sys; d = m.metadata(sys.argv[1]); "
                  "urls = [d.get('Home-page')] + [u.split(',', 1)[1].strip() for u in d.get_all('Project-URL') or []]; "
                  "print(next((u for u in urls if u and u != 'UNKNOWN'), ''))")
        url = subprocess.run([str(venv / "bin" / "python"), "-c", script, library.name], capture_output=True, text=True,
                             check=False).stdout.strip()
    if not isinstance(url, str) or not url:
        return None
    url = url.removeprefix("git+").removesuffix(".git")
    return None if "pypi.org" in url or "npmjs" in url or not url.startswith("https://") else url


def run_library(library: Library, venv: Path, folder: Path, scratch: Path, fuzz_items: int) -> dict[str, Any]:
    """Run the profile and the fuzzer on one library; the results the pages are made of."""
    command = library.command(venv)
    report = scratch / f"{library.slug}.jsonl"
    studcheck = [sys.executable, "-m", "studcheck"]
    ran = subprocess.run([*studcheck, "run", "--profile", "evaluation", "--exhaustive", "--engine", command, "--no-progress",
                          "--report", str(report)], cwd=ROOT, capture_output=True, text=True, check=False)
    if ran.returncode not in (0, 1):
        raise SystemExit(f"{library.name}: studcheck run exited {ran.returncode}:\n{ran.stdout[-3000:]}{ran.stderr[-3000:]}")
    # the page names its report by file name alone (the scratch folder is gone when a reader opens it)
    drawn = subprocess.run([*studcheck, "report", report.name, "-o", str(folder / library.slug)], cwd=scratch,
                           capture_output=True, text=True, check=False)
    if drawn.returncode != 0:
        raise SystemExit(f"{library.name}: studcheck report exited {drawn.returncode}:\n{drawn.stderr[-3000:]}")
    lines = [json.loads(text) for text in report.read_text(encoding="utf-8").splitlines()]
    fuzzed = subprocess.run([*studcheck, "fuzz", "--profile", "evaluation", "--engine", command, "--hands", str(fuzz_items),
                             "--seed", str(FUZZ_SEED), "--keep-going", "--no-progress", "--out", str(scratch / f"fuzz-{library.slug}")],
                            cwd=ROOT, capture_output=True, text=True, check=False)
    if fuzzed.returncode not in (0, 1):
        raise SystemExit(f"{library.name}: studcheck fuzz exited {fuzzed.returncode}:\n{fuzzed.stderr[-3000:]}")
    return results(library, lines, fuzzed.stdout, command, fuzz_items)


def results(library: Library, lines: list[dict[str, Any]], fuzz_out: str, command: str, fuzz_items: int) -> dict[str, Any]:
    header = lines[0]
    engine = header.get("engine") or {}
    cases = [line for line in lines if line["kind"] == "case"]
    per_kind: dict[str, Counter[str]] = {kind: Counter() for kind in KINDS}
    for line in cases:
        per_kind[line["variant"]][line["outcome"]] += 1
    by_id = {line["id"]: line for line in cases}
    causes = []
    for group in (line for line in lines if line["kind"] == "group"):
        example = by_id[group["representative"]]
        title = f"{(group.get('blame') or ['no rule'])[0]}: {group['key']}"
        causes.append({"title": title, "rule": (group.get("blame") or [None])[0], "cases": group["cases"],
                       "example": group["representative"], "pair": example.get("message", ""),
                       "checked": library.checked.get(title)})
    # what the fuzzer found, without where it wrote its cases (a scratch folder) and the replay command
    fuzz_lines = [line for line in fuzz_out.splitlines()
                  if not line.startswith(("studcheck fuzz:", "  written:", "  replay:"))]
    return {
        "name": library.name, "registry": library.registry, "version": engine.get("version"), "engine": engine.get("name"),
        "kinds": {kind: {"declared": engine.get("kinds", {}).get(kind), **{k: per_kind[kind][k] for k in
                         ("pass", "fail", "error", "not_applicable")}} for kind in KINDS},
        "causes": causes, "command": command,
        "fuzz": {"items": fuzz_items, "seed": FUZZ_SEED, "lines": fuzz_lines},
        "exit_code": lines[-1].get("exit_code"),
    }


PAGE = """\
<!-- generated by tools/conformance/evaluators.py from a run of the pinned version: do not edit -->
# {{ r.name }} {{ r.version }} ({{ registry }}): the studcheck evaluation profile

{{ about }}{% if home %} Home page (from the package's own metadata): <{{ home }}>.{% endif %}

Checked through its adapter `adapters/evaluators/{{ adapter }}` (the library's own functions, as its
users call them; spec/evaluation.md), installed with {{ installer }} at exactly **{{ r.version }}**.
Every disagreement below is a pair of hands a reader can check against the rule named.

## Results

{{ summary }}

| kind | what it ranks | declared | cases | pass | fail | error |
|---|---|---|---:|---:|---:|---:|
{% for kind in order %}{% set row = r.kinds[kind] %}{% if row.declared %}| `{{ kind }}` | {{ ranks[kind] }} | {{ row.declared }} is better | {{ row.pass + row.fail + row.error }} | {{ row.pass }} | {{ row.fail }} | {{ row.error }} |
{% endif %}{% endfor %}
Not declared, so not checked (*not applicable*): {{ undeclared }}.

The cases are the hand-written evaluation cases (`cases/evaluation/`) and, per kind, the exhaustive
batch of every class in order (`--exhaustive`: 7,462 high classes, 6,175 A-5 lows, every board of two
to four cards, every door card, each class twice where suits can differ). The HTML report of the
same run: [index.html](index.html).

## Causes of failure
{% if not r.causes %}
None: {{ r.name }} ranks every item of every declared kind as the rules do.
{% endif %}{% for cause in r.causes %}
{{ loop.index }}. **{{ cause.title }}** ({{ cause.cases | length }} case{{ "" if cause.cases | length == 1 else "s" }}; e.g. `{{ cause.example }}`)
   - {{ cause.pair }}
   - {% if cause.checked %}Checked by hand: {{ cause.checked }}{% else %}**Not yet checked by hand against the rules.**{% endif %}
{% endfor %}
## Fuzzing

`studcheck fuzz --profile evaluation --hands {{ r.fuzz["items"] }} --seed {{ r.fuzz.seed }}` (random 5 to 7 card hands,
boards and door cards of the declared kinds, in batches of 1,000):

```
{{ r.fuzz.lines | join("\\n") }}
```

## Reproduce

```sh
{{ install }}
studcheck run --profile evaluation --exhaustive --engine "{{ r.command }}"
studcheck fuzz --profile evaluation --hands {{ r.fuzz["items"] }} --seed {{ r.fuzz.seed }} --engine "{{ r.command }}"
```

or regenerate this page and the others: `python tools/conformance/evaluators.py`.
"""

RANKS = {"high": "best five of 5 to 7 cards", "razz": "A-5 low of 5 to 7 cards", "low8": "8-or-better low of 5 to 7 cards",
         "exposed_high": "boards of 2 to 4 up cards (first to act)", "exposed_low": "Razz boards of 2 to 4 up cards",
         "bring_in": "door cards (bring-in)", "bring_in_razz": "Razz door cards (bring-in)"}

SUMMARY_HTML = """\
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>studcheck: hand evaluators against the stud rules</title>
<style>
body { font: 16px/1.45 system-ui, sans-serif; margin: 1.5rem auto; max-width: 70rem; padding: 0 1rem; color: #1a1a1a; }
h1 { font-size: 1.5rem; }
.wrap { overflow-x: auto; }
table { border-collapse: collapse; min-width: 36rem; }
th, td { border: 1px solid #bbb; padding: .35rem .55rem; text-align: center; }
th:first-child, td:first-child { text-align: left; }
td.all { background: #d9f2d9; }
td.some { background: #f6d5d5; font-weight: 600; }
td.na { color: #777; }
caption { caption-side: bottom; text-align: left; padding-top: .5rem; color: #444; }
</style>
</head>
<body>
<h1>Hand evaluators against the stud rules</h1>
<p>Nine evaluators people install, each checked through the studcheck <em>evaluation</em> profile at the
version named: the hand-written evaluation cases plus every five-card class, board and door card in
order. A cell is cases passed of cases run for that kind; — means the library does not evaluate it.</p>
<div class="wrap">
<table id="summary">
<thead><tr><th>library</th><th>registry</th>{% for kind in kinds %}<th>{{ kind }}</th>{% endfor %}<th>causes</th></tr></thead>
<tbody>
{% for r in rows %}<tr><td><a href="{{ r.slug }}/index.html">{{ r.name }} {{ r.version }}</a></td><td>{{ r.registry }}</td>
{% for kind in kinds %}{% set k = r.kinds[kind] %}{% if k.declared %}<td class="{{ 'all' if k.pass == k.pass + k.fail + k.error else 'some' }}">{{ k.pass }}/{{ k.pass + k.fail + k.error }}</td>{% else %}<td class="na">—</td>{% endif %}{% endfor %}
<td>{{ r.causes | length }}</td></tr>
{% endfor %}</tbody>
<caption>Each library's page: its name. Regenerated by <code>python tools/conformance/evaluators.py</code>.</caption>
</table>
</div>
</body>
</html>
"""


def write_pages(folder: Path, found: list[dict[str, Any]], libs: dict[str, Library]) -> None:
    """Every page from the results alone (tests/unit/test_conformance_pages.py rebuilds them so)."""
    env = Environment(autoescape=False, keep_trailing_newline=True, trim_blocks=False)
    page = env.from_string(PAGE)
    for result in found:
        library = libs[result["name"]]
        declared = [kind for kind in KINDS if result["kinds"][kind]["declared"]]
        ran = sum(row["pass"] + row["fail"] + row["error"] for row in result["kinds"].values())
        passed = sum(row["pass"] for row in result["kinds"].values())
        summary = (f"**{passed} of {ran} cases pass** in the {len(declared)} kind{'s' if len(declared) != 1 else ''} it "
                   f"declares; {len(result['causes'])} cause{'s' if len(result['causes']) != 1 else ''} of failure.")
        install = (f"pip install {library.name}=={result['version']}" if library.registry == "pypi" else
                   f"npm install {library.name}@{result['version']}") + "   # as adapters/evaluators does"
        text = page.render(r=result, about=library.about, home=result.get("home"), adapter=library.adapter,
                           registry="PyPI" if library.registry == "pypi" else "npm",
                           installer="pip" if library.registry == "pypi" else "npm",
                           ranks=RANKS, summary=summary, undeclared=", ".join(f"`{k}`" for k in KINDS if k not in declared),
                           install=install, order=KINDS)
        target = folder / result_slug(result)
        target.mkdir(parents=True, exist_ok=True)
        (target / "README.md").write_text(text, encoding="utf-8")
        (target / "results.json").write_text(json.dumps(stable(result), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    rows = [{**result, "slug": result_slug(result)} for result in found]
    html = Environment(autoescape=select_autoescape(default=True)).from_string(SUMMARY_HTML).render(rows=rows, kinds=KINDS)
    (folder / "index.html").write_text(html, encoding="utf-8")
    lines = ["<!-- generated by tools/conformance/evaluators.py: do not edit -->",
             "# Hand evaluators against the stud rules", "",
             "Each library at the version named, through the studcheck evaluation profile (spec/evaluation.md): the",
             "hand-written evaluation cases plus every five-card class, board and door card in order. A cell is",
             "cases passed of cases run; — means the library does not evaluate that kind. Also as [index.html](index.html).",
             "", "| library | registry | " + " | ".join(f"`{kind}`" for kind in KINDS) + " | causes |",
             "|---|---|" + "---:|" * len(KINDS) + "---:|"]
    for row in rows:
        cells = []
        for kind in KINDS:
            k = row["kinds"][kind]
            cells.append(f"{k['pass']}/{k['pass'] + k['fail'] + k['error']}" if k["declared"] else "—")
        lines.append(f"| [{row['name']} {row['version']}]({row['slug']}/README.md) | {row['registry']} | "
                     + " | ".join(cells) + f" | {len(row['causes'])} |")
    (folder / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def result_slug(result: dict[str, Any]) -> str:
    return str(result["name"]).replace("_", "-").lower()


def stable(result: dict[str, Any]) -> dict[str, Any]:
    """What --check compares: everything but the command (a venv's path may differ)."""
    return {key: value for key, value in result.items() if key != "command"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", metavar="NAME", help="only this library (repeatable)")
    parser.add_argument("--no-install", action="store_true", help="use the libraries already installed")
    parser.add_argument("--check", action="store_true", help="regenerate into a scratch folder and compare each results.json")
    parser.add_argument("--venv", type=Path, default=VENV, help=f"the Python libraries' venv (default {os.path.relpath(VENV, ROOT)})")
    parser.add_argument("--fuzz-items", type=int, default=FUZZ_ITEMS, help=f"items to fuzz per library (default {FUZZ_ITEMS})")
    args = parser.parse_args(argv)
    libs = {library.name: library for library in libraries()}
    chosen = [libs[name] for name in args.only] if args.only else list(libs.values())
    pinned = pins()
    if not args.no_install:
        install(args.venv)
    with tempfile.TemporaryDirectory() as scratch_text:
        scratch = Path(scratch_text)
        folder = scratch / "out" if args.check else OUT
        folder.mkdir(parents=True, exist_ok=True)
        found = []
        for library in chosen:
            result = run_library(library, args.venv, folder, scratch, args.fuzz_items)
            result["home"] = homepage(library, args.venv)
            if result["version"] != pinned.get(library.name):
                raise SystemExit(f"{library.name}: the engine says version {result['version']}, the pin is {pinned.get(library.name)}")
            found.append(result)
            print(f"{library.name} {result['version']}: " + ", ".join(
                f"{kind} {row['pass']}/{row['pass'] + row['fail'] + row['error']}" for kind, row in result["kinds"].items()
                if row["declared"]) + f"; {len(result['causes'])} causes", flush=True)
        if args.only and not args.check:  # the summary needs every library: read the others' committed results
            found += [json.loads((OUT / slug / "results.json").read_text(encoding="utf-8"))
                      for slug in sorted({lib.slug for lib in libs.values()} - {lib.slug for lib in chosen})
                      if (OUT / slug / "results.json").exists()]
            found.sort(key=lambda result: list(libs).index(result["name"]))
        write_pages(folder, found, libs)
        unchecked = [f"{result['name']}: {cause['title']}" for result in found for cause in result["causes"] if not cause["checked"]]
        if args.check:
            differ = [result["name"] for result in found
                      if json.loads((folder / result_slug(result) / "results.json").read_text(encoding="utf-8"))
                      != _committed(result_slug(result))]
            if differ:
                print(f"the published results differ from this run for: {', '.join(differ)} "
                      "(regenerate with python tools/conformance/evaluators.py and check the pages)", file=sys.stderr)
                return 1
            print(f"the published results of {len(found)} libraries are what this run found")
    if unchecked:
        print("causes not yet checked by hand (add a note under `checked` in adapters/evaluators/libraries.yaml):\n  "
              + "\n  ".join(unchecked), file=sys.stderr)
        return 1
    return 0


def _committed(slug: str) -> Any:
    path = OUT / slug / "results.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


if __name__ == "__main__":
    raise SystemExit(main())
