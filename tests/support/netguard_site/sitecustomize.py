# Loaded at interpreter start when this folder is on PYTHONPATH (tests/support/netguard.py).
import importlib.util
import pathlib

_spec = importlib.util.spec_from_file_location("lrworld_netguard", pathlib.Path(__file__).parents[1] / "netguard.py")
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)
_mod.install()
