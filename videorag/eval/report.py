"""Reports: a Markdown table beside the paper's rows, JSON with per-item scores, PNG plots —
written to a results folder with the exact command that produced them at the top."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from . import paper

RETRIEVAL_COLUMNS = ("recall_first@1", "recall_first@5", "recall_first@10", "recall_any@10", "ndcg@10", "mrr")


def command_line(argv: list[str]) -> str:
    return "videorag " + " ".join(shlex.quote(a) for a in argv)


def retrieval_table(results: list[dict]) -> str:
    head = "| method | " + " | ".join(RETRIEVAL_COLUMNS) + " | p50 ms |\n|" + "---|" * (len(RETRIEVAL_COLUMNS) + 2)
    rows = [
        f"| {r['method']} (ours) | "
        + " | ".join(f"{r[c]:.3f}" for c in RETRIEVAL_COLUMNS)
        + f" | {r['latency_ms_p50']:.1f} |"
        for r in results
    ]
    rows += [
        f"| paper: {name} | " + " | ".join(f"{v:.3f}" for v in vals) + " | – | – | – | – |"
        for name, vals in paper.RETRIEVAL.items()
    ]
    return "\n".join([head, *rows])


INDEX_COLUMNS = (
    "window_hit@1",
    "video_hit@1",
    "moment_recall@5",
    "moment_recall@10",
    "moment_mrr",
    "chunk_recall@5",
    "chunk_ndcg@5",
    "generation_pass",
    "recall_any@1",
    "recall_any@5",
    "ndcg@10",
    "mrr",
)


ANSWER_COLUMNS = (
    "key_fact_accuracy",
    "rouge_l",
    "citation_precision",
    "cited_seconds_p50",
    "cited_within_15s",
    "claim_support_rate",
    "abstention_precision",
    "abstention_recall",
    "false_abstention",
    "answerability_auroc",
)


def answers_table(result: dict) -> str:
    """`eval answers`: one row for all questions, then one per split and per kind."""
    head = (
        "| questions | n | "
        + " | ".join(ANSWER_COLUMNS)
        + " | first piece p50 ms | answer p50 / p95 ms |\n|"
        + "---|" * (len(ANSWER_COLUMNS) + 4)
    )
    groups = [("all", result), *list(result["by_split"].items()), *list(result["by_kind"].items())]
    rows = [
        f"| {name} | {g['n']} | "
        + " | ".join(_cell(g.get(c)) for c in ANSWER_COLUMNS)
        + (
            f" | {result['first_piece_ms']['p50']} | {result['answer_ms']['p50']} / {result['answer_ms']['p95']} |"
            if name == "all"
            else " | | |"
        )
        for name, g in groups
    ]
    curve = ", ".join(f"{c:.0%}: {r:.2f}" for c, r in result.get("risk_coverage") or [])
    return "\n".join(
        [head]
        + rows
        + (
            [f"\nRisk–coverage (all; coverage: share unanswerable among the answered, most confident first): {curve}"]
            if curve
            else []
        )
    )


def _cell(value) -> str:
    return "–" if value is None else f"{value:.3f}" if isinstance(value, float) and value <= 1 else f"{value:.2f}"


def index_table(results: list[dict]) -> str:
    """`eval index`: where the hits point (moment columns; – without gold windows), then which
    videos come first."""
    head = "| method | n | " + " | ".join(INDEX_COLUMNS) + " | p50 ms |\n|" + "---|" * (len(INDEX_COLUMNS) + 3)
    rows = [
        f"| {r['method']} | {r['n']} | "
        + " | ".join(f"{r[c]:.3f}" if c in r else "–" for c in INDEX_COLUMNS)
        + f" | {r['latency_ms_p50']:.1f} |"
        for r in results
    ]
    return "\n".join([head, *rows])


def generation_table(results: list[dict]) -> str:
    head = "| method | generator | n | ROUGE-L | BLEU-4 | BERTScore | G-Eval |\n|---|---|---|---|---|---|---|"
    rows = []
    formats = {"ROUGE-L": "{:.2f}", "BLEU-4": "{:.3f}", "BERTScore": "{:.2f}†", "G-Eval": "{:.3f}"}
    for r in results:
        cells = [fmt.format(r[k]) if k in r else "–" for k, fmt in formats.items()]
        rows.append(f"| {r['method']} | {r.get('generator', '–')} | {r['n']} | " + " | ".join(cells) + " |")
    for model, table in paper.GENERATION.items():
        for method, vals in table.items():
            cells = [f"{v:.3f}" if i in (1, 3) else f"{v:.2f}" for i, v in enumerate(vals)]
            cells += ["–"] * (4 - len(cells))
            rows.append(f"| paper: {method} | {model} | 534 | " + " | ".join(cells) + " |")
    return "\n".join([head, *rows])


def notes(results: list[dict]) -> list[str]:
    seen = (
        [
            "- † BERTScore here uses the model named below, the paper's uses roberta-large: "
            "do not compare the two columns."
        ]
        if any("BERTScore" in r for r in results)
        else []
    )
    for r in results:
        for metric, note in r.get("notes", {}).items():
            line = f"- {metric} ({r['method']}): {note}"
            if line not in seen:
                seen.append(line)
    return seen


def plot_sweep(sweep: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    alphas = [s["alpha"] for s in sweep]
    for k in (1, 5, 10):
        ax.plot(alphas, [s[f"recall_first@{k}"] for s in sweep], marker="o", label=f"R@{k} (first gold)")
    ax.set_xlabel("α (weight of dense score; 0 = BM25 only, 1 = dense only)")
    ax.set_ylabel("Recall")
    ax.set_title("Text retrieval on WikiHowQA × HowTo100M: R@k vs α")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write(out: Path, name: str, sections: list[tuple[str, str]], payload: dict, argv: list[str]) -> Path:
    """Write OUT/NAME.md (command first, then sections) and OUT/NAME.json (payload)."""
    out.mkdir(parents=True, exist_ok=True)
    lines = [f"# {name}", "", "Produced by:", "", "```", command_line(argv), "```", ""]
    for title, body in sections:
        lines += [f"## {title}", "", body, ""]
    (out / f"{name}.md").write_text("\n".join(lines))
    (out / f"{name}.json").write_text(json.dumps({"command": command_line(argv), **payload}, indent=1))
    return out / f"{name}.md"
