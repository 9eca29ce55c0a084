"""The version of ponderlib, one place: ``pyproject.toml`` reads it, the chapters' set-up cell installs
the tag ``v<version>``, and every run's summary records it."""

__version__ = "0.3.0"
