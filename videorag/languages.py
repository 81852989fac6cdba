"""The language a question is asked in, and what videorag says in it: answers are written in the
question's language (`generate`), and so is "the videos do not cover this" (`verify.abstain`).

Identified by py3langid (`videorag[languages]`) among the languages videorag can say something
in (`NOT_COVERED`); English when it is not installed, when the identification is unsure, and —
without loading its model (0.7 s) — for an ASCII question with two or more English function words.
A question in a language none of the library's videos is in is searched in English (`searched_as`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from functools import lru_cache

NAMES = {
    "en": "English", "es": "Spanish", "fr": "French", "de": "German", "it": "Italian", "pt": "Portuguese",
    "pl": "Polish", "nl": "Dutch", "sv": "Swedish", "da": "Danish", "no": "Norwegian", "fi": "Finnish",
    "cs": "Czech", "ro": "Romanian", "hu": "Hungarian", "el": "Greek", "ru": "Russian", "uk": "Ukrainian",
    "tr": "Turkish", "ca": "Catalan", "id": "Indonesian", "vi": "Vietnamese", "ja": "Japanese", "zh": "Chinese",
    "ko": "Korean", "ar": "Arabic", "he": "Hebrew",
}  # fmt: skip
IN_ENGLISH = "(in English: "  # what follows in a segment's text is its speech translated at ingest
NOT_COVERED = {
    "en": "The videos do not cover this.",
    "es": "Los vídeos no tratan esto.",
    "fr": "Les vidéos n'en parlent pas.",
    "de": "Die Videos behandeln das nicht.",
    "it": "I video non ne parlano.",
    "pt": "Os vídeos não tratam disso.",
    "pl": "Filmy tego nie omawiają.",
    "nl": "De video's behandelen dit niet.",
    "sv": "Videorna tar inte upp detta.",
    "da": "Videoerne handler ikke om dette.",
    "no": "Videoene tar ikke opp dette.",
    "fi": "Videot eivät käsittele tätä.",
    "cs": "Videa se tomu nevěnují.",
    "ro": "Videoclipurile nu tratează acest subiect.",
    "hu": "A videók nem foglalkoznak ezzel.",
    "el": "Τα βίντεο δεν καλύπτουν αυτό.",
    "ru": "В видео об этом не говорится.",
    "uk": "У відео про це не йдеться.",
    "tr": "Videolar bu konuyu kapsamıyor.",
    "ca": "Els vídeos no en parlen.",
    "id": "Video tidak membahas hal ini.",
    "vi": "Các video không đề cập đến điều này.",
    "ja": "動画ではこれについて扱っていません。",
    "zh": "视频没有涉及这个内容。",
    "ko": "동영상에서 이 내용을 다루지 않습니다.",
    "ar": "لا تتناول مقاطع الفيديو هذا الموضوع.",
    "he": "הסרטונים אינם עוסקים בזה.",
}
SURE = 0.8  # identification's probability below which a question is taken as English
_ENGLISH = frozenset("how what when where why which who do does did is are can should the to of my your for".split())
_WORD = re.compile(r"[a-z']+")
_loading = threading.Lock()


def text_language(text: str) -> str:
    """The ISO 639-1 code of the language `text` is written in (see the module's docstring): a
    question's, and subtitles' (`asr.language.language_of`)."""
    lowered = text.lower()
    if lowered.isascii() and len(_ENGLISH.intersection(_WORD.findall(lowered))) >= 2:
        return "en"
    identifier = _identifier()
    if identifier is None:
        return "en"
    language, probability = identifier.classify(text)
    return language if probability >= SURE and language in NOT_COVERED else "en"


def not_covered(question: str) -> str:
    """ "The videos do not cover this." in the question's language."""
    return NOT_COVERED[text_language(question)]


def name(language: str) -> str:
    return NAMES.get(language, language)


KEYWORDS = 4  # an ASCII query of fewer words is taken as keywords, searched as written
TRANSLATE = "Translate this question into English.\n\nQuestion: {question}\nIn English:"


def searched_as(question: str, spoken: set[str], completion: Callable[[], Callable | None]) -> str:
    """The text `question` is searched with: itself, unless it is written (and not as a few ASCII
    keywords) in a language none of the library's videos is in (`spoken`) and a model can
    translate it (`completion()`: its raw completion, `complete(prompt, max_tokens)`, or None);
    then in English, the language of every video's text or of the translation ingest keeps
    beside it."""
    if _keywords(question):
        return question
    asked = text_language(question)
    if asked == "en" or asked in spoken or (complete := completion()) is None:
        return question
    return in_english(question, complete)


def _keywords(text: str) -> bool:
    """A short ASCII query ("tire pressure"): searched as written, without loading the language
    model (0.7 s, most of a cold command-line search) to identify a few words."""
    return text.isascii() and len(text.split()) < KEYWORDS


def in_english(question: str, complete: Callable[[str, int], str]) -> str:
    """`question` in English by a model's raw completion: the reply's first line, cut after its
    first question mark (the model goes on to explain); the question itself when it says nothing."""
    line = complete(TRANSLATE.format(question=" ".join(question.split())), 32).strip().split("\n", 1)[0]
    return (line[: line.index("?") + 1] if "?" in line else line).strip() or question


@lru_cache(maxsize=1)
def _identifier():
    with _loading:
        try:
            from py3langid.langid import MODEL_FILE, LanguageIdentifier
        except ImportError:
            return None
        identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
        identifier.set_languages(list(NOT_COVERED))
        return identifier
