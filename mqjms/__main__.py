"""``python -m mqjms``: the ``mqjms`` command."""

from mqjms.cli import main

raise SystemExit(main())
