"""``python -m app.cli``."""

from app.cli import main

# Guarded: a drawing process (app/render/draw_pool.py, started with `spawn`) imports the parent's
# main module under another name, and must not run the command line again.
if __name__ == "__main__":
    main()
