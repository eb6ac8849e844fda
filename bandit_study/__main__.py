"""``python -m bandit_study``: see ``bandit_study.cli``."""

import sys

from bandit_study.cli import main

sys.exit(main())
