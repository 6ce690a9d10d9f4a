"""Run dsh as `python -m dsh`."""

from dsh.cli import main

raise SystemExit(main())
