"""The embedded index: LanceDB tables for videos, text units (segments / chunks) and frames."""
from .store import VideoIndex, VideoRecord

__all__ = ["VideoIndex", "VideoRecord"]
