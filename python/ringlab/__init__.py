"""ringlab: ring AllReduce collectives and their analysis, from Python."""

from ringlab._ringlab import __version__

__all__ = ["__version__"]
