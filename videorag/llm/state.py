"""A slot's prefix, evaluated once on this machine: the instruction every request of one kind
starts with (the judge's, the generator's) is evaluated by the first process that asks, saved by
llama.cpp as the slot's state (its tokens and KV cache, ~30 KB a token for Qwen 1.5B), and restored
by the processes after it, so a command-line `ask` does not pay for its instructions (about 100
tokens, 1.3 s on 2 cores) each time. A request then evaluates only what follows the prefix — as
it already does within one process.

Only the prefixes are saved, never a question or a transcript. The files live in the cache
(`videorag.models.cache_root()/llm-state/`), under the model file's fingerprint and the runtime's
version and build (a state is valid for those alone: the prebuilt wheel and one `make native`
compiled compute it apart), named by a hash of the prefix (a changed instruction
is evaluated anew). A state that cannot be saved or restored costs its evaluation, never the
request: the prefix is evaluated as if there were none.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import logging
import os
import shutil
import socket
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import GenerationError

if TYPE_CHECKING:
    from .gguf import LocalModel, Slot

log = logging.getLogger(__name__)
FORMAT = "1"  # of the files: a new one leaves the old ones unread


class States:
    """The kept prefixes of one loaded model's slots: each readied once per load (`ready`)."""

    def __init__(self, model: LocalModel):
        self.model = model
        self._ready: set[str] = set()
        self._lock = threading.Lock()

    def ready(self, slot: Slot) -> None:
        """Put `slot`'s prefix in its slot: restored from the cache, else evaluated and saved there."""
        if slot.prefix is None or slot.name in self._ready:
            return
        with self._lock:  # held until the slot is ready: no request of another thread goes in between
            if slot.name in self._ready:
                return
            kept = self.folder() / f"{slot.name}-{_digest(slot.prefix)}.bin"
            if not (kept.exists() and self._restore(slot, kept)) and self._evaluate(slot):
                self._save(slot, kept)
            self._ready.add(slot.name)

    def folder(self) -> Path:
        """Where this model file's states are kept, for this runtime."""
        from importlib.metadata import version

        from ..models import cache_root, fingerprint

        key = f"{FORMAT}|{fingerprint(self.model.path)}|{version('xllamacpp')}|{_build()}"
        name = Path(self.model.path).stem
        return cache_root() / "llm-state" / f"{name}-{hashlib.sha1(key.encode()).hexdigest()[:16]}"

    def _evaluate(self, slot: Slot) -> bool:
        """Whether the slot evaluated its prefix alone (what is then saved)."""
        assert slot.prefix is not None, "`ready` evaluates prefixes only"
        messages = [{"role": role, "content": content} for role, content in slot.prefix]
        try:
            self.model.chat({"messages": messages, "max_tokens": 1, "id_slot": self.model.slots.index(slot.name)})
        except GenerationError as exc:
            log.info("the %s prefix of %s was not evaluated (%s)", slot.name, self.model.path, exc)
            return False
        return True

    def _restore(self, slot: Slot, kept: Path) -> bool:
        """Whether the kept state was restored into the slot (a broken one is removed)."""
        link = Path(self.model.home) / f"{slot.name}.bin"
        link.unlink(missing_ok=True)
        link.symlink_to(kept)
        done, said = self._slot("restore", slot, link.name)
        if not done:
            log.info("the kept %s prefix of %s did not restore (%s): it is evaluated anew", slot.name, kept, said)
            kept.unlink(missing_ok=True)
        return done

    def _save(self, slot: Slot, kept: Path) -> None:
        """The slot's state (its prefix alone, just evaluated) written to `kept`, whole or not at all."""
        done, said = self._slot("save", slot, f"{slot.name}.bin")
        if not done:
            log.info("the %s prefix of %s could not be saved (%s)", slot.name, self.model.path, said)
            return
        try:
            kept.parent.mkdir(parents=True, exist_ok=True)
            handle, partial = tempfile.mkstemp(dir=kept.parent, suffix=".partial")
            os.close(handle)
            shutil.copyfile(Path(self.model.home) / f"{slot.name}.bin", partial)
            os.replace(partial, kept)
            for stale in kept.parent.glob(f"{slot.name}-*.bin"):  # of an instruction since changed
                if stale != kept:
                    stale.unlink(missing_ok=True)
        except OSError as exc:
            log.info("the %s prefix could not be kept in %s (%s)", slot.name, kept.parent, exc)

    def _slot(self, action: str, slot: Slot, filename: str) -> tuple[bool, str]:
        """(done, what the server said) for `action` (save, restore) of `slot` to or from `filename`
        in the model's private folder, asked over its Unix socket with its key."""
        index = self.model.slots.index(slot.name)
        connection = _UnixConnection(self.model.socket)
        try:
            connection.request(
                "POST",
                f"/slots/{index}?action={action}",
                json.dumps({"filename": filename}),
                {"Content-Type": "application/json", "Authorization": f"Bearer {self.model.key}"},
            )
            reply = connection.getresponse()
            return reply.status == 200, reply.read(300).decode("utf-8", "replace")
        except (OSError, http.client.HTTPException) as exc:
            return False, str(exc)
        finally:
            connection.close()


class _UnixConnection(http.client.HTTPConnection):
    """HTTP to a server listening on a Unix socket."""

    def __init__(self, path: str):
        super().__init__("localhost", timeout=60)
        self.socket_path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.socket_path)


def _digest(prefix: tuple[tuple[str, str], ...]) -> str:
    return hashlib.sha1(json.dumps(prefix).encode()).hexdigest()[:16]


def _build() -> str:
    """Which build of the runtime this is: its compiled module's size and time (the prebuilt wheel's
    and one compiled for this CPU by `make native` differ)."""
    import xllamacpp

    module = next(Path(xllamacpp.__file__).parent.glob("xllamacpp*.so"), None)
    return f"{module.stat().st_size}-{module.stat().st_mtime_ns}" if module is not None else ""
