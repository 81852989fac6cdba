"""What the speech recogniser hears of the other-language clips, without indexing them: each clip
transcribed by the shipped ASR (`FasterWhisperASR`, language identified as ingest does), its word
error rate against the clip's lines, and how many of its questions' key facts are in the
transcript or its English translation at all (a fact the ASR loses, no retrieval or answer can
state). `--beam N` decodes with beam search (the shipped ASR decodes greedily, beam 1).

    python -m benchmarks languages --asr [--beam 5]
"""
from __future__ import annotations

import re
import time

from ..bench_ingest_engines import wer


def words(text: str) -> list[str]:
    """Lower-cased words of any script (accents kept), punctuation dropped."""
    return re.findall(r"[\w']+", text.lower())


def facts_in(text: str, fact: str) -> bool:
    """Whether one of the fact's alternatives ("6|seis|six") is a whole word run of `text`."""
    found = " ".join(words(text))
    return any(re.search(rf"(?<!\w){re.escape(' '.join(words(alt)))}(?!\w)", found) for alt in fact.split("|"))


def heard(clips: list[dict], beam: int) -> dict:
    """Per clip and over all: WER, key facts present, × realtime (clips refused count as unheard)."""
    from videorag.asr.faster_whisper import FasterWhisperASR
    from videorag.errors import VideoRAGError

    asr = FasterWhisperASR(beam_size=beam)
    asr.warm_up()
    rows, edits, total, seconds, audio = {}, 0, 0, 0.0, 0.0
    for clip in clips:
        start = time.perf_counter()
        try:
            found = asr.transcribe(str(clip["path"]))
        except VideoRAGError as exc:  # refused: every word missed
            rows[clip["slug"]] = {"refused": str(exc), "wer": 1.0, "facts": [False] * len(clip["questions"])}
            n = len(words(" ".join(clip["lines"])))
            edits, total = edits + n, total + n
            continue
        seconds, audio = seconds + time.perf_counter() - start, audio + clip["spans"][-1].end
        text, english = " ".join(s.text for s in found), " ".join(s.text for s in found.translation)
        e, n = wer(" ".join(clip["lines"]), text, words)
        edits, total = edits + e, total + n
        rows[clip["slug"]] = {"language": found.language, "wer": round(e / n, 3), "text": text, "english": english,
                              "facts": [facts_in(f"{text} {english}", q["fact"]) for q in clip["questions"]]}
    facts = [f for r in rows.values() for f in r["facts"]]
    return {"beam": beam, "clips": rows, "wer": round(edits / total, 3), "facts": f"{sum(facts)} of {len(facts)}",
            "x_realtime": round(audio / seconds, 2) if seconds else None}
