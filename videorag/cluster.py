"""The Ray cluster that Ray ingest (`ingest/engines/ray_data.py`) and a sharded search
(`shard/ray_serve.py`) run on: one joined at an address, or one started on this machine.

A cluster started here runs without Ray's dashboard: nothing of videorag uses it, and it costs
CPU all the time (measured on 2 cores with four idle shard replicas, 30 s each, three pairs:
0.17–0.21 → 0.12–0.14 of a core busy). Ray's logger is left to the application
(`configure_logging=False`); workers' output stays in Ray's own log files (`log_to_driver=False`).
"""

from __future__ import annotations

import logging
import warnings

from .errors import ConfigError
from .registry import require

log = logging.getLogger(__name__)
LOCAL = "local"  # the address that starts a cluster on this machine (as None does)


def join(address: str | None, flag: str):
    """The `ray` module, connected to the cluster at `address` (ray://HOST:10001, HOST:6379,
    "auto"; None or "local": start one here) unless it already is; `flag`: the option that gave
    the address, for the error."""
    ray = require("ray", "ray")
    if ray.is_initialized():
        return ray
    here = address in (None, LOCAL)
    log.info("Ray: %s", "starting a cluster here" if here else f"joining the cluster at {address}")
    try:
        with warnings.catch_warnings():  # lancedb warns at any fork; Ray's fork only execs
            warnings.filterwarnings("ignore", "lancedb fork support", RuntimeWarning)
            ray.init(
                address=None if here else address,
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
            )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ConfigError(
            f"cannot start or reach Ray at {'this machine' if here else address}: {exc}",
            f"check {flag}: ray://HOST:10001, or auto for a cluster started with `ray start --head`; "
            "local runs Ray on this machine",
        ) from exc
    return ray
