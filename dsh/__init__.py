"""dsh: a full-screen terminal workspace shell."""

__version__ = "0.1.0"
