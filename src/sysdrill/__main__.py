"""Allow ``python -m sysdrill``."""

from sysdrill.cli.app import main

raise SystemExit(main())
