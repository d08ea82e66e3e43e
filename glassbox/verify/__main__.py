"""``python -m glassbox.verify``; see :mod:`glassbox.verify.cli`."""

from glassbox.verify.cli import main

raise SystemExit(main())
