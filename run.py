"""Starts signsvc: `python run.py` serves on 127.0.0.1:3000 with SQLite; `python run.py --help` for more."""

import sys

from signsvc.cli import main

if __name__ == "__main__":
    sys.exit(main())
