"""Every JSON shape the product emits, declared once: the HTTP API's response models (and so its
OpenAPI document), the MCP tools' output schemas, and what the CLI's `--json` prints.

The in-process results stay plain dataclasses (`videorag.types`, `serve.jobs.Job`); their
`to_dict()` / `search_json()` build these shapes without importing pydantic (it would add about
75 ms to every CLI search), and the tests hold each one to its model here. No field has a
default: each is always present (null where it has no value). Times are seconds, rounded to the
millisecond where the shape is made (`types.seconds`).

The requests' shapes are declared in `videorag.requests` (no pydantic); their pydantic forms, and
the signatures the HTTP routes and MCP tools take them by, are derived at the end of this module.
"""

from __future__ import annotations

from collections.abc import Callable
from inspect import Parameter, Signature
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, create_model

from . import requests

PATHS_LIMIT = 1000  # server paths one index job may take
VideoId = Annotated[str, Field(description="the video's id in the index")]
VideoPath = Annotated[str, Field(description="the video file on the server")]
Seconds = Annotated[float, Field(description="seconds into the video")]
ServerPaths = Annotated[
    list[str],
    Field(min_length=1, max_length=PATHS_LIMIT, description="folders or video files on the server, inside its roots"),
]


# -- search and answers --------------------------------------------------------------------
class Citation(BaseModel):
    """A cited moment of a video."""

    video_id: VideoId
    path: VideoPath
    start: Seconds
    end: Seconds
    span: str = Field(
        description="the moment as shown, m:ss–m:ss (h:mm:ss from an hour on): from the second it "
        "starts in to the second it ends in"
    )


class Hit(Citation):
    """One result: a video at its best-matching moment (or, with moments, one moment)."""

    score: float
    text: str = Field(description="what is said (or shown) in this moment")
    weak: bool = Field(
        description="below the relevance floor, or ranked under a hit that is: may not be about the query"
    )


class SearchResult(BaseModel):
    query: str
    results: list[Hit] = Field(description="best first")
    missing_shards: list[str] = Field(
        default_factory=list,
        description="the shards of a sharded index (`serve --ray`) that did not answer in time: the results are "
        "partial; empty: they are whole",
    )


class Claim(BaseModel):
    text: str = Field(description="one sentence of the answer")
    citations: list[int] = Field(
        description="the moments it cites, numbered from 1 as the answer's [n] "
        "markers are: [1] is the first of `citations`"
    )
    support: float | None = Field(description="how well its cited moments support it, 0-1; null: not verified")
    supported: bool | None = Field(
        description="false: unsupported, `flag` says why; true: `support` reaches the threshold, or the question was "
        "found answerable and its cited words say it and read as well as the best moment (`checks.best`); "
        "null: not verified"
    )
    checks: dict[str, float] | None = Field(
        None,
        description="what support is computed from: the judge's P(the cited words answer the question) "
        "(`answers`), P(they say the claim) (`says`), the share of its words they say (`overlap`) and, when the "
        "answerability stage decided that the moments answer, the best P(answers) among the moments the judge read "
        "(`best`: a claim they say whose `answers` is 0.9 of it or more is supported); null: not verified",
    )
    flag: Literal["not_said", "off_question"] | None = Field(
        None,
        description="why it is unsupported: `not_said`, its cited moments do not say this (the judge's `says` "
        "under the threshold); `off_question`, its cited moment says it but may not answer the question "
        "(`answers` under it, and under 0.9 of `best`); null: supported or not verified",
    )


class AnswerPart(BaseModel):
    """A piece of an answer's text, cut where a page shows it differently: joined in order, the
    parts' texts are the answer."""

    text: str
    claim: int | None = Field(
        description="the claim whose words these are, numbered from 1 in `claims`; null: between claims"
    )
    citations: list[int] = Field(
        description="a [n] marker: the moments it cites, numbered from 1 in `citations`; []: words"
    )


class Answer(BaseModel):
    question: str
    answer: str = Field(description="may cite moments as [1], [2] (1-based positions in `citations`)")
    citations: list[Citation]
    generator: str = Field(description="the generator that wrote the answer")
    judge: str | None = Field(description="the judge that chose the cited moments (backend:model); null: none")
    claims: list[Claim] = Field(
        description="the answer's sentences, each with the moments it cites and its "
        "support; empty when the answer abstained"
    )
    parts: list[AnswerPart] = Field(
        description="the answer cut into its claims' words, the words between and its [n] markers, in order"
    )
    abstained: bool = Field(description="true: the videos do not cover the question, no answer is given")
    answerable: float | None = Field(
        None,
        description="P(the retrieved moments answer the question), from the "
        "answerability stage; null: the stage is off",
    )


# -- the collection ------------------------------------------------------------------------
class Video(BaseModel):
    video_id: VideoId
    path: VideoPath
    duration: float = Field(description="seconds")
    clock: str = Field(description="the duration as shown (m:ss, or h:mm:ss from an hour on)")
    source: str = Field(description="where the text came from: asr or subtitles")


class VideoList(BaseModel):
    """The indexed videos (MCP's `list_videos`; `GET /videos` answers the bare list)."""

    videos: list[Video] = Field(description="by path")


class Chapter(BaseModel):
    """A stretch of a video about one topic."""

    start: Seconds
    end: Seconds
    span: str = Field(description="the chapter as shown, m:ss–m:ss")
    title: str = Field(description="a short title made of words said in it; empty where none stands out")


class Chapters(BaseModel):
    """A video's chapters (`videorag chapters`, `GET /videos/{id}/chapters`, MCP's `chapters`)."""

    video_id: VideoId
    path: VideoPath
    chapters: list[Chapter] = Field(description="in time order, from 0 to the end of the video")


class Removed(BaseModel):
    removed: list[str] = Field(description="the ids of the videos removed")


# -- index jobs ----------------------------------------------------------------------------
class JobFile(BaseModel):
    """What a job did with one file."""

    path: str
    status: str = Field(description="added, unchanged, moved or failed")
    video_id: str | None = Field(description="the video's id in the index; null: it failed")
    error: str | None
    warnings: list[str] = Field(description="what was read only in part, or dropped")


class Job(BaseModel):
    """A background index job and its progress."""

    id: str
    paths: list[str]
    state: str = Field(description="queued, running, done or failed")
    done: int = Field(description="files finished")
    total: int = Field(description="files found")
    current: str | None = Field(description="the file being indexed")
    stage: str | None = Field(description="what the current file goes through: decode, transcribe, embed, ocr…")
    eta_seconds: float | None = Field(description="the whole job's time left, once there is an estimate")
    files: list[JobFile]
    summary: str | None = Field(description="counts by status, once the job is done")
    error: str | None = Field(description="why the job failed")


# -- the server ----------------------------------------------------------------------------
class JudgeStatus(BaseModel):
    available: bool = Field(description="the judge's model is installed: it can run here")
    search: bool = Field(description="search uses the judge unless told otherwise")
    ask: bool = Field(description="ask uses the judge unless told otherwise")


class Methods(BaseModel):
    default: str = Field(description="the method used when a request names none")
    methods: list[str] = Field(description="the registered retrieval methods")
    judge: JudgeStatus


class Error(BaseModel):
    """Every HTTP error's body."""

    detail: str = Field(description="what went wrong, in one line, and what to do about it")


# -- requests (declared once in `videorag.requests`; their pydantic forms derived here) ------
def annotated(param: requests.Param) -> Any:
    """A request field as `Annotated[its type, Field(description, bounds)]`: what pydantic and
    the MCP SDK read an argument's rules from."""
    return Annotated[param.annotation, Field(description=param.description, **param.bounds)]


def request_model(request_type: type) -> type[BaseModel]:
    """The pydantic model of a request type: a JSON body (POST /ask) and its OpenAPI schema."""
    fields: dict[str, Any] = {
        p.name: (annotated(p), ... if p.required else None) for p in requests.params(request_type)
    }
    return create_model(request_type.__name__, __doc__=request_type.__doc__, **fields)


def signature(request_type: type, annotate: Callable = annotated, returns: Any = Signature.empty) -> Signature:
    """A function signature taking a request's fields as keyword arguments (`annotate` makes
    each one's annotation): given to a `**fields` function as its `__signature__`, it is what
    FastAPI and the MCP SDK read its parameters from (`takes`)."""
    return Signature(
        [
            Parameter(
                p.name, Parameter.KEYWORD_ONLY, annotation=annotate(p), default=Parameter.empty if p.required else None
            )
            for p in requests.params(request_type)
        ],
        return_annotation=returns,
    )


def takes(request_type: type, annotate: Callable = annotated, returns: Any = Signature.empty) -> Callable:
    """Decorate a `**fields` function so that its parameters are the request's fields (its
    signature and annotations: `signature`)."""

    def decorate(function: Any) -> Any:  # a function: its __signature__ is set
        function.__signature__ = signature(request_type, annotate, returns)
        function.__annotations__ = {
            **{name: p.annotation for name, p in function.__signature__.parameters.items()},
            "return": returns,
        }
        return function

    return decorate


SearchRequest = request_model(requests.SearchRequest)
AskRequest = request_model(requests.AskRequest)


class IndexRequest(BaseModel):
    paths: ServerPaths
