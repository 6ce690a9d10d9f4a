"""dsh: a full-screen terminal workspace shell."""

__version__ = "0.2.0"
