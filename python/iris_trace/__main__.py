"""python -m iris_trace ARGS: ./attribute ARGS (the same program as iris-attribute)."""

from .cli import main

if __name__ == "__main__":
    main()
