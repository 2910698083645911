"""`python -m mergegate` runs the command line."""

from mergegate.cli import main

main()
