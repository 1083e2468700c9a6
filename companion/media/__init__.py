"""The media engine: decode and sample videos, write every export format, synthesize
sandbox videos, build preview contact sheets. Pure functions on files: no HTTP, no
database."""

from companion.media.errors import MediaError
from companion.media.export import (
    FORMATS,
    MIME_TYPES,
    ExportOutput,
    ExportResult,
    ExportSpec,
    export_video,
)
from companion.media.probe import VideoInfo, probe
from companion.media.sampling import SamplePlan, plan_samples

__all__ = [
    "FORMATS",
    "MIME_TYPES",
    "ExportOutput",
    "ExportResult",
    "ExportSpec",
    "MediaError",
    "SamplePlan",
    "VideoInfo",
    "export_video",
    "plan_samples",
    "probe",
]
