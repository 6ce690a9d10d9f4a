"""setuptools glue: ship the top-level share/ folder as the dsh.share package."""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["dsh", "dsh.*"]), "dsh.share"],
    package_dir={"dsh.share": "share"},
    data_files=[
        ("share/man/man1", ["man/dsh.1"]),
        ("share/bash-completion/completions", ["share/completions/dsh"]),
        ("share/zsh/site-functions", ["share/completions/_dsh"]),
        ("share/fish/vendor_completions.d", ["share/completions/dsh.fish"]),
    ],
)
