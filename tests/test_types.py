"""The one place JSON times are rounded and moments are written as text."""
from __future__ import annotations

import json

from videorag.types import Answer, Citation, Hit, span


def test_json_times_carry_no_float_noise():
    noisy = 0.1 + 23.3   # 23.400000000000002
    answer = Answer("q", "a", [Citation("v", "p.mp4", noisy, noisy + 3)], "extractive")
    hit = Hit("v", "p.mp4", noisy, noisy + 3, 0.5, "t")
    text = json.dumps([answer.to_dict(), hit.to_dict()])
    assert "23.400000000000002" not in text and text.count('"start": 23.4,') == 2


def test_a_moment_is_shown_from_the_second_it_starts_in_to_the_second_it_ends_in():
    assert span(25.4, 29.2) == "0:25–0:30"
    assert span(26.0, 29.0) == "0:26–0:29"   # whole seconds stay as they are
    assert span(3599.5, 3600.2) == "59:59–1:00:01"
