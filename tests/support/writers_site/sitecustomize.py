# Loaded at interpreter start when this folder is on PYTHONPATH (tests/support/writers.py).
import importlib.util
import os
import pathlib

if os.environ.get("LRWORLD_WRITERS_ROOT") and os.environ.get("LRWORLD_WRITERS_LOG"):
    _spec = importlib.util.spec_from_file_location("lrworld_writers", pathlib.Path(__file__).parents[1] / "writers.py")
    _mod = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_mod)
    _mod.install(os.environ["LRWORLD_WRITERS_ROOT"], os.environ["LRWORLD_WRITERS_LOG"])
