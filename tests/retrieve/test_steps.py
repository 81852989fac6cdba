"""Steps: sentences over speech-recognition segments (the judge's candidates)."""
from __future__ import annotations

import numpy as np
import pytest

from videorag.retrieve.steps import covering, steps


def test_a_heading_glued_to_the_next_step_becomes_a_step_of_its_own():
    found = steps([0.0], [10.0], ["Chapter two, a hole in the drywall. Cut a square around the damage."])
    assert [s.text for s in found] == ["Chapter two, a hole in the drywall.", "Cut a square around the damage."]
    assert found[0].start == 0.0 and found[-1].end == 10.0
    assert found[0].end == found[1].start
    # time shared out by characters: the first sentence is 35 of 66 characters
    assert found[0].end == pytest.approx(10.0 * 35 / 66)


def test_a_sentence_cut_by_the_recogniser_is_joined_across_segments():
    found = steps([0.0, 4.0], [4.0, 8.0], ["Before you touch anything, shut off", "the two valves under the sink."])
    assert [(s.start, s.end, s.text) for s in found] == [
        (0.0, 8.0, "Before you touch anything, shut off the two valves under the sink.")]


def test_an_abbreviations_period_ends_no_step():
    found = steps([0.0, 7.0], [7.0, 11.0], ["In, Mr. John Dashwood had leisure. Use salt, e.g. coarse", "salt."])
    assert [s.text for s in found] == ["In, Mr. John Dashwood had leisure.", "Use salt, e.g. coarse salt."]
    morning = steps([0.0], [6.0], ["We met at 6 a.m. and talked. Then we left."])   # a lower-case word goes on
    assert [s.text for s in morning] == ["We met at 6 a.m. and talked.", "Then we left."]


def test_a_pause_ends_a_sentence_without_punctuation():
    found = steps([0.0, 5.0, 5.3], [4.0, 5.2, 7.0], ["quick break", "grab a coffee", "and we are back."], pause=0.8)
    assert [s.text for s in found] == ["quick break", "grab a coffee and we are back."]
    assert (found[0].start, found[0].end) == (0.0, 4.0)


def test_a_run_on_sentence_is_cut_into_pieces_of_max_words():
    words = " ".join(f"w{i}" for i in range(25))
    found = steps([0.0], [25.0], [words], max_words=10)
    assert [len(s.text.split()) for s in found] == [10, 10, 5]
    assert found[0].start == 0.0 and found[-1].end == 25.0


def test_quotes_and_decimals_stay_inside_their_sentence():
    found = steps([0.0], [9.0], ['It said "done." Use a 2.5 mm key. End'])
    assert [s.text for s in found] == ['It said "done."', "Use a 2.5 mm key.", "End"]


def test_no_segments_no_steps():
    assert steps([], [], []) == []


def test_covering_takes_the_best_overlapping_span_and_zero_elsewhere():
    best = covering(np.array([0.0, 10.0, 30.0]), np.array([10.0, 20.0, 40.0]),
                    np.array([0.0, 5.0, 12.0]), np.array([6.0, 11.0, 18.0]), np.array([0.2, 0.9, 0.4]))
    np.testing.assert_allclose(best, [0.9, 0.9, 0.0])
