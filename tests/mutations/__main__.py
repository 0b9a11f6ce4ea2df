import sys

from tests.mutations.runner import main

sys.exit(main())
