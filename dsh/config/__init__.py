"""Layered TOML config: shipped base < personal overlay < DSH_* env < flags."""

from dsh.config.env import ENV_KEYS
from dsh.config.key_value import ConfigError, ConfigKeyError
from dsh.config.load import load_config, personal_config_path, session_root
from dsh.config.model import Config
from dsh.config.personal import set_personal

__all__ = [
    "ENV_KEYS",
    "Config",
    "ConfigError",
    "ConfigKeyError",
    "load_config",
    "personal_config_path",
    "session_root",
    "set_personal",
]
