"""The multilingual benchmark's ASR measure: words of any script, key facts found as whole words,
word errors counted over them."""
from __future__ import annotations

from benchmarks.bench_ingest_engines import wer
from benchmarks.languages.asr import facts_in, words


def test_words_keep_any_script_and_drop_punctuation():
    assert words("¿Cuántos huevos? Seis.") == ["cuántos", "huevos", "seis"]
    assert words("Jak zrobić pierogi ruskie?") == ["jak", "zrobić", "pierogi", "ruskie"]


def test_a_fact_is_one_of_its_alternatives_as_whole_words():
    assert facts_in("Bate seis huevos en un bol.", "6|seis|six")
    assert facts_in("mit 100 Gramm Mehl", "100 g|100 Gramm")
    assert not facts_in("seiscientos gramos", "6|seis|six")
    assert not facts_in("Bate huevos.", "6|seis|six")


def test_word_errors_over_another_language():
    assert wer("Bate seis huevos", "bate 6 huevos", words) == (1, 3)
    assert wer("Cómo hacer una tortilla", "como hacer una tortilla", words) == (1, 4)
    assert wer("Cómo hacer", "", words) == (2, 2)
