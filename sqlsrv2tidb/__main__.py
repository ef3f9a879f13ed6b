"""`python -m sqlsrv2tidb` runs the same CLI as the console script."""

from .cli import main

main()
