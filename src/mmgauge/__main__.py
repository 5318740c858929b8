"""`python -m mmgauge ...`: the command line, as the `mmgauge` script runs it (where no script is on PATH)."""

from mmgauge.cli.main import main

if __name__ == "__main__":
    main()
