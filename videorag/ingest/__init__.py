"""Ingest stage: discovery, decoding, subtitles / ASR, chunking, and the pipeline tying them."""

from .pipeline import Ingestor

__all__ = ["Ingestor"]
