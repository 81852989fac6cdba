"""results/languages/README.md: the tables of a `python -m benchmarks languages` run (the
hand-written notes under "## Beside it" kept) and the per-question file beside it."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

NOTES = "## Beside it"


def _cells(figures: dict, keys: list[str]) -> str:
    return " | ".join("–" if figures.get(k) is None else f"{figures[k]:.2f}" for k in keys)


def tables(result: dict) -> list[str]:
    keys = [k for k in ("video@1", "window@1", "judged video@1", "judged window@1", "key_fact",
                        "in_question_language", "abstained") if any(k in g for t in result["totals"].values()
                                                                 for g in t.values())]
    lines = ["| split | questions | n | " + " | ".join(keys) + " |", "|---|---|---|" + "---|" * len(keys)]
    for split, groups in result["totals"].items():
        for name, figures in groups.items():
            lines.append(f"| {split} | {name} | {figures['n']} | {_cells(figures, keys)} |")
    lines += ["", "By clip language and question language (split / clip / asked in):", "",
              "| group | n | " + " | ".join(keys) + " |", "|---|---|" + "---|" * len(keys)]
    lines += [f"| {label} | {g['n']} | {_cells(g, keys)} |" for label, g in result["groups"].items()]
    return lines


def identification(result: dict) -> list[str]:
    rows = ["| clip | identified | probability |", "|---|---|---|"]
    for slug, found in result["identified"].items():
        p = "–" if found["probability"] is None else f"{found['probability']:.2f}"
        rows.append(f"| {slug} | {found['language']}{'' if found['right'] else ' (wrong)'} | {p} |")
    return rows


def write_readme(folder: Path, result: dict, label: str = "") -> None:
    """README.md (README-LABEL.md for a labelled run: the clips indexed from their subtitles)."""
    folder.mkdir(parents=True, exist_ok=True)
    readme = folder / (f"README-{label}.md" if label else "README.md")
    notes = readme.read_text().split(NOTES, 1)[1] if readme.exists() and NOTES in readme.read_text() else "\n"
    ingest = result["ingest"]
    text = [
        "# Multilingual benchmark" + (f" ({label})" if label else ""), "",
        f"`{result['command']}` at {result['revision']}.", "",
        *tables(result), "",
        "Ingest (each group in a run of its own, defaults): "
        + "; ".join(f"{k}: {v['clips']} clips, {v['added']} added, {v['x_realtime']}× realtime"
                    for k, v in ingest.items()), "",
        "Languages identified:", "", *identification(result), "",
        "Per question: `languages.json.gz` beside this file.", "", NOTES + notes.rstrip() + "\n",
    ]
    readme.write_text("\n".join(text))
    with gzip.open(folder / f"languages{'-' + label if label else ''}.json.gz", "wt") as f:
        json.dump(result, f, indent=1)
