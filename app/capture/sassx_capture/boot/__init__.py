"""Holds sitecustomize.py, which `python -m sassx_capture` puts first on the captured program's PYTHONPATH."""
