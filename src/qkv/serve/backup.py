"""`qkv serve backup OUT`: a consistent copy of the database while the service runs.

SQLite is copied with its online backup API (a snapshot, whatever is being written meanwhile);
PostgreSQL with pg_dump (a dump in one transaction). Uploads are files named by their content hash
that never change once written: copying the uploads folder at any time is consistent too.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from pathlib import Path

from qkv.errors import QkvError
from qkv.serve.settings import Settings


def backup(settings: Settings, out: Path) -> Path:
    url = settings.database_url
    out = Path(out)
    if out.exists():
        raise QkvError(f"{out}: exists already; name a new file")
    if out.parent != Path():
        out.parent.mkdir(parents=True, exist_ok=True)
    if url.startswith("sqlite"):
        path = Path(url.split("///", 1)[-1])
        if not path.is_file():
            raise QkvError(f"{path}: no database here (is --data right?)")
        source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        target = sqlite3.connect(out)
        try:
            source.backup(target)
        finally:
            target.close()
            source.close()
        return out
    if shutil.which("pg_dump") is None:
        raise QkvError(
            "backing up PostgreSQL needs pg_dump (Debian: apt-get install postgresql-client)"
        )
    plain = url.replace("postgresql+psycopg://", "postgresql://", 1)
    done = subprocess.run(
        ["pg_dump", "--format=custom", f"--file={out}", plain], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise QkvError(f"pg_dump failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}")
    return out
