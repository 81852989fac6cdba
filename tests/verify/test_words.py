"""Citations at the words (`videorag.verify.words`), word timings kept by ingest and the index
(format 2), and an index without them (format 1) cited by sentence."""
from __future__ import annotations

import json
import shutil

import numpy as np

from videorag.config import VerifyConfig
from videorag.index.store import VideoIndex
from videorag.index.tables import VideoRecord
from videorag.ingest.chunking import bound_segments
from videorag.types import Answer, Citation, Claim, Evidence, Hit, Segment, Word
from videorag.verify import verify
from videorag.verify.words import LEAD, TAIL, at_words

SENTENCE = ("Before you start sanding the old paint off the door, make sure the room is aired, "
            "then let the glue dry for twenty four hours before you ride.")


def timed(text: str, start: float, per_word: float = 0.4) -> tuple[Word, ...]:
    return tuple(Word(start + i * per_word, start + (i + 1) * per_word - 0.05, w) for i, w in enumerate(text.split()))


WORDS = timed(SENTENCE, 10.0)   # 26 words over 10.4 s
CITED = Citation("v", "/v.mp4", 10.0, WORDS[-1].end)


def lookup(words):
    return lambda video_id, start, end: [w for w in words if w.start < end and w.end > start]


def test_a_claim_is_cited_at_the_words_that_say_it_with_about_a_second_of_lead_in():
    claim = Claim("Let the glue dry for 24 hours before riding.", [0])
    [(narrow, said)] = at_words([CITED], [claim], "how long should the glue dry", lookup(WORDS))
    glue = next(w for w in WORDS if w.text == "glue")
    assert glue.start - LEAD <= narrow.start < glue.start - LEAD / 2 and said[0] == glue.start
    assert not any(w.start < t < w.end for w in WORDS for t in (narrow.start, narrow.end))   # cutting no word
    assert narrow.end <= CITED.end + TAIL and narrow.end - narrow.start <= 6.0   # "glue dry … hours before you ride"
    assert narrow.end >= next(w for w in WORDS if w.text == "hours").end


def test_a_paraphrase_cites_the_whole_sentence_and_an_index_without_word_timings_the_sentence_as_it_is():
    paraphrase = Claim("Wait a full day.", [0])
    [(whole, said)] = at_words([CITED], [paraphrase], "how long", lookup(WORDS))   # from lead-in to tail
    assert (whole.start, whole.end) == (CITED.start - LEAD, CITED.end + TAIL) and said == (CITED.start, CITED.end)
    claim = Claim("Let the glue dry for 24 hours.", [0])
    assert at_words([CITED], [claim], "how long", lookup(())) == [(CITED, (CITED.start, CITED.end))]


def test_a_number_said_in_words_is_the_claims_digits():
    # a read passage said twice: "Six spoons …" in words, then "6 spoons … snow bees" in digits
    words = timed("Six spoons of fresh snow peas and blue cheese", 10.0) + timed("6 spoons of fresh snow bees", 20.0)
    cited = Citation("v", "/v.mp4", 10.0, words[-1].end)
    claim = Claim("There are 6 spoons of fresh snow peas on the list.", [0])
    [(narrow, _)] = at_words([cited], [claim], "how many spoons of snow peas are on the list", lookup(words))
    assert narrow.start == 10.0 - LEAD and narrow.end < 13.0   # the first reading, which says every word


def test_a_sentence_is_timed_by_its_words_and_its_lead_in_stops_at_another_sentences_words():
    # the recogniser's segment ends as its last word starts; a share of its time by characters does
    # not fall where a sentence's words are said
    said = [Word(25.82, 26.02, "No"), Word(26.02, 26.42, "matter."), Word(27.22, 27.4, "Try"),
            Word(27.4, 27.98, "again."), Word(29.16, 29.76, "Fail"), Word(30.4, 30.72, "better.")]
    seg = Segment(25.8, 30.72, "No matter. Try again. Fail better.")
    cited = Citation("v", "/v.mp4", seg.start, seg.end)
    evidence = [Evidence(Hit("v", "/v.mp4", seg.start, seg.end, 1.0, seg.text), [seg])]

    def asked(words):
        answer = Answer("what should you do no matter how often you failed", "Try again [1].", [cited], "t")
        return verify(answer, evidence, None, VerifyConfig(), words=words).citations[0]

    assert asked(None) != Citation("v", "/v.mp4", 27.22, 27.98)   # no word timings: a share of the segment's time
    narrow = asked(lookup(said))
    assert narrow.start == 26.42 and narrow.end == 27.98 + 0.3   # from the pause after "matter." to "again."


def test_a_segment_is_timed_by_the_words_that_spell_it_even_where_the_recogniser_split_one():
    from videorag.verify.words import timed as words_timed

    said = [Word(1.0, 1.3, "An"), Word(1.3, 1.6, "eye"), Word(1.6, 2.0, "-opening"), Word(2.0, 2.5, "talk.")]
    segs = [Segment(0.9, 2.4, "An eye-opening talk."), Segment(5.0, 6.0, "Not said in these words.")]
    first, second = words_timed("v", segs, lookup(said))
    assert [(w.text, w.start, w.end) for w in first] == [("An", 1.0, 1.3), ("eye-opening", 1.3, 2.0), ("talk.", 2.0, 2.5)]
    assert second == [] and words_timed("v", segs, None) is None


def test_verify_narrows_only_when_given_word_timings():
    seg = Segment(CITED.start, CITED.end, SENTENCE, WORDS)
    evidence = [Evidence(Hit("v", "/v.mp4", seg.start, seg.end, 1.0, seg.text), [seg])]

    def answer():
        return Answer("how long should the glue dry", "The glue dries for 24 hours [1].", [CITED], "test")

    plain = verify(answer(), evidence, None, VerifyConfig())
    assert (plain.citations[0].start, plain.citations[0].end) == (CITED.start, CITED.end)
    narrow = verify(answer(), evidence, None, VerifyConfig(), words=lookup(WORDS))
    assert narrow.citations[0].end - narrow.citations[0].start < 6.0


def test_a_pair_narrowed_to_one_sentences_words_is_checked_against_that_sentence():
    from tests.verify.test_verify import SupportJudge

    roll = Segment(0.0, 6.0, "Roll the paint in a large pattern and keep a wet edge all along the wall.")
    roll = Segment(0.0, 6.0, roll.text, timed(roll.text, 0.0))
    dry = Segment(6.0, 9.2, "Let the first coat dry for four hours.")
    dry = Segment(6.0, 9.2, dry.text, timed(dry.text, 6.0))
    evidence = [Evidence(Hit("v", "/v.mp4", 0.0, 9.2, 1.0, ""), [roll, dry])]
    cited = Citation("v", "/v.mp4", 0.0, 9.2)
    judge = SupportJudge()
    out = verify(Answer("how long before I add more paint", "Wait four hours before adding paint [1].", [cited], "t"),
                 evidence, judge, VerifyConfig(), decided=True, words=lookup(roll.words + dry.words))
    assert 6.0 - LEAD <= out.citations[0].start and out.citations[0].end <= 9.2 + TAIL   # the second sentence's words
    assert judge.asked and all("Roll the paint" not in text for text in judge.asked)   # read without the first
    assert all("Let the first coat dry for four hours." in text for text in judge.asked)


def test_long_segments_split_at_their_words_own_times():
    slow = timed("one two three four five six", 0.0, per_word=1.0) + timed("seven eight", 20.0)
    seg = Segment(0.0, slow[-1].end, " ".join(w.text for w in slow), slow)
    parts = bound_segments([seg], max_seconds=8.0)
    assert [p.text for p in parts] == ["one two three four five six", "seven eight"]
    assert parts[1].start == 20.0 and parts[1].words == slow[6:]


def _record(video_id: str, words: tuple[Word, ...] = ()) -> VideoRecord:
    seg = Segment(10.0, 20.5, SENTENCE, words)
    vectors = np.ones((1, 4), np.float32) / 2
    return VideoRecord(video_id, f"/videos/{video_id}.mp4", 1, 1, 30.0, "asr", [seg], vectors, [seg], vectors)


def test_the_index_keeps_word_timings_and_an_older_one_gains_them(tmp_path):
    index = VideoIndex.open_or_create(tmp_path / "new", "test-model", 4)
    index.add(_record("a", WORDS))
    assert index.meta["format"] == 4
    assert index.words("a", 12.0, 14.0) == [w for w in WORDS if w.start < 14.0 and w.end > 12.0]
    assert index.stats()["word_timings"] == 1

    old = tmp_path / "old"
    index = VideoIndex.open_or_create(old, "test-model", 4)
    shutil.rmtree(old / "words.lance", ignore_errors=True)
    meta = json.loads((old / "videorag.json").read_text())
    (old / "videorag.json").write_text(json.dumps({**meta, "format": 1}))
    index = VideoIndex.open(old)
    assert index.words("any") == [] and index.languages() == {}   # format 1: no words, every video English
    index.add(_record("subtitled"))   # the next video brings this version's tables (nothing timed in it)
    assert index.meta["format"] == 4 and index.words("subtitled") == [] and index.languages() == {"subtitled": ("en", None)}
    index.add(_record("heard", WORDS))
    reopened = VideoIndex.open(old)
    assert reopened.meta["format"] == 4 and len(reopened.words("heard")) == len(WORDS)
    assert reopened.words("subtitled") == [] and reopened.stats()["word_timings"] == 1


def test_ingest_keeps_whispers_word_timings(demo_rag):
    index = demo_rag.library.index
    for video_id in index.video_ids():
        segments = index.segments(video_id)
        words = index.words(video_id)
        assert words and all(a.start <= b.start for a, b in zip(words, words[1:]))
        assert "".join(w.text for w in words) == "".join(s.text.replace(" ", "") for s in segments)  # "eye" "-opening"
        assert segments[0].start - 1.0 <= words[0].start and words[-1].end <= segments[-1].end + 1.0


def test_support_is_the_fitted_probability_and_its_threshold_the_fitted_one(tmp_path, monkeypatch):
    from videorag.answerability.model import Logistic
    from videorag.verify import support

    model = Logistic(support.FEATURES, [0.5, 0.5, 0.5], [0.25, 0.25, 0.25], [2.0, 1.0, 1.0], 0.0, threshold=0.4)
    path = tmp_path / "support.json"
    path.write_text(json.dumps({**model.__dict__, "features": list(model.features),
                                "fitted_on": {"claims": 3}}))
    read = support.fitted.__wrapped__   # the reader under its cache
    monkeypatch.setattr(support, "fitted", lambda: read(path))
    checks = {"answers": 0.9, "says": 0.2, "overlap": 0.5}
    assert abs(support.probability(checks) - float(model.probability(np.array([0.9, 0.2, 0.5]))[0])) < 1e-9
    assert support.threshold(VerifyConfig()) == 0.4 and support.threshold(VerifyConfig(threshold=0.2)) == 0.2
    monkeypatch.setattr(support, "fitted", lambda: None)   # no fitted file: the lesser of the two, as before
    assert support.probability(checks) == 0.2 and support.threshold(VerifyConfig()) == support.FALLBACK


def test_the_search_snapshot_carries_the_word_timings_so_citations_need_no_index_read(demo_rag):
    from videorag import snapshot
    from videorag.snapshot.words import Words, joined

    index = demo_rag.library.index
    demo_rag.library.save_snapshot()
    mapped = snapshot.load(index.location, snapshot.token(index.location))
    for video_id in index.video_ids():
        assert mapped.words_of(video_id, 0, 1e9) == index.words(video_id) != []
        assert mapped.words_of(video_id, 10.0, 12.0) == index.words(video_id, 10.0, 12.0)
    assert mapped.words_of("no-such-video", 0, 1e9) == []

    one = Words.build([0, 0], [2.0, 1.0], [2.5, 1.5], ["b", "a"])   # sorted by video, then time
    assert [w.text for w in one.of(0, 0, 9)] == ["a", "b"]
    both = joined(one, Words.build([0], [0.5], [0.9], ["c"]), first_video=1)
    assert [w.text for w in both.of(1, 0, 9)] == ["c"] and joined(None, None, 3) is None
    assert [w.text for w in joined(None, one, 2).of(2, 0, 9)] == ["a", "b"]
